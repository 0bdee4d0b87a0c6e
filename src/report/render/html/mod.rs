//! The self-contained pages: quick_view.html of one model's run
//! (`quick_view`, with `svg` charts and the `matrix`, its first rows and
//! its pages), its pages of cases (`case_pages`, each case a `case_view`
//! with `highlight`ed code and `diff`s of expected against actual output),
//! and the multi-model run's overview (`models_view`). What the pages
//! share (templates, CSP, links) is in `templates`.

mod case_pages;
mod case_view;
mod diff;
mod highlight;
mod matrix;
pub(crate) mod models_view;
pub(crate) mod quick_view;
mod svg;
mod templates;

pub(crate) use case_pages::CasePages;

/// What the unit tests of the pages read back: a written report's pages.
#[cfg(test)]
pub(crate) mod written {
    use std::path::Path;

    use crate::case::CaseRecord;
    use crate::results::RunInfo;

    /// Writes the report of `records` into a new folder; the folder.
    pub fn report(info: &RunInfo, records: &[CaseRecord]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        crate::report::write_all(dir.path(), info, records).expect("written");
        dir
    }

    /// Every page under `dir` (quick_view.html first, then report/ in path
    /// order), as (path relative to `dir`, text).
    pub fn pages(dir: &Path) -> Vec<(String, String)> {
        fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "html") {
                    out.push(path);
                }
            }
        }
        let mut paths = Vec::new();
        walk(&dir.join("report"), &mut paths);
        paths.sort();
        paths.insert(0, dir.join("quick_view.html"));
        paths
            .into_iter()
            .map(|p| {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                (rel, std::fs::read_to_string(&p).expect("page"))
            })
            .collect()
    }

    /// The `href`s of `<a>` elements in `html`, unescaped.
    pub fn links(html: &str) -> Vec<String> {
        let re = regex::Regex::new(r#"<a [^>]*href="([^"]*)""#).unwrap();
        re.captures_iter(html)
            .map(|c| c[1].replace("&#x2f;", "/").replace("&amp;", "&"))
            .collect()
    }

    /// `href` (percent-encoded, relative to `from`, a page's path relative
    /// to the report's folder) as (page path relative to the folder,
    /// decoded fragment).
    pub fn resolve(from: &str, href: &str) -> (String, String) {
        let (path, fragment) = href.split_once('#').unwrap_or((href, ""));
        let mut parts: Vec<String> = from.split('/').map(String::from).collect();
        parts.pop();
        for segment in path.split('/') {
            match segment {
                ".." => {
                    parts.pop();
                }
                s => parts.push(decoded(s)),
            }
        }
        (parts.join("/"), decoded(fragment))
    }

    fn decoded(text: &str) -> String {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' && i + 2 < bytes.len() {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("hex");
                out.push(u8::from_str_radix(hex, 16).expect("hex"));
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        String::from_utf8(out).expect("utf-8")
    }
}

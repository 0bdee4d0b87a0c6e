//! A run's cases as a person reaches them: quick_view.html lists, per
//! prompt and verdict, links to the pages that hold the cases
//! (`report/cases/...`); these helpers follow those links, so a test that
//! finds a case here found it the way a reader would.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The pages quick_view.html's table of case pages links to, in its order.
pub fn linked_pages(run_dir: &Path) -> Vec<PathBuf> {
    let quick_view = std::fs::read_to_string(run_dir.join("quick_view.html")).expect("quick view");
    let table = &quick_view[quick_view
        .find("id=\"case-pages\"")
        .expect("the table of case pages")..];
    hrefs(table)
        .iter()
        .map(|href| resolve(run_dir, href).0)
        .collect()
}

/// The page a link of quick_view.html leads to that holds the case named
/// `name` (as in the terminal: `prompt::question::r1`), with its text.
pub fn page_of(run_dir: &Path, name: &str) -> (PathBuf, String) {
    let id = format!("id=\"case-{}\"", name.replace('/', "&#x2f;"));
    linked_pages(run_dir)
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("page");
            (p, text)
        })
        .find(|(_, text)| text.contains(&id))
        .unwrap_or_else(|| panic!("no page linked from the quick view holds {name}"))
}

/// Every linked page's text, one after the other.
pub fn all_cases(run_dir: &Path) -> String {
    linked_pages(run_dir)
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("page"))
        .collect()
}

/// The `href`s of the `<a>` elements of `html`, as written (escaped).
pub fn hrefs(html: &str) -> Vec<String> {
    let re = regex::Regex::new(r#"<a [^>]*href="([^"]*)""#).unwrap();
    re.captures_iter(html)
        .map(|c| c[1].replace("&#x2f;", "/").replace("&amp;", "&"))
        .collect()
}

/// `href`, relative to the folder `from`, as a path and its decoded
/// fragment.
pub fn resolve(from: &Path, href: &str) -> (PathBuf, String) {
    let (path, fragment) = href.split_once('#').unwrap_or((href, ""));
    let mut out = from.to_path_buf();
    for segment in path.split('/') {
        match segment {
            ".." => {
                out.pop();
            }
            s => out.push(decoded(s)),
        }
    }
    (out, decoded(fragment))
}

/// Percent-decoding, as the browser does.
pub fn decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
            if let Ok(b) = u8::from_str_radix(hex, 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).expect("utf-8")
}

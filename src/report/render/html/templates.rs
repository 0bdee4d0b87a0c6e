//! What every page of the quick view shares: its templates, parsed once per
//! process; the CSP source that lets a page's own script run and nothing
//! else; and link targets made safe for an `href`.
//!
//! Everything a page shows comes from the model or the suite, so it goes
//! through minijinja with HTML auto-escaping (the template names end in
//! `.html`); the Rust side never builds markup. The CSP backs that up
//! should an escape ever be missed: an injected script would not run.

use minijinja::Environment;

/// quick_view.html: the run at a glance, linking to the pages.
pub(super) const QUICK_VIEW: &str = "quick_view.html";
/// A page of one prompt's cases of one verdict (its head; the cases and the
/// tail are macros of CASE_PARTS).
pub(super) const CASE_PAGE: &str = "case_page.html";
pub(super) const CASE_PARTS: &str = "case_parts.html";
/// A page of the questions x prompts matrix beyond the quick view's rows.
pub(super) const MATRIX_PAGE: &str = "matrix_page.html";
/// A multi-model run's quick_view.html (it runs no script).
pub(super) const MODELS_VIEW: &str = "models_view.html";

const SOURCES: [(&str, &str); 7] = [
    (QUICK_VIEW, include_str!("quick_view.html")),
    (CASE_PAGE, include_str!("case_page.html")),
    (CASE_PARTS, include_str!("case_parts.html")),
    (MATRIX_PAGE, include_str!("matrix_page.html")),
    (MODELS_VIEW, include_str!("models_view.html")),
    // The matrix's table, shared by the quick view and the matrix pages.
    ("matrix_parts.html", include_str!("matrix_parts.html")),
    // One stylesheet for every page; not HTML, so included unescaped.
    ("pages.css", include_str!("pages.css")),
];

/// The quick view's script: sorting, and its filters over the case pages.
/// Each page allows one inline script (by its hash), so the filter form
/// both pages use (`filter_form.js`) starts each of them.
pub(super) const QUICK_VIEW_SCRIPT: &str = concat!(
    include_str!("filter_form.js"),
    include_str!("quick_view.js")
);
/// A case page's script: its filters, and opening a case from a link.
pub(super) const CASE_PAGE_SCRIPT: &str =
    concat!(include_str!("filter_form.js"), include_str!("case_page.js"));

/// The pages' templates (constants, so an error is a defect of this crate,
/// reported as an I/O error of the report rather than a panic).
pub(super) fn environment() -> std::io::Result<&'static Environment<'static>> {
    static ENV: std::sync::OnceLock<Result<Environment<'static>, minijinja::Error>> =
        std::sync::OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        for (name, source) in SOURCES {
            env.add_template(name, source)?;
        }
        Ok(env)
    })
    .as_ref()
    .map_err(|e| std::io::Error::other(e.to_string()))
}

/// Renders template `name` with `context`.
pub(super) fn render(name: &str, context: impl serde::Serialize) -> std::io::Result<String> {
    environment()?
        .get_template(name)
        .and_then(|t| t.render(context))
        .map_err(std::io::Error::other)
}

/// `sha256-...`: the CSP source that lets `script`, and nothing else, run.
pub(super) fn script_source(script: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    let digest = sha2::Sha256::digest(script.as_bytes());
    format!(
        "sha256-{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// Path segments (prompt folders, file names, a case's name) joined by `/`
/// with every byte outside the URL's unreserved characters
/// percent-encoded: a prompt named `a#b?c` still links to its folder.
pub(super) fn href(segments: &[&str]) -> String {
    segments
        .iter()
        .map(|s| percent_encoded(s))
        .collect::<Vec<_>>()
        .join("/")
}

/// The `#case-<name>` fragment of a case's link; the browser (and the case
/// page's script) decode it back to the element's id.
pub(super) fn case_fragment(name: &str) -> String {
    format!("#case-{}", percent_encoded(name))
}

fn percent_encoded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_keep_a_hostile_name_inside_its_segment() {
        assert_eq!(
            href(&["..", "a#b?c/d", "q 1.py"]),
            "../a%23b%3Fc%2Fd/q%201.py"
        );
        assert_eq!(case_fragment("p::q1::r1"), "#case-p%3A%3Aq1%3A%3Ar1");
        assert_eq!(case_fragment("提示"), "#case-%E6%8F%90%E7%A4%BA");
    }

    #[test]
    fn every_template_parses() {
        for (name, _) in SOURCES {
            assert!(environment().unwrap().get_template(name).is_ok(), "{name}");
        }
    }
}

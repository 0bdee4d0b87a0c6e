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
mod radar;
mod svg;
mod templates;

pub(crate) use case_pages::CasePages;

//! The self-contained pages: quick_view.html of one model's run
//! (`quick_view`, with `svg` charts, `highlight`ed code and
//! `diff`s of expected against actual output) and the multi-model
//! run's overview (`models_view`).

mod diff;
mod highlight;
pub(crate) mod models_view;
pub(crate) mod quick_view;
mod svg;

pub(crate) use quick_view::PageWriter;

//! The seam between languages: every question's program goes through
//! [`Languages`], which hands it to its language's side: extract the code
//! from the reply, build the program, run it in the sandbox and judge it.
//! Python (`program`) and C++ (`cpp`) have sides of their own; every
//! language of MultiPL-E's is a [`Spec`] in its own folder, run by
//! `multipl_e`. Nothing outside this module compares languages: what
//! differs between them is data (`suite::LanguageInfo`, [`Spec`]).

use crate::sandbox::{Sandbox, SandboxError};
use crate::suite::{CodeLanguage, Question};

use super::cpp::Cpp;
use super::extract::{self, Extracted};
pub use super::judge::Ran;
use super::judge::judge_question;
use super::multipl_e::{MultiplE, Spec};
use super::program::{self, Shapes};

/// Every language of MultiPL-E's this project runs.
pub const MULTIPL_E: &[&Spec] = &[
    &super::lua::SPEC,
    &super::racket::SPEC,
    &super::r::SPEC,
    &super::ocaml::SPEC,
    &super::perl::SPEC,
    &super::d::SPEC,
    &super::bash::SPEC,
    &super::ruby::SPEC,
    &super::php::SPEC,
    &super::javascript::SPEC,
    &super::go::SPEC,
    &super::java::SPEC,
    &super::rust::SPEC,
];

/// How a language's programs run.
pub enum Side {
    Python,
    Cpp,
    MultiplE(&'static Spec),
}

/// The side that runs `language`.
pub fn side(language: CodeLanguage) -> Side {
    match MULTIPL_E.iter().find(|s| s.language == language) {
        Some(spec) => Side::MultiplE(spec),
        None if language == CodeLanguage::Cpp => Side::Cpp,
        None => Side::Python,
    }
}

/// Whether a question in `language` may carry `tests` in that language
/// (MultiPL-E's, and Python's); C++ is judged by its output or its
/// ParEval check.
pub fn takes_tests(language: CodeLanguage) -> bool {
    !matches!(side(language), Side::Cpp)
}

/// The MultiPL-E languages `suite` uses, each with its count of
/// questions, in [`MULTIPL_E`]'s order.
pub fn multipl_e_languages(suite: &crate::suite::Suite) -> Vec<(&'static Spec, usize)> {
    MULTIPL_E
        .iter()
        .map(|spec| {
            let n = suite
                .questions
                .iter()
                .filter(|q| q.code_language() == spec.language)
                .count();
            (*spec, n)
        })
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// Each language's per-run state.
pub struct Languages {
    /// The shape of each Python entry-point question's text.
    pub shapes: Shapes,
    pub cpp: Cpp,
    pub multipl_e: MultiplE,
}

impl Languages {
    /// Language id -> its toolchain's version, or why it cannot run, for
    /// the languages of MultiPL-E's that `suite` uses (run_info.json).
    pub fn toolchains(
        &self,
        suite: &crate::suite::Suite,
    ) -> std::collections::BTreeMap<String, String> {
        multipl_e_languages(suite)
            .into_iter()
            .map(|(spec, _)| {
                let said = match self.multipl_e.toolchain(spec).as_ref() {
                    Ok(t) => t.version.clone(),
                    Err(why) => format!("missing: {why}"),
                };
                (spec.language.as_str().to_string(), said)
            })
            .collect()
    }

    /// The code of `reply` for `question`'s language.
    pub fn extract(&self, question: &Question, reply: &str) -> Extracted {
        extract::extract_for(reply, question.code_language())
    }

    /// Runs `code` for `question` and judges it; an error only when the
    /// harness (sandbox, compiler setup, a missing toolchain) failed, never
    /// the program.
    pub fn run(
        &self,
        question: &Question,
        code: &str,
        sandbox: &Sandbox,
    ) -> Result<Ran, SandboxError> {
        match side(question.code_language()) {
            Side::Python => {
                let runnable = program::runnable(question, code, &self.shapes);
                let execution = runnable.run(sandbox)?;
                let judgement = judge_question(&execution, question);
                Ok(Ran {
                    shown: runnable.shown,
                    execution,
                    judgement,
                    speed: None,
                })
            }
            Side::Cpp => self.cpp.run_noting_defects(question, code, sandbox),
            Side::MultiplE(spec) => self.multipl_e.run(spec, question, code, sandbox),
        }
    }
}

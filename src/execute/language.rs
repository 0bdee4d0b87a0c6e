//! The seam between languages: every question's program goes through
//! [`Languages`], which hands it to its language's side: extract the code
//! from the reply, build the program, run it in the sandbox and judge it.
//! Python (`program`) and C++ (`cpp`) have sides of their own; every
//! language of MultiPL-E's is a [`Spec`] in its own folder, run by
//! `multipl_e`. Nothing outside this module compares languages: what
//! differs between them is data (`suite::LanguageInfo`, [`Spec`]).

use crate::config::CppConfig;
use crate::sandbox::{Sandbox, SandboxError};
use crate::suite::{CodeLanguage, Question, Suite, SuiteError};

use super::cpp::Cpp;
use super::extract::{self, Extracted};
use super::multipl_e::{MultiplE, Spec};
use super::program::{self, Shapes};
pub use crate::judge::Ran;
use crate::judge::judge_question;

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

/// Why a run's languages could not be prepared.
#[derive(Debug)]
pub enum Unprepared {
    /// A Python question's tests do not compile.
    Suite(SuiteError),
    /// The C++ compiler cannot be used.
    Toolchain(SandboxError),
}

impl Languages {
    /// Each language's side, prepared for `suite` before any case, and said
    /// in the run's first lines: Python's prompt shapes (the interpreter
    /// compiles each entry-point question's text); C++'s toolchain when the
    /// suite has a C++ question (a missing compiler stops the run); each
    /// MultiPL-E language's toolchain (a missing one leaves its cases not
    /// evaluated, naming the package to install).
    pub fn prepare(
        cpp_config: &CppConfig,
        suite: &Suite,
        sandbox: &Sandbox,
    ) -> Result<Languages, Unprepared> {
        let shapes = Shapes::check(sandbox.python(), suite).map_err(Unprepared::Suite)?;
        let plain = shapes.plain_language(suite);
        if plain > 0 {
            tracing::info!(
                "{plain} entry-point question(s) of {} are written in plain language, not as a \
                 Python prompt: their replies run without the question text before them (a \
                 body under the `def` line the question shows)",
                suite.path.display()
            );
        }
        let cpp = Cpp::new(cpp_config.clone(), suite.threads.clone());
        let cpp_questions = suite
            .questions
            .iter()
            .filter(|q| matches!(side(q.code_language()), Side::Cpp))
            .count();
        if cpp_questions > 0 {
            let toolchain = cpp
                .toolchain()
                .map_err(|e| Unprepared::Toolchain(e.clone()))?;
            tracing::info!(
                "{cpp_questions} C++ question(s): compiled by {} in the sandbox",
                super::cpp::describe(toolchain)
            );
        }
        let multipl_e = MultiplE::new(cpp_config.clone());
        for (spec, count) in multipl_e_languages(suite) {
            match multipl_e.toolchain(spec).as_ref() {
                Ok(toolchain) => tracing::info!(
                    "{count} {} question(s): run by {} ({}) in the sandbox",
                    spec.language.name(),
                    toolchain.paths[0].display(),
                    toolchain.version
                ),
                Err(why) => tracing::warn!(
                    "{count} {} question(s) will not be evaluated: {why}",
                    spec.language.name()
                ),
            }
        }
        for q in &suite.questions {
            let pareval = q.pareval.as_ref().and_then(|c| c.defect.as_deref());
            let multipl_e = q.multipl_e.as_ref().and_then(|m| m.defect.as_deref());
            let (whose, defect) = match (pareval, multipl_e) {
                (Some(d), _) => ("ParEval", d),
                (None, Some(d)) => ("MultiPL-E", d),
                (None, None) => continue,
            };
            tracing::warn!(
                "question {} (`{}`) keeps a defect of {whose}'s own data, as {whose} has it: \
                 {defect}",
                q.index,
                q.id
            );
        }
        Ok(Languages {
            shapes,
            cpp,
            multipl_e,
        })
    }

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

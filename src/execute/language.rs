//! The seam between languages: every question's program goes through
//! [`Languages`], which hands it to its language's side: extract the code
//! from the reply, build the program, run it in the sandbox and judge it.
//! Python and C++ are its two cases; another language is one more arm
//! here and a module of its own beside `program` (Python) and `cpp`.

use crate::sandbox::{Sandbox, SandboxError};
use crate::suite::{CodeLanguage, Question};

use super::cpp::Cpp;
use super::extract::{self, Extracted};
pub use super::judge::Ran;
use super::judge::judge_question;
use super::program::{self, Shapes};

/// Each language's per-run state.
pub struct Languages {
    /// The shape of each Python entry-point question's text.
    pub shapes: Shapes,
    pub cpp: Cpp,
}

impl Languages {
    /// The code of `reply` for `question`'s language.
    pub fn extract(&self, question: &Question, reply: &str) -> Extracted {
        extract::extract_for(reply, question.code_language())
    }

    /// Runs `code` for `question` and judges it; an error only when the
    /// harness (sandbox, compiler setup) failed, never the program.
    pub fn run(
        &self,
        question: &Question,
        code: &str,
        sandbox: &Sandbox,
    ) -> Result<Ran, SandboxError> {
        match question.code_language() {
            CodeLanguage::Python => {
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
            CodeLanguage::Cpp => self.cpp.run_noting_defects(question, code, sandbox),
        }
    }
}

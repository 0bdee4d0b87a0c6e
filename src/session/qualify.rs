//! The qualification gate's model (`[variants.qualify]`, paper §3.2: the
//! authors kept a p_top only when Qwen2.5-Coder-14B reached pass@1 >= 0.8
//! on it): each p_top that passed the leak gate is asked `samples` times
//! with the suite's first prompt, as its p_top case will be asked, and
//! each reply is extracted, run in the sandbox and judged as a case is.
//! The calls go through the response cache; what they found is kept in
//! `variants.json` (`tries[].passed`, `samples`), so a qualified expansion
//! replays offline without asking again.
//!
//! A call that fails or a sandbox that cannot run is an error that stops
//! the run's start: a server's or the harness's failure is never the
//! p_top failing.

use std::sync::OnceLock;

use crate::ask::request;
use crate::backend::Backend;
use crate::case::{CaseId, Verdict};
use crate::config::Config;
use crate::execute::cpp::Cpp;
use crate::execute::language::Languages;
use crate::execute::program::Shapes;
use crate::sandbox::Sandbox;
use crate::suite::{Question, Suite};
use crate::variants::{Qualified, Qualify};

/// Opens the qualifying model's server on first use.
pub type Connect = Box<dyn Fn() -> Result<Box<dyn Backend>, String> + Send + Sync>;

pub struct ModelQualifier<'a> {
    /// The qualifying model's configuration: the model under test's (the
    /// first of a multi-model run), with `[variants.qualify]` over it.
    config: Config,
    /// The suite before expansion: its first prompt and system prompt.
    suite: &'a Suite,
    sandbox: &'a Sandbox,
    samples: u32,
    connect: Connect,
    backend: OnceLock<Result<Box<dyn Backend>, String>>,
}

impl<'a> ModelQualifier<'a> {
    pub fn new(
        config: Config,
        suite: &'a Suite,
        sandbox: &'a Sandbox,
        connect: Connect,
    ) -> ModelQualifier<'a> {
        ModelQualifier {
            samples: config.variants.qualify.samples.max(1),
            config,
            suite,
            sandbox,
            connect,
            backend: OnceLock::new(),
        }
    }

    /// What the run's first lines say of the gate.
    pub fn describe(&self) -> String {
        let q = &self.config.variants.qualify;
        format!(
            "qualification gate on: each p_top is asked {} time(s) of {} with prompt `{}` at temperature {} and needs pass@1 >= {}{}",
            self.samples,
            self.config.model,
            self.suite.prompts.first().map_or("", |p| p.name.as_str()),
            self.config.llm.temperature,
            q.min_pass,
            if self.config.llm.temperature == 0.0 && self.samples > 1 {
                " (at temperature 0 the samples are one greedy reply asked again: pass@1 is then 0 or 1; set [variants.qualify] temperature to sample)"
            } else {
                ""
            }
        )
    }

    fn backend(&self) -> Result<&dyn Backend, String> {
        self.backend
            .get_or_init(|| (self.connect)())
            .as_ref()
            .map(|b| &**b)
            .map_err(Clone::clone)
    }
}

impl Qualify for ModelQualifier<'_> {
    fn qualify(&self, p_top: &Question, attempt: u32) -> Result<Qualified, String> {
        let backend = self.backend()?;
        let prompt = self
            .suite
            .prompts
            .first()
            .ok_or("the suite has no prompt to ask p_top with")?;
        // The question alone, as the first of a suite, so its shape (for
        // Python) is checked as a case's is.
        let mut asked = p_top.clone();
        asked.index = 1;
        let alone = Suite {
            questions: vec![asked.clone()],
            ..self.suite.clone()
        };
        let languages = Languages {
            shapes: Shapes::check(self.sandbox.python(), &alone).map_err(|e| e.to_string())?,
            cpp: Cpp::new(self.config.cpp.clone(), self.suite.threads.clone()),
            multipl_e: crate::execute::multipl_e::MultiplE::new(self.config.cpp.clone()),
        };
        let system = self
            .suite
            .system_prompt_for(prompt, self.config.llm.system_prompt.as_deref());
        let template = prompt.template_for(&asked);
        let name = match attempt {
            1 => format!("{}.qualify", p_top.id),
            n => format!("{}.try{n}.qualify", p_top.id),
        };
        let mut passed = 0;
        let mut verdicts = Vec::new();
        for sample in 0..self.samples {
            let case = CaseId {
                model: None,
                prompt: prompt.name.as_str().into(),
                question: asked.index,
                question_id: name.as_str().into(),
                round: 1,
                sample: Some(sample + 1),
            };
            let built = request::build(
                &self.config,
                &self.config.model,
                system,
                &template,
                &asked.question,
                &[],
                sample,
            );
            let reply = backend.chat(&case, &built.request).map_err(|e| {
                format!(
                    "asking {} (sample {} of {}) failed: {}; the p_top is not judged on a failed call",
                    self.config.model,
                    sample + 1,
                    self.samples,
                    e.message
                )
            })?;
            let code = languages.extract(&asked, &reply.content).code;
            let ran = languages
                .run(&asked, &code, self.sandbox)
                .map_err(|e| format!("the sandbox could not run a reply: {e}"))?;
            let verdict = ran.judgement.verdict;
            if verdict == Verdict::NotEvaluated {
                return Err(format!(
                    "a reply could not be evaluated: {}",
                    ran.judgement.detail.unwrap_or_default()
                ));
            }
            passed += u32::from(verdict.passed());
            verdicts.push(verdict.to_string());
        }
        tracing::info!(
            "qualification of `{}` (p_top try {attempt}): {passed} of {} replies passed ({})",
            p_top.id,
            self.samples,
            verdicts.join(", ")
        );
        Ok(Qualified {
            passed,
            samples: self.samples,
        })
    }
}

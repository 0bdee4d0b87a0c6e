//! The context window, checked before the first case where it is known:
//! the `num_ctx` the harness sends to Ollama, or the window llama-server
//! reports at `/props`. A prompt the server cuts (Ollama) or refuses
//! (llama-server) is not evaluated; this says so before the run, with the
//! setting to change, instead of after hours of it.

use std::collections::HashSet;

use crate::ask::request::{self, estimate_messages, prompt_room};
use crate::backend::ServerWindow;
use crate::case::CaseId;
use crate::config::Config;
use crate::suite::Suite;

/// Warnings about the window for the cases about to run, one line each,
/// each naming the setting that fixes it.
pub fn warnings(
    config: &Config,
    suite: &Suite,
    cases: &[CaseId],
    backend: &str,
    server: &ServerWindow,
) -> Vec<String> {
    let mut out = Vec::new();
    let Some((window, raise)) = known_window(config, backend, server, &mut out) else {
        return out;
    };
    let reply = config.llm.num_predict.unwrap_or(0) as usize;
    let room = prompt_room(window as usize, config);
    let (over, largest) = prompts_over(config, suite, cases, room);
    if over > 0 {
        out.push(format!(
            "{over} prompt(s) are about {largest} tokens (estimated) before any history, more \
             than the {window}-token window leaves after {reply} for the reply \
             (llm.num_predict): the server will cut or refuse them and they will not be \
             evaluated; raise {raise} or lower llm.num_predict"
        ));
    }
    out
}

/// The window a request gets, and the setting that raises it; `None` when
/// it cannot be known (said in `out` where that hides cut prompts).
fn known_window(
    config: &Config,
    backend: &str,
    server: &ServerWindow,
    out: &mut Vec<String>,
) -> Option<(u32, &'static str)> {
    match backend {
        "ollama" => match config.llm.num_ctx {
            Some(n) => Some((n, "llm.num_ctx")),
            None => {
                out.push(
                    "llm.num_ctx is not set: Ollama uses its own default window and cuts longer \
                     prompts without a word, so cut prompts cannot be detected; set llm.num_ctx"
                        .into(),
                );
                None
            }
        },
        "openai" => {
            if server.ollama_behind_openai {
                out.push(
                    "this OpenAI endpoint is an Ollama's: it does not apply llm.num_ctx and cuts \
                     prompts beyond the model's default window without a word, so their \
                     verdicts would be about prompts nobody wrote; use backend = \"ollama\" \
                     (OLLAMA_HOST) so the window is set and cut prompts are detected"
                        .into(),
                );
            }
            let tokens = server.tokens?;
            if config.history.fit_window
                && let Some(fitted) = config.llm.num_ctx
                && fitted > tokens
            {
                out.push(format!(
                    "the server's window is {tokens} tokens per request (llama-server: -c divided \
                     by -np) but the history is fitted to llm.num_ctx = {fitted}: set \
                     llm.num_ctx = {tokens} so chain prompts stay inside the window"
                ));
            }
            Some((tokens, "the server's window (llama-server -c, per slot)"))
        }
        _ => None,
    }
}

/// How many distinct prompts (template x question) are larger than `room`
/// tokens before any history, and the largest of them.
fn prompts_over(config: &Config, suite: &Suite, cases: &[CaseId], room: usize) -> (usize, usize) {
    let mut seen = HashSet::new();
    let (mut over, mut largest) = (0usize, 0usize);
    for case in cases {
        if !seen.insert((&*case.prompt, case.question)) {
            continue;
        }
        let (Some(prompt), Some(question)) = (
            suite.prompt(&case.prompt),
            suite.questions.get(case.question - 1),
        ) else {
            continue;
        };
        // The case's request as it will be sent, before any history.
        let first = request::build(
            config,
            &config.model,
            suite.system_prompt_for(prompt, config.llm.system_prompt.as_deref()),
            &prompt.template_for(question),
            &question.question,
            &[],
            case.sample_index(),
        );
        let tokens = estimate_messages(&first.request.messages);
        if tokens > room {
            over += 1;
            largest = largest.max(tokens);
        }
    }
    (over, largest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::{Prompt, Question};

    fn suite(question: &str) -> Suite {
        Suite {
            path: "s.json".into(),
            prompts: vec![Prompt {
                name: "p".into(),
                template: "Solve: {question}".into(),
                system_prompt: None,
            }],
            questions: vec![Question {
                index: 1,
                id: "q1".into(),
                kind: None,
                question: question.into(),
                answer: "1".into(),
                matcher: crate::suite::Match::Exact,
                tests: None,
                entry_point: None,
                reference: None,
                p_top: None,
                variant: None,
                language: None,
                pareval: None,
                multipl_e: None,
            }],
            system_prompt: None,
            name: None,
            settings: Default::default(),
            threads: None,
        }
    }

    fn case() -> CaseId {
        CaseId::example(1)
    }

    fn config(num_ctx: Option<u32>, num_predict: u32) -> Config {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Config::load(&[("X", "")], dir.path()).unwrap();
        c.llm.num_ctx = num_ctx;
        c.llm.num_predict = Some(num_predict);
        c
    }

    #[test]
    fn a_question_beyond_the_window_is_named_with_the_setting_to_raise() {
        let long = "word ".repeat(2000);
        let w = warnings(
            &config(Some(1024), 256),
            &suite(&long),
            &[case(), case()],
            "ollama",
            &ServerWindow::default(),
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("1 prompt(s)"), "{w:?}");
        assert!(w[0].contains("raise llm.num_ctx"), "{w:?}");
        let short = warnings(
            &config(Some(1024), 256),
            &suite("print 1"),
            &[case()],
            "ollama",
            &ServerWindow::default(),
        );
        assert!(short.is_empty(), "{short:?}");
    }

    #[test]
    fn llama_servers_window_is_checked_and_ollamas_openai_endpoint_named() {
        let server = ServerWindow {
            tokens: Some(512),
            ollama_behind_openai: false,
            slots: Some(1),
        };
        let w = warnings(
            &config(Some(4096), 128),
            &suite(&"x ".repeat(1000)),
            &[case()],
            "openai",
            &server,
        );
        assert!(w[0].contains("set llm.num_ctx = 512"), "{w:?}");
        assert!(w[1].contains("512-token window"), "{w:?}");
        let ollama = ServerWindow {
            tokens: None,
            ollama_behind_openai: true,
            slots: None,
        };
        let w = warnings(
            &config(Some(4096), 128),
            &suite("print 1"),
            &[case()],
            "openai",
            &ollama,
        );
        assert!(w[0].contains("use backend = \"ollama\""), "{w:?}");
        assert!(
            warnings(
                &config(None, 128),
                &suite("x"),
                &[case()],
                "replay",
                &ServerWindow::default()
            )
            .is_empty()
        );
    }
}

//! Several servers of the same model as one backend (`[[endpoints]]`):
//! each call goes to the live endpoint with the most free slots (its
//! `slots`: OLLAMA_NUM_PARALLEL, llama-server's -np, vLLM's batch), and
//! waits while every slot is busy. An endpoint whose connection fails
//! (after the usual retries) is taken out of the pool, said once, and the
//! call goes to another; only when none is left does a call fail.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

use super::{Backend, BackendError, ChatRequest, ConnectError, Reply, ServerWindow};
use crate::case::{ApiFailure, CaseId};

pub struct Member {
    pub backend: Box<dyn Backend>,
    pub slots: usize,
    dead: AtomicBool,
}

impl Member {
    pub fn new(backend: Box<dyn Backend>, slots: usize) -> Member {
        Member {
            backend,
            slots: slots.max(1),
            dead: AtomicBool::new(false),
        }
    }
}

pub struct Pool {
    members: Vec<Member>,
    /// Calls in flight per member.
    busy: Mutex<Vec<usize>>,
    freed: Condvar,
}

impl Pool {
    pub fn new(members: Vec<Member>) -> Pool {
        let n = members.len();
        Pool {
            members,
            busy: Mutex::new(vec![0; n]),
            freed: Condvar::new(),
        }
    }

    /// Every slot of every endpoint: the run's model concurrency.
    pub fn slots(&self) -> usize {
        self.members.iter().map(|m| m.slots).sum()
    }

    fn alive(&self) -> impl Iterator<Item = (usize, &Member)> {
        self.members
            .iter()
            .enumerate()
            .filter(|(_, m)| !m.dead.load(Ordering::SeqCst))
    }

    /// A free slot on the least loaded live member; `None` when none is alive.
    fn acquire(&self) -> Option<usize> {
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let mut alive = false;
            let mut best: Option<(usize, f64)> = None;
            for (i, m) in self.alive() {
                alive = true;
                if busy[i] < m.slots {
                    let load = busy[i] as f64 / m.slots as f64;
                    if best.is_none_or(|(_, l)| load < l) {
                        best = Some((i, load));
                    }
                }
            }
            if !alive {
                return None;
            }
            if let Some((i, _)) = best {
                busy[i] += 1;
                return Some(i);
            }
            busy = self.freed.wait(busy).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn release(&self, i: usize) {
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        busy[i] -= 1;
        self.freed.notify_all();
    }
}

impl Backend for Pool {
    fn kind(&self) -> &'static str {
        self.members[0].backend.kind()
    }

    fn endpoint(&self) -> String {
        self.members
            .iter()
            .map(|m| format!("{} ({} slots)", m.backend.endpoint(), m.slots))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Every endpoint is tested; those that fail are left out (said), and
    /// the run starts when at least one serves the model.
    fn check(&self, model: &str) -> Result<(), ConnectError> {
        let mut failures = Vec::new();
        for m in &self.members {
            if let Err(e) = m.backend.check(model) {
                m.dead.store(true, Ordering::SeqCst);
                failures.push(format!("{}: {}", m.backend.endpoint(), e.message));
            }
        }
        if failures.len() == self.members.len() {
            return Err(ConnectError {
                message: format!("no endpoint serves {model}:\n{}", failures.join("\n")),
                server_answered: false,
            });
        }
        for f in &failures {
            tracing::warn!("endpoint left out of the run: {f}");
        }
        Ok(())
    }

    fn model_identity(&self) -> Option<String> {
        self.alive().find_map(|(_, m)| m.backend.model_identity())
    }

    fn thinking(&self, model: &str) -> Option<super::Thinking> {
        self.alive().find_map(|(_, m)| m.backend.thinking(model))
    }

    fn release(&self, model: &str) {
        for (_, m) in self.alive() {
            m.backend.release(model);
        }
    }

    fn count_prompt_tokens(&self, request: &super::ChatRequest) -> Option<u64> {
        self.alive()
            .find_map(|(_, m)| m.backend.count_prompt_tokens(request))
    }

    /// The smallest window any live endpoint reports.
    fn window(&self) -> ServerWindow {
        let windows: Vec<ServerWindow> = self.alive().map(|(_, m)| m.backend.window()).collect();
        ServerWindow {
            tokens: windows.iter().filter_map(|w| w.tokens).min(),
            ollama_behind_openai: windows.iter().any(|w| w.ollama_behind_openai),
            // A pool's slots are spread over its servers: none is named.
            slots: None,
        }
    }

    fn chat(&self, case: &CaseId, request: &ChatRequest) -> Result<Reply, BackendError> {
        let mut last_error = None;
        while let Some(i) = self.acquire() {
            let member = &self.members[i];
            let result = member.backend.chat(case, request);
            self.release(i);
            match result {
                Err(e) if e.failure == ApiFailure::ConnectionFailed => {
                    if !member.dead.swap(true, Ordering::SeqCst) {
                        tracing::warn!(
                            endpoint = %member.backend.endpoint(),
                            "endpoint taken out of the run after its connection failed ({}); its cases go to the other endpoints",
                            e.message
                        );
                        self.freed.notify_all();
                    }
                    last_error = Some(e);
                }
                other => return other,
            }
        }
        Err(last_error.unwrap_or_else(|| BackendError {
            failure: ApiFailure::ConnectionFailed,
            message: "every endpoint of the run has failed".into(),
            usage: None,
        }))
    }
}

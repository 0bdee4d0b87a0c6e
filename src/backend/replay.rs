//! Answers every case from the recorded snapshots, with no network: the
//! whole pipeline and its reports reproduce a recorded run offline.

use std::time::Instant;

use super::{Backend, BackendError, ChatRequest, ConnectError, Reply};
use crate::case::{ApiFailure, CaseId};
use crate::snapshot::SnapshotStore;

pub struct Replay {
    store: SnapshotStore,
}

impl Replay {
    pub fn new(store: SnapshotStore) -> Replay {
        Replay { store }
    }

    pub fn store(&self) -> &SnapshotStore {
        &self.store
    }
}

impl Backend for Replay {
    fn kind(&self) -> &'static str {
        "replay"
    }

    fn endpoint(&self) -> String {
        self.store.dir().display().to_string()
    }

    fn check(&self, model: &str) -> Result<(), ConnectError> {
        if self.store.count() == 0 {
            return Err(ConnectError {
                server_answered: false,
                message: format!(
                    "no recorded replies for model {model} in {}: record them once with a live backend (PROMPTEVAL_BACKEND=ollama or openai, INSTA_UPDATE=always), or pick a recorded model with PROMPTEVAL_MODEL",
                    self.store.dir().display()
                ),
            });
        }
        Ok(())
    }

    fn chat(&self, case: &CaseId, request: &ChatRequest) -> Result<Reply, BackendError> {
        let start = Instant::now();
        match self.store.read(case) {
            Some(recorded) => Ok(Reply {
                content: recorded.reply,
                model: request.model.clone(),
                elapsed: start.elapsed(),
            }),
            None => Err(BackendError {
                failure: ApiFailure::ApiError,
                message: format!(
                    "no recorded reply for {} at {}: record it with a live backend",
                    case.test_name(),
                    self.store.path(case).display()
                ),
            }),
        }
    }
}

//! What a scripted server saw of the load: requests in flight now and at
//! the peak, and the model each chat request named, in arrival order (an
//! Ollama server loads the model a request names: a change in this log is
//! a model switch). Meters can be shared: one per server plus one over all
//! of them gives the total in flight.

#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::stub_server::{Behaviour, Request};

#[derive(Default)]
pub struct Meter {
    now: AtomicUsize,
    peak: AtomicUsize,
    models: Mutex<Vec<String>>,
}

impl Meter {
    pub fn new() -> Arc<Meter> {
        Arc::new(Meter::default())
    }

    /// The most chat requests that were in flight at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
    }

    /// The model of each chat request, in arrival order.
    pub fn models(&self) -> Vec<String> {
        self.models.lock().unwrap().clone()
    }

    /// How many times the model changed from one request to the next.
    pub fn switches(&self) -> usize {
        self.models().windows(2).filter(|w| w[0] != w[1]).count()
    }

    fn enter(&self, model: &str) {
        self.models.lock().unwrap().push(model.to_string());
        let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(n, Ordering::SeqCst);
    }

    fn leave(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `script` behind meters: each chat request is counted in flight on every
/// meter of `meters` for `delay` (the time the model takes to answer),
/// then answered as `script` says.
pub fn metered(
    meters: Vec<Arc<Meter>>,
    delay: Duration,
    script: impl Fn(&Request) -> Behaviour + Send + Sync + 'static,
) -> impl Fn(&Request) -> Behaviour + Send + Sync + 'static {
    move |req: &Request| {
        if !matches!(req.path.as_str(), "/api/chat" | "/v1/chat/completions") {
            return script(req);
        }
        let model = req.json["model"].as_str().unwrap_or_default();
        for m in &meters {
            m.enter(model);
        }
        std::thread::sleep(delay);
        let behaviour = script(req);
        for m in &meters {
            m.leave();
        }
        behaviour
    }
}

//! Response cache: a request identical to one already answered is answered
//! from disk without calling the model, so a rerun of an unchanged suite
//! makes no model call and reproduces the same verdicts.
//!
//! The key is everything that decides the reply, and the case's position
//! in the experiment: backend, model and the model's identity (Ollama's
//! digest from `/api/tags`; for OpenAI-compatible servers, which report
//! none, the base URL and `model_info`), sampling options, every message
//! (system prompt and history included), round and sample index. Rounds and
//! samples are repetitions, so they are never served from each other. A
//! failed call is never cached.
//!
//! One file per entry, `<dir>/<2 hex>/<blake3>.json`, written to a temp
//! file and renamed into place: concurrent runs sharing the folder see
//! either nothing or a whole entry. An entry stores its key and is used
//! only when the stored key equals the request's, so a damaged or foreign
//! file is a miss, never a wrong answer.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::backend::{Backend, BackendError, ChatRequest, ConnectError, Reply, RequestKey};
use crate::case::CaseId;

/// Bumped when the key or entry layout changes: old entries then miss.
const FORMAT: u32 = 1;

/// What an entry answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheKey {
    pub format: u32,
    pub backend: String,
    pub model: String,
    /// What the model name alone does not pin down (digest, server, file).
    pub identity: String,
    pub request: RequestKey,
    pub round: u32,
    pub sample: u32,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    key: CacheKey,
    content: String,
    /// The model name the server reported.
    model: String,
    /// The server's figures for the answer: a cached case carries the
    /// tokens and finish reason of the call that produced it.
    #[serde(default)]
    usage: crate::backend::Usage,
    /// The reasoning that came with the answer (reasoning models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reasoning: Option<String>,
}

/// Hits, misses and where the cache is, for summary.json and the terminal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheStats {
    pub dir: PathBuf,
    pub hits: usize,
    pub misses: usize,
}

pub struct ResponseCache {
    dir: PathBuf,
    hits: AtomicUsize,
    misses: AtomicUsize,
}

impl ResponseCache {
    /// `$XDG_CACHE_HOME/prompteval`, else `~/.cache/prompteval`.
    pub fn default_dir(xdg_cache_home: Option<&str>, home: Option<&str>) -> Option<PathBuf> {
        match (xdg_cache_home.filter(|d| !d.is_empty()), home) {
            (Some(xdg), _) => Some(Path::new(xdg).join("prompteval")),
            (None, Some(home)) if !home.is_empty() => {
                Some(Path::new(home).join(".cache").join("prompteval"))
            }
            _ => None,
        }
    }

    pub fn open(dir: &Path) -> std::io::Result<ResponseCache> {
        std::fs::create_dir_all(dir)?;
        Ok(ResponseCache {
            dir: dir.to_path_buf(),
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            dir: self.dir.clone(),
            hits: self.hits.load(Ordering::SeqCst),
            misses: self.misses.load(Ordering::SeqCst),
        }
    }

    fn path(&self, key: &CacheKey) -> PathBuf {
        let bytes = serde_json::to_vec(key).expect("a cache key serialises");
        let hash = blake3::hash(&bytes).to_hex();
        self.dir
            .join(&hash.as_str()[..2])
            .join(format!("{}.json", hash.as_str()))
    }

    /// The entry of `key`, if the cache holds it whole.
    fn peek(&self, key: &CacheKey) -> Option<Entry> {
        std::fs::read(self.path(key))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Entry>(&bytes).ok())
            .filter(|entry| entry.key == *key)
    }

    fn get(&self, key: &CacheKey) -> Option<Entry> {
        let found = self.peek(key);
        match &found {
            Some(_) => self.hits.fetch_add(1, Ordering::SeqCst),
            None => self.misses.fetch_add(1, Ordering::SeqCst),
        };
        found
    }

    fn put(&self, entry: &Entry) {
        let path = self.path(&entry.key);
        let stored = (|| -> std::io::Result<()> {
            let parent = path.parent().expect("entries live in a subfolder");
            std::fs::create_dir_all(parent)?;
            let mut tmp = tempfile::NamedTempFile::new_in(parent)?;
            serde_json::to_writer(&mut tmp, entry)?;
            tmp.persist(&path).map_err(|e| e.error)?;
            Ok(())
        })();
        if let Err(e) = stored {
            tracing::warn!(cache = %self.dir.display(), "could not store a reply in the cache: {e}; the run goes on without it (PROMPTEVAL_CACHE=off turns the cache off)");
        }
    }

    /// Removes every entry; returns how many files went.
    pub fn clear(dir: &Path) -> std::io::Result<usize> {
        if !dir.exists() {
            return Ok(0);
        }
        let mut removed = 0;
        for shard in std::fs::read_dir(dir)? {
            let shard = shard?.path();
            if shard.is_dir() {
                removed += std::fs::read_dir(&shard)?.count();
                std::fs::remove_dir_all(&shard)?;
            }
        }
        Ok(removed)
    }
}

/// A live backend behind the cache.
pub struct CachedBackend {
    inner: Box<dyn Backend>,
    cache: std::sync::Arc<ResponseCache>,
    model: String,
    identity: String,
}

impl CachedBackend {
    /// `identity` is what, beyond the model name, pins the model down.
    pub fn new(
        inner: Box<dyn Backend>,
        cache: std::sync::Arc<ResponseCache>,
        model: &str,
        identity: String,
    ) -> CachedBackend {
        CachedBackend {
            inner,
            cache,
            model: model.to_string(),
            identity,
        }
    }

    fn key(&self, case: &CaseId, request: &ChatRequest) -> CacheKey {
        CacheKey {
            format: FORMAT,
            backend: self.inner.kind().to_string(),
            model: self.model.clone(),
            identity: self.identity.clone(),
            request: request.key(),
            round: case.round,
            // 0 for a run without samples: its entries serve sample 1.
            sample: case.sample_index(),
        }
    }
}

impl Backend for CachedBackend {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    fn endpoint(&self) -> String {
        self.inner.endpoint()
    }

    fn check(&self, model: &str) -> Result<(), ConnectError> {
        self.inner.check(model)
    }

    fn model_identity(&self) -> Option<String> {
        self.inner.model_identity()
    }

    fn window(&self) -> crate::backend::ServerWindow {
        self.inner.window()
    }

    fn thinking(&self, model: &str) -> Option<crate::backend::Thinking> {
        self.inner.thinking(model)
    }

    fn release(&self, model: &str) {
        self.inner.release(model)
    }

    fn answered_without_a_call(
        &self,
        case: &CaseId,
        request: &ChatRequest,
    ) -> Option<crate::backend::Usage> {
        // A look, not a use: the hits and misses count the run's asking.
        self.cache
            .peek(&self.key(case, request))
            .map(|entry| entry.usage)
    }

    fn count_prompt_tokens(&self, request: &ChatRequest) -> Option<u64> {
        self.inner.count_prompt_tokens(request)
    }

    fn probe(&self, case: &CaseId, request: &ChatRequest) -> Result<Reply, BackendError> {
        self.inner.chat(case, request)
    }

    fn chat(&self, case: &CaseId, request: &ChatRequest) -> Result<Reply, BackendError> {
        let started = Instant::now();
        let key = self.key(case, request);
        if let Some(entry) = self.cache.get(&key) {
            tracing::debug!(
                case = %case.test_name(),
                "answered from the cache: this exact request (model, options, round and sample) was answered before; PROMPTEVAL_CACHE=off asks the model again"
            );
            return Ok(Reply {
                content: entry.content,
                reasoning: entry.reasoning,
                model: entry.model,
                elapsed: started.elapsed(),
                cached: true,
                usage: entry.usage,
            });
        }
        tracing::debug!(case = %case.test_name(), "not in the cache: asking the model");
        let reply = self.inner.chat(case, request)?;
        self.cache.put(&Entry {
            key,
            content: reply.content.clone(),
            model: reply.model.clone(),
            usage: reply.usage.clone(),
            reasoning: reply.reasoning.clone(),
        });
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    use super::*;
    use crate::backend::Message;
    use crate::case::ApiFailure;
    use crate::config::LlmConfig;

    /// Answers with its call count; fails when the message says "fail".
    struct Counting(AtomicUsize);

    impl Backend for Counting {
        fn kind(&self) -> &'static str {
            "ollama"
        }
        fn endpoint(&self) -> String {
            "http://x".into()
        }
        fn check(&self, _: &str) -> Result<(), ConnectError> {
            Ok(())
        }
        fn chat(&self, _: &CaseId, request: &ChatRequest) -> Result<Reply, BackendError> {
            let n = self.0.fetch_add(1, Ordering::SeqCst) + 1;
            if request.messages[0].content.contains("fail") {
                return Err(BackendError {
                    failure: ApiFailure::ApiError,
                    message: "HTTP 500".into(),
                    usage: None,
                });
            }
            Ok(Reply {
                content: format!("reply {n}"),
                reasoning: None,
                model: request.model.clone(),
                elapsed: Duration::ZERO,
                cached: false,
                usage: crate::backend::Usage::default(),
            })
        }
    }

    /// A cached backend of model `m` (`identity`) whose replies count up
    /// from `start`.
    fn counting(cache: &Arc<ResponseCache>, start: usize, identity: String) -> CachedBackend {
        CachedBackend::new(
            Box::new(Counting(AtomicUsize::new(start))),
            cache.clone(),
            "m",
            identity,
        )
    }

    fn case(round: u32) -> CaseId {
        CaseId::example(round)
    }

    fn request(text: &str, temperature: f64) -> ChatRequest {
        ChatRequest {
            model: "m".into(),
            messages: vec![Message::user(text)],
            options: LlmConfig {
                temperature,
                ..LlmConfig::default()
            },
            slot: None,
        }
    }

    #[test]
    fn identical_requests_are_answered_once_and_repetitions_never_share() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Arc::new(ResponseCache::open(dir.path()).unwrap());
        let backend = counting(&cache, 0, "sha256:abc".into());
        let ask = |round, text: &str, t| backend.chat(&case(round), &request(text, t)).unwrap();
        let first = ask(1, "hi", 0.0);
        assert!(!first.cached);
        let again = ask(1, "hi", 0.0);
        assert!(again.cached);
        assert_eq!(again.content, first.content);
        // Another round, message or option is another request.
        assert_eq!(ask(2, "hi", 0.0).content, "reply 2");
        assert_eq!(ask(1, "hi!", 0.0).content, "reply 3");
        assert_eq!(ask(1, "hi", 0.5).content, "reply 4");
        assert_eq!(cache.stats().hits, 1);
        assert_eq!(cache.stats().misses, 4);

        // Another model identity (a re-pulled tag) misses too.
        let other = counting(&cache, 10, "sha256:def".into());
        assert_eq!(
            other.chat(&case(1), &request("hi", 0.0)).unwrap().content,
            "reply 11"
        );
    }

    #[test]
    fn failures_are_not_cached_and_damaged_entries_are_misses() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Arc::new(ResponseCache::open(dir.path()).unwrap());
        let backend = counting(&cache, 0, String::new());
        assert!(backend.chat(&case(1), &request("fail", 0.0)).is_err());
        assert!(backend.chat(&case(1), &request("fail", 0.0)).is_err());
        assert_eq!(cache.stats().hits, 0);

        backend.chat(&case(1), &request("ok", 0.0)).unwrap();
        let key = backend.key(&case(1), &request("ok", 0.0));
        std::fs::write(cache.path(&key), b"{\"key\": trunc").unwrap();
        let reply = backend.chat(&case(1), &request("ok", 0.0)).unwrap();
        assert!(!reply.cached, "a damaged entry is asked again");
        assert_eq!(ResponseCache::clear(dir.path()).unwrap(), 1);
        assert!(
            backend
                .chat(&case(1), &request("ok", 0.0))
                .is_ok_and(|r| !r.cached)
        );
    }

    #[test]
    fn the_folder_follows_xdg_then_home() {
        assert_eq!(
            ResponseCache::default_dir(Some("/x"), Some("/home/u")),
            Some(PathBuf::from("/x/prompteval"))
        );
        assert_eq!(
            ResponseCache::default_dir(None, Some("/home/u")),
            Some(PathBuf::from("/home/u/.cache/prompteval"))
        );
        assert_eq!(ResponseCache::default_dir(Some(""), None), None);
    }
}

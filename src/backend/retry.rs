//! When to try a model call again, and how long to wait first.
//!
//! Only failures that a second attempt can cure are retried: no connection,
//! a dropped connection, HTTP 5xx and 429. A chat that timed out in the
//! server's queue or while generating is not: a retry would only add load. Any other 4xx means the
//! request itself is wrong (unknown model, bad option) and will fail again.
//!
//! Waits grow exponentially from `backoff_ms` with "full jitter" (a uniform
//! draw between zero and the cap) so that parallel test threads hitting the
//! same restarted server do not retry in lock-step.

use std::sync::Arc;
use std::time::Duration;

use crate::config::LlmConfig;

/// No single wait is longer than this, however many retries are configured.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How the retry loop waits; tests inject one that records instead of sleeping.
pub type Sleep = Arc<dyn Fn(Duration) + Send + Sync>;

/// The real wait.
pub fn thread_sleep() -> Sleep {
    Arc::new(std::thread::sleep)
}

/// What went wrong in one attempt, as far as retrying is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// No connection could be made (refused, DNS, unreachable).
    ConnectFailed,
    /// The connection closed before a complete answer.
    Dropped,
    /// No connection or complete answer within the time allowed (the
    /// connection test's single limit).
    TimedOut,
    /// The server did not start answering within `llm.queue_timeout_secs`.
    Queued,
    /// The answer started but did not finish within `llm.timeout_secs`.
    Generating,
    /// The server refused the prompt as longer than its context window.
    PromptTooLong,
    /// The server answered with this HTTP status.
    Status(u16),
    /// The server answered, but the body was not what the protocol promises.
    BadBody,
}

impl Outcome {
    /// Whether another attempt may succeed.
    pub fn is_retryable(self) -> bool {
        match self {
            Outcome::ConnectFailed | Outcome::Dropped | Outcome::TimedOut => true,
            // Sending it again would queue it again, or make the server
            // redo the work it was doing: more load, not an answer.
            Outcome::Queued | Outcome::Generating => false,
            Outcome::PromptTooLong => false,
            Outcome::Status(code) => code == 429 || (500..=599).contains(&code),
            Outcome::BadBody => false,
        }
    }
}

/// Implemented by attempt errors so the loop can decide and log.
pub trait Attempted {
    fn outcome(&self) -> Outcome;
    /// One phrase for the log line, e.g. "HTTP 503 (model is loading)".
    fn summary(&self) -> String;
    /// What the user can do when retries keep failing.
    fn advice(&self) -> String;
}

/// Retries after the first attempt, exponential backoff with full jitter.
#[derive(Clone)]
pub struct RetryPolicy {
    pub retries: u32,
    pub backoff: Duration,
    sleep: Sleep,
}

impl std::fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RetryPolicy")
            .field("retries", &self.retries)
            .field("backoff", &self.backoff)
            .finish_non_exhaustive()
    }
}

impl RetryPolicy {
    pub fn new(retries: u32, backoff: Duration) -> Self {
        Self {
            retries,
            backoff,
            sleep: thread_sleep(),
        }
    }

    /// The policy of `llm.retries` and `llm.backoff_ms`.
    pub fn from_config(options: &LlmConfig) -> Self {
        Self::new(options.retries, Duration::from_millis(options.backoff_ms))
    }

    /// Replaces the real sleep (for tests).
    pub fn with_sleep(mut self, sleep: Sleep) -> Self {
        self.sleep = sleep;
        self
    }

    /// The longest wait before retry number `retry` (1-based):
    /// `backoff * 2^(retry-1)`, capped at [`MAX_BACKOFF`].
    pub fn max_delay(&self, retry: u32) -> Duration {
        let factor = 1u32
            .checked_shl(retry.saturating_sub(1))
            .unwrap_or(u32::MAX);
        self.backoff
            .checked_mul(factor)
            .unwrap_or(MAX_BACKOFF)
            .min(MAX_BACKOFF)
    }

    /// A uniformly drawn wait in `0..=max_delay(retry)`.
    pub fn delay(&self, retry: u32, rng: &mut fastrand::Rng) -> Duration {
        let cap = self.max_delay(retry).as_millis() as u64;
        Duration::from_millis(rng.u64(0..=cap))
    }

    /// Runs `attempt` (given its 1-based number) until it succeeds, fails
    /// for good, or the retries are used up. Returns the last error and how
    /// many attempts were made. `target` names where the call went (for the
    /// log line).
    pub fn run<T, E: Attempted>(
        &self,
        target: &str,
        mut attempt: impl FnMut(u32) -> Result<T, E>,
    ) -> Result<T, (E, u32)> {
        let total = self.retries.saturating_add(1);
        let mut rng = fastrand::Rng::new();
        let mut n = 1;
        loop {
            match attempt(n) {
                Ok(value) => return Ok(value),
                Err(e) if n < total && e.outcome().is_retryable() => {
                    let wait = self.delay(n, &mut rng);
                    tracing::warn!(
                        "{target}: {} (attempt {n} of {total}); retrying in {} ms; if this persists, {}",
                        e.summary(),
                        wait.as_millis(),
                        e.advice(),
                    );
                    (self.sleep)(wait);
                    n += 1;
                }
                Err(e) => return Err((e, n)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[derive(Debug)]
    struct Fail(Outcome);

    impl Attempted for Fail {
        fn outcome(&self) -> Outcome {
            self.0
        }
        fn summary(&self) -> String {
            format!("{:?}", self.0)
        }
        fn advice(&self) -> String {
            "check the stub".into()
        }
    }

    fn recording(retries: u32, backoff_ms: u64) -> (RetryPolicy, Arc<Mutex<Vec<Duration>>>) {
        let waits = Arc::new(Mutex::new(Vec::new()));
        let sink = waits.clone();
        let policy = RetryPolicy::new(retries, Duration::from_millis(backoff_ms))
            .with_sleep(Arc::new(move |d| sink.lock().unwrap().push(d)));
        (policy, waits)
    }

    /// Runs a policy against failures that never stop and reports the attempts.
    fn attempts_until_given_up(outcome: Outcome) -> u32 {
        let (policy, _) = recording(3, 10);
        let (_, n) = policy
            .run::<(), _>("http://stub", |_| Err(Fail(outcome)))
            .unwrap_err();
        n
    }

    #[test]
    fn transient_failures_are_retried_until_the_retries_run_out() {
        for outcome in [
            Outcome::ConnectFailed,
            Outcome::Dropped,
            Outcome::TimedOut,
            Outcome::Status(500),
            Outcome::Status(503),
            Outcome::Status(429),
        ] {
            assert_eq!(attempts_until_given_up(outcome), 4, "{outcome:?}");
        }
    }

    #[test]
    fn request_errors_and_bad_bodies_are_not_retried() {
        for outcome in [
            Outcome::Status(400),
            Outcome::Status(401),
            Outcome::Status(404),
            Outcome::Status(422),
            Outcome::BadBody,
        ] {
            assert_eq!(attempts_until_given_up(outcome), 1, "{outcome:?}");
        }
    }

    #[test]
    fn success_after_a_burst_stops_retrying_and_waits_only_between_attempts() {
        let (policy, waits) = recording(5, 100);
        let result = policy.run("http://stub", |n| {
            if n < 3 {
                Err(Fail(Outcome::Status(503)))
            } else {
                Ok(n)
            }
        });
        assert_eq!(result.unwrap(), 3);
        let waits = waits.lock().unwrap();
        assert_eq!(waits.len(), 2);
        assert!(waits[0] <= Duration::from_millis(100), "{waits:?}");
        assert!(waits[1] <= Duration::from_millis(200), "{waits:?}");
    }

    #[test]
    fn zero_retries_means_one_attempt_and_no_wait() {
        let (policy, waits) = recording(0, 100);
        let (_, n) = policy
            .run::<(), _>("http://stub", |_| Err(Fail(Outcome::ConnectFailed)))
            .unwrap_err();
        assert_eq!(n, 1);
        assert!(waits.lock().unwrap().is_empty());
    }

    #[test]
    fn backoff_cap_doubles_and_is_bounded() {
        let policy = RetryPolicy::new(3, Duration::from_millis(250));
        assert_eq!(policy.max_delay(1), Duration::from_millis(250));
        assert_eq!(policy.max_delay(2), Duration::from_millis(500));
        assert_eq!(policy.max_delay(3), Duration::from_millis(1000));
        assert_eq!(policy.max_delay(40), MAX_BACKOFF);
        assert_eq!(policy.max_delay(u32::MAX), MAX_BACKOFF);
    }

    #[test]
    fn jittered_delays_stay_within_the_cap_and_spread_over_it() {
        let policy = RetryPolicy::new(3, Duration::from_millis(400));
        let mut rng = fastrand::Rng::with_seed(7);
        let draws: Vec<Duration> = (0..500).map(|_| policy.delay(2, &mut rng)).collect();
        let cap = Duration::from_millis(800);
        assert!(draws.iter().all(|d| *d <= cap));
        // Full jitter: both the low and the high end of the range occur.
        assert!(draws.iter().any(|d| *d < cap / 4));
        assert!(draws.iter().any(|d| *d > cap * 3 / 4));
    }

    #[test]
    fn zero_backoff_never_waits() {
        let policy = RetryPolicy::new(3, Duration::ZERO);
        let mut rng = fastrand::Rng::with_seed(1);
        assert_eq!(policy.delay(3, &mut rng), Duration::ZERO);
    }
}

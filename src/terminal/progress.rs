//! Progress of a long run on stderr: cases done of total, accuracy so far
//! per prompt, model calls in flight, replies from the cache, and the time
//! left at the pace so far. On a terminal, a live line kept below libtest's
//! output (status_line.rs); otherwise (CI logs) whole lines every 30 s, so
//! libtest's per-case lines are never cut. `PROMPTEVAL_PROGRESS=<seconds>`
//! asks for whole lines at that interval, `off` for none.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::case::CaseRecord;
use crate::language::numbers::clock;
use crate::terminal::output::{Event, Output};

/// PROMPTEVAL_PROGRESS's value (trimmed) is neither seconds nor `off`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("PROMPTEVAL_PROGRESS={value:?}: expected seconds between progress lines (e.g. 10) or off")]
pub struct ProgressSettingError {
    pub value: String,
}

pub struct Progress {
    total: usize,
    started: Instant,
    done: AtomicUsize,
    in_flight: AtomicUsize,
    cached: AtomicUsize,
    /// Prompt -> (correct, evaluated), in first-finished order.
    per_prompt: Mutex<indexmap::IndexMap<String, (usize, usize)>>,
    last: Mutex<Instant>,
    every: Option<Duration>,
    /// Whether the lines are for the live line the sink keeps on a terminal.
    live: bool,
    out: Arc<Output>,
}

/// How often the live line is redrawn at most.
const LIVE_EVERY: Duration = Duration::from_millis(250);

/// A model call in flight, for as long as it lives.
pub struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Progress {
    /// `setting` is PROMPTEVAL_PROGRESS (seconds, or `off`); `terminal`
    /// whether stderr is one that can keep a live line. Every line goes to
    /// `out` as an [`Event::Progress`].
    pub fn new(
        total: usize,
        setting: Option<&str>,
        terminal: bool,
        out: Arc<Output>,
    ) -> Result<Progress, ProgressSettingError> {
        let setting = setting.map(str::trim).filter(|s| !s.is_empty());
        let live =
            setting.is_none() && terminal && crate::terminal::status_line::StatusLine::available();
        let every = match setting {
            None if live => Some(LIVE_EVERY),
            None => Some(Duration::from_secs(if terminal { 2 } else { 30 })),
            Some("off") => None,
            Some(secs) => Some(Duration::from_secs_f64(
                secs.parse::<f64>()
                    .ok()
                    .filter(|s| *s >= 0.0 && s.is_finite())
                    .ok_or_else(|| ProgressSettingError {
                        value: secs.to_string(),
                    })?,
            )),
        };
        let now = Instant::now();
        Ok(Progress {
            total,
            started: now,
            done: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            cached: AtomicUsize::new(0),
            per_prompt: Mutex::new(indexmap::IndexMap::new()),
            last: Mutex::new(now),
            every,
            live,
            out,
        })
    }

    pub fn asking(&self) -> InFlight<'_> {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(&self.in_flight)
    }

    /// The run is over: the live line gives the terminal's last row back.
    pub fn close(&self) {
        if self.live {
            self.out.emit(Event::ProgressEnd);
        }
    }

    /// Counts a finished case and prints a line when one is due.
    pub fn finished(&self, record: &CaseRecord) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if record.cached {
            self.cached.fetch_add(1, Ordering::Relaxed);
        }
        {
            let mut per_prompt = self.per_prompt.lock().unwrap_or_else(|e| e.into_inner());
            let entry = per_prompt
                .entry(record.case.prompt.to_string())
                .or_insert((0, 0));
            if record.evaluated() {
                entry.1 += 1;
                entry.0 += usize::from(record.passed());
            }
        }
        let Some(every) = self.every else { return };
        let due = {
            let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
            let due = last.elapsed() >= every || done == self.total;
            if due {
                *last = Instant::now();
            }
            due
        };
        let live = self.live;
        let show = match live {
            true if done == self.total => {
                self.out.emit(Event::ProgressEnd);
                false
            }
            true => due,
            false => due && (done < self.total || self.started.elapsed() >= every),
        };
        if show {
            self.out.emit(Event::Progress {
                line: &self.line(done),
                live,
            });
        }
    }

    fn line(&self, done: usize) -> String {
        let so_far: Vec<String> = self
            .per_prompt
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(p, &(c, n))| match n {
                0 => format!("{p} -"),
                n => format!("{p} {:.1}% ({c}/{n})", c as f64 * 100.0 / n as f64),
            })
            .collect();
        let elapsed = self.started.elapsed().as_secs_f64();
        let left = self.total.saturating_sub(done);
        let eta = if done > 0 && left > 0 {
            format!(" · ETA {}", clock(elapsed / done as f64 * left as f64))
        } else {
            String::new()
        };
        // The accuracies last: a live line cut to the terminal's width
        // loses the tail of the longest part.
        format!(
            "progress: {done}/{} cases ({:.1}%) · {} elapsed{eta} · {} model call(s) in flight · {} from the cache · so far: {}",
            self.total,
            done as f64 * 100.0 / self.total.max(1) as f64,
            clock(elapsed),
            self.in_flight.load(Ordering::Relaxed),
            self.cached.load(Ordering::Relaxed),
            so_far.join(", "),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_and_settings() {
        assert!(
            Progress::new(5, Some("off"), true, Default::default())
                .unwrap()
                .every
                .is_none()
        );
        assert_eq!(
            Progress::new(5, None, false, Default::default())
                .unwrap()
                .every,
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            Progress::new(5, Some("0"), false, Default::default())
                .unwrap()
                .every,
            Some(Duration::ZERO)
        );
        let e = Progress::new(5, Some("soon"), false, Default::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("PROMPTEVAL_PROGRESS"), "{e}");
    }
}

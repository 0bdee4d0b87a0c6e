//! The race's rule (src/race/rule.rs) on simulated grids (issue #44):
//! its error rate and the calls it saves, against the full grid of the same
//! simulated prompts and questions. Not timed: it counts.
//!
//! Each run draws every prompt's outcome on each question in order, asks
//! only the prompts still live (one call each per question), and lets the
//! rule look after every question; the full grid asks everyone everything.
//!
//! `cargo bench --bench race`; PROMPTEVAL_BENCH_RUNS (default 10,000),
//! PROMPTEVAL_BENCH_QUESTIONS (default 200), PROMPTEVAL_BENCH_ALPHA
//! (default 0.05), PROMPTEVAL_BENCH_SEED (default 44).

use prompteval::race::rule::{Outcome, Race, Standing};

fn setting<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// How the prompts' outcomes on one question are drawn.
enum Truth {
    /// Each prompt passes with its own probability, independently.
    Independent(Vec<f64>),
    /// Identical prompts: each question has a difficulty d, uniform on
    /// [0, 1], and every prompt passes it with probability d, independently
    /// given d (outcomes agree more often than independent draws).
    Identical(usize),
}

impl Truth {
    fn prompts(&self) -> usize {
        match self {
            Truth::Independent(p) => p.len(),
            Truth::Identical(k) => *k,
        }
    }

    fn best(&self) -> Option<usize> {
        match self {
            Truth::Independent(p) => {
                let top = p.iter().copied().fold(f64::MIN, f64::max);
                let at: Vec<usize> = (0..p.len()).filter(|&i| p[i] == top).collect();
                (at.len() == 1).then(|| at[0])
            }
            Truth::Identical(_) => None,
        }
    }

    /// One question's outcomes, per round then prompt.
    fn draw(&self, rng: &mut fastrand::Rng, rounds: Rounds) -> Vec<Vec<bool>> {
        let d = rng.f64();
        let one = |rng: &mut fastrand::Rng| -> Vec<bool> {
            match self {
                Truth::Independent(p) => p.iter().map(|&p| rng.f64() < p).collect(),
                Truth::Identical(k) => (0..*k).map(|_| rng.f64() < d).collect(),
            }
        };
        match rounds {
            Rounds::Greedy(n) | Rounds::CountedAsQuestions(n) => vec![one(rng); n as usize],
            Rounds::Sampled(n) => (0..n).map(|_| one(rng)).collect(),
        }
    }
}

/// The rounds of each question.
#[derive(Clone, Copy)]
enum Rounds {
    /// Greedy decoding: every round repeats the first round's outcome.
    Greedy(u32),
    /// Each round drawn anew (temperature > 0), given the question.
    Sampled(u32),
    /// Greedy rounds fed to a rule that counts each round as a question
    /// (the closed form over units): what the race must not do.
    CountedAsQuestions(u32),
}

impl Rounds {
    fn count(self) -> u32 {
        match self {
            Rounds::Greedy(n) | Rounds::Sampled(n) | Rounds::CountedAsQuestions(n) => n,
        }
    }

    fn race(self, k: usize, alpha: f64) -> Race {
        match self {
            Rounds::CountedAsQuestions(_) => Race::new(k, alpha),
            other => Race::with_units(k, alpha, other.count() as usize),
        }
    }
}

#[derive(Default)]
struct Tally {
    runs: usize,
    with_elimination: usize,
    best_alone: usize,
    best_eliminated: usize,
    /// Runs that ended with the best prompt and at least one other live.
    best_tied: usize,
    calls: usize,
    grid: usize,
    /// Per prompt: runs in which it was eliminated, and the questions it
    /// had answered then.
    eliminated: Vec<(usize, usize)>,
}

fn simulate(
    truth: &Truth,
    rounds: Rounds,
    questions: usize,
    alpha: f64,
    runs: usize,
    seed: u64,
) -> Tally {
    let k = truth.prompts();
    let best = truth.best();
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut t = Tally {
        runs,
        eliminated: vec![(0, 0); k],
        ..Tally::default()
    };
    for _ in 0..runs {
        let mut race = rounds.race(k, alpha);
        for _ in 0..questions {
            if race.decided() {
                break;
            }
            let drawn = truth.draw(&mut rng, rounds);
            let outcomes: Vec<Outcome> = drawn
                .iter()
                .zip(1..)
                .flat_map(|(round, r)| {
                    race.live().map(move |prompt| Outcome {
                        prompt,
                        unit: (r, 0),
                        passed: round[prompt],
                    })
                })
                .collect();
            t.calls += outcomes.len();
            race.observe(&outcomes);
        }
        t.grid += k * questions * rounds.count() as usize;
        let live: Vec<usize> = race.live().collect();
        if live.len() < k {
            t.with_elimination += 1;
        }
        for (p, e) in t.eliminated.iter_mut().enumerate() {
            if let Standing::Eliminated {
                after_questions, ..
            } = race.standing(p)
            {
                e.0 += 1;
                e.1 += after_questions;
            }
        }
        if let Some(b) = best {
            match (race.is_live(b), live.len()) {
                (true, 1) => t.best_alone += 1,
                (true, _) => t.best_tied += 1,
                (false, _) => t.best_eliminated += 1,
            }
        }
    }
    t
}

fn share(n: usize, of: usize) -> String {
    format!("{:.4}", n as f64 / of.max(1) as f64)
}

fn report(name: &str, truth: &Truth, t: &Tally, alpha: f64) {
    println!("## {name}");
    let calls = t.calls as f64 / t.grid as f64;
    println!(
        "runs {}, calls {:.1} % of the full grid's ({:.0} of {} a run, saved {:.1} %)",
        t.runs,
        100.0 * calls,
        t.calls as f64 / t.runs as f64,
        t.grid / t.runs,
        100.0 * (1.0 - calls)
    );
    println!(
        "runs with any elimination: {} (alpha {alpha})",
        share(t.with_elimination, t.runs)
    );
    if truth.best().is_some() {
        println!(
            "best prompt: won alone {}, still tied at the end {}, eliminated {}",
            share(t.best_alone, t.runs),
            share(t.best_tied, t.runs),
            share(t.best_eliminated, t.runs)
        );
    }
    let per: Vec<String> = t
        .eliminated
        .iter()
        .enumerate()
        .map(|(p, &(n, q))| {
            let label = match truth {
                Truth::Independent(ps) => format!("p{p} ({:.2})", ps[p]),
                Truth::Identical(_) => format!("p{p}"),
            };
            if n == 0 {
                format!("{label}: never eliminated")
            } else {
                format!(
                    "{label}: eliminated in {}, after {:.1} questions on average",
                    share(n, t.runs),
                    q as f64 / n as f64
                )
            }
        })
        .collect();
    println!("{}\n", per.join("; "));
}

fn main() {
    let runs: usize = setting("PROMPTEVAL_BENCH_RUNS", 10_000);
    let questions: usize = setting("PROMPTEVAL_BENCH_QUESTIONS", 200);
    let alpha: f64 = setting("PROMPTEVAL_BENCH_ALPHA", 0.05);
    let seed: u64 = setting("PROMPTEVAL_BENCH_SEED", 44);
    println!(
        "# the race's rule on simulated grids: {runs} runs x {questions} questions, alpha {alpha}, seed {seed}\n"
    );
    let one = Rounds::Greedy(1);
    let scenarios = [
        (
            "A/A: 5 identical prompts (per-question difficulty)",
            Truth::Identical(5),
            one,
        ),
        (
            "A/A: 5 prompts at 0.6, independent draws",
            Truth::Independent(vec![0.6; 5]),
            one,
        ),
        (
            "clear winner: 0.85/0.55/0.50/0.40/0.30",
            Truth::Independent(vec![0.85, 0.55, 0.50, 0.40, 0.30]),
            one,
        ),
        (
            "close runner-up: 0.80/0.70/0.60/0.50/0.40",
            Truth::Independent(vec![0.80, 0.70, 0.60, 0.50, 0.40]),
            one,
        ),
        (
            "close race: 0.62 against 0.60",
            Truth::Independent(vec![0.62, 0.60]),
            one,
        ),
        (
            "A/A, 3 greedy rounds (each reply repeated): the race's rule",
            Truth::Identical(5),
            Rounds::Greedy(3),
        ),
        (
            "A/A, 3 greedy rounds, each round counted as a question (the wrong rule)",
            Truth::Identical(5),
            Rounds::CountedAsQuestions(3),
        ),
        (
            "A/A, 3 sampled rounds (drawn anew given the question)",
            Truth::Identical(5),
            Rounds::Sampled(3),
        ),
        (
            "clear winner, 3 sampled rounds",
            Truth::Independent(vec![0.85, 0.55, 0.50, 0.40, 0.30]),
            Rounds::Sampled(3),
        ),
    ];
    for (i, (name, truth, rounds)) in scenarios.iter().enumerate() {
        // The grid's mixture costs more per question: a fifth of the runs.
        let runs = match rounds.count() {
            1 => runs,
            _ => runs.div_ceil(5),
        };
        let t = simulate(truth, *rounds, questions, alpha, runs, seed + i as u64);
        report(name, truth, &t, alpha);
    }
}

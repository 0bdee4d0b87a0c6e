//! Tests of `harness = false` targets as libtest-mimic trials, for tests whose
//! real part (a browser, a model server, full sandbox isolation) may be absent.
//!
//! An absent part never makes a test pass without running:
//! - by default the test is reported `ignored (<what is absent; what to do>)`,
//!   and `--list --ignored` lists it, so cargo-nextest skips it too;
//! - under `CI=true`, or when ignored tests were asked for (`--ignored`,
//!   `--include-ignored`), it fails with that message.
//!
//! `main` reads the arguments with `Arguments::from_args()`, so filters,
//! `--exact`, `--list` and `--format terse` work as with libtest (nextest
//! relies on them). A panic in a test is a failure (libtest-mimic catches it).

#![allow(dead_code, unused_macros, unused_imports)]

use std::process::ExitCode;

use libtest_mimic::{Arguments, Completion, Trial};

/// Whether this is a CI run: the harness's own rule.
pub use prompteval::terminal::console::in_ci as under_ci;

/// A test that needs nothing beyond the machine the suite always needs.
pub fn plain(name: &str, test: impl Fn() + Send + 'static) -> Trial {
    Trial::test(name, move || {
        test();
        Ok(())
    })
}

/// A test that needs `part`: `Ok(part)` when present (the test gets it),
/// `Err(what is absent; what to install or start)` when not.
pub fn needing<T: Clone + Send + 'static>(
    args: &Arguments,
    part: &Result<T, String>,
    name: &str,
    test: impl Fn(T) + Send + 'static,
) -> Trial {
    match part.clone() {
        Ok(part) => Trial::test(name, move || {
            test(part);
            Ok(())
        }),
        Err(absent) => {
            let ci = under_ci();
            let asked = args.ignored || args.include_ignored;
            let failure = if ci {
                Some(format!("CI=true requires this test to run, but {absent}"))
            } else if asked {
                Some(format!("ignored tests were asked for, but {absent}"))
            } else {
                None
            };
            Trial::ignorable_test(name, move || match failure {
                Some(message) => Err(message.into()),
                None => Ok(Completion::ignored_with(absent)),
            })
            // Listed as ignored (nextest then skips it instead of counting a
            // pass); in a plain run it is not flagged, so that libtest-mimic
            // runs it and prints the reason.
            .with_ignored_flag(!ci && (args.list || asked))
        }
    }
}

/// Runs `trials` in name order (as libtest does) and gives the exit code.
pub fn run(args: &Arguments, mut trials: Vec<Trial>) -> ExitCode {
    trials.sort_by(|a, b| a.name().cmp(b.name()));
    libtest_mimic::run(args, trials).exit_code()
}

/// `plain` trials named after the functions: `trials::plain_trials![a, b]`.
macro_rules! plain_trials {
    ($($test:ident),* $(,)?) => {
        vec![$(trials::plain(stringify!($test), $test)),*]
    };
}

/// `needing` trials named after the functions:
/// `trials::needing_trials![&args, &part; a, b]`.
macro_rules! needing_trials {
    ($args:expr, $part:expr; $($test:ident),* $(,)?) => {
        vec![$(trials::needing($args, $part, stringify!($test), $test)),*]
    };
}

pub(crate) use {needing_trials, plain_trials};

//! `prompteval`: the crate's command line, beside the evaluation itself
//! (`cargo test --test prompts`).
//!
//! ```text
//! cargo run -- cache dir      where the response cache lives
//! cargo run -- cache clear    remove every cached reply
//! ```

use std::process::ExitCode;

use prompteval::cache::ResponseCache;

const USAGE: &str = "usage: prompteval cache dir | cache clear\n  (the evaluation itself runs with `cargo test --test prompts`)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["cache", what @ ("dir" | "clear")] => cache(what),
        ["-h" | "--help" | "help"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("error: unknown command {:?}\n{USAGE}", args.join(" "));
            ExitCode::from(2)
        }
    }
}

fn cache(what: &str) -> ExitCode {
    let var = |name| std::env::var(name).ok();
    let Some(dir) =
        ResponseCache::default_dir(var("XDG_CACHE_HOME").as_deref(), var("HOME").as_deref())
    else {
        eprintln!("error: neither XDG_CACHE_HOME nor HOME is set, so there is no cache folder");
        return ExitCode::from(2);
    };
    if what == "dir" {
        println!("{}", dir.display());
        return ExitCode::SUCCESS;
    }
    match ResponseCache::clear(&dir) {
        Ok(n) => {
            println!("removed {n} cached replies from {}", dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}: cannot clear the cache: {e}", dir.display());
            ExitCode::from(1)
        }
    }
}

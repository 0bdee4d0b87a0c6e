//! Throughput of a two-model run (issue #20): two scripted servers, one
//! per model (Ollama's protocol and an OpenAI-compatible one), each with
//! `slots` parallel slots and a fixed time per reply, in this process.
//! While `cargo test --test prompts` runs both models, the servers count
//! the chat requests in flight. Printed, measured in the same run:
//!
//! - in flight: the peak over both servers against the sum of their slots
//!   (must be equal: both kept busy at once, each at its slots), and each
//!   server's peak against its slots;
//! - wall: the two-model run against the ideal (cases per model / slots x
//!   the reply time: both servers work at once), and against a run of one
//!   model alone with the same cases (ideally 1.0: the second model costs
//!   no time when it has its own server).
//!
//! `cargo bench --bench multi_model`; PROMPTEVAL_BENCH_SLOTS (default 4),
//! PROMPTEVAL_BENCH_CASES (cases per model, default 48) and
//! PROMPTEVAL_BENCH_DELAY_MS (default 200) change the load.

#[path = "../tests/support/meter.rs"]
mod meter;
#[path = "../tests/support/prompts_cli.rs"]
mod prompts_cli;
#[path = "../tests/support/stub_server.rs"]
mod stub_server;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use meter::{Meter, metered};
use prompts_cli::Scratch;
use stub_server::{Behaviour, Request, StubServer};

const A: &str = "alpha:1b";
const B: &str = "beta:2b";

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(default)
}

/// Answers "Print the number N" right, on either protocol.
fn numbers(req: &Request) -> Behaviour {
    if !matches!(req.path.as_str(), "/api/chat" | "/v1/chat/completions") {
        return Behaviour::Default;
    }
    let number = req
        .current_question()
        .rsplit("Print the number ")
        .next()
        .and_then(|t| t.split_whitespace().next())
        .unwrap_or("0")
        .to_string();
    Behaviour::Reply(format!("```python\nprint({number})\n```"))
}

/// A server of `model` counting its chat requests on `meters`.
fn server(model: &str, meters: Vec<Arc<Meter>>, delay: Duration) -> StubServer {
    let s = StubServer::start(metered(meters, delay, numbers));
    s.set_models(&[model]);
    s
}

/// 4 prompts x `cases / 4` questions.
fn suite(dir: &Path, cases: usize) -> std::path::PathBuf {
    let prompts = 4;
    let questions = cases.div_ceil(prompts);
    let mut map = serde_json::Map::new();
    for p in 0..prompts {
        map.insert(format!("p{p}"), format!("Variant {p}: {{question}}").into());
    }
    let qs: Vec<serde_json::Value> = (0..questions)
        .map(|i| serde_json::json!({"id": format!("q{i}"), "question": format!("Print the number {i}"), "answer": i.to_string()}))
        .collect();
    map.insert("questions".into(), qs.into());
    let path = dir.join("numbers.json");
    std::fs::write(&path, serde_json::to_string(&map).unwrap()).unwrap();
    path
}

/// The harness binary run to its end; its wall time.
fn run(s: &Scratch) -> Duration {
    let started = Instant::now();
    let child = s.spawn_prompts(&[], &[("INSTA_UPDATE", "no")]);
    let out = child.wait_with_output().expect("the harness runs");
    let took = started.elapsed();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn main() {
    let slots = setting("PROMPTEVAL_BENCH_SLOTS", 4) as usize;
    let cases = setting("PROMPTEVAL_BENCH_CASES", 48) as usize;
    let delay = Duration::from_millis(setting("PROMPTEVAL_BENCH_DELAY_MS", 200));
    let scratch_dir = tempfile::tempdir().unwrap();
    let suite = suite(scratch_dir.path(), cases);
    let per_model = cases.div_ceil(4) * 4;
    println!(
        "multi_model: 2 servers x {slots} slots, {} ms per reply, {per_model} cases per model (history off)",
        delay.as_millis()
    );
    // Built once, outside the timings.
    let _ = prompts_cli::prompts_binary();

    let common = format!(
        "suite = \"{}\"\nbackend = \"ollama\"\n[history]\nenabled = false\n[llm]\nretries = 0\n",
        suite.display()
    );

    // One model alone: the baseline.
    let alone = Meter::new();
    let a = server(A, vec![alone.clone()], delay);
    let s = Scratch::new(&format!(
        "{common}[[models]]\nname = \"{A}\"\nurl = \"{}\"\nconcurrency = {slots}\n",
        a.url()
    ));
    let one = run(&s);
    drop(a);

    // Two models, a server each.
    let (total, ma, mb) = (Meter::new(), Meter::new(), Meter::new());
    let a = server(A, vec![ma.clone(), total.clone()], delay);
    let b = server(B, vec![mb.clone(), total.clone()], delay);
    let s = Scratch::new(&format!(
        "{common}[[models]]\nname = \"{A}\"\nurl = \"{}\"\nconcurrency = {slots}\n\
         [[models]]\nname = \"{B}\"\nbackend = \"openai\"\nurl = \"{}\"\nconcurrency = {slots}\n",
        a.url(),
        b.openai_url()
    ));
    let two = run(&s);
    assert_eq!(ma.models().len(), per_model);
    assert_eq!(mb.models().len(), per_model);

    let sum = 2 * slots;
    let ideal = delay.as_secs_f64() * per_model.div_ceil(slots) as f64;
    println!(
        "  in flight: peak over both servers {} vs sum of slots {sum} (ratio {:.2}); per server {} and {} of {slots}; one model alone {} of {slots}",
        total.peak(),
        total.peak() as f64 / sum as f64,
        ma.peak(),
        mb.peak(),
        alone.peak()
    );
    println!(
        "  wall: two models {:.2} s vs ideal {ideal:.2} s (ratio {:.2}); one model alone {:.2} s (two / one {:.2})",
        two.as_secs_f64(),
        two.as_secs_f64() / ideal,
        one.as_secs_f64(),
        two.as_secs_f64() / one.as_secs_f64()
    );
    assert_eq!(
        total.peak(),
        sum,
        "both servers must be kept busy at once, each at its slots"
    );
}

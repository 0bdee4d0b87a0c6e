//! The speed figures against ParEval's own: each chosen problem's reference
//! body timed by prompteval (src/execute/cpp/speed.rs, in the sandbox) and
//! by ParEval's own driver (drivers/cpp/models/{serial,omp}-driver.cc, built
//! as its cpp_driver_wrapper.py builds it, run outside any sandbox), in
//! alternation on the same machine; prints both `Time:` and
//! `BestSequential:` figures, both speedups and their ratio.
//!
//! PAREVAL_CHECKOUT=/path/to/ParEval cargo bench --bench pareval_speed [-- ID ...]
//! (default: the eight PO-ParEval problems of benches-data/*-po8.json);
//! PAREVAL_SPEED_REPEATS (default 3) runs of each.

use std::path::{Path, PathBuf};
use std::process::Command;

use prompteval::config::{CppConfig, SandboxConfig};
use prompteval::execute::cpp::Cpp;
use prompteval::python::RUNTIME;
use prompteval::sandbox::Sandbox;
use prompteval::suite::{ParallelModel, Question, Suite};

fn main() {
    let Some(checkout) = std::env::var_os("PAREVAL_CHECKOUT").map(PathBuf::from) else {
        println!(
            "pareval_speed: set PAREVAL_CHECKOUT to a ParEval checkout (its drivers/cpp); nothing measured"
        );
        return;
    };
    let drivers = checkout.join("drivers/cpp");
    if !drivers.join("models/omp-driver.cc").is_file() {
        eprintln!(
            "pareval_speed: {} has no models/omp-driver.cc",
            drivers.display()
        );
        std::process::exit(2);
    }
    let repeats: usize = std::env::var("PAREVAL_SPEED_REPEATS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sandbox = Sandbox::new(&SandboxConfig::default(), &RUNTIME).expect("sandbox");
    let cpp = Cpp::new(CppConfig::default(), None);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("{cores} cores; {repeats} runs each, alternating; medians");
    println!(
        "{:<42} {:>6} {:>3} | {:>10} {:>10} {:>8} | {:>10} {:>10} {:>8} | {:>6}",
        "problem",
        "model",
        "n",
        "ParEval T",
        "T_best",
        "speedup",
        "ours T",
        "T_best",
        "speedup",
        "ratio"
    );
    for file in ["pareval-serial-po8.json", "pareval-omp-po8.json"] {
        let suite = Suite::load(&root.join("benches-data").join(file)).expect("suite");
        for q in suite
            .questions
            .iter()
            .filter(|q| wanted.is_empty() || wanted.iter().any(|w| q.id.contains(w.as_str())))
        {
            let check = q.pareval.as_ref().expect("a ParEval question");
            let threads = cpp.threads(check).into_iter().max().unwrap_or(1);
            let program = build_with_pareval_driver(&drivers, q);
            let (mut theirs, mut ours) = (Vec::new(), Vec::new());
            for _ in 0..repeats {
                theirs.push(run_pareval(&program, check.parallelism_model, threads));
                let ran = cpp.run(q, &body(q), &sandbox).expect("harness");
                let speed = ran.speed.expect("the reference is correct, so timed");
                ours.push((
                    speed.time_secs.expect("figures"),
                    speed.best_secs.expect("figures"),
                ));
            }
            let (t, tb) = medians(&theirs);
            let (o, ob) = medians(&ours);
            println!(
                "{:<42} {:>6} {:>3} | {:>10.6} {:>10.6} {:>8.3} | {:>10.6} {:>10.6} {:>8.3} | {:>6.2}",
                q.id,
                check.parallelism_model.as_str(),
                threads,
                t,
                tb,
                tb / t,
                o,
                ob,
                ob / o,
                (ob / o) / (tb / t)
            );
        }
    }
}

/// The reference's body: what follows the prompt's signature line.
fn body(q: &Question) -> String {
    let reference = q.reference.as_deref().expect("a reference");
    let signature = q.question.lines().last().unwrap_or_default();
    reference
        .strip_prefix(signature)
        .unwrap_or(reference)
        .to_string()
}

/// ParEval's build: the prompt with NO_INLINE after its return type, the
/// output after it, in generated-code.hpp; the model's driver and the
/// problem's cpu.cc; `-std=c++17 -O3 [-fopenmp]`, `-DUSE_<MODEL>`.
fn build_with_pareval_driver(drivers: &Path, q: &Question) -> tempfile::TempDir {
    let check = q.pareval.as_ref().unwrap();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut lines: Vec<&str> = q.question.lines().collect();
    let last = lines.pop().unwrap_or_default();
    let mut parts: Vec<&str> = last.split(' ').collect();
    parts.insert(1, "NO_INLINE");
    let patched = format!("{}\n{}", lines.join("\n"), parts.join(" "));
    std::fs::write(
        dir.path().join("generated-code.hpp"),
        format!("{patched}\n{}", body(q)),
    )
    .unwrap();
    std::fs::write(dir.path().join("baseline.hpp"), &check.baseline).unwrap();
    std::fs::write(dir.path().join("cpu.cc"), &check.driver).unwrap();
    let (driver, flags): (&str, &[&str]) = match check.parallelism_model {
        ParallelModel::Serial => ("serial-driver.cc", &["-std=c++17", "-O3", "-DUSE_SERIAL"]),
        ParallelModel::Omp => (
            "omp-driver.cc",
            &["-std=c++17", "-O3", "-fopenmp", "-DUSE_OMP"],
        ),
    };
    let status = Command::new("g++")
        .args(flags)
        .arg(format!("-I{}", drivers.display()))
        .arg(format!("-I{}", drivers.join("models").display()))
        .arg(format!("-I{}", dir.path().display()))
        .arg(format!("-DDRIVER_PROBLEM_SIZE={}", check.problem_size))
        .arg(drivers.join("models").join(driver))
        .arg(dir.path().join("cpu.cc"))
        .arg("-o")
        .arg(dir.path().join("a.out"))
        .status()
        .expect("g++");
    assert!(status.success(), "{}: ParEval's build failed", q.id);
    dir
}

/// `Time:` and `BestSequential:` of one run of ParEval's program.
fn run_pareval(dir: &tempfile::TempDir, model: ParallelModel, threads: u32) -> (f64, f64) {
    let mut cmd = Command::new(dir.path().join("a.out"));
    if model == ParallelModel::Omp {
        cmd.arg(threads.to_string());
    }
    let out = cmd.output().expect("ParEval's program");
    let text = String::from_utf8_lossy(&out.stdout);
    let figure = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .unwrap_or_else(|| panic!("no {key} in ParEval's output:\n{text}"))
    };
    (figure("Time:"), figure("BestSequential:"))
}

fn medians(runs: &[(f64, f64)]) -> (f64, f64) {
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (
        median(runs.iter().map(|r| r.0).collect()),
        median(runs.iter().map(|r| r.1).collect()),
    )
}

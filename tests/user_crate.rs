//! "Use it from your own crate": `templates/user-crate/` copied out of the
//! repository, with prompteval as a path dev-dependency, runs
//! `cargo test --test prompts` as its user would. First live against the
//! scripted stub server, recording into the crate's own snapshot folder;
//! then with no server, replaying those recordings. Everything the runs
//! write must land in the user's crate (its `result_dir`, its
//! `snapshot_dir`), name the user's model, and carry no path of this
//! repository or of the cargo home; nothing may be written into this
//! repository.
//!
//! The copied crate builds into this repository's own target folder, where
//! `cargo test` has built prompteval's dependencies already: with the
//! repository's Cargo.lock and the same profiles, they are reused, and only
//! prompteval itself (at the dependencies' opt-level 2, as a non-member
//! dependency) and the crate's test are compiled, about a minute the first
//! time; later runs are incremental (about a second). A target folder of
//! its own would build all ~140 dependencies first (7.5 minutes on 2
//! cores). The timings are printed (`-- --nocapture`).

#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Instant, SystemTime};

use stub_server::{Behaviour, Request, StubServer, dead_host};

/// The template's dependency line, rewritten to this repository's path.
const PATH_DEPENDENCY: &str = "prompteval = { path = \"../..\" }";

/// Correct programs for the template suite's two questions, and a wrong one.
const SUM: &str = "```python\nprint(sum(range(1, 101)))\n```";
const PALINDROME: &str = "```python\ndef is_palindrome(s):\n    s = s.lower()\n    return s == s[::-1]\n\nprint(is_palindrome('Racecar'))\n```";
/// Forgets to ignore case: prints False.
const PALINDROME_WRONG: &str = "```python\ndef is_palindrome(s):\n    return s == s[::-1]\n\nprint(is_palindrome('Racecar'))\n```";

/// A model that solves both questions under `direct` and gets the
/// palindrome wrong under `stepwise`.
fn model(req: &Request) -> Behaviour {
    if req.path != "/api/chat" {
        return Behaviour::Default;
    }
    let asked = req.current_question();
    let stepwise = req
        .last_user_message()
        .is_some_and(|m| m.starts_with("Think about the task step by step"));
    if asked.contains("sum of the integers from 1 to 100") {
        Behaviour::Reply(SUM.into())
    } else if asked.contains("is_palindrome") && stepwise {
        Behaviour::Reply(PALINDROME_WRONG.into())
    } else if asked.contains("is_palindrome") {
        Behaviour::Reply(PALINDROME.into())
    } else {
        let error = serde_json::json!({ "error": format!("unexpected question: {asked}") });
        Behaviour::Status(500, error.to_string())
    }
}

#[test]
fn the_template_crate_records_and_replays_in_its_own_folders() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Beside `tmp/`: this repository's target folder, wherever it is.
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .to_path_buf();
    let repo_before = files_of(repo);

    let tmp = tempfile::tempdir().expect("temp dir");
    assert!(
        !tmp.path().starts_with(repo),
        "the temp folder {} is inside the repository; set TMPDIR elsewhere",
        tmp.path().display()
    );
    let krate = tmp.path().join("my-prompts");
    copy_template(&repo.join("templates/user-crate"), &krate);
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    assert_eq!(
        manifest.matches(PATH_DEPENDENCY).count(),
        1,
        "the template's Cargo.toml must have the line `{PATH_DEPENDENCY}`:\n{manifest}"
    );
    let absolute = toml::Value::String(repo.display().to_string()).to_string();
    std::fs::write(
        krate.join("Cargo.toml"),
        manifest.replace(
            PATH_DEPENDENCY,
            &format!("prompteval = {{ path = {absolute} }}"),
        ),
    )
    .unwrap();
    // The versions prompteval is tested with, and no registry query (a
    // user's crate resolves its own; cargo drops the unused entries).
    std::fs::copy(repo.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    let copied = files_of(&krate);

    let config: toml::Table =
        toml::from_str(&std::fs::read_to_string(krate.join("harness.toml")).unwrap()).unwrap();
    let the_model = config["model"].as_str().expect("model in harness.toml");
    let result_dir = krate.join(config["result_dir"].as_str().expect("result_dir"));
    let snapshot_dir = krate.join(config["snapshot_dir"].as_str().expect("snapshot_dir"));
    let suite_stem = Path::new(config["suite"].as_str().expect("suite"))
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    for (key, dir) in [("result_dir", &result_dir), ("snapshot_dir", &snapshot_dir)] {
        assert!(
            dir.starts_with(&krate),
            "the template's {key} must be a folder of the crate: {}",
            dir.display()
        );
    }

    // 1. Live, recording: a user at their desk (no CI) with INSTA_UPDATE=always.
    let server = StubServer::start(model);
    server.set_models(&[the_model]);
    let cache = tmp.path().join("cache");
    let started = Instant::now();
    let live = cargo_test_prompts(
        &krate,
        &target_dir,
        &[
            ("OLLAMA_HOST", &server.url()),
            ("INSTA_UPDATE", "always"),
            ("XDG_CACHE_HOME", &cache.display().to_string()),
        ],
    );
    let first = started.elapsed();
    eprintln!("first run (build and live evaluation): {first:.1?}");
    // Cases failed (stepwise's palindrome) and no gate is set: libtest's
    // 101, after the evaluation (a failed build is 101 too).
    assert_eq!(live.status, Some(101), "{}", live.both());
    assert!(
        live.stdout
            .contains("test result: FAILED. 3 passed; 1 failed"),
        "{}",
        live.both()
    );
    assert_eq!(server.requests_to("/api/chat").len(), 4);
    drop(server);

    let runs = run_dirs(&result_dir);
    assert_eq!(runs.len(), 1, "one run folder in {}", result_dir.display());
    let summary = summary_of(&runs[0]);
    assert_eq!(summary["model"], the_model, "{summary}");
    assert_eq!(summary["backend"], "ollama", "{summary}");
    assert_eq!(summary["prompt_results"]["direct"]["accuracy"], 100.0);
    assert_eq!(summary["prompt_results"]["stepwise"]["accuracy"], 50.0);
    for f in [
        "quick_view.html",
        "report/summary.csv",
        "direct/question_1.py",
    ] {
        assert!(runs[0].join(f).is_file(), "{f} in {}", runs[0].display());
    }

    let model_folder = snapshot_dir
        .join(&suite_stem)
        .join(prompteval::ask::snapshot::model_folder(the_model));
    let snaps = snapshots_in(&model_folder);
    assert_eq!(
        snaps.keys().cloned().collect::<Vec<_>>(),
        [
            "direct__palindrome__r1.snap",
            "direct__sum_1_to_100__r1.snap",
            "stepwise__palindrome__r1.snap",
            "stepwise__sum_1_to_100__r1.snap",
        ],
        "the recordings in the crate's own snapshot folder"
    );
    for (name, text) in &snaps {
        assert!(
            text.starts_with("---\nsource: src/snapshot.rs\n"),
            "{name}:\n{text}"
        );
        assert!(
            text.contains(&format!("model: \"{the_model}\"")),
            "{name}:\n{text}"
        );
    }
    assert!(snaps["stepwise__palindrome__r1.snap"].ends_with(&format!("{PALINDROME_WRONG}\n")));

    // 2. No server: replay from the crate's own recordings, as in CI.
    let started = Instant::now();
    let replay = cargo_test_prompts(
        &krate,
        &target_dir,
        &[
            ("OLLAMA_HOST", &dead_host()),
            ("PROMPTEVAL_BACKEND", "replay"),
            ("CI", "true"),
            ("XDG_CACHE_HOME", &cache.display().to_string()),
        ],
    );
    let second = started.elapsed();
    eprintln!("second run (incremental build and replay): {second:.1?}");
    assert_eq!(replay.status, Some(101), "{}", replay.both());
    assert!(
        replay
            .stdout
            .contains("test result: FAILED. 3 passed; 1 failed"),
        "{}",
        replay.both()
    );
    let announce = replay
        .stdout
        .lines()
        .find(|l| l.starts_with("▶ replay"))
        .unwrap_or_else(|| panic!("a replay announcement:\n{}", replay.both()));
    assert!(
        announce.contains(&format!(
            "4 個 {the_model} 的錄製回覆, 來自 tests/snapshots/{suite_stem}/"
        )),
        "{announce}"
    );
    let runs = run_dirs(&result_dir);
    assert_eq!(
        runs.len(),
        2,
        "a second run folder in {}",
        result_dir.display()
    );
    let summary = summary_of(&runs[1]);
    assert_eq!(summary["model"], the_model, "{summary}");
    assert_eq!(summary["backend"], "replay", "{summary}");
    assert_eq!(summary["planned_cases"], 4, "{summary}");
    assert_eq!(summary["finished_cases"], 4, "{summary}");
    assert_eq!(summary["not_evaluated"], 0, "{summary}");
    assert_eq!(summary["prompt_results"]["direct"]["accuracy"], 100.0);
    assert_eq!(summary["prompt_results"]["stepwise"]["accuracy"], 50.0);
    assert_eq!(
        snapshots_in(&model_folder),
        snaps,
        "replay rewrote no recording"
    );

    // 3. The defaults resolve in the user's crate too: with only `model` and
    // `suite` set, the recordings come from its tests/snapshots and the run
    // folder goes to its result/.
    std::fs::write(
        krate.join("defaults.toml"),
        format!(
            "model = \"{the_model}\"\nsuite = \"{}\"\n",
            config["suite"].as_str().unwrap()
        ),
    )
    .unwrap();
    let defaults = cargo_test_prompts(
        &krate,
        &target_dir,
        &[
            ("PROMPTEVAL_CONFIG", "defaults.toml"),
            ("PROMPTEVAL_BACKEND", "replay"),
            ("OLLAMA_HOST", &dead_host()),
            ("CI", "true"),
            ("XDG_CACHE_HOME", &cache.display().to_string()),
        ],
    );
    assert!(
        defaults
            .stdout
            .contains("test result: FAILED. 3 passed; 1 failed"),
        "{}",
        defaults.both()
    );
    assert_eq!(
        run_dirs(&krate.join("result")).len(),
        1,
        "{}",
        defaults.both()
    );

    // 4. No suite set: the default is prompteval's own example, which is not
    // in the user's crate; the error names the file and what to set.
    std::fs::write(
        krate.join("defaults.toml"),
        format!("model = \"{the_model}\"\n"),
    )
    .unwrap();
    let unset = cargo_test_prompts(
        &krate,
        &target_dir,
        &[
            ("PROMPTEVAL_CONFIG", "defaults.toml"),
            ("XDG_CACHE_HOME", &cache.display().to_string()),
        ],
    );
    assert_ne!(unset.status, Some(0), "{}", unset.both());
    let missing = krate.join("benches-data/example.json");
    assert!(
        unset
            .stderr
            .contains(&format!("error: {}: no suite is set", missing.display()))
            && unset.stderr.contains(&format!(
                "set `suite = \"my-suite.json\"` in {}",
                krate.join("defaults.toml").display()
            )),
        "{}",
        unset.both()
    );

    // What the runs wrote names neither this repository nor the cargo home.
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let forbidden: Vec<PathBuf> = [repo.to_path_buf(), cargo_home]
        .into_iter()
        .flat_map(|p| [p.canonicalize().ok(), Some(p)])
        .flatten()
        .collect();
    let written: Vec<PathBuf> = files_of(&krate)
        .into_keys()
        .filter(|f| !copied.contains_key(f) || f == Path::new("Cargo.lock"))
        .collect();
    assert!(
        written.len() > 10,
        "the runs' files (results, snapshots) in the crate: {written:?}"
    );
    for file in &written {
        let text = String::from_utf8_lossy(&std::fs::read(krate.join(file)).unwrap()).into_owned();
        for path in &forbidden {
            assert!(
                !text.contains(&path.display().to_string()),
                "{} contains {}",
                file.display(),
                path.display()
            );
        }
    }

    // Nothing was written into this repository (outside its target folder).
    let repo_after = files_of(repo);
    let changed: Vec<&PathBuf> = repo_after
        .iter()
        .filter(|(f, stamp)| repo_before.get(*f) != Some(stamp))
        .map(|(f, _)| f)
        .chain(repo_before.keys().filter(|f| !repo_after.contains_key(*f)))
        .collect();
    assert!(
        changed.is_empty(),
        "written into the repository: {changed:?}"
    );
}

/// `cargo test --test prompts` in `krate`, as its user runs it: the
/// caller's PROMPTEVAL_*, OLLAMA_*, INSTA_* and CI settings and the test
/// runner's variables removed, `env` on top, built into `target_dir`.
fn cargo_test_prompts(krate: &Path, target_dir: &Path, env: &[(&str, &str)]) -> prompts_cli::Run {
    // `cargo test` always sets CARGO for the tests it runs.
    let mut cmd = Command::new(env!("CARGO"));
    prompts_cli::without_test_runner_env(&mut cmd);
    for (k, _) in std::env::vars() {
        if k.starts_with("PROMPTEVAL_")
            || k.starts_with("OLLAMA_")
            || k.starts_with("INSTA_")
            || ["OPENAI_API_KEY", "CI", "GITHUB_STEP_SUMMARY"].contains(&k.as_str())
        {
            cmd.env_remove(k);
        }
    }
    cmd.current_dir(krate)
        .env("CARGO_TARGET_DIR", target_dir)
        .args(["test", "--test", "prompts"])
        .envs(env.iter().copied());
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", env!("CARGO")));
    prompts_cli::Run {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The template's files, without what building or running it in place
/// leaves behind.
fn copy_template(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if ["target", "results", "Cargo.lock"].contains(&name.as_ref()) || name.ends_with(".new") {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_template(&entry.path(), &to.join(&*name));
        } else {
            std::fs::copy(entry.path(), to.join(&*name)).unwrap();
        }
    }
}

/// Every file under `root` but `.git/`, `target/` and Python's caches
/// (other tests run Python in the repository at the same time under
/// nextest), by relative path, with its length and modification time.
fn files_of(root: &Path) -> BTreeMap<PathBuf, (u64, SystemTime)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, (u64, SystemTime)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if rel == Path::new(".git")
                || rel == Path::new("target")
                || entry.file_name() == "__pycache__"
            {
                continue;
            }
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                walk(root, &path, out);
            } else {
                out.insert(rel, (meta.len(), meta.modified().unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn run_dirs(result_dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(result_dir)
        .unwrap_or_else(|e| panic!("{}: {e}", result_dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with(".nextest"))
        .collect();
    dirs.sort();
    dirs
}

fn summary_of(run: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(run.join("summary.json")).expect("summary.json");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

/// The `.snap` files of a folder, by name, with their text.
fn snapshots_in(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

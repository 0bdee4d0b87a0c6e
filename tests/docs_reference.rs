//! docs/reference.md lists everything a user sets or reads. These tests fail
//! when the code reads something the reference does not list:
//!
//! - every `"PROMPTEVAL_..."` string literal under `src/`, and every other
//!   variable read by name (`var("HOME")`), is a row of its environment
//!   tables; every variable documented there is read somewhere;
//! - every key of harness.toml's serde structs (`src/config/`, walked
//!   from `ConfigFile`, honouring `rename`, `alias`, `flatten` and `skip`)
//!   is a row of its harness.toml tables, and every row's key is accepted by
//!   the library's own loader (`Config::load`), which rejects unknown keys;
//! - every serialized field of `Summary` and of the structs it holds
//!   (`src/results/summary.rs`, `figures.rs`, `race.rs`, `CacheStats`, `Tokens`) is in its
//!   summary.json table, and so is every key of a summary.json the library
//!   writes; the same for the journal's `CaseRecord`;
//! - the links of README.md and docs/ resolve, and no example shows a
//!   machine's own paths.
//!
//! No model server, no subprocess: it reads files and calls the library.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use prompteval::config::Config;
use regex::Regex;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every file under `dir` (relative to the crate) whose name ends in `ext`.
fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, ext, out);
            } else if path.to_string_lossy().ends_with(ext) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), ext, &mut out);
    out.sort();
    out
}

// --- the reference's tables ------------------------------------------------

/// The lines under the heading `heading` (e.g. `## summary.json`), up to
/// the next heading of the same or a higher level.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let start = text
        .lines()
        .scan(0, |at, line| {
            let here = *at;
            *at += line.len() + 1;
            Some((here, line))
        })
        .find(|(_, line)| line.trim_end() == heading)
        .map(|(at, line)| at + line.len() + 1)
        .unwrap_or_else(|| panic!("docs/reference.md has no heading `{heading}`"));
    let rest = &text[start.min(text.len())..];
    let mut end = rest.len();
    let mut at = 0;
    for line in rest.lines() {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if hashes > 0 && hashes <= level && line[hashes..].starts_with(' ') {
            end = at;
            break;
        }
        at += line.len() + 1;
    }
    &rest[..end]
}

/// One table row: the backticked names of its first cell, and its cells.
struct Row {
    keys: Vec<String>,
    cells: Vec<String>,
}

fn backticked(cell: &str) -> Vec<String> {
    let re = Regex::new(r"`([^`]+)`").unwrap();
    re.captures_iter(cell).map(|c| c[1].to_string()).collect()
}

/// The body rows of every table in `text`.
fn rows(text: &str) -> Vec<Row> {
    text.lines()
        .map(str::trim)
        .filter(|l| l.starts_with('|') && !l.starts_with("|---"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect::<Vec<_>>()
        })
        .filter(|cells| !cells[0].is_empty() && cells[0].starts_with('`'))
        .map(|cells| Row {
            keys: backticked(&cells[0]),
            cells,
        })
        .collect()
}

/// `<prompt>`, `<strategy>` ... all read as `<>`, as a map key of the code.
fn normalise(key: &str) -> String {
    Regex::new(r"<[^>]*>")
        .unwrap()
        .replace_all(key, "<>")
        .into_owned()
}

fn reference() -> String {
    read("docs/reference.md")
}

// --- serde structs, read from their source ---------------------------------

#[derive(Debug, Clone)]
struct Field {
    /// The names serde reads or writes: the field's (or its `rename`), and
    /// when reading its `alias`es.
    names: Vec<String>,
    ty: String,
    flatten: bool,
}

/// Every `struct Name { ... }` of `source` with its fields' names: as
/// read (`aliases`: a serde `alias` is accepted too) or as written.
fn structs(source: &str, aliases: bool) -> BTreeMap<String, Vec<Field>> {
    let head =
        Regex::new(r"(?m)^[ \t]*(?:pub(?:\([^)]*\))?[ \t]+)?struct[ \t]+(\w+)[^;{(]*\{").unwrap();
    let mut out = BTreeMap::new();
    for m in head.captures_iter(source) {
        let name = m[1].to_string();
        let whole = m.get(0).unwrap();
        // The container's attributes: the lines right above it.
        let above: Vec<&str> = source[..whole.start()]
            .lines()
            .rev()
            .take_while(|l| {
                let l = l.trim();
                l.starts_with("#[") || l.starts_with("///") || l.starts_with("//")
            })
            .collect();
        assert!(
            !above.iter().any(|l| l.contains("rename_all")),
            "struct {name}: `rename_all` renames its keys; teach tests/docs_reference.rs to apply it"
        );
        let body_start = whole.end();
        let mut depth = 1;
        let mut body_end = body_start;
        for (i, c) in source[body_start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                body_end = body_start + i;
                break;
            }
        }
        out.insert(name, fields(&source[body_start..body_end], aliases));
    }
    out
}

/// The fields of a struct body, split at top-level commas.
fn fields(body: &str, aliases: bool) -> Vec<Field> {
    let decl = Regex::new(r"^(?:pub(?:\([^)]*\))?\s+)?(r#)?(\w+)\s*:\s*(.+)$").unwrap();
    let rename = Regex::new(r#"\brename\s*=\s*"([^"]+)""#).unwrap();
    let alias = Regex::new(r#"\balias\s*=\s*"([^"]+)""#).unwrap();
    let skip = Regex::new(r"\bskip(_serializing|_deserializing)?\s*[,)]").unwrap();
    let mut chunks = Vec::new();
    let (mut depth, mut current) = (0i32, String::new());
    let mut in_comment = false;
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if in_comment {
            if c == '\n' {
                in_comment = false;
                current.push('\n');
            }
            continue;
        }
        if c == '/' && chars.peek() == Some(&'/') {
            in_comment = true;
            continue;
        }
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                chunks.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    chunks.push(current);
    let mut out = Vec::new();
    for chunk in chunks {
        let mut attrs = String::new();
        let mut rest = String::new();
        for line in chunk.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if line.starts_with("#[") {
                attrs.push_str(line);
            } else {
                rest.push_str(line);
                rest.push(' ');
            }
        }
        let rest = rest.trim();
        if rest.is_empty() {
            continue;
        }
        let d = decl
            .captures(rest)
            .unwrap_or_else(|| panic!("cannot read the field declaration `{rest}`"));
        if attrs.contains("serde(") && skip.is_match(&attrs) {
            continue;
        }
        let mut names = vec![
            rename
                .captures(&attrs)
                .map_or_else(|| d[2].to_string(), |r| r[1].to_string()),
        ];
        if aliases {
            names.extend(alias.captures_iter(&attrs).map(|a| a[1].to_string()));
        }
        out.push(Field {
            names,
            ty: d[3].trim().to_string(),
            flatten: attrs.contains("flatten"),
        });
    }
    out
}

/// What a field's type holds: the suffix of its key path for the values
/// (`""` one value, `"[]"` a list, `".<>"` a map, `".<>[]"` a map to lists)
/// and the struct (of `known`) they are, if any.
fn shape(ty: &str, known: &BTreeMap<String, Vec<Field>>) -> (&'static str, Option<String>) {
    let mut ty = ty.trim();
    while let Some(inner) = ty.strip_prefix("Option<").and_then(|t| t.strip_suffix('>')) {
        ty = inner.trim();
    }
    let named = |t: &str| -> Option<String> {
        let last = Regex::new(r"(\w+)\s*(?:>|;|\]|$)").unwrap();
        last.captures_iter(t)
            .map(|c| c[1].to_string())
            .find(|n| known.contains_key(n))
    };
    let list = |t: &str| t.starts_with("Vec<") || t.starts_with('[');
    if ty.contains("Map<") {
        // The value type is the map's last argument.
        let value = ty.rsplit(',').next().unwrap_or(ty).trim();
        let suffix = if list(value) { ".<>[]" } else { ".<>" };
        (suffix, named(value))
    } else if list(ty) {
        ("[]", named(ty))
    } else {
        ("", named(ty))
    }
}

/// Walks the structs from `root`: every key path (`a.b`, `list[].c`,
/// `map.<>.d`), and where each struct occurs.
fn walk(
    known: &BTreeMap<String, Vec<Field>>,
    root: &str,
) -> (BTreeSet<String>, BTreeMap<String, BTreeSet<String>>) {
    fn go(
        known: &BTreeMap<String, Vec<Field>>,
        name: &str,
        prefix: &str,
        keys: &mut BTreeSet<String>,
        at: &mut BTreeMap<String, BTreeSet<String>>,
        depth: usize,
    ) {
        assert!(depth < 12, "{name}: the structs nest too deep (a cycle?)");
        at.entry(name.to_string())
            .or_default()
            .insert(prefix.to_string());
        for field in &known[name] {
            if field.flatten {
                if let ("", Some(inner)) = shape(&field.ty, known) {
                    go(known, &inner, prefix, keys, at, depth + 1);
                }
                continue;
            }
            for n in &field.names {
                let path = if prefix.is_empty() {
                    n.clone()
                } else {
                    format!("{prefix}.{n}")
                };
                keys.insert(path.clone());
                match shape(&field.ty, known) {
                    // A struct holding its own kind (summary.json's `models`
                    // holds summaries): one key for it, documented as "the
                    // fields above".
                    (suffix, Some(inner)) if inner == name => {
                        keys.insert(format!("{path}{suffix}"));
                    }
                    (suffix, Some(inner)) => go(
                        known,
                        &inner,
                        &format!("{path}{suffix}"),
                        keys,
                        at,
                        depth + 1,
                    ),
                    (suffix, None) if suffix.starts_with('.') => {
                        keys.insert(format!("{path}{suffix}"));
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(known.contains_key(root), "no struct {root} found");
    let (mut keys, mut at) = (BTreeSet::new(), BTreeMap::new());
    go(known, root, "", &mut keys, &mut at, 0);
    (keys, at)
}

/// The documented rows of a section, by normalised key.
fn documented(text: &str) -> BTreeMap<String, String> {
    rows(text)
        .into_iter()
        .flat_map(|row| {
            let meaning = row.cells.last().cloned().unwrap_or_default();
            row.keys
                .into_iter()
                .map(move |k| (normalise(&k), meaning.clone()))
        })
        .collect()
}

/// Whether `parent.field` is documented: as a row, as a row below it
/// (`field.x`, `field[]`), or named in its parent's row.
fn covered(docs: &BTreeMap<String, String>, parent: &str, field: &str) -> bool {
    let path = if parent.is_empty() {
        field.to_string()
    } else {
        format!("{parent}.{field}")
    };
    docs.contains_key(&path)
        || docs
            .keys()
            .any(|k| k.starts_with(&format!("{path}.")) || k.starts_with(&format!("{path}[")))
        || docs
            .get(parent)
            .is_some_and(|meaning| backticked(meaning).iter().any(|n| n == field))
}

/// Every serialized field of every struct reachable from `root` is
/// documented at one of the places that struct occurs.
fn undocumented_fields(
    known: &BTreeMap<String, Vec<Field>>,
    root: &str,
    docs: &BTreeMap<String, String>,
) -> Vec<String> {
    let (_, at) = walk(known, root);
    let mut missing = Vec::new();
    for (name, places) in &at {
        for field in &known[name] {
            if field.flatten {
                continue;
            }
            for n in &field.names {
                if !places.iter().any(|p| covered(docs, p, n)) {
                    missing.push(format!("{name}.{n} (at {places:?})"));
                }
            }
        }
    }
    missing
}

// --- (a) environment variables ---------------------------------------------

fn documented_variables() -> BTreeSet<String> {
    rows(section(&reference(), "## Environment variables"))
        .into_iter()
        .flat_map(|r| r.keys)
        .collect()
}

#[test]
fn every_prompteval_variable_the_code_reads_is_in_the_reference() {
    let literal = Regex::new(r#""(PROMPTEVAL_[A-Z0-9_]+)""#).unwrap();
    let by_name = Regex::new(r#"\b(?:var|var_os|get)\("([A-Z][A-Z0-9_]*)"\)"#).unwrap();
    let documented = documented_variables();
    let mut read = BTreeMap::new();
    for path in files("src", ".rs") {
        let text = std::fs::read_to_string(&path).unwrap();
        for c in literal
            .captures_iter(&text)
            .chain(by_name.captures_iter(&text))
        {
            read.entry(c[1].to_string()).or_insert(path.clone());
        }
    }
    assert!(
        read.contains_key("PROMPTEVAL_SUITE") && read.contains_key("HOME"),
        "the search found too little: {read:?}"
    );
    let missing: Vec<String> = read
        .iter()
        .filter(|(name, _)| !documented.contains(*name))
        .map(|(name, path)| {
            format!(
                "{name} (read in {})",
                path.strip_prefix(root()).unwrap().display()
            )
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/reference.md's environment tables lack: {missing:#?}"
    );
}

#[test]
fn every_documented_prompteval_variable_is_read_somewhere() {
    let mut text = String::new();
    for (dir, ext) in [
        ("src", ".rs"),
        ("tests", ".rs"),
        ("benches", ".rs"),
        ("benches", ".py"),
        ("scripts", ".sh"),
        (".ci", "run"),
    ] {
        for path in files(dir, ext) {
            text.push_str(&std::fs::read_to_string(path).unwrap());
        }
    }
    let used: BTreeSet<String> = Regex::new(r"PROMPTEVAL_[A-Z0-9_]*[A-Z0-9]")
        .unwrap()
        .find_iter(&text)
        .map(|m| m.as_str().to_string())
        .collect();
    let stale: Vec<String> = documented_variables()
        .into_iter()
        .filter(|v| v.starts_with("PROMPTEVAL_"))
        .filter(|v| !used.contains(v))
        .collect();
    assert!(
        stale.is_empty(),
        "docs/reference.md documents variables nothing reads: {stale:?}"
    );
}

// --- (b) harness.toml ------------------------------------------------------

fn config_structs() -> BTreeMap<String, Vec<Field>> {
    let mut known = BTreeMap::new();
    for path in files("src/config", ".rs") {
        known.extend(structs(&std::fs::read_to_string(path).unwrap(), true));
    }
    known
}

/// (key, type cell, default cell) of every harness.toml row.
fn documented_config() -> Vec<(String, String, String)> {
    rows(section(&reference(), "## harness.toml"))
        .into_iter()
        .flat_map(|r| {
            let (ty, default) = (r.cells[1].clone(), r.cells[2].clone());
            r.keys
                .into_iter()
                .map(move |k| (k, ty.clone(), default.clone()))
        })
        .collect()
}

/// The keys serde accepts in harness.toml: leaves only (a table such as
/// `llm` is the rows under it).
fn accepted_keys() -> BTreeSet<String> {
    let known = config_structs();
    let (keys, _) = walk(&known, "ConfigFile");
    let tables: BTreeSet<String> = keys
        .iter()
        .flat_map(|k| {
            // Every dotted prefix is a table (`gate.models` of
            // `gate.models.<>.min_accuracy`), and what precedes a `[]`.
            let dots = k.match_indices('.').map(|(i, _)| k[..i].to_string());
            let arrays = k.split_once("[]").map(|(t, _)| t.to_string());
            dots.chain(arrays).collect::<Vec<_>>()
        })
        .collect();
    keys.into_iter()
        .filter(|k| !tables.contains(k) && !tables.contains(&format!("{k}[]")))
        .collect()
}

#[test]
fn every_harness_toml_key_of_the_config_structs_is_in_the_reference() {
    let accepted = accepted_keys();
    for sure in [
        "suite",
        "llm.temperature",
        "history.fit_window",
        "variants.writer.model",
        "endpoints[].slots",
        "gate.prompts.<>",
        "ollama.host",
    ] {
        assert!(
            accepted.contains(sure),
            "the struct walk missed {sure}: {accepted:?}"
        );
    }
    let documented: BTreeSet<String> = documented_config()
        .iter()
        .map(|(k, _, _)| normalise(k))
        .collect();
    let missing: Vec<&String> = accepted.difference(&documented).collect();
    assert!(
        missing.is_empty(),
        "harness.toml accepts keys docs/reference.md does not list: {missing:?}"
    );
}

/// A TOML value for a documented key: its default when that is a TOML
/// value, else the first TOML value its type names, else one of its type.
fn sample_value(key: &str, ty: &str, default: &str) -> String {
    let is_value = |v: &str| toml::from_str::<toml::Table>(&format!("v = {v}")).is_ok();
    let first = |cell: &str| backticked(cell).into_iter().next();
    if default.starts_with('`')
        && let Some(v) = first(default).filter(|v| is_value(v))
    {
        return v;
    }
    if let Some(v) = backticked(ty).into_iter().find(|v| is_value(v)) {
        return v;
    }
    match ty.split_whitespace().next().unwrap_or("") {
        "string" | "path" => "\"x\"".into(),
        "integer" => "2".into(),
        "number" => "2.5".into(),
        "boolean" => "true".into(),
        "percent" => "50".into(),
        "list" => "[1]".into(),
        other => panic!("{key}: no sample value for the type `{other}` ({ty})"),
    }
}

/// harness.toml text setting `key` (a documented key) to `value`.
fn toml_setting(key: &str, value: &str) -> String {
    let key = Regex::new(r"<[^>]*>")
        .unwrap()
        .replace_all(key, "prompt1")
        .into_owned();
    if let Some((array, leaf)) = key.split_once("[].") {
        // Each array's required key, unless it is the one being set.
        let (required, sample) = match array {
            "models" => ("name", "\"m\""),
            _ => ("url", "\"http://127.0.0.1:1/v1\""),
        };
        let head = if leaf == required {
            String::new()
        } else {
            format!("{required} = {sample}\n")
        };
        if let Some((inner, inner_leaf)) = leaf.split_once("[].") {
            let url = if inner_leaf == "url" {
                String::new()
            } else {
                "url = \"http://127.0.0.1:1/v1\"\n".into()
            };
            return format!(
                "[[{array}]]\n{head}[[{array}.{inner}]]\n{url}{inner_leaf} = {value}\n"
            );
        }
        return format!("[[{array}]]\n{head}{leaf} = {value}\n");
    }
    // Keys the reference says come with others: the budget's prices go in
    // pairs, and a cost cap needs both.
    let companions = match key.as_str() {
        "budget.max_cost" => "price_in = 1.0\nprice_out = 1.0\n",
        "budget.price_in" => "price_out = 1.0\n",
        "budget.price_out" => "price_in = 1.0\n",
        _ => "",
    };
    match key.rsplit_once('.') {
        Some((table, leaf)) => format!("[{table}]\n{leaf} = {value}\n{companions}"),
        None => format!("{key} = {value}\n"),
    }
}

fn load(toml: &str) -> Result<Config, String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("harness.toml"), toml).unwrap();
    Config::load(&[("PROMPTEVAL_DOCS_TEST_NOTHING", "")], dir.path()).map_err(|e| e.to_string())
}

#[test]
fn every_documented_harness_toml_key_is_accepted_by_the_loader() {
    let rows = documented_config();
    assert!(rows.len() > 30, "too few harness.toml rows: {}", rows.len());
    let mut refused = Vec::new();
    for (key, ty, default) in &rows {
        let value = sample_value(key, ty, default);
        let toml = toml_setting(key, &value);
        if let Err(e) = load(&toml) {
            refused.push(format!("{key}: {toml:?} -> {e}"));
        }
    }
    assert!(
        refused.is_empty(),
        "Config::load refuses keys (or defaults) docs/reference.md lists: {refused:#?}"
    );
}

#[test]
fn the_loader_refuses_unknown_keys_in_every_documented_table() {
    let tables: BTreeSet<String> = documented_config()
        .iter()
        .map(|(k, _, _)| match k.split_once("[].") {
            Some((array, _)) => format!("{array}[]"),
            None => k
                .rsplit_once('.')
                .map(|(t, _)| t.to_string())
                .unwrap_or_default(),
        })
        .filter(|t| !t.contains('<'))
        .collect();
    assert!(tables.contains("") && tables.contains("llm") && tables.contains("endpoints[]"));
    for table in tables {
        let key = if table.is_empty() {
            "not_a_documented_key".to_string()
        } else {
            format!("{table}.not_a_documented_key")
        };
        let toml = toml_setting(&key, "1");
        let result = load(&toml);
        assert!(
            result
                .as_ref()
                .is_err_and(|e| e.contains("not_a_documented_key")),
            "[{table}] accepts an unknown key, so a listed key proves nothing: {toml:?} -> {:?}",
            result.map(|_| ())
        );
    }
}

// --- (c) summary.json and the journal --------------------------------------

fn report_structs() -> BTreeMap<String, Vec<Field>> {
    let mut known = BTreeMap::new();
    for file in [
        "src/results/summary.rs",
        "src/results/run_info.rs",
        "src/results/figures.rs",
        "src/results/race.rs",
        "src/ask/cache.rs",
        "src/case.rs",
    ] {
        known.extend(structs(&read(file), false));
    }
    known
}

#[test]
fn every_summary_json_field_is_in_the_reference() {
    let known = report_structs();
    let reference = reference();
    let docs = documented(section(&reference, "## summary.json"));
    let (keys, _) = walk(&known, "Summary");
    for sure in [
        "test_id",
        "prompt_results.<>.accuracy",
        "best_prompt.versus_runner_up.p_value",
        "partial_order.<>.curves.<>[].label",
        "cache.hits",
    ] {
        assert!(
            keys.contains(sure),
            "the struct walk missed {sure}: {keys:?}"
        );
    }
    // A one-model run's summary.json, and a multi-model run's own fields
    // (each of its `models` is a `Summary`, walked above).
    let mut missing = undocumented_fields(&known, "Summary", &docs);
    for field in known["ModelsSummary"].iter().filter(|f| !f.flatten) {
        for n in field.names.iter().filter(|n| !covered(&docs, "", n)) {
            missing.push(format!("ModelsSummary.{n}"));
        }
    }
    assert!(
        missing.is_empty(),
        "summary.json fields docs/reference.md does not list: {missing:#?}"
    );
}

#[test]
fn every_journal_field_is_in_the_reference() {
    let known = report_structs();
    let reference = reference();
    let docs = documented(section(&reference, "### journal.jsonl"));
    let missing = undocumented_fields(&known, "CaseRecord", &docs);
    assert!(
        missing.is_empty(),
        "journal.jsonl fields docs/reference.md does not list: {missing:#?}"
    );
}

/// One journal record of prompt `p`, question `q` (1 or 2), round `r`.
fn record(p: &str, q: usize, r: u32, correct: bool) -> prompteval::case::CaseRecord {
    let id = ["", "a", "b"][q];
    serde_json::from_value(serde_json::json!({
        "case": {"prompt": p, "question": q, "question_id": id, "round": r},
        "name": format!("{p}::{id}::r{r}"),
        "verdict": if correct { "correct" } else { "wrong_answer" },
        "question": "Print 1", "expected": "1", "actual": if correct { "1" } else { "2" },
        "template": "{question}", "prompt": "Print 1",
        "model": "m", "backend": "replay",
        "tokens": {"prompt": 10, "completion": 5}, "finish_reason": "stop",
        "llm_secs": 0.1, "exec_secs": 0.01, "finished_at": "2026-01-01T00:00:00Z"
    }))
    .expect("a journal record")
}

#[test]
fn every_key_of_a_summary_the_library_writes_is_in_the_reference() {
    let info: prompteval::report::RunInfo = serde_json::from_value(serde_json::json!({
        "test_id": "test_20260101_000000", "timestamp": "2026-01-01T00:00:00",
        "total_execution_time": 1.0, "suite": "s.json", "model": "m",
        "backend": "replay", "endpoint": "recordings", "rounds": 2,
        "prompts": [["p1", "{question}"], ["p2", "{question}"]],
        "question_count": 2, "planned_cases": 8, "complete": true,
        "isolation": {}, "thresholds": {"p1": 50.0}
    }))
    .expect("run info");
    let mut records = Vec::new();
    for r in 1..=2 {
        for q in 1..=2 {
            records.push(record("p1", q, r, true));
            records.push(record("p2", q, r, q == 1 || r == 1));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    prompteval::publish::write_all(dir.path(), &info, &records).expect("the report");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap())
            .unwrap();
    let reference = reference();
    let docs = documented(section(&reference, "## summary.json"));
    let mut missing = BTreeSet::new();
    let mut check = |parent: &str, object: &serde_json::Value| {
        for key in object.as_object().expect("an object").keys() {
            if !covered(&docs, parent, key) {
                missing.insert(
                    format!("{parent}.{key}")
                        .trim_start_matches('.')
                        .to_string(),
                );
            }
        }
    };
    check("", &summary);
    for result in summary["prompt_results"].as_object().unwrap().values() {
        check("prompt_results.<>", result);
        check("prompt_results.<>.rounds", &result["rounds"]);
        check("prompt_results.<>.tokens", &result["tokens"]);
    }
    check("best_prompt", &summary["best_prompt"]);
    check(
        "best_prompt.versus_runner_up",
        &summary["best_prompt"]["versus_runner_up"],
    );
    assert!(
        summary["prompt_results"]["p1"]["rounds"].is_object()
            && summary["prompt_results"]["p1"]["gate_passed"] == true,
        "the summary lacks what this test means to check: {summary:#}"
    );
    assert!(
        missing.is_empty(),
        "the library writes summary.json keys docs/reference.md does not list: {missing:?}"
    );
}

// --- (d) the documents themselves ------------------------------------------

fn documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md")];
    docs.extend(files("docs", ".md"));
    docs
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces
/// as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut in_code = false;
    let mut out = BTreeSet::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.insert(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn the_links_of_the_readme_and_docs_resolve() {
    let link = Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut broken = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let name = doc.strip_prefix(root()).unwrap().display().to_string();
        for c in link.captures_iter(&text) {
            let target = &c[1];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                doc.clone()
            } else {
                doc.parent().unwrap().join(file)
            };
            if !path.exists() {
                broken.push(format!("{name}: {target} (no such file)"));
            } else if !fragment.is_empty() && path.is_file() {
                let headings = anchors(&std::fs::read_to_string(&path).unwrap());
                if !headings.contains(fragment) {
                    broken.push(format!("{name}: {target} (no such heading)"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links: {broken:#?}");
}

#[test]
fn no_example_shows_a_machines_own_paths() {
    let mut found = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (n, line) in text.lines().enumerate() {
            if ["/work/", "/home/", "/root/"]
                .iter()
                .any(|p| line.contains(p))
            {
                found.push(format!(
                    "{}:{}: {line}",
                    doc.strip_prefix(root()).unwrap().display(),
                    n + 1
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "paths of one machine (write them relative to the crate): {found:#?}"
    );
}

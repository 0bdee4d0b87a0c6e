//! Replies captured as insta snapshots, one file per case:
//! `<snapshot_dir>/<suite stem>/<model>/<prompt>__<question id>__r<round>.snap`.
//!
//! A live run never fails a case because a reply changed: insta runs with
//! force-pass (set by the harness), so a changed reply becomes a pending
//! `.snap.new` for `cargo insta review` (outside CI), and the case records
//! whether its reply was new, unchanged or changed. The replay backend reads
//! the same files back.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::ask::request::PromptInputs;
use crate::backend::{RequestKey, Usage};
use crate::case::{CaseId, SnapshotState};

/// The snapshots of one suite and model.
#[derive(Debug, Clone)]
pub struct SnapshotStore {
    dir: PathBuf,
}

/// A stored reply, the request it answered and what that request was built from.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub reply: String,
    pub description: Option<String>,
    /// `None` when the snapshot holds no readable request: it can answer nothing.
    pub request: Option<RequestKey>,
    pub inputs: Option<PromptInputs>,
    /// The server's figures for the recorded reply (recordings made before
    /// they were kept have none).
    pub usage: Option<Usage>,
    /// Seconds the recorded call took, from the request to the reply's end.
    pub llm_secs: Option<f64>,
    /// The reasoning that came with the reply, shown as recorded.
    pub reasoning: Option<String>,
}

/// What goes into a snapshot's metadata (`info:`): enough to reproduce the
/// call and to tell, later, why another request differs from it.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotInfo<'a> {
    pub model: &'a str,
    pub backend: &'a str,
    pub endpoint: &'a str,
    /// What was sent: model, messages (the system prompt that applied and
    /// the user message) and the options that reached the server. Transport
    /// settings and harness.toml's unused `system_prompt` are not recorded.
    pub request: &'a RequestKey,
    pub inputs: &'a PromptInputs,
    /// Replayed cases carry the recorded call's tokens and finish reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<&'a Usage>,
    /// Seconds the call took; a replay reports them as recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_secs: Option<f64>,
    /// A reasoning model's reasoning (the snapshot's body is its answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<&'a str>,
}

/// The part of `info:` that replay reads back.
#[derive(Deserialize, Default)]
struct StoredInfo {
    request: Option<RequestKey>,
    inputs: Option<PromptInputs>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    llm_secs: Option<f64>,
    #[serde(default)]
    reasoning: Option<String>,
}

/// The request key stored in a snapshot's metadata. insta exposes the
/// metadata only through `private_info` (doc-hidden but public; insta is
/// pinned in Cargo.lock, and a change there fails the replay tests).
fn stored_info(snapshot: &insta::Snapshot) -> StoredInfo {
    snapshot
        .metadata()
        .private_info()
        .and_then(|content| serde_json::to_value(content).ok())
        .and_then(|value| serde_json::from_value::<StoredInfo>(value).ok())
        .unwrap_or_default()
}

/// What a recording answers: its request and what that was built from. Not
/// the server's figures, whose timings differ on every call.
fn answered(snapshot: &insta::Snapshot) -> (Option<RequestKey>, Option<PromptInputs>) {
    let info = stored_info(snapshot);
    (info.request, info.inputs)
}

/// insta's comparison plus the request: a reply recorded for another request
/// is not "unchanged", so a live run rewrites (or proposes) the snapshot with
/// the request it really answered, and replay never serves a stale pairing.
struct SameReplySameRequest;

impl insta::Comparator for SameReplySameRequest {
    fn matches(&self, reference: &insta::Snapshot, test: &insta::Snapshot) -> bool {
        insta::DefaultComparator.matches(reference, test) && answered(reference) == answered(test)
    }

    fn dyn_clone(&self) -> Box<dyn insta::Comparator> {
        Box::new(SameReplySameRequest)
    }
}

/// Folder name for a model: `qwen2.5-coder:1.5b` -> `qwen2.5-coder_1.5b`.
pub fn model_folder(model: &str) -> String {
    model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The `source:` line of every recording. insta writes the path of the file
/// that asserts; fixed here so that recordings stay byte for byte what they
/// were when this module lived at `src/snapshot.rs`, and so that a user's
/// crate that depends on prompteval gets no path of its cargo home in them.
/// Pinned with insta's version: `_macro_support` is what its macros call.
pub const SOURCE_HEADER: &str = "src/snapshot.rs";

impl SnapshotStore {
    pub fn new(root: &Path, suite_stem: &str, model: &str) -> SnapshotStore {
        SnapshotStore {
            dir: root.join(suite_stem).join(model_folder(model)),
        }
    }

    /// A store at an existing model folder.
    pub fn at(dir: PathBuf) -> SnapshotStore {
        SnapshotStore { dir }
    }

    /// The model that recorded these snapshots, from their description.
    pub fn recorded_model(&self) -> Option<String> {
        let description = self.any_description()?;
        description.split(" via ").next().map(str::to_string)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn path(&self, case: &CaseId) -> PathBuf {
        self.dir.join(format!("{}.snap", case.snapshot_name()))
    }

    /// How many snapshots the store holds (0 when the folder is missing).
    pub fn count(&self) -> usize {
        self.names().len()
    }

    /// The snapshot names (`<prompt>__<id>__r<round>`) the store holds.
    pub fn names(&self) -> HashSet<String> {
        std::fs::read_dir(&self.dir)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .filter_map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        name.strip_suffix(".snap").map(str::to_string)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The description of any one snapshot: which model and server recorded them.
    pub fn any_description(&self) -> Option<String> {
        let entry = std::fs::read_dir(&self.dir)
            .ok()?
            .filter_map(Result::ok)
            .find(|e| e.path().extension().is_some_and(|x| x == "snap"))?;
        insta::Snapshot::from_file(&entry.path())
            .ok()?
            .metadata()
            .description()
            .map(str::to_string)
    }

    pub fn read(&self, case: &CaseId) -> Option<Recorded> {
        read_recording(&self.path(case))
    }

    /// The first `n` recordings by name.
    pub fn first(&self, n: usize) -> Vec<Recorded> {
        let mut names: Vec<String> = self.names().into_iter().collect();
        names.sort();
        names
            .iter()
            .take(n)
            .filter_map(|name| read_recording(&self.dir.join(format!("{name}.snap"))))
            .collect()
    }

    /// Compares `reply` with the stored snapshot and hands it to insta, which
    /// writes a new or pending snapshot according to INSTA_UPDATE.
    pub fn capture(
        &self,
        case: &CaseId,
        reply: &str,
        description: &str,
        info: &SnapshotInfo,
    ) -> SnapshotState {
        let state = match self.read(case) {
            // A reply recorded for another request says nothing about this one.
            Some(old) if old.request.as_ref() != Some(info.request) => SnapshotState::New,
            None => SnapshotState::New,
            Some(old) if normalise(&old.reply) == normalise(reply) => SnapshotState::Unchanged,
            Some(_) => SnapshotState::Changed,
        };
        let mut settings = insta::Settings::clone_current();
        settings.set_comparator(Box::new(SameReplySameRequest));
        settings.set_snapshot_path(&self.dir);
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(description);
        settings.set_info(info);
        let name = case.snapshot_name();
        // insta panics on I/O trouble; a snapshot problem must not lose the case.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            settings.bind(|| {
                // insta's own macro, with the `source:` this file had when the
                // recordings were made (see SOURCE_HEADER).
                let workspace = std::env::current_dir().unwrap_or_default();
                insta::_macro_support::assert_snapshot(
                    (name, reply).into(),
                    &workspace,
                    "prompteval::snapshot::capture",
                    module_path!(),
                    SOURCE_HEADER,
                    line!(),
                    "reply",
                )
                .unwrap()
            });
        }));
        if outcome.is_err() {
            tracing::warn!(case = %case.test_name(), dir = %self.dir.display(), "could not write the reply snapshot; check that the folder is writable");
        }
        state
    }
}

/// A recording's reply and what was stored with it.
fn read_recording(path: &Path) -> Option<Recorded> {
    if !path.exists() {
        return None;
    }
    let snap = insta::Snapshot::from_file(path).ok()?;
    let reply = snap.contents().as_text()?.to_string();
    let info = stored_info(&snap);
    Some(Recorded {
        reply,
        description: snap.metadata().description().map(str::to_string),
        request: info.request,
        inputs: info.inputs,
        usage: info.usage,
        llm_secs: info.llm_secs,
        reasoning: info.reasoning,
    })
}

#[cfg(test)]
impl SnapshotStore {
    /// Writes a snapshot file directly (insta's own writing depends on
    /// INSTA_UPDATE and CI): `info:` as JSON, which YAML reads as a mapping.
    pub(crate) fn write_for_test(&self, case: &CaseId, reply: &str, info: &SnapshotInfo) {
        std::fs::create_dir_all(&self.dir).unwrap();
        let text = format!(
            "---\nsource: {SOURCE_HEADER}\ndescription: \"{} via test\"\ninfo: {}\n---\n{reply}\n",
            info.model,
            serde_json::to_string(info).unwrap()
        );
        std::fs::write(self.path(case), text).unwrap();
    }
}

/// insta's own comparison: trailing whitespace and CRLF do not count.
fn normalise(s: &str) -> String {
    s.trim_end().replace("\r\n", "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_become_folder_names() {
        assert_eq!(model_folder("qwen2.5-coder:1.5b"), "qwen2.5-coder_1.5b");
        assert_eq!(model_folder("library/llama3:8b"), "library_llama3_8b");
    }

    #[test]
    fn a_written_snapshot_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::new(dir.path(), "suite", "m:1");
        let case = CaseId::example(1);
        let file = store.path(&case);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            "---\nsource: src/snapshot.rs\ndescription: \"m:1 via test\"\n---\n```python\nprint(1)\n```\n",
        )
        .unwrap();
        let r = store.read(&case).unwrap();
        assert_eq!(r.reply, "```python\nprint(1)\n```");
        assert_eq!(r.description.as_deref(), Some("m:1 via test"));
        assert_eq!(store.count(), 1);
    }
}

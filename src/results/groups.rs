//! One prompt's records in report order: what every output of a model's
//! report is written from, so no two outputs disagree on what belongs to a
//! prompt.

use std::collections::HashMap;

use super::run_folder::prompt_dir_name;
use super::run_info::RunInfo;
use crate::case::{CaseId, CaseRecord};

/// One prompt's records in report order, shared by every output so they
/// cannot disagree on what belongs to a prompt.
pub(crate) struct PromptGroup<'a> {
    pub name: &'a str,
    pub template: &'a str,
    /// Folder under the run dir for this prompt's `.py` files.
    pub dir: String,
    /// Ordered by round, then question.
    pub cases: Cases<'a>,
}

/// A group's records: in memory, or where they are in the journal.
pub(crate) enum Cases<'a> {
    Memory(Vec<&'a CaseRecord>),
    /// (byte offset, length) of each record's line.
    Journal(Vec<(u64, usize)>),
}

pub(crate) fn group_records<'a>(
    info: &'a RunInfo,
    records: &'a [CaseRecord],
) -> Vec<PromptGroup<'a>> {
    let mut latest: HashMap<&CaseId, &CaseRecord> = HashMap::new();
    for record in records {
        latest.insert(&record.case, record);
    }
    let extra = unknown_prompts(
        info,
        records
            .iter()
            .map(|r| (&*r.case.prompt, r.template.as_str())),
    );
    let located: Vec<(&CaseId, &CaseRecord)> = latest.into_iter().collect();
    groups(info, extra, located, Cases::Memory)
}

/// Prompts of records that are not in the suite, in first-seen order: kept
/// after the suite's, so no result is silently dropped.
pub(crate) fn unknown_prompts<'a>(
    info: &RunInfo,
    prompts: impl Iterator<Item = (&'a str, &'a str)>,
) -> Vec<(&'a str, &'a str)> {
    let mut extra: Vec<(&str, &str)> = Vec::new();
    for (name, template) in prompts {
        if !info.prompts.iter().any(|(n, _)| n == name) && !extra.iter().any(|(n, _)| *n == name) {
            extra.push((name, template));
        }
    }
    extra
}

/// Prompts in suite order (then prompts only the records know), each with
/// its cases ordered by round and question.
pub(crate) fn groups<'a, T>(
    info: &'a RunInfo,
    extra: Vec<(&'a str, &'a str)>,
    mut located: Vec<(&'a CaseId, T)>,
    make: impl Fn(Vec<T>) -> Cases<'a>,
) -> Vec<PromptGroup<'a>> {
    located.sort_by(|(a, _), (b, _)| {
        (&a.prompt, a.round, a.sample, a.question, &a.question_id).cmp(&(
            &b.prompt,
            b.round,
            b.sample,
            b.question,
            &b.question_id,
        ))
    });
    let mut by_prompt: HashMap<&str, Vec<(&'a CaseId, T)>> = HashMap::new();
    for (case, at) in located {
        by_prompt.entry(&*case.prompt).or_default().push((case, at));
    }
    let order = info
        .prompts
        .iter()
        .map(|(name, template)| (name.as_str(), template.as_str()))
        .chain(extra);
    let mut used_dirs = Vec::new();
    let mut out = Vec::new();
    for (name, template) in order {
        let cases = by_prompt.remove(name).unwrap_or_default();
        // A prompt none of whose selected cases could be evaluated, or
        // that a [budget] cap left unasked, still gets a line: "not
        // evaluated" and "not run" must be seen, not silently absent.
        let not_run = info
            .budget
            .as_ref()
            .is_some_and(|b| b.not_run_cases.contains_key(name));
        if cases.is_empty()
            && !not_run
            && !info.not_evaluated.iter().any(|u| &*u.case.prompt == name)
        {
            continue;
        }
        let dir = prompt_dir_name(name, &used_dirs);
        used_dirs.push(dir.clone());
        out.push(PromptGroup {
            name,
            template,
            dir,
            cases: make(cases.into_iter().map(|(_, at)| at).collect()),
        });
    }
    out
}

//! `PROMPTEVAL_SHARD=k/n`: the k-th of n deterministic parts of a run, for
//! spreading a suite over machines. A part is a set of whole chains (a
//! chain's cases share a history, so a chain is never split); chains are
//! dealt round-robin in plan order, so parts differ by at most one chain.
//! `prompteval merge` joins the parts' run folders into one.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::case::{CaseId, ChainId};

/// PROMPTEVAL_SHARD's value (trimmed) is not `k/n`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "PROMPTEVAL_SHARD={value:?} is not k/n with 1 <= k <= n, e.g. PROMPTEVAL_SHARD=2/4 for the second of four parts"
)]
pub struct ShardError {
    pub value: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based.
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// `2/4`; `None` for an empty value.
    pub fn parse(value: &str) -> Result<Option<Shard>, ShardError> {
        let value = value.trim();
        if value.is_empty() {
            return Ok(None);
        }
        let parsed = value.split_once('/').and_then(|(k, n)| {
            Some((k.trim().parse::<u32>().ok()?, n.trim().parse::<u32>().ok()?))
        });
        match parsed {
            Some((index, count)) if index >= 1 && index <= count => {
                Ok(Some(Shard { index, count }))
            }
            _ => Err(ShardError {
                value: value.to_string(),
            }),
        }
    }

    /// The cases of this part, in their order.
    pub fn select(&self, planned: Vec<CaseId>) -> Vec<CaseId> {
        let mut chains: HashMap<ChainId, usize> = HashMap::new();
        planned
            .into_iter()
            .filter(|c| {
                let next = chains.len();
                let i = *chains.entry(c.chain()).or_insert(next);
                i % self.count as usize == (self.index - 1) as usize
            })
            .collect()
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn cases() -> Vec<CaseId> {
        let mut out = Vec::new();
        for q in 1..=3 {
            for round in 1..=2 {
                for p in ["a", "b", "c"] {
                    out.push(CaseId {
                        model: None,
                        prompt: p.into(),
                        question: q,
                        question_id: format!("q{q}").into(),
                        round,
                        sample: None,
                    });
                }
            }
        }
        out
    }

    #[test]
    fn parts_are_whole_chains_cover_everything_once_and_are_stable() {
        let all = cases();
        let parts: Vec<Vec<CaseId>> = (1..=4)
            .map(|k| Shard { index: k, count: 4 }.select(all.clone()))
            .collect();
        let joined: HashSet<&CaseId> = parts.iter().flatten().collect();
        assert_eq!(joined.len(), all.len());
        assert_eq!(parts.iter().map(Vec::len).sum::<usize>(), all.len());
        // 6 chains over 4 parts: 2, 2, 1, 1 chains of 3 cases.
        assert_eq!(parts.iter().map(Vec::len).collect::<Vec<_>>(), [6, 6, 3, 3]);
        for part in &parts {
            let chains: HashSet<ChainId> = part.iter().map(CaseId::chain).collect();
            for other in parts.iter().filter(|o| *o != part) {
                assert!(
                    other.iter().all(|c| !chains.contains(&c.chain())),
                    "a chain is split"
                );
            }
        }
        assert_eq!(Shard { index: 2, count: 4 }.select(all.clone()), parts[1]);
    }

    #[test]
    fn only_k_of_n_parses() {
        assert_eq!(Shard::parse("2/4"), Ok(Some(Shard { index: 2, count: 4 })));
        assert_eq!(Shard::parse(" "), Ok(None));
        for bad in ["0/4", "5/4", "2", "a/b", "2/0"] {
            let e = Shard::parse(bad).unwrap_err().to_string();
            assert!(e.contains("PROMPTEVAL_SHARD") && e.contains("k/n"), "{e}");
        }
    }
}

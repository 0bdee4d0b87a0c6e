//! A labeler's reply, read strictly: the JSON asked for, with every theme
//! in the taxonomy. Anything else is an error that says what was wrong,
//! so the labeler can be asked once more; nothing is guessed.

use serde_json::Value;

use super::taxonomy::{THEMES, parse_entry};

/// Keys a labeler may give an entry's themes under: the paper's prompt
/// asks for `taxonomies`.
const THEME_KEYS: [&str; 4] = ["taxonomies", "themes", "labels", "codes"];
/// Keys a labeler may number a sentence's entry with.
const INDEX_KEYS: [&str; 5] = ["sentence", "index", "number", "n", "id"];

/// The theme codes of a reply to one description, in the taxonomy's
/// order: a JSON list holding one entry (`{"prompt": ..., "taxonomies":
/// [...]}`, as the paper's prompt shows), that entry alone, or the list of
/// themes itself.
pub fn description(reply: &str) -> Result<Vec<String>, String> {
    let value = unwrapped(json_of(reply)?);
    let themes = match &value {
        Value::Array(items) if items.iter().all(Value::is_string) => &value,
        Value::Array(items) => match items.as_slice() {
            [one] => themes_of(one)?,
            _ => {
                return Err(format!(
                    "the reply lists {} entries; one description was asked, so one entry was expected",
                    items.len()
                ));
            }
        },
        Value::Object(_) => themes_of(&value)?,
        _ => return Err("the reply is JSON but neither a list nor an object".into()),
    };
    codes(themes)
}

/// Each of `count` numbered sentences' theme codes, in order: a JSON list
/// with one entry per sentence (numbered from 1 by `sentence`, or in
/// order), or an object from sentence number to themes.
pub fn sentences(reply: &str, count: usize) -> Result<Vec<Vec<String>>, String> {
    let value = unwrapped(json_of(reply)?);
    let mut out: Vec<Option<Vec<String>>> = vec![None; count];
    let mut put = |number: usize, themes: &Value| -> Result<(), String> {
        let slot = number
            .checked_sub(1)
            .and_then(|i| out.get_mut(i))
            .ok_or_else(|| format!("sentence {number} does not exist (there are {count})"))?;
        if slot.is_some() {
            return Err(format!("sentence {number} is labeled twice"));
        }
        *slot = Some(codes(themes)?);
        Ok(())
    };
    match &value {
        Value::Array(items) => {
            let numbered = items.iter().all(|i| index_of(i).is_some());
            if !numbered && items.len() != count {
                return Err(format!(
                    "the reply has {} unnumbered entries for {count} sentences",
                    items.len()
                ));
            }
            for (i, item) in items.iter().enumerate() {
                let number = if numbered {
                    index_of(item).expect("checked")
                } else {
                    i + 1
                };
                let themes = match item {
                    Value::Array(_) => item,
                    _ => themes_of(item)?,
                };
                put(number, themes)?;
            }
        }
        Value::Object(map) => {
            for (key, themes) in map {
                let number = key
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| format!("`{key}` is not a sentence number"))?;
                let themes = match themes {
                    Value::Object(_) => themes_of(themes)?,
                    _ => themes,
                };
                put(number, themes)?;
            }
        }
        _ => return Err("the reply is JSON but neither a list nor an object".into()),
    }
    let missing: Vec<String> = (1..=count)
        .filter(|n| out[n - 1].is_none())
        .map(|n| n.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "sentence(s) {} are not labeled",
            missing.join(", ")
        ));
    }
    Ok(out.into_iter().map(|s| s.expect("checked")).collect())
}

/// A list handed back inside an object of one key (`{"sentences": [...]}`,
/// `{"prompts": [...]}`) is that list; an object with its own theme key
/// is an entry and stays as it is.
fn unwrapped(value: Value) -> Value {
    match value {
        Value::Object(map)
            if map.len() == 1
                && THEME_KEYS.iter().all(|k| !map.contains_key(*k))
                // `{"1": [...]}` is sentence 1's themes, not a wrapper.
                && map.keys().all(|k| k.trim().parse::<usize>().is_err())
                && map.values().all(Value::is_array) =>
        {
            map.into_iter().next().expect("one key").1
        }
        other => other,
    }
}

/// The JSON of a reply: a fenced block's body, else the reply from its
/// first `[` or `{` to its last `]` or `}`.
fn json_of(reply: &str) -> Result<Value, String> {
    let body = fenced(reply).unwrap_or(reply);
    let start = body.find(['[', '{']);
    let end = body.rfind([']', '}']);
    let text = match (start, end) {
        (Some(s), Some(e)) if e > s => &body[s..=e],
        _ => return Err("the reply holds no JSON list or object".into()),
    };
    serde_json::from_str(text).map_err(|e| format!("the reply's JSON does not parse: {e}"))
}

/// The body of the reply's first fenced block.
fn fenced(reply: &str) -> Option<&str> {
    let open = reply.find("```")?;
    let after = &reply[open + 3..];
    let body_start = after.find('\n')? + 1;
    let body = &after[body_start..];
    Some(&body[..body.find("```")?])
}

fn themes_of(entry: &Value) -> Result<&Value, String> {
    let Value::Object(map) = entry else {
        return Err("an entry is not an object with its `taxonomies`".into());
    };
    THEME_KEYS
        .iter()
        .find_map(|k| map.get(*k))
        .ok_or_else(|| "an entry has no `taxonomies` list".into())
}

fn index_of(entry: &Value) -> Option<usize> {
    let Value::Object(map) = entry else {
        return None;
    };
    let v = INDEX_KEYS.iter().find_map(|k| map.get(*k))?;
    match v {
        Value::Number(n) => n.as_u64().map(|n| n as usize),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A list of theme entries to codes, in the taxonomy's order, once each;
/// an entry outside the taxonomy is an error naming it.
fn codes(themes: &Value) -> Result<Vec<String>, String> {
    let Value::Array(items) = themes else {
        return Err("`taxonomies` is not a list".into());
    };
    let mut found = Vec::new();
    for item in items {
        let Value::String(entry) = item else {
            return Err(format!(
                "`{item}` is not a theme (a string such as \"1.1 Task Goal\")"
            ));
        };
        let theme = parse_entry(entry)
            .ok_or_else(|| format!("`{entry}` is not a theme of the taxonomy"))?;
        found.push(theme.code);
    }
    Ok(THEMES
        .iter()
        .filter(|t| found.contains(&t.code))
        .map(|t| t.code.to_string())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_reply_is_the_papers_json_or_its_entry_or_its_list() {
        let paper = "Here:\n```json\n[\n{\"prompt\": \"Sort it.\", \"word_limit\": 10, \"taxonomies\": [\"1.5 Core Behaviour\", \"1.1 Task Goal\"]}\n]\n```";
        assert_eq!(description(paper).unwrap(), ["1.1", "1.5"]);
        assert_eq!(description(r#"{"taxonomies": ["2.3"]}"#).unwrap(), ["2.3"]);
        assert_eq!(
            description(r#"["4.1 Sample I/O Pairs", "4.1"]"#).unwrap(),
            ["4.1"]
        );
        assert_eq!(
            description(r#"[{"taxonomies": []}]"#).unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_theme_outside_the_taxonomy_or_other_json_is_refused_with_why() {
        let e = description(r#"[{"taxonomies": ["1.1 Task Goal", "5.2 Style"]}]"#).unwrap_err();
        assert!(e.contains("`5.2 Style` is not a theme"), "{e}");
        let e = description("I think it has a task goal.").unwrap_err();
        assert!(e.contains("no JSON"), "{e}");
        let e = description(r#"[{"taxonomies": ["1.1"]}, {"taxonomies": ["1.2"]}]"#).unwrap_err();
        assert!(e.contains("2 entries"), "{e}");
        let e = description(r#"[{"taxonomies": ["1.1"]"#).unwrap_err();
        assert!(e.contains("does not parse"), "{e}");
        assert!(description(r#"{"labels": "1.1"}"#).is_err());
    }

    #[test]
    fn sentences_are_numbered_in_order_or_by_key_and_each_once() {
        let numbered = r#"[{"sentence": 2, "taxonomies": ["2.3"]}, {"sentence": 1, "taxonomies": ["1.1", "1.3"]}]"#;
        assert_eq!(
            sentences(numbered, 2).unwrap(),
            [vec!["1.1", "1.3"], vec!["2.3"]]
        );
        assert_eq!(
            sentences(r#"[["1.1"], []]"#, 2).unwrap(),
            [vec!["1.1".to_string()], vec![]]
        );
        assert_eq!(
            sentences(r#"{"1": ["3.4"], "2": {"themes": ["4.1"]}}"#, 2).unwrap(),
            [vec!["3.4"], vec!["4.1"]]
        );
        assert!(
            sentences(numbered, 3)
                .unwrap_err()
                .contains("sentence(s) 3 are not labeled")
        );
        assert!(
            sentences(r#"[["1.1"]]"#, 2)
                .unwrap_err()
                .contains("1 unnumbered entries for 2")
        );
        assert!(
            sentences(r#"{"1": ["1.1"], "1 ": ["1.2"]}"#, 1)
                .unwrap_err()
                .contains("twice")
        );
        assert!(
            sentences(r#"{"4": ["1.1"]}"#, 2)
                .unwrap_err()
                .contains("does not exist")
        );
        assert!(
            sentences(r#"[["9.9"], []]"#, 2)
                .unwrap_err()
                .contains("`9.9`")
        );
        // Wrapped in an object of one key; numbered by text, in order.
        assert_eq!(
            sentences(
                r#"{"sentences": [{"sentence": "Sum it.", "taxonomies": ["1.1"]}, {"sentence": "Empty gives 0.", "taxonomies": ["2.3"]}]}"#,
                2
            )
            .unwrap(),
            [vec!["1.1"], vec!["2.3"]]
        );
        assert_eq!(
            description(r#"{"prompts": [{"taxonomies": ["1.4"]}]}"#).unwrap(),
            ["1.4"]
        );
    }
}

//! How hard a reasoning model thinks: `think` in `[llm]` and in each
//! `[[models]]` table, `PROMPTEVAL_THINK` over both.
//!
//! Unset sends nothing, so the server's default applies (Ollama 0.13+ lets
//! supported models think by default) and every recording made without it
//! still replays. Set, it is part of the request key.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Think {
    /// `true` / `false`: thinking on or off (gpt-oss ignores it).
    On(bool),
    /// `"low"`, `"medium"` or `"high"`: gpt-oss's levels, OpenAI's
    /// `reasoning_effort`.
    Level(Level),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Low,
    Medium,
    High,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Low => "low",
            Level::Medium => "medium",
            Level::High => "high",
        }
    }
}

impl Think {
    /// `true`, `false`, `low`, `medium` or `high`, in any case.
    pub fn parse(text: &str) -> Option<Think> {
        match text.trim().to_ascii_lowercase().as_str() {
            "true" => Some(Think::On(true)),
            "false" => Some(Think::On(false)),
            "low" => Some(Think::Level(Level::Low)),
            "medium" => Some(Think::Level(Level::Medium)),
            "high" => Some(Think::Level(Level::High)),
            _ => None,
        }
    }

    /// As the run's first lines and the reports say it.
    pub fn describe(self) -> String {
        match self {
            Think::On(on) => on.to_string(),
            Think::Level(level) => format!("\"{}\"", level.name()),
        }
    }

    /// Ollama's `think` value.
    pub fn json(self) -> serde_json::Value {
        match self {
            Think::On(on) => serde_json::Value::Bool(on),
            Think::Level(level) => serde_json::Value::String(level.name().into()),
        }
    }
}

impl Serialize for Think {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Think::On(on) => s.serialize_bool(*on),
            Think::Level(level) => s.serialize_str(level.name()),
        }
    }
}

impl<'de> Deserialize<'de> for Think {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Think, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Bool(bool),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Bool(on) => Ok(Think::On(on)),
            Raw::Text(text) => Think::parse(&text).ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "think = {text:?}: expected true, false, \"low\", \"medium\" or \"high\""
                ))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_and_writes_back() {
        for (toml_value, think) in [
            ("true", Think::On(true)),
            ("false", Think::On(false)),
            ("\"low\"", Think::Level(Level::Low)),
            ("\"HIGH\"", Think::Level(Level::High)),
        ] {
            #[derive(Deserialize)]
            struct T {
                think: Think,
            }
            let t: T = toml::from_str(&format!("think = {toml_value}")).unwrap();
            assert_eq!(t.think, think);
        }
        assert_eq!(
            serde_json::to_string(&Think::Level(Level::Medium)).unwrap(),
            "\"medium\""
        );
        assert!(Think::parse("max").is_none());
    }
}

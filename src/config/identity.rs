//! The settings that decide what a model is asked and how its programs are
//! judged, written out: two runs (or a run and its baseline) compare case
//! by case only when these are equal. Addresses, backends, concurrency and
//! timeouts of the server are not among them: they change where a reply
//! comes from, not what is asked.

use std::collections::BTreeMap;

use super::schema::Config;

/// One model's settings as `key = value` text, sorted by key.
pub type Settings = BTreeMap<String, String>;

impl Config {
    /// Each model's settings (`settings` of its configuration), by model.
    pub fn model_settings(&self) -> BTreeMap<String, Settings> {
        self.model_configs()
            .iter()
            .map(|c| (c.model.clone(), c.settings()))
            .collect()
    }

    /// This configuration's settings (a one-model configuration: see
    /// [`Config::model_configs`]).
    pub fn settings(&self) -> Settings {
        let json = |v: serde_json::Value| match v {
            serde_json::Value::String(s) => s,
            serde_json::Value::Null => "none".into(),
            other => other.to_string(),
        };
        let mut out = Settings::new();
        let mut put = |key: &str, value: serde_json::Value| {
            out.insert(key.to_string(), json(value));
        };
        let llm = &self.llm;
        put("model", self.server_model().into());
        put("llm.temperature", llm.temperature.into());
        put("llm.seed", llm.seed.into());
        put("llm.num_ctx", llm.num_ctx.into());
        put("llm.num_predict", llm.num_predict.into());
        put(
            "llm.think",
            serde_json::to_value(llm.think).unwrap_or_default(),
        );
        // A fingerprint: the text can be long and span lines.
        put(
            "llm.system_prompt",
            llm.system_prompt.as_deref().map(fingerprint).into(),
        );
        let h = &self.history;
        put("history.enabled", h.enabled.into());
        put("history.max_entries", h.max_entries.into());
        put("history.max_chars", h.max_chars.into());
        put("history.question_chars", h.question_chars.into());
        put("history.answer_chars", h.answer_chars.into());
        put("history.language", h.language.name().into());
        put("history.fit_window", h.fit_window.into());
        // Only when set: a baseline from before the setting slid by one.
        if h.drop_block != 1 {
            put("history.drop_block", h.drop_block.into());
        }
        let sb = &self.sandbox;
        put("sandbox.timeout_secs", sb.timeout_secs.into());
        put("sandbox.memory_mb", sb.memory_mb.into());
        put("sandbox.output_limit_bytes", sb.output_limit_bytes.into());
        out
    }
}

/// A short, stable fingerprint of a text (16 hex digits of its blake3).
pub fn fingerprint(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex()[..16].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_asked_is_in_the_settings_and_where_is_not() {
        let c = Config::from_file(
            Default::default(),
            Default::default(),
            std::path::Path::new("."),
            None,
        );
        let s = c.settings();
        assert_eq!(s["llm.temperature"], "0.0");
        assert_eq!(s["llm.num_ctx"], "4096");
        assert_eq!(s["history.enabled"], "true");
        assert!(!s.keys().any(|k| k.contains("host") || k.contains("url")));
        let mut other = c.clone();
        other.ollama_host = "http://elsewhere:1".into();
        other.concurrency = 8;
        assert_eq!(
            other.settings(),
            s,
            "where a reply comes from is not a setting"
        );
        other.llm.num_ctx = Some(8192);
        assert_ne!(other.settings(), s);
    }
}

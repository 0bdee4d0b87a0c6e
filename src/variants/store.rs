//! An expanded suite back to the suite format, for review and reuse: the
//! run folder's `variants.json` loads as a suite whose questions carry
//! their `variant`, so running it asks the same prompts without a writer.

use serde_json::{Map, Value, json};

use crate::suite::{CodeLanguage, Match, Question, SETTINGS, Suite};

/// The suite in the format `Suite::parse` reads; `settings.name` keeps the
/// source suite's name, so recordings of the run replay from the copy.
pub fn to_json(suite: &Suite) -> Value {
    let mut top = Map::new();
    let mut settings = Map::new();
    if let Some(s) = &suite.system_prompt {
        settings.insert("system_prompt".into(), json!(s));
    }
    settings.insert("name".into(), json!(suite.stem()));
    // The run settings travel with the expansion: it runs as its source does.
    if let Value::Object(run) =
        serde_json::to_value(&suite.settings).expect("run settings serialise")
    {
        settings.extend(run);
    }
    if let Some(threads) = &suite.threads {
        settings.insert("threads".into(), json!(threads));
    }
    top.insert(SETTINGS.into(), Value::Object(settings));
    for p in &suite.prompts {
        let value = match &p.system_prompt {
            Some(system) => json!({"template": p.template, "system_prompt": system}),
            None => json!(p.template),
        };
        top.insert(p.name.clone(), value);
    }
    top.insert(
        "questions".into(),
        Value::Array(suite.questions.iter().map(question).collect()),
    );
    Value::Object(top)
}

fn question(q: &Question) -> Value {
    let mut out = Map::new();
    out.insert("id".into(), json!(q.id));
    if let Some(kind) = &q.kind {
        out.insert("kind".into(), json!(kind));
    }
    out.insert("question".into(), json!(q.question));
    if !q.answer.is_empty() {
        out.insert("answer".into(), json!(q.answer));
    }
    match q.matcher {
        Match::Exact => {}
        Match::Regex => {
            out.insert("match".into(), json!("regex"));
        }
        Match::Numeric { tolerance } => {
            out.insert("match".into(), json!("numeric"));
            out.insert("tolerance".into(), json!(tolerance));
        }
    }
    let optional = [
        ("tests", &q.tests),
        ("entry_point", &q.entry_point),
        ("reference", &q.reference),
        ("p_top", &q.p_top),
    ];
    for (field, value) in optional {
        if let Some(v) = value {
            out.insert(field.into(), json!(v));
        }
    }
    // A C++ question keeps its language and its check (a Python one is
    // written as it always was).
    if let Some(language) = q.language.filter(|l| *l != CodeLanguage::default()) {
        out.insert("language".into(), json!(language.as_str()));
    }
    if let Some(check) = &q.pareval {
        out.insert(
            "pareval".into(),
            serde_json::to_value(check).expect("a ParEval check serialises"),
        );
    }
    if let Some(v) = &q.variant {
        out.insert(
            "variant".into(),
            serde_json::to_value(v).expect("a variant serialises"),
        );
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_stored_suite_loads_back_equal() {
        let suite = Suite::parse(
            Path::new("bench.json"),
            br#"{"settings": {"system_prompt": "S"}, "t": "{question}", "u": {"template": "U {question}", "system_prompt": "V"},
                 "questions": [
                   {"id": "a", "question": "def a():\n    \"\"\"A.\"\"\"\n", "entry_point": "a", "tests": "assert a() == 1", "reference": "    return 1\n", "p_top": "Return one."},
                   {"id": "b", "kind": "k", "question": "Pi", "answer": "3.14", "match": "numeric", "tolerance": 0.01},
                   {"id": "c", "question": "Hi", "answer": "^H", "match": "regex"}]}"#,
        )
        .unwrap();
        struct Fixed;
        impl super::super::Writer for Fixed {
            type Error = std::convert::Infallible;
            fn p_top(
                &self,
                _: &Question,
                _: &super::super::parts::Parts,
                _: u32,
            ) -> Result<String, Self::Error> {
                Ok("One.\n\nTwo.".into())
            }
            fn summary(&self, _: &Question, _: &str, _: u32) -> Result<String, Self::Error> {
                Ok("Short.".into())
            }
        }
        let expanded = super::super::expand(&suite, 1, super::super::Gates::leak_only(3), &Fixed)
            .unwrap()
            .suite;
        let text = serde_json::to_vec_pretty(&to_json(&expanded)).unwrap();
        let back = Suite::parse(Path::new("elsewhere/variants.json"), &text).unwrap();
        assert_eq!(back.stem(), "bench");
        assert_eq!(back.questions, expanded.questions);
        assert_eq!(back.prompts, expanded.prompts);
        assert_eq!(back.system_prompt, expanded.system_prompt);
    }

    #[test]
    fn a_cpp_suite_keeps_its_language_checks_and_threads() {
        let suite = Suite::parse(
            Path::new("cpp.json"),
            br#"{"settings": {"language": "cpp", "threads": [1, 3]}, "t": "{question}",
                 "questions": [
                   {"id": "a", "question": "Print 1", "answer": "1"},
                   {"id": "b", "question": "void f() {", "entry_point": "f",
                    "pareval": {"name": "b", "problem_type": "t", "parallelism_model": "omp",
                                "driver": "D", "baseline": "B", "problem_size": "(1<<4)"}}]}"#,
        )
        .unwrap();
        let text = serde_json::to_vec_pretty(&to_json(&suite)).unwrap();
        let back = Suite::parse(Path::new("elsewhere/variants.json"), &text).unwrap();
        assert_eq!(back.questions, suite.questions);
        assert_eq!(back.threads, Some(vec![1, 3]));
        assert_eq!(back.questions[0].code_language(), CodeLanguage::Cpp);
    }
}

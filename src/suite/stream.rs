//! Reads a suite's top-level object with its questions parsed one at a
//! time, as the JSON is read. The whole document as a `serde_json::Value`
//! held every question's map at once before any was parsed: about 600
//! bytes a question, the largest allocation of a 100,000-question run's
//! start. Everything else at the top level (templates, settings) is small
//! and stays a `Value` for [`super::TopLevel`].

use std::collections::HashSet;
use std::fmt;
use std::hash::{BuildHasher, RandomState};

use serde::Deserialize as _;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::{Located, Locator, Question, SuiteProblem, parse_question};

/// The top-level `questions` value.
pub(super) enum Questions {
    /// A list, each item parsed as it was read.
    Parsed {
        questions: Vec<Question>,
        items: usize,
        /// The first item that is not a valid question (later items are
        /// read but not parsed).
        first_error: Option<Located>,
    },
    /// Not a list: what it is, for the message.
    Other(Value),
}

/// The top-level keys but `questions`, in file order, and `questions`.
pub(super) fn read_top(
    text: &str,
    locate: &Locator,
) -> Result<(Map<String, Value>, Option<Questions>), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let top = de.deserialize_map(TopVisitor { locate })?;
    de.end()?;
    Ok(top)
}

struct TopVisitor<'a, 'b> {
    locate: &'a Locator<'b>,
}

impl<'de> Visitor<'de> for TopVisitor<'_, '_> {
    type Value = (Map<String, Value>, Option<Questions>);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the suite's top-level object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut top = Map::new();
        let mut questions = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "questions" {
                questions = Some(map.next_value_seed(QuestionsSeed {
                    locate: self.locate,
                })?);
            } else {
                let value = map.next_value::<Value>()?;
                top.insert(key, value);
            }
        }
        Ok((top, questions))
    }
}

struct QuestionsSeed<'a, 'b> {
    locate: &'a Locator<'b>,
}

impl<'de> DeserializeSeed<'de> for QuestionsSeed<'_, '_> {
    type Value = Questions;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Questions, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for QuestionsSeed<'_, '_> {
    type Value = Questions;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the list of questions")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Questions, A::Error> {
        let mut questions: Vec<Question> = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        // Hashes of the ids seen, checked against the questions on a
        // match: a set of the ids themselves was another copy of each.
        let state = RandomState::new();
        let mut seen: HashSet<u64> = HashSet::new();
        let mut first_error = None;
        let mut items = 0;
        while let Some(item) = seq.next_element::<Value>()? {
            let i = items;
            items += 1;
            if first_error.is_some() {
                continue;
            }
            // Lines are looked up only for a message: finding one scans
            // the text, and doing it for every question made loading
            // quadratic.
            let line = || {
                self.locate
                    .question_line(i)
                    .or_else(|| self.locate.top_key_line("questions"))
            };
            let index = i + 1;
            match parse_question(index, &item) {
                Ok(q) => {
                    let fresh = seen.insert(state.hash_one(&q.id));
                    if !fresh && questions.iter().any(|earlier| earlier.id == q.id) {
                        let problem = SuiteProblem::DuplicateId { index, id: q.id };
                        first_error = Some((line(), problem));
                    } else {
                        questions.push(q);
                    }
                }
                Err(e) => first_error = Some((line(), e.into())),
            }
        }
        // The list grew by doubling, unsized: up to half of it was room
        // the run would hold to its end.
        questions.shrink_to_fit();
        Ok(Questions::Parsed {
            questions,
            items,
            first_error,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Questions, A::Error> {
        let value = Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        Ok(Questions::Other(value))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Questions, E> {
        Ok(Questions::Other(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Questions, E> {
        Ok(Questions::Other(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Questions, E> {
        Ok(Questions::Other(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Questions, E> {
        Ok(Questions::Other(v.into()))
    }

    fn visit_str<E>(self, v: &str) -> Result<Questions, E> {
        Ok(Questions::Other(Value::String(v.to_string())))
    }

    fn visit_unit<E>(self) -> Result<Questions, E> {
        Ok(Questions::Other(Value::Null))
    }
}

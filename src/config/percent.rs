//! Gate thresholds in percent, as harness.toml and the environment write
//! them.

use serde::{Deserialize, Serialize};

/// A threshold in percent: `60`, `60.5` or `"60%"`. A bare number in (0, 1]
/// is refused as a likely fraction: `0.6` would gate at 0.6 %, which passes
/// every run, and a gate that never fails is the one mistake a CI gate must
/// not make silently (a warning scrolls past in CI logs). `"0.6%"` says 0.6
/// percent on purpose and is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Percent(pub f64);

/// A threshold that is not a percentage, with the text or number given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PercentError {
    /// The text (trimmed) is not a number, with or without `%`.
    #[error("{0:?} is not a percentage; write e.g. 75 or 75%")]
    NotANumber(String),
    #[error("{0} is not a percentage between 0 and 100; write e.g. 75 or 75%")]
    OutOfRange(f64),
    /// A bare number in (0, 1]: likely a fraction, `meant` percent.
    #[error(
        "{value} looks like a fraction, but thresholds are percentages: it would gate at {value} %. Did you mean {meant}? Write {meant} (or \"{value}%\" if you do mean {value} percent)",
        meant = fraction_as_percent(*.value)
    )]
    Fraction { value: f64 },
}

/// 0.6 -> 60, without the float noise of the multiplication.
fn fraction_as_percent(value: f64) -> f64 {
    (value * 100.0 * 1e6).round() / 1e6
}

impl Percent {
    /// Parses `75`, `75.5` or `75%` (from the environment or a TOML string).
    pub fn parse(text: &str) -> Result<Percent, PercentError> {
        let trimmed = text.trim();
        let (number, sign) = match trimmed.strip_suffix('%') {
            Some(n) => (n.trim(), true),
            None => (trimmed, false),
        };
        let value: f64 = number
            .parse()
            .map_err(|_| PercentError::NotANumber(trimmed.to_string()))?;
        Percent::checked(value, sign)
    }

    fn checked(value: f64, percent_sign: bool) -> Result<Percent, PercentError> {
        if !(value.is_finite() && (0.0..=100.0).contains(&value)) {
            return Err(PercentError::OutOfRange(value));
        }
        if !percent_sign && value > 0.0 && value <= 1.0 {
            return Err(PercentError::Fraction { value });
        }
        Ok(Percent(value))
    }
}

impl<'de> Deserialize<'de> for Percent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(f64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(n) => Percent::checked(n, false),
            Raw::Text(t) => Percent::parse(&t),
        }
        .map_err(serde::de::Error::custom)
    }
}

//! How much of each step the audit copy keeps, and the redaction of the `redacted` level.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;

/// Longest string kept at the `redacted` level, in characters (a longer one is cut and marked).
pub const REDACTED_STRING_LIMIT: usize = 200;

/// How much of each step the audit copy keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Privacy {
    /// Names, timings, flags, sizes, and the artifacts' count and types: no argument, content
    /// or data.
    #[default]
    Metadata,
    /// Everything, with secret-shaped strings and e-mail addresses masked and strings capped.
    Redacted,
    /// Everything as it was.
    Full,
}

impl Privacy {
    /// The level's name, as on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Metadata => "metadata",
            Self::Redacted => "redacted",
            Self::Full => "full",
        }
    }

    /// A string as this level keeps it; `None` at `metadata`.
    pub(crate) fn keep(self, text: &str) -> Option<String> {
        match self {
            Self::Metadata => None,
            Self::Redacted => Some(redact(text)),
            Self::Full => Some(text.to_owned()),
        }
    }

    /// A JSON value as this level keeps it; `None` at `metadata`.
    pub(crate) fn keep_value(self, value: Value) -> Option<Value> {
        match self {
            Self::Metadata => None,
            Self::Redacted => Some(redact_value(&value)),
            Self::Full => Some(value),
        }
    }
}

impl fmt::Display for Privacy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A privacy level name that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown privacy level {0:?}: expected metadata, redacted or full")]
#[non_exhaustive]
pub struct UnknownPrivacy(pub String);

impl FromStr for Privacy {
    type Err = UnknownPrivacy;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "metadata" => Ok(Self::Metadata),
            "redacted" => Ok(Self::Redacted),
            "full" => Ok(Self::Full),
            other => Err(UnknownPrivacy(other.to_owned())),
        }
    }
}

/// Masks secrets and e-mail addresses, then caps the length.
fn redact(text: &str) -> String {
    let masked = toolkit::secrets::mask(text);
    match masked.char_indices().nth(REDACTED_STRING_LIMIT) {
        Some((cut, _)) => format!("{}…[cut]", &masked[..cut]),
        None => masked,
    }
}

/// Every string inside a JSON value redacted, keys included.
fn redact_value(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(redact(text)),
        Value::Array(items) => Value::Array(items.iter().map(redact_value).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(key, value)| (redact(key), redact_value(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

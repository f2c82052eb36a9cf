//! Every step a call's argument text goes through before a `#[tool]` function runs, in one
//! place. [`parse_checked`] is the entry point (the code `#[tool]` generates calls it, through
//! `__private`); a tool written by hand decodes its own arguments and meets none of this.
//!
//! # The steps, in order
//!
//! 1. **The shape** ([`parse_arguments`]). Text that starts with `{` goes on. Empty or
//!    whitespace-only text is `{}` (a tool without parameters, called with nothing). Any other
//!    JSON value is refused as `invalid type: array, expected an object of named arguments`
//!    (likewise `string`, `number`, `boolean`, `null`): arguments are named, never positional;
//!    text that is not JSON is refused as `the arguments are not valid JSON: …`.
//! 2. **The flat reader** ([`flat`], feature `flat-decoder`, on by default). One flat object of
//!    integers, plain strings, booleans and nulls (nearly every call) is read in one pass and
//!    handed to the arguments type value by value, as `serde_json` would hand it; on anything
//!    else, or any error, it gives up and step 3 decodes. Hand-written because it is measured:
//!    with it a call through the seam takes fewer instructions than `serde_json::from_str` alone
//!    (`docs/testing.md`, "Where the time goes"; `peer-bench/instructions.sh` counts them). It
//!    never decides an outcome: its accepted texts are a subset of `serde_json`'s with equal
//!    values, checked by its property tests, `toolkit/fuzz` and `scripts/mutants`.
//! 3. **`serde_json`** into the tool's arguments type: the type a `#[tool]` generates, with a
//!    `Deserialize` derive, or, without parameter attributes, the generic visitor of [`fields`]
//!    (hand-written because it is compiled once for every tool: a `#[tool]` expands to about 160
//!    lines instead of 360, measured by `compile-cost/`; `toolkit/tests/expansion.rs` checks it
//!    gives every value and every error the derive gives).
//! 4. **Whole numbers** ([`numbers`]). When step 3 failed other than in the JSON's syntax, and the
//!    text holds a whole number written with a fraction or an exponent (`1.0`, `1e2`, `-0`,
//!    which JSON Schema's `integer` takes and serde's integer types refuse), each such number is
//!    rewritten as the integer it is, on its digits (never through a float), and step 3 runs once
//!    more on the rewritten text. `toolkit/tests/whole_numbers.rs` checks the rewrite against an
//!    arbitrary-precision decimal.
//! 5. **The error, located** ([`locate`]). An error names the argument it is about
//!    (`filters[0].value`, `.` for the whole), read from the text up to `serde_json`'s position,
//!    and says what was expected in `serde_json`'s words, without its line and column. Two
//!    errors `serde_json` counts as syntax are of valid JSON and located like any other: a number
//!    too large for its type, said as `invalid value: number `…` is out of range, expected …`,
//!    and nesting past 128 levels. Hand-written because `serde_path_to_error`, which finds the
//!    same path, is generic over each tool's arguments type (21 % of the LLVM lines of a crate of
//!    12 tools); `toolkit/tests/locate.rs` checks it against `serde_path_to_error`. The steps
//!    that read `serde_json`'s messages are pinned by `toolkit/tests/serde_json_messages.rs`,
//!    which fails when `serde_json` words them otherwise.
//! 6. **Constraints** ([`constraints`]). Arguments that decoded are checked against what the
//!    tool's schema says beyond their types (a range narrower than the type's, a length, a
//!    pattern) by a JSON Schema validator (feature `constraints`), so a tool never gets a value
//!    its schema told the model it would not.
//!
//! The first step to refuse gives the call's one [`ArgumentError`]: the seam answers the model
//! with it, and the tool does not run.

pub(crate) mod constraints;
pub(crate) mod fields;
#[cfg(feature = "flat-decoder")]
mod flat;
mod locate;
pub(crate) mod numbers;

use serde::de::DeserializeOwned;

/// Decodes a tool's arguments; empty text counts as `{}`. On failure the error names the field
/// path and what was expected.
#[doc(hidden)]
#[inline]
pub fn parse_arguments<T: DeserializeOwned>(arguments: &str) -> Result<T, ArgumentError> {
    // Nearly every call: a flat object from the first byte, decoded in one pass; any other
    // object (and every error) is `serde_json`'s.
    if arguments.as_bytes().first() == Some(&b'{') {
        #[cfg(feature = "flat-decoder")]
        if let Some(decoded) = flat::decode(arguments) {
            return Ok(decoded);
        }
        return decode(arguments);
    }
    decode(object_text(arguments)?)
}

/// The entry point: decodes a tool's arguments like [`parse_arguments`] (steps 1 to 5), then
/// checks them against what `constraints` says beyond their types (step 6; `None` checks
/// nothing): what `#[tool]` calls, with its spec's constraints and schema.
#[doc(hidden)]
#[inline]
pub fn parse_checked<T: DeserializeOwned>(
    arguments: &str,
    constraints: Option<(&constraints::Constraints, &serde_json::Value)>,
) -> Result<T, ArgumentError> {
    let decoded = parse_arguments(arguments)?;
    if let Some((constraints, schema)) = constraints {
        constraints
            .check(schema, arguments)
            .map_err(|violation| ArgumentError::new(violation.path, violation.message))?;
    }
    Ok(decoded)
}

/// The flat decoder alone (`None` where it gives up), for the differential fuzz target
/// (`toolkit/fuzz`).
#[doc(hidden)]
#[cfg(feature = "flat-decoder")]
pub fn flat_decode<'de, T: serde::Deserialize<'de>>(text: &'de str) -> Option<T> {
    flat::decode(text)
}

/// The text to decode of arguments that do not start with `{`: `{}` for nothing at all, the
/// text for an object after whitespace, else why they are not arguments. Not generic: compiled
/// once, whatever the tools.
#[cold]
fn object_text(arguments: &str) -> Result<&str, ArgumentError> {
    // One look at the first byte that is not whitespace: none means no arguments at all.
    let Some(first) = arguments
        .bytes()
        .find(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
    else {
        return Ok("{}");
    };
    // Derived structs would also accept a positional array; arguments are named, always. Text
    // that only starts like a value (`tru`, `[1,`) is not valid JSON, and is said so.
    let Some(found) = not_an_object(first) else {
        return Ok(arguments);
    };
    Err(
        match serde_json::from_str::<serde::de::IgnoredAny>(arguments) {
            Err(error) => {
                ArgumentError::new(".", format!("the arguments are not valid JSON: {error}"))
            }
            Ok(_) => ArgumentError::new(
                ".",
                format!("invalid type: {found}, expected an object of named arguments"),
            ),
        },
    )
}

/// Decodes JSON text; an error says at which field (read from the text up to `serde_json`'s
/// position: no second, path-tracking decoder is compiled per tool). Arguments that did not
/// decode are read once more with each whole number written with a fraction or an exponent
/// (`1.0`, `1e2`, `-0`) written as an integer, when there is one, since JSON Schema's `integer`
/// takes them and serde's integer types do not.
fn decode<T: DeserializeOwned>(text: &str) -> Result<T, ArgumentError> {
    match serde_json::from_str(text) {
        Ok(decoded) => Ok(decoded),
        Err(error) => match retry_text(text, &error) {
            Some(retry) => {
                serde_json::from_str(&retry).map_err(|error| retry_error(text, &retry, &error))
            }
            None => Err(argument_error(text, &error)),
        },
    }
}

/// The error of arguments that failed again once rewritten. Text that is not JSON (found only
/// now when a value's type failed first, as `1.0` for an integer does before the end of the
/// text) is said so where the model's own text breaks, not where the rewritten one does.
#[cold]
fn retry_error(text: &str, retry: &str, error: &serde_json::Error) -> ArgumentError {
    if (error.is_syntax() || error.is_eof())
        && let Err(original) = serde_json::from_str::<serde::de::IgnoredAny>(text)
    {
        return argument_error(text, &original);
    }
    argument_error(retry, error)
}

/// The text to decode once more: whole numbers as integers, when the error is not in the
/// syntax and the text has such a number.
#[cold]
fn retry_text(text: &str, error: &serde_json::Error) -> Option<String> {
    if error.is_syntax() || error.is_eof() {
        return None;
    }
    numbers::whole_numbers_as_integers(text)
}

/// What JSON text starting with `first` holds when it is plainly not an object; `None` for an
/// object, or for text that is not JSON at all (the decoder reports that).
fn not_an_object(first: u8) -> Option<&'static str> {
    match first {
        b'[' => Some("array"),
        b'"' => Some("string"),
        b'-' | b'0'..=b'9' => Some("number"),
        b't' | b'f' => Some("boolean"),
        // An object, or not JSON at all; `null` too: `serde_json` says of it what this would
        // (`invalid type: null, expected an object of named arguments`).
        _ => None,
    }
}

/// What went wrong in `text`, for the model: text that is not JSON is said so, with the line
/// and column; any other error says what was expected, at the field.
#[cold]
fn argument_error(text: &str, error: &serde_json::Error) -> ArgumentError {
    let message = without_position(error);
    // Two errors serde_json counts as syntax are of valid JSON: a number too large for its type
    // (`1e40` for an `f32`) and nesting past its limit. They are located like any other value.
    let too_large = message == "number out of range";
    let too_deep = message == "recursion limit exceeded";
    if (error.is_syntax() || error.is_eof()) && !too_large && !too_deep {
        return ArgumentError::new(".", format!("the arguments are not valid JSON: {error}"));
    }
    let path = locate::error_path(text, error.line(), error.column(), &message);
    if too_deep {
        return ArgumentError::new(path, "nested more than 128 levels deep");
    }
    ArgumentError::new(path, out_of_range(message))
}

/// serde's message for a whole number past 64 bits given to an integer type, which calls it a
/// float of the wrong type, said as what it is: out of range. (A whole number within 64 bits
/// written as a float was already read as an integer.)
fn out_of_range(message: String) -> String {
    let whole_float = message
        .strip_prefix("invalid type: floating point `")
        .and_then(|rest| rest.split_once("`, expected "))
        .filter(|(number, _)| {
            number
                .parse::<f64>()
                .is_ok_and(|value| value.fract() == 0.0)
        });
    match whole_float {
        Some((number, expected)) => {
            format!("invalid value: number `{number}` is out of range, expected {expected}")
        }
        None => message,
    }
}

/// `serde_json`'s message without its " at line L column C": the field path says where.
fn without_position(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&suffix) {
        Some(head) => head.to_owned(),
        None => message,
    }
}

/// Arguments that did not decode: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentError {
    path: String,
    message: String,
}

impl ArgumentError {
    /// An error at a field `path` (`.` is the top level), with what was wrong there.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The field path, such as `filters[0].value`; `.` is the top level.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What was wrong, such as ``invalid type: string "x", expected u32``.
    pub fn message(&self) -> &str {
        &self.message
    }
}

#[cfg(test)]
mod tests {
    /// The fuzz target's way to the flat reader gives what the reader gives: a value for a flat
    /// object, nothing where it gives up.
    #[cfg(feature = "flat-decoder")]
    #[test]
    fn the_flat_reader_alone_decodes_a_flat_object_and_gives_up_on_nesting() {
        use std::collections::BTreeMap;
        let flat: Option<BTreeMap<String, i64>> = super::flat_decode(r#"{"a": 1, "b": 2}"#);
        assert_eq!(
            flat,
            Some(BTreeMap::from([("a".into(), 1), ("b".into(), 2)]))
        );
        let nested: Option<BTreeMap<String, Vec<i64>>> = super::flat_decode(r#"{"a": [1]}"#);
        assert_eq!(nested, None);
    }
}

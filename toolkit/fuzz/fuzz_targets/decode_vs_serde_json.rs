//! The whole argument pipeline (`toolkit/src/decode/`: shape, flat reader, serde_json, whole
//! numbers, constraints) against an independent reading of the same text: `serde_json` into the
//! same arguments type, the schema's constraints checked by hand, and whole numbers read by an
//! arbitrary-precision decimal. Whatever the text:
//!
//! - what `serde_json` decodes and the constraints allow, the pipeline decodes to the same value;
//! - what `serde_json` decodes and a constraint forbids, the pipeline refuses;
//! - what `serde_json` refuses, the pipeline refuses, unless the text writes a whole number with a
//!   fraction or an exponent (`5.0`, `1e2`): then every argument it decodes is exactly the number
//!   or text written, and within the constraints.

#![no_main]

use std::collections::BTreeMap;
use std::str::FromStr;

use bigdecimal::BigDecimal;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::value::RawValue;
use toolkit::{Tool, tool};

/// The arguments of [`book`], as a derive reads them.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Arguments {
    count: u32,
    name: String,
    ratio: Option<f64>,
    flag: Option<bool>,
    ids: Option<Vec<i64>>,
}

/// Books `count` places for `name`.
#[tool]
fn book(
    /// How many, 1 to 100.
    #[schemars(range(min = 1, max = 100))]
    count: u32,
    /// Who, at most 8 characters.
    #[schemars(length(max = 8))]
    name: String,
    /// A ratio.
    ratio: Option<f64>,
    /// A flag.
    flag: Option<bool>,
    /// Ids.
    ids: Option<Vec<i64>>,
) -> String {
    format!("{count} {name} {ratio:?} {flag:?} {ids:?}")
}

/// Whether decoded arguments are within what [`book`]'s schema says.
fn allowed(arguments: &Arguments) -> bool {
    (1..=100).contains(&arguments.count) && arguments.name.chars().count() <= 8
}

/// Whether a JSON number's text is the integer `value`, exactly.
fn is_integer(text: &str, value: i128) -> bool {
    BigDecimal::from_str(text.trim()).is_ok_and(|number| number == BigDecimal::from(value))
}

/// Whether the text writes some number with a fraction or an exponent.
fn writes_a_fraction_or_exponent(text: &str) -> bool {
    text.bytes().any(|byte| matches!(byte, b'.' | b'e' | b'E'))
}

/// Whether each argument `ours` decoded is exactly what the text writes for it.
fn as_written(raw: &BTreeMap<String, Box<RawValue>>, ours: &Arguments) -> bool {
    let text = |key: &str| raw.get(key).map(|value| value.get());
    let count = text("count").is_some_and(|count| is_integer(count, ours.count.into()));
    let name = text("name")
        .and_then(|name| serde_json::from_str::<String>(name).ok())
        .is_some_and(|name| name == ours.name);
    let ratio = match (text("ratio"), ours.ratio) {
        (None | Some("null"), None) => true,
        (Some(ratio), Some(value)) => serde_json::from_str::<f64>(ratio).is_ok_and(|r| r == value),
        _ => false,
    };
    let flag = match text("flag") {
        None => ours.flag.is_none(),
        Some(flag) => serde_json::from_str::<Option<bool>>(flag).is_ok_and(|f| f == ours.flag),
    };
    let ids = match (text("ids"), &ours.ids) {
        (None | Some("null"), None) => true,
        (Some(ids), Some(values)) => serde_json::from_str::<Vec<Box<RawValue>>>(ids)
            .is_ok_and(|items| {
                items.len() == values.len()
                    && items
                        .iter()
                        .zip(values)
                        .all(|(item, value)| is_integer(item.get(), (*value).into()))
            }),
        _ => false,
    };
    count && name && ratio && flag && ids
}

libfuzzer_sys::fuzz_target!(|text: &str| {
    let ours = toolkit::__private::parse_checked::<Arguments>(text, BOOK_TOOL.spec());
    // JSON's whitespace only (`trim_ascii` would also take a form feed).
    let blank = text.trim_matches([' ', '\t', '\n', '\r']).is_empty();
    let whole = if blank { "{}" } else { text };
    match serde_json::from_str::<Arguments>(whole) {
        Ok(reference) if allowed(&reference) => {
            assert_eq!(ours.as_ref().ok(), Some(&reference), "{text:?}");
        }
        Ok(_) => assert!(ours.is_err(), "{text:?}: past a constraint, decoded {ours:?}"),
        Err(refused) => {
            if let Ok(ours) = ours {
                let raw = serde_json::from_str::<BTreeMap<String, Box<RawValue>>>(whole);
                assert!(
                    writes_a_fraction_or_exponent(whole)
                        && allowed(&ours)
                        && raw.is_ok_and(|raw| as_written(&raw, &ours)),
                    "{text:?}: serde_json refused it ({refused}), the pipeline decoded {ours:?}"
                );
            }
        }
    }
});

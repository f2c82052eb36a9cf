//! Every export of every builtin (and of golden types that once went wrong) proved against the
//! decoder, both ways:
//!
//! - arguments generated from an export's schema that a JSON Schema validator accepts under that
//!   export must decode;
//! - arguments generated from the tool's own schema that the decoder accepts must satisfy every
//!   export (for OpenAI strict mode, written as strict mode writes them: every property present,
//!   a default when the property had one, else `null`).
//!
//! Whatever an export cannot express must be a `SchemaError`, checked with exact messages below.

use std::collections::BTreeMap;

use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, TestRunner};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolkit::{ToolResult, ToolSpec, tool};
use toolkit_testing::schemas::gemini_as_json_schema;

mod support;
use support::arguments::{resolve, values};

/// Options with a defaulted nested boolean (strict mode once made it nullable, and the decoder
/// refused the `null` that strict calls then carried).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// Say more.
    #[serde(default)]
    pub verbose: bool,
    /// A label, when wanted.
    pub label: Option<String>,
}

/// An internally tagged enum (strict mode and Gemini once refused it as overlapping).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    /// Renames it.
    Rename {
        /// The new name.
        to: String,
    },
    /// Removes it.
    Remove,
    /// Moves it.
    Move {
        /// How far.
        by: i32,
    },
}

/// Uses nested options.
#[tool(group = "golden")]
fn golden_nested(
    /// The options.
    options: Options,
) -> ToolResult {
    ToolResult::text(format!("{options:?}"))
}

/// Takes an action.
#[tool(group = "golden")]
fn golden_tagged(
    /// What to do.
    action: Action,
) -> ToolResult {
    ToolResult::text(format!("{action:?}"))
}

/// Takes one character (strict mode once refused the whole tool for its `maxLength`).
#[tool(group = "golden")]
fn golden_char(
    /// The initial.
    initial: char,
) -> ToolResult {
    ToolResult::text(initial.to_string())
}

/// Takes any JSON value.
#[tool(group = "golden")]
fn golden_value(
    /// Anything.
    payload: Value,
) -> ToolResult {
    ToolResult::text(payload.to_string())
}

/// Counts per name.
#[tool(group = "golden")]
fn golden_map(
    /// A count per name.
    counts: BTreeMap<String, u32>,
) -> ToolResult {
    ToolResult::text(counts.len().to_string())
}

/// Cases per tool, per export and direction.
const CASES: u32 = 48;

/// `value` as strict mode writes it: every property of every object present, with its default
/// when the tool's schema gives one, else `null`.
fn as_strict(value: &Value, schema: &Value, root: &Value) -> Value {
    let schema = resolve(schema, root);
    match value {
        Value::Object(fields) => {
            let mut out = fields.clone();
            if let Some(Value::Object(properties)) = schema.get("properties") {
                for (name, property) in properties {
                    let property = resolve(property, root);
                    let written = if let Some(present) = out.get(name) {
                        as_strict(present, &property, root)
                    } else {
                        property.get("default").cloned().unwrap_or(Value::Null)
                    };
                    out.insert(name.clone(), written);
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            let item = schema.get("items").cloned().unwrap_or(Value::Bool(true));
            Value::Array(items.iter().map(|v| as_strict(v, &item, root)).collect())
        }
        other => other.clone(),
    }
}

/// Each export's parameters, as a JSON Schema a validator reads, or why there is none.
fn exports(spec: &ToolSpec) -> Vec<(&'static str, Result<Value, String>)> {
    vec![
        (
            "OpenAI",
            spec.openai()
                .map(|tool| tool["function"]["parameters"].clone())
                .map_err(|error| error.to_string()),
        ),
        (
            "OpenAI strict",
            spec.openai_strict()
                .map(|tool| tool["function"]["parameters"].clone())
                .map_err(|error| error.to_string()),
        ),
        ("Anthropic", Ok(spec.anthropic()["input_schema"].clone())),
        (
            "Gemini",
            spec.gemini()
                .map(|tool| gemini_as_json_schema(&tool["parameters"]))
                .map_err(|error| error.to_string()),
        ),
    ]
}

fn sample(strategy: &BoxedStrategy<Value>, runner: &mut TestRunner) -> Value {
    strategy.new_tree(runner).expect("a value tree").current()
}

#[derive(Default)]
struct Counts {
    generated: u32,
    valid: u32,
    decoded: u32,
}

#[test]
fn every_export_agrees_with_the_decoder_both_ways() {
    let registry = toolkit_builtins::registry().expect("no duplicates");
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    let mut failures = Vec::new();
    let mut counts: BTreeMap<(&str, &str), Counts> = BTreeMap::new();
    let mut refusals = BTreeMap::new();
    for tool in registry.iter() {
        let spec = tool.spec();
        let own = spec.input_schema().clone();
        let own_values = values(&own, &own, 0);
        for (export, schema) in exports(spec) {
            let schema = match schema {
                Ok(schema) => schema,
                Err(error) => {
                    refusals.insert((spec.name().to_owned(), export), error);
                    continue;
                }
            };
            let validator = jsonschema::validator_for(&schema)
                .unwrap_or_else(|error| panic!("{} {export}: {error}", spec.name()));
            // Valid under the export, so a model may send it: it must decode.
            let export_values = values(&schema, &schema, 0);
            for _ in 0..CASES {
                let value = sample(&export_values, &mut runner);
                let entry = counts.entry((export, "export → decoder")).or_default();
                entry.generated += 1;
                if !validator.is_valid(&value) {
                    continue;
                }
                entry.valid += 1;
                match tool.check_arguments(&value.to_string()) {
                    Ok(()) => entry.decoded += 1,
                    Err(error) => failures.push(format!(
                        "{} {export}: valid {value} does not decode: {error:?}",
                        spec.name()
                    )),
                }
            }
            // Decoded, so the tool takes it: every export must allow it.
            for _ in 0..CASES {
                let value = sample(&own_values, &mut runner);
                let entry = counts.entry((export, "decoder → export")).or_default();
                entry.generated += 1;
                if tool.check_arguments(&value.to_string()).is_err() {
                    continue;
                }
                entry.decoded += 1;
                let written = if export == "OpenAI strict" {
                    as_strict(&value, &own, &own)
                } else {
                    value.clone()
                };
                if validator.is_valid(&written) {
                    entry.valid += 1;
                } else {
                    failures.push(format!(
                        "{} {export}: {written} decodes but the export refuses it",
                        spec.name()
                    ));
                }
            }
        }
    }
    for ((export, direction), count) in &counts {
        println!(
            "{export:<14} {direction}: {} generated, {} valid under the export, {} decoded",
            count.generated, count.valid, count.decoded
        );
    }
    assert_eq!(failures, Vec::<String>::new());
    // Every direction really exercised values that pass both sides.
    for ((export, direction), count) in &counts {
        assert!(count.valid > 0 && count.decoded > 0, "{export} {direction}");
    }
    assert_eq!(
        refusals,
        BTreeMap::from([
            (
                ("golden_map".to_owned(), "Gemini"),
                "tool \"golden_map\": the Gemini schema cannot express an object with open or typed extra properties (a map) at /properties/counts/additionalProperties".to_owned()
            ),
            (
                ("golden_map".to_owned(), "OpenAI strict"),
                "tool \"golden_map\": the OpenAI strict schema cannot express an object with open or typed extra properties (a map) at /properties/counts/additionalProperties".to_owned()
            ),
            (
                ("golden_value".to_owned(), "Gemini"),
                "tool \"golden_value\": the Gemini schema cannot express a value of any type (a schema without `type`) at /properties/payload".to_owned()
            ),
            (
                ("golden_value".to_owned(), "OpenAI strict"),
                "tool \"golden_value\": the OpenAI strict schema cannot express a value of any type (a schema without `type`) at /properties/payload".to_owned()
            ),
        ])
    );
}

#[test]
fn the_golden_cases_export_as_their_decoders_read_them() {
    let registry = toolkit_builtins::registry().expect("no duplicates");
    let spec = |name: &str| registry.get(name).expect("registered").spec().clone();
    // A defaulted nested boolean is required and never null in strict mode.
    let strict = spec("golden_nested").openai_strict().expect("strict");
    assert_eq!(
        strict["function"]["parameters"]["$defs"]["Options"]["properties"]["verbose"],
        json!({"description": "Say more. Default: false.", "type": "boolean"})
    );
    // An internally tagged enum: its branches are told apart by the tag.
    let strict = spec("golden_tagged").openai_strict().expect("strict");
    let branches = strict["function"]["parameters"]["$defs"]["Action"]["anyOf"]
        .as_array()
        .expect("branches");
    assert_eq!(branches.len(), 3);
    assert!(spec("golden_tagged").gemini().is_ok());
    // A char is one character, as a pattern strict mode takes.
    let strict = spec("golden_char").openai_strict().expect("strict");
    assert_eq!(
        strict["function"]["parameters"]["properties"]["initial"]["pattern"],
        json!("^[\\s\\S]{1}$")
    );
}

//! Arguments generated from a JSON schema (as schemars writes it, or Gemini's subset with
//! `nullable`), as proptest strategies: strings of up to a dozen characters of any kind,
//! numbers within ±1000.

use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use serde_json::{Map, Value, json};

/// The schema a `$ref` points at, with what the referring schema says beside it.
pub fn resolve<'a>(schema: &'a Value, root: &'a Value) -> Value {
    let mut current = schema.clone();
    for _ in 0..16 {
        let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
            break;
        };
        let target = root
            .pointer(reference.trim_start_matches('#'))
            .cloned()
            .unwrap_or(Value::Bool(true));
        let mut merged = target.as_object().cloned().unwrap_or_default();
        if let Some(beside) = current.as_object() {
            for (key, value) in beside {
                if key != "$ref" {
                    merged.insert(key.clone(), value.clone());
                }
            }
        }
        current = Value::Object(merged);
    }
    current
}

fn number(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// Values for `schema`, whose `$ref`s point into `root`; `depth` is how deep `schema` is in the
/// value being built (0 for a tool's arguments).
#[allow(clippy::too_many_lines)] // one arm per keyword
pub fn values(schema: &Value, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let schema = resolve(schema, root);
    let Some(map) = schema.as_object() else {
        return any_json();
    };
    if map.get("nullable") == Some(&Value::Bool(true)) {
        let mut inner = map.clone();
        inner.remove("nullable");
        return prop_oneof![
            1 => Just(Value::Null),
            3 => values(&Value::Object(inner), root, depth),
        ]
        .boxed();
    }
    if let Some(constant) = map.get("const") {
        return Just(constant.clone()).boxed();
    }
    if let Some(Value::Array(choices)) = map.get("enum") {
        return proptest::sample::select(choices.clone()).boxed();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            let strategies: Vec<BoxedStrategy<Value>> = branches
                .iter()
                .map(|branch| values(branch, root, depth + 1))
                .collect();
            return proptest::strategy::Union::new(strategies).boxed();
        }
    }
    let types: Vec<String> = match map.get("type") {
        Some(Value::String(kind)) => vec![kind.clone()],
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ if map.contains_key("properties") => vec!["object".to_owned()],
        _ => return any_json(),
    };
    let strategies: Vec<BoxedStrategy<Value>> = types
        .iter()
        .map(|kind| typed(kind, map, root, depth))
        .collect();
    proptest::strategy::Union::new(strategies).boxed()
}

fn typed(kind: &str, map: &Map<String, Value>, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let int = |key: &str| map.get(key).and_then(Value::as_f64);
    match kind {
        "null" => Just(Value::Null).boxed(),
        "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
        "integer" => {
            // Bounds kept within ±1000 first, so the casts are exact.
            let low = int("minimum")
                .unwrap_or(-1000.0)
                .clamp(-1000.0, 1000.0)
                .ceil();
            let high = int("maximum").unwrap_or(1000.0).clamp(low, 1000.0).floor();
            #[allow(clippy::cast_possible_truncation)]
            let (low, high) = (low as i64, high as i64);
            (low..=high.max(low)).prop_map(|n| json!(n)).boxed()
        }
        "number" => {
            let low = int("minimum").unwrap_or(-1000.0).max(-1000.0);
            let high = int("maximum").unwrap_or(1000.0).min(1000.0);
            (low..=high.max(low)).prop_map(number).boxed()
        }
        "string" => {
            if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
                let body = pattern.trim_start_matches('^').trim_end_matches('$');
                if let Ok(strategy) = proptest::string::string_regex(body) {
                    return strategy.prop_map(Value::String).boxed();
                }
            }
            let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0);
            let max = map
                .get("maxLength")
                .and_then(Value::as_u64)
                .unwrap_or(min + 12)
                .min(min + 12);
            proptest::string::string_regex(&format!("(?s:.{{{min},{max}}})"))
                .expect("a length pattern")
                .prop_map(Value::String)
                .boxed()
        }
        "array" => {
            let items = map.get("items").cloned().unwrap_or(Value::Bool(true));
            let count = |key: &str| {
                map.get(key)
                    .and_then(Value::as_u64)
                    .and_then(|count| usize::try_from(count).ok())
            };
            let min = count("minItems").unwrap_or(0).min(3);
            let max = count("maxItems").unwrap_or(min + 3).min(min + 3);
            let max = if depth > 4 { min } else { max };
            proptest::collection::vec(values(&items, root, depth + 1), min..=max)
                .prop_map(Value::Array)
                .boxed()
        }
        "object" => object(map, root, depth),
        _ => any_json(),
    }
}

fn object(map: &Map<String, Value>, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut fields: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
    if let Some(Value::Object(properties)) = map.get("properties") {
        for (name, property) in properties {
            let name = name.clone();
            let value = values(property, root, depth + 1);
            if required.contains(&name) {
                fields.push(
                    value
                        .prop_map(move |value| Some((name.clone(), value)))
                        .boxed(),
                );
            } else if depth <= 4 {
                fields.push(
                    proptest::option::of(value.prop_map(move |value| (name.clone(), value)))
                        .boxed(),
                );
            }
        }
    }
    if let Some(extra @ Value::Object(_)) = map.get("additionalProperties") {
        let extra = values(extra, root, depth + 1);
        fields.push(
            proptest::option::of(("[a-z]{1,6}", extra).prop_map(|(key, value)| (key, value)))
                .boxed(),
        );
    }
    fields
        .prop_map(|fields| Value::Object(fields.into_iter().flatten().collect()))
        .boxed()
}

fn any_json() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-100i64..100).prop_map(|n| json!(n)),
        "[a-z ]{0,8}".prop_map(Value::String),
        Just(json!({"a": [1, "b"]})),
    ]
    .boxed()
}

//! Provider schemas as JSON Schema, so that a validator reads them.

use serde_json::{Map, Value, json};

/// Gemini's `nullable` as JSON Schema: a type list with `null`, `null` among an `enum`'s
/// values, a `null` branch of an `anyOf`.
pub fn gemini_as_json_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out: Map<String, Value> = map
                .iter()
                .filter(|(key, _)| key.as_str() != "nullable")
                .map(|(key, value)| (key.clone(), gemini_as_json_schema(value)))
                .collect();
            if map.get("nullable") == Some(&Value::Bool(true)) {
                if let Some(Value::String(kind)) = out.get("type").cloned() {
                    out.insert("type".to_owned(), json!([kind, "null"]));
                }
                if let Some(Value::Array(choices)) = out.get_mut("enum") {
                    choices.push(Value::Null);
                }
                if let Some(Value::Array(branches)) = out.get_mut("anyOf") {
                    branches.push(json!({"type": "null"}));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(gemini_as_json_schema).collect()),
        other => other.clone(),
    }
}

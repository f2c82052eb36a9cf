//! What a tool's schema says of its arguments beyond what their types decode: a range narrower
//! than the type's (`#[schemars(range(max = 365))]`), a length, a pattern. serde
//! does not read those, so arguments that decode are checked against the schema too, by a JSON
//! Schema validator, and a tool never gets a value its schema told the model it would not.
//!
//! A schema with no such constraint (nearly every tool) builds no validator and costs one load
//! per call.

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};

/// A constraint the arguments break: where (a field path, `.` for the whole) and what.
#[derive(Debug)]
pub(crate) struct Violation {
    pub(crate) path: String,
    pub(crate) message: String,
}

/// The validator of a spec's constraints, built the first time a call needs it; `None` inside
/// when the schema has no constraint the decoder leaves unchecked.
#[derive(Default)]
pub(crate) struct Constraints(OnceLock<Option<Arc<jsonschema::Validator>>>);

impl Constraints {
    /// Checks `arguments`, which decoded, against the constraints of `schema` (the spec's input
    /// schema, always the same for one spec).
    pub(crate) fn check(&self, schema: &Value, arguments: &str) -> Result<(), Violation> {
        let Some(validator) = self.0.get_or_init(|| validator_for(schema)) else {
            return Ok(());
        };
        let value = if arguments.trim_ascii().is_empty() {
            json!({})
        } else {
            serde_json::from_str(arguments).map_err(|error| Violation {
                path: ".".to_owned(),
                message: error.to_string(),
            })?
        };
        validator.validate(&value).map_err(|error| Violation {
            path: field_path(error.instance_path().as_str()),
            message: error.to_string(),
        })
    }
}

impl Clone for Constraints {
    /// A copy builds its own validator (from the same schema) when it needs one.
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// Derived from the spec's schema: two specs equal in that check equally.
impl PartialEq for Constraints {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for Constraints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Constraints")
    }
}

/// The validator of `schema` as the decoder reads it (an argument that may be left out may also
/// be `null`), when the schema constrains anything the decoder does not check.
fn validator_for(schema: &Value) -> Option<Arc<jsonschema::Validator>> {
    if !constrains(schema) {
        return None;
    }
    let mut view = schema.clone();
    null_where_optional(&mut view);
    match jsonschema::validator_for(&view) {
        Ok(validator) => Some(Arc::new(validator)),
        Err(error) => {
            tracing::warn!(%error, "an argument schema does not compile; its constraints are not checked");
            None
        }
    }
}

/// Whether `schema` says anything of a value that decoding it into its Rust type does not
/// check: a bound narrower than the type's, a length other than a `char`'s, a pattern, a count
/// of items other than a fixed array's, a multiple, a count of properties. Unique items are
/// not checked: a set takes a repeated item once, and Gemini's schema cannot say it.
fn constrains(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            let own = map.iter().any(|(key, value)| match key.as_str() {
                "minimum" | "maximum" => !type_bound(map, key, value),
                "minLength" | "maxLength" => !is_char(map),
                "minItems" | "maxItems" => map.get("minItems") != map.get("maxItems"),
                "pattern" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf"
                | "minProperties" | "maxProperties" => true,
                _ => false,
            });
            own || map.values().any(constrains)
        }
        Value::Array(items) => items.iter().any(constrains),
        _ => false,
    }
}

/// Whether a `minimum` or `maximum` is the bound of the number's own type.
fn type_bound(map: &Map<String, Value>, key: &str, value: &Value) -> bool {
    let Some((low, high)) = map
        .get("format")
        .and_then(Value::as_str)
        .and_then(crate::numbers::bounds)
    else {
        return false;
    };
    value == if key == "minimum" { &low } else { &high }
}

/// A `char`: a string of exactly one character.
fn is_char(map: &Map<String, Value>) -> bool {
    let one = Some(&Value::from(1));
    map.get("minLength") == one && map.get("maxLength") == one
}

/// Lets each top-level property that is not required also be `null`: the decoder reads `null`
/// as "not given" there (as strict providers send it).
fn null_where_optional(schema: &mut Value) {
    let required: Vec<Value> = schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(&Value::from(name.as_str())) {
                let given = property.take();
                *property = json!({"anyOf": [given, {"type": "null"}]});
            }
        }
    }
}

/// A JSON Pointer into the arguments as the decoder's errors write a path: `filters[0].value`,
/// `.` for the whole.
fn field_path(pointer: &str) -> String {
    let mut path = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|byte| byte.is_ascii_digit()) {
            path.push('[');
            path.push_str(&segment);
            path.push(']');
        } else {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&segment);
        }
    }
    if path.is_empty() {
        ".".to_owned()
    } else {
        path
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Constraints, constrains, field_path};

    #[test]
    fn only_what_the_decoder_leaves_unchecked_is_a_constraint() {
        for (schema, expected) in [
            (
                json!({"type": "integer", "format": "uint32", "minimum": 0, "maximum": 4_294_967_295_u32}),
                false,
            ),
            (
                json!({"type": "integer", "format": "uint32", "minimum": 1, "maximum": 4_294_967_295_u32}),
                true,
            ),
            (
                json!({"type": "string", "minLength": 1, "maxLength": 1}),
                false,
            ),
            (json!({"type": "string", "maxLength": 8}), true),
            (
                json!({"type": "array", "minItems": 2, "maxItems": 2}),
                false,
            ),
            (json!({"type": "array", "uniqueItems": true}), false),
            (
                json!({"properties": {"a": {"type": "string", "pattern": "^a"}}}),
                true,
            ),
            (json!({"type": "number", "minimum": 0}), true),
            (json!({"type": "array", "minItems": 1}), true),
            (
                json!({"type": "string", "minLength": 1, "maxLength": 8}),
                true,
            ),
            (
                json!({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]}),
                true,
            ),
        ] {
            assert_eq!(constrains(&schema), expected, "{schema}");
        }
    }

    #[test]
    fn copies_compare_equal_and_say_what_they_are() {
        let constraints = Constraints::default();
        assert_eq!(constraints.clone(), constraints);
        assert_eq!(format!("{constraints:?}"), "Constraints");
    }

    #[test]
    fn a_path_is_written_as_the_decoder_writes_one() {
        assert_eq!(field_path(""), ".");
        assert_eq!(field_path("/due"), "due");
        assert_eq!(field_path("/filters/0/value"), "filters[0].value");
        assert_eq!(field_path("/a~1b/c~0d"), "a/b.c~d");
    }

    #[test]
    fn decoded_arguments_past_a_constraint_are_refused_and_null_stays_not_given() {
        let schema = json!({
            "type": "object",
            "properties": {
                "days": {"type": "integer", "format": "uint32", "minimum": 1, "maximum": 365},
                "code": {"type": "string", "maxLength": 3}
            },
            "required": ["days"]
        });
        let constraints = Constraints::default();
        assert!(constraints.check(&schema, r#"{"days": 365}"#).is_ok());
        assert!(
            constraints
                .check(&schema, r#"{"days": 1, "code": null}"#)
                .is_ok()
        );
        let error = constraints.check(&schema, r#"{"days": 400}"#).unwrap_err();
        assert_eq!(
            (error.path.as_str(), error.message.as_str()),
            ("days", "400 is greater than the maximum of 365")
        );
        let error = constraints
            .check(&schema, r#"{"days": 2, "code": "abcd"}"#)
            .unwrap_err();
        assert_eq!(error.path, "code");
    }
}

//! What a tool's schema says of its arguments beyond what their types decode: a range narrower
//! than the type's (`#[schemars(range(max = 365))]`), a length, a pattern. serde
//! does not read those, so arguments that decode are checked against the schema too, by a JSON
//! Schema validator, and a tool never gets a value its schema told the model it would not.
//!
//! A schema with no such constraint (nearly every tool) builds no validator and costs one load
//! per call. The validator (`jsonschema`) comes with the `constraints` feature; without it a
//! registry refuses a `#[tool]` whose schema constrains anything
//! ([`RegistryError::Unchecked`](crate::registry::RegistryError::Unchecked)), and a call of one
//! that never met a registry is refused, never run unchecked.

#[cfg(feature = "constraints")]
use std::sync::Arc;
use std::sync::OnceLock;

#[cfg(feature = "constraints")]
use serde_json::json;
use serde_json::{Map, Value};

use super::numbers::Holds;

/// A constraint the arguments break: where (a field path, `.` for the whole) and what.
#[derive(Debug)]
pub(crate) struct Violation {
    pub(crate) path: String,
    pub(crate) message: String,
}

/// The first keyword of a schema that constrains what decoding does not check, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Constraint {
    /// The argument it constrains, as the decoder's errors write a path (`.` for the whole).
    pub(crate) path: String,
    /// The keyword (`maximum`, `pattern`, ...).
    pub(crate) keyword: String,
}

/// The validator of a spec's constraints, built the first time a call needs it; `None` inside
/// when the schema has no constraint the decoder leaves unchecked.
#[cfg(feature = "constraints")]
#[derive(Default)]
pub(crate) struct Constraints(OnceLock<Option<Arc<jsonschema::Validator>>>);

#[cfg(feature = "constraints")]
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

/// Without a validator: the schema's first constraint, found the first time a call needs it.
#[cfg(not(feature = "constraints"))]
#[derive(Default)]
pub(crate) struct Constraints(OnceLock<Option<Constraint>>);

#[cfg(not(feature = "constraints"))]
impl Constraints {
    /// The first constraint of `schema` (the spec's input schema, always the same for one
    /// spec), which this build cannot check: a registry refuses a tool that has one.
    pub(crate) fn first(&self, schema: &Value) -> Option<&Constraint> {
        self.0.get_or_init(|| first_constraint(schema)).as_ref()
    }

    /// Refuses every call of a tool whose schema constrains its arguments: this build cannot
    /// check them, and a tool never runs on a value its schema ruled out.
    pub(crate) fn check(&self, schema: &Value, _arguments: &str) -> Result<(), Violation> {
        match self.first(schema) {
            None => Ok(()),
            Some(constraint) => Err(Violation {
                path: constraint.path.clone(),
                message: unchecked(&constraint.keyword),
            }),
        }
    }
}

/// Why a constraint is not checked, and the fix.
#[cfg(not(feature = "constraints"))]
fn unchecked(keyword: &str) -> String {
    format!(
        "the schema's `{keyword}` cannot be checked in this build: enable toolkit's \
         `constraints` feature (on by default)"
    )
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
#[cfg(feature = "constraints")]
fn validator_for(schema: &Value) -> Option<Arc<jsonschema::Validator>> {
    first_constraint(schema)?;
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

/// The first keyword of `schema` (depth first, in the schema's order) that says anything of a
/// value that decoding it into its Rust type does not check: a bound narrower than the type's,
/// a length other than a `char`'s, a pattern, a count of items other than a fixed array's, a
/// multiple, a count of properties. Unique items are not checked: a set takes a repeated item
/// once, and Gemini's schema cannot say it. Keywords under `default`, `examples`, `const` and
/// `enum` are values, not schemas, and constrain nothing.
pub(crate) fn first_constraint(schema: &Value) -> Option<Constraint> {
    Walk {
        root: schema,
        path: Vec::new(),
        entered: Vec::new(),
    }
    .find(schema)
}

/// A walk of a schema in search of a constraint: where it is (the property names crossed on the
/// way; every other keyword is a step inside the same argument), and the definitions it is
/// inside (a recursive type is walked once).
struct Walk<'a> {
    root: &'a Value,
    path: Vec<&'a str>,
    entered: Vec<&'a str>,
}

impl<'a> Walk<'a> {
    fn find(&mut self, schema: &'a Value) -> Option<Constraint> {
        match schema {
            Value::Object(map) => {
                let own = map.iter().find(|(key, value)| match key.as_str() {
                    "minimum" | "maximum" => !type_bound(map, key, value),
                    "minLength" | "maxLength" => !is_char(map),
                    "minItems" | "maxItems" => map.get("minItems") != map.get("maxItems"),
                    "pattern" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf"
                    | "minProperties" | "maxProperties" => true,
                    _ => false,
                });
                if let Some((keyword, _)) = own {
                    let path = if self.path.is_empty() {
                        ".".to_owned()
                    } else {
                        self.path.join(".")
                    };
                    return Some(Constraint {
                        path,
                        keyword: keyword.clone(),
                    });
                }
                map.iter()
                    .find_map(|(key, value)| match (key.as_str(), Holds::under(key)) {
                        ("$ref", _) => self.enter(value.as_str()?),
                        // Definitions count where a `$ref` uses them.
                        ("$defs" | "definitions", _) | (_, Holds::Data) => None,
                        ("properties", _) => {
                            value.as_object()?.iter().find_map(|(name, property)| {
                                self.path.push(name);
                                let found = self.find(property);
                                self.path.pop();
                                found
                            })
                        }
                        (_, Holds::Named) => value
                            .as_object()?
                            .values()
                            .find_map(|schema| self.find(schema)),
                        (_, Holds::Schema) => self.find(value),
                    })
            }
            Value::Array(items) => items.iter().find_map(|item| self.find(item)),
            _ => None,
        }
    }

    /// The definition a local `$ref` (`#/$defs/Name`, `#/definitions/Name`) names, walked in
    /// place of the reference unless the walk is already inside it.
    fn enter(&mut self, reference: &'a str) -> Option<Constraint> {
        let pointer = reference.strip_prefix('#')?;
        if self.entered.contains(&pointer) {
            return None;
        }
        let definition = self.root.pointer(pointer)?;
        self.entered.push(pointer);
        let found = self.find(definition);
        self.entered.pop();
        found
    }
}

/// Whether a `minimum` or `maximum` is the bound of the number's own type.
fn type_bound(map: &Map<String, Value>, key: &str, value: &Value) -> bool {
    let Some((low, high)) = map
        .get("format")
        .and_then(Value::as_str)
        .and_then(super::numbers::bounds)
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
#[cfg(feature = "constraints")]
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
#[cfg(feature = "constraints")]
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

    #[cfg(feature = "constraints")]
    use super::field_path;
    use super::{Constraint, Constraints, first_constraint};

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
            assert_eq!(first_constraint(&schema).is_some(), expected, "{schema}");
        }
    }

    #[test]
    fn names_and_values_are_not_keywords_and_the_path_names_the_argument() {
        // An argument called `pattern` or `maximum`, a definition called `pattern`, and
        // keywords inside a default, an example, a const or an enum constrain nothing.
        let free = json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "maximum": {"type": "string", "default": {"maxLength": 1}, "examples": [{"pattern": "x"}]},
                "mode": {"enum": [{"minimum": 3}], "const": {"maxItems": 2}}
            },
            "$defs": {"pattern": {"type": "string"}},
            "patternProperties": {"pattern": {"type": "string"}},
            "dependentSchemas": {"maxLength": {"type": "object"}}
        });
        assert_eq!(first_constraint(&free), None);
        let nested = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "window": {
                    "type": "object",
                    "properties": {"days": {"type": "integer", "maximum": 365}}
                }
            }
        });
        assert_eq!(
            first_constraint(&nested),
            Some(Constraint {
                path: "window.days".to_owned(),
                keyword: "maximum".to_owned()
            })
        );
        let whole = json!({"type": "object", "minProperties": 1});
        assert_eq!(
            first_constraint(&whole),
            Some(Constraint {
                path: ".".to_owned(),
                keyword: "minProperties".to_owned()
            })
        );
        // A definition counts where a `$ref` uses it, at the path of the reference; a recursive
        // one is walked once.
        let unused = json!({"$defs": {"Day": {"type": "integer", "minimum": 1}}});
        assert_eq!(first_constraint(&unused), None);
        let used = json!({
            "properties": {
                "tree": {"$ref": "#/$defs/Node"},
                "day": {"$ref": "#/$defs/Day"}
            },
            "$defs": {
                "Node": {"properties": {"children": {"items": {"$ref": "#/$defs/Node"}}}},
                "Day": {"type": "integer", "minimum": 1}
            }
        });
        assert_eq!(
            first_constraint(&used),
            Some(Constraint {
                path: "day".to_owned(),
                keyword: "minimum".to_owned()
            })
        );
    }

    #[test]
    fn copies_compare_equal_and_say_what_they_are() {
        let constraints = Constraints::default();
        assert_eq!(constraints.clone(), constraints);
        assert_eq!(format!("{constraints:?}"), "Constraints");
    }

    #[cfg(feature = "constraints")]
    #[test]
    fn a_path_is_written_as_the_decoder_writes_one() {
        assert_eq!(field_path(""), ".");
        assert_eq!(field_path("/due"), "due");
        assert_eq!(field_path("/filters/0/value"), "filters[0].value");
        assert_eq!(field_path("/a~1b/c~0d"), "a/b.c~d");
    }

    #[cfg(feature = "constraints")]
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

    #[cfg(not(feature = "constraints"))]
    #[test]
    fn without_a_validator_a_constrained_call_is_refused_and_a_free_one_runs() {
        let schema = json!({
            "type": "object",
            "properties": {"days": {"type": "integer", "format": "uint32", "minimum": 1}}
        });
        let error = Constraints::default()
            .check(&schema, r#"{"days": 3}"#)
            .unwrap_err();
        assert_eq!(
            (error.path.as_str(), error.message.as_str()),
            (
                "days",
                "the schema's `minimum` cannot be checked in this build: enable toolkit's \
                 `constraints` feature (on by default)"
            )
        );
        let free = json!({"type": "object", "properties": {"days": {"type": "integer"}}});
        assert!(
            Constraints::default()
                .check(&free, r#"{"days": 3}"#)
                .is_ok()
        );
    }
}

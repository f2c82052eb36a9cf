//! Tool schemas as MCP clients read them most portably.

use serde_json::{Map, Value};

/// Keywords that apply to one JSON type only: they move into that type's `anyOf` branch.
const TYPE_KEYWORDS: &[(&str, &[&str])] = &[
    (
        "string",
        &[
            "minLength",
            "maxLength",
            "pattern",
            "format",
            "contentEncoding",
            "contentMediaType",
        ],
    ),
    (
        "number",
        &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ],
    ),
    (
        "integer",
        &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ],
    ),
    (
        "array",
        &[
            "items",
            "prefixItems",
            "minItems",
            "maxItems",
            "uniqueItems",
            "contains",
        ],
    ),
    (
        "object",
        &[
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "minProperties",
            "maxProperties",
            "propertyNames",
        ],
    ),
];

/// `schema` with every `type` array (`["string", "null"]`) split into `anyOf` branches of one
/// `type` each, the keywords of a type moved into its branch: the same values validate, but a
/// client that maps schemas onto a single-`type` dialect can read it (the MCP Inspector's
/// `--strict` lint warns on type arrays).
pub fn portable(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        let value = match key.as_str() {
            "properties" | "$defs" | "definitions" | "patternProperties" => match value {
                Value::Object(children) => Value::Object(
                    children
                        .iter()
                        .map(|(name, child)| (name.clone(), portable(child)))
                        .collect(),
                ),
                other => other.clone(),
            },
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => match value {
                Value::Array(children) => Value::Array(children.iter().map(portable).collect()),
                other => other.clone(),
            },
            "items"
            | "additionalProperties"
            | "not"
            | "contains"
            | "propertyNames"
            | "if"
            | "then"
            | "else" => portable(value),
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    let types: Option<Vec<String>> = match out.get("type") {
        Some(Value::Array(types)) if types.len() > 1 => types
            .iter()
            .map(|kind| kind.as_str().map(str::to_owned))
            .collect(),
        _ => None,
    };
    let Some(types) = types else {
        return Value::Object(out);
    };
    out.remove("type");
    let branches: Vec<Value> = types
        .iter()
        .map(|kind| {
            let mut branch = Map::new();
            branch.insert("type".to_owned(), Value::String(kind.clone()));
            let keywords = TYPE_KEYWORDS
                .iter()
                .find(|(name, _)| name == kind)
                .map_or(&[][..], |(_, keywords)| *keywords);
            for keyword in keywords {
                if let Some(value) = out.get(*keyword) {
                    branch.insert((*keyword).to_owned(), value.clone());
                }
            }
            Value::Object(branch)
        })
        .collect();
    for (_, keywords) in TYPE_KEYWORDS {
        for keyword in *keywords {
            out.remove(*keyword);
        }
    }
    let union = Value::Array(branches);
    match out.remove("anyOf") {
        // An `anyOf` already there must hold as well: both, side by side in an `allOf`.
        Some(existing) => {
            let both = [existing, union]
                .into_iter()
                .map(|any_of| Value::Object(Map::from_iter([("anyOf".to_owned(), any_of)])));
            match out.get_mut("allOf") {
                Some(Value::Array(all_of)) => all_of.extend(both),
                _ => {
                    out.insert("allOf".to_owned(), Value::Array(both.collect()));
                }
            }
        }
        None => {
            out.insert("anyOf".to_owned(), union);
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::portable;

    #[test]
    fn a_type_array_becomes_anyof_branches_each_with_its_own_keywords() {
        assert_eq!(
            portable(
                &json!({"type": ["string", "null"], "description": "A name.", "maxLength": 5, "default": null})
            ),
            json!({"description": "A name.", "default": null, "anyOf": [
                {"type": "string", "maxLength": 5},
                {"type": "null"}
            ]})
        );
        assert_eq!(
            portable(&json!({"type": "object", "properties": {
                "tags": {"type": ["array", "null"], "items": {"type": ["integer", "null"], "minimum": 0}, "minItems": 1},
                "plain": {"type": "boolean"}
            }, "required": ["plain"]})),
            json!({"type": "object", "properties": {
                "tags": {"anyOf": [
                    {"type": "array", "items": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}, "minItems": 1},
                    {"type": "null"}
                ]},
                "plain": {"type": "boolean"}
            }, "required": ["plain"]})
        );
        // An `anyOf` already there holds too, beside the new one.
        assert_eq!(
            portable(
                &json!({"type": ["object", "null"], "anyOf": [{"required": ["a"]}, {"required": ["b"]}]})
            ),
            json!({"allOf": [
                {"anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
                {"anyOf": [{"type": "object"}, {"type": "null"}]}
            ]})
        );
        let plain = json!({"type": "string", "enum": ["a", "b"]});
        assert_eq!(portable(&plain), plain);
    }

    #[test]
    fn the_portable_spelling_accepts_exactly_the_same_values() {
        let schemas = [
            json!({"type": ["string", "null"], "maxLength": 3}),
            json!({"type": ["integer", "null"], "minimum": 2, "maximum": 4}),
            json!({"type": ["array", "null"], "items": {"type": ["number", "null"], "exclusiveMaximum": 1.5}, "maxItems": 2}),
            json!({"type": ["object", "null"], "properties": {"a": {"type": ["boolean", "null"]}}, "required": ["a"], "additionalProperties": false}),
            json!({"type": ["string", "integer"], "pattern": "^x", "multipleOf": 3}),
        ];
        let values = [
            Value::Null,
            json!("x"),
            json!("xyz"),
            json!("xyzw"),
            json!("y"),
            json!(1),
            json!(3),
            json!(4),
            json!(6),
            json!(2.5),
            json!([]),
            json!([null, 1.0]),
            json!([2.0]),
            json!([0.5, 0.5, 0.5]),
            json!({}),
            json!({"a": true}),
            json!({"a": null}),
            json!({"a": 1}),
            json!({"a": true, "b": 1}),
            json!(true),
        ];
        let mut compared = 0;
        for schema in &schemas {
            let before = jsonschema::validator_for(schema).expect("a valid schema");
            let after = jsonschema::validator_for(&portable(schema)).expect("a valid schema");
            for value in &values {
                assert_eq!(
                    before.is_valid(value),
                    after.is_valid(value),
                    "{schema} on {value}"
                );
                compared += 1;
            }
        }
        assert_eq!(compared, 100);
    }
}

//! The schemas `toolkit-mcp` lists pass the MCP Inspector's schema-portability lint (its
//! `--strict` check): a mirror of its rules (type unions, remote `$ref`s, schemas that constrain
//! nothing, bare booleans) finds nothing in any listed builtin, while the registry's own schemas
//! carry the type unions the listing rewrites.

use std::sync::Arc;

use serde_json::Value;
use toolkit::{ToolContext, ToolLoopService};
use toolkit_mcp::McpToolServer;

const CONSTRAINING: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "items",
    "prefixItems",
    "contains",
    "additionalItems",
    "unevaluatedItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "dependentSchemas",
    "dependencies",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
];
const BOOLEAN_VALUED: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];
const SUBSCHEMA: &[&str] = &[
    "items",
    "contains",
    "not",
    "propertyNames",
    "if",
    "then",
    "else",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
    "contentSchema",
];
const SUBSCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "$defs",
    "definitions",
];
const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// Findings by rule: type unions, remote refs, untyped schemas, bare booleans.
#[derive(Debug, Default, PartialEq)]
struct Findings {
    type_unions: usize,
    remote_refs: usize,
    untyped: usize,
    booleans: usize,
}

fn lint(node: &Value, keyword: Option<&str>, found: &mut Findings) {
    let object = match node {
        Value::Bool(_) => {
            if !keyword.is_some_and(|keyword| BOOLEAN_VALUED.contains(&keyword)) {
                found.booleans += 1;
            }
            return;
        }
        Value::Object(object) => object,
        _ => return,
    };
    if let Some(Value::Array(types)) = object.get("type") {
        let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
        let distinct: std::collections::HashSet<&&str> = names.iter().collect();
        if !types.is_empty()
            && names.len() == types.len()
            && names.iter().all(|name| TYPES.contains(name))
            && distinct.len() == names.len()
        {
            found.type_unions += 1;
        }
    }
    if let Some(Value::String(reference)) = object.get("$ref")
        && !reference.is_empty()
        && !reference.starts_with('#')
    {
        found.remote_refs += 1;
    }
    let constrains = object
        .keys()
        .any(|key| CONSTRAINING.contains(&key.as_str()))
        || (object.contains_key("if")
            && (object.contains_key("then") || object.contains_key("else")));
    if !constrains && keyword != Some("not") {
        found.untyped += 1;
    }
    for key in SUBSCHEMA_MAPS {
        if let Some(Value::Object(children)) = object.get(*key) {
            for child in children.values() {
                lint(child, Some(key), found);
            }
        }
    }
    for key in SUBSCHEMA_LISTS {
        if let Some(Value::Array(children)) = object.get(*key) {
            for child in children {
                lint(child, Some(key), found);
            }
        }
    }
    for key in SUBSCHEMA {
        match object.get(*key) {
            Some(Value::Array(children)) if *key == "items" => {
                for child in children {
                    lint(child, Some(key), found);
                }
            }
            Some(child) => lint(child, Some(key), found),
            None => {}
        }
    }
}

#[test]
fn every_listed_builtin_schema_passes_the_inspectors_portability_lint() {
    // Listing opens nothing: the resources only have to be given.
    let folder = std::env::temp_dir();
    let registry = toolkit_builtins::registry().expect("the builtins");
    let mut before = Findings::default();
    for spec in registry.specs() {
        lint(spec.input_schema(), None, &mut before);
    }
    let context = ToolContext::new()
        .with_extension(toolkit_builtins::WorkspaceRoot::new(&folder))
        .with_extension(toolkit_builtins::Database::new(folder.join("absent.db")));
    let server = McpToolServer::new(Arc::new(ToolLoopService::new(registry)), context)
        .expect("every state is there");
    let tools = server.tools();
    let mut after = Findings::default();
    for tool in &tools {
        lint(
            &Value::Object((*tool.input_schema).clone()),
            None,
            &mut after,
        );
    }
    println!(
        "{} tools listed; registry schemas: {before:?}; listed: {after:?}",
        tools.len()
    );
    assert!(
        before.type_unions > 0,
        "the rewrite has type unions to remove"
    );
    assert_eq!(after, Findings::default());
}

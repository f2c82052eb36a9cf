//! Golden files for each provider's form of one spec: nested structs, enums, options, defaults.
//!
//! `UPDATE_GOLDEN=1 cargo test -p toolkit --test schemas` rewrites them; read the diff after.

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::{ToolContext, ToolLoopService, ToolRegistry, ToolSpec, tool};

/// How to compare a field with a value.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Comparison {
    /// Equal to the value.
    Equals,
    /// Contains the value as a substring.
    Contains,
    /// Greater than the value, compared as numbers.
    GreaterThan,
}

/// One condition on a record.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    /// The field to test.
    pub field: String,
    /// How to compare.
    pub comparison: Comparison,
    /// The value to compare with.
    pub value: String,
}

/// A span of days.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DateRange {
    /// First day, `YYYY-MM-DD`.
    pub from: String,
    /// Last day, `YYYY-MM-DD`; open-ended when missing.
    pub to: Option<String>,
}

/// The order of results.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SortOrder {
    /// Smallest first.
    Asc,
    /// Largest first.
    Desc,
}

/// A shape to measure.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Shape {
    /// A circle.
    Circle {
        /// Its radius.
        radius: f64,
    },
    /// A square.
    Square {
        /// Its side.
        side: f64,
    },
}

/// Searches orders by conditions.
///
/// Returns at most `limit` orders.
#[tool(group = "records")]
fn search_orders(
    /// Conditions every order must meet.
    filters: Vec<Filter>,
    /// Only orders placed in this range.
    placed: Option<DateRange>,
    /// Most orders to return.
    limit: Option<u32>,
    /// The order by date.
    #[arg(default = SortOrder::Desc)]
    order: SortOrder,
    /// Include cancelled orders.
    #[arg(default = false)]
    include_cancelled: bool,
    context: &ToolContext,
) -> String {
    let _ = context;
    format!(
        "{} filters, range {}, limit {limit:?}, {order:?}, cancelled {include_cancelled}",
        filters.len(),
        placed.map_or_else(
            || "none".to_owned(),
            |range| format!("{}..{:?}", range.from, range.to)
        ),
    )
}

/// Measures the area of a shape.
#[tool(group = "utility")]
fn area(
    /// The shape.
    shape: Shape,
) -> String {
    let area = match shape {
        Shape::Circle { radius } => std::f64::consts::PI * radius * radius,
        Shape::Square { side } => side * side,
    };
    format!("{area:.3}")
}

/// Stores labels by key.
#[tool]
fn label_all(
    /// Labels by key.
    labels: BTreeMap<String, String>,
) -> String {
    format!("{} labels", labels.len())
}

/// A list that may nest.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Tree {
    /// The node's name.
    pub name: String,
    /// Its children.
    pub children: Vec<Tree>,
}

/// Counts the nodes of a tree.
#[tool]
fn count_nodes(
    /// The tree.
    tree: Tree,
) -> String {
    fn count(tree: &Tree) -> usize {
        1 + tree.children.iter().map(count).sum::<usize>()
    }
    count(&tree).to_string()
}

/// Reads the [`Table`](toolkit::Table) of a query, see [`ToolSpec`] and
/// [the guide](https://example.com/guide).
///
/// ```sql
/// SELECT id
///   FROM orders
/// ```
///
/// # Examples
///
/// ```
/// # use toolkit::ToolRegistry;
/// let registry = ToolRegistry::linked();
/// ```
///
/// # Errors
///
/// When the query fails.
#[tool]
fn documented_for_rustdoc() -> String {
    String::new()
}

#[doc = include_str!("golden/described.md")]
#[tool]
fn documented_in_a_file() -> String {
    String::new()
}

/// For Rust readers only.
#[tool(description = "Given to the model as is.\n\nTwo paragraphs.")]
fn described_by_the_attribute() -> String {
    String::new()
}

#[test]
fn descriptions_are_cleaned_for_a_model_from_any_source() {
    let registry = registry();
    assert_eq!(
        spec(&registry, "documented_for_rustdoc").description(),
        "Reads the `Table` of a query, see `ToolSpec` and [the guide](https://example.com/guide).\n\n```sql\nSELECT id\n  FROM orders\n```"
    );
    assert_eq!(
        spec(&registry, "documented_in_a_file").description(),
        "Summarises a `Tree` kept in a Markdown file.\n\nThe file is read when the crate compiles."
    );
    assert_eq!(
        spec(&registry, "described_by_the_attribute").description(),
        "Given to the model as is.\n\nTwo paragraphs."
    );
}

fn registry() -> ToolRegistry {
    ToolRegistry::linked().expect("no duplicate names")
}

fn spec<'r>(registry: &'r ToolRegistry, name: &str) -> &'r ToolSpec {
    registry.get(name).expect("tool is linked").spec()
}

fn golden(name: &str, actual: &serde_json::Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let actual = format!("{}\n", serde_json::to_string_pretty(actual).expect("json"));
    toolkit_testing::golden::assert_golden(&path, actual.as_bytes());
}

#[test]
fn every_form_of_a_nested_tool_matches_its_golden_file() {
    let registry = registry();
    for name in ["search_orders", "area"] {
        let spec = spec(&registry, name);
        golden(&format!("{name}.input.json"), spec.input_schema());
        golden(
            &format!("{name}.openai.json"),
            &spec.openai().expect("a short description"),
        );
        golden(
            &format!("{name}.openai-strict.json"),
            &spec.openai_strict().expect("strict form"),
        );
        golden(&format!("{name}.anthropic.json"), &spec.anthropic());
        golden(
            &format!("{name}.gemini.json"),
            &spec.gemini().expect("gemini form"),
        );
    }
}

#[test]
fn the_context_parameter_is_not_in_the_schema_and_docs_become_descriptions() {
    let registry = registry();
    let spec = spec(&registry, "search_orders");
    assert_eq!(
        spec.description(),
        "Searches orders by conditions.\n\nReturns at most `limit` orders."
    );
    assert_eq!(spec.group(), "records");
    let properties = spec.input_schema()["properties"].as_object().unwrap();
    let names: Vec<&str> = properties.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["filters", "include_cancelled", "limit", "order", "placed"]
    );
    assert_eq!(
        spec.input_schema()["required"],
        serde_json::json!(["filters"])
    );
    assert_eq!(properties["order"]["default"], "desc");
    assert_eq!(
        properties["filters"]["description"],
        "Conditions every order must meet."
    );
}

#[test]
fn a_map_cannot_be_strict_and_a_recursive_type_cannot_be_gemini() {
    let registry = registry();
    let error = spec(&registry, "label_all").openai_strict().unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool \"label_all\": the OpenAI strict schema cannot express an object with open or typed extra properties (a map) at /properties/labels/additionalProperties"
    );
    let error = spec(&registry, "count_nodes").gemini().unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool \"count_nodes\": the Gemini schema cannot express a recursive reference to `#/$defs/Tree` at /properties/tree/properties/children/items"
    );
    // Gemini cannot say a map's value type either: refused, never dropped.
    let error = spec(&registry, "label_all").gemini().unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool \"label_all\": the Gemini schema cannot express an object with open or typed extra properties (a map) at /properties/labels/additionalProperties"
    );
    // Both still have the forms their providers can take.
    assert_eq!(
        spec(&registry, "label_all")
            .openai()
            .expect("a short description")["function"]["parameters"]["properties"]["labels"]["additionalProperties"],
        serde_json::json!({"type": "string"})
    );
    assert!(spec(&registry, "count_nodes").openai_strict().is_ok());
}

#[tokio::test]
async fn strict_calls_with_nulls_for_optional_arguments_decode() {
    let service = ToolLoopService::new(registry());
    let scope = service.scope(ToolContext::new()).unwrap();
    let strict_call = r#"{"filters": [{"field": "status", "comparison": "equals", "value": "open"}],
        "placed": null, "limit": null, "order": null, "include_cancelled": null}"#;
    let result = service.invoke(&scope, "search_orders", strict_call).await;
    assert_eq!(
        result.content(),
        "1 filters, range none, limit None, Desc, cancelled false"
    );
    let full = r#"{"filters": [], "placed": {"from": "2026-01-01", "to": null}, "limit": 5, "order": "asc"}"#;
    let result = service.invoke(&scope, "search_orders", full).await;
    assert_eq!(
        result.content(),
        "0 filters, range 2026-01-01..None, limit Some(5), Asc, cancelled false"
    );
    let result = service
        .invoke(&scope, "area", r#"{"shape": {"square": {"side": 2.0}}}"#)
        .await;
    assert_eq!(result.content(), "4.000");
}

#[test]
fn both_openai_exports_refuse_a_description_past_openais_limit_and_count_characters() {
    use toolkit::limits::OPENAI_DESCRIPTION_LIMIT;
    use toolkit::spec::ExportError;
    let schema = serde_json::json!({"type": "object", "properties": {}});
    // 1 024 characters of two bytes each: at the limit, so taken.
    let at_limit = ToolSpec::new(
        "wordy",
        "é".repeat(OPENAI_DESCRIPTION_LIMIT),
        schema.clone(),
    );
    assert!(at_limit.openai().is_ok());
    assert!(at_limit.openai_strict().is_ok());
    let past = ToolSpec::new("wordy", "é".repeat(OPENAI_DESCRIPTION_LIMIT + 1), schema);
    for error in [
        past.openai().unwrap_err(),
        past.openai_strict().unwrap_err(),
    ] {
        assert!(matches!(
            error,
            ExportError::DescriptionTooLong {
                length: 1025,
                limit: 1024,
                ..
            }
        ));
        assert_eq!(
            error.to_string(),
            "tool \"wordy\": its description has 1025 characters, past OpenAI's limit of 1024: \
             shorten the doc comment (or `description = \"..\"`), moving detail into the \
             parameters' descriptions"
        );
    }
    // Anthropic and Gemini document no limit.
    assert!(past.anthropic()["description"].is_string());
    assert!(past.gemini().is_ok());
}

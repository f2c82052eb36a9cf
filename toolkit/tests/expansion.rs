//! The thin expansion (a tool whose parameters carry no `#[serde]` or `#[schemars]` attribute
//! gets its schema and decoder from generic helpers) against the derives (which a parameter
//! attribute selects): the same schema, the same decoded values, the same error for every
//! argument text.

use toolkit::{ToolCall, ToolContext, ToolLoopService, ToolRegistry, tool};

/// An `Option` under another name.
type MaybeNumber = Option<u8>;

/// Both tools' parameters, the same way.
#[tool]
fn thin(
    /// How many.
    ///
    /// At least one.
    count: u32,
    /// A note, if any.
    note: Option<String>,
    /// How loud.
    #[arg(default = 2)]
    level: i64,
    /// The kind.
    r#type: String,
    /// Named like the decoder's own variables.
    deserializer: Option<bool>,
    /// # Aliased
    ///
    /// An option by another name: optional all the same.
    aliased: MaybeNumber,
) -> String {
    let kind = r#type;
    format!("{count} {note:?} {level} {kind} {deserializer:?} {aliased:?}")
}

/// Both tools' parameters, the same way.
#[tool]
fn derived(
    /// How many.
    ///
    /// At least one.
    #[serde(rename = "count")]
    count: u32,
    /// A note, if any.
    note: Option<String>,
    /// How loud.
    #[arg(default = 2)]
    level: i64,
    /// The kind.
    r#type: String,
    /// Named like the decoder's own variables.
    deserializer: Option<bool>,
    /// # Aliased
    ///
    /// An option by another name: optional all the same.
    aliased: MaybeNumber,
) -> String {
    let kind = r#type;
    format!("{count} {note:?} {level} {kind} {deserializer:?} {aliased:?}")
}

/// No parameters at all.
#[tool]
fn bare() -> String {
    "bare".to_owned()
}

#[test]
fn the_thin_schema_is_the_derived_one() {
    let (thin, derived) = (THIN_TOOL.spec(), DERIVED_TOOL.spec());
    assert_eq!(thin.input_schema(), derived.input_schema());
    assert_eq!(
        thin.input_schema()["properties"]["count"],
        serde_json::json!({
            "type": "integer", "format": "uint32", "minimum": 0, "maximum": 4_294_967_295_u32,
            "description": "How many.\n\nAt least one."
        })
    );
    assert_eq!(
        thin.input_schema()["properties"]["level"]["default"],
        serde_json::json!(2)
    );
    assert_eq!(
        thin.input_schema()["required"],
        serde_json::json!(["count", "type"])
    );
    // A heading is the title; an alias of an `Option` is optional.
    assert_eq!(
        thin.input_schema()["properties"]["aliased"],
        serde_json::json!({
            "type": ["integer", "null"], "format": "uint8", "minimum": 0, "maximum": 255,
            "title": "Aliased", "description": "An option by another name: optional all the same."
        })
    );
    assert_eq!(
        BARE_TOOL.spec().input_schema(),
        &serde_json::json!({"type": "object", "additionalProperties": false})
    );
}

#[tokio::test]
async fn every_argument_text_decodes_or_fails_the_same_way() {
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    let scope = service.scope(ToolContext::new()).unwrap();
    let texts = [
        r#"{"count": 3, "type": "a"}"#,
        r#"{"count": 3, "type": "a", "note": "n", "level": 5, "deserializer": true}"#,
        r#"{"count": 3, "type": "a", "note": null, "level": null, "deserializer": null}"#,
        r#"{"type": "a"}"#,
        r#"{"count": 3}"#,
        r#"{"count": 3, "type": "a", "extra": 1}"#,
        r#"{"count": 3, "count": 4, "type": "a"}"#,
        r#"{"count": 3, "type": "a", "type": "b"}"#,
        r#"{"count": "3", "type": "a"}"#,
        r#"{"count": -1, "type": "a"}"#,
        r#"{"count": 3, "type": 7}"#,
        r#"{"count": 3, "type": "a", "level": "loud"}"#,
        r#"{"count": 3, "type": "a", "r#type": "b"}"#,
        r#"{"count": 3, "type": "a", "Count": 1}"#,
        "{}",
        "",
        "[]",
        "null",
        " 3",
        "true",
        r#""text""#,
        "not json",
        r#"{"count": 3, "type": "a""#,
        r#"{"count": 3, "type": "a\u0000"}"#,
    ];
    // Crafted objects of 20 000 keys: unknown ones, and one parameter given again and again.
    let unknown: Vec<String> = (0..20_000)
        .map(|key| format!("\"k{key}\": {key}"))
        .collect();
    let unknown = format!("{{\"count\": 3, \"type\": \"a\", {}}}", unknown.join(", "));
    let repeated = format!("{{{}}}", vec!["\"count\": 3"; 20_000].join(", "));
    let texts = texts
        .iter()
        .map(|text| (*text).to_owned())
        .chain([unknown, repeated]);
    for text in texts {
        let text = text.as_str();
        let thin = service
            .call_observed(&scope, "t", &ToolCall::new("1", "thin", text))
            .await;
        let derived = service
            .call_observed(&scope, "t", &ToolCall::new("1", "derived", text))
            .await;
        assert_eq!(
            (thin.content().replace("\"thin\"", "TOOL"), thin.is_error()),
            (
                derived.content().replace("\"derived\"", "TOOL"),
                derived.is_error()
            ),
            "{text}"
        );
    }
    let unknown = service
        .call_observed(&scope, "t", &ToolCall::new("1", "bare", r#"{"x": 1}"#))
        .await;
    assert_eq!(
        unknown.content(),
        "Error: invalid arguments for tool \"bare\" at \"x\": unknown field `x`, there are no fields."
    );
}

// control for fail/tool-attr-*.rs (argument types): parameters may be of any type deriving
// `serde::Deserialize` and `schemars::JsonSchema` (a struct, an enum), `Option<T>` is optional,
// `#[arg(default = EXPR)]` gives a default (also for `null`, as strict providers send), each
// parameter's doc comment describes it in the argument schema, and `#[serde(..)]` /
// `#[schemars(..)]` reach the decoder and the schema.
use schemars::JsonSchema;
use serde::Deserialize;
use toolkit::{ToolContext, ToolLoopService, ToolRegistry, ToolResult, tool};

/// A point on the plane.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// How to measure a distance.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Steps along the axes.
    Manhattan,
    /// The longer of the two axis distances.
    Chebyshev,
}

/// Says how far a point is from the origin.
#[tool]
pub fn distance(
    /// The point.
    point: Point,
    /// How to measure; Manhattan unless given.
    metric: Option<Metric>,
    /// Added to the distance.
    #[arg(default = 0)]
    #[serde(rename = "shift")]
    offset: i32,
    /// Multiplies the distance.
    #[arg(default = 1 + 1)]
    #[schemars(range(min = 1))]
    factor: i32,
) -> ToolResult {
    let (x, y) = (point.x.abs(), point.y.abs());
    let distance = match metric.unwrap_or(Metric::Manhattan) {
        Metric::Manhattan => x + y,
        Metric::Chebyshev => x.max(y),
    };
    ToolResult::text((distance * factor + offset).to_string())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = ToolRegistry::linked().expect("no duplicate tools");
    let spec = registry.get("distance").expect("linked").spec().clone();
    assert_eq!(
        spec.description(),
        "Says how far a point is from the origin."
    );
    let schema = spec.input_schema();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], serde_json::json!(["point"]));
    let properties = &schema["properties"];
    assert_eq!(properties["point"]["description"], "The point.");
    assert_eq!(
        properties["metric"]["description"],
        "How to measure; Manhattan unless given."
    );
    assert_eq!(properties["shift"]["default"], 0);
    assert!(properties.get("offset").is_none());
    assert_eq!(properties["factor"]["default"], 2);
    assert_eq!(properties["factor"]["minimum"], 1);
    assert!(properties["metric"].get("default").is_none(), "{schema}");

    let service = ToolLoopService::new(registry);
    let scope = service.scope(ToolContext::new()).unwrap();
    let cases = [
        (r#"{"point": {"x": 3, "y": -4}}"#, "14"),
        (r#"{"point": {"x": 3, "y": -4}, "metric": null}"#, "14"),
        (
            r#"{"point": {"x": 3, "y": -4}, "metric": "chebyshev"}"#,
            "8",
        ),
        (
            r#"{"point": {"x": 3, "y": -4}, "shift": 1, "factor": 1}"#,
            "8",
        ),
        (
            r#"{"point": {"x": 3, "y": -4}, "shift": null, "factor": null}"#,
            "14",
        ),
    ];
    for (arguments, content) in cases {
        let result = service.invoke(&scope, "distance", arguments).await;
        assert_eq!(
            (result.content(), result.is_error()),
            (content, false),
            "{arguments}"
        );
    }
    let refused = service
        .invoke(&scope, "distance", r#"{"metric": "euclid"}"#)
        .await;
    assert!(refused.is_error());
    assert!(
        refused.content().contains("metric"),
        "{}",
        refused.content()
    );
    let missing = service.invoke(&scope, "distance", r#"{"shift": 1}"#).await;
    assert!(missing.is_error());
    assert!(
        missing.content().contains("missing field `point`"),
        "{}",
        missing.content()
    );
}

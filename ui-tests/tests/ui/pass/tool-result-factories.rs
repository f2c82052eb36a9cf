// control for fail/tool-result-*.rs: results are made by the factories, read through accessors and
// shown with `Debug` (which redacts artifact data); an error result has no artifacts.
use toolkit::{ToolArtifact, ToolResult};

fn main() {
    let partial = ToolArtifact::text("Partial", "half-built secret");
    let done = ToolResult::text_with("done", [partial.clone()]);
    assert_eq!(done.content(), "done");
    assert!(!done.is_error());
    assert_eq!(done.artifacts(), std::slice::from_ref(&partial));

    let failed = ToolResult::error("Error: failed");
    assert_eq!(failed.content(), "Error: failed");
    assert!(failed.is_error());
    assert!(failed.artifacts().is_empty());

    assert_eq!(ToolResult::text(String::from("plain")).content(), "plain");
    assert_eq!(ToolResult::text_lossy(b"caf\xff").content(), "caf\u{FFFD}");

    let shown = format!("{done:?}");
    assert!(shown.contains("done") && shown.contains("Partial"));
    assert!(!shown.contains("half-built secret"));

    let content: String = done.content().to_owned();
    assert_eq!(content, "done");
    assert_eq!(
        serde_json::to_string(done.artifacts()).unwrap(),
        r#"[{"type":"text","label":"Partial","data":{"text":"half-built secret"}}]"#
    );
}

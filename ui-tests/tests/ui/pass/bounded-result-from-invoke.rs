// control for fail/unbounded-result-*.rs and fail/bounded-result-*.rs: a `ToolResult` becomes a
// `BoundedResult` (and so a `WireString`) only by going through the seam's `invoke`, which
// bounds both channels; before that its content is a plain `&str`.
use toolkit::bound::artifacts_len;
use toolkit::wire::MessageError;
use toolkit::{
    BoundedResult, ChatMessage, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry,
    ToolResult, WireString, tool,
};

/// Produces far more than the provider may see.
#[tool]
fn flood() -> ToolResult {
    ToolResult::text_with(
        "x".repeat(60_000),
        [ToolArtifact::text("Log", "secret ".repeat(10_000))],
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), MessageError> {
    let unbounded = ToolResult::text("x".repeat(60_000));
    let before_the_seam: &str = unbounded.content();
    assert_eq!(before_the_seam.len(), 60_000);

    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicate tools"));
    let scope = service.scope(ToolContext::new()).unwrap();
    let bounded: BoundedResult = service.invoke(&scope, "flood", "{}").await;

    let content: &WireString = bounded.wire();
    assert_eq!(content.len(), 50_000);
    assert!(content.ends_with("\n…[tool result truncated at 50000 bytes]"));
    assert!(artifacts_len(bounded.artifacts(), usize::MAX).unwrap() <= 50_000);
    assert_eq!(
        bounded.artifacts().last().map(ToolArtifact::label),
        Some("Artifacts omitted")
    );

    let message = ChatMessage::tool_result("call_1", content.clone())?;
    assert!(!serde_json::to_string(&message).unwrap().contains("secret"));
    Ok(())
}

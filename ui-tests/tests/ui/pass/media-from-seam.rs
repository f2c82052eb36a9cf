// control for fail/media-*.rs, fail/wire-media-*.rs and fail/tool-result-message-*.rs: media
// reaches the model only as a tool's `Media` through the seam, which makes the `WireMedia` a
// `WireString` carries; an artifact's media stays an artifact, and a tool-result message takes
// the `WireString`.
use toolkit::result::Media;
use toolkit::wire::WireMedia;
use toolkit::{ChatMessage, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry, ToolResult};
use toolkit::{WireString, tool};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n and the rest";

/// Draws a chart for the model, and shows people a bigger one.
#[tool]
fn chart() -> ToolResult {
    ToolResult::text_with("The chart:", [ToolArtifact::media("Big chart", "image/png", PNG)])
        .with_media(Media::png(PNG))
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicate tools"));
    let scope = service.scope(ToolContext::new()).unwrap();
    let bounded = service.invoke(&scope, "chart", "{}").await;
    let wire: WireString = bounded.wire().clone();
    let shown: &[WireMedia] = wire.media();
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0].mime_type(), "image/png");
    let part: WireMedia = shown[0].clone();
    assert_eq!(part.len(), PNG.len());
    assert_eq!(bounded.artifacts().len(), 1);
    let message = ChatMessage::tool_result("call_1", wire).expect("an id");
    assert!(matches!(message, ChatMessage::ToolResult(_)));
}

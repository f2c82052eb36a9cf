// control for fail/model-reply-from-artifact.rs, fail/artifacts-reply-built-by-hand.rs and
// fail/artifacts-reply-from-json.rs: a
// `ModelReply` comes from `McpToolServer::call` or `call_for_views` (the wire string, and a
// handle when a view may fetch the artifacts); an `ArtifactsReply` from the server by that
// handle; both become rmcp's `CallToolResult`.
use std::sync::Arc;

use toolkit::{Table, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry, ToolResult, tool};
use toolkit_mcp::rmcp::model::CallToolResult;
use toolkit_mcp::{ArtifactsReply, McpToolServer, ModelReply};

/// Lists the orders.
#[tool]
fn orders() -> ToolResult {
    let table = Table::from_rows(["order"], [["A-1"]]).expect("one column");
    ToolResult::text_with("1 order", [ToolArtifact::table("orders", table)])
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let service = Arc::new(ToolLoopService::new(
        ToolRegistry::linked().expect("no duplicate tools"),
    ));
    let server = McpToolServer::new(service, ToolContext::new()).expect("no state needed");

    let model: ModelReply = server.call("orders", None).await;
    assert_eq!((model.text(), model.is_error(), model.handle()), ("1 order", false, None));

    let model: ModelReply = server.call_for_views("orders", None).await;
    let handle = model.handle().expect("a view may fetch the artifacts").to_owned();
    let view: ArtifactsReply = server
        .artifacts(&handle)
        .await
        .expect("the store answers")
        .expect("kept");
    assert_eq!(view.tool(), "orders");
    let artifacts: &[serde_json::Value] = view.artifacts();
    assert_eq!(artifacts[0]["label"], "orders");

    let to_model = rmcp_result(model);
    assert!(to_model.structured_content.is_none());
    assert!(rmcp_result(view).structured_content.is_some());
}

fn rmcp_result(reply: impl Into<CallToolResult>) -> CallToolResult {
    reply.into()
}

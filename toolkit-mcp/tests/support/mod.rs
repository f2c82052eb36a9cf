//! What the HTTP tests of the server share: a service with a canary tool, serving it, and
//! posting one JSON-RPC message as a client of either revision does.

#![allow(dead_code, reason = "each test target uses part of it")]

use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::{Value, json};
use toolkit::{
    Table, Tool, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry, ToolResult, ToolSpec,
    spec::{ExecutePermit, ToolFuture},
};
use toolkit_builtins::WorkspaceRoot;

/// A tool whose artifacts hold canary strings (`CANARY-HTTP-`), offered as `http_canary` with
/// the builtins.
struct Canary(ToolSpec);

impl Tool for Canary {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        _context: &'a ToolContext,
        _permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        let table = Table::from_rows(["secret"], [["CANARY-HTTP-TABLE"]]).expect("one column");
        ToolFuture::Ready(Ok(ToolResult::text_with(
            "shown to people only",
            [
                ToolArtifact::table("CANARY-HTTP-LABEL", table),
                ToolArtifact::text("note", "CANARY-HTTP-TEXT"),
            ],
        )))
    }
}

pub fn service() -> Arc<ToolLoopService> {
    let mut registry = ToolRegistry::linked().expect("no duplicates");
    registry
        .register(Canary(ToolSpec::new(
            "http_canary",
            "Shows canaries.",
            json!({"type": "object"}),
        )))
        .expect("a new name");
    Arc::new(ToolLoopService::new(registry))
}

pub fn context() -> ToolContext {
    ToolContext::new().with_extension(WorkspaceRoot::new(
        toolkit_builtins::files::sample_workspace(),
    ))
}

/// Serves `service` on a free port of `runtime`: the endpoint's URL.
pub fn serve(runtime: &tokio::runtime::Runtime, service: &Arc<ToolLoopService>) -> String {
    let (bound, address) = std::sync::mpsc::channel::<SocketAddr>();
    runtime.spawn(toolkit_mcp::serve_http(
        Arc::clone(service),
        context(),
        0,
        move |address| bound.send(address).expect("the test waits"),
    ));
    let address = address.recv().expect("the server binds");
    format!("http://{address}{}", toolkit_mcp::HTTP_PATH)
}

/// What a 2026-07-28 request carries in its `_meta`: the revision, the client's capabilities
/// and who it is.
pub fn modern_meta(capabilities: &Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "revisions-test", "version": "1"},
    })
}

/// POSTs one JSON-RPC message with these headers: the status, the session id the server gave
/// (if any), and the JSON-RPC answer from the body (plain JSON or the `data:` of an event).
pub async fn post(
    url: &str,
    headers: &[(&str, &str)],
    message: &Value,
) -> (u16, Option<String>, Value) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(message.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|value| value.to_str().expect("ASCII").to_owned());
    let body = response.text().await.expect("a body");
    let answer = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| !data.is_empty())
        .map_or_else(
            || serde_json::from_str(&body).unwrap_or(Value::String(body.clone())),
            |data| serde_json::from_str(data).expect("an event's data is JSON"),
        );
    (status, session, answer)
}

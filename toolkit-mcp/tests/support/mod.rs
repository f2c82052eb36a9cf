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
/// the builtins; any spec, for a test of what is listed.
pub struct Canary(pub ToolSpec);

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
    Arc::new(ToolLoopService::new(registry()))
}

/// The builtins and `http_canary`, a hand-written tool with the default flags.
pub fn registry() -> ToolRegistry {
    let mut registry = toolkit_builtins::registry().expect("no duplicates");
    registry
        .register(Canary(ToolSpec::new(
            "http_canary",
            "Shows canaries.",
            json!({"type": "object"}),
        )))
        .expect("a new name");
    registry
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

/// POSTs one JSON-RPC message with these headers (`toolkit_testing::mcp::post`): the status, the
/// session id the server gave (if any), and the JSON-RPC answer.
pub async fn post(
    url: &str,
    headers: &[(&str, &str)],
    message: &Value,
) -> (u16, Option<String>, Value) {
    toolkit_testing::mcp::post(&reqwest::Client::new(), url, headers, message)
        .await
        .expect("the server answers")
}

//! The official Python MCP SDK's client against `serve_http` in process over streamable HTTP:
//! the reply carries the content only, while the event stream carries the artifacts. (Over
//! stdio: `python_client_stdio.rs`.)

use std::sync::Arc;

use serde_json::json;
use toolkit::{
    RunEvent, Table, Tool, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry, ToolResult,
    ToolSpec,
    spec::{ExecutePermit, ToolFuture},
};
use toolkit_builtins::WorkspaceRoot;
use toolkit_testing::mcp::{python, reply, run_client};

fn sample_context() -> ToolContext {
    ToolContext::new().with_extension(WorkspaceRoot::new(
        toolkit_builtins::files::sample_workspace(),
    ))
}

/// A tool whose artifacts hold canary strings.
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

#[test]
fn python_client_over_streamable_http_gets_content_while_subscribers_get_the_artifacts() {
    let Some(python) = python() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut registry = ToolRegistry::linked().expect("no duplicates");
    registry
        .register(Canary(ToolSpec::new(
            "http_canary",
            "Shows canaries.",
            json!({"type": "object"}),
        )))
        .expect("a new name");
    let service = Arc::new(ToolLoopService::new(registry));
    let mut events = service.subscribe();
    let (bound, address) = std::sync::mpsc::channel();
    runtime.spawn(toolkit_mcp::serve_http(
        Arc::clone(&service),
        sample_context(),
        0,
        move |address| bound.send(address).expect("the test waits"),
    ));
    let address = address.recv().expect("the server binds");
    let url = format!("http://{address}{}", toolkit_mcp::HTTP_PATH);

    let calls = json!([
        {"name": "http_canary", "arguments": {}},
        {"name": "calculate", "arguments": {"expression": "1 + 1"}},
    ]);
    let (output, stdout) = run_client(&python, &["http", &url], &calls);

    assert_eq!(
        reply(&output, 0),
        ("shown to people only".to_owned(), false)
    );
    assert_eq!(reply(&output, 1), ("1 + 1 = 2".to_owned(), false));
    assert!(!stdout.contains("CANARY"));

    // Each call was a run of its own on the event stream, with the artifacts.
    let mut runs = Vec::new();
    let mut canary_artifacts = Vec::new();
    while let Ok(event) = events.try_recv() {
        match &*event {
            RunEvent::RunStarted { run_id, .. } => runs.push(run_id.to_string()),
            RunEvent::ToolInvoked { invocation, .. } if invocation.name() == "http_canary" => {
                canary_artifacts.extend(
                    invocation
                        .artifacts()
                        .iter()
                        .map(|artifact| artifact.label().to_owned()),
                );
            }
            _ => {}
        }
    }
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs.iter().all(|run| run.starts_with("mcp_")), "{runs:?}");
    assert_eq!(canary_artifacts, ["CANARY-HTTP-LABEL", "note"]);
}

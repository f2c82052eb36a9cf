//! The official Python MCP SDK's client against `serve_http` in process over streamable HTTP:
//! the reply carries the content only, while the event stream carries the artifacts. (Over
//! stdio: `python_client_stdio.rs`.)

mod support;

use serde_json::json;
use toolkit::RunEvent;
use toolkit_testing::mcp::{python, reply, run_client};

#[test]
fn python_client_over_streamable_http_gets_content_while_subscribers_get_the_artifacts() {
    let Some(python) = python() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let service = support::service();
    let mut events = service.subscribe();
    let url = support::serve(&runtime, &service);

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

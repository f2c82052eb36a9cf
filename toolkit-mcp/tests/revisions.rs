//! The 2026-07-28 revision beside 2025-11-25 on the same endpoint: the official Python client
//! gets the same tools and replies over either, and a 2026-07-28 request carries all it needs
//! (protocol version and client capabilities in its `_meta`), so any instance answers it; a
//! 2025-11-25 session lives in the instance that opened it.

mod support;

use serde_json::json;
use support::{post, serve, service};
use toolkit_testing::mcp::{modern_meta, python, reply, run_client};

#[test]
fn the_python_client_gets_the_same_tools_and_replies_over_either_revision() {
    let Some(python) = python() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let url = serve(&runtime, &service());
    let calls = json!([
        {"name": "http_canary", "arguments": {}},
        {"name": "calculate", "arguments": {"expression": "1 + 1"}},
    ]);
    let mut listings = Vec::new();
    // `auto` asks server/discover first, and so speaks the newest revision both know.
    for (mode, agreed) in [
        ("legacy", "2025-11-25"),
        ("2026-07-28", "2026-07-28"),
        ("auto", "2026-07-28"),
    ] {
        let (output, stdout) = run_client(&python, &["http", &url, mode], &calls);
        assert_eq!(output["protocol_version"], agreed, "mode {mode}");
        assert_eq!(
            reply(&output, 0),
            ("shown to people only".to_owned(), false)
        );
        assert_eq!(reply(&output, 1), ("1 + 1 = 2".to_owned(), false));
        assert!(!stdout.contains("CANARY-HTTP-"), "mode {mode}");
        listings.push(output["tools"].clone());
    }
    assert!(listings.iter().all(|tools| *tools == listings[0]));
}

#[test]
fn a_2026_07_28_request_needs_no_session_so_any_instance_answers_it() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let service = service();
    let (first, second) = (serve(&runtime, &service), serve(&runtime, &service));
    runtime.block_on(async {
        let (status, session, discovered) = post(
            &first,
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "server/discover"),
            ],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                    "params": {"_meta": modern_meta(&json!({}))}}),
        )
        .await;
        assert_eq!((status, session), (200, None));
        let versions = &discovered["result"]["supportedVersions"];
        assert!(
            versions
                .as_array()
                .expect("a list")
                .iter()
                .any(|version| version == "2026-07-28")
                && versions
                    .as_array()
                    .expect("a list")
                    .iter()
                    .any(|version| version == "2025-11-25"),
            "{discovered}"
        );

        // The other instance answers the call: nothing of the first request is needed.
        let (status, session, answered) = post(
            &second,
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "calculate"),
            ],
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "calculate", "arguments": {"expression": "2+3"},
                               "_meta": modern_meta(&json!({}))}}),
        )
        .await;
        assert_eq!((status, session), (200, None));
        assert_eq!(
            answered["result"]["content"],
            json!([{"type": "text", "text": "2+3 = 5"}])
        );
        assert_eq!(answered["result"]["isError"], false);

        // A 2026-07-28 request without the headers that name it is refused, with the reason.
        let (status, _, refused) = post(
            &second,
            &[("mcp-protocol-version", "2026-07-28")],
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
                    "params": {"_meta": modern_meta(&json!({}))}}),
        )
        .await;
        assert_eq!(status, 400);
        assert_eq!(
            refused["error"]["message"],
            "missing required Mcp-Method header"
        );
    });
}

#[test]
fn a_2025_11_25_session_lives_in_the_instance_that_opened_it() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let service = service();
    let (first, second) = (serve(&runtime, &service), serve(&runtime, &service));
    runtime.block_on(async {
        let (status, session, initialized) = post(
            &first,
            &[],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "revisions-test", "version": "1"}}}),
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(initialized["result"]["protocolVersion"], "2025-11-25");
        let session = session.expect("a 2025-11-25 session has an id");
        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        let (status, _, _) = post(
            &first,
            &headers,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
        assert_eq!(status, 202);
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let (status, _, listed) = post(&first, &headers, &list).await;
        assert_eq!(status, 200);
        assert!(
            listed["result"]["tools"]
                .as_array()
                .is_some_and(|tools| !tools.is_empty())
        );
        // Another instance does not know the session: a balancer must keep such a client on
        // one instance (2026-07-28 clients need nothing of the kind).
        let (status, _, refused) = post(&second, &headers, &list).await;
        assert_eq!(status, 404);
        assert_eq!(refused, "Not Found: Session not found");
    });
}

//! `playground mcp` over stdio, spoken to as an MCP host would (newline-delimited JSON-RPC): the
//! reply carries only the wire content, and the call's artifacts land in the audit copy.

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Command, Stdio};

use playground::audit::{Audit, Privacy};
use serde_json::{Value, json};

fn send(stdin: &mut ChildStdin, message: &Value) {
    writeln!(stdin, "{message}").expect("written");
    stdin.flush().expect("flushed");
}

#[test]
fn an_mcp_call_answers_with_content_only_and_its_artifacts_reach_the_audit_copy() {
    let data = tempfile::tempdir().expect("temp dir");
    let audit_path = data.path().join("audit.sqlite3");
    let mut child = Command::new(env!("CARGO_BIN_EXE_playground"))
        .args(["mcp", "--audit"])
        .arg(&audit_path)
        .args(["--privacy", "full"])
        .env("XDG_DATA_HOME", data.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut receive = |id: u64| -> Value {
        loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).expect("read") > 0,
                "server closed"
            );
            let message: Value = serde_json::from_str(&line).expect("JSON-RPC");
            if message["id"] == id {
                return message;
            }
        }
    };
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "playground-test", "version": "0"}}}),
    );
    assert!(receive(1)["result"]["serverInfo"].is_object());
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "list_tables", "arguments": {}}}),
    );
    let reply = receive(2);
    let result = &reply["result"];
    assert_eq!(result["isError"], false);
    let content = result["content"].as_array().expect("content blocks");
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "text");
    let text = content[0]["text"].as_str().expect("text");
    assert!(text.contains("customers"), "{text}");
    assert!(result.get("structuredContent").is_none() && result.get("_meta").is_none());
    assert!(!reply.to_string().contains("\"artifacts\""));
    drop(stdin);
    assert!(child.wait().expect("exits").success());

    let audit = Audit::open(&audit_path, Privacy::Full).expect("reopens");
    let runs = audit.runs(10).expect("runs");
    assert_eq!(runs.len(), 1);
    assert!(runs[0].run_id.starts_with("mcp_"), "{}", runs[0].run_id);
    let (_, steps) = audit.run(&runs[0].run_id).expect("reads").expect("the run");
    let tool = steps
        .iter()
        .find(|step| step.kind == "tool")
        .expect("a tool step");
    assert_eq!(tool.name.as_deref(), Some("list_tables"));
    assert_eq!(tool.content.as_deref(), Some(text));
    assert_eq!(tool.artifact_count, 1);
    assert_eq!(tool.artifact_types, ["table"]);
}

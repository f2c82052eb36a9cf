//! `playground mcp` over stdio, spoken to as an MCP host would (newline-delimited JSON-RPC): the
//! reply carries only the wire content, and the call's artifacts land in the audit copy.

mod common;

use common::call_over_mcp;
use playground::audit::{Audit, Privacy};

#[test]
fn an_mcp_call_answers_with_content_only_and_its_artifacts_reach_the_audit_copy() {
    let data = tempfile::tempdir().expect("temp dir");
    let audit_path = data.path().join("audit.sqlite3");
    let reply = call_over_mcp(&audit_path, data.path(), "list_tables");
    let result = &reply["result"];
    assert_eq!(result["isError"], false);
    let content = result["content"].as_array().expect("content blocks");
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "text");
    let text = content[0]["text"].as_str().expect("text");
    assert!(text.contains("customers"), "{text}");
    assert!(result.get("structuredContent").is_none() && result.get("_meta").is_none());
    assert!(!reply.to_string().contains("\"artifacts\""));

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

//! `playground mcp` over stdio, spoken to as an MCP host would (newline-delimited JSON-RPC): the
//! reply carries only the wire content, and the call's artifacts land in the audit copy.

mod common;

use common::call_over_mcp;
use toolkit_audit::{Privacy, SqliteAudit};

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

    let audit = SqliteAudit::open(&audit_path, Privacy::Full).expect("reopens");
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

#[test]
fn two_mcp_processes_on_one_audit_file_keep_both_steps() {
    let data = tempfile::tempdir().expect("temp dir");
    let audit_path = data.path().join("audit.sqlite3");
    // Two servers at once on the same file, as two hosts would start them.
    let (first, second) = std::thread::scope(|threads| {
        let first = threads.spawn(|| call_over_mcp(&audit_path, data.path(), "text_stats"));
        let second = threads.spawn(|| call_over_mcp(&audit_path, data.path(), "uuid"));
        (first.join().expect("first"), second.join().expect("second"))
    });
    assert_eq!(first["result"]["isError"], true, "{first}");
    assert_eq!(second["result"]["isError"], false, "{second}");

    let audit = SqliteAudit::open(&audit_path, Privacy::Full).expect("reopens");
    let runs = audit.runs(10).expect("runs");
    assert_eq!(runs.len(), 2, "{runs:?}");
    let mut tools = Vec::new();
    for run in &runs {
        assert!(run.run_id.starts_with("mcp_"), "{}", run.run_id);
        let (_, steps) = audit.run(&run.run_id).expect("reads").expect("the run");
        assert_eq!(steps.len(), 1, "{steps:?}");
        tools.push(steps[0].name.clone().expect("a tool step"));
    }
    tools.sort();
    assert_eq!(tools, ["text_stats", "uuid"]);
}

#[test]
fn mcp_works_on_the_workspace_and_database_it_is_given() {
    let data = tempfile::tempdir().expect("temp dir");
    let audit_path = data.path().join("audit.sqlite3");
    let workspace = data.path().join("mine");
    std::fs::create_dir(&workspace).expect("folder");
    std::fs::write(workspace.join("only-here.txt"), "x").expect("file");
    let reply = common::call_over_mcp_with(
        &audit_path,
        data.path(),
        "list_directory",
        &[std::path::Path::new("--workspace"), &workspace],
    );
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert_eq!(text, "1 entry in \".\":\n- only-here.txt (file, 1 byte)");

    // An empty database of one's own: no tables, where the sample has five.
    let database = data.path().join("empty.db");
    rusqlite::Connection::open(&database)
        .and_then(|db| db.execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY);"))
        .expect("a database");
    let reply = common::call_over_mcp_with(
        &audit_path,
        data.path(),
        "list_tables",
        &[std::path::Path::new("--database"), &database],
    );
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.starts_with("The database has 1 table"), "{text}");
}

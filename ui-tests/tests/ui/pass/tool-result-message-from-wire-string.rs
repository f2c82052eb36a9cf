// control for fail/tool-result-message-*.rs: a tool-result message is built from the `WireString`
// the seam gives back, and carries none of the result's artifacts (table or text).
use toolkit::wire::MessageError;
use toolkit::{
    ChatMessage, Table, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry, ToolResult, tool,
};

/// Lists the files of a folder.
#[tool]
fn list_files() -> ToolResult {
    let table = Table::from_rows(["name", "size"], [["secret.txt", "12"], ["b.txt", "7"]])
        .expect("two cells for two columns");
    ToolResult::text_with(
        "2 files",
        [
            ToolArtifact::table("Files", table),
            ToolArtifact::text("Note", "run-only note"),
        ],
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), MessageError> {
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicate tools"));
    let scope = service.scope(ToolContext::new()).unwrap();
    let (content, is_error, artifacts) = service
        .invoke(&scope, "list_files", "{}")
        .await
        .into_parts();
    assert!(!is_error);

    let message = ChatMessage::tool_result("call_1", content)?;
    let wire = serde_json::to_string(&message).unwrap();
    assert_eq!(
        wire,
        r#"{"role":"tool_result","call_id":"call_1","content":"2 files"}"#
    );

    // The artifacts are still there, for people only.
    assert_eq!(
        artifacts[0].as_table().map(|table| table.rows().len()),
        Some(2)
    );
    assert_eq!(artifacts[1].as_text(), Some("run-only note"));
    assert!(!wire.contains("secret.txt") && !wire.contains("run-only note"));
    Ok(())
}

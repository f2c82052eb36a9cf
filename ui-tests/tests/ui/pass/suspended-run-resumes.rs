// control for the suspended-state cases: a run suspends for approval, its state crosses the
// process boundary only as a sealed token, and the token resumes it.
use toolkit::approval::Decision;
use toolkit::provider::ScriptedProvider;
use toolkit::recording::Termination;
use toolkit::seal::{Resumable, SuspendedRunState};
use toolkit::{
    ChatMessage, RunOptions, RunRequest, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry,
    ToolResult, tool,
};

/// Drops a table (needs an operator).
#[tool(requires_approval)]
fn drop_table(
    /// The table.
    name: String,
) -> ToolResult {
    ToolResult::text_with(
        format!("dropped {name}"),
        [ToolArtifact::text("Log", "dropped")],
    )
}

fn resumable<T: Resumable>() {}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    resumable::<SuspendedRunState>();
    resumable::<Vec<ChatMessage>>();
    resumable::<RunOptions>();
    let script = r#"{"turns": [
        {"tool_calls": [{"id": "d1", "name": "drop_table", "arguments": {"name": "t"}}]},
        {"content": "done"}
    ]}"#;
    let provider = ScriptedProvider::from_json(script).unwrap();
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let options = RunOptions::default().with_max_iterations(3);
    let request = RunRequest::new("drop t").with_options(options);
    let suspended = service.run(&provider, request).await.unwrap();
    assert_eq!(suspended.termination, Termination::Suspended);
    let token = suspended.suspension.unwrap().token;
    let resumed = service
        .resume(
            &provider,
            &token,
            &[Decision::approve("d1")],
            ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(resumed.content, "done");
    let assistant = ChatMessage::assistant("text only", Vec::new());
    assert!(matches!(assistant, ChatMessage::Assistant { .. }));
}

// control for fail/approval-proof-*.rs: a tool that requires approval runs only once an
// operator approves the suspended call; the proof is made and spent inside toolkit, and a
// direct call without one is refused.
use toolkit::approval::Decision;
use toolkit::provider::ScriptedProvider;
use toolkit::recording::Termination;
use toolkit::seam::Approval;
use toolkit::{RunRequest, ToolContext, ToolLoopService, ToolRegistry, tool};

/// Deletes everything (needs an operator).
#[tool(requires_approval)]
fn delete_everything() -> String {
    "deleted".to_owned()
}

/// What a proof looks like from outside: a type to hold, never to make.
fn holds(proof: Option<&Approval>) -> Option<&str> {
    proof.map(Approval::call_id)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    assert_eq!(holds(None), None);
    let script = r#"{"turns": [
        {"tool_calls": [{"id": "d1", "name": "delete_everything"}]},
        {"content": "done"}
    ]}"#;
    let provider = ScriptedProvider::from_json(script).unwrap();
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let scope = service.scope(ToolContext::new()).unwrap();
    let refused = service.invoke(&scope, "delete_everything", "{}").await;
    assert_eq!(
        refused.content(),
        "Error: tool \"delete_everything\" requires approval that was not given."
    );
    let suspended = service
        .run(&provider, RunRequest::new("clean"))
        .await
        .unwrap();
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
    assert_eq!(
        resumed.trace.invocations().next().unwrap().content(),
        "deleted"
    );
}

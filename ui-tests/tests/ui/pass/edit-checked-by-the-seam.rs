// control for fail/approval-edit-*.rs and fail/approval-proof-for-another-call.rs: an operator's
// edit reaches a call only through the seam's check (`Seam::check_edit`, or `Decision::edit` on a
// resume, which makes the same check before the token is spent); the approval of the edited call
// is made (by `Seam::approve`, which checks its preview) and spent inside toolkit.
use toolkit::approval::Decision;
use toolkit::provider::ScriptedProvider;
use toolkit::recording::Termination;
use toolkit::seam::{Approval, CheckedEdit, RunScope, Seam};
use toolkit::{RunError, RunRequest, ToolCall, ToolContext, ToolLoopService, ToolRegistry, tool};

/// Renames the project (needs an operator).
#[tool(requires_approval)]
fn rename(
    /// The new name.
    to: String,
) -> String {
    format!("renamed to {to}")
}

/// What a proof and a checked edit look like from outside: types to hold, never to make.
fn holds<'a>(
    proof: Option<&'a Approval>,
    edit: Option<&'a CheckedEdit>,
) -> (Option<&'a str>, Option<&'a str>) {
    (
        proof.map(Approval::call_id),
        edit.map(|edit| edit.call().arguments()),
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    assert_eq!(holds(None, None), (None, None));
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let scope: RunScope = service
        .scope_offering(ToolContext::new(), ["rename"])
        .unwrap();
    let seam: &Seam = service.seam();
    let call = ToolCall::new("r1", "rename", r#"{"to": "old"}"#);
    let edit = seam.check_edit(&scope, &call, r#"{"to": "new"}"#).unwrap();
    assert_eq!(
        (edit.call().id(), edit.call().arguments()),
        ("r1", r#"{"to": "new"}"#)
    );
    assert_eq!(
        seam.check_edit(&scope, &call, r#"{"to": 1}"#).unwrap_err(),
        "Error: invalid arguments for tool \"rename\" at \"to\": invalid type: integer `1`, expected a string."
    );

    let script = r#"{"turns": [
        {"tool_calls": [{"id": "r1", "name": "rename", "arguments": {"to": "old"}}]},
        {"content": "done"}
    ]}"#;
    let provider = ScriptedProvider::from_json(script).unwrap();
    let request = RunRequest::new("rename it").with_tools(["rename"]);
    let suspended = service.run(&provider, request).await.unwrap();
    assert_eq!(suspended.termination, Termination::Suspended);
    let token = suspended.suspension.unwrap().token;
    let refused = service
        .resume(
            &provider,
            &token,
            &[Decision::edit("r1", "{}")],
            ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert!(matches!(refused, RunError::InvalidEdit { .. }));
    let resumed = service
        .resume(
            &provider,
            &token,
            &[Decision::edit("r1", r#"{"to": "new"}"#)],
            ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        resumed.trace.invocations().next().unwrap().content(),
        "renamed to new"
    );
}

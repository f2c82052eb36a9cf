// control for fail/approval-question-struct-literal.rs: a question about a call comes from the
// service, for a call of a tool that requires approval, and an approving answer runs exactly it.
use toolkit::approval::Choice;
use toolkit::question::Question;
use toolkit::{ToolCall, ToolContext, ToolLoopService, ToolRegistry, tool};

/// Deletes everything (needs an operator).
#[tool(requires_approval)]
fn delete_everything() -> String {
    "deleted".to_owned()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let scope = service.scope(ToolContext::new()).unwrap();
    let call = ToolCall::new("w1", "delete_everything", "{}");
    let question: Question = service.question(&scope, "host", call).await.unwrap();
    assert_eq!(question.call().id(), "w1");
    let ran = service
        .answer(&scope, "host", question, Some(Choice::Approve))
        .await
        .unwrap();
    assert_eq!(ran.content(), "deleted");
}

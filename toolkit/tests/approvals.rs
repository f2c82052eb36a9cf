//! Approvals are the seam's, not the loop's: a tool that requires one runs only with an
//! operator's proof for that exact call, and a sealed token opens once, within its lifetime,
//! with everything it restores checked as if new.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use toolkit::provider::ScriptedProvider;
use toolkit::{
    ChatMessage, Decision, RunError, RunRequest, Termination, TokenError, ToolContext,
    ToolLoopService, ToolRegistry, tool,
};

static WIPES: AtomicUsize = AtomicUsize::new(0);

/// Wipes a disk (needs an operator).
#[tool(requires_approval)]
fn wipe(
    /// Which disk.
    disk: String,
) -> String {
    WIPES.fetch_add(1, Ordering::SeqCst);
    format!("wiped {disk}")
}

const SCRIPT: &str = r#"{"turns": [
    {"tool_calls": [{"id": "w1", "name": "wipe", "arguments": {"disk": "sda"}}]},
    {"content": "wiped"}
]}"#;

fn service() -> ToolLoopService {
    ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
}

fn provider() -> ScriptedProvider {
    ScriptedProvider::from_json(SCRIPT).expect("a valid script")
}

async fn suspend(service: &ToolLoopService) -> String {
    let suspended = service
        .run(&provider(), RunRequest::new("wipe sda"))
        .await
        .expect("runs");
    assert_eq!(suspended.termination, Termination::Suspended);
    suspended.suspension.expect("suspended").token
}

fn tool_results(messages: &[ChatMessage]) -> Vec<(String, String)> {
    messages
        .iter()
        .filter_map(|message| match message {
            ChatMessage::ToolResult(result) => Some((
                result.call_id().to_owned(),
                result.content().as_str().to_owned(),
            )),
            _ => None,
        })
        .collect()
}

// One test drives the counter, so the counts are exact.
#[tokio::test]
async fn only_an_operators_approval_runs_the_tool_and_only_once() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    let before = WIPES.load(Ordering::SeqCst);

    // The seam itself refuses: no loop, no approval, no run.
    let direct = service.invoke(&scope, "wipe", r#"{"disk": "sda"}"#).await;
    assert_eq!(
        (direct.content().as_str(), direct.is_error()),
        (
            "Error: tool \"wipe\" requires approval that was not given.",
            true
        )
    );
    // Arguments that do not decode are said first: nobody should approve a call that cannot run.
    let bad = service.invoke(&scope, "wipe", r#"{"disk": 1}"#).await;
    assert_eq!(
        bad.content().as_str(),
        "Error: invalid arguments for tool \"wipe\" at \"disk\": invalid type: integer `1`, expected a string."
    );
    assert_eq!(WIPES.load(Ordering::SeqCst), before);

    // An approved resume runs the call once.
    let token = suspend(&service).await;
    let resumed = service
        .resume(
            &provider(),
            &token,
            &[Decision::approve("w1")],
            ToolContext::new(),
        )
        .await
        .expect("resumes");
    assert_eq!(WIPES.load(Ordering::SeqCst), before + 1);
    assert_eq!(
        tool_results(&resumed.messages),
        [("w1".to_owned(), "wiped sda".to_owned())]
    );

    // The same token again runs nothing, whatever the decisions.
    for decisions in [
        vec![Decision::approve("w1")],
        vec![Decision::deny("w1")],
        vec![],
    ] {
        assert_eq!(
            service
                .resume(&provider(), &token, &decisions, ToolContext::new())
                .await
                .unwrap_err(),
            RunError::Token(TokenError::AlreadyUsed)
        );
    }
    assert_eq!(WIPES.load(Ordering::SeqCst), before + 1);

    // Sixteen resumes of one fresh token at once: exactly one runs.
    let service = Arc::new(self::service());
    let token = Arc::new(suspend(&service).await);
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let service = Arc::clone(&service);
            let token = Arc::clone(&token);
            tokio::spawn(async move {
                service
                    .resume(
                        &provider(),
                        &token,
                        &[Decision::approve("w1")],
                        ToolContext::new(),
                    )
                    .await
                    .map(|result| result.termination)
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.push(task.await.expect("the task ends"));
    }
    let won = outcomes.iter().filter(|outcome| outcome.is_ok()).count();
    assert_eq!(won, 1, "{outcomes:?}");
    assert!(
        outcomes
            .iter()
            .filter(|outcome| outcome.is_err())
            .all(|outcome| outcome == &Err(RunError::Token(TokenError::AlreadyUsed)))
    );
    assert_eq!(WIPES.load(Ordering::SeqCst), before + 2);
}

#[tokio::test]
async fn an_expired_token_opens_no_more() {
    let service = service().with_token_lifetime(Duration::ZERO);
    let token = suspend(&service).await;
    assert_eq!(
        service
            .resume(
                &provider(),
                &token,
                &[Decision::approve("w1")],
                ToolContext::new()
            )
            .await
            .unwrap_err(),
        RunError::Token(TokenError::Expired)
    );
    assert_eq!(
        TokenError::Expired.to_string(),
        "the token has expired: a suspended run must be resumed within its token's lifetime"
    );
}

#[tokio::test]
async fn decisions_must_name_pending_calls_and_agree_and_a_refused_resume_spends_nothing() {
    let service = service();
    let token = suspend(&service).await;
    assert_eq!(
        service
            .resume(
                &provider(),
                &token,
                &[Decision::approve("w1"), Decision::deny("w1")],
                ToolContext::new(),
            )
            .await
            .unwrap_err(),
        RunError::ConflictingDecisions("w1".to_owned())
    );
    assert_eq!(
        service
            .resume(
                &provider(),
                &token,
                &[Decision::approve("w2")],
                ToolContext::new()
            )
            .await
            .unwrap_err(),
        RunError::UnknownDecision("w2".to_owned())
    );
    // Neither spent the token: a denial still resumes it, and nothing ran.
    let resumed = service
        .resume(
            &provider(),
            &token,
            &[Decision::deny("w1")],
            ToolContext::new(),
        )
        .await
        .expect("resumes");
    assert_eq!(
        tool_results(&resumed.messages),
        [(
            "w1".to_owned(),
            "Error: tool \"wipe\" was denied by the operator.".to_owned()
        )]
    );
}

#[tokio::test]
async fn a_call_that_could_not_run_is_answered_at_once_instead_of_waiting_for_an_operator() {
    let service = service();
    let provider = ScriptedProvider::from_json(
        r#"{"turns": [
            {"tool_calls": [{"id": "w1", "name": "wipe", "arguments": {"disk": 1}}]},
            {"content": "I will fix the arguments."}
        ]}"#,
    )
    .unwrap();
    let result = service
        .run(&provider, RunRequest::new("wipe"))
        .await
        .expect("runs");
    assert_eq!(result.termination, Termination::Answered);
    assert!(result.suspension.is_none());
    assert_eq!(
        tool_results(&result.messages),
        [(
            "w1".to_owned(),
            "Error: invalid arguments for tool \"wipe\" at \"disk\": invalid type: integer `1`, expected a string.".to_owned()
        )]
    );
}

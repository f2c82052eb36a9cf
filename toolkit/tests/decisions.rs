//! What an operator can decide about a waiting call besides yes and no (deny with a reason, edit
//! the arguments, approve the tool for the rest of the run, stop the run), what a policy
//! written as code decides without asking, and that every decision is in the run's record.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use toolkit::provider::ScriptedProvider;
use toolkit::{
    ChatMessage, RunError, RunRequest, ToolContext, ToolLoopResult, ToolLoopService, ToolRegistry,
    approval::{ApprovalPolicy, Decision, PendingCall, PolicyAnswer},
    recording::{RunStep, Termination},
    seal::TokenError,
    seam::SecretFilter,
    tool,
};

/// What the tools below did, as `"tool:doc"`.
static DONE: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Archives a document (needs an operator; no preview).
#[tool(requires_approval)]
fn archive(
    /// Which document.
    doc: String,
) -> String {
    DONE.lock().unwrap().push(format!("archive:{doc}"));
    format!("archived {doc}")
}

/// Publishes a document (needs an operator; previewed by `show_publish`).
#[tool(requires_approval, preview = "show_publish")]
fn publish(
    /// Which document.
    doc: String,
) -> String {
    DONE.lock().unwrap().push(format!("publish:{doc}"));
    format!("published {doc}")
}

/// Says what publishing would do.
#[tool(read_only)]
fn show_publish(
    /// Which document.
    doc: String,
) -> String {
    format!("{doc} would go public")
}

/// What was done to documents starting with `prefix`, in order (each test has its own).
fn done_with(prefix: &str) -> Vec<String> {
    DONE.lock()
        .unwrap()
        .iter()
        .filter(|done| {
            done.split_once(':')
                .is_some_and(|(_, doc)| doc.starts_with(prefix))
        })
        .cloned()
        .collect()
}

fn service() -> ToolLoopService {
    ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
}

/// A provider playing `turns` (each a list of `[id, tool, doc]` calls), then answering "done".
fn provider(turns: &[&[(&str, &str, &str)]]) -> ScriptedProvider {
    let mut script: Vec<Value> = turns
        .iter()
        .map(|calls| {
            let calls: Vec<Value> = calls
                .iter()
                .map(|(id, name, doc)| json!({"id": id, "name": name, "arguments": {"doc": doc}}))
                .collect();
            json!({"tool_calls": calls})
        })
        .collect();
    script.push(json!({"content": "done"}));
    ScriptedProvider::from_json(&json!({ "turns": script }).to_string()).expect("a valid script")
}

fn request() -> RunRequest {
    RunRequest::new("tidy up").with_tools(["archive", "publish", "show_publish"])
}

async fn suspended(service: &ToolLoopService, provider: &ScriptedProvider) -> ToolLoopResult {
    let result = service.run(provider, request()).await.expect("runs");
    assert_eq!(result.termination, Termination::Suspended);
    result
}

/// The ids of the calls a suspended run waits on, in the turn's order.
fn pending_ids(result: &ToolLoopResult) -> Vec<&str> {
    let suspension = result.suspension.as_ref().expect("suspended");
    suspension
        .pending
        .iter()
        .map(toolkit::ToolCall::id)
        .collect()
}

fn token(result: &ToolLoopResult) -> String {
    result.suspension.as_ref().expect("suspended").token.clone()
}

/// The tool results the model was sent: `(call id, content, is error)`.
fn tool_results(messages: &[ChatMessage]) -> Vec<(String, String)> {
    messages
        .iter()
        .filter_map(|message| match message {
            ChatMessage::ToolResult(result) => {
                Some((result.call_id().to_owned(), result.content().to_owned()))
            }
            _ => None,
        })
        .collect()
}

/// The decisions of the trace's `resumed` and `decided` steps, as recorded (JSON); each
/// decision's name (what the audit copy and the terminal show) is the one its record has.
fn recorded_decisions(result: &ToolLoopResult) -> Vec<Value> {
    let mut recorded = Vec::new();
    for step in result.trace.steps() {
        if let RunStep::Resumed { decisions, .. } | RunStep::Decided { decisions, .. } = step {
            for decision in decisions {
                assert_eq!(
                    serde_json::to_value(decision).unwrap()["decision"],
                    decision.decided.as_str()
                );
            }
            recorded.push(serde_json::to_value(step).unwrap());
        }
    }
    recorded
}

#[tokio::test]
async fn a_denial_with_a_reason_is_what_the_model_reads_bounded_and_masked() {
    let service = service().with_content_filter(Arc::new(SecretFilter));
    let provider = provider(&[&[("a1", "archive", "deny-1")]]);
    let first = suspended(&service, &provider).await;
    let reason = "Not that one: it is still in use (use key AKIAIOSFODNN7EXAMPLE).";
    let resumed = service
        .resume(
            &provider,
            &token(&first),
            &[Decision::deny_with_reason("a1", reason)],
            ToolContext::new(),
        )
        .await
        .expect("resumes");
    assert_eq!(resumed.termination, Termination::Answered);
    assert!(done_with("deny-").is_empty());
    // Masked like any tool content on its way to the model.
    assert_eq!(
        tool_results(&resumed.messages),
        [(
            "a1".to_owned(),
            "Not that one: it is still in use (use key [REDACTED]).".to_owned()
        )]
    );
    let tool = resumed
        .trace
        .invocations()
        .next()
        .expect("the refusal's step");
    assert!(tool.is_error());
    // The record keeps the operator's words as given.
    assert_eq!(
        recorded_decisions(&resumed),
        [json!({"kind": "resumed", "decisions": [
            {"call_id": "a1", "tool": "archive", "by": "operator", "decision": "denied", "reason": reason}
        ]})]
    );

    // Bounded like any content; an empty reason is the standard refusal.
    let provider = provider_of_two("deny-2");
    let first = suspended(&service, &provider).await;
    let resumed = service
        .resume(
            &provider,
            &token(&first),
            &[
                Decision::deny_with_reason("a1", "x".repeat(80_000)),
                Decision::deny_with_reason("a2", "  "),
            ],
            ToolContext::new(),
        )
        .await
        .expect("resumes");
    let results = tool_results(&resumed.messages);
    assert_eq!(
        results[0].1,
        format!(
            "{}{}",
            "x".repeat(49_958),
            toolkit::bound::TRUNCATION_MARKER
        )
    );
    assert_eq!(
        results[1],
        (
            "a2".to_owned(),
            "Error: tool \"archive\" was denied by the operator.".to_owned()
        )
    );
}

fn provider_of_two(prefix: &str) -> ScriptedProvider {
    let first = format!("{prefix}a");
    let second = format!("{prefix}b");
    provider(&[&[("a1", "archive", &first), ("a2", "archive", &second)]])
}

#[tokio::test]
async fn an_edit_runs_the_checked_arguments_and_the_record_keeps_both_versions() {
    let service = service();
    let provider = provider(&[&[("a1", "archive", "edit-old")]]);
    let first = suspended(&service, &provider).await;
    let token = token(&first);

    // Arguments the tool's decoder refuses: nothing runs, the token is not spent.
    for (edit, message) in [
        (
            r#"{"doc": 1}"#,
            "Error: invalid arguments for tool \"archive\" at \"doc\": invalid type: integer `1`, expected a string.",
        ),
        (
            "{}",
            "Error: invalid arguments for tool \"archive\": missing field `doc`.",
        ),
    ] {
        assert_eq!(
            service
                .resume(
                    &provider,
                    &token,
                    &[Decision::edit("a1", edit)],
                    ToolContext::new()
                )
                .await
                .unwrap_err(),
            RunError::InvalidEdit {
                call_id: "a1".to_owned(),
                message: message.to_owned()
            }
        );
    }
    assert!(done_with("edit-").is_empty());

    let resumed = service
        .resume(
            &provider,
            &token,
            &[Decision::edit("a1", r#"{"doc": "edit-new"}"#)],
            ToolContext::new(),
        )
        .await
        .expect("resumes");
    assert_eq!(done_with("edit-"), ["archive:edit-new"]);
    assert_eq!(
        tool_results(&resumed.messages),
        [("a1".to_owned(), "archived edit-new".to_owned())]
    );
    // The conversation asks for what ran.
    let asked: Vec<String> = resumed
        .messages
        .iter()
        .filter_map(|message| match message {
            ChatMessage::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
                Some(tool_calls[0].arguments().to_owned())
            }
            _ => None,
        })
        .collect();
    assert_eq!(asked, [r#"{"doc": "edit-new"}"#]);
    assert_eq!(
        recorded_decisions(&resumed),
        [json!({"kind": "resumed", "decisions": [{
            "call_id": "a1", "tool": "archive", "by": "operator", "decision": "edited",
            "original": r#"{"doc":"edit-old"}"#, "arguments": r#"{"doc": "edit-new"}"#
        }]})]
    );
    assert_eq!(
        resumed.trace.invocations().next().unwrap().arguments(),
        r#"{"doc": "edit-new"}"#
    );
}

#[tokio::test]
async fn an_edit_of_a_previewed_call_waits_again_with_the_new_preview() {
    let service = service();
    let provider = provider(&[&[("p1", "publish", "prev-old"), ("a1", "archive", "prev-x")]]);
    let first = suspended(&service, &provider).await;
    assert_eq!(
        first.suspension.as_ref().unwrap().previews[0].text,
        "prev-old would go public"
    );
    let second = service
        .resume(
            &provider,
            &token(&first),
            &[
                Decision::edit("p1", r#"{"doc": "prev-new"}"#),
                Decision::approve("a1"),
            ],
            ToolContext::new(),
        )
        .await
        .expect("resumes");
    // The approved call ran; the edited one waits with its new arguments and preview.
    assert_eq!(second.termination, Termination::Suspended);
    assert_eq!(done_with("prev-"), ["archive:prev-x"]);
    let suspension = second.suspension.as_ref().unwrap();
    assert_eq!(suspension.pending.len(), 1);
    assert_eq!(
        (
            suspension.pending[0].id(),
            suspension.pending[0].arguments()
        ),
        ("p1", r#"{"doc": "prev-new"}"#)
    );
    assert_eq!(suspension.previews[0].text, "prev-new would go public");
    // The first token is spent.
    assert_eq!(
        service
            .resume(
                &provider,
                &token(&first),
                &[Decision::approve("p1")],
                ToolContext::new()
            )
            .await
            .unwrap_err(),
        RunError::Token(TokenError::AlreadyUsed)
    );
    let done = service
        .resume(
            &provider,
            &token(&second),
            &[Decision::approve("p1")],
            ToolContext::new(),
        )
        .await
        .expect("resumes");
    assert_eq!(done.termination, Termination::Answered);
    assert_eq!(done_with("prev-"), ["archive:prev-x", "publish:prev-new"]);
    assert_eq!(
        tool_results(&done.messages),
        [
            ("p1".to_owned(), "published prev-new".to_owned()),
            ("a1".to_owned(), "archived prev-x".to_owned())
        ]
    );
}

#[tokio::test]
async fn an_abort_ends_the_run_runs_nothing_and_spends_the_token() {
    let service = service();
    let provider = provider(&[&[("a1", "archive", "abort-1"), ("p1", "publish", "abort-2")]]);
    let first = suspended(&service, &provider).await;
    let token = token(&first);
    let aborted = service.abort(&token).await.expect("aborts");
    assert_eq!(aborted.termination, Termination::Aborted);
    assert_eq!(aborted.iterations, 1);
    assert!(tool_results(&aborted.messages).is_empty());
    assert!(done_with("abort-").is_empty());
    assert_eq!(
        recorded_decisions(&aborted),
        [json!({"kind": "resumed", "decisions": [
            {"call_id": "a1", "tool": "archive", "by": "operator", "decision": "aborted"},
            {"call_id": "p1", "tool": "publish", "by": "operator", "decision": "aborted"}
        ]})]
    );
    for again in [
        service.abort(&token).await.unwrap_err(),
        service
            .resume(
                &provider,
                &token,
                &[Decision::approve("a1")],
                ToolContext::new(),
            )
            .await
            .unwrap_err(),
    ] {
        assert_eq!(again, RunError::Token(TokenError::AlreadyUsed));
    }
    assert!(done_with("abort-").is_empty());
}

#[tokio::test]
async fn approving_a_tool_for_the_run_answers_its_later_calls_and_no_other_tool() {
    let service = service();
    let provider = provider(&[
        &[("a1", "archive", "run-1")],
        &[("a2", "archive", "run-2"), ("p1", "publish", "run-3")],
    ]);
    let first = suspended(&service, &provider).await;
    let second = service
        .resume(
            &provider,
            &token(&first),
            &[Decision::approve_for_run("a1")],
            ToolContext::new(),
        )
        .await
        .expect("resumes");
    // The later archive ran without a question; publish still waits.
    assert_eq!(second.termination, Termination::Suspended);
    assert_eq!(done_with("run-"), ["archive:run-1", "archive:run-2"]);
    assert_eq!(pending_ids(&second), ["p1"]);
    assert_eq!(
        recorded_decisions(&second),
        [
            json!({"kind": "resumed", "decisions": [
                {"call_id": "a1", "tool": "archive", "by": "operator", "decision": "approved_for_run"}
            ]}),
            json!({"kind": "decided", "decisions": [
                {"call_id": "a2", "tool": "archive", "by": "approved_for_run", "decision": "approved"}
            ]})
        ]
    );
    // The approval is sealed into the next token: it holds after this resume too.
    let third = service
        .resume(
            &provider,
            &token(&second),
            &[Decision::deny("p1")],
            ToolContext::new(),
        )
        .await
        .expect("resumes");
    assert_eq!(third.termination, Termination::Answered);
    assert_eq!(done_with("run-"), ["archive:run-1", "archive:run-2"]);
}

/// Approves archiving drafts, denies archiving anything secret, asks about the rest; counts
/// the calls it is asked about.
struct Drafts {
    asked: Arc<AtomicUsize>,
}

impl ApprovalPolicy for Drafts {
    fn name(&self) -> &'static str {
        "drafts"
    }

    fn decide(&self, pending: &PendingCall<'_>) -> PolicyAnswer {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let doc: Value = serde_json::from_str(pending.call.arguments()).unwrap();
        let doc = doc["doc"].as_str().unwrap_or_default();
        match pending.call.name() {
            "archive" if doc.contains("draft") => {
                PolicyAnswer::Approve(format!("{doc} is a draft"))
            }
            _ if doc.contains("secret") => PolicyAnswer::Deny(format!("{doc} stays put.")),
            _ if doc.contains("blank") => PolicyAnswer::Deny(" ".to_owned()),
            _ => PolicyAnswer::Ask,
        }
    }
}

/// What the model reads when a policy denies without a reason.
const BLANK_DENIAL: &str = "Error: tool \"archive\" was denied by the approval policy \"drafts\".";

/// A policy that fails: taken to ask.
struct Broken;

impl ApprovalPolicy for Broken {
    fn name(&self) -> &'static str {
        "broken"
    }

    fn decide(&self, _: &PendingCall<'_>) -> PolicyAnswer {
        panic!("a policy bug")
    }
}

#[tokio::test]
async fn a_policy_answers_before_the_run_stops_and_its_name_is_on_the_step() {
    let asked = Arc::new(AtomicUsize::new(0));
    let service = service()
        .with_approval_policy(Broken)
        .with_approval_policy(Drafts {
            asked: Arc::clone(&asked),
        });
    let script = r#"{"turns": [
        {"tool_calls": [
            {"id": "a1", "name": "archive", "arguments": {"doc": "policy-draft"}},
            {"id": "a2", "name": "archive", "arguments": {"doc": "policy-secret"}},
            {"id": "a3", "name": "archive", "arguments": {"doc": "policy-other"}},
            {"id": "a4", "name": "archive", "arguments": {"doc": 4}},
            {"id": "a5", "name": "archive", "arguments": {"doc": "policy-blank"}},
            {"id": "p1", "name": "publish", "arguments": {"doc": "policy-draft"}}
        ]},
        {"content": "done"}
    ]}"#;
    let provider = ScriptedProvider::from_json(script).unwrap();
    let result = service.run(&provider, request()).await.expect("runs");
    assert_eq!(result.termination, Termination::Suspended);
    assert_eq!(done_with("policy-"), ["archive:policy-draft"]);
    assert_eq!(pending_ids(&result), ["a3", "p1"]);
    assert_eq!(
        recorded_decisions(&result),
        [json!({"kind": "decided", "decisions": [
            {"call_id": "a1", "tool": "archive", "by": "policy", "policy": "drafts",
             "why": "policy-draft is a draft", "decision": "approved"},
            {"call_id": "a2", "tool": "archive", "by": "policy", "policy": "drafts",
             "why": "policy-secret stays put.", "decision": "denied", "reason": "policy-secret stays put."},
            {"call_id": "a5", "tool": "archive", "by": "policy", "policy": "drafts",
             "why": BLANK_DENIAL, "decision": "denied", "reason": BLANK_DENIAL}
        ]})]
    );
    // The call that could not run was never put to the policy; the denied call's answer is the
    // policy's reason.
    assert_eq!(asked.load(Ordering::SeqCst), 5);
    let invocations: Vec<(String, String)> = result
        .trace
        .invocations()
        .map(|call| (call.name().to_owned(), call.content().to_owned()))
        .collect();
    assert_eq!(
        invocations,
        [
            ("archive".to_owned(), "policy-secret stays put.".to_owned()),
            (
                "archive".to_owned(),
                "Error: invalid arguments for tool \"archive\" at \"doc\": invalid type: integer `4`, expected a string.".to_owned()
            ),
            ("archive".to_owned(), BLANK_DENIAL.to_owned()),
            ("archive".to_owned(), "archived policy-draft".to_owned()),
        ]
    );
}

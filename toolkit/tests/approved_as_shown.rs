//! What runs is what the approver saw: an approval covers a previewed call only while its
//! preview, computed again just before the call runs, is the one shown. When what the call
//! would do changed meanwhile (another writer changed the document it edits), nothing runs and
//! the call is asked about again with the new preview, on every path that approves: a resumed
//! run, a policy, an approval of the tool for the run, a question and its answer, a kept
//! question answered elsewhere, and an approval for the session.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolkit::approval::{ApprovalPolicy, Choice, Decision, PendingCall, PolicyAnswer};
use toolkit::provider::ScriptedProvider;
use toolkit::recording::{RunStep, Termination};
use toolkit::{
    RunRequest, RunScope, ToolCall, ToolContext, ToolLoopResult, ToolLoopService, ToolRegistry,
    tool,
};

/// A document the tools below read and write (each test has its own; clones share it).
#[derive(Clone)]
struct Doc(Arc<Mutex<String>>);

impl Doc {
    fn text(&self) -> String {
        self.0.lock().expect("not poisoned").clone()
    }

    fn set(&self, text: &str) {
        text.clone_into(&mut self.0.lock().expect("not poisoned"));
    }
}

/// Replaces the whole document (needs a person; no preview).
#[tool(requires_approval)]
fn write_doc(
    /// The new text.
    text: String,
    #[state] doc: &Doc,
) -> String {
    doc.set(&text);
    "written".to_owned()
}

/// Replaces the first `old` in the document by `new` (needs a person; previewed by
/// `show_edit`).
#[tool(requires_approval, preview = "show_edit")]
fn edit_doc(
    /// What to replace.
    old: String,
    /// What to put instead.
    new: String,
    #[state] doc: &Doc,
) -> String {
    let text = doc.text();
    doc.set(&text.replacen(&old, &new, 1));
    "edited".to_owned()
}

/// The document before and after an edit, as two lines.
#[tool(read_only)]
fn show_edit(
    /// What to replace.
    old: String,
    /// What to put instead.
    new: String,
    #[state] doc: &Doc,
) -> String {
    let text = doc.text();
    format!("-{text}\n+{}", text.replacen(&old, &new, 1))
}

const EDIT: &str = r#"{"old": "1", "new": "2"}"#;

fn context(doc: &Doc) -> ToolContext {
    ToolContext::new().with_extension(doc.clone())
}

fn doc(text: &str) -> Doc {
    Doc(Arc::new(Mutex::new(text.to_owned())))
}

fn service() -> ToolLoopService {
    ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
}

/// A model that asks for `calls` in one turn, then answers "done".
fn provider(calls: &Value) -> ScriptedProvider {
    let script = json!({"turns": [{"tool_calls": calls}, {"content": "done"}]});
    ScriptedProvider::from_json(&script.to_string()).expect("a script")
}

fn request(doc: &Doc) -> RunRequest {
    RunRequest::new("tidy the document")
        .with_tools(["write_doc", "edit_doc"])
        .with_context(context(doc))
}

/// The edit of `1` into `2` the model asks for, and the service's run of it suspended.
async fn edit_suspended(service: &ToolLoopService, doc: &Doc) -> (Value, String) {
    let edit = json!([{"id": "e1", "name": "edit_doc", "arguments": {"old": "1", "new": "2"}}]);
    let result = service
        .run(&provider(&edit), request(doc))
        .await
        .expect("a run");
    (edit, result.suspension.expect("suspended").token)
}

/// The run of `token` resumed with `decision`, the model asking for `calls`.
async fn resumed(
    service: &ToolLoopService,
    calls: &Value,
    token: &str,
    decision: Decision,
    doc: &Doc,
) -> ToolLoopResult {
    service
        .resume(&provider(calls), token, &[decision], context(doc))
        .await
        .expect("resumed")
}

/// The previews of a suspended run, by call id.
fn previews(result: &ToolLoopResult) -> Vec<(String, String)> {
    let suspension = result.suspension.as_ref().expect("suspended");
    suspension
        .previews
        .iter()
        .map(|preview| (preview.call_id.clone(), preview.text.clone()))
        .collect()
}

/// Every recorded decision of a run, as `by:decision`.
fn decisions(result: &ToolLoopResult) -> Vec<String> {
    result
        .trace
        .steps()
        .iter()
        .filter_map(|step| match step {
            RunStep::Resumed { decisions, .. } | RunStep::Decided { decisions, .. } => {
                Some(decisions)
            }
            _ => None,
        })
        .flatten()
        .map(|decision| {
            let value = serde_json::to_value(decision).expect("JSON");
            format!(
                "{}:{}",
                value["by"].as_str().unwrap(),
                decision.decided.as_str()
            )
        })
        .collect()
}

#[tokio::test]
async fn an_operator_approves_what_they_saw_and_a_changed_preview_asks_again() {
    let service = service();
    let doc = doc("x = 1");
    let edit = json!([{"id": "e1", "name": "edit_doc", "arguments": {"old": "1", "new": "2"}}]);
    let result = service
        .run(&provider(&edit), request(&doc))
        .await
        .expect("a run");
    assert_eq!(
        previews(&result),
        [("e1".to_owned(), "-x = 1\n+x = 2".to_owned())]
    );
    let token = result.suspension.expect("suspended").token;

    // While the operator reads it, another writer changes what the edit would touch.
    doc.set("allow_all = 1");
    let again = resumed(&service, &edit, &token, Decision::approve("e1"), &doc).await;
    assert_eq!(doc.text(), "allow_all = 1", "nothing ran");
    assert_eq!(again.termination, Termination::Suspended);
    assert_eq!(
        previews(&again),
        [("e1".to_owned(), "-allow_all = 1\n+allow_all = 2".to_owned())]
    );
    assert_eq!(
        decisions(&again),
        ["operator:approved", "operator:preview_changed"]
    );
    assert_eq!(again.trace.invocations().count(), 0);

    // Approved as it is shown now, it runs at once.
    let token = again.suspension.expect("suspended again").token;
    let done = resumed(&service, &edit, &token, Decision::approve("e1"), &doc).await;
    assert_eq!(doc.text(), "allow_all = 2");
    assert_eq!(done.termination, Termination::Answered);
    assert_eq!(decisions(&done), ["operator:approved"]);
}

#[tokio::test]
async fn approval_for_the_run_and_an_unchanged_preview_run_without_a_new_question() {
    let service = service();
    let doc = doc("x = 1");
    let (edit, token) = edit_suspended(&service, &doc).await;
    let done = resumed(
        &service,
        &edit,
        &token,
        Decision::approve_for_run("e1"),
        &doc,
    )
    .await;
    assert_eq!(doc.text(), "x = 2");
    assert_eq!(done.termination, Termination::Answered);
    assert_eq!(decisions(&done), ["operator:approved_for_run"]);
}

/// Approves every call, and keeps the previews it was shown.
struct ApproveAll(Arc<Mutex<Vec<Option<String>>>>);

impl ApprovalPolicy for ApproveAll {
    fn name(&self) -> &'static str {
        "approve-all"
    }

    fn decide(&self, pending: &PendingCall<'_>) -> PolicyAnswer {
        let shown = pending.preview.map(str::to_owned);
        self.0.lock().expect("not poisoned").push(shown);
        PolicyAnswer::Approve("everything goes".to_owned())
    }
}

#[tokio::test]
async fn a_policy_decides_on_the_preview_and_a_call_of_the_turn_that_changes_it_sends_it_to_the_operator()
 {
    // One turn: the edit the policy approves on the preview of "x = 1", and a write (approved
    // too) that makes the document "allow_all = 1" before the edit would run.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let service = service().with_approval_policy(ApproveAll(Arc::clone(&seen)));
    let doc = doc("x = 1");
    let turn = json!([
        {"id": "e1", "name": "edit_doc", "arguments": {"old": "1", "new": "2"}},
        {"id": "w1", "name": "write_doc", "arguments": {"text": "allow_all = 1"}},
    ]);
    let result = service
        .run(&provider(&turn), request(&doc))
        .await
        .expect("a run");
    assert_eq!(
        *seen.lock().unwrap(),
        [Some("-x = 1\n+x = 2".to_owned()), None],
        "the policy saw the edit's preview"
    );
    // The write ran; the edit did not, and waits for the operator with what it would do now.
    assert_eq!(doc.text(), "allow_all = 1");
    assert_eq!(result.termination, Termination::Suspended);
    assert_eq!(
        previews(&result),
        [("e1".to_owned(), "-allow_all = 1\n+allow_all = 2".to_owned())]
    );
    assert_eq!(
        decisions(&result),
        [
            "policy:approved",
            "policy:approved",
            "policy:preview_changed"
        ]
    );
    let ran: Vec<&str> = result
        .trace
        .invocations()
        .map(toolkit::recording::ToolInvocation::name)
        .collect();
    assert_eq!(ran, ["write_doc"]);

    // The same turn when nothing changes the document runs both at once.
    let doc = self::doc("x = 1");
    let quiet = json!([
        {"id": "e1", "name": "edit_doc", "arguments": {"old": "1", "new": "2"}},
        {"id": "w1", "name": "write_doc", "arguments": {"text": "x = 1"}},
    ]);
    let result = service
        .run(&provider(&quiet), request(&doc))
        .await
        .expect("a run");
    assert_eq!(result.termination, Termination::Answered);
    assert_eq!(doc.text(), "x = 2");
}

fn scope(service: &ToolLoopService, doc: &Doc) -> RunScope {
    service
        .seam()
        .scope_offering(context(doc), ["write_doc", "edit_doc"])
        .expect("the document is there")
}

#[tokio::test]
async fn a_question_answered_after_the_preview_changed_is_asked_again_with_the_new_one() {
    // The chain of an MCP session: the person approved write_doc for the session; the model
    // calls edit_doc, whose form shows "x = 1" becoming "x = 2"; while it is open, a write
    // approved earlier makes the document "allow_all = 1"; the person approves what they saw.
    let service = service();
    let doc = doc("x = 1");
    let scope = scope(&service, &doc);
    let edit = ToolCall::new("e1", "edit_doc", EDIT);
    let question = service.question(&scope, "mcp", edit).await.expect("asked");
    assert_eq!(question.preview(), Some("-x = 1\n+x = 2"));
    let write = ToolCall::new("w1", "write_doc", r#"{"text": "allow_all = 1"}"#);
    let written = service.question(&scope, "mcp", write).await.expect("asked");
    service
        .run_approved_earlier(&scope, "mcp", written)
        .await
        .expect("write_doc shows no preview");
    assert_eq!(doc.text(), "allow_all = 1");

    let again = service
        .answer(&scope, "mcp", question, Some(Choice::Approve))
        .await
        .expect_err("asked again");
    assert!(again.preview_changed());
    assert_eq!(again.why(), None);
    assert_eq!(doc.text(), "allow_all = 1", "nothing ran");
    let question = again.into_question();
    assert_eq!(question.preview(), Some("-allow_all = 1\n+allow_all = 2"));
    assert_eq!(question.edits(), 0);

    // Kept and answered elsewhere as it is now shown, it runs.
    let ran = service
        .answer_kept(&scope, "mcp", question.keep(), Some(Choice::Approve))
        .await
        .expect("ran");
    assert_eq!(ran.content(), "edited");
    assert_eq!(doc.text(), "allow_all = 2");
}

#[tokio::test]
async fn a_call_of_a_tool_approved_for_the_session_whose_preview_changed_asks_the_person() {
    let service = service();
    let doc = doc("x = 1");
    let scope = scope(&service, &doc);
    let question = service
        .question(&scope, "mcp", ToolCall::new("e1", "edit_doc", EDIT))
        .await
        .expect("asked");
    doc.set("allow_all = 1");
    let again = service
        .run_approved_earlier(&scope, "mcp", question)
        .await
        .expect_err("asked");
    assert!(again.preview_changed());
    assert_eq!(doc.text(), "allow_all = 1");
    assert_eq!(
        again.question().preview(),
        Some("-allow_all = 1\n+allow_all = 2")
    );
    // Unchanged, it runs without a question.
    let ran = service
        .run_approved_earlier(&scope, "mcp", again.into_question())
        .await
        .expect("ran");
    assert_eq!(ran.content(), "edited");
    assert_eq!(doc.text(), "allow_all = 2");
}

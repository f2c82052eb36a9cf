//! Approvals outside a loop: one call of a tool that requires approval put to a person as a
//! `Question` (what an MCP server asks its host's user through elicitation), answered once, and
//! recorded as a run of one call with the decisions. The approval covers exactly the call asked
//! about; nothing runs that the person has not seen.

use std::sync::Mutex;

use serde_json::{Value, json};
use toolkit::approval::Choice;
use toolkit::question::Question;
use toolkit::recording::ObservedCall;
use toolkit::{
    RunEvent, RunScope, ToolCall, ToolContext, ToolLoopService, ToolRegistry, recording::RunStep,
    tool,
};

/// What the writers below did, as `"tool:doc"`.
static DONE: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Retires a document (needs a person; previewed by `show_retire`).
#[tool(requires_approval, preview = "show_retire")]
fn retire(
    /// Which document.
    doc: String,
) -> String {
    DONE.lock().unwrap().push(format!("retire:{doc}"));
    format!("retired {doc}")
}

/// Says what retiring would do.
#[tool(read_only)]
fn show_retire(
    /// Which document.
    doc: String,
) -> String {
    format!("{doc} would be retired")
}

/// Stamps a document (needs a person; no preview).
#[tool(requires_approval)]
fn stamp(
    /// Which document.
    doc: String,
) -> String {
    DONE.lock().unwrap().push(format!("stamp:{doc}"));
    format!("stamped {doc}")
}

/// Counts a document's letters (needs nobody).
#[tool(read_only)]
fn letters(
    /// Which document.
    doc: String,
) -> String {
    doc.len().to_string()
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

fn setup() -> (ToolLoopService, RunScope) {
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    let scope = service
        .seam()
        .scope_offering(ToolContext::new(), ["retire", "stamp", "letters"])
        .expect("no state needed");
    (service, scope)
}

fn call(id: &str, name: &str, doc: &str) -> ToolCall {
    ToolCall::new(id, name, json!({"doc": doc}).to_string())
}

async fn ask(service: &ToolLoopService, scope: &RunScope, call: ToolCall) -> Question {
    service
        .question(scope, "mcp", call)
        .await
        .expect("a question")
}

fn done(answered: Result<ObservedCall, toolkit::question::AskAgain>) -> ObservedCall {
    answered.expect("done, not asked again")
}

/// The run's events in short: each finished decision step as it serialises, each tool step as
/// `tool NAME ARGUMENTS -> CONTENT`, and how it ended.
fn summary(events: &mut toolkit::recording::Subscription) -> Vec<Value> {
    let mut seen = Vec::new();
    while let Ok(event) = events.try_recv() {
        match &*event {
            RunEvent::StepFinished { step, .. }
                if matches!(step, RunStep::Resumed { .. } | RunStep::Decided { .. }) =>
            {
                seen.push(serde_json::to_value(step).expect("JSON"));
            }
            RunEvent::ToolInvoked { invocation, .. } => seen.push(json!(format!(
                "tool {} {} -> {}",
                invocation.name(),
                invocation.arguments(),
                invocation.content()
            ))),
            RunEvent::Done { termination, .. } => seen.push(json!(format!("done {termination:?}"))),
            _ => {}
        }
    }
    seen
}

#[tokio::test]
async fn an_approved_question_runs_exactly_its_call_and_records_the_decision() {
    let (service, scope) = setup();
    let mut events = service.subscribe();
    let question = ask(&service, &scope, call("q1", "retire", "qa-1")).await;
    assert_eq!(question.call().arguments(), r#"{"doc":"qa-1"}"#);
    assert_eq!(question.preview(), Some("qa-1 would be retired"));
    assert_eq!(question.edits(), 0);
    // Asking ran nothing but the preview.
    assert_eq!(done_with("qa-"), Vec::<String>::new());

    let ran = done(
        service
            .answer(&scope, "mcp", question, Some(Choice::Approve))
            .await,
    );
    assert_eq!((ran.content(), ran.is_error()), ("retired qa-1", false));
    assert_eq!(done_with("qa-"), ["retire:qa-1"]);
    assert_eq!(
        summary(&mut events),
        [
            json!({"kind": "resumed", "decisions": [
                {"call_id": "q1", "tool": "retire", "by": "operator", "decision": "approved"}
            ]}),
            json!(r#"tool retire {"doc":"qa-1"} -> retired qa-1"#),
            json!("done Answered"),
        ]
    );
}

#[tokio::test]
async fn a_denial_or_no_answer_runs_nothing_and_the_model_reads_why() {
    let (service, scope) = setup();
    let mut events = service.subscribe();
    let cases = [
        (
            Some(Choice::Deny {
                reason: Some("not this one".to_owned()),
            }),
            "not this one",
            json!({"decision": "denied", "reason": "not this one"}),
        ),
        (
            Some(Choice::Deny { reason: None }),
            "Error: tool \"stamp\" was denied by the operator.",
            json!({"decision": "denied"}),
        ),
        (
            None,
            "Error: tool \"stamp\" requires approval that was not given.",
            json!({"decision": "not_decided"}),
        ),
    ];
    for (choice, text, decision) in cases {
        let question = ask(&service, &scope, call("d1", "stamp", "qd-1")).await;
        let refused = done(service.answer(&scope, "mcp", question, choice).await);
        assert_eq!((refused.content(), refused.is_error()), (text, true));
        let mut recorded = json!({"call_id": "d1", "tool": "stamp", "by": "operator"});
        for (key, value) in decision.as_object().expect("an object") {
            recorded[key] = value.clone();
        }
        assert_eq!(
            summary(&mut events),
            [
                json!({"kind": "resumed", "decisions": [recorded]}),
                json!(format!(r#"tool stamp {{"doc":"qd-1"}} -> {text}"#)),
                json!("done Answered"),
            ]
        );
    }
    assert_eq!(done_with("qd-"), Vec::<String>::new());
}

#[tokio::test]
async fn an_edit_is_checked_previewed_again_and_only_then_run() {
    let (service, scope) = setup();
    let mut events = service.subscribe();
    let question = ask(&service, &scope, call("e1", "retire", "qe-1")).await;

    // Arguments that fail the tool's checks: asked again, told why, nothing recorded.
    let edit = |arguments: &str| {
        Some(Choice::Edit {
            arguments: arguments.to_owned(),
        })
    };
    let again = service
        .answer(&scope, "mcp", question, edit(r#"{"doc": 5}"#))
        .await
        .expect_err("invalid arguments");
    let why = again.why().expect("why").to_owned();
    let question = again.into_question();
    assert_eq!(
        why,
        "Error: invalid arguments for tool \"retire\" at \"doc\": invalid type: integer `5`, expected a string."
    );
    assert_eq!(question.call().arguments(), r#"{"doc":"qe-1"}"#);

    // Other arguments for a previewed tool: asked again with the new preview; nothing ran.
    let again = service
        .answer(&scope, "mcp", question, edit(r#"{"doc": "qe-2"}"#))
        .await
        .expect_err("asked again");
    assert_eq!(again.why(), None);
    let question = again.into_question();
    assert_eq!(question.call().id(), "e1");
    assert_eq!(question.call().arguments(), r#"{"doc": "qe-2"}"#);
    assert_eq!(question.preview(), Some("qe-2 would be retired"));
    assert_eq!(question.edits(), 1);
    assert_eq!(done_with("qe-"), Vec::<String>::new());
    assert_eq!(summary(&mut events), Vec::<Value>::new());

    let ran = done(
        service
            .answer(&scope, "mcp", question, Some(Choice::Approve))
            .await,
    );
    assert_eq!(ran.content(), "retired qe-2");
    assert_eq!(done_with("qe-"), ["retire:qe-2"]);
    assert_eq!(
        summary(&mut events),
        [
            json!({"kind": "resumed", "decisions": [
                {"call_id": "e1", "tool": "retire", "by": "operator", "decision": "edited",
                 "original": r#"{"doc":"qe-1"}"#, "arguments": r#"{"doc": "qe-2"}"#},
                {"call_id": "e1", "tool": "retire", "by": "operator", "decision": "approved"},
            ]}),
            json!(r#"tool retire {"doc": "qe-2"} -> retired qe-2"#),
            json!("done Answered"),
        ]
    );

    // A tool without a preview runs the edited call at once.
    let question = ask(&service, &scope, call("e2", "stamp", "qe-3")).await;
    let ran = done(
        service
            .answer(&scope, "mcp", question, edit(r#"{"doc":"qe-4"}"#))
            .await,
    );
    assert_eq!(ran.content(), "stamped qe-4");
    assert_eq!(done_with("qe-"), ["retire:qe-2", "stamp:qe-4"]);
}

#[tokio::test]
async fn nobody_is_asked_about_a_call_that_could_not_run_or_needs_no_approval() {
    let (service, scope) = setup();
    let mut events = service.subscribe();
    let cases = [
        (call("n1", "nope", "qn-1"), "Error: unknown tool \"nope\""),
        (
            ToolCall::new("n2", "stamp", r#"{"doc": 1}"#),
            "Error: invalid arguments for tool \"stamp\" at \"doc\": invalid type: integer `1`, expected a string.",
        ),
        (
            call("n3", "show_retire", "qn-1"),
            "Error: tool \"show_retire\" not permitted",
        ),
        (
            call("n4", "letters", "qn-1"),
            "Error: tool \"letters\" needs no approval; it is called, not asked about.",
        ),
    ];
    for (call, text) in cases {
        let Err(refused) = service.question(&scope, "mcp", call).await else {
            panic!("no question");
        };
        assert_eq!((refused.content(), refused.is_error()), (text, true));
        let seen = summary(&mut events);
        assert_eq!(
            seen.len(),
            2,
            "a tool step and the end, no decision: {seen:?}"
        );
    }
    assert_eq!(done_with("qn-"), Vec::<String>::new());
}

#[tokio::test]
async fn a_tool_approved_earlier_runs_without_a_question_and_the_record_says_so() {
    let (service, scope) = setup();
    let mut events = service.subscribe();
    let question = ask(&service, &scope, call("a1", "stamp", "qa2-1")).await;
    let ran = service
        .run_approved_earlier(&scope, "mcp", question)
        .await
        .expect("no preview to change");
    assert_eq!(ran.content(), "stamped qa2-1");
    assert_eq!(
        summary(&mut events),
        [
            json!({"kind": "decided", "decisions": [
                {"call_id": "a1", "tool": "stamp", "by": "approved_for_run", "decision": "approved"}
            ]}),
            json!(r#"tool stamp {"doc":"qa2-1"} -> stamped qa2-1"#),
            json!("done Answered"),
        ]
    );
}

#[tokio::test]
async fn a_kept_question_is_answered_elsewhere_only_as_it_was_shown() {
    let (service, scope) = setup();
    let mut events = service.subscribe();
    let question = ask(&service, &scope, call("k1", "retire", "qk-1")).await;
    let edit = Some(Choice::Edit {
        arguments: r#"{"doc": "qk-2"}"#.to_owned(),
    });
    let again = service
        .answer(&scope, "mcp", question, edit)
        .await
        .expect_err("asked again");
    // Asked again for the edit's own preview, not because one changed.
    assert!(!again.preview_changed() && again.why().is_none());
    let question = again.into_question();

    // Kept as JSON by one instance, read by another (its own service).
    let kept = serde_json::to_string(&question.keep()).expect("JSON");
    assert_eq!(
        serde_json::from_str::<Value>(&kept).expect("JSON"),
        json!({
            "call": {"id": "k1", "name": "retire", "arguments": r#"{"doc": "qk-2"}"#},
            "preview": "qk-2 would be retired",
            "earlier": [{"call_id": "k1", "tool": "retire", "by": "operator",
                         "decision": "edited", "original": r#"{"doc":"qk-1"}"#,
                         "arguments": r#"{"doc": "qk-2"}"#}],
        })
    );
    let (elsewhere, scope) = setup();
    let mut events_elsewhere = elsewhere.subscribe();
    let kept: toolkit::question::KeptQuestion = serde_json::from_str(&kept).expect("kept");
    assert_eq!(kept.preview(), Some("qk-2 would be retired"));
    assert_eq!(kept.call().arguments(), r#"{"doc": "qk-2"}"#);

    // Shown another preview than the call would show now: the approval was of another call, so
    // nothing runs and the question is asked again, with the new preview and the earlier edit.
    let mut stale = serde_json::to_value(&kept).expect("JSON");
    stale["preview"] = json!("qk-2 as it was");
    let stale = serde_json::from_value(stale).expect("a kept question");
    let again = elsewhere
        .answer_kept(&scope, "mcp", stale, Some(Choice::Approve))
        .await
        .expect_err("asked again");
    assert_eq!(again.why(), None);
    assert!(again.preview_changed());
    let again = again.into_question();
    assert_eq!(again.call().arguments(), r#"{"doc": "qk-2"}"#);
    assert_eq!(again.preview(), Some("qk-2 would be retired"));
    assert_eq!(again.edits(), 1);
    assert_eq!(done_with("qk-"), Vec::<String>::new());
    assert_eq!(summary(&mut events_elsewhere), Vec::<Value>::new());

    // As it was shown: the answer decides it.
    let ran = done(
        elsewhere
            .answer_kept(&scope, "mcp", again.keep(), Some(Choice::Approve))
            .await,
    );
    assert_eq!(ran.content(), "retired qk-2");
    assert_eq!(done_with("qk-"), ["retire:qk-2"]);
    assert_eq!(summary(&mut events), Vec::<Value>::new());
    assert_eq!(
        summary(&mut events_elsewhere)[0],
        json!({"kind": "resumed", "decisions": [
            {"call_id": "k1", "tool": "retire", "by": "operator", "decision": "edited",
             "original": r#"{"doc":"qk-1"}"#, "arguments": r#"{"doc": "qk-2"}"#},
            {"call_id": "k1", "tool": "retire", "by": "operator", "decision": "preview_changed"},
            {"call_id": "k1", "tool": "retire", "by": "operator", "decision": "approved"},
        ]})
    );

    // A kept call that could not run any more is refused, as a new question's would be.
    let kept = serde_json::from_value(json!({
        "call": {"id": "k2", "name": "retire", "arguments": "{}"},
        "preview": null,
        "earlier": [],
    }))
    .expect("a kept question");
    let refused = done(
        elsewhere
            .answer_kept(&scope, "mcp", kept, Some(Choice::Approve))
            .await,
    );
    assert!(refused.is_error());
    assert_eq!(done_with("qk-"), ["retire:qk-2"]);
}

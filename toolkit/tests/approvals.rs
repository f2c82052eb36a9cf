//! Approvals are the seam's, not the loop's: a tool that requires one runs only with an
//! operator's proof for that exact call, and a sealed token opens once, within its lifetime,
//! with everything it restores checked as if new.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use proptest::prelude::*;

use toolkit::provider::ScriptedProvider;
use toolkit::{
    ChatMessage, RunError, RunRequest, ToolContext, ToolLoopService, ToolRegistry,
    approval::Decision, recording::Termination, seal::TokenError, tool,
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
            ChatMessage::ToolResult(result) => {
                Some((result.call_id().to_owned(), result.content().to_owned()))
            }
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
        (direct.content(), direct.is_error()),
        (
            "Error: tool \"wipe\" requires approval that was not given.",
            true
        )
    );
    // Arguments that do not decode are said first: nobody should approve a call that cannot run.
    let bad = service.invoke(&scope, "wipe", r#"{"disk": 1}"#).await;
    assert_eq!(
        bad.content(),
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

/// What `erase` and `note` did, each as `"tool:target"`.
static DONE: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Erases a target (needs an operator).
#[tool(requires_approval)]
fn erase(
    /// What to erase.
    target: String,
) -> String {
    DONE.lock().unwrap().push(format!("erase:{target}"));
    format!("erased {target}")
}

/// Notes a target.
#[tool]
fn note(
    /// What to note.
    target: String,
) -> String {
    DONE.lock().unwrap().push(format!("note:{target}"));
    format!("noted {target}")
}

/// What was done to targets starting with `prefix`, in order.
fn done_with(prefix: &str) -> Vec<String> {
    DONE.lock()
        .unwrap()
        .iter()
        .filter(|done| {
            done.split_once(':')
                .is_some_and(|(_, target)| target.starts_with(prefix))
        })
        .cloned()
        .collect()
}

/// The ids of the calls of the last assistant message that has any.
fn assistant_call_ids(messages: &[ChatMessage]) -> Vec<String> {
    messages
        .iter()
        .rev()
        .find_map(|message| match message {
            ChatMessage::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
                Some(tool_calls.iter().map(|call| call.id().to_owned()).collect())
            }
            _ => None,
        })
        .unwrap_or_default()
}

/// A model turn of two writer calls sharing one id: the second gets an id of the run's own, so
/// each waits for a decision of its own, and approving one runs exactly that one (before, the
/// approval of the shared id ran both, the one the operator meant to deny included).
#[tokio::test]
async fn a_turn_that_repeats_a_call_id_gets_one_decision_and_one_answer_per_call() {
    let script = r#"{"turns": [
        {"tool_calls": [
            {"id": "same", "name": "erase", "arguments": {"target": "repeat-keep"}},
            {"id": "same", "name": "erase", "arguments": {"target": "repeat-readme"}}
        ]},
        {"content": "done"}
    ]}"#;
    let service = service();
    let provider = || ScriptedProvider::from_json(script).expect("a valid script");
    for (decisions, ran) in [
        (
            vec![Decision::approve("same"), Decision::deny("toolkit_1_1")],
            vec!["erase:repeat-keep"],
        ),
        (
            vec![Decision::deny("same"), Decision::approve("toolkit_1_1")],
            vec!["erase:repeat-readme"],
        ),
        (vec![Decision::approve("same")], vec!["erase:repeat-keep"]),
    ] {
        DONE.lock()
            .unwrap()
            .retain(|done| !done.contains(":repeat-"));
        let suspended = service
            .run(&provider(), RunRequest::new("erase both"))
            .await
            .expect("runs");
        let suspension = suspended.suspension.expect("suspended");
        let pending: Vec<(&str, &str)> = suspension
            .pending
            .iter()
            .map(|call| (call.id(), call.arguments()))
            .collect();
        assert_eq!(
            pending,
            [
                ("same", r#"{"target":"repeat-keep"}"#),
                ("toolkit_1_1", r#"{"target":"repeat-readme"}"#)
            ]
        );
        let resumed = service
            .resume(
                &provider(),
                &suspension.token,
                &decisions,
                ToolContext::new(),
            )
            .await
            .expect("resumes");
        assert_eq!(done_with("repeat-"), ran, "{decisions:?}");
        // One answer per call, each under the id its call has in the turn sent back.
        let answers = tool_results(&resumed.messages);
        assert_eq!(
            answers
                .iter()
                .map(|(id, _)| id.as_str())
                .collect::<Vec<_>>(),
            ["same", "toolkit_1_1"]
        );
        assert_eq!(
            assistant_call_ids(&resumed.messages),
            ["same", "toolkit_1_1"]
        );
    }
}

/// A turn whose ids take the run's own form already: the ids given stay unique.
#[tokio::test]
async fn an_id_of_the_run_s_own_form_from_the_model_is_not_given_twice() {
    let script = r#"{"turns": [
        {"tool_calls": [
            {"id": "toolkit_1_1", "name": "note", "arguments": {"target": "form-a"}},
            {"id": "toolkit_1_1", "name": "note", "arguments": {"target": "form-b"}},
            {"id": "", "name": "note", "arguments": {"target": "form-c"}},
            {"id": "toolkit_1_2", "name": "note", "arguments": {"target": "form-d"}}
        ]},
        {"content": "done"}
    ]}"#;
    let provider = ScriptedProvider::from_json(script).expect("a valid script");
    let result = service()
        .run(&provider, RunRequest::new("note"))
        .await
        .expect("runs");
    assert_eq!(
        tool_results(&result.messages),
        [
            ("toolkit_1_1".to_owned(), "noted form-a".to_owned()),
            ("toolkit_1_1_".to_owned(), "noted form-b".to_owned()),
            (
                "toolkit_1_2_".to_owned(),
                "Error: the call of tool \"note\" came without an id; it was not run.".to_owned()
            ),
            ("toolkit_1_2".to_owned(), "noted form-d".to_owned()),
        ]
    );
    assert_eq!(
        assistant_call_ids(&result.messages),
        ["toolkit_1_1", "toolkit_1_1_", "toolkit_1_2_", "toolkit_1_2"]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Turns of up to six calls with ids drawn from a few (repeated, empty, of the run's own
    /// form), of a tool that needs an operator and one that does not, with any decisions: every
    /// call gets exactly one answer under an id no other call of the turn has, the assistant
    /// turn sent back carries the same ids, and a call runs exactly when it needs no operator or
    /// was approved (and never when it came without an id), with the operator's arguments when
    /// they were edited; a denial's reason is exactly what the call answers.
    #[test]
    fn any_turn_and_any_decisions_answer_each_call_once_and_run_exactly_the_approved(
        calls in proptest::collection::vec(
            (
                prop_oneof![Just("a"), Just("b"), Just(""), Just("toolkit_1_1"), Just("toolkit_1_0")],
                any::<bool>(),
                0..6_u8,
            ),
            1..7,
        ),
        case in any::<u64>(),
    ) {
        let prefix = format!("p{case}-");
        let turn: Vec<serde_json::Value> = calls
            .iter()
            .enumerate()
            .map(|(n, (id, writes, _))| {
                serde_json::json!({
                    "id": id,
                    "name": if *writes { "erase" } else { "note" },
                    "arguments": {"target": format!("{prefix}{n}")},
                })
            })
            .collect();
        let script = serde_json::json!({"turns": [{"tool_calls": turn}, {"content": "done"}]})
            .to_string();
        let provider = || ScriptedProvider::from_json(&script).expect("a valid script");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let service = service();
        let first = runtime
            .block_on(service.run(&provider(), RunRequest::new("go")))
            .expect("runs");
        let (messages, decided, reasons) = match first.suspension {
            None => (first.messages, Vec::new(), Vec::new()),
            Some(suspension) => {
                // 0: no decision, 1: approve, 2: deny, 3: deny with a reason, 4: approve for
                // the run, 5: edit the target; the pending calls in turn order.
                let mut decisions = Vec::new();
                let mut decided = Vec::new();
                let mut reasons = Vec::new();
                let mut choices = calls.iter().enumerate().filter(|(_, (id, writes, _))| *writes && !id.is_empty());
                for call in &suspension.pending {
                    let (n, (_, _, choice)) = choices.next().expect("a pending call is a writer's");
                    let id = call.id().to_owned();
                    match choice {
                        1 => decisions.push(Decision::approve(id)),
                        2 => decisions.push(Decision::deny(id)),
                        3 => {
                            let reason = format!("not {prefix}{n}");
                            reasons.push((id.clone(), reason.clone()));
                            decisions.push(Decision::deny_with_reason(id, reason));
                        }
                        4 => decisions.push(Decision::approve_for_run(id)),
                        5 => {
                            let edited = serde_json::json!({"target": format!("{prefix}{n}-edited")});
                            decisions.push(Decision::edit(id, edited.to_string()));
                        }
                        _ => {}
                    }
                    if matches!(choice, 1 | 4 | 5) {
                        decided.push((n, *choice == 5));
                    }
                }
                prop_assert!(choices.next().is_none(), "every writer with an id waits");
                let resumed = runtime
                    .block_on(service.resume(&provider(), &suspension.token, &decisions, ToolContext::new()))
                    .expect("resumes");
                (resumed.messages, decided, reasons)
            }
        };
        let answers = tool_results(&messages);
        let ids: Vec<String> = answers.iter().map(|(id, _)| id.clone()).collect();
        prop_assert_eq!(ids.len(), calls.len());
        let unique: std::collections::HashSet<&String> = ids.iter().collect();
        prop_assert_eq!(unique.len(), ids.len(), "ids repeat: {:?}", ids);
        prop_assert_eq!(assistant_call_ids(&messages), ids);
        for (id, reason) in &reasons {
            prop_assert!(answers.contains(&(id.clone(), reason.clone())), "{} answers {:?}", id, answers);
        }
        let expected: Vec<String> = calls
            .iter()
            .enumerate()
            .filter_map(|(n, (id, writes, _))| {
                let edited = decided.iter().find(|(m, _)| *m == n).map(|(_, edited)| *edited);
                match (id.is_empty(), writes, edited) {
                    (true, _, _) | (false, true, None) => None,
                    (false, false, _) => Some(format!("note:{prefix}{n}")),
                    (false, true, Some(false)) => Some(format!("erase:{prefix}{n}")),
                    (false, true, Some(true)) => Some(format!("erase:{prefix}{n}-edited")),
                }
            })
            .collect();
        let mut ran = done_with(&prefix);
        ran.sort();
        let mut expected_sorted = expected.clone();
        expected_sorted.sort();
        prop_assert_eq!(ran, expected_sorted);
    }
}

//! The loop over the scripted provider: terminations, trace, events, approvals and bad input.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::provider::{ScriptedProvider, StopReason};
use toolkit::{
    ChatMessage, RunError, RunEvent, RunOptions, RunRequest, Table, ToolArtifact, ToolLoopService,
    ToolRegistry, ToolResult,
    approval::Decision,
    recording::{RunStep, Termination},
    run::CancelSignal,
    seal::{SealKey, TokenError},
    tool,
};

static DELETES: AtomicUsize = AtomicUsize::new(0);

/// Looks up a word and shows where it came from.
#[tool]
fn lookup(
    /// The word.
    word: String,
) -> ToolResult {
    let table = Table::from_rows(
        ["source", "secret"],
        [["dictionary", "ARTIFACT-CANARY-lookup"]],
    )
    .unwrap();
    ToolResult::text_with(
        format!("{word}: a word"),
        [ToolArtifact::table("Sources", table)],
    )
}

/// Waits a while, then answers.
#[tool]
async fn slow(
    /// Milliseconds to wait.
    millis: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    format!("waited {millis}")
}

/// Deletes everything (needs an operator).
#[tool(requires_approval)]
fn delete_all(
    /// What to delete.
    target: String,
) -> ToolResult {
    DELETES.fetch_add(1, Ordering::SeqCst);
    ToolResult::text_with(
        format!("deleted {target}"),
        [ToolArtifact::text("Log", "ARTIFACT-CANARY-delete")],
    )
}

/// A service over the linked tools, and a provider playing `script`.
fn service(script: &str) -> (ToolLoopService, ScriptedProvider) {
    let provider = ScriptedProvider::from_json(script).expect("valid script");
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    (service, provider)
}

fn kinds(steps: &[RunStep]) -> Vec<&'static str> {
    steps.iter().map(|step| step.kind().as_str()).collect()
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

#[tokio::test]
async fn a_run_calls_tools_then_answers_and_only_the_trace_holds_artifacts() {
    let (service, provider) = service(
        r#"{"turns": [
            {"content": "Let me look.", "tool_calls": [{"name": "lookup", "arguments": {"word": "seam"}}]},
            {"content": "A seam is a word."}
        ]}"#,
    );
    let result = service
        .run(
            &provider,
            RunRequest::new("What is a seam?").with_system("Be brief."),
        )
        .await
        .unwrap();
    assert_eq!(result.termination, Termination::Answered);
    assert_eq!(result.content, "A seam is a word.");
    assert_eq!(result.iterations, 2);
    assert_eq!(
        kinds(result.trace.steps()),
        ["request", "llm", "tool", "llm"]
    );
    let invocation = result.trace.invocations().next().unwrap();
    assert_eq!(invocation.call_id(), "call_0_0");
    assert_eq!(invocation.content(), "seam: a word");
    assert_eq!(
        invocation.artifacts()[0].as_table().unwrap().rows()[0][1],
        "ARTIFACT-CANARY-lookup"
    );
    assert_eq!(
        tool_results(&result.messages),
        [("call_0_0".to_owned(), "seam: a word".to_owned())]
    );

    let messages = serde_json::to_string(&result.messages).unwrap();
    assert!(!messages.contains("ARTIFACT-CANARY"), "{messages}");
    let trace = serde_json::to_string(&result.trace).unwrap();
    assert!(trace.contains("ARTIFACT-CANARY-lookup"));
    // Usage is one token per four bytes of what was sent and answered.
    assert_eq!(result.usage.output_tokens, 3 + 5);
}

#[tokio::test(start_paused = true)]
async fn parallel_calls_run_concurrently_and_answer_in_the_models_order() {
    let (service, provider) = service(
        r#"{"turns": [
            {"tool_calls": [
                {"id": "a", "name": "slow", "arguments": {"millis": 300}},
                {"id": "b", "name": "slow", "arguments": {"millis": 100}},
                {"id": "c", "name": "slow", "arguments": {"millis": 200}}
            ]},
            {"content": "done"}
        ]}"#,
    );
    let started = tokio::time::Instant::now();
    let result = service
        .run(&provider, RunRequest::new("wait"))
        .await
        .unwrap();
    assert_eq!(started.elapsed(), Duration::from_millis(300));
    assert_eq!(
        tool_results(&result.messages),
        [
            ("a".to_owned(), "waited 300".to_owned()),
            ("b".to_owned(), "waited 100".to_owned()),
            ("c".to_owned(), "waited 200".to_owned())
        ]
    );
    let ids: Vec<&str> = result
        .trace
        .invocations()
        .map(toolkit::recording::ToolInvocation::call_id)
        .collect();
    assert_eq!(ids, ["a", "b", "c"]);
}

#[tokio::test]
async fn the_iteration_limit_ends_a_run_that_keeps_calling() {
    let turn =
        r#"{"content": "again", "tool_calls": [{"name": "lookup", "arguments": {"word": "x"}}]}"#;
    let script = format!(r#"{{"turns": [{}]}}"#, [turn; 6].join(","));
    let (service, provider) = service(&script);
    let options = RunOptions::default().with_max_iterations(3);
    let result = service
        .run(&provider, RunRequest::new("loop").with_options(options))
        .await
        .unwrap();
    assert_eq!(result.termination, Termination::MaxIterations);
    assert_eq!(result.iterations, 3);
    assert_eq!(result.content, "again");
    assert_eq!(result.trace.invocations().count(), 3);
}

#[tokio::test]
async fn a_turn_cut_by_its_token_limit_runs_none_of_its_calls_and_ends_truncated() {
    // The second call's arguments were cut where the limit fell.
    let (service, provider) = service(
        r#"{"turns": [{"content": "Looking up both.", "stop_reason": "length", "tool_calls": [
            {"name": "lookup", "arguments": {"word": "a"}},
            {"name": "lookup", "arguments_raw": "{\"word\": \"b"}
        ]}]}"#,
    );
    let result = service.run(&provider, RunRequest::new("x")).await.unwrap();
    assert_eq!(result.termination, Termination::Truncated);
    assert_eq!(result.termination.as_str(), "truncated");
    assert_eq!(result.content, "Looking up both.");
    assert_eq!(result.stop_reason, Some(StopReason::Length));
    // No call ran, not even the whole one: nothing of the turn is answered.
    assert_eq!(kinds(result.trace.steps()), ["request", "llm"]);
    assert!(tool_results(&result.messages).is_empty());
    let trace = serde_json::to_value(&result.trace).unwrap();
    assert_eq!(trace["steps"][1]["stop_reason"], "length");
    assert_eq!(trace["steps"][1]["tool_calls"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn every_turn_says_why_it_ended_in_the_trace_and_the_result() {
    let (looping, provider) = service(
        r#"{"turns": [
            {"tool_calls": [{"name": "lookup", "arguments": {"word": "a"}}]},
            {"content": "An answer cut sh", "stop_reason": "length"}
        ]}"#,
    );
    let result = looping.run(&provider, RunRequest::new("x")).await.unwrap();
    // A text cut by the limit is still the answer; the trace and the result say it was cut.
    assert_eq!(result.termination, Termination::Answered);
    assert_eq!(result.stop_reason, Some(StopReason::Length));
    let trace = serde_json::to_value(&result.trace).unwrap();
    let reasons: Vec<&Value> = trace["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|step| step["kind"] == "llm")
        .map(|step| &step["stop_reason"])
        .collect();
    assert_eq!(reasons, [&json!("tool_calls"), &json!("length")]);

    // A refusal's text is the answer, and says it was one.
    let (refusing, provider) =
        service(r#"{"turns": [{"content": "I can't help with that.", "stop_reason": "refusal"}]}"#);
    let result = refusing.run(&provider, RunRequest::new("x")).await.unwrap();
    assert_eq!(result.content, "I can't help with that.");
    assert_eq!(result.stop_reason, Some(StopReason::Refusal));

    // A failed provider call has no reason.
    let (failing, provider) = service(r#"{"turns": []}"#);
    let result = failing.run(&provider, RunRequest::new("x")).await.unwrap();
    assert_eq!(result.stop_reason, None);
    let trace = serde_json::to_value(&result.trace).unwrap();
    assert_eq!(trace["steps"][1].get("stop_reason"), None);
}

#[tokio::test]
async fn a_provider_failure_ends_the_run_cleanly_with_its_message() {
    let (service, provider) =
        service(r#"{"turns": [{"tool_calls": [{"name": "lookup", "arguments": {"word": "x"}}]}]}"#);
    let result = service.run(&provider, RunRequest::new("x")).await.unwrap();
    assert_eq!(result.termination, Termination::ProviderError);
    assert_eq!(result.content, "the script has no turn left (it has 1)");
    assert_eq!(
        kinds(result.trace.steps()),
        ["request", "llm", "tool", "llm"]
    );
}

#[tokio::test]
async fn a_cancelled_run_stops() {
    let (service, provider) = service(r#"{"turns": [{"content": "never"}]}"#);
    let cancel = CancelSignal::new();
    cancel.cancel();
    let result = service
        .run(&provider, RunRequest::new("x").with_cancel(cancel))
        .await
        .unwrap();
    assert_eq!(result.termination, Termination::Cancelled);
    assert_eq!(result.iterations, 0);
}

#[tokio::test]
async fn the_model_is_sent_the_system_and_user_messages_first_and_the_request_step_counts_them() {
    let (service, provider) = service(r#"{"turns": [{"content": "hi"}]}"#);
    let result = service
        .run(
            &provider,
            RunRequest::new("question").with_system("be brief"),
        )
        .await
        .unwrap();
    let RunStep::Request { messages, .. } = &result.trace.steps()[0] else {
        panic!("the first step is the request: {:?}", result.trace.steps());
    };
    assert_eq!(*messages, 2);
    assert_eq!(
        result.messages[..2],
        [
            ChatMessage::system("be brief"),
            ChatMessage::user("question")
        ]
    );
}

/// A model that thinks for a while, then answers as its script says.
struct Thinking(Duration, ScriptedProvider);

impl toolkit::provider::Provider for Thinking {
    fn name(&self) -> &'static str {
        "thinking"
    }

    fn complete<'a>(
        &'a self,
        request: toolkit::provider::ProviderRequest<'a>,
    ) -> toolkit::provider::ProviderFuture<'a> {
        Box::pin(async move {
            tokio::time::sleep(self.0).await;
            self.1.complete(request).await
        })
    }
}

#[tokio::test(start_paused = true)]
async fn a_signal_never_given_changes_nothing() {
    let (service, provider) = service(r#"{"turns": [{"content": "answered"}]}"#);
    let cancel = CancelSignal::new();
    // The model takes a while: the run waits on it and on the signal at once.
    let result = service
        .run(
            &Thinking(Duration::from_secs(1), provider),
            RunRequest::new("x").with_cancel(cancel.clone()),
        )
        .await
        .unwrap();
    assert_eq!(result.termination, Termination::Answered);
    assert_eq!(result.content, "answered");
    assert!(!cancel.is_cancelled());
}

#[tokio::test(start_paused = true)]
async fn a_run_cancelled_while_the_model_thinks_stops_at_once() {
    let (service, provider) = service(r#"{"turns": [{"content": "too late"}]}"#);
    let cancel = CancelSignal::new();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(3)).await;
        stopper.cancel();
    });
    let started = tokio::time::Instant::now();
    let result = service
        .run(
            &Thinking(Duration::from_hours(1), provider),
            RunRequest::new("x").with_cancel(cancel),
        )
        .await
        .unwrap();
    assert_eq!(result.termination, Termination::Cancelled);
    // At the cancel, not when the model would have answered.
    assert_eq!(started.elapsed(), Duration::from_secs(3));
    // The provider call cut short has no step: it never answered.
    assert_eq!(kinds(result.trace.steps()), ["request"]);
    assert_eq!(result.iterations, 1);
}

#[tokio::test]
async fn a_run_offering_an_unregistered_tool_does_not_start() {
    let (service, provider) = service(r#"{"turns": []}"#);
    let error = service
        .run(&provider, RunRequest::new("x").with_tools(["nope"]))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot offer tool \"nope\": no tool of that name is registered"
    );
}

#[tokio::test]
async fn bad_calls_from_the_model_become_error_results_and_the_run_goes_on() {
    let huge = format!(r#"{{"word": "{}"}}"#, "x".repeat(100 * 1024 * 1024));
    let script = serde_json::json!({"turns": [
        {"tool_calls": [
            {"id": "malformed", "name": "lookup", "arguments_raw": "{\"word\": "},
            {"id": "unknown", "name": "no_such_tool", "arguments": {}},
            {"id": "array", "name": "lookup", "arguments": ["seam"]},
            {"id": "", "name": "lookup", "arguments": {"word": "x"}},
            {"id": "huge", "name": "lookup", "arguments_raw": huge}
        ]},
        {"content": "I see errors."}
    ]});
    let (service, provider) = service(&script.to_string());
    let result = service.run(&provider, RunRequest::new("x")).await.unwrap();
    assert_eq!(result.termination, Termination::Answered);
    assert_eq!(
        tool_results(&result.messages),
        [
            (
                "malformed".to_owned(),
                "Error: invalid arguments for tool \"lookup\": the arguments are not valid JSON: EOF while parsing a value at line 1 column 9.".to_owned()
            ),
            ("unknown".to_owned(), "Error: unknown tool \"no_such_tool\"".to_owned()),
            (
                "array".to_owned(),
                "Error: invalid arguments for tool \"lookup\": invalid type: array, expected an object of named arguments.".to_owned()
            ),
            (
                "toolkit_1_3".to_owned(),
                "Error: the call of tool \"lookup\" came without an id; it was not run.".to_owned()
            ),
            (
                "huge".to_owned(),
                "Error: invalid arguments for tool \"lookup\": 104857612 bytes of arguments; the limit is 1048576.".to_owned()
            ),
        ]
    );
    assert_eq!(result.trace.invocations().count(), 5);
    assert!(
        result
            .trace
            .invocations()
            .all(toolkit::recording::ToolInvocation::is_error)
    );
    // The trace keeps a bounded copy of the arguments, not 100 MB.
    let huge_step = result.trace.invocations().last().unwrap();
    assert_eq!(huge_step.arguments().len(), 50_000);
}

#[tokio::test]
async fn events_follow_the_run_live_with_artifacts_on_tool_steps() {
    let (service, provider) = service(
        r#"{"turns": [{"tool_calls": [{"name": "lookup", "arguments": {"word": "ev"}}]}, {"content": "ok"}]}"#,
    );
    let mut events = service.subscribe();
    let result = service.run(&provider, RunRequest::new("x")).await.unwrap();
    let mut names = Vec::new();
    let mut saw_artifact = false;
    while let Ok(event) = events.try_recv() {
        let json = serde_json::to_value(&*event).unwrap();
        names.push(json["event"].as_str().unwrap().to_owned());
        if let RunEvent::ToolInvoked {
            invocation, run_id, ..
        } = &*event
        {
            assert_eq!(run_id, result.trace.run_id());
            saw_artifact = json["invocation"]["artifacts"][0]["data"]["rows"][0][1]
                == "ARTIFACT-CANARY-lookup";
            assert_eq!(invocation.content(), "ev: a word");
        }
    }
    assert!(saw_artifact);
    assert_eq!(
        names,
        [
            "run_started",
            "step_started",
            "step_finished",
            "step_started",
            // The answer as it streamed: the call started, its arguments, the usage, why it
            // stopped.
            "model_delta",
            "model_delta",
            "model_delta",
            "model_delta",
            "step_finished",
            "step_started",
            "tool_invoked",
            "step_started",
            // The text, the usage, why it stopped.
            "model_delta",
            "model_delta",
            "model_delta",
            "step_finished",
            "done"
        ]
    );
}

#[tokio::test]
async fn a_slow_subscriber_never_blocks_a_run() {
    let turn = r#"{"tool_calls": [{"name": "lookup", "arguments": {"word": "x"}}]}"#;
    let script = format!(
        r#"{{"turns": [{}, {{"content": "end"}}]}}"#,
        vec![turn; 2000].join(",")
    );
    let (service, provider) = service(&script);
    let mut stuck = service.subscribe(); // never read during the run
    let options = RunOptions::default().with_max_iterations(3000);
    let result = service
        .run(&provider, RunRequest::new("x").with_options(options))
        .await
        .unwrap();
    assert_eq!(result.termination, Termination::Answered);
    match stuck.try_recv() {
        Err(tokio::sync::broadcast::error::TryRecvError::Lagged(missed)) => assert!(missed > 0),
        other => panic!("expected the subscriber to have lagged, got {other:?}"),
    }
}

const APPROVAL_SCRIPT: &str = r#"{"turns": [
    {"tool_calls": [
        {"id": "look", "name": "lookup", "arguments": {"word": "before"}},
        {"id": "del", "name": "delete_all", "arguments": {"target": "db"}}
    ]},
    {"content": "finished"}
]}"#;

#[tokio::test]
async fn an_approval_tool_suspends_and_an_approved_resume_runs_it() {
    let (service, provider) = service(APPROVAL_SCRIPT);
    let before = DELETES.load(Ordering::SeqCst);
    let suspended = service
        .run(&provider, RunRequest::new("clean up"))
        .await
        .unwrap();
    assert_eq!(suspended.termination, Termination::Suspended);
    assert_eq!(DELETES.load(Ordering::SeqCst), before);
    let suspension = suspended.suspension.expect("a suspension");
    assert_eq!(suspension.pending.len(), 1);
    assert_eq!(suspension.pending[0].id(), "del");
    // The call that needs no approval already ran; its artifacts are in this trace only.
    assert_eq!(
        kinds(suspended.trace.steps()),
        ["request", "llm", "tool", "suspended"]
    );
    assert!(!suspension.token.contains("CANARY"));
    assert!(
        !String::from_utf8_lossy(&base64_payload(&suspension.token)).contains("ARTIFACT-CANARY")
    );

    // An operator can look first: the run and its pending calls, and the token stays unspent.
    let looked = service.suspended(&suspension.token).expect("opens");
    assert_eq!(looked.run_id(), suspended.trace.run_id());
    let pending: Vec<&str> = looked.pending().map(toolkit::ToolCall::id).collect();
    assert_eq!(pending, ["del"]);
    assert!(matches!(
        ToolLoopService::new(ToolRegistry::new()).suspended(&suspension.token),
        Err(TokenError::BadSeal)
    ));

    // A new provider (another process's, say) plays on from the turn after the suspension:
    // the scripted provider reads its place from the conversation.
    let fresh = ScriptedProvider::from_json(APPROVAL_SCRIPT).unwrap();
    let resumed = service
        .resume(
            &fresh,
            &suspension.token,
            &[Decision::approve("del")],
            toolkit::ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(DELETES.load(Ordering::SeqCst), before + 1);
    assert_eq!(resumed.termination, Termination::Answered);
    assert_eq!(resumed.content, "finished");
    assert_eq!(resumed.trace.run_id(), suspended.trace.run_id());
    assert_eq!(kinds(resumed.trace.steps()), ["resumed", "tool", "llm"]);
    assert_eq!(
        tool_results(&resumed.messages),
        [
            ("look".to_owned(), "before: a word".to_owned()),
            ("del".to_owned(), "deleted db".to_owned())
        ]
    );
}

#[tokio::test]
async fn refusals_and_missing_decisions_get_the_seed_strings() {
    for (decisions, expected) in [
        (
            vec![Decision::deny("del")],
            "Error: tool \"delete_all\" was denied by the operator.",
        ),
        (
            vec![],
            "Error: tool \"delete_all\" requires approval that was not given.",
        ),
    ] {
        let (service, provider) = service(APPROVAL_SCRIPT);
        let before = DELETES.load(Ordering::SeqCst);
        let token = service
            .run(&provider, RunRequest::new("x"))
            .await
            .unwrap()
            .suspension
            .unwrap()
            .token;
        let resumed = service
            .resume(&provider, &token, &decisions, toolkit::ToolContext::new())
            .await
            .unwrap();
        assert_eq!(DELETES.load(Ordering::SeqCst), before);
        assert_eq!(
            tool_results(&resumed.messages)[1],
            ("del".to_owned(), expected.to_owned())
        );
        let step = resumed.trace.invocations().next().unwrap();
        assert!(step.is_error());
    }
}

/// Takes a snapshot: a picture for the model, and one for people whose bytes hold a canary.
#[tool]
fn snapshot() -> ToolResult {
    ToolResult::text_with(
        "the snapshot",
        [ToolArtifact::media(
            "Full size",
            "image/png",
            toolkit_testing::media::png_with("ARTIFACT-CANARY-snapshot"),
        )],
    )
    .with_media(toolkit::result::Media::png(toolkit_testing::media::PNG))
}

#[tokio::test]
async fn a_sealed_token_carries_the_models_media_and_no_artifact_byte_and_the_resume_shows_it_again()
 {
    use base64::Engine as _;
    let script = r#"{"turns": [
        {"tool_calls": [
            {"id": "snap", "name": "snapshot", "arguments": {}},
            {"id": "del", "name": "delete_all", "arguments": {"target": "db"}}
        ]},
        {"content": "finished"}
    ]}"#;
    let (service, provider) = service(script);
    let suspended = service
        .run(&provider, RunRequest::new("snap then clean"))
        .await
        .unwrap();
    let token = suspended.suspension.expect("a suspension").token;
    let payload = String::from_utf8_lossy(&base64_payload(&token)).into_owned();
    let encode = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let hidden = encode(&toolkit_testing::media::png_with(
        "ARTIFACT-CANARY-snapshot",
    ));
    assert!(!payload.contains("ARTIFACT-CANARY") && !payload.contains(&hidden));
    // The picture the model was shown is sealed, so the resumed run shows it again.
    assert!(payload.contains(&encode(toolkit_testing::media::PNG)));
    let resumed = service
        .resume(
            &ScriptedProvider::from_json(script).unwrap(),
            &token,
            &[Decision::approve("del")],
            toolkit::ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(resumed.content, "finished");
    let shown: Vec<(&str, Vec<(&str, usize)>)> = resumed
        .messages
        .iter()
        .filter_map(|message| match message {
            ChatMessage::ToolResult(result) => Some((
                result.call_id(),
                result
                    .wire()
                    .media()
                    .iter()
                    .map(|part| (part.mime_type(), part.len()))
                    .collect(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(shown, [("snap", vec![("image/png", 69)]), ("del", vec![])]);
    let messages = serde_json::to_string(&resumed.messages).unwrap();
    assert!(!messages.contains("ARTIFACT-CANARY") && !messages.contains(&hidden));
}

fn base64_payload(token: &str) -> Vec<u8> {
    use base64::Engine as _;
    let payload = token.split('.').nth(1).unwrap();
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap()
}

#[tokio::test]
async fn tampered_truncated_or_foreign_tokens_are_rejected_and_nothing_runs() {
    let (service, provider) = service(APPROVAL_SCRIPT);
    let token = service
        .run(&provider, RunRequest::new("x"))
        .await
        .unwrap()
        .suspension
        .unwrap()
        .token;
    let before = DELETES.load(Ordering::SeqCst);
    let context = toolkit::ToolContext::new;

    // Flip one character of the payload, keeping it base64.
    let mut tampered: Vec<char> = token.chars().collect();
    let at = 10;
    tampered[at] = if tampered[at] == 'A' { 'B' } else { 'A' };
    let tampered: String = tampered.into_iter().collect();
    let approve = [Decision::approve("del")];
    assert_eq!(
        service
            .resume(&provider, &tampered, &approve, context())
            .await
            .unwrap_err(),
        RunError::Token(TokenError::BadSeal)
    );
    assert_eq!(
        service
            .resume(&provider, &token[..token.len() - 5], &approve, context())
            .await
            .unwrap_err(),
        RunError::Token(TokenError::BadSeal)
    );
    // Cut inside the payload: the seal no longer matches.
    let (head, tag) = token.rsplit_once('.').unwrap();
    let cut = format!("{}.{tag}", &head[..head.len() - 4]);
    assert_eq!(
        service
            .resume(&provider, &cut, &approve, context())
            .await
            .unwrap_err(),
        RunError::Token(TokenError::BadSeal)
    );
    assert_eq!(
        service
            .resume(&provider, "v1.abc", &approve, context())
            .await
            .unwrap_err(),
        RunError::Token(TokenError::Malformed("no version"))
    );
    assert_eq!(
        service
            .resume(&provider, "garbage", &approve, context())
            .await
            .unwrap_err(),
        RunError::Token(TokenError::Malformed("no seal"))
    );
    let foreign = self::service(APPROVAL_SCRIPT)
        .0
        .with_seal_key(SealKey::from_bytes([7; 32]));
    assert_eq!(
        foreign
            .resume(&provider, &token, &approve, context())
            .await
            .unwrap_err(),
        RunError::Token(TokenError::BadSeal)
    );
    assert_eq!(
        service
            .resume(&provider, &token, &[Decision::approve("look")], context())
            .await
            .unwrap_err(),
        RunError::UnknownDecision("look".to_owned())
    );
    assert_eq!(DELETES.load(Ordering::SeqCst), before);

    // The same key in another service opens it.
    let key = SealKey::from_bytes([9; 32]);
    let (first, first_provider) = self::service(APPROVAL_SCRIPT);
    let first = first.with_seal_key(key.clone());
    let token = first
        .run(&first_provider, RunRequest::new("x"))
        .await
        .unwrap()
        .suspension
        .unwrap()
        .token;
    // Its script's first turn is the one the suspended run already played.
    let (second, second_provider) = self::service(
        r#"{"turns": [{"content": "played before the suspension"}, {"content": "resumed elsewhere"}]}"#,
    );
    let second = second.with_seal_key(key);
    let resumed = second
        .resume(&second_provider, &token, &approve, context())
        .await
        .unwrap();
    assert_eq!(resumed.content, "resumed elsewhere");
}

#[tokio::test]
async fn an_approval_call_at_the_argument_limit_waits_and_one_byte_more_is_refused_at_once() {
    let frame = r#"{"target":""}"#.len();
    for (length, waits) in [
        (toolkit::limits::ARGUMENT_LIMIT, true),
        (toolkit::limits::ARGUMENT_LIMIT + 1, false),
    ] {
        let raw = format!(r#"{{"target":"{}"}}"#, "x".repeat(length - frame));
        assert_eq!(raw.len(), length);
        let script = serde_json::json!({"turns": [
            {"tool_calls": [{"id": "big", "name": "delete_all", "arguments_raw": raw}]},
            {"content": "finished"}
        ]})
        .to_string();
        let (service, provider) = service(&script);
        let result = service.run(&provider, RunRequest::new("x")).await.unwrap();
        if waits {
            assert_eq!(result.termination, Termination::Suspended);
        } else {
            // Nobody is asked to approve a call that could not run.
            assert_eq!(result.termination, Termination::Answered);
            assert_eq!(
                tool_results(&result.messages),
                [(
                    "big".to_owned(),
                    format!(
                        "Error: invalid arguments for tool \"delete_all\": {length} bytes of arguments; the limit is {}.",
                        toolkit::limits::ARGUMENT_LIMIT
                    )
                )]
            );
        }
    }
}

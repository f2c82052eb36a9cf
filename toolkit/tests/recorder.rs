//! The recorder: the one place artifacts leave the seam. Single calls are runs of one tool step,
//! sinks keep every event before subscribers see it, run ids are unique, and a resumed run
//! numbers its steps on.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolkit::provider::ScriptedProvider;
use toolkit::{
    RunEvent, RunRequest, Sink, ToolArtifact, ToolCall, ToolContext, ToolLoopService, ToolRegistry,
    ToolResult,
    approval::Decision,
    recording::{StepKind, Termination},
    shared::{BackendError, BackendFuture},
    tool,
};

/// Shows a text to people.
#[tool]
fn shows() -> ToolResult {
    ToolResult::text_with("shown", [ToolArtifact::text("Secret", "artifact text")])
}

/// Shows a text to people, at once (on the caller's thread: done at its first poll).
#[tool(inline)]
fn marks() -> ToolResult {
    ToolResult::text_with("marked", [ToolArtifact::text("Mark", "artifact text")])
}

/// Needs an operator.
#[tool(requires_approval)]
fn guarded() -> String {
    "done".to_owned()
}

/// Takes a while.
#[tool]
async fn naps() -> String {
    tokio::time::sleep(Duration::from_millis(12)).await;
    "rested".to_owned()
}

fn service() -> ToolLoopService {
    ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
}

/// The event's name as it is serialised, and its step index where it has one.
fn name_of(event: &RunEvent) -> String {
    let json = serde_json::to_value(event).expect("events serialise");
    match json["index"].as_u64() {
        Some(index) => format!("{}#{index}", json["event"].as_str().unwrap()),
        None => json["event"].as_str().unwrap().to_owned(),
    }
}

fn received(events: &mut toolkit::recording::Subscription) -> Vec<Arc<RunEvent>> {
    std::iter::from_fn(|| events.try_recv().ok()).collect()
}

#[tokio::test]
async fn a_single_call_is_a_run_of_one_tool_step_with_its_artifacts() {
    let service = service();
    let mut events = service.subscribe();
    let scope = service.scope(ToolContext::new()).unwrap();
    let call = ToolCall::new("call_7", "shows", "{}");

    let observed = service.call_observed(&scope, "mcp", &call).await;

    assert_eq!(observed.wire().as_str(), "shown");
    assert_eq!(observed.content(), "shown");
    assert!(!observed.is_error());
    assert_eq!(observed.artifacts().len(), 1);
    let record = observed.record().expect("a subscriber watches: recorded");
    assert_eq!(record.call_id(), "call_7");
    assert_eq!(record.name(), "shows");
    assert_eq!(record.arguments(), "{}");
    assert_eq!(record.content(), "shown");
    let received = received(&mut events);
    let names: Vec<String> = received.iter().map(|event| name_of(event)).collect();
    assert_eq!(
        names,
        ["run_started", "step_started#0", "tool_invoked#0", "done"]
    );
    let RunEvent::RunStarted {
        run_id,
        kind,
        title,
        ..
    } = &*received[0]
    else {
        panic!("first event: {:?}", received[0]);
    };
    let uuid = run_id
        .as_str()
        .strip_prefix("mcp_")
        .expect("run id mcp_<uuid>");
    assert_eq!(uuid.len(), 32, "{run_id}");
    assert!(uuid.bytes().all(|b| b.is_ascii_hexdigit()), "{run_id}");
    assert_eq!(kind.as_str(), "call");
    assert_eq!(title, "shows");
    assert!(received.iter().all(|event| event.run_id() == run_id));
    assert!(matches!(
        &*received[1],
        RunEvent::StepStarted { index: 0, kind: StepKind::Tool, tool: Some(tool), .. } if tool == "shows"
    ));
    let RunEvent::ToolInvoked { invocation, .. } = &*received[2] else {
        panic!("third event: {:?}", received[2]);
    };
    assert_eq!(invocation.artifacts()[0].as_text(), Some("artifact text"));
    // The caller's record is the events' record, not a copy.
    assert!(Arc::ptr_eq(invocation, record));
    assert!(matches!(
        &*received[3],
        RunEvent::Done { termination: Termination::Answered, content, .. } if content == "shown"
    ));
}

#[tokio::test]
async fn an_unobserved_single_call_gives_the_same_answer_and_no_record() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    let call = ToolCall::new("call_1", "shows", "{}");
    let observed = service.call_observed(&scope, "mcp", &call).await;
    assert_eq!(observed.wire().as_str(), "shown");
    assert!(!observed.is_error());
    assert_eq!(observed.artifacts()[0].as_text(), Some("artifact text"));
    assert!(
        observed.record().is_none(),
        "nobody observed: nothing recorded"
    );
    // The seam's answer as `invoke` gives it.
    let invoked = service.invoke(&scope, "shows", "{}").await;
    assert_eq!(observed.wire(), invoked.wire());
    assert_eq!(observed.artifacts(), invoked.artifacts());
    // A subscriber that comes later hears of no earlier call.
    let mut events = service.subscribe();
    assert!(received(&mut events).is_empty());
    let failed = service
        .call_observed(&scope, "mcp", &ToolCall::new("2", "nope", "{}"))
        .await;
    assert!(failed.is_error() && failed.artifacts().is_empty());
    assert_eq!(received(&mut events).len(), 4);
}

#[tokio::test]
async fn every_subscriber_shares_a_calls_events_and_one_that_falls_behind_is_told_how_many_it_missed()
 {
    let service = service();
    let mut first = service.subscribe();
    let mut second = service.subscribe();
    let mut behind = service.subscribe();
    let scope = service.scope(ToolContext::new()).unwrap();
    let observed = service
        .call_observed(&scope, "mcp", &ToolCall::new("call_1", "marks", "{}"))
        .await;
    let (first, second) = (received(&mut first), received(&mut second));
    let names: Vec<String> = first.iter().map(|event| name_of(event)).collect();
    assert_eq!(
        names,
        ["run_started", "step_started#0", "tool_invoked#0", "done"]
    );
    assert!(
        first
            .iter()
            .all(|event| event.run_id() == first[0].run_id())
    );
    assert!(first[0].run_id().as_str().starts_with("mcp_"));
    assert!(matches!(
        &*first[0],
        RunEvent::RunStarted { kind, title, .. } if kind.as_str() == "call" && title == "marks"
    ));
    assert!(matches!(
        &*first[1],
        RunEvent::StepStarted { kind: StepKind::Tool, tool: Some(tool), .. } if tool == "marks"
    ));
    let RunEvent::ToolInvoked { invocation, .. } = &*first[2] else {
        panic!("third event: {:?}", first[2]);
    };
    assert!(Arc::ptr_eq(invocation, observed.record().unwrap()));
    assert_eq!(invocation.artifacts()[0].as_text(), Some("artifact text"));
    assert!(matches!(
        &*first[3],
        RunEvent::Done { termination: Termination::Answered, content, .. } if content == "marked"
    ));
    // One event for every subscriber, made once: the same allocation.
    assert_eq!(second.len(), 4);
    for (one, other) in first.iter().zip(&second) {
        assert!(Arc::ptr_eq(one, other), "{one:?}");
    }

    // Then a loop's twenty-one events (twelve of its steps, nine of its two streamed answers)
    // and 1 022 more such calls (four events each): 4 113 events, seventeen more than the
    // buffer holds. The seventeen oldest are lost, counted one by one: the first call's four
    // events and the loop's first thirteen.
    let buffer = toolkit::limits::EVENT_BUFFER;
    assert_eq!(buffer, 4096);
    let looked = look(&service).await;
    assert_eq!(looked.content, "seen");
    for id in 2..=1023 {
        service
            .call_observed(
                &scope,
                "mcp",
                &ToolCall::new(format!("call_{id}"), "marks", "{}"),
            )
            .await;
    }
    assert_eq!(
        format!("{behind:?}"),
        format!("Subscription {{ waiting: {}, .. }}", 4 + 21 + 1022 * 4)
    );
    match behind.try_recv() {
        Err(tokio::sync::broadcast::error::TryRecvError::Lagged(missed)) => {
            assert_eq!(missed, 4 + 13, "every event lost, counted one by one");
        }
        other => panic!("expected the subscriber to have lagged, got {other:?}"),
    }
    let mut last_eight: Vec<String> = (0..8)
        .map(|_| name_of(&behind.try_recv().expect("the loop's last events")))
        .collect();
    // The loop's two calls run concurrently: either may finish first.
    if last_eight[0] == "tool_invoked#3" {
        last_eight.swap(0, 1);
    }
    assert_eq!(
        last_eight,
        [
            "tool_invoked#2",
            "tool_invoked#3",
            "step_started#4",
            "model_delta#4",
            "model_delta#4",
            "model_delta#4",
            "step_finished#4",
            "done"
        ]
    );
    let rest = received(&mut behind);
    assert_eq!(rest.len(), 1022 * 4);
    let RunEvent::ToolInvoked { invocation, .. } = &*rest[2] else {
        panic!("{:?}", rest[2]);
    };
    assert_eq!(invocation.call_id(), "call_2");
    assert_eq!(format!("{behind:?}"), "Subscription { waiting: 0, .. }");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_calls_from_many_threads_a_slow_reader_loses_no_event_it_is_not_told_of() {
    // Four tasks make 3 000 single calls each (12 000 runs of four events) while a reader that
    // keeps stopping falls behind, catches up and falls behind again.
    const TASKS: usize = 4;
    const CALLS: usize = 3_000;
    let service = Arc::new(service());
    let mut events = service.subscribe();
    let reader = tokio::spawn(async move {
        let (mut read, mut missed, mut lags) = (0_u64, 0_u64, 0_u32);
        // The position of the last event read of each run: a run's events come in order.
        let mut seen = std::collections::HashMap::<toolkit::recording::RunId, usize>::new();
        loop {
            match events.recv().await {
                Ok(event) => {
                    read += 1;
                    let position = ["run_started", "step_started#0", "tool_invoked#0", "done"]
                        .iter()
                        .position(|name| *name == name_of(&event))
                        .expect("a single call's event");
                    if let Some(before) = seen.insert(event.run_id().clone(), position) {
                        assert!(before < position, "{event:?} after {before}");
                    }
                    if read % 1_000 == 0 {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(count)) => {
                    missed += count;
                    lags += 1;
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
            if read + missed == (TASKS * CALLS * 4) as u64 {
                break;
            }
        }
        (read, missed, lags)
    });
    let callers: Vec<_> = (0..TASKS)
        .map(|task| {
            let service = Arc::clone(&service);
            tokio::spawn(async move {
                let scope = service.scope(ToolContext::new()).unwrap();
                for call in 0..CALLS {
                    let id = format!("call_{task}_{call}");
                    service
                        .call_observed(&scope, "mcp", &ToolCall::new(id, "marks", "{}"))
                        .await;
                    if call % 64 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
            })
        })
        .collect();
    for caller in callers {
        caller.await.unwrap();
    }
    let (read, missed, lags) = tokio::time::timeout(Duration::from_mins(1), reader)
        .await
        .expect("the reader accounts for every event")
        .unwrap();
    assert_eq!(read + missed, (TASKS * CALLS * 4) as u64);
    assert!(
        lags > 0 && missed > 0,
        "the reader never fell behind: {read} read"
    );
}

#[tokio::test]
async fn a_receive_given_up_takes_no_event() {
    let service = service();
    let mut events = service.subscribe();
    let scope = service.scope(ToolContext::new()).unwrap();
    // Waiting with nothing to read, then given up.
    {
        let mut waiting = std::pin::pin!(events.recv());
        let first =
            std::future::poll_fn(|context| std::task::Poll::Ready(waiting.as_mut().poll(context)))
                .await;
        assert!(first.is_pending());
    }
    service
        .call_observed(&scope, "mcp", &ToolCall::new("call_1", "marks", "{}"))
        .await;
    // One event read, then receives made and given up before they are polled, then the rest.
    let first = events.recv().await.unwrap();
    for _ in 0..3 {
        drop(events.recv());
    }
    let mut names = vec![name_of(&first)];
    names.extend(received(&mut events).iter().map(|event| name_of(event)));
    assert_eq!(
        names,
        ["run_started", "step_started#0", "tool_invoked#0", "done"]
    );
}

#[tokio::test(start_paused = true)]
async fn a_call_that_waits_is_shown_running_before_it_is_done() {
    let service = service();
    let mut events = service.subscribe();
    let scope = service.scope(ToolContext::new()).unwrap();
    let call = ToolCall::new("call_1", "naps", "{}");
    let mut observing = std::pin::pin!(service.call_observed(&scope, "mcp", &call));
    // One poll: the tool has started its 12 ms nap.
    let first =
        std::future::poll_fn(|context| std::task::Poll::Ready(observing.as_mut().poll(context)))
            .await;
    assert!(first.is_pending());
    let running = received(&mut events);
    let names: Vec<String> = running.iter().map(|event| name_of(event)).collect();
    assert_eq!(names, ["run_started", "step_started#0"]);
    assert!(matches!(
        &*running[0],
        RunEvent::RunStarted { title, .. } if title == "naps"
    ));
    assert!(matches!(
        &*running[1],
        RunEvent::StepStarted { kind: StepKind::Tool, tool: Some(tool), .. } if tool == "naps"
    ));

    let observed = observing.await;
    assert_eq!(observed.content(), "rested");
    let done = received(&mut events);
    let names: Vec<String> = done.iter().map(|event| name_of(event)).collect();
    assert_eq!(names, ["tool_invoked#0", "done"]);
    assert!(
        done.iter()
            .all(|event| event.run_id() == running[0].run_id())
    );
    assert!(matches!(
        &*done[1],
        RunEvent::Done { termination: Termination::Answered, content, .. } if content == "rested"
    ));
}

#[tokio::test(start_paused = true)]
async fn a_record_says_how_long_the_call_took_and_whether_it_failed() {
    let service = service();
    let _watching = service.subscribe();
    let scope = service.scope(ToolContext::new()).unwrap();
    let rested = service
        .call_observed(&scope, "mcp", &ToolCall::new("1", "naps", "{}"))
        .await;
    let record = rested.record().expect("a subscriber watches: recorded");
    // The tool slept 12 ms on a paused clock: the recorder timed exactly that.
    assert_eq!(record.duration(), Duration::from_millis(12));
    assert!(!record.is_error());
    let refused = service
        .call_observed(&scope, "mcp", &ToolCall::new("2", "nope", "{}"))
        .await;
    let record = refused.record().expect("recorded");
    assert!(record.is_error());
    assert_eq!(record.duration(), Duration::ZERO);
}

#[tokio::test]
async fn run_ids_are_unique_and_sort_by_start() {
    let service = service();
    let mut events = service.subscribe();
    let scope = service.scope(ToolContext::new()).unwrap();
    let call = ToolCall::new("1", "nope", "{}");
    for _ in 0..500 {
        service.call_observed(&scope, "mcp", &call).await;
    }
    let ids: Vec<String> = received(&mut events)
        .iter()
        .filter_map(|event| match &**event {
            RunEvent::RunStarted { run_id, .. } => Some(run_id.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 500);
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, ids, "distinct, in the order they started");
}

/// Keeps the name of every event it is given, slowly, so that an event shown before it is kept
/// would be seen by the subscriber first.
#[derive(Default)]
struct Slow {
    kept: Mutex<Vec<String>>,
    fail: bool,
}

impl Sink for Slow {
    fn record<'a>(&'a self, event: &'a RunEvent) -> BackendFuture<'a, ()> {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(2)).await;
            if self.fail {
                return Err(BackendError::new("disk full"));
            }
            self.kept.lock().unwrap().push(name_of(event));
            Ok(())
        })
    }
}

const LOOKUP_SCRIPT: &str = r#"{"turns": [
    {"tool_calls": [{"id": "a", "name": "shows"}, {"id": "b", "name": "shows"}]},
    {"content": "seen"}
]}"#;

/// A run of `LOOKUP_SCRIPT`: two calls of `shows` in one turn, then an answer.
async fn look(service: &ToolLoopService) -> toolkit::ToolLoopResult {
    let provider = ScriptedProvider::from_json(LOOKUP_SCRIPT).unwrap();
    service
        .run(&provider, RunRequest::new("look"))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sink_keeps_every_event_before_any_subscriber_sees_it() {
    let sink = Arc::new(Slow::default());
    let service = Arc::new(service().with_sink(sink.clone()));
    let mut events = service.subscribe();
    let kept_by_sink = Arc::clone(&sink);
    let watcher = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Ok(event) = events.recv().await {
            // A streamed answer's pieces are shown and never kept: sinks keep the finished
            // model step, which holds the whole answer.
            if matches!(*event, RunEvent::ModelDelta { .. }) {
                continue;
            }
            let name = name_of(&event);
            assert!(
                kept_by_sink.kept.lock().unwrap().contains(&name),
                "{name} was shown before the sink kept it"
            );
            seen.push(name);
            if matches!(*event, RunEvent::Done { .. }) {
                return seen;
            }
        }
        seen
    });
    let result = look(&service).await;
    assert_eq!(result.content, "seen");
    let seen = watcher.await.expect("the watcher saw every event in order");
    let expected = [
        "run_started",
        "step_started#0",
        "step_finished#0",
        "step_started#1",
        "step_finished#1",
        "step_started#2",
        "step_started#3",
        "tool_invoked#2",
        "tool_invoked#3",
        "step_started#4",
        "step_finished#4",
        "done",
    ];
    let mut kept = sink.kept.lock().unwrap().clone();
    assert!(!kept.iter().any(|name| name.starts_with("model_delta")));
    // The two calls run concurrently: either may finish first.
    if kept[7] == "tool_invoked#3" {
        kept.swap(7, 8);
    }
    assert_eq!(kept, expected);
    assert_eq!(seen.len(), expected.len());
    // The trace holds the same steps, the calls in the model's order.
    let kinds: Vec<&str> = result
        .trace
        .steps()
        .iter()
        .map(|s| s.kind().as_str())
        .collect();
    assert_eq!(kinds, ["request", "llm", "tool", "tool", "llm"]);
    let ids: Vec<&str> = result
        .trace
        .invocations()
        .map(toolkit::recording::ToolInvocation::call_id)
        .collect();
    assert_eq!(ids, ["a", "b"]);
}

#[tokio::test]
async fn a_failing_sink_does_not_stop_a_run_and_subscribers_hear_of_it() {
    let sink = Arc::new(Slow {
        fail: true,
        ..Slow::default()
    });
    let service = service().with_sink(sink);
    let mut events = service.subscribe();
    let result = look(&service).await;
    assert_eq!(result.termination, Termination::Answered);
    let errors: Vec<String> = received(&mut events)
        .iter()
        .filter_map(|event| match &**event {
            RunEvent::Error { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect();
    // One report per event the sink could not keep: all twelve.
    assert_eq!(errors.len(), 12);
    assert!(
        errors
            .iter()
            .all(|message| message == "a sink could not keep this run's event: disk full")
    );
}

/// A sink that cannot keep the events whose name `fails` says (the database went away), and
/// counts how many times the tool `counted` ran.
struct Refuses {
    fails: fn(&str) -> bool,
}

static COUNTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Counts its runs.
#[tool]
fn counted() -> ToolResult {
    COUNTED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    ToolResult::text("counted")
}

impl Sink for Refuses {
    fn record<'a>(&'a self, event: &'a RunEvent) -> BackendFuture<'a, ()> {
        let name = name_of(event);
        let fails = (self.fails)(&name);
        Box::pin(async move {
            if fails {
                Err(BackendError::new(format!("cannot keep {name}")))
            } else {
                Ok(())
            }
        })
    }
}

#[tokio::test]
async fn a_single_call_that_cannot_be_kept_is_never_reported_as_a_success() {
    let ran = || COUNTED.load(std::sync::atomic::Ordering::SeqCst);
    let call = ToolCall::new("1", "counted", "{}");
    // Its start cannot be kept: the call does not run.
    let service = service().with_sink(Arc::new(Refuses {
        fails: |name| name == "run_started",
    }));
    let scope = service.scope(ToolContext::new()).expect("a scope");
    let before = ran();
    let observed = service.call_observed(&scope, "test", &call).await;
    assert_eq!(ran(), before, "not run");
    assert!(observed.unkept() && observed.is_error());
    assert_eq!(
        observed.content(),
        "Error: tool \"counted\" was not run: the record this service keeps of every call could \
         not be written. Try again later."
    );
    // Its step cannot be kept: it ran, and its result is withheld.
    let service = service_with(Refuses {
        fails: |name| name.starts_with("tool_invoked"),
    });
    let scope = service.scope(ToolContext::new()).expect("a scope");
    let before = ran();
    let observed = service.call_observed(&scope, "test", &call).await;
    assert_eq!(ran(), before + 1, "ran once");
    assert!(observed.unkept() && observed.is_error());
    assert_eq!(
        observed.content(),
        "Error: tool \"counted\" ran, but the record this service keeps of every call could not \
         be written, so its result is withheld."
    );
    // The record the sinks were given is the call's own.
    assert_eq!(observed.record().expect("recorded").content(), "counted");
    // Everything kept: the result itself.
    let service = service_with(Refuses { fails: |_| false });
    let scope = service.scope(ToolContext::new()).expect("a scope");
    let observed = service.call_observed(&scope, "test", &call).await;
    assert!(!observed.unkept() && !observed.is_error());
    assert_eq!(observed.content(), "counted");
}

/// A call of `guarded` asked of a person and approved: what its caller gets.
async fn approved_guarded(service: &ToolLoopService) -> toolkit::recording::ObservedCall {
    let scope = service
        .seam()
        .scope_offering(ToolContext::new(), ["guarded"])
        .expect("a scope");
    let question = service
        .question(&scope, "test", ToolCall::new("1", "guarded", "{}"))
        .await
        .expect("asked");
    service
        .answer(
            &scope,
            "test",
            question,
            Some(toolkit::approval::Choice::Approve),
        )
        .await
        .expect("decided")
}

#[tokio::test]
async fn an_approved_call_whose_start_cannot_be_kept_does_not_run() {
    let service = service_with(Refuses {
        fails: |name| name == "run_started",
    });
    let observed = approved_guarded(&service).await;
    assert!(observed.unkept() && observed.is_error());
    let not_run = "Error: tool \"guarded\" was not run: the record this service keeps of every \
                   call could not be written. Try again later.";
    // The record, and the reply: not run (never "ran, but withheld").
    assert_eq!(observed.record().expect("recorded").content(), not_run);
    assert_eq!(observed.content(), not_run);
}

fn service_with(sink: Refuses) -> ToolLoopService {
    service().with_sink(Arc::new(sink))
}

#[tokio::test]
async fn a_resumed_run_numbers_its_steps_on_from_where_it_stopped() {
    let service = service();
    let mut events = service.subscribe();
    let provider = ScriptedProvider::from_json(
        r#"{"turns": [
            {"tool_calls": [{"id": "look", "name": "shows"}, {"id": "del", "name": "guarded"}]},
            {"content": "finished"}
        ]}"#,
    )
    .unwrap();
    let suspended = service.run(&provider, RunRequest::new("x")).await.unwrap();
    let token = suspended.suspension.expect("suspended").token;
    let resumed = service
        .resume(
            &provider,
            &token,
            &[Decision::approve("del")],
            ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(resumed.content, "finished");
    let names: Vec<String> = received(&mut events).iter().map(|e| name_of(e)).collect();
    assert_eq!(
        names,
        [
            "run_started",
            "step_started#0",
            "step_finished#0",
            "step_started#1",
            // The model's answer, as it streamed: two calls started, their arguments, usage,
            // why it stopped.
            "model_delta#1",
            "model_delta#1",
            "model_delta#1",
            "model_delta#1",
            "model_delta#1",
            "model_delta#1",
            "step_finished#1",
            "step_started#2",
            "tool_invoked#2",
            "step_started#3",
            "step_finished#3",
            "done",
            // The resume goes on counting: no step of the first part is numbered again.
            "step_started#4",
            "step_finished#4",
            "step_started#5",
            "tool_invoked#5",
            "step_started#6",
            "model_delta#6",
            "model_delta#6",
            "model_delta#6",
            "step_finished#6",
            "done",
        ]
    );
}

#[tokio::test]
async fn subscriptions_are_counted_while_they_live_and_say_what_waits() {
    let service = service();
    assert_eq!(
        format!("{:?}", service.recorder()),
        "Recorder { sinks: 0, subscribers: 0, .. }"
    );
    let mut first = service.subscribe();
    let second = service.subscribe();
    assert_eq!(
        format!("{:?}", service.recorder()),
        "Recorder { sinks: 0, subscribers: 2, .. }"
    );
    let scope = service.scope(ToolContext::new()).unwrap();
    service
        .call_observed(&scope, "mcp", &ToolCall::new("1", "shows", "{}"))
        .await;
    assert_eq!(format!("{first:?}"), "Subscription { waiting: 4, .. }");
    first.try_recv().expect("run started");
    assert_eq!(format!("{first:?}"), "Subscription { waiting: 3, .. }");
    drop(second);
    assert_eq!(
        format!("{:?}", service.recorder()),
        "Recorder { sinks: 0, subscribers: 1, .. }"
    );
    drop(first);
    assert_eq!(
        format!("{:?}", service.recorder()),
        "Recorder { sinks: 0, subscribers: 0, .. }"
    );
}

#[tokio::test]
async fn a_sink_alone_is_given_every_event_of_a_call() {
    // No subscriber: the sink is reason enough to record.
    let sink = Arc::new(Slow::default());
    let service = service().with_sink(sink.clone());
    let scope = service.scope(ToolContext::new()).unwrap();
    service
        .call_observed(&scope, "mcp", &ToolCall::new("1", "shows", "{}"))
        .await;
    assert_eq!(
        *sink.kept.lock().unwrap(),
        ["run_started", "step_started#0", "tool_invoked#0", "done"]
    );
}

/// What a sink kept and a subscriber saw of everything `work` records, the subscriber checking
/// that the sink had kept each event before it was shown.
async fn sink_then_stream<F: Future>(
    service: &Arc<ToolLoopService>,
    sink: &Arc<Slow>,
    work: F,
) -> (Vec<String>, Vec<String>, F::Output) {
    sink.kept.lock().unwrap().clear();
    let mut events = service.subscribe();
    let kept_by_sink = Arc::clone(sink);
    let watcher = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Ok(event) = events.recv().await {
            // Shown, never kept (see above).
            if matches!(*event, RunEvent::ModelDelta { .. }) {
                continue;
            }
            let name = name_of(&event);
            let kept = kept_by_sink.kept.lock().unwrap().clone();
            assert_eq!(
                kept.get(seen.len()),
                Some(&name),
                "{name} was shown before the sink kept it, or out of its order: {kept:?}"
            );
            seen.push(name);
            if matches!(*event, RunEvent::Done { .. }) {
                return seen;
            }
        }
        seen
    });
    let output = work.await;
    let seen = watcher.await.expect("the watcher saw every event in order");
    let kept = sink.kept.lock().unwrap().clone();
    (kept, seen, output)
}

/// The steps a run's events announced finished, as their kinds, in step order.
fn finished_kinds(events: &[String]) -> Vec<String> {
    let mut finished: Vec<(usize, &str)> = events
        .iter()
        .filter_map(|name| {
            let (event, index) = name.split_once('#')?;
            let kind = match event {
                "tool_invoked" => "tool",
                "step_finished" => "other",
                _ => return None,
            };
            Some((index.parse().unwrap(), kind))
        })
        .collect();
    finished.sort_unstable();
    finished
        .iter()
        .map(|(_, kind)| (*kind).to_owned())
        .collect()
}

fn trace_kinds(trace: &toolkit::recording::RunTrace) -> Vec<String> {
    trace
        .steps()
        .iter()
        .map(|step| match step.kind() {
            StepKind::Tool => "tool".to_owned(),
            _ => "other".to_owned(),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_entry_point_records_each_step_to_the_sinks_then_the_stream_then_the_trace() {
    let sink = Arc::new(Slow::default());
    let service = Arc::new(service().with_sink(sink.clone()));
    let scope = service.scope(ToolContext::new()).unwrap();
    let script = r#"{"turns": [
        {"tool_calls": [{"id": "look", "name": "shows"}, {"id": "del", "name": "guarded"}]},
        {"content": "finished"}
    ]}"#;
    let provider = ScriptedProvider::from_json(script).unwrap();

    // A single call (MCP, the inspector): a run of one tool step.
    let call = ToolCall::new("1", "shows", "{}");
    let (kept, seen, observed) =
        sink_then_stream(&service, &sink, service.call_observed(&scope, "mcp", &call)).await;
    assert_eq!(
        kept,
        ["run_started", "step_started#0", "tool_invoked#0", "done"]
    );
    assert_eq!(seen, kept);
    assert_eq!(observed.record().unwrap().call_id(), "1");

    // A loop, up to its suspension.
    let (kept, seen, suspended) = sink_then_stream(
        &service,
        &sink,
        service.run(&provider, RunRequest::new("x")),
    )
    .await;
    let suspended = suspended.unwrap();
    assert_eq!(seen, kept);
    assert_eq!(kept.len(), 10);
    assert_eq!(finished_kinds(&kept), trace_kinds(&suspended.trace));
    let token = suspended.suspension.expect("suspended").token;

    // Its resume.
    let (kept, seen, resumed) = sink_then_stream(
        &service,
        &sink,
        service.resume(
            &provider,
            &token,
            &[Decision::approve("del")],
            ToolContext::new(),
        ),
    )
    .await;
    let resumed = resumed.unwrap();
    assert_eq!(resumed.content, "finished");
    assert_eq!(seen, kept);
    assert_eq!(kept.len(), 7);
    assert_eq!(finished_kinds(&kept), trace_kinds(&resumed.trace));

    // An abort of another suspension.
    let again = service.run(&provider, RunRequest::new("y")).await.unwrap();
    let token = again.suspension.expect("suspended").token;
    let (kept, seen, aborted) = sink_then_stream(&service, &sink, service.abort(&token)).await;
    let aborted = aborted.unwrap();
    assert_eq!(aborted.termination, Termination::Aborted);
    assert_eq!(seen, kept);
    assert_eq!(kept, ["step_started#4", "step_finished#4", "done"]);
    assert_eq!(finished_kinds(&kept), trace_kinds(&aborted.trace));
}

/// A sink that keeps a call's run whole: each write it made, as the names of its events; it
/// fails every write while `failing` is set.
#[derive(Default)]
struct Whole {
    writes: Mutex<Vec<Vec<String>>>,
    failing: std::sync::atomic::AtomicBool,
}

impl Whole {
    fn writes(&self) -> Vec<Vec<String>> {
        self.writes.lock().unwrap().clone()
    }

    fn fail(&self, failing: bool) {
        self.failing
            .store(failing, std::sync::atomic::Ordering::SeqCst);
    }

    fn write(&self, names: Vec<String>) -> Result<(), BackendError> {
        if self.failing.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(BackendError::new("the database is down"));
        }
        self.writes.lock().unwrap().push(names);
        Ok(())
    }
}

impl Sink for Whole {
    fn record<'a>(&'a self, event: &'a RunEvent) -> BackendFuture<'a, ()> {
        Box::pin(async move { self.write(vec![name_of(event)]) })
    }

    fn keeps_runs_whole(&self) -> bool {
        true
    }

    fn record_run<'a>(&'a self, events: &'a [Arc<RunEvent>]) -> BackendFuture<'a, ()> {
        Box::pin(async move {
            // Slow, so that an event shown before it is kept would be seen first.
            tokio::time::sleep(Duration::from_millis(2)).await;
            self.write(events.iter().map(|event| name_of(event)).collect())
        })
    }
}

static TALLY: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Counts its runs (apart from `counted`, which other tests call at the same time).
#[tool]
fn tallied() -> ToolResult {
    TALLY.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    ToolResult::text("tallied")
}

const WHOLE_CALL: [&str; 4] = ["run_started", "step_started#0", "tool_invoked#0", "done"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_is_kept_whole_in_one_write_before_its_step_is_shown() {
    let sink = Arc::new(Whole::default());
    let service = Arc::new(service().with_sink(sink.clone()));
    let mut events = service.subscribe();
    let kept_by_sink = Arc::clone(&sink);
    let watcher = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Ok(event) = events.recv().await {
            let name = name_of(&event);
            let kept = kept_by_sink.writes().concat().contains(&name);
            // A start shows nothing a call did: it is shown as it happens, and kept with the
            // rest of the run; the step and the end only once they are kept.
            let starts = name == "run_started" || name.starts_with("step_started");
            assert_eq!(kept, !starts, "{name} shown when kept is {kept}");
            seen.push(name);
            if matches!(*event, RunEvent::Done { .. }) {
                return seen;
            }
        }
        seen
    });
    let scope = service.scope(ToolContext::new()).expect("a scope");
    let observed = service
        .call_observed(&scope, "mcp", &ToolCall::new("1", "shows", "{}"))
        .await;
    assert!(!observed.unkept());
    assert_eq!(observed.content(), "shown");
    assert_eq!(sink.writes(), [WHOLE_CALL]);
    // Bounded: a run whose end is never shown fails here rather than hanging.
    let seen = tokio::time::timeout(Duration::from_secs(10), watcher)
        .await
        .expect("the run's end is shown")
        .expect("watched");
    assert_eq!(seen, WHOLE_CALL);
}

#[tokio::test]
async fn while_a_sink_fails_a_call_runs_only_once_its_start_is_kept() {
    let ran = || TALLY.load(std::sync::atomic::Ordering::SeqCst);
    let sink = Arc::new(Whole::default());
    let service = service().with_sink(sink.clone());
    let scope = service.scope(ToolContext::new()).expect("a scope");
    let call = ToolCall::new("1", "tallied", "{}");
    // The database goes down: the first call after it ran, and its result is withheld.
    sink.fail(true);
    let before = ran();
    let first = service.call_observed(&scope, "mcp", &call).await;
    assert_eq!(ran(), before + 1, "ran once");
    assert!(first.unkept() && first.is_error());
    assert_eq!(
        first.content(),
        "Error: tool \"tallied\" ran, but the record this service keeps of every call could not \
         be written, so its result is withheld."
    );
    // While it stays down, a call's start is kept alone first, and a call whose start cannot be
    // kept does not run.
    let second = service.call_observed(&scope, "mcp", &call).await;
    assert_eq!(ran(), before + 1, "not run");
    assert_eq!(
        second.content(),
        "Error: tool \"tallied\" was not run: the record this service keeps of every call could \
         not be written. Try again later."
    );
    assert!(sink.writes().is_empty());
    // Back: the next call's start is kept alone, and it runs; once a write succeeded, calls are
    // kept whole again.
    sink.fail(false);
    let third = service.call_observed(&scope, "mcp", &call).await;
    assert_eq!(third.content(), "tallied");
    let fourth = service.call_observed(&scope, "mcp", &call).await;
    assert_eq!(fourth.content(), "tallied");
    assert_eq!(ran(), before + 3);
    let one_by_one: Vec<Vec<&str>> = WHOLE_CALL.iter().map(|name| vec![*name]).collect();
    let mut expected = one_by_one.clone();
    expected.push(WHOLE_CALL.to_vec());
    assert_eq!(sink.writes(), expected);
}

#[tokio::test]
async fn a_sink_that_keeps_events_one_by_one_still_keeps_a_start_before_the_call_runs() {
    let ran = || TALLY.load(std::sync::atomic::Ordering::SeqCst);
    let whole = Arc::new(Whole::default());
    let service = service()
        .with_sink(whole.clone())
        .with_sink(Arc::new(Refuses {
            fails: |name| name == "run_started",
        }));
    let scope = service.scope(ToolContext::new()).expect("a scope");
    let before = ran();
    let observed = service
        .call_observed(&scope, "mcp", &ToolCall::new("1", "tallied", "{}"))
        .await;
    assert_eq!(ran(), before, "not run");
    assert_eq!(
        observed.content(),
        "Error: tool \"tallied\" was not run: the record this service keeps of every call could \
         not be written. Try again later."
    );
    // The sink that keeps runs whole keeps this one too: what was asked, and that it did not run.
    assert_eq!(whole.writes(), [WHOLE_CALL]);
    let kept = Arc::new(Slow::default());
    let service = service_of_sinks(whole.clone(), kept.clone());
    let scope = service.scope(ToolContext::new()).expect("a scope");
    let observed = service
        .call_observed(&scope, "mcp", &ToolCall::new("2", "tallied", "{}"))
        .await;
    assert_eq!(observed.content(), "tallied");
    assert_eq!(*kept.kept.lock().unwrap(), WHOLE_CALL);
    assert_eq!(whole.writes(), [WHOLE_CALL, WHOLE_CALL]);
}

fn service_of_sinks(whole: Arc<Whole>, one_by_one: Arc<Slow>) -> ToolLoopService {
    service().with_sink(whole).with_sink(one_by_one)
}

#[tokio::test]
async fn an_approved_call_is_kept_whole_with_the_decision_that_let_it_run() {
    let sink = Arc::new(Whole::default());
    let service = service().with_sink(sink.clone());
    let observed = approved_guarded(&service).await;
    assert_eq!(observed.content(), "done");
    assert_eq!(
        sink.writes(),
        [[
            "run_started",
            "step_started#0",
            "step_finished#0",
            "step_started#1",
            "tool_invoked#1",
            "done"
        ]]
    );
}

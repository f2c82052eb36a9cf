//! A call given up from outside: a scope's cancel signal (what an MCP server gives when its
//! client cancels or goes away) and a cancelled loop run end the running call at once, as a
//! timeout does; a blocking tool sees its flag and stops, an async tool's future is dropped,
//! and the call is recorded with one exact result, its run as cancelled.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use toolkit::provider::ScriptedProvider;
use toolkit::recording::{RunStep, Termination};
use toolkit::seam::CancelSignal;
use toolkit::{RunEvent, RunRequest, ToolCall, ToolContext, ToolLoopService, ToolRegistry, tool};

/// What a test's tools did: each test gives its own to its context.
#[derive(Default)]
struct Work {
    started: AtomicBool,
    rounds: AtomicU64,
    stopped: AtomicBool,
}

/// Works on a worker until its caller stops waiting.
#[tool]
fn spins(#[state] work: &Work, context: &ToolContext) -> String {
    work.started.store(true, Ordering::SeqCst);
    while !context.is_cancelled() {
        work.rounds.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(1));
    }
    work.stopped.store(true, Ordering::SeqCst);
    "stopped when told".to_owned()
}

/// Marks its work stopped when dropped.
struct Stops<'a>(&'a Work);

impl Drop for Stops<'_> {
    fn drop(&mut self) {
        self.0.stopped.store(true, Ordering::SeqCst);
    }
}

/// Waits for ever, on the caller's task.
#[tool]
async fn waits(#[state] work: &Work) -> String {
    let _stops = Stops(work);
    work.started.store(true, Ordering::SeqCst);
    std::future::pending::<()>().await;
    "never".to_owned()
}

const SPINS_CANCELLED: &str = "Error: the call of tool \"spins\" was cancelled before it finished.";

fn service() -> ToolLoopService {
    ToolLoopService::new(ToolRegistry::linked().expect("no duplicate names"))
}

/// A context with a `Work` of its own, and a view of that `Work` (a clone of a context
/// shares its extensions).
fn working() -> (ToolContext, WorkView) {
    let context = ToolContext::new().with_extension(Work::default());
    let view = WorkView(context.clone());
    (context, view)
}

/// The `Work` a context holds, read from outside the call.
struct WorkView(ToolContext);

impl WorkView {
    fn work(&self) -> &Work {
        self.0.extension::<Work>().expect("the context holds it")
    }
}

/// Waits (at most 10 s) until `done` holds.
async fn until(done: impl Fn() -> bool) {
    for _ in 0..10_000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("it never happened");
}

/// Gives `signal` once the tool of `view` has started.
async fn cancel_once_started(view: &WorkView, signal: &CancelSignal) {
    until(|| view.work().started.load(Ordering::SeqCst)).await;
    signal.cancel();
}

/// Once the tool stopped, its rounds no longer grow: no work is left.
async fn assert_no_work_left(view: &WorkView) {
    until(|| view.work().stopped.load(Ordering::SeqCst)).await;
    let rounds = view.work().rounds.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert_eq!(view.work().rounds.load(Ordering::SeqCst), rounds);
}

#[tokio::test]
async fn a_cancelled_scope_ends_a_blocking_call_at_once_and_the_tool_sees_its_flag() {
    let service = service();
    let (context, view) = working();
    let signal = CancelSignal::new();
    let scope = service.scope(context).unwrap().with_cancel(signal.clone());
    let (result, ()) = tokio::join!(
        service.invoke(&scope, "spins", "{}"),
        cancel_once_started(&view, &signal)
    );
    assert_eq!(
        (result.content(), result.is_error()),
        (SPINS_CANCELLED, true)
    );
    assert!(scope.is_cancelled());
    assert_no_work_left(&view).await;
}

#[tokio::test]
async fn a_cancelled_scope_drops_an_async_tools_future() {
    let service = service();
    let (context, view) = working();
    let signal = CancelSignal::new();
    let scope = service.scope(context).unwrap().with_cancel(signal.clone());
    let (result, ()) = tokio::join!(
        service.invoke(&scope, "waits", "{}"),
        cancel_once_started(&view, &signal)
    );
    assert_eq!(
        (result.content(), result.is_error()),
        (
            "Error: the call of tool \"waits\" was cancelled before it finished.",
            true
        )
    );
    // Dropped with the answer, not later.
    assert!(view.work().stopped.load(Ordering::SeqCst));
}

#[tokio::test]
async fn no_call_of_a_cancelled_scope_starts_but_a_refusal_is_still_a_refusal() {
    let service = service();
    let (context, view) = working();
    let signal = CancelSignal::new();
    signal.cancel();
    let scope = service.scope(context).unwrap().with_cancel(signal);
    let result = service.invoke(&scope, "spins", "{}").await;
    assert_eq!(
        (result.content(), result.is_error()),
        (SPINS_CANCELLED, true)
    );
    assert!(!view.work().started.load(Ordering::SeqCst));
    let refused = service.invoke(&scope, "nope", "{}").await;
    assert_eq!(refused.content(), "Error: unknown tool \"nope\"");
}

#[tokio::test]
async fn a_signal_never_given_changes_no_call() {
    let service = service();
    let (context, _) = working();
    let scope = service
        .scope(context)
        .unwrap()
        .with_cancel(CancelSignal::new())
        .with_timeout(Duration::from_millis(50));
    // The timeout ends the call as before: a failure, not a cancellation.
    let result = service.invoke(&scope, "spins", "{}").await;
    assert_eq!(result.content(), "Error: tool \"spins\" failed.");
    assert!(!scope.is_cancelled());
}

#[tokio::test]
async fn an_observed_call_that_is_cancelled_is_recorded_as_cancelled() {
    let service = service();
    let mut events = service.subscribe();
    let (context, view) = working();
    let signal = CancelSignal::new();
    let scope = service.scope(context).unwrap().with_cancel(signal.clone());
    let call = ToolCall::new("call_1", "spins", "{}");
    let (observed, ()) = tokio::join!(
        service.call_observed(&scope, "mcp", &call),
        cancel_once_started(&view, &signal)
    );
    assert_eq!(observed.content(), SPINS_CANCELLED);
    let record = observed.record().expect("a subscriber watches");
    assert_eq!(
        (record.call_id(), record.content(), record.is_error()),
        ("call_1", SPINS_CANCELLED, true)
    );
    let seen: Vec<Arc<RunEvent>> = std::iter::from_fn(|| events.try_recv().ok()).collect();
    let names: Vec<String> = seen
        .iter()
        .map(|event| {
            serde_json::to_value(&**event).expect("JSON")["event"]
                .as_str()
                .expect("a name")
                .to_owned()
        })
        .collect();
    assert_eq!(
        names,
        ["run_started", "step_started", "tool_invoked", "done"]
    );
    let RunEvent::Done {
        termination,
        content,
        ..
    } = &*seen[3]
    else {
        panic!("the last event is done: {:?}", seen[3]);
    };
    assert_eq!(
        (*termination, content.as_str()),
        (Termination::Cancelled, SPINS_CANCELLED)
    );
    assert_no_work_left(&view).await;
}

#[tokio::test]
async fn a_loop_run_cancelled_while_its_call_runs_ends_the_call_and_the_run() {
    let service = service();
    let provider = ScriptedProvider::from_json(
        r#"{"turns": [{"tool_calls": [{"id": "c1", "name": "spins", "arguments": {}}]},
                      {"content": "never asked"}]}"#,
    )
    .expect("a valid script");
    let (context, view) = working();
    let signal = CancelSignal::new();
    let request = RunRequest::new("spin")
        .with_context(context)
        .with_cancel(signal.clone());
    let (result, ()) = tokio::join!(
        service.run(&provider, request),
        cancel_once_started(&view, &signal)
    );
    let result = result.expect("the run starts");
    assert_eq!(result.termination, Termination::Cancelled);
    assert_eq!(result.iterations, 1);
    let steps: Vec<(&str, Option<&str>)> = result
        .trace
        .steps()
        .iter()
        .map(|step| match step {
            RunStep::Tool(invocation) => ("tool", Some(invocation.content())),
            other => (other.kind().as_str(), None),
        })
        .collect();
    assert_eq!(
        steps,
        [
            ("request", None),
            ("llm", None),
            ("tool", Some(SPINS_CANCELLED))
        ]
    );
    assert_no_work_left(&view).await;
}

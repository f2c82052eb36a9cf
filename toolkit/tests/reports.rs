//! What a running tool reports (`ToolContext::progress`, `ToolContext::log`): each report goes to
//! its scope's sink under its own call's id, masked like content, and never to the model, the
//! trace or a sink of the recorder (the audit copy keeps the finished call only).

use std::sync::{Arc, Mutex};

use toolkit::provider::ScriptedProvider;
use toolkit::recording::{RunStep, Termination};
use toolkit::seam::SecretFilter;
use toolkit::shared::BackendFuture;
use toolkit::talk::{CallReport, LogLevel, ReportSink};
use toolkit::{
    RunEvent, RunRequest, Seam, Sink, ToolCall, ToolContext, ToolLoopService, ToolRegistry, tool,
};

/// Counts to `to`, reporting each step and logging where it is.
#[tool]
fn counts(
    /// How far to count.
    to: u64,
    context: &ToolContext,
) -> String {
    for step in 0..=to {
        // One report per pace: each step waits past the interval, so none is dropped.
        std::thread::sleep(toolkit::limits::PROGRESS_INTERVAL);
        context.progress(step, Some(to), &format!("step {step} of {to}"));
    }
    context.log(LogLevel::Info, &format!("finished counting to {to}"));
    format!("counted to {to}")
}

/// Logs a line holding a password, then answers.
#[tool]
async fn logs_a_secret(context: &ToolContext) -> String {
    // Reports after a wait as well as before one.
    tokio::task::yield_now().await;
    context.log(
        LogLevel::Debug,
        "connecting with DB_PASSWORD=hunter2-Secret-77",
    );
    "connected".to_owned()
}

#[derive(Default)]
struct Heard(Mutex<Vec<(String, CallReport)>>);

impl ReportSink for Heard {
    fn report(&self, call_id: &str, report: CallReport) {
        self.0.lock().unwrap().push((call_id.to_owned(), report));
    }
}

impl Heard {
    fn of(&self, call_id: &str) -> String {
        let heard = self.0.lock().unwrap();
        let reports: Vec<&CallReport> = heard
            .iter()
            .filter(|(id, _)| id == call_id)
            .map(|(_, report)| report)
            .collect();
        serde_json::to_string(&reports).unwrap()
    }
}

/// Every event a sink of the recorder is given, as JSON.
#[derive(Default)]
struct Kept(Mutex<Vec<String>>);

impl Sink for Kept {
    fn record<'a>(&'a self, event: &'a RunEvent) -> BackendFuture<'a, ()> {
        self.0
            .lock()
            .unwrap()
            .push(serde_json::to_string(event).unwrap());
        Box::pin(async { Ok(()) })
    }
}

fn registry() -> ToolRegistry {
    ToolRegistry::linked().unwrap()
}

const COUNTED_TO_2: &str = r#"[{"kind":"progress","done":0,"total":2,"message":"step 0 of 2"},{"kind":"progress","done":1,"total":2,"message":"step 1 of 2"},{"kind":"progress","done":2,"total":2,"message":"step 2 of 2"},{"kind":"log","level":"info","message":"finished counting to 2"}]"#;

#[tokio::test]
async fn each_call_reports_under_its_own_id_and_a_scope_without_a_sink_hears_nothing() {
    let seam = Seam::new(registry());
    let heard = Arc::new(Heard::default());
    let scope = seam
        .scope(ToolContext::new())
        .unwrap()
        .with_reports(heard.clone());
    let first = ToolCall::new("call_a", "counts", r#"{"to": 2}"#);
    let second = ToolCall::new("call_b", "counts", r#"{"to": 1}"#);
    let (a, b) = tokio::join!(
        seam.invoke_call(&scope, &first),
        seam.invoke_call(&scope, &second)
    );
    assert_eq!((a.content(), b.content()), ("counted to 2", "counted to 1"));
    assert_eq!(heard.of("call_a"), COUNTED_TO_2);
    assert_eq!(
        heard.of("call_b"),
        r#"[{"kind":"progress","done":0,"total":1,"message":"step 0 of 1"},{"kind":"progress","done":1,"total":1,"message":"step 1 of 1"},{"kind":"log","level":"info","message":"finished counting to 1"}]"#
    );
    // `invoke` names no call: its reports come under the empty id.
    seam.invoke(&scope, "counts", r#"{"to": 0}"#).await;
    assert_eq!(
        heard.of(""),
        r#"[{"kind":"progress","done":0,"total":0,"message":"step 0 of 0"},{"kind":"log","level":"info","message":"finished counting to 0"}]"#
    );
    // A refused call runs nothing and reports nothing.
    let refused = ToolCall::new("call_c", "counts", r#"{"to": "two"}"#);
    assert!(seam.invoke_call(&scope, &refused).await.is_error());
    assert_eq!(heard.of("call_c"), "[]");

    // Without a sink the same calls answer the same, and reporting is a no-op.
    let quiet = seam.scope(ToolContext::new()).unwrap();
    assert_eq!(
        seam.invoke_call(&quiet, &first).await.content(),
        "counted to 2"
    );
}

#[tokio::test]
async fn a_report_is_masked_as_content_is() {
    let seam = Seam::new(registry()).with_content_filter(Arc::new(SecretFilter));
    let heard = Arc::new(Heard::default());
    let scope = seam
        .scope(ToolContext::new())
        .unwrap()
        .with_reports(heard.clone());
    let call = ToolCall::new("call_s", "logs_a_secret", "{}");
    assert_eq!(seam.invoke_call(&scope, &call).await.content(), "connected");
    assert_eq!(
        heard.of("call_s"),
        r#"[{"kind":"log","level":"debug","message":"connecting with DB_PASSWORD=[REDACTED]"}]"#
    );
}

#[tokio::test]
async fn a_loop_shows_reports_to_subscribers_only_and_names_each_call_in_its_step() {
    let kept = Arc::new(Kept::default());
    let service = ToolLoopService::new(registry()).with_sink(kept.clone());
    let mut events = service.subscribe();
    let provider = ScriptedProvider::from_json(
        r#"{"turns": [{"tool_calls": [{"id": "c1", "name": "counts", "arguments": {"to": 2}},
                                      {"id": "c2", "name": "logs_a_secret", "arguments": {}}]},
                      {"content": "done"}]}"#,
    )
    .unwrap();
    let result = service
        .run(&provider, RunRequest::new("count"))
        .await
        .unwrap();
    assert_eq!(result.termination, Termination::Answered);

    let mut started = Vec::new();
    let mut reports: Vec<(String, CallReport)> = Vec::new();
    while let Ok(event) = events.try_recv() {
        match &*event {
            RunEvent::StepStarted {
                index,
                tool,
                call_id,
                ..
            } => started.push((*index, tool.clone(), call_id.clone())),
            RunEvent::ToolReport {
                run_id,
                call_id,
                report,
                ..
            } => {
                assert_eq!(run_id, result.trace.run_id());
                reports.push((call_id.clone(), report.clone()));
            }
            _ => {}
        }
    }
    let some = |text: &str| Some(text.to_owned());
    assert_eq!(
        started,
        [
            (0, None, None),
            (1, None, None),
            (2, some("counts"), some("c1")),
            (3, some("logs_a_secret"), some("c2")),
            (4, None, None),
        ]
    );
    let heard = Heard(Mutex::new(reports));
    assert_eq!(heard.of("c1"), COUNTED_TO_2);
    assert_eq!(
        heard.of("c2"),
        r#"[{"kind":"log","level":"debug","message":"connecting with DB_PASSWORD=hunter2-Secret-77"}]"#
    );

    // Neither the model, nor the trace, nor the recorder's sink got any of it.
    let messages = serde_json::to_string(&result.messages).unwrap();
    let trace = serde_json::to_string(&result.trace).unwrap();
    let sunk = kept.0.lock().unwrap().join("\n");
    for reported in ["step 1 of 2", "finished counting", "hunter2"] {
        assert!(!messages.contains(reported), "{reported} reached the model");
        assert!(!trace.contains(reported), "{reported} is in the trace");
        assert!(!sunk.contains(reported), "{reported} reached a sink");
    }
    assert!(!sunk.contains("tool_report"));
    // The model read what the tools returned.
    let tools: Vec<&str> = result
        .trace
        .steps()
        .iter()
        .filter_map(|step| match step {
            RunStep::Tool(invocation) => Some(invocation.content()),
            _ => None,
        })
        .collect();
    assert_eq!(tools, ["counted to 2", "connected"]);
}

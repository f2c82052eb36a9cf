//! A call the client gives up, over a stdio-like connection (newline-delimited JSON-RPC on an
//! in-memory pipe, as `serve_stdio` speaks it): `notifications/cancelled` and the end of the
//! input end the running call, whose blocking tool sees its flag and stops, and the call is
//! recorded as cancelled; so is a writer's call, while the person has its form or once it runs,
//! and a task's call, on `tasks/cancel` or the end of the input.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream};
use toolkit::recording::{RunStep, Subscription};
use toolkit::spec::{ExecutePermit, Execution, TaskSupport, ToolFlags, ToolFuture};
use toolkit::{RunEvent, Tool, ToolContext, ToolLoopService, ToolRegistry, ToolResult, ToolSpec};

use super::McpToolServer;
use crate::views::{UI_EXTENSION, VIEW_MIME_TYPE};

/// What a tool did: whether it started, how many rounds it worked, whether it stopped.
#[derive(Default)]
struct Work {
    started: AtomicBool,
    rounds: AtomicU64,
    stopped: AtomicBool,
}

/// A blocking tool that works until its caller stops waiting.
struct Spins(ToolSpec, Arc<Work>);

impl Tool for Spins {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        context: &'a ToolContext,
        _permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        let work = &self.1;
        work.started.store(true, Ordering::SeqCst);
        while !context.is_cancelled() {
            work.rounds.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(1));
        }
        work.stopped.store(true, Ordering::SeqCst);
        ToolFuture::Ready(Ok(ToolResult::text("stopped when told")))
    }
}

/// A server offering `spins` and the writer `writes` (which spins too, once approved), each
/// with its own `Work`; the service, to follow its records.
fn server() -> (McpToolServer, Arc<ToolLoopService>, Arc<Work>, Arc<Work>) {
    let schema = json!({"type": "object"});
    let (spun, written) = (Arc::new(Work::default()), Arc::new(Work::default()));
    let mut registry = ToolRegistry::new();
    registry
        .register(Spins(
            ToolSpec::new("spins", "Spins.", schema.clone()).with_execution(Execution::Blocking),
            Arc::clone(&spun),
        ))
        .expect("a new name");
    registry
        .register(Spins(
            ToolSpec::new("writes", "Writes, slowly.", schema)
                .with_execution(Execution::Blocking)
                .with_flags(ToolFlags::new().with_requires_approval(true)),
            Arc::clone(&written),
        ))
        .expect("a new name");
    let service = Arc::new(ToolLoopService::new(registry));
    let server = McpToolServer::new(Arc::clone(&service), ToolContext::new())
        .expect("no state needed")
        .with_writers()
        .expect("no state needed");
    (server, service, spun, written)
}

/// The client's side of the connection: newline-delimited JSON-RPC.
struct Client {
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    writer: tokio::io::WriteHalf<DuplexStream>,
}

impl Client {
    /// Connects to `server`, served on its own task (which ends when the connection closes),
    /// and initializes with `capabilities`.
    async fn connect(
        server: McpToolServer,
        capabilities: Value,
    ) -> (Self, tokio::task::JoinHandle<std::io::Result<()>>) {
        let (near, far) = tokio::io::duplex(64 * 1024);
        let serving = tokio::spawn(server.serve_transport(tokio::io::split(far)));
        let (reader, writer) = tokio::io::split(near);
        let mut client = Self {
            lines: BufReader::new(reader).lines(),
            writer,
        };
        client
            .send(
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": capabilities,
                    "clientInfo": {"name": "cancellation-test", "version": "1"},
                }}),
            )
            .await;
        let initialized = client.next().await;
        assert_eq!(initialized["id"], 1, "{initialized}");
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        (client, serving)
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.writer
            .write_all(line.as_bytes())
            .await
            .expect("the server reads");
    }

    /// The server's next message.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("the server answers in time")
            .expect("the pipe reads")
            .expect("the server has not closed the connection");
        serde_json::from_str(&line).expect("JSON")
    }

    /// Calls `name` as request 2.
    async fn call(&mut self, name: &str) {
        self.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                         "params": {"name": name, "arguments": {}}}))
            .await;
    }

    /// Cancels request 2.
    async fn cancel(&mut self) {
        self.send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": 2, "reason": "the user stopped it"}}),
        )
        .await;
    }

    /// Pings as request 3: the next message answers it, so none answered request 2 before.
    async fn ping_is_next(&mut self) {
        self.send(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
            .await;
        let next = self.next().await;
        assert_eq!(next["id"], 3, "nothing but the ping's answer: {next}");
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

/// Once the tool stopped, its rounds no longer grow: no work is left.
async fn assert_no_work_left(work: &Work) {
    until(|| work.stopped.load(Ordering::SeqCst)).await;
    let rounds = work.rounds.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert_eq!(work.rounds.load(Ordering::SeqCst), rounds);
}

/// What the record of one call says, up to its end: each decision, the tool step and how the
/// run ended.
async fn recorded(events: &mut Subscription) -> Vec<String> {
    let mut said = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(20), events.recv())
            .await
            .expect("the run ends in time")
            .expect("the stream is open");
        match &*event {
            RunEvent::StepFinished {
                step: RunStep::Resumed { decisions, .. } | RunStep::Decided { decisions, .. },
                ..
            } => {
                for decision in decisions {
                    let decision = serde_json::to_value(decision).expect("JSON");
                    said.push(format!("decided {}", decision["decision"]));
                }
            }
            RunEvent::ToolInvoked { invocation, .. } => said.push(format!(
                "tool {}: {}",
                invocation.name(),
                invocation.content()
            )),
            RunEvent::Done {
                termination,
                content,
                ..
            } => {
                said.push(format!("{}: {content}", termination.as_str()));
                return said;
            }
            _ => {}
        }
    }
}

const SPINS_CANCELLED: &str = "Error: the call of tool \"spins\" was cancelled before it finished.";

#[tokio::test]
async fn a_clients_cancel_ends_the_running_call_and_it_is_recorded_as_cancelled() {
    let views = json!({"extensions": {UI_EXTENSION: {"mimeTypes": [VIEW_MIME_TYPE]}}});
    // A client that shows no views, and one that does: the same call, the same end.
    for capabilities in [json!({}), views] {
        let (server, service, spun, _) = server();
        let mut events = service.subscribe();
        let (mut client, _serving) = Client::connect(server, capabilities).await;
        client.call("spins").await;
        until(|| spun.started.load(Ordering::SeqCst)).await;
        client.cancel().await;
        assert_eq!(
            recorded(&mut events).await,
            [
                format!("tool spins: {SPINS_CANCELLED}"),
                format!("cancelled: {SPINS_CANCELLED}")
            ]
        );
        assert_no_work_left(&spun).await;
        // A cancelled request gets no reply.
        client.ping_is_next().await;
    }
}

#[tokio::test]
async fn the_end_of_the_input_ends_a_running_call_and_serving_returns_once_it_is_recorded() {
    let (server, service, spun, _) = server();
    let mut events = service.subscribe();
    let (mut client, serving) = Client::connect(server, json!({})).await;
    client.call("spins").await;
    until(|| spun.started.load(Ordering::SeqCst)).await;
    // The host closes its side: rmcp gives the call its grace to answer, then cancels it.
    client.writer.shutdown().await.expect("the pipe closes");
    serving
        .await
        .expect("serving does not panic")
        .expect("serving ends cleanly");
    // Serving returned with the call's record complete: its events are all there already.
    let mut said = Vec::new();
    while let Ok(event) = events.try_recv() {
        match &*event {
            RunEvent::ToolInvoked { invocation, .. } => {
                said.push(format!("tool: {}", invocation.content()));
            }
            RunEvent::Done { termination, .. } => said.push(termination.as_str().to_owned()),
            _ => {}
        }
    }
    assert_eq!(
        said,
        [format!("tool: {SPINS_CANCELLED}"), "cancelled".to_owned()]
    );
    assert_no_work_left(&spun).await;
}

/// A client that answers forms.
fn answers_forms() -> Value {
    json!({"elicitation": {"form": {}}})
}

#[tokio::test]
async fn a_writers_call_cancelled_while_the_person_has_its_form_is_refused_unrun() {
    let (server, service, _, written) = server();
    let mut events = service.subscribe();
    let (mut client, _serving) = Client::connect(server, answers_forms()).await;
    client.call("writes").await;
    let form = client.next().await;
    assert_eq!(form["method"], "elicitation/create", "{form}");
    client.cancel().await;
    let refused = "Error: the call of tool \"writes\" was cancelled before the person answered; it was not run.";
    assert_eq!(
        recorded(&mut events).await,
        [
            "decided \"not_decided\"".to_owned(),
            format!("tool writes: {refused}"),
            format!("cancelled: {refused}")
        ]
    );
    assert!(!written.started.load(Ordering::SeqCst));
    client.ping_is_next().await;
}

#[tokio::test]
async fn an_approved_writers_call_cancelled_while_it_runs_ends_and_is_recorded_as_cancelled() {
    let (server, service, _, written) = server();
    let mut events = service.subscribe();
    let (mut client, _serving) = Client::connect(server, answers_forms()).await;
    client.call("writes").await;
    let form = client.next().await;
    assert_eq!(form["method"], "elicitation/create", "{form}");
    client
        .send(json!({"jsonrpc": "2.0", "id": form["id"],
                     "result": {"action": "accept", "content": {"decision": "approve"}}}))
        .await;
    until(|| written.started.load(Ordering::SeqCst)).await;
    client.cancel().await;
    let cancelled = "Error: the call of tool \"writes\" was cancelled before it finished.";
    assert_eq!(
        recorded(&mut events).await,
        [
            "decided \"approved\"".to_owned(),
            format!("tool writes: {cancelled}"),
            format!("cancelled: {cancelled}")
        ]
    );
    assert_no_work_left(&written).await;
    client.ping_is_next().await;
}

/// A server offering `spins` as a task tool, with its `Work`; the service, to follow records.
fn task_server() -> (McpToolServer, Arc<ToolLoopService>, Arc<Work>) {
    let work = Arc::new(Work::default());
    let mut registry = ToolRegistry::new();
    registry
        .register(Spins(
            ToolSpec::new("spins", "Spins.", json!({"type": "object"}))
                .with_execution(Execution::Blocking)
                .with_flags(ToolFlags::new().with_task_support(TaskSupport::Optional)),
            Arc::clone(&work),
        ))
        .expect("a new name");
    let service = Arc::new(ToolLoopService::new(registry));
    let server =
        McpToolServer::new(Arc::clone(&service), ToolContext::new()).expect("no state needed");
    (server, service, work)
}

/// A session client that takes tasks calls `spins`: it becomes a task, whose id this gives.
async fn spinning_task(client: &mut Client, work: &Work) -> String {
    client.call("spins").await;
    let created = client.next().await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    assert!(work.started.load(Ordering::SeqCst));
    let task = created["result"]["taskId"]
        .as_str()
        .expect("an id")
        .to_owned();
    client
        .send(json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/get", "params": {"taskId": task}}))
        .await;
    let got = client.next().await;
    assert_eq!(got["result"]["status"], "working", "{got}");
    task
}

fn takes_tasks() -> Value {
    json!({"extensions": {rmcp::model::TASKS_EXTENSION_ID: {}}})
}

#[tokio::test]
async fn a_task_cancelled_on_a_session_stops_its_tool_and_is_recorded_as_cancelled() {
    let (server, service, work) = task_server();
    let mut events = service.subscribe();
    let (mut client, _serving) = Client::connect(server, takes_tasks()).await;
    let task = spinning_task(&mut client, &work).await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/cancel", "params": {"taskId": task}}))
        .await;
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "id": 5, "result": {"resultType": "complete"}})
    );
    assert_eq!(
        recorded(&mut events).await,
        [
            format!("tool spins: {SPINS_CANCELLED}"),
            format!("cancelled: {SPINS_CANCELLED}")
        ]
    );
    assert_no_work_left(&work).await;
    for _ in 0..100 {
        client
            .send(json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/get", "params": {"taskId": task}}))
            .await;
        let got = client.next().await;
        if got["result"]["status"] == "cancelled" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the task never said it was cancelled");
}

#[tokio::test]
async fn the_end_of_the_input_cancels_the_sessions_tasks_and_serving_returns_once_recorded() {
    let (server, service, work) = task_server();
    let mut events = service.subscribe();
    let (mut client, serving) = Client::connect(server, takes_tasks()).await;
    spinning_task(&mut client, &work).await;
    client.writer.shutdown().await.expect("the pipe closes");
    serving
        .await
        .expect("serving does not panic")
        .expect("serving ends cleanly");
    let mut said = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let RunEvent::Done { termination, .. } = &*event {
            said.push(termination.as_str().to_owned());
        }
    }
    assert_eq!(said, ["cancelled"]);
    assert_no_work_left(&work).await;
}

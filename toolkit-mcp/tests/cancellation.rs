//! A call given up over streamable HTTP. A 2026-07-28 (stateless) client that disconnects
//! mid-call cancels it; a 2025-11-25 client cancels with `notifications/cancelled` or by closing
//! its session, while a dropped connection alone does not cancel (its session keeps the reply
//! for the client to resume). A cancelled call's blocking tool sees its flag and stops, and the
//! call is recorded as cancelled.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::recording::Subscription;
use toolkit::spec::{ExecutePermit, Execution, ToolFuture};
use toolkit::{RunEvent, Tool, ToolContext, ToolLoopService, ToolRegistry, ToolResult, ToolSpec};
use toolkit_mcp::McpToolServer;
use toolkit_testing::mcp::modern_meta;

/// What the tool did: whether it started, how many rounds it worked, whether it stopped.
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

const CANCELLED: &str = "Error: the call of tool \"spins\" was cancelled before it finished.";

/// `spins` served over HTTP on a free port: the endpoint's URL, the service (to follow its
/// records) and the tool's work.
async fn serve() -> (String, Arc<ToolLoopService>, Arc<Work>) {
    let work = Arc::new(Work::default());
    let mut registry = ToolRegistry::new();
    registry
        .register(Spins(
            ToolSpec::new("spins", "Spins.", json!({"type": "object"}))
                .with_execution(Execution::Blocking),
            Arc::clone(&work),
        ))
        .expect("a new name");
    let service = Arc::new(ToolLoopService::new(registry));
    let server =
        McpToolServer::new(Arc::clone(&service), ToolContext::new()).expect("no state needed");
    let (bound, address) = tokio::sync::oneshot::channel::<SocketAddr>();
    tokio::spawn(server.serve_http(0, move |address| {
        bound.send(address).expect("the test waits");
    }));
    let address = address.await.expect("the server binds");
    (
        format!("http://{address}{}", toolkit_mcp::HTTP_PATH),
        service,
        work,
    )
}

/// A POST of `message` with these headers, as an MCP client sends one.
fn post(url: &str, headers: &[(&str, &str)], message: &Value) -> reqwest::RequestBuilder {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(message.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
}

/// Sends `request` and reads its whole answer, on a task of its own (aborting it drops the
/// connection).
fn sent(request: reqwest::RequestBuilder) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        if let Ok(response) = request.send().await {
            let _ = response.text().await;
        }
    })
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

/// The tool step's content and how the run ended, once it ends.
async fn recorded(events: &mut Subscription) -> Vec<String> {
    let mut said = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(20), events.recv())
            .await
            .expect("the run ends in time")
            .expect("the stream is open");
        match &*event {
            RunEvent::ToolInvoked { invocation, .. } => {
                said.push(format!("tool: {}", invocation.content()));
            }
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

fn cancelled() -> Vec<String> {
    vec![
        format!("tool: {CANCELLED}"),
        format!("cancelled: {CANCELLED}"),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_client_that_disconnects_mid_call_cancels_it() {
    let (url, service, work) = serve().await;
    let mut events = service.subscribe();
    let call = post(
        &url,
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "spins"),
        ],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "spins", "arguments": {}, "_meta": modern_meta(&json!({}))}}),
    );
    let calling = sent(call);
    until(|| work.started.load(Ordering::SeqCst)).await;
    calling.abort();
    assert_eq!(recorded(&mut events).await, cancelled());
    assert_no_work_left(&work).await;
}

/// Opens a 2025-11-25 session: its id.
async fn open_session(url: &str) -> String {
    let response = post(
        url,
        &[],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "cancellation-test", "version": "1"}}}),
    )
    .send()
    .await
    .expect("the server answers");
    let session = response
        .headers()
        .get("mcp-session-id")
        .expect("a session id")
        .to_str()
        .expect("text")
        .to_owned();
    response.text().await.expect("the answer reads");
    let initialized = post(
        url,
        &session_headers(&session),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .send()
    .await
    .expect("the server answers");
    assert_eq!(initialized.status(), 202);
    session
}

fn session_headers(session: &str) -> [(&str, &str); 2] {
    [
        ("mcp-session-id", session),
        ("mcp-protocol-version", "2025-11-25"),
    ]
}

/// Calls `spins` as request 2 of `session`, on a task of its own.
fn call_in_session(url: &str, session: &str) -> tokio::task::JoinHandle<()> {
    sent(post(
        url,
        &session_headers(session),
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "spins", "arguments": {}}}),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_clients_notifications_cancelled_cancels_its_call() {
    let (url, service, work) = serve().await;
    let mut events = service.subscribe();
    let session = open_session(&url).await;
    let _calling = call_in_session(&url, &session);
    until(|| work.started.load(Ordering::SeqCst)).await;
    let cancel = post(
        &url,
        &session_headers(&session),
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 2, "reason": "the user stopped it"}}),
    )
    .send()
    .await
    .expect("the server answers");
    assert_eq!(cancel.status(), 202);
    assert_eq!(recorded(&mut events).await, cancelled());
    assert_no_work_left(&work).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_clients_dropped_connection_does_not_cancel_but_closing_the_session_does() {
    let (url, service, work) = serve().await;
    let mut events = service.subscribe();
    let session = open_session(&url).await;
    let calling = call_in_session(&url, &session);
    until(|| work.started.load(Ordering::SeqCst)).await;
    calling.abort();
    // The session keeps the call for the client to resume: it goes on.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!work.stopped.load(Ordering::SeqCst));
    assert!(
        std::iter::from_fn(|| events.try_recv().ok())
            .all(|event| !matches!(&*event, RunEvent::Done { .. }))
    );
    // Closing the session cancels it (once rmcp's grace for replies in flight is over).
    let closed = reqwest::Client::new()
        .delete(&url)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .expect("the server answers");
    assert_eq!(closed.status(), 202);
    assert_eq!(recorded(&mut events).await, cancelled());
    assert_no_work_left(&work).await;
}

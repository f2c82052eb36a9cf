//! The long builtins stop when their call is cancelled (the scope's cancel signal, which an MCP
//! client's `notifications/cancelled` gives): `fetch_page` reading a page a slow server sends
//! closes its connection, and `git_blame` walking a long history sees its flag between object
//! reads and returns, leaving no work behind. How soon is measured by
//! `toolkit-mcp-cli/benches/cancel_latency.rs`, not asserted here.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use toolkit::seam::CancelSignal;
use toolkit::spec::{ExecutePermit, ToolFuture};
use toolkit::{Tool, ToolContext, ToolLoopService, ToolRegistry, ToolSpec};
use toolkit_builtins::WorkspaceRoot;
use toolkit_builtins::network::NetworkPolicy;

/// Waits (at most 20 s) until `done` holds.
async fn until(done: impl Fn() -> bool) {
    for _ in 0..20_000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("it never happened");
}

/// What a slow server saw: bytes it sent, and whether the client closed the connection.
#[derive(Default)]
struct Sending {
    bytes: AtomicUsize,
    closed: AtomicBool,
}

/// A server that sends a page 100 bytes at a time, 10 ms apart, for ever: its URL.
async fn slow_server(sending: Arc<Sending>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let url = format!("http://{}/slow", listener.local_addr().expect("an address"));
    tokio::spawn(async move {
        let Ok((stream, _)) = listener.accept().await else {
            return;
        };
        let (mut reader, mut writer) = stream.into_split();
        let mut head = Vec::new();
        let mut buffer = [0_u8; 4096];
        while !head.windows(4).any(|window| window == b"\r\n\r\n") {
            match reader.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(read) => head.extend_from_slice(&buffer[..read]),
            }
        }
        let counted = Arc::clone(&sending);
        let writing = tokio::spawn(async move {
            let head =
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ntransfer-encoding: chunked\r\n\r\n";
            let mut sent = writer.write_all(head.as_bytes()).await;
            let piece = format!("64\r\n<p>{}</p>\r\n", "x".repeat(93));
            while sent.is_ok() {
                sent = writer.write_all(piece.as_bytes()).await;
                counted.bytes.fetch_add(100, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        });
        // The client sends nothing more: a read ends when it closes.
        let _ = reader.read(&mut buffer).await;
        sending.closed.store(true, Ordering::SeqCst);
        writing.abort();
    });
    url
}

const CANCELLED: &str = "Error: the call of tool \"NAME\" was cancelled before it finished.";

#[tokio::test]
async fn fetch_page_cancelled_while_a_slow_server_sends_closes_its_connection() {
    let sending = Arc::new(Sending::default());
    let url = slow_server(Arc::clone(&sending)).await;
    let registry = ToolRegistry::of([toolkit_builtins::network::FETCH_PAGE_TOOL]).expect("one");
    let service = ToolLoopService::new(registry);
    let signal = CancelSignal::new();
    let context = ToolContext::new().with_extension(NetworkPolicy::allowing(["127.0.0.1"]));
    let scope = service
        .scope(context)
        .expect("no state needed")
        .with_cancel(signal.clone());
    let arguments = serde_json::json!({"url": url}).to_string();
    let (result, ()) = tokio::join!(service.invoke(&scope, "fetch_page", &arguments), async {
        // Cancelled while the page comes in.
        until(|| sending.bytes.load(Ordering::SeqCst) >= 1_000).await;
        signal.cancel();
    });
    assert_eq!(
        (result.content(), result.is_error()),
        (CANCELLED.replace("NAME", "fetch_page").as_str(), true)
    );
    until(|| sending.closed.load(Ordering::SeqCst)).await;
    // Nobody reads any more: the server stops sending.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let sent = sending.bytes.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(sending.bytes.load(Ordering::SeqCst), sent);
}

/// A builtin whose `execute` notes when it started and what it answered once it returned.
struct Watched {
    inner: &'static dyn Tool,
    started: Arc<AtomicBool>,
    answered: Arc<Mutex<Option<String>>>,
}

impl Tool for Watched {
    fn spec(&self) -> &ToolSpec {
        self.inner.spec()
    }

    fn execute<'a>(
        &'a self,
        arguments: &'a str,
        context: &'a ToolContext,
        permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        self.started.store(true, Ordering::SeqCst);
        let executed = self.inner.execute(arguments, context, permit);
        if let ToolFuture::Ready(Ok(result)) = &executed {
            *self.answered.lock().expect("not poisoned") = Some(result.content().to_owned());
        }
        executed
    }
}

#[tokio::test]
async fn git_blame_cancelled_in_a_long_history_sees_its_flag_and_returns() {
    let workspace = tempfile::tempdir().expect("a folder");
    // `big.txt` of 1 200 lines changed by 600 commits: blame walks the whole history.
    toolkit_testing::git::long_history(workspace.path(), 1_200, 600);
    let started = Arc::new(AtomicBool::new(false));
    let answered = Arc::new(Mutex::new(None));
    let mut registry = ToolRegistry::new();
    registry
        .register(Watched {
            inner: toolkit_builtins::git::GIT_BLAME_TOOL,
            started: Arc::clone(&started),
            answered: Arc::clone(&answered),
        })
        .expect("a new name");
    let service = ToolLoopService::new(registry);
    let signal = CancelSignal::new();
    let context = ToolContext::new().with_extension(WorkspaceRoot::new(workspace.path()));
    let scope = service
        .scope(context)
        .expect("the workspace is given")
        .with_cancel(signal.clone());
    let (result, ()) = tokio::join!(
        service.invoke(&scope, "git_blame", r#"{"path": "big.txt", "limit": 1}"#),
        async {
            until(|| started.load(Ordering::SeqCst)).await;
            signal.cancel();
        }
    );
    assert_eq!(
        (result.content(), result.is_error()),
        (CANCELLED.replace("NAME", "git_blame").as_str(), true)
    );
    // The worker returned, and the blame's own answer says it stopped for the flag: it did
    // not run to its end.
    until(|| answered.lock().expect("not poisoned").is_some()).await;
    assert_eq!(
        answered.lock().expect("not poisoned").as_deref(),
        Some("Error: the call was cancelled before it finished.")
    );
}

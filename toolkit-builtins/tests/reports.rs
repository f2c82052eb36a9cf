//! The long builtins say how far they are while they run: `fetch_page` the bytes of the page
//! received (of its announced length), `git_blame` and the other git tools the objects of the
//! repository read so far.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use toolkit::talk::{CallReport, ReportSink};
use toolkit::{ToolCall, ToolContext, ToolLoopService, ToolRegistry};
use toolkit_builtins::WorkspaceRoot;
use toolkit_builtins::network::NetworkPolicy;

/// A progress report: done, total and message.
type Step = (u64, Option<u64>, Option<String>);

/// Each progress report heard.
#[derive(Default)]
struct Heard(Mutex<Vec<Step>>);

impl ReportSink for Heard {
    fn report(&self, _call_id: &str, report: CallReport) {
        if let CallReport::Progress {
            done,
            total,
            message,
            ..
        } = report
        {
            self.0
                .lock()
                .expect("not poisoned")
                .push((done, total, message));
        }
    }
}

/// A server that sends a page of `length` bytes (announced in its head) 1 000 bytes at a time,
/// 25 ms apart: its URL.
async fn paced_server(length: usize) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let url = format!("http://{}/page", listener.local_addr().expect("an address"));
    tokio::spawn(async move {
        let Ok((mut stream, _)) = listener.accept().await else {
            return;
        };
        let mut head = Vec::new();
        let mut buffer = [0_u8; 4096];
        while !head.windows(4).any(|window| window == b"\r\n\r\n") {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(read) => head.extend_from_slice(&buffer[..read]),
            }
        }
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {length}\r\n\r\n"
        );
        if stream.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        let body = "a".repeat(length);
        for piece in body.as_bytes().chunks(1_000) {
            if stream.write_all(piece).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    });
    url
}

#[tokio::test]
async fn fetch_page_reports_the_bytes_received_of_the_announced_length() {
    let url = paced_server(5_000).await;
    let registry = ToolRegistry::of([toolkit_builtins::network::FETCH_PAGE_TOOL]).expect("one");
    let service = ToolLoopService::new(registry);
    let heard = Arc::new(Heard::default());
    let context = ToolContext::new().with_extension(NetworkPolicy::allowing(["127.0.0.1"]));
    let scope = service
        .scope(context)
        .expect("no state needed")
        .with_reports(heard.clone());
    let arguments = serde_json::json!({"url": url}).to_string();
    let call = ToolCall::new("call_1", "fetch_page", arguments);
    let result = service.seam().invoke_call(&scope, &call).await;
    assert!(!result.is_error(), "{}", result.content());
    let heard = heard.0.lock().expect("not poisoned");
    // Forward, one report per piece read (pieces that come together are read together, and
    // one that comes within the pace of the last report is not reported), the last one the
    // whole page.
    let done: Vec<u64> = heard.iter().map(|(done, _, _)| *done).collect();
    assert!(done.len() >= 2, "{done:?}");
    assert!(done.windows(2).all(|pair| pair[0] < pair[1]), "{done:?}");
    assert!(
        done.iter().all(|done| done.is_multiple_of(1_000)),
        "{done:?}"
    );
    assert_eq!(done.last(), Some(&5_000));
    assert!(
        heard.iter().all(|(_, total, message)| *total == Some(5_000)
            && message.as_deref() == Some("bytes received"))
    );
}

#[tokio::test]
async fn git_blame_reports_the_objects_it_read_so_far() {
    let workspace = tempfile::tempdir().expect("a folder");
    toolkit_testing::git::long_history(workspace.path(), 300, 150);
    let registry = ToolRegistry::of([toolkit_builtins::git::GIT_BLAME_TOOL]).expect("one");
    let service = ToolLoopService::new(registry);
    let heard = Arc::new(Heard::default());
    let context = ToolContext::new().with_extension(WorkspaceRoot::new(workspace.path()));
    let scope = service
        .scope(context)
        .expect("the workspace is given")
        .with_reports(heard.clone());
    let call = ToolCall::new("call_2", "git_blame", r#"{"path": "big.txt", "limit": 1}"#);
    let result = service.seam().invoke_call(&scope, &call).await;
    assert!(!result.is_error(), "{}", result.content());
    let heard = heard.0.lock().expect("not poisoned");
    assert!(
        !heard.is_empty(),
        "a walk of 150 commits reads more than 256 objects"
    );
    let mut last = 0;
    for (done, total, message) in heard.iter() {
        assert!(done.is_multiple_of(256), "reported every 256 reads");
        assert!(*done > last, "forward only");
        last = *done;
        assert_eq!(*total, None);
        assert_eq!(message.as_deref(), Some("objects of the repository read"));
    }
}

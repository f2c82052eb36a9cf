//! What a `kill -9` leaves in the audit copy, at each point of an answered call, on SQLite and on
//! PostgreSQL (docs/fleet.md, "What a crash leaves"). A call's run (its start, its step and how
//! it ended) is one commit, made before its answer is sent:
//!
//! 1. killed while the tool runs: nothing of the call is kept, and its client gets no answer;
//! 2. killed after the commit, before the answer: the whole run is kept (answered), and its
//!    client gets no answer;
//! 3. killed right after the answer: the whole run is kept, with the content the client got.
//!
//! This test binary is its own server (`harness = false`): started with `CRASH_POINTS_SERVE`, it
//! serves the builtins and a tool that waits to be killed over streamable HTTP, its audit copy
//! wrapped in a sink that, at point 2, kills its own process (`kill -9`) the moment the run is
//! committed.

use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::spec::{ExecutePermit, Execution, ToolFuture};
use toolkit::{
    RunEvent, Sink, Tool, ToolContext, ToolLoopService, ToolResult, ToolSpec, shared::BackendFuture,
};
use toolkit_audit::{Audit, Privacy, RunQuery, RunRow, StepRow};
use toolkit_mcp::McpToolServer;
use toolkit_testing::haproxy::free_port;
use toolkit_testing::mcp::call_tool;

/// The variable that makes this binary serve instead of test: `answer` or `after-commit` (kill
/// itself once a run is committed).
const SERVE: &str = "CRASH_POINTS_SERVE";
/// Where the tool `hold` writes that it runs.
const MARKER: &str = "CRASH_POINTS_MARKER";

fn main() -> ExitCode {
    if let Ok(point) = std::env::var(SERVE) {
        return serve(&point);
    }
    let mut audits = vec![("sqlite", sqlite_audit())];
    if let Some(server) = toolkit_testing::postgres::postgres() {
        audits.push(("postgres", server.database("crash_points")));
    }
    for (kind, location) in &audits {
        for (name, test) in [
            (
                "killed_while_the_tool_runs_keeps_nothing_of_the_call",
                killed_while_running as fn(&str),
            ),
            (
                "killed_between_commit_and_answer_keeps_the_whole_run",
                killed_after_commit,
            ),
            (
                "killed_right_after_the_answer_keeps_the_run_the_client_saw",
                killed_after_answer,
            ),
        ] {
            test(location);
            println!("test {kind}::{name} ... ok");
        }
    }
    ExitCode::SUCCESS
}

/// A new SQLite file's path.
fn sqlite_audit() -> String {
    let folder = std::env::temp_dir().join(format!("toolkit-crash-points-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder");
    folder.join("audit.sqlite3").to_string_lossy().into_owned()
}

/// Point 1: the call is running when the process is killed.
fn killed_while_running(audit: &str) {
    let marker = std::env::temp_dir().join(format!("toolkit-crash-hold-{}", free_port()));
    let _ = std::fs::remove_file(&marker);
    let mut server = Server::start(audit, "answer", Some(&marker));
    let runtime = runtime();
    let before = runtime.block_on(server.call("hash_text", json!({"text": "before the kill"})));
    assert!(before.is_ok(), "{before:?}");
    let url = server.url.clone();
    let held = runtime.spawn(async move {
        let client = reqwest::Client::new();
        call_tool(&client, &url, "hold", json!({"arguments": {}}), &json!({})).await
    });
    let mut waited = 0;
    while !marker.exists() {
        assert!(waited < 1000, "the tool hold started");
        std::thread::sleep(Duration::from_millis(10));
        waited += 1;
    }
    server.kill();
    let answer = runtime.block_on(held).expect("the client ends");
    assert!(
        answer.is_err(),
        "no answer from a killed server: {answer:?}"
    );
    let kept = kept(audit);
    assert!(
        kept.iter()
            .all(|(run, _)| run.title.as_deref() != Some("hold")),
        "nothing of the call that was running: {kept:?}"
    );
    let (run, steps) = only(&kept, "before the kill");
    assert_eq!(run.termination.as_deref(), Some("answered"));
    assert_eq!(steps.len(), 1);
    let _ = std::fs::remove_file(&marker);
}

/// Point 2: the run is committed, and the process is killed before the answer is sent.
fn killed_after_commit(audit: &str) {
    let mut server = Server::start(audit, "after-commit", None);
    let runtime = runtime();
    let answer =
        runtime.block_on(server.call("hash_text", json!({"text": "committed, unanswered"})));
    assert!(answer.is_err(), "the client got no answer: {answer:?}");
    server.reap();
    let kept = kept(audit);
    let (run, steps) = only(&kept, "committed, unanswered");
    assert_eq!(run.kind, "call");
    assert_eq!(run.title.as_deref(), Some("hash_text"));
    assert_eq!(run.termination.as_deref(), Some("answered"));
    assert_eq!(run.steps, 1);
    assert_eq!(steps[0].name.as_deref(), Some("hash_text"));
    assert_eq!(
        steps[0].content.as_deref(),
        Some(digest("committed, unanswered").as_str())
    );
}

/// Point 3: the client has the answer, and the process is killed at once.
fn killed_after_answer(audit: &str) {
    let mut server = Server::start(audit, "answer", None);
    let runtime = runtime();
    let answer = runtime
        .block_on(server.call("hash_text", json!({"text": "answered, then killed"})))
        .expect("an answer");
    server.kill();
    let shown = answer["content"][0]["text"].as_str().expect("a text");
    assert_eq!(shown, digest("answered, then killed"));
    let kept = kept(audit);
    let (run, steps) = only(&kept, "answered, then killed");
    assert_eq!(run.termination.as_deref(), Some("answered"));
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0].content.as_deref(), Some(shown));
    assert!(!steps[0].is_error);
}

/// The test server: this binary serving on a free port.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(audit: &str, point: &str, marker: Option<&PathBuf>) -> Self {
        let port = free_port();
        let mut command = Command::new(std::env::current_exe().expect("this test binary"));
        command
            .env(SERVE, point)
            .args([audit, &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        if let Some(marker) = marker {
            command.env(MARKER, marker);
        }
        let child = command.spawn().expect("the server starts");
        let mut waited = 0;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(waited < 3000, "the server serves on port {port}");
            std::thread::sleep(Duration::from_millis(10));
            waited += 1;
        }
        Self {
            child,
            url: format!("http://127.0.0.1:{port}{}", toolkit_mcp::HTTP_PATH),
        }
    }

    /// A 2026-07-28 `tools/call`: its result, or why there is none.
    async fn call(&self, name: &str, arguments: Value) -> Result<Value, String> {
        let params = json!({ "arguments": arguments });
        call_tool(&reqwest::Client::new(), &self.url, name, params, &json!({})).await
    }

    /// `kill -9`, then waits for its end.
    fn kill(&mut self) {
        self.child.kill().expect("killed");
        self.reap();
    }

    /// Waits for the end of a server that killed itself; says how it ended.
    fn reap(&mut self) {
        use std::os::unix::process::ExitStatusExt as _;
        let status = self.child.wait().expect("reaped");
        assert_eq!(status.signal(), Some(9), "killed with SIGKILL: {status}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A runtime whose spawned tasks run while this thread waits (for the tool `hold`).
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Every run the audit copy at `location` keeps, with its steps.
fn kept(location: &str) -> Vec<(RunRow, Vec<StepRow>)> {
    runtime().block_on(async {
        let audit = Audit::open(location, Privacy::Full).await.expect("opens");
        let query = RunQuery::default().with_limit(1000);
        let (runs, _) = audit.find_runs(&query).await.expect("runs");
        let mut kept = Vec::new();
        for run in runs {
            let (run, steps) = audit.run(&run.run_id).await.expect("a run").expect("kept");
            kept.push((run, steps));
        }
        kept
    })
}

/// The one kept run whose step was called with `text`.
fn only<'k>(kept: &'k [(RunRow, Vec<StepRow>)], text: &str) -> (&'k RunRow, &'k [StepRow]) {
    let arguments = json!({"text": text}).to_string();
    let found: Vec<_> = kept
        .iter()
        .filter(|(_, steps)| {
            steps
                .iter()
                .any(|step| step.arguments.as_deref() == Some(arguments.as_str()))
        })
        .collect();
    assert_eq!(found.len(), 1, "one run called with {arguments}: {kept:?}");
    (&found[0].0, &found[0].1)
}

/// What `hash_text` answers for `text`.
fn digest(text: &str) -> String {
    use sha2::Digest as _;
    format!("sha256:{:x}", sha2::Sha256::digest(text.as_bytes()))
}

// The server.

fn serve(point: &str) -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [audit, port] = arguments.as_slice() else {
        eprintln!("crash points: AUDIT PORT");
        return ExitCode::FAILURE;
    };
    let port: u16 = port.parse().expect("a port");
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let audit = runtime
        .block_on(Audit::open(audit, Privacy::Full))
        .expect("the audit copy opens");
    let mut registry = toolkit_builtins::registry().expect("no duplicates");
    registry
        .register(Hold(
            ToolSpec::new("hold", "Waits to be killed.", json!({"type": "object"}))
                .with_execution(Execution::Blocking),
        ))
        .expect("a new name");
    let sink = Crashing {
        audit,
        after_commit: point == "after-commit",
    };
    let service = Arc::new(ToolLoopService::new(registry).with_sink(Arc::new(sink)));
    let server = McpToolServer::new(service, ToolContext::new()).expect("a server");
    match runtime.block_on(server.serve_http(port, |_| {})) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("crash points: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The audit copy, killing its process the moment it committed a run when `after_commit`.
struct Crashing {
    audit: Audit,
    after_commit: bool,
}

impl Sink for Crashing {
    fn record<'a>(&'a self, event: &'a RunEvent) -> BackendFuture<'a, ()> {
        self.audit.record(event)
    }

    fn keeps_runs_whole(&self) -> bool {
        self.audit.keeps_runs_whole()
    }

    fn record_run<'a>(&'a self, events: &'a [Arc<RunEvent>]) -> BackendFuture<'a, ()> {
        Box::pin(async move {
            self.audit.record_run(events).await?;
            if self.after_commit {
                kill_this_process();
            }
            Ok(())
        })
    }
}

/// `kill -9` of this process, as an operator's or the kernel's would come.
fn kill_this_process() -> ! {
    let _ = Command::new("kill")
        .args(["-KILL", &std::process::id().to_string()])
        .status();
    loop {
        std::thread::park();
    }
}

/// A tool that says it runs (it writes the marker file) and then waits to be killed.
struct Hold(ToolSpec);

impl Tool for Hold {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        _context: &'a ToolContext,
        _permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        let marker = std::env::var_os(MARKER).expect("a marker file");
        std::fs::write(marker, "running").expect("the marker is written");
        std::thread::sleep(Duration::from_mins(1));
        ToolFuture::Ready(Ok(ToolResult::text("never answered")))
    }
}

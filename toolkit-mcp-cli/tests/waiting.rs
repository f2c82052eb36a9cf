//! Calls waiting for a person are bounded: `toolkit-mcp --http --writers` lets at most 8 calls
//! of a session and 64 of the server wait for a form, and shows no form larger than 512 KiB;
//! past either, a call is refused at once with an error that says so, and nothing it held stays.
//! The official Python SDK (`toolkit-mcp/tests/python/waiting.py`) makes the calls and answers
//! no form while the server's memory is read.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;
use toolkit_mcp::approvals::{FORM_LIMIT, MAX_WAITING, MAX_WAITING_PER_SESSION};
use toolkit_testing::haproxy::free_port;
use toolkit_testing::mcp::{python, script, serve_http};

/// What the server's memory may take, in all, while the most calls that can wait do, each with
/// the largest form: the figure the MCP guide (`toolkit/docs/guide/mcp.md`) states.
const WAITING_MEMORY_KIB: u64 = 192 * 1024;

/// One `toolkit-mcp --http --writers` process on a workspace of its own; killed when dropped.
struct Server {
    child: Child,
    port: u16,
    _workspace: tempfile::TempDir,
}

impl Server {
    fn start() -> Self {
        let workspace = tempfile::tempdir().expect("a workspace");
        std::fs::write(workspace.path().join("notes.txt"), "one\ntwo\n").expect("write");
        let port = free_port();
        let binary = Path::new(env!("CARGO_BIN_EXE_toolkit-mcp"));
        let arguments = [OsStr::new("--writers"), OsStr::new("--workspace")];
        let child = serve_http(
            binary,
            port,
            arguments.into_iter().chain([workspace.path().as_os_str()]),
        );
        Self {
            child,
            port,
            _workspace: workspace,
        }
    }

    /// The server's resident memory now, in KiB.
    fn memory_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the server runs");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("a resident size")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one round saw: the forms the client got, each reply's text (cut to its first sentence)
/// counted, and the server's memory while they all wait.
struct Round {
    forms: u64,
    replies: BTreeMap<String, usize>,
    memory_kib: u64,
}

/// `sessions` sessions each making `calls` `edit_file` calls at once of about `bytes` bytes of
/// arguments, none answered.
fn round(server: &Server, sessions: usize, calls: usize, bytes: usize) -> Option<Round> {
    let python = python()?;
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let mut client = Command::new(python)
        .arg(script("waiting.py"))
        .args([
            url,
            sessions.to_string(),
            calls.to_string(),
            bytes.to_string(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the client starts");
    let mut line = String::new();
    BufReader::new(client.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("the client says when every call waits or was answered");
    let memory_kib = server.memory_kib();
    writeln!(client.stdin.take().expect("piped")).expect("the client leaves");
    client.wait().expect("the client ends");
    let seen: Value = serde_json::from_str(&line).expect("JSON");
    let mut replies = BTreeMap::new();
    for reply in seen["answered"].as_array().expect("replies") {
        assert_eq!(reply["is_error"], true, "{reply}");
        let text = reply["text"].as_str().expect("a text");
        // The sizes in a too-large call's error differ by the digits of its number.
        let first = text.split(" (").next().expect("a first part").to_owned();
        *replies.entry(first).or_default() += 1;
    }
    Some(Round {
        forms: seen["forms"].as_u64().expect("a count"),
        replies,
        memory_kib,
    })
}

fn replies(entries: &[(&str, usize)]) -> BTreeMap<String, usize> {
    entries
        .iter()
        .map(|(text, count)| ((*text).to_owned(), *count))
        .collect()
}

const TOO_MANY_IN_SESSION: &str = "Error: 8 calls of this session already wait for the person's answer; this call of tool \"edit_file\" was not asked about and did not run. Call it again once they are answered.";
const TOO_MANY_ON_SERVER: &str = "Error: 64 calls already wait for an answer on this server; this call of tool \"edit_file\" was not asked about and did not run. Call it again later.";
const TOO_LARGE: &str = "Error: this call of tool \"edit_file\" is too large to show in a form";

#[test]
fn past_its_caps_a_call_is_refused_at_once_and_waiting_calls_hold_what_the_readme_says() {
    assert_eq!((MAX_WAITING_PER_SESSION, MAX_WAITING), (8, 64));
    assert_eq!(FORM_LIMIT, 512 * 1024);

    // The most calls that may wait, 8 in each of 8 sessions, each with about the largest form.
    let server = Server::start();
    let idle = server.memory_kib();
    let Some(most) = round(&server, 8, 8, 455_000) else {
        return;
    };
    assert_eq!(most.forms, 64);
    assert_eq!(most.replies, BTreeMap::new());
    println!(
        "idle: {idle} KiB; 64 calls waiting, forms of about 455 KB: {} KiB",
        most.memory_kib
    );
    assert!(
        most.memory_kib <= WAITING_MEMORY_KIB,
        "{} KiB while the most calls wait",
        most.memory_kib
    );

    // 150 calls of 100 KB in one session: 8 wait, the others are refused at once.
    let server = Server::start();
    let session = round(&server, 1, 150, 100_000).expect("the SDK is there");
    assert_eq!(session.forms, 8);
    assert_eq!(session.replies, replies(&[(TOO_MANY_IN_SESSION, 142)]));
    assert!(session.memory_kib <= WAITING_MEMORY_KIB);

    // 1 000 calls in 125 sessions: 64 wait on the server, the others are refused at once.
    let server = Server::start();
    let many = round(&server, 125, 8, 1_000).expect("the SDK is there");
    assert_eq!(many.forms, 64);
    assert_eq!(many.replies, replies(&[(TOO_MANY_ON_SERVER, 936)]));
    assert!(many.memory_kib <= WAITING_MEMORY_KIB);

    // 150 calls of 1 MB in one session, and 1 000 in 125 sessions: no form could show one, so
    // none waits. What the server takes is what it read of them at once.
    for (sessions, calls) in [(1, 150), (125, 8)] {
        let server = Server::start();
        let large = round(&server, sessions, calls, 1_000_000).expect("the SDK is there");
        assert_eq!(large.forms, 0);
        assert_eq!(large.replies, replies(&[(TOO_LARGE, sessions * calls)]));
        println!(
            "{} calls of 1 MB at once, all refused: {} KiB",
            sessions * calls,
            large.memory_kib
        );
    }
}

//! The audit copy of the playground's runs: a process killed mid-run loses no step it had
//! finished, on a SQLite file and on PostgreSQL. (What each privacy level keeps is tested in
//! `toolkit-audit`.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use toolkit_testing::postgres;

use serde_json::json;
use toolkit_audit::{Audit, Privacy, RunQuery};

/// An OpenAI-compatible server that answers the first request with one `text_stats` call and
/// never answers the second, so the run hangs after a finished tool step.
fn hanging_model() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("address").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for (count, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            if count == 0 {
                let answer = json!({
                    "choices": [{"message": {"role": "assistant", "content": "measuring", "tool_calls": [
                        {"id": "call_a", "type": "function", "function": {"name": "text_stats", "arguments": "{\"text\": \"one two\"}"}}
                    ]}, "finish_reason": "tool_calls"}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 2},
                })
                .to_string();
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
                    answer.len()
                );
            } else {
                held.push(stream); // never answered
            }
        }
    });
    port
}

const FINISHED_TOOLS: &str = "SELECT COUNT(*) FROM steps WHERE kind = 'tool'";

#[test]
fn a_killed_run_keeps_every_finished_step() {
    let folder = tempfile::tempdir().expect("temp dir");
    let file = folder.path().join("audit.sqlite3");
    let file = file.to_str().expect("a UTF-8 path").to_owned();
    killed_mid_run(folder.path(), &file, || {
        rusqlite::Connection::open(&file)
            .and_then(|db| db.query_row(FINISHED_TOOLS, [], |row| row.get(0)))
            .unwrap_or(0)
    });
    if let Some(server) = postgres::postgres() {
        let url = server.database("killed");
        let name = url.rsplit('/').next().expect("a name").to_owned();
        killed_mid_run(folder.path(), &url, || {
            server
                .psql(&name, FINISHED_TOOLS)
                .ok()
                .and_then(|count| count.parse().ok())
                .unwrap_or(0)
        });
    }
}

/// Runs `playground run` against the hanging model with its audit copy at `location`, kills it
/// once `finished_tools` counts the tool step kept, then reads the run back.
fn killed_mid_run(data: &Path, location: &str, finished_tools: impl Fn() -> i64) {
    let port = hanging_model();
    let mut child = Command::new(env!("CARGO_BIN_EXE_playground"))
        .args([
            "run",
            "--base-url",
            &format!("http://127.0.0.1:{port}/v1"),
            "--model",
            "m",
            "--privacy",
            "full",
            "--audit",
            location,
        ])
        .env("XDG_DATA_HOME", data)
        .env_remove("OPENAI_API_KEY")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("playground runs");
    let deadline = Instant::now() + Duration::from_mins(1);
    while finished_tools() != 1 {
        assert!(
            Instant::now() < deadline,
            "the tool step never reached the audit copy at {location}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().expect("kill");
    let _ = child.wait();

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let audit = Audit::open(location, Privacy::Full).await.expect("reopens");
        let (runs, total) = audit
            .find_runs(&RunQuery::default().with_limit(10))
            .await
            .expect("runs");
        assert_eq!(total, 1);
        assert_eq!(runs[0].termination, None); // it never finished
        let (_, steps) = audit
            .run(&runs[0].run_id)
            .await
            .expect("read")
            .expect("the run");
        let kinds: Vec<(i64, &str, Option<&str>)> = steps
            .iter()
            .map(|step| (step.index, step.kind.as_str(), step.name.as_deref()))
            .collect();
        assert_eq!(
            kinds,
            [
                (0, "request", None),
                (1, "llm", None),
                (2, "tool", Some("text_stats"))
            ]
        );
        assert_eq!(steps[1].content.as_deref(), Some("measuring"));
        assert_eq!(
            steps[2].arguments.as_deref(),
            Some(r#"{"text": "one two"}"#)
        );
        assert_eq!(steps[2].artifact_count, 1);
    });
}

//! The audit copy of the playground's runs: a process killed mid-run loses no step it had
//! finished. (What each privacy level keeps is tested in `toolkit-audit`.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use toolkit_audit::{Privacy, SqliteAudit};

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

#[test]
fn a_killed_run_keeps_every_finished_step() {
    let port = hanging_model();
    let folder = tempfile::tempdir().expect("temp dir");
    let audit_path = folder.path().join("audit.sqlite3");
    let mut child = Command::new(env!("CARGO_BIN_EXE_playground"))
        .args([
            "run",
            "--base-url",
            &format!("http://127.0.0.1:{port}/v1"),
            "--model",
            "m",
            "--privacy",
            "full",
        ])
        .arg("--audit")
        .arg(&audit_path)
        .env("XDG_DATA_HOME", folder.path())
        .env_remove("OPENAI_API_KEY")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("playground runs");
    let deadline = Instant::now() + Duration::from_mins(1);
    loop {
        let finished: i64 = rusqlite::Connection::open(&audit_path)
            .and_then(|db| {
                db.query_row(
                    "SELECT COUNT(*) FROM steps WHERE kind = 'tool'",
                    [],
                    |row| row.get(0),
                )
            })
            .unwrap_or(0);
        if finished == 1 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the tool step never reached the audit copy"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().expect("kill");
    let _ = child.wait();

    let audit = SqliteAudit::open(&audit_path, Privacy::Full).expect("reopens");
    let runs = audit.runs(10).expect("runs");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].termination, None); // it never finished
    let (_, steps) = audit.run(&runs[0].run_id).expect("read").expect("the run");
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
}

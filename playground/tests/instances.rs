//! Several instances on one PostgreSQL audit copy: a run suspended by one process resumes in
//! another (once), and a run one process records reaches the runs history another serves within
//! a second. Each instance has a data folder of its own; the instances share the seal key (copied,
//! as a deployment shares a secret) and the database.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use toolkit_testing::postgres;

use serde_json::json;

mod common;

/// Runs the playground with `data` as its data folder; its exit code, stdout and stderr.
fn playground(data: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_playground"))
        .args(args)
        .env("XDG_DATA_HOME", data)
        .output()
        .expect("runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The run id `playground run` printed first.
fn printed_run_id(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|line| line.strip_prefix("run "))
        .expect("a run line")
        .to_owned()
}

/// A script whose model writes a file (which waits for approval).
const WRITER_SCRIPT: &str = r#"{"turns": [
  {"content": "I write the note.", "tool_calls": [
    {"id": "w1", "name": "write_file", "arguments": {"path": "notes/shared.txt", "content": "from b"}}
  ]},
  {"content": "Written."}
]}"#;

#[test]
fn a_run_suspended_on_one_instance_resumes_on_another_and_only_once() {
    let Some(server) = postgres::postgres() else {
        return;
    };
    let url = server.database("resume_anywhere");
    let (a, b) = (
        tempfile::tempdir().expect("temp dir"),
        tempfile::tempdir().expect("temp dir"),
    );
    let script = a.path().join("script.json");
    std::fs::write(&script, WRITER_SCRIPT).expect("written");
    let script = script.to_str().expect("UTF-8").to_owned();

    let (code, stdout, stderr) = playground(
        a.path(),
        &[
            "run",
            "--writers",
            &script,
            "--audit",
            &url,
            "--privacy",
            "full",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let run_id = printed_run_id(&stdout);
    let token = stdout
        .lines()
        .find_map(|line| line.strip_prefix("token: "))
        .expect("a token line")
        .to_owned();
    // Instance b has its own data folder and workspace, and the same seal key.
    std::fs::create_dir_all(b.path().join("toolkit-playground")).expect("b's folder");
    std::fs::copy(
        a.path().join("toolkit-playground/seal.key"),
        b.path().join("toolkit-playground/seal.key"),
    )
    .expect("the key shared");

    let resume = |data: &Path| {
        playground(
            data,
            &[
                "resume",
                &token,
                "--approve",
                "w1",
                "--script",
                &script,
                "--audit",
                &url,
            ],
        )
    };
    let (code, stdout, stderr) = resume(b.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.ends_with("\n== answered\nWritten.\n"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(
            b.path()
                .join("toolkit-playground/workspace/notes/shared.txt")
        )
        .expect("b wrote it"),
        "from b"
    );
    // Neither instance opens it again.
    for data in [a.path(), b.path()] {
        let (code, _, stderr) = resume(data);
        assert_eq!(code, Some(1));
        assert_eq!(
            stderr,
            "error: the token was already used: a suspended run resumes once\n"
        );
    }
    assert!(
        !a.path()
            .join("toolkit-playground/workspace/notes/shared.txt")
            .exists()
    );
    // One run in the shared audit copy, its steps from both instances.
    let name = url.rsplit('/').next().expect("a database name");
    assert_eq!(
        server.psql(
            name,
            &format!("SELECT string_agg(kind || coalesce(':' || name, ''), ' ' ORDER BY idx) FROM steps WHERE run_id = '{run_id}'")
        ),
        Ok("request llm suspended resumed tool:write_file llm".to_owned())
    );
    assert_eq!(
        server.psql(
            name,
            "SELECT count(*) || ' ' || termination FROM runs GROUP BY termination"
        ),
        Ok("1 answered".to_owned())
    );
}

/// The serving instance: `playground serve` on a free port; stopped when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(data: &Path, url: &str) -> (Served, String) {
    let port = common::free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_playground"))
        .args(["serve", "--port", &port.to_string(), "--audit", url])
        .env("XDG_DATA_HOME", data)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("serves");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("the first line");
    assert!(first.starts_with("Tool Playground: open "), "{first}");
    // Read on, so that the server's later lines do not meet a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    (Served(child), format!("http://127.0.0.1:{port}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_recorded_by_one_process_reaches_the_history_another_serves_within_a_second() {
    let Some(server) = postgres::postgres() else {
        return;
    };
    let Some((chromium, driver)) = common::browser() else {
        return;
    };
    let url = server.database("live_history");
    let name = url.rsplit('/').next().expect("a database name").to_owned();
    let (a, b) = (
        tempfile::tempdir().expect("temp dir"),
        tempfile::tempdir().expect("temp dir"),
    );
    let (_served, base) = serve(a.path(), &url);
    let browser = common::Browser::start(&chromium, &driver).await;
    browser.open(&format!("{base}/runs")).await;
    assert_eq!(
        browser.text("[data-testid=audit-info]").await,
        json!("From the audit copy (PostgreSQL). New rows are kept at privacy level: metadata.")
    );
    // When each run first shows, and when it first shows as answered (the page's clock is the
    // database's: one machine).
    browser
        .execute(
            "window.__seen = {}; const list = document.getElementById('run-list'); \
             const note = () => { const now = Date.now(); \
               for (const button of list.querySelectorAll('button[data-testid^=\"run-\"]')) { \
                 const id = button.dataset.testid.slice(4); \
                 const seen = window.__seen[id] || (window.__seen[id] = {first: now}); \
                 if (!seen.answered && button.textContent.includes('answered')) seen.answered = now; } }; \
             new MutationObserver(note).observe(list, {childList: true, subtree: true, characterData: true});",
            json!([]),
        )
        .await;
    let mut latencies = Vec::new();
    for _ in 0..5 {
        let (code, stdout, stderr) = playground(b.path(), &["run", "--audit", &url]);
        assert_eq!(code, Some(0), "{stderr}");
        let run_id = printed_run_id(&stdout);
        let seen = browser
            .wait_for(
                "the run, answered, in the other instance's history",
                "const seen = window.__seen[arguments[0]]; return seen && seen.answered ? seen : null;",
                json!([run_id]),
            )
            .await;
        let committed = |sql: &str| -> f64 {
            server
                .psql(&name, &sql.replace("RUN", &run_id))
                .expect("reads")
                .parse()
                .expect("a number")
        };
        let started = committed(
            "SELECT extract(epoch FROM started_at) * 1000 FROM runs WHERE run_id = 'RUN'",
        );
        let finished = committed(
            "SELECT extract(epoch FROM max(finished_at)) * 1000 FROM steps WHERE run_id = 'RUN'",
        );
        let shown = |key: &str| seen[key].as_f64().expect("a time");
        latencies.push((shown("first") - started, shown("answered") - finished));
    }
    println!(
        "history latency (first shown after start, answered after last step), ms: {latencies:?}"
    );
    for (first, answered) in &latencies {
        assert!(*first < 1000.0 && *answered < 1000.0, "{latencies:?}");
    }
    browser.quit().await;
}

/// A page opened on an earlier process of the server holds that process's count of commits; the
/// change feed of the new process answers it at once with its own count, instead of waiting for
/// its count to pass the old one (live updates stopped after every restart).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_holding_another_processs_version_hears_the_current_one_at_once() {
    let Some(server) = postgres::postgres() else {
        return;
    };
    let url = server.database("restarted");
    let audit = toolkit_audit::Audit::open(&url, toolkit_audit::Privacy::Metadata)
        .await
        .expect("opens");
    let state = playground::server::AppState::new(
        toolkit_builtins::registry().expect("no duplicates"),
        toolkit::ToolContext::new(),
        Some(std::sync::Arc::new(audit)),
        None,
        false,
    );
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        playground::guard::TOKEN_HEADER,
        state.token().parse().expect("a header value"),
    );
    let client = reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .expect("client");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("listen");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    tokio::spawn(playground::server::serve(listener, state));
    let get = |path: String| {
        let request = client.get(format!("{base}{path}"));
        async move {
            request
                .send()
                .await
                .expect("answer")
                .json::<serde_json::Value>()
                .await
                .expect("JSON")
        }
    };
    let runs = get("/api/runs".to_owned()).await;
    let version = runs["version"].as_u64().expect("PostgreSQL announces");
    // Well inside the feed's own 25 s wait: an answer only a changed version gives.
    let changes = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        get(format!("/api/runs/changes?after={}", version + 1000)),
    )
    .await
    .expect("answered at once, not after the wait");
    assert_eq!(changes, json!({"live": true, "version": version}));
}

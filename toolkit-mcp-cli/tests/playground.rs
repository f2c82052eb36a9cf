//! `toolkit-mcp --playground` over stdio, spoken to as an MCP host would (newline-delimited
//! JSON-RPC): the reply carries only the wire content, the call's artifacts land in the
//! playground's audit copy, and `playground serve` over that copy shows the call, in its API and
//! (in Chromium) in an open runs history, without a reload. The tools work on the playground's
//! copy of the sample workspace and its sample database, or on `--workspace` and `--database`.

use std::ffi::OsStr;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use playground::server::AppState;
use serde_json::{Value, json};
use toolkit::{ToolContext, ToolRegistry};
use toolkit_audit::{Audit, Privacy, SqliteAudit};
use toolkit_testing::browser::{Browser, browser};

/// Speaks MCP over stdio to `toolkit-mcp --playground` with the playground's folder in `data`
/// (as `$XDG_DATA_HOME`) and `args` after `--playground`, calls `tool` without arguments, and
/// returns the reply. The server has exited, its audit writes done, when this returns.
fn call_over_mcp_with(data: &Path, tool: &str, args: &[&OsStr]) -> Value {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolkit-mcp"))
        .arg("--playground")
        .args(args)
        .env("XDG_DATA_HOME", data)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("toolkit-mcp starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "playground-test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": tool, "arguments": {}}}),
    ];
    for message in messages {
        writeln!(stdin, "{message}").expect("written");
    }
    stdin.flush().expect("flushed");
    let reply = loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).expect("read") > 0,
            "server closed"
        );
        let message: Value = serde_json::from_str(&line).expect("JSON-RPC");
        if message["id"] == 1 {
            assert!(message["result"]["serverInfo"].is_object(), "{message}");
        }
        if message["id"] == 2 {
            break message;
        }
    };
    drop(stdin);
    assert!(child.wait().expect("exits").success());
    reply
}

/// [`call_over_mcp_with`], the calls kept at `full` in the audit copy at `audit`.
fn call_over_mcp(audit: &Path, data: &Path, tool: &str) -> Value {
    call_over_mcp_with(
        data,
        tool,
        &[
            OsStr::new("--privacy"),
            OsStr::new("full"),
            OsStr::new("--audit"),
            audit.as_os_str(),
        ],
    )
}

#[test]
fn an_mcp_call_answers_with_content_only_and_its_artifacts_reach_the_audit_copy() {
    let data = tempfile::tempdir().expect("temp dir");
    let audit_path = data.path().join("audit.sqlite3");
    let reply = call_over_mcp(&audit_path, data.path(), "list_tables");
    let result = &reply["result"];
    assert_eq!(result["isError"], false);
    let content = result["content"].as_array().expect("content blocks");
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "text");
    let text = content[0]["text"].as_str().expect("text");
    assert!(text.contains("customers"), "{text}");
    assert!(result.get("structuredContent").is_none() && result.get("_meta").is_none());
    assert!(!reply.to_string().contains("\"artifacts\""));

    let audit = SqliteAudit::open(&audit_path, Privacy::Full).expect("reopens");
    let runs = audit.runs(10).expect("runs");
    assert_eq!(runs.len(), 1);
    assert!(runs[0].run_id.starts_with("mcp_"), "{}", runs[0].run_id);
    let (_, steps) = audit.run(&runs[0].run_id).expect("reads").expect("the run");
    let tool = steps
        .iter()
        .find(|step| step.kind == "tool")
        .expect("a tool step");
    assert_eq!(tool.name.as_deref(), Some("list_tables"));
    assert_eq!(tool.content.as_deref(), Some(text));
    assert_eq!(tool.artifact_count, 1);
    assert_eq!(tool.artifact_types, ["table"]);
}

#[test]
fn two_mcp_processes_on_one_audit_file_keep_both_steps() {
    let data = tempfile::tempdir().expect("temp dir");
    let audit_path = data.path().join("audit.sqlite3");
    // Two servers at once on the same file, as two hosts would start them.
    let (first, second) = std::thread::scope(|threads| {
        let first = threads.spawn(|| call_over_mcp(&audit_path, data.path(), "text_stats"));
        let second = threads.spawn(|| call_over_mcp(&audit_path, data.path(), "uuid"));
        (first.join().expect("first"), second.join().expect("second"))
    });
    assert_eq!(first["result"]["isError"], true, "{first}");
    assert_eq!(second["result"]["isError"], false, "{second}");

    let audit = SqliteAudit::open(&audit_path, Privacy::Full).expect("reopens");
    let runs = audit.runs(10).expect("runs");
    assert_eq!(runs.len(), 2, "{runs:?}");
    let mut tools = Vec::new();
    for run in &runs {
        assert!(run.run_id.starts_with("mcp_"), "{}", run.run_id);
        let (_, steps) = audit.run(&run.run_id).expect("reads").expect("the run");
        assert_eq!(steps.len(), 1, "{steps:?}");
        tools.push(steps[0].name.clone().expect("a tool step"));
    }
    tools.sort();
    assert_eq!(tools, ["text_stats", "uuid"]);
}

#[test]
fn mcp_works_on_the_workspace_and_database_it_is_given() {
    let data = tempfile::tempdir().expect("temp dir");
    let audit_path = data.path().join("audit.sqlite3");
    let workspace = data.path().join("mine");
    std::fs::create_dir(&workspace).expect("folder");
    std::fs::write(workspace.join("only-here.txt"), "x").expect("file");
    let reply = call_over_mcp_with(
        data.path(),
        "list_directory",
        &[
            OsStr::new("--audit"),
            audit_path.as_os_str(),
            OsStr::new("--workspace"),
            workspace.as_os_str(),
        ],
    );
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert_eq!(text, "1 entry in \".\":\n- only-here.txt (file, 1 byte)");

    // An empty database of one's own: no tables, where the sample has five.
    let database = data.path().join("empty.db");
    rusqlite::Connection::open(&database)
        .and_then(|db| db.execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY);"))
        .expect("a database");
    let reply = call_over_mcp_with(
        data.path(),
        "list_tables",
        &[
            OsStr::new("--audit"),
            audit_path.as_os_str(),
            OsStr::new("--database"),
            database.as_os_str(),
        ],
    );
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.starts_with("The database has 1 table"), "{text}");
}

/// The playground in process on a free port, reading its runs from the audit copy at `audit`
/// (opened at `full`, as `playground serve --privacy full` does): its URL and its token.
async fn start_playground(audit: &Path) -> (String, String) {
    let audit = Arc::new(Audit::Sqlite(
        SqliteAudit::open(audit, Privacy::Full).expect("audit"),
    ));
    let service = playground::defaults::service(ToolRegistry::new(), Some(&audit), false);
    let state = AppState::over(Arc::new(service), ToolContext::new(), Some(audit), None);
    let token = state.token().to_owned();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("listen");
    let address = listener.local_addr().expect("address");
    tokio::spawn(playground::server::serve(listener, state));
    (format!("http://{address}"), token)
}

/// `GET path` of the playground at `url` with its launch token, as JSON.
async fn get(url: &str, token: &str, path: &str) -> Value {
    let response = reqwest::Client::new()
        .get(format!("{url}{path}"))
        .header(playground::guard::TOKEN_HEADER, token)
        .send()
        .await
        .expect("the playground answers");
    assert!(
        response.status().is_success(),
        "{path}: {}",
        response.status()
    );
    serde_json::from_str(&response.text().await.expect("a body")).expect("JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_other_flags_it_works_on_the_playgrounds_files_and_the_playground_shows_the_calls()
{
    let data = tempfile::tempdir().expect("temp dir");
    let listing = tokio::task::spawn_blocking({
        let data = data.path().to_path_buf();
        move || call_over_mcp_with(&data, "list_directory", &[])
    })
    .await
    .expect("the MCP call");
    let tables = tokio::task::spawn_blocking({
        let data = data.path().to_path_buf();
        move || call_over_mcp_with(&data, "list_tables", &[])
    })
    .await
    .expect("the MCP call");

    // The playground's files, where `playground` keeps them under this `$XDG_DATA_HOME` (made
    // on first use): a copy of the sample workspace, which the file tools list, and the sample
    // database.
    let folder = data.path().join("toolkit-playground");
    assert_eq!(
        std::fs::read(folder.join("workspace/README.md")).expect("the copy"),
        std::fs::read(toolkit_builtins::files::sample_workspace().join("README.md"))
            .expect("the sample")
    );
    let text = listing["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.contains("- README.md (file, "), "{text}");
    let text = tables["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.contains("customers"), "{text}");
    assert!(folder.join("sample.db").is_file());

    // Both calls are in the playground's own audit copy, at its default level.
    let audit = folder.join("audit.sqlite3");
    assert_eq!(
        playground::defaults::default_audit_path(),
        playground::defaults::data_dir().join("audit.sqlite3")
    );
    let kept = SqliteAudit::open(&audit, Privacy::Full).expect("reopens");
    let runs = kept.runs(10).expect("runs");
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs.iter().all(|run| run.privacy == "metadata"), "{runs:?}");

    // The playground over that copy lists both runs and shows each call's step.
    let (url, token) = start_playground(&audit).await;
    let listed = get(&url, &token, "/api/runs").await;
    assert_eq!(listed["total"], 2, "{listed}");
    let mut shown = Vec::new();
    for run in listed["runs"].as_array().expect("runs") {
        let run_id = run["run_id"].as_str().expect("a run id");
        assert!(run_id.starts_with("mcp_"), "{run_id}");
        let detail = get(&url, &token, &format!("/api/runs/{run_id}")).await;
        let steps = detail["steps"].as_array().expect("steps");
        assert_eq!(steps.len(), 1, "{detail}");
        assert_eq!(steps[0]["kind"], "tool", "{detail}");
        shown.push(steps[0]["name"].as_str().expect("a tool").to_owned());
    }
    shown.sort();
    assert_eq!(shown, ["list_directory", "list_tables"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_call_from_another_process_appears_in_the_open_runs_history() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let data = tempfile::tempdir().expect("temp dir");
    let audit = data.path().join("audit.sqlite3");
    let (url, _) = start_playground(&audit).await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.goto(&format!("{url}/runs")).await;
    browser
        .wait_for(
            "the runs page",
            "return document.body.dataset.ready;",
            json!([]),
        )
        .await;
    assert_eq!(
        browser
            .execute(
                "return document.getElementById('run-list').textContent;",
                json!([])
            )
            .await,
        json!("No runs yet.")
    );

    let reply = tokio::task::spawn_blocking({
        let data = data.path().to_path_buf();
        move || call_over_mcp(&audit, &data, "list_tables")
    })
    .await
    .expect("the MCP call");
    assert_eq!(reply["result"]["isError"], false);

    // Without a reload, the page finds the new run and opens it with its artifact.
    let run_id = browser
        .wait_for(
            "the MCP run in the list",
            "const b = document.querySelector('[data-testid^=\"run-mcp_\"]'); return b && b.dataset.testid;",
            json!([]),
        )
        .await;
    let run_id = run_id
        .as_str()
        .expect("a test id")
        .trim_start_matches("run-")
        .to_owned();
    browser
        .click(&format!("[data-testid=\"run-{run_id}\"]"))
        .await;
    browser
        .wait_for(
            "the run",
            "return document.getElementById('run-title').dataset.loaded;",
            json!([]),
        )
        .await;
    browser
        .click("#steps > li[data-kind=tool] [data-testid=tab-artifacts]")
        .await;
    let cells = browser
        .execute(
            "return Array.from(document.querySelectorAll('#steps > li[data-kind=tool] td')).map((c) => c.textContent);",
            json!([]),
        )
        .await;
    assert!(
        cells
            .as_array()
            .is_some_and(|cells| cells.contains(&json!("customers"))),
        "{cells}"
    );
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

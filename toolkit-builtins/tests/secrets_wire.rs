//! One secret policy at the seam: a corpus of secret shapes planted in every place a model
//! reads (a workspace file, a log file, an HTTP page and database records) reaches the recorded
//! provider wire as `[REDACTED]` when the service filters content, while the artifacts (for
//! people) keep every value. The same run without the filter carries every shape to the wire
//! from every place that does not mask by itself, so the plants are real.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::provider::{HttpOptions, OpenAiProvider};
use toolkit::{
    RunRequest, ToolContext, ToolLoopService, ToolRegistry, recording::Termination,
    seam::SecretFilter,
};
use toolkit_builtins::network::NetworkPolicy;
use toolkit_builtins::{Database, WorkspaceRoot};
use toolkit_secrets::corpus::CORPUS;
use toolkit_testing::http::Server;

const KEY_VARIABLE: &str = "TOOLKIT_TEST_PROVIDER_KEY";

/// Most characters of one HTTP page: one `fetch_page` call reads it whole (it gives at most
/// 12 000), so that no plant is split between two parts.
const PAGE_CHARS: usize = 11_000;
/// Records one `read_records` call asks for: few enough that the content shows every row.
const RECORDS_PER_CALL: usize = 10;

/// Serves `pages[n]` as text at `/page/n` to every request, forever; gives the base URL.
fn responder(pages: Vec<String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request_line = String::new();
            let mut reader = BufReader::new(&stream);
            let _ = reader.read_line(&mut request_line);
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|read| read > 2) {
                header.clear();
            }
            let page = request_line
                .split_whitespace()
                .nth(1)
                .and_then(|path| path.strip_prefix("/page/"))
                .and_then(|n| n.parse::<usize>().ok())
                .and_then(|n| pages.get(n));
            let body = page.map_or("", String::as_str);
            let status = if page.is_some() {
                "200 OK"
            } else {
                "404 Not Found"
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// The texts of the corpus as HTTP pages of at most [`PAGE_CHARS`] characters, cut between
/// plants.
fn pages() -> Vec<String> {
    let mut pages = vec![String::new()];
    for (_, text, _) in CORPUS {
        let page = pages.last_mut().expect("a page");
        if !page.is_empty() && page.chars().count() + 1 + text.chars().count() > PAGE_CHARS {
            pages.push(String::new());
        }
        let page = pages.last_mut().expect("a page");
        if !page.is_empty() {
            page.push('\n');
        }
        page.push_str(text);
    }
    pages
}

/// The log file: one line per plant, its line breaks written `\n` as a logger writes them.
fn log_lines() -> String {
    CORPUS
        .iter()
        .enumerate()
        .map(|(i, (_, text, _))| {
            format!(
                "2024-05-02 09:{:02}:{:02} WARN {}",
                i / 60,
                i % 60,
                text.replace('\n', "\\n")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the provider received and what the run kept.
struct Run {
    /// Every byte the provider received.
    wire: Vec<u8>,
    /// The run's artifacts, as JSON.
    artifacts: String,
    /// The tool results the model read last, by place (a call id up to its `-`).
    places: BTreeMap<String, String>,
}

/// Plants the whole corpus in each place: `secrets.env` and `logs/app.log` in `folder`, a table
/// of `vault.db` in it, and HTTP pages; gives the database and the pages' addresses.
fn plant(folder: &Path) -> (PathBuf, Vec<String>) {
    let texts: Vec<&str> = CORPUS.iter().map(|(_, text, _)| *text).collect();
    std::fs::write(folder.join("secrets.env"), texts.join("\n")).expect("file");
    std::fs::create_dir(folder.join("logs")).expect("logs folder");
    std::fs::write(folder.join("logs/app.log"), log_lines()).expect("log");
    let database = folder.join("vault.db");
    let connection = rusqlite::Connection::open(&database).expect("database");
    connection
        .execute_batch("CREATE TABLE credentials (id INTEGER PRIMARY KEY, form TEXT, secret TEXT);")
        .expect("table");
    for (form, text, _) in CORPUS {
        connection
            .execute(
                "INSERT INTO credentials (form, secret) VALUES (?1, ?2)",
                [form, text],
            )
            .expect("row");
    }
    let pages = pages();
    assert!(pages.iter().all(|page| page.chars().count() <= PAGE_CHARS));
    let count = pages.len();
    let url = responder(pages);
    let addresses = (0..count)
        .map(|page| format!("{url}/page/{page}"))
        .collect();
    (database, addresses)
}

/// The calls that read every place: the workspace file and the log file with `read_file`, the
/// log file with `fetch_logs`, each page with `fetch_page` and `probe_url`, the records with
/// `read_records`. A call's id names its place (up to a `-`).
fn calls(pages: &[String]) -> Vec<Value> {
    let call = |id: String, name: &str, arguments: Value| json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}});
    let mut calls = vec![
        call(
            "file".into(),
            "read_file",
            json!({"path": "secrets.env", "lines": 200}),
        ),
        call(
            "logfile".into(),
            "read_file",
            json!({"path": "logs/app.log", "lines": 200}),
        ),
        call(
            "logs".into(),
            "fetch_logs",
            json!({"path": "logs/app.log", "lines": 500}),
        ),
    ];
    for (n, address) in pages.iter().enumerate() {
        calls.push(call(
            format!("page-{n}"),
            "fetch_page",
            json!({"url": address, "max_length": 12_000}),
        ));
        calls.push(call(
            format!("probe-{n}"),
            "probe_url",
            json!({"url": address, "max_body_bytes": 20_000}),
        ));
    }
    for (n, offset) in (0..CORPUS.len()).step_by(RECORDS_PER_CALL).enumerate() {
        calls.push(call(
            format!("records-{n}"),
            "read_records",
            json!({"table": "credentials", "limit": RECORDS_PER_CALL, "offset": offset}),
        ));
    }
    calls
}

/// The tool results of the last request the provider received, joined by place.
fn tool_results(server: &Server) -> BTreeMap<String, String> {
    let requests = server.requests();
    let last: Value =
        serde_json::from_slice(&requests.last().expect("requests").body).expect("a JSON request");
    let mut places: BTreeMap<String, String> = BTreeMap::new();
    for message in last["messages"].as_array().expect("messages") {
        if message["role"] == "tool" {
            let id = message["tool_call_id"].as_str().expect("an id");
            let place = id.split('-').next().unwrap_or(id).to_owned();
            let text = message["content"].as_str().expect("text content");
            places.entry(place).or_default().push_str(text);
        }
    }
    assert_eq!(
        places.keys().map(String::as_str).collect::<Vec<_>>(),
        ["file", "logfile", "logs", "page", "probe", "records"]
    );
    places
}

/// Plants the corpus, runs a model that reads every place over real HTTP, and gives what the
/// provider received and what the run kept.
async fn run(filtered: bool) -> Run {
    let folder = tempfile::tempdir().expect("temp dir");
    let (database, pages) = plant(folder.path());
    let calls = calls(&pages);
    let call_count = calls.len();
    let turn = |message: Value| {
        (
            200,
            Vec::new(),
            json!({"choices": [{"message": message}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}),
        )
    };
    let server = Server::start(vec![
        turn(json!({"role": "assistant", "content": null, "tool_calls": calls})),
        turn(json!({"role": "assistant", "content": "read"})),
    ])
    .await;
    let options = HttpOptions::default().with_timeout(Duration::from_secs(10));
    let model =
        OpenAiProvider::from_env_var(KEY_VARIABLE, &format!("{}/v1", server.url), "m", options)
            .expect("provider");
    let mut service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    if filtered {
        service = service.with_content_filter(Arc::new(SecretFilter));
    }
    let context = ToolContext::new()
        .with_extension(WorkspaceRoot::new(folder.path()))
        .with_extension(Database::new(&database))
        .with_extension(NetworkPolicy::allowing(["127.0.0.1"]));
    let request = RunRequest::new("Read the secrets.")
        .with_tools([
            "read_file",
            "fetch_logs",
            "fetch_page",
            "probe_url",
            "read_records",
        ])
        .with_context(context);
    let result = service.run(&model, request).await.expect("runs");
    assert_eq!(
        result.termination,
        Termination::Answered,
        "{}",
        result.content
    );
    let calls: Vec<&toolkit::recording::ToolInvocation> = result.trace.invocations().collect();
    assert_eq!(calls.len(), call_count);
    assert!(calls.iter().all(|call| !call.is_error()), "{calls:?}");
    let artifacts = calls
        .iter()
        .map(|call| serde_json::to_string(call.artifacts()).expect("json"))
        .collect::<Vec<_>>()
        .join("\n");
    Run {
        wire: server.all_bytes(),
        artifacts,
        places: tool_results(&server),
    }
}

/// The shapes whose secret part `text` holds.
fn found_in(text: &str) -> Vec<&'static str> {
    CORPUS
        .iter()
        .filter(|(_, _, needle)| text.contains(needle))
        .map(|(form, _, _)| *form)
        .collect()
}

/// The lines of `text` that hold a planted secret part.
fn leaking_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|line| !found_in(line).is_empty())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_secret_reaches_the_wire_while_every_artifact_keeps_it() {
    assert!(
        CORPUS.len() >= 100,
        "the corpus has {} shapes",
        CORPUS.len()
    );
    let Run {
        wire,
        artifacts,
        places,
    } = run(true).await;
    let on_wire: Vec<&str> = CORPUS
        .iter()
        .filter(|(_, _, needle)| {
            let escaped = serde_json::to_string(needle).expect("json");
            contains(&wire, needle.as_bytes())
                || contains(&wire, escaped.trim_matches('"').as_bytes())
        })
        .map(|(form, _, _)| *form)
        .collect();
    // Place by place first, with the lines that leak, then the whole wire.
    let leaks: BTreeMap<&str, Vec<&str>> = places
        .iter()
        .map(|(place, content)| (place.as_str(), leaking_lines(content)))
        .filter(|(_, lines)| !lines.is_empty())
        .collect();
    assert_eq!(leaks, BTreeMap::new(), "shapes read from each place");
    assert_eq!(on_wire, Vec::<&str>::new(), "forms on the wire");
    assert!(contains(&wire, b"[REDACTED]"));
    for (place, content) in &places {
        assert!(content.contains("[REDACTED]"), "{place}: {content}");
    }
    let kept: Vec<&str> = CORPUS
        .iter()
        .filter(|(_, _, needle)| {
            let escaped = serde_json::to_string(needle).expect("json");
            artifacts.contains(escaped.trim_matches('"'))
        })
        .map(|(form, _, _)| *form)
        .collect();
    assert_eq!(
        kept.len(),
        CORPUS.len(),
        "artifacts lost {:?}",
        CORPUS
            .iter()
            .map(|c| c.0)
            .filter(|form| !kept.contains(form))
            .collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_filter_every_planted_secret_reaches_the_wire() {
    let Run { wire, places, .. } = run(false).await;
    let missing: Vec<&str> = CORPUS
        .iter()
        .filter(|(_, _, needle)| {
            let escaped = serde_json::to_string(needle).expect("json");
            !contains(&wire, escaped.trim_matches('"').as_bytes())
        })
        .map(|(form, _, _)| *form)
        .collect();
    assert_eq!(missing, Vec::<&str>::new(), "planted but not on the wire");
    // From every place, each shape whole: no plant is lost or cut on its way to the model.
    let everything: Vec<&str> = CORPUS.iter().map(|(form, _, _)| *form).collect();
    for place in ["file", "logfile", "page", "probe", "records"] {
        assert_eq!(
            found_in(&places[place]),
            everything,
            "shapes read from {place}"
        );
    }
    // `fetch_logs` masks each line itself, with the same rules: the log file's plants (which
    // `read_file` shows above) reach the wire through it as `[REDACTED]` even without the filter.
    assert_eq!(
        found_in(&places["logs"]),
        Vec::<&str>::new(),
        "shapes in fetch_logs"
    );
}

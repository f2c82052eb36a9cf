//! MCP Apps in a real host page in headless Chromium: a host built on the official
//! `@modelcontextprotocol/ext-apps` bridge and MCP client (installed by `scripts/test` under
//! `target/mcp-apps-host`, bundled here with esbuild) connects to toolkit's MCP server (with the
//! writers), calls tools as a model asked, and shows the view each names in a sandboxed frame
//! and each form the server asks its user to fill. The test reads the tables from inside the
//! frame, approves an `edit_file` from the diff in its form, checks that an XSS corpus stays
//! inert text in the view, that the view follows the host's theme, and that nothing the model
//! side received (neither what the host page would hand a model nor any byte the server sent
//! outside the view's own requests) holds an artifact's byte. Screenshots go to
//! target/playground-screenshots/.

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use common::{Browser, HOSTILE_MEDIA, PNG, XSS, browser};
use serde_json::{Value, json};
use toolkit::{Table, ToolArtifact, ToolLoopService, ToolResult, tool};
use toolkit_builtins::WorkspaceRoot; // and links the builtin tools
use toolkit_mcp::McpToolServer;

/// The packages `scripts/test` installs for the host, at these versions.
const EXT_APPS_VERSION: &str = "2.0.4";

/// Two artifacts whose every string is a canary the wire never carries.
#[tool(group = "test")]
fn apps_canary() -> ToolResult {
    let table =
        Table::from_rows(["CANARY-APPS-COLUMN"], [["CANARY-APPS-CELL"]]).expect("one column");
    ToolResult::text_with(
        "one table and one text, for people only",
        [
            ToolArtifact::table("CANARY-APPS-LABEL", table),
            ToolArtifact::text("note", "CANARY-APPS-TEXT\nsecond line"),
        ],
    )
}

/// The XSS corpus as a table of payloads and as one text artifact per payload, labelled with it;
/// then an image, and media that must only be downloaded.
#[tool(group = "test")]
fn apps_xss() -> ToolResult {
    let rows = XSS
        .iter()
        .enumerate()
        .map(|(index, payload)| [index.to_string(), (*payload).to_owned()]);
    let mut artifacts = vec![ToolArtifact::table(
        XSS[0],
        Table::from_rows(["#", XSS[1]], rows).expect("two columns"),
    )];
    artifacts.extend(
        XSS.iter()
            .map(|payload| ToolArtifact::text(*payload, *payload)),
    );
    artifacts.push(ToolArtifact::media("pixels", "image/png", PNG));
    artifacts.extend(
        HOSTILE_MEDIA
            .iter()
            .map(|(label, mime, body)| ToolArtifact::media(*label, *mime, body)),
    );
    ToolResult::text_with("the corpus, as artifacts", artifacts)
}

/// Where `scripts/test` installed the host's packages, if it did (and this is the full tier).
fn host_packages() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-apps-host");
    let package = root.join("node_modules/@modelcontextprotocol/ext-apps");
    let esbuild = root.join("node_modules/.bin/esbuild");
    toolkit_testing::npm::installed(
        "the MCP Apps host packages",
        &package,
        EXT_APPS_VERSION,
        || esbuild.is_file() && package.join("package.json").is_file(),
    )
    .then_some(root)
}

/// The host script bundled with its packages (esbuild, run where they are installed).
fn bundle(root: &Path) -> String {
    let source = std::fs::File::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/apps_host/host.js"
    ))
    .expect("the host script");
    let output = Command::new(root.join("node_modules/.bin/esbuild"))
        .args([
            "--bundle",
            "--format=esm",
            "--platform=browser",
            "--log-level=warning",
            "--sourcefile=host.js",
        ])
        .current_dir(root)
        .stdin(source)
        .stderr(Stdio::inherit())
        .output()
        .expect("esbuild runs");
    assert!(output.status.success(), "esbuild failed");
    String::from_utf8(output.stdout).expect("a UTF-8 bundle")
}

/// Which side of the host a response reaches: the view's own requests (reading the view,
/// fetching artifacts by handle), or everything else, which a host hands to its model.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    View,
    Model,
}

/// One request the host page made through its backend, and the bytes the server answered.
struct Exchange {
    side: Side,
    request: String,
    response: Arc<Mutex<Vec<u8>>>,
}

#[derive(Clone)]
struct Backend {
    mcp: String,
    page: Arc<str>,
    script: Arc<str>,
    http: reqwest::Client,
    exchanges: Arc<Mutex<Vec<Exchange>>>,
}

impl Backend {
    /// The bytes of every response on one side, each whole.
    fn responses(&self, side: Side) -> Vec<String> {
        self.exchanges
            .lock()
            .expect("not poisoned")
            .iter()
            .filter(|exchange| exchange.side == side)
            .map(|exchange| {
                let bytes = exchange.response.lock().expect("not poisoned").clone();
                format!(
                    "{} -> {}",
                    exchange.request,
                    String::from_utf8_lossy(&bytes)
                )
            })
            .collect()
    }
}

/// The side a JSON-RPC request body belongs to.
fn side_of(body: &[u8]) -> Side {
    let message: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let method = message["method"].as_str().unwrap_or_default();
    let name = message["params"]["name"].as_str().unwrap_or_default();
    if method == "resources/read" || (method == "tools/call" && name == "toolkit_artifacts") {
        Side::View
    } else {
        Side::Model
    }
}

/// Forwards a request for `/mcp` to the server as a host's backend does (without the page's
/// Origin: the server is not the page's), and streams the answer back while recording it.
async fn forward(State(backend): State<Backend>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 24)
        .await
        .expect("a request body");
    let mut outgoing = backend
        .http
        .request(parts.method.clone(), &backend.mcp)
        .body(body.clone());
    for name in [
        "content-type",
        "accept",
        "mcp-session-id",
        "mcp-protocol-version",
        "last-event-id",
    ] {
        if let Some(value) = parts.headers.get(name) {
            outgoing = outgoing.header(name, value);
        }
    }
    let answer = outgoing.send().await.expect("the server answers");
    let recorded = Arc::new(Mutex::new(Vec::new()));
    backend
        .exchanges
        .lock()
        .expect("not poisoned")
        .push(Exchange {
            side: side_of(&body),
            request: format!("{} {}", parts.method, String::from_utf8_lossy(&body)),
            response: Arc::clone(&recorded),
        });
    let status = StatusCode::from_u16(answer.status().as_u16()).expect("a status");
    let mut headers = HeaderMap::new();
    for name in ["content-type", "mcp-session-id", "cache-control"] {
        if let Some(value) = answer.headers().get(name) {
            headers.insert(name, value.clone());
        }
    }
    let chunks = futures_util::stream::unfold(answer, move |mut answer| {
        let recorded = Arc::clone(&recorded);
        async move {
            match answer.chunk().await {
                Ok(Some(chunk)) => {
                    recorded
                        .lock()
                        .expect("not poisoned")
                        .extend_from_slice(&chunk);
                    Some((Ok::<Bytes, reqwest::Error>(chunk), answer))
                }
                Ok(None) | Err(_) => None,
            }
        }
    });
    (status, headers, Body::from_stream(chunks)).into_response()
}

/// Serves the host page, its bundled script and `/mcp` (forwarded to `mcp`) on a free port.
async fn start_backend(mcp: String, script: String) -> (String, Backend) {
    let backend = Backend {
        mcp,
        page: include_str!("apps_host/host.html").into(),
        script: script.into(),
        http: reqwest::Client::new(),
        exchanges: Arc::default(),
    };
    let page = Arc::clone(&backend.page);
    let script = Arc::clone(&backend.script);
    let app = axum::Router::new()
        .route(
            "/host.html",
            get(move || {
                let page = Arc::clone(&page);
                async move {
                    (
                        [("content-type", "text/html; charset=utf-8")],
                        page.to_string(),
                    )
                }
            }),
        )
        .route(
            "/host.js",
            get(move || {
                let script = Arc::clone(&script);
                async move {
                    (
                        [("content-type", "text/javascript; charset=utf-8")],
                        script.to_string(),
                    )
                }
            }),
        )
        .route("/mcp", any(forward))
        .with_state(backend.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let address = listener.local_addr().expect("bound");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{address}/host.html"), backend)
}

/// Serves the linked tools (the builtins and this file's) over streamable HTTP with the
/// writers, on the sample database and a copy of the sample workspace at `workspace`, as
/// `toolkit-mcp --playground --http PORT --writers` does with the builtins (this file's own
/// tools make the canaries and the XSS corpus, which the binary cannot link): the endpoint's
/// URL.
async fn start_server(workspace: &Path) -> String {
    let service = Arc::new(ToolLoopService::new(
        toolkit_builtins::registry().expect("no duplicates"),
    ));
    playground::defaults::copy_sample_workspace(workspace).expect("a copy");
    let context = playground::defaults::sample_context()
        .expect("the sample")
        .with_extension(WorkspaceRoot::new(workspace));
    let server = McpToolServer::new(service, context)
        .and_then(McpToolServer::with_writers)
        .expect("every tool's state is there");
    let (bound, address) = tokio::sync::oneshot::channel::<SocketAddr>();
    tokio::spawn(server.serve_http(0, move |address| {
        bound.send(address).expect("the test waits");
    }));
    let address = address.await.expect("the server binds");
    format!("http://{address}{}", toolkit_mcp::HTTP_PATH)
}

/// Runs `expression` (a promise) in the host page and waits for what it resolves to; a
/// rejection fails the test with its message.
async fn host_run(browser: &Browser, expression: &str) -> Value {
    browser
        .execute(
            &format!(
                "window.__done = undefined; Promise.resolve().then(() => {expression}).then(\
                 (value) => {{ window.__done = {{value: value === undefined ? null : value}}; }},\
                 (error) => {{ window.__done = {{error: String(error && error.stack || error)}}; }}); \
                 return true;"
            ),
            json!([]),
        )
        .await;
    let done = browser
        .wait_for(expression, "return window.__done;", json!([]))
        .await;
    assert!(done.get("error").is_none(), "{expression}: {done}");
    done["value"].clone()
}

/// Reads what the view in the current frame shows: its status line, the artifacts' labels and
/// kinds, each table's columns and rows and each text's lines.
const READ_VIEW: &str = r"
const all = (selector, root) => Array.from((root || document).querySelectorAll(selector));
return {
  status: document.querySelector('[data-testid=view-status]').textContent,
  labels: all('[data-testid=artifact-label]').map((n) => n.textContent),
  kinds: all('[data-testid=artifact]').map((n) => n.dataset.kind),
  tables: all('[data-testid=artifact] table').map((t) => ({
    columns: all('th', t).map((c) => c.textContent),
    rows: all('tbody tr', t).map((r) => all('td', r).map((c) => c.textContent)),
  })),
  texts: all('[data-testid=artifact-text]').map((n) =>
    all('.line .content', n).map((line) => line.textContent).join('\n')),
  images: all('img').map((image) => [image.alt, image.complete, image.naturalWidth]),
  downloads: all('[data-testid=download-media]').length,
  pwned: window.__pwned === undefined ? null : window.__pwned,
  theme: document.documentElement.dataset.theme || null,
  background: getComputedStyle(document.body).backgroundColor,
};
";

/// Enters view `index`'s frame, waits for it to show artifacts (or say it has none), reads it and
/// leaves the frame.
async fn read_view(browser: &Browser, index: u64) -> Value {
    browser
        .enter_frame(&format!("iframe[data-testid=view][data-index='{index}']"))
        .await;
    browser
        .wait_for(
            "the view to show the call",
            "const status = document.querySelector('[data-testid=view-status]'); \
             return status !== null && !/^(Waiting|Loading)/.test(status.textContent);",
            json!([]),
        )
        .await;
    let shown = browser.execute(READ_VIEW, json!([])).await;
    browser.leave_frame().await;
    shown
}

/// A person asked about an `edit_file` call reads its diff in the host's form, approves it,
/// and the file changes; the view shows the call's diff artifact.
async fn approve_an_edit_from_its_diff(browser: &Browser, folder: &Path) {
    let file = folder.join("workspace/notes/todo.txt");
    let before = std::fs::read_to_string(&file).expect("the note");
    let arguments = json!({"path": "notes/todo.txt", "edits": [{
        "old_text": "- replace the default config password",
        "new_text": "- rotate the config password",
    }]});
    browser
        .execute(
            &format!(
                "window.__edit = null; window.host.call('edit_file', {arguments}).then(\
                 (value) => {{ window.__edit = {{value}}; }}, \
                 (error) => {{ window.__edit = {{error: String(error)}}; }}); return true;"
            ),
            json!([]),
        )
        .await;
    let message = browser
        .wait_for(
            "the approval form",
            "const m = document.querySelector('[data-testid=elicitation-message]'); return m && m.textContent;",
            json!([]),
        )
        .await;
    let message = message.as_str().expect("a message");
    assert!(
        message.starts_with("Approve this call of tool \"edit_file\"?\n\nArguments:\n"),
        "{message}"
    );
    assert!(
        message.contains("What it would do:\n")
            && message.contains("-- replace the default config password\n")
            && message.contains("+- rotate the config password\n"),
        "{message}"
    );
    // Nothing is written before the person decides.
    assert_eq!(std::fs::read_to_string(&file).expect("the note"), before);
    browser
        .screenshot_of("[data-testid=elicitation]", "mcp-apps-elicitation-form.png")
        .await;
    browser.click("[data-testid=choice-approve]").await;
    browser.click("[data-testid=elicitation-accept]").await;
    let done = browser
        .wait_for("the edit's result", "return window.__edit;", json!([]))
        .await;
    assert_eq!(done["value"]["isError"], false, "{done}");
    let after = std::fs::read_to_string(&file).expect("the note");
    assert_eq!(
        after,
        before.replace(
            "- replace the default config password",
            "- rotate the config password"
        )
    );
    let shown = read_view(browser, done["value"]["view"].as_u64().expect("a view")).await;
    assert_eq!(shown["kinds"], json!(["text"]), "{shown}");
    assert_eq!(shown["labels"], json!(["Diff of notes/todo.txt"]));
    browser
        .execute(
            "document.querySelector('div.turn:last-of-type').scrollIntoView(); return true;",
            json!([]),
        )
        .await;
    browser.screenshot("mcp-apps-approved-edit.png").await;
}

/// Checks what the host page would hand a model (`handed` texts: the tool list and each
/// result) and every byte the server sent outside the view's own requests: no canary in any.
/// The canary is there to be found: the view's one fetch of the canary call holds it.
async fn assert_no_canary_on_the_model_side(browser: &Browser, backend: &Backend, handed: usize) {
    let texts = browser
        .execute("return window.host.modelSide;", json!([]))
        .await;
    let texts: Vec<String> = serde_json::from_value(texts).expect("texts");
    assert_eq!(texts.len(), handed);
    assert!(
        texts.iter().all(|text| !text.contains("CANARY-APPS-")),
        "{texts:?}"
    );
    let model_side = backend.responses(Side::Model);
    let view_side = backend.responses(Side::View);
    let model_bytes: usize = model_side.iter().map(String::len).sum();
    println!(
        "model side: {} responses, {model_bytes} bytes, {} canary hits; view side: {} responses",
        model_side.len(),
        model_side
            .iter()
            .filter(|text| text.contains("CANARY-APPS-"))
            .count(),
        view_side.len()
    );
    assert!(model_side.len() >= 5, "{model_side:?}");
    for response in &model_side {
        assert!(!response.contains("CANARY-APPS-"), "{response}");
    }
    // The canary is there to be found: the view's fetch of the canary call holds it.
    assert_eq!(
        view_side
            .iter()
            .filter(|text| text.contains("CANARY-APPS-CELL"))
            .count(),
        1
    );
}

/// What a test drives: the browser on the host page, the host's backend, and the workspace
/// the server's writers change.
struct Host {
    browser: Browser,
    backend: Backend,
    workspace: tempfile::TempDir,
}

/// The server, the host's backend and the host page in Chromium, connected as a client that
/// shows views and answers forms: what `connect` answered. `None` where the browser or the
/// packages are missing.
async fn open_host() -> Option<(Host, Value)> {
    let (chromium, driver) = browser()?;
    let packages = host_packages()?;
    let script = bundle(&packages);
    let workspace = tempfile::tempdir().expect("a folder");
    let mcp = start_server(&workspace.path().join("workspace")).await;
    let (host, backend) = start_backend(mcp, script).await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&host).await;
    let connected = host_run(&browser, "window.host.connect({elicitation: true})").await;
    let host = Host {
        browser,
        backend,
        workspace,
    };
    Some((host, connected))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_page_shows_a_calls_table_in_the_view_and_the_model_side_gets_no_artifact_byte() {
    let Some((host, connected)) = open_host().await else {
        return;
    };
    let browser = &host.browser;
    assert_eq!(connected["appOnly"], json!(["toolkit_artifacts"]));
    let offered = connected["offered"].as_array().expect("names");
    assert!(
        ["query_sql", "edit_file"]
            .iter()
            .all(|tool| offered.iter().any(|name| name == tool)),
        "{connected}"
    );
    // The views extension, and the tasks extension (`fetch_page` and `git_blame` are task tools).
    assert_eq!(
        connected["server"]["extensions"],
        json!({"io.modelcontextprotocol/ui": {}, "io.modelcontextprotocol/tasks": {}})
    );

    // A query's table, as the seam makes it, is what the person sees in the view.
    let sql = "SELECT id, name, country FROM customers ORDER BY id LIMIT 5";
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("registry"));
    let scope = service
        .scope(playground::defaults::sample_context().expect("the sample"))
        .expect("a scope");
    let expected = service
        .invoke(&scope, "query_sql", &json!({"sql": sql}).to_string())
        .await;
    let table = expected.artifacts()[0].as_table().expect("a table");
    let called = host_run(
        browser,
        &format!("window.host.call('query_sql', {})", json!({"sql": sql})),
    )
    .await;
    assert_eq!(called["text"], expected.content());
    assert_eq!(called["isError"], false);
    let shown = read_view(browser, called["view"].as_u64().expect("a view")).await;
    assert_eq!(
        shown["status"],
        "1 artifact of query_sql, for you only: the model never receives them."
    );
    assert_eq!(shown["kinds"], json!(["table"]));
    let rows: Vec<Vec<&str>> = table
        .rows()
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| cell.as_text().unwrap_or("NULL"))
                .collect()
        })
        .collect();
    assert_eq!(
        shown["tables"],
        json!([{"columns": table.columns(), "rows": rows}])
    );
    assert_eq!(rows.len(), 5);
    browser.screenshot("mcp-apps-view-query.png").await;

    // Canaries: the view shows them; the model side never gets one.
    let called = host_run(browser, "window.host.call('apps_canary', {})").await;
    assert_eq!(called["text"], "one table and one text, for people only");
    let shown = read_view(browser, called["view"].as_u64().expect("a view")).await;
    assert_eq!(shown["labels"], json!(["CANARY-APPS-LABEL", "note"]));
    assert_eq!(
        shown["tables"],
        json!([{"columns": ["CANARY-APPS-COLUMN"], "rows": [["CANARY-APPS-CELL"]]}])
    );
    assert_eq!(shown["texts"], json!(["CANARY-APPS-TEXT\nsecond line"]));

    // A call without artifacts says so, and fetches nothing.
    let called = host_run(browser, "window.host.call('uuid', {})").await;
    let shown = read_view(browser, called["view"].as_u64().expect("a view")).await;
    assert_eq!(shown["status"], "This call made no artifacts.");
    assert_eq!(shown["labels"], json!([]));

    approve_an_edit_from_its_diff(browser, host.workspace.path()).await;
    assert_no_canary_on_the_model_side(browser, &host.backend, 5).await;
    let host_pwned = browser
        .execute("return window.__pwned === undefined;", json!([]))
        .await;
    assert_eq!(host_pwned, json!(true));
    host.browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_artifacts_stay_inert_text_in_the_view_and_it_follows_the_hosts_theme() {
    let Some((host, _)) = open_host().await else {
        return;
    };
    let browser = &host.browser;

    let called = host_run(browser, "window.host.call('apps_xss', {})").await;
    let index = called["view"].as_u64().expect("a view");
    let shown = read_view(browser, index).await;
    let corpus: Vec<&str> = XSS.to_vec();
    let mut labels = vec![XSS[0]];
    labels.extend(&corpus);
    labels.extend(["pixels", "vector", "page", "breakout"]);
    assert_eq!(shown["labels"], json!(labels));
    // Under the view's own CSP the image shows; the hostile media is only offered for download.
    browser
        .enter_frame(&format!("iframe[data-testid=view][data-index='{index}']"))
        .await;
    let images = browser
        .wait_for(
            "the image in the view",
            "const images = Array.from(document.querySelectorAll('img')); \
             return images.every((image) => image.complete) && \
             images.map((image) => [image.alt, image.naturalWidth, image.naturalHeight]);",
            json!([]),
        )
        .await;
    browser.leave_frame().await;
    assert_eq!(images, json!([["pixels", 2, 1]]));
    assert_eq!(shown["downloads"], 4);
    assert_eq!(shown["tables"][0]["columns"], json!(["#", XSS[1]]));
    let cells: Vec<&str> = shown["tables"][0]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| row[1].as_str().expect("a cell"))
        .collect();
    assert_eq!(cells, corpus);
    let texts: Vec<&str> = shown["texts"]
        .as_array()
        .expect("texts")
        .iter()
        .map(|text| text.as_str().expect("a text"))
        .collect();
    // A payload with a line break shows as its lines, joined back here.
    assert_eq!(texts, corpus);
    assert_eq!(shown["pwned"], Value::Null);
    assert_eq!(shown["theme"], "light");
    assert_eq!(shown["background"], "rgb(255, 255, 255)");
    browser.screenshot("mcp-apps-view-xss.png").await;

    // The host turns dark: the view follows with the host's own colours.
    host_run(browser, "window.host.setTheme('dark')").await;
    browser
        .enter_frame(&format!("iframe[data-testid=view][data-index='{index}']"))
        .await;
    browser
        .wait_for(
            "the view to turn dark",
            "return document.documentElement.dataset.theme === 'dark' && \
             getComputedStyle(document.body).backgroundColor === 'rgb(28, 32, 40)';",
            json!([]),
        )
        .await;
    let pwned = browser
        .execute("return window.__pwned === undefined;", json!([]))
        .await;
    assert_eq!(pwned, json!(true));
    browser.leave_frame().await;
    let host_pwned = browser
        .execute("return window.__pwned === undefined;", json!([]))
        .await;
    assert_eq!(host_pwned, json!(true));
    browser.screenshot("mcp-apps-view-dark.png").await;
    host.browser.quit().await;
}

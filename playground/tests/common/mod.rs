//! What the browser tests share: a minimal W3C `WebDriver` client over `chromedriver`, and the
//! playground server started in-process on a free port.

#![allow(dead_code)] // each test binary uses a different part

use std::io::Write as _;
use std::net::TcpListener as StdListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use playground::server::AppState;
use serde_json::{Value, json};
use toolkit::ToolContext;
use toolkit_audit::{Audit, Privacy, SqliteAudit};
use toolkit_builtins::policies::WritesUnder;

/// Markup, handlers, URLs and tricks that must all show up as the same literal text.
pub const XSS: &[&str] = &[
    "<script>window.__pwned=1</script>",
    "<img src=x onerror=\"window.__pwned=1\">",
    "<svg onload=\"window.__pwned=1\"></svg>",
    "<svg><script>window.__pwned=1</script></svg>",
    "<a href=\"javascript:window.__pwned=1\">click</a>",
    "javascript:window.__pwned=1",
    "<iframe src=\"javascript:window.__pwned=1\"></iframe>",
    "<body onload=\"window.__pwned=1\">",
    "\"><script>window.__pwned=1</script>",
    "'><img src=x onerror=window.__pwned=1>",
    "</pre><script>window.__pwned=1</script>",
    "</td></tr></table><img src=x onerror=window.__pwned=1>",
    "<details open ontoggle=\"window.__pwned=1\">",
    "<input autofocus onfocus=\"window.__pwned=1\">",
    "<video><source onerror=\"window.__pwned=1\"></video>",
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__pwned=1>",
    "<object data=\"javascript:window.__pwned=1\"></object>",
    "<embed src=\"javascript:window.__pwned=1\">",
    "<style>@import 'javascript:window.__pwned=1';</style>",
    "<link rel=stylesheet href=\"javascript:window.__pwned=1\">",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:window.__pwned=1\">",
    "<base href=\"javascript:window.__pwned=1//\">",
    "<form action=\"javascript:window.__pwned=1\"><button>x</button></form>",
    "<marquee onstart=\"window.__pwned=1\">x</marquee>",
    "<img src=\"x\" onerror=\"&#119;indow.__pwned=1\">",
    "<scr<script>ipt>window.__pwned=1</scr</script>ipt>",
    "<img src=x onerror=window.__pwned=1//",
    "<!--<img src=\"--><img src=x onerror=window.__pwned=1//\">",
    "<![CDATA[<script>window.__pwned=1</script>]]>",
    "\u{202e}<script>window.__pwned=1</script>",
    "\u{feff}<img src=x onerror=window.__pwned=1>",
    "\u{ff1c}script\u{ff1e}window.__pwned=1\u{ff1c}/script\u{ff1e}",
    "<scr\u{200b}ipt>window.__pwned=1</scr\u{200b}ipt>",
    "<svg><animate onbegin=\"window.__pwned=1\" attributeName=x dur=1s>",
    "<svg><a xlink:href=\"javascript:window.__pwned=1\"><text x=20 y=20>XSS</text></a></svg>",
    "{{constructor.constructor('window.__pwned=1')()}}",
    "${window.__pwned=1}",
    "<img src=x onerror=eval(atob('d2luZG93Ll9fcHduZWQ9MQ=='))>",
    "<noscript><p title=\"</noscript><img src=x onerror=window.__pwned=1>\">",
    "<template><script>window.__pwned=1</script></template>",
    "<textarea></textarea><script>window.__pwned=1</script>",
    "<x onclick=window.__pwned=1>click me</x>",
    "data:text/html,<script>window.__pwned=1</script>",
    "\\\"-window.__pwned=1-\\\"",
    "<img\nsrc=x\tonerror=window.__pwned=1>",
    "%3Cscript%3Ewindow.__pwned=1%3C/script%3E",
    "&lt;script&gt;window.__pwned=1&lt;/script&gt;",
    "<div style=\"background:url(javascript:window.__pwned=1)\">",
];

/// A 2×1 PNG: a green pixel and a blue one.
pub const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x7b, 0x40, 0xe8,
    0xdd, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0x00, 0x04,
    0xff, 0x01, 0x07, 0x00, 0x01, 0xff, 0xe2, 0x23, 0x9e, 0x59, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Media that must never be shown, only offered for download: an SVG and an HTML page that
/// would run script, and a MIME type that tries to break out of a `data:` URL.
pub const HOSTILE_MEDIA: [(&str, &str, &str); 3] = [
    (
        "vector",
        "image/svg+xml",
        "<svg xmlns='http://www.w3.org/2000/svg' onload='window.__pwned=1'><script>window.__pwned=1</script></svg>",
    ),
    ("page", "text/html", "<script>window.__pwned=1</script>"),
    (
        "breakout",
        "image/png;base64,AAAA\" onerror=\"window.__pwned=1",
        "<img src=x onerror=window.__pwned=1>",
    ),
];

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// `Some(paths)` when the browser is installed; `None` in the fast tier, and (after saying so)
/// when it is not installed and this is not CI. Under `CI=true` a missing browser fails the test.
pub fn browser() -> Option<(PathBuf, PathBuf)> {
    if !toolkit_testing::tier::needs("Chromium") {
        return None;
    }
    let chromium =
        std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from(CHROMIUM), PathBuf::from);
    let driver =
        std::env::var_os("CHROMEDRIVER").map_or_else(|| PathBuf::from(CHROMEDRIVER), PathBuf::from);
    if chromium.is_file() && driver.is_file() {
        return Some((chromium, driver));
    }
    let message = format!(
        "headless browser missing ({} and {} are needed; ./scripts/test installs them)",
        chromium.display(),
        driver.display()
    );
    toolkit_testing::tier::missing(&message);
    None
}

pub fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port")
}

pub fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
        PathBuf::from,
    );
    let dir = target.join("playground-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot folder");
    dir
}

/// The playground on a free port over the linked tools (builtins and this test binary's own),
/// the sample workspace, a fresh sample database and an audit copy at `full`.
pub struct Playground {
    pub url: String,
    pub audit: Arc<SqliteAudit>,
    pub folder: tempfile::TempDir,
    /// This launch's token, as the page receives it.
    pub token: String,
    pub port: u16,
}

impl Playground {
    /// An HTTP client that sends this launch's token, as the page does.
    pub fn client(&self) -> reqwest::Client {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            playground::guard::TOKEN_HEADER,
            self.token.parse().expect("a header value"),
        );
        reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .expect("client")
    }
}

pub async fn start_playground() -> Playground {
    start_playground_with(false, Privacy::Full).await
}

/// The playground as [`start_playground`] starts it, offering the writer tools when `writers`,
/// its audit copy at `privacy`. Its workspace is a copy of the sample workspace in the
/// playground's folder (`workspace`), so writers change nothing else.
pub async fn start_playground_with(writers: bool, privacy: Privacy) -> Playground {
    launch(writers, privacy, true, None, None).await
}

/// The playground offering the writers, with `policy` answering for calls before the operator
/// is asked (as `--auto-approve` sets it).
pub async fn start_playground_with_policy(policy: WritesUnder) -> Playground {
    launch(true, Privacy::Full, true, Some(policy), None).await
}

/// The playground as [`start_playground`] starts it, but keeping no audit copy: its `audit` is
/// opened beside it and stays empty.
pub async fn start_playground_unaudited() -> Playground {
    launch(false, Privacy::Full, false, None, None).await
}

/// The playground as [`start_playground`] starts it, its live loops asking `live`.
pub async fn start_playground_live(live: playground::defaults::LiveModel) -> Playground {
    launch(false, Privacy::Full, true, None, Some(live)).await
}

async fn launch(
    writers: bool,
    privacy: Privacy,
    audited: bool,
    policy: Option<WritesUnder>,
    live: Option<playground::defaults::LiveModel>,
) -> Playground {
    let folder = tempfile::tempdir().expect("temp dir");
    let database = folder.path().join("sample.db");
    toolkit_builtins::sample::create_sample_database(&database).expect("sample database");
    let workspace = folder.path().join("workspace");
    playground::defaults::copy_sample_workspace(&workspace).expect("a copy of the workspace");
    let context = ToolContext::new()
        .with_extension(toolkit_builtins::WorkspaceRoot::new(workspace))
        .with_extension(toolkit_builtins::Database::new(database));
    let audit =
        Arc::new(SqliteAudit::open(&folder.path().join("audit.sqlite3"), privacy).expect("audit"));
    let kept = audited.then(|| Arc::new(Audit::Sqlite(SqliteAudit::clone(&audit))));
    let registry = toolkit_builtins::registry().expect("no duplicates");
    let mut service = playground::defaults::service(registry, kept.as_ref(), false);
    let described = policy.as_ref().map(ToString::to_string);
    if let Some(policy) = policy {
        service = service.with_approval_policy(policy);
    }
    let state = AppState::over(Arc::new(service), context, kept, live)
        .with_writers(writers)
        .with_auto_approve(described);
    let token = state.token().to_owned();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("listen");
    let address = listener.local_addr().expect("address");
    tokio::spawn(playground::server::serve(listener, state));
    Playground {
        url: format!("http://{address}"),
        audit,
        folder,
        token,
        port: address.port(),
    }
}

/// chromedriver and one headless Chromium session.
pub struct Browser {
    http: reqwest::Client,
    base: String,
    session: String,
    driver: Child,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ends the session even when a test panicked before `quit`: chromedriver then closes
        // Chromium, which killing chromedriver alone would leave running.
        if !self.session.is_empty() {
            let address = self.base.trim_start_matches("http://").to_owned();
            if let Ok(mut stream) = std::net::TcpStream::connect(address) {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                let _ = write!(
                    stream,
                    "DELETE /session/{} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    self.session
                );
                let _ = std::io::Read::read_to_end(&mut stream, &mut Vec::new());
            }
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Browser {
    pub async fn start(chromium: &Path, driver: &Path) -> Browser {
        Self::start_with(chromium, driver, &[]).await
    }

    /// A browser started with `extra` command-line switches as well (a host resolver rule, a
    /// window size).
    pub async fn start_with(chromium: &Path, driver: &Path, extra: &[&str]) -> Browser {
        let port = free_port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let http = reqwest::Client::new();
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let ready = http.get(format!("{base}/status")).send().await;
            if let Ok(response) = ready
                && let Ok(status) = response.json::<Value>().await
                && status["value"]["ready"] == json!(true)
            {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "chromedriver did not become ready"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let profile = tempfile::tempdir().expect("profile dir");
        let mut args = vec![
            "--headless".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-quic".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            format!("--user-data-dir={}", profile.path().display()),
        ];
        if !extra.iter().any(|arg| arg.starts_with("--window-size=")) {
            args.push("--window-size=1400,1000".to_owned());
        }
        args.extend(extra.iter().map(|arg| (*arg).to_owned()));
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium.to_string_lossy(),
                "args": args,
            },
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let mut browser = Browser {
            http,
            base,
            session: String::new(),
            driver: child,
            _profile: profile,
        };
        let created = browser.post("/session", &capabilities).await;
        created["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {created}"))
            .clone_into(&mut browser.session);
        browser
    }

    async fn post(&self, path: &str, body: &Value) -> Value {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .json(body)
            .send()
            .await
            .expect("webdriver answers");
        let value: Value = response.json().await.expect("webdriver JSON");
        if let Some(error) = value["value"].get("error") {
            panic!("webdriver {path}: {error}: {}", value["value"]["message"]);
        }
        value["value"].clone()
    }

    pub async fn goto(&self, url: &str) {
        self.post(
            &format!("/session/{}/url", self.session),
            &json!({"url": url}),
        )
        .await;
    }

    /// Runs `script` (a function body; `arguments` holds `args`) in the page and returns its value.
    pub async fn execute(&self, script: &str, args: Value) -> Value {
        self.post(
            &format!("/session/{}/execute/sync", self.session),
            &json!({"script": script, "args": args}),
        )
        .await
    }

    /// Waits until `script` returns something truthy; returns it.
    pub async fn wait_for(&self, what: &str, script: &str, args: Value) -> Value {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let value = self.execute(script, args.clone()).await;
            if !(value.is_null()
                || value == json!(false)
                || value == json!("")
                || value == json!(0))
            {
                return value;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Makes the first frame matching `selector` the one scripts run in, until
    /// [`leave_frame`](Self::leave_frame).
    pub async fn enter_frame(&self, selector: &str) {
        let found = self
            .post(
                &format!("/session/{}/element", self.session),
                &json!({"using": "css selector", "value": selector}),
            )
            .await;
        self.post(
            &format!("/session/{}/frame", self.session),
            &json!({"id": found}),
        )
        .await;
    }

    /// Makes the parent of the current frame the one scripts run in.
    pub async fn leave_frame(&self) {
        self.post(
            &format!("/session/{}/frame/parent", self.session),
            &json!({}),
        )
        .await;
    }

    /// Sends a Chrome `DevTools` command (media emulation, say) through `chromedriver`.
    pub async fn cdp(&self, command: &str, params: Value) -> Value {
        self.post(
            &format!("/session/{}/goog/cdp/execute", self.session),
            &json!({"cmd": command, "params": params}),
        )
        .await
    }

    /// Sets the window's size.
    pub async fn resize(&self, width: u32, height: u32) {
        self.post(
            &format!("/session/{}/window/rect", self.session),
            &json!({"width": width, "height": height}),
        )
        .await;
    }

    /// Sets an input's or textarea's value as typing would, firing `input` and `change`.
    pub async fn fill(&self, selector: &str, value: &str) {
        let filled = self
            .execute(
                "const node = document.querySelector(arguments[0]); if (!node) return false; \
                 node.value = arguments[1]; \
                 node.dispatchEvent(new Event('input', {bubbles: true})); \
                 node.dispatchEvent(new Event('change', {bubbles: true})); return true;",
                json!([selector, value]),
            )
            .await;
        assert_eq!(filled, json!(true), "nothing to fill at {selector}");
    }

    /// Opens a page of the playground and waits until its script has loaded what it shows.
    pub async fn open(&self, url: &str) {
        self.goto(url).await;
        self.wait_for(
            "the page",
            "return document.body.dataset.ready === 'true';",
            json!([]),
        )
        .await;
    }

    /// The text of the first element matching `selector`.
    pub async fn text(&self, selector: &str) -> Value {
        self.execute(
            "return document.querySelector(arguments[0]).textContent;",
            json!([selector]),
        )
        .await
    }

    /// Waits until the first element matching `selector` says `text`.
    pub async fn wait_text(&self, selector: &str, text: &str) {
        self.wait_for(
            &format!("{selector} to say {text}"),
            "const node = document.querySelector(arguments[0]); return node !== null && node.textContent === arguments[1];",
            json!([selector, text]),
        )
        .await;
    }

    /// Clicks the first element matching `selector` (through the DOM, as a user's click would).
    pub async fn click(&self, selector: &str) {
        let clicked = self
            .execute(
                "const node = document.querySelector(arguments[0]); if (!node) return false; node.click(); return true;",
                json!([selector]),
            )
            .await;
        assert_eq!(clicked, json!(true), "nothing to click at {selector}");
    }

    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let data = self
            .http
            .get(format!("{}/session/{}/screenshot", self.base, self.session))
            .send()
            .await
            .expect("screenshot")
            .json::<Value>()
            .await
            .expect("screenshot JSON");
        let png = base64::engine::general_purpose::STANDARD
            .decode(data["value"].as_str().expect("base64 PNG"))
            .expect("PNG bytes");
        let path = screenshot_dir().join(name);
        std::fs::write(&path, png).expect("write screenshot");
        path
    }

    /// A screenshot of the whole of the first element matching `selector`, however much of it
    /// is out of view (`DevTools`' capture beyond the viewport).
    pub async fn screenshot_of(&self, selector: &str, name: &str) -> PathBuf {
        let rect = self
            .execute(
                "const r = document.querySelector(arguments[0]).getBoundingClientRect(); \
                 return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height, scale: 1};",
                json!([selector]),
            )
            .await;
        let shot = self
            .cdp(
                "Page.captureScreenshot",
                json!({"format": "png", "captureBeyondViewport": true, "clip": rect}),
            )
            .await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().expect("base64 PNG"))
            .expect("PNG bytes");
        let path = screenshot_dir().join(name);
        std::fs::write(&path, png).expect("write screenshot");
        path
    }

    /// The browser console's entries since the last call (chromedriver's log endpoint).
    pub async fn console(&self) -> Vec<Value> {
        let value = self
            .post(
                &format!("/session/{}/se/log", self.session),
                &json!({"type": "browser"}),
            )
            .await;
        value.as_array().cloned().unwrap_or_default()
    }

    pub async fn quit(mut self) {
        let _ = self
            .http
            .delete(format!("{}/session/{}", self.base, self.session))
            .send()
            .await;
        self.session.clear();
    }
}

/// Speaks MCP over stdio to `playground mcp` (newline-delimited JSON-RPC, as a host would) with
/// its audit copy at `audit`, calls `tool` without arguments, and returns the reply. The server
/// has exited, its audit writes done, when this returns.
pub fn call_over_mcp(audit: &Path, data: &Path, tool: &str) -> Value {
    call_over_mcp_with(audit, data, tool, &[])
}

/// [`call_over_mcp`] with more arguments for `playground mcp`.
pub fn call_over_mcp_with(audit: &Path, data: &Path, tool: &str, extra: &[&Path]) -> Value {
    use std::io::{BufRead, BufReader};

    let mut child = Command::new(env!("CARGO_BIN_EXE_playground"))
        .args(["mcp", "--privacy", "full", "--audit"])
        .arg(audit)
        .args(extra)
        .env("XDG_DATA_HOME", data)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("playground mcp starts");
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

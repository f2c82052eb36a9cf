//! A minimal W3C `WebDriver` client over `chromedriver`, driving one headless Chromium session:
//! the playground's browser tests and the tests that check what its pages show of calls served
//! by `toolkit-mcp` share it.

use std::io::Write as _;
use std::net::TcpListener as StdListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

/// Where Chromium is looked for, unless `CHROMIUM` names another path.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// Where chromedriver is looked for, unless `CHROMEDRIVER` names another path.
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// `Some(paths)` when the browser is installed; `None` in the fast tier, and (after saying so)
/// when it is not installed and this is not CI. Under `CI=true` a missing browser fails the test.
pub fn browser() -> Option<(PathBuf, PathBuf)> {
    if !crate::tier::needs("Chromium") {
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
    crate::tier::missing(&message);
    None
}

/// A port on 127.0.0.1 that nothing listened on a moment ago.
pub fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port")
}

/// Where screenshots go: `target/playground-screenshots` (made if need be).
pub fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
        PathBuf::from,
    );
    let dir = target.join("playground-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot folder");
    dir
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
    /// chromedriver on a free port, and a headless Chromium session in a profile of its own.
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

    /// Navigates to `url`.
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

    /// A screenshot of the viewport, written to `name` in [`screenshot_dir`]: its path.
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

    /// Ends the session (Chromium closes) and, as it drops, chromedriver.
    pub async fn quit(mut self) {
        let _ = self
            .http
            .delete(format!("{}/session/{}", self.base, self.session))
            .send()
            .await;
        self.session.clear();
    }
}

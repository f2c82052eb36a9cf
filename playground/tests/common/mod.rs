//! What the browser tests share: the playground server started in-process on a free port, the
//! corpora its pages must show as text, and (from `toolkit_testing::browser`) the `WebDriver`
//! client over `chromedriver`.

#![allow(dead_code)] // each test binary uses a different part

use std::sync::Arc;

use playground::server::AppState;
use toolkit::ToolContext;
use toolkit_audit::{Audit, Privacy, SqliteAudit};
use toolkit_builtins::policies::WritesUnder;
#[allow(unused_imports)] // as for the rest: each test binary uses a different part
pub use toolkit_testing::browser::{Browser, browser, free_port};

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

/// Waits until the runs page has loaded the run it shows.
pub async fn run_loaded(browser: &Browser) {
    browser
        .wait_for(
            "the run",
            "return document.getElementById('run-title').dataset.loaded;",
            serde_json::json!([]),
        )
        .await;
}

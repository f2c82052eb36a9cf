//! What the interoperability tests share: the Python interpreter with the official MCP SDK that
//! `scripts/test` installs, its client script, and how to read what the client saw. Each test
//! target uses part of it.

use std::ffi::OsStr;
use std::io::{BufRead as _, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::venv;

/// The interpreter with `mcp` importable; `None` (after saying why) when it is missing, except
/// under `CI=true`, where a missing interpreter fails the test.
pub fn python() -> Option<PathBuf> {
    venv::python_importing("import mcp.server.mcpserver", |python| {
        format!(
            "the Python MCP SDK is not installed at {}; run scripts/test, which creates it",
            python.display()
        )
    })
}

/// Starts the `toolkit-mcp` binary (`binary`, a test's `CARGO_BIN_EXE_toolkit-mcp`) serving
/// streamable HTTP on `port` with `arguments`, and returns once it says it serves; what it writes
/// later is read and dropped. The caller kills it.
pub fn serve_http<A: AsRef<OsStr>>(
    binary: &Path,
    port: u16,
    arguments: impl IntoIterator<Item = A>,
) -> Child {
    let mut child = Command::new(binary)
        .args([OsStr::new("--http"), OsStr::new(&port.to_string())])
        .args(arguments)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut lines = BufReader::new(child.stderr.take().expect("piped")).lines();
    let serving = lines
        .by_ref()
        .map_while(Result::ok)
        .any(|line| line.starts_with("toolkit-mcp: serving on "));
    assert!(serving, "toolkit-mcp serves on port {port}");
    std::thread::spawn(move || lines.for_each(drop));
    child
}

/// A script of `toolkit-mcp/tests/python`.
pub fn script(name: &str) -> PathBuf {
    workspace_root().join("toolkit-mcp/tests/python").join(name)
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `client.py` with these arguments and calls; gives its JSON output and its raw stdout.
pub fn run_client(python: &Path, arguments: &[&str], calls: &Value) -> (Value, String) {
    run_script(python, "client.py", arguments, calls)
}

/// Runs the client script `name` with these arguments, `input` on its stdin; gives its JSON
/// output and its raw stdout.
pub fn run_script(python: &Path, name: &str, arguments: &[&str], input: &Value) -> (Value, String) {
    let mut child = Command::new(python)
        .arg(script(name))
        .args(arguments)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the Python client");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.to_string().as_bytes())
        .expect("send the input");
    let output = child.wait_with_output().expect("the Python client ends");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    assert!(output.status.success(), "client failed: {stdout}");
    let parsed = serde_json::from_str(&stdout).expect("client prints JSON");
    (parsed, stdout)
}

/// The reply to one call as the Python client saw it: exactly one text block, nothing else.
pub fn reply(output: &Value, index: usize) -> (String, bool) {
    let call = &output["calls"][index];
    assert_eq!(
        call["structured_content"],
        Value::Null,
        "call {index}: {call}"
    );
    assert_eq!(call["meta"], Value::Null, "call {index}: {call}");
    let content = call["content"].as_array().expect("content blocks");
    assert_eq!(content.len(), 1, "call {index}: {call}");
    assert_eq!(content[0]["type"], "text", "call {index}: {call}");
    assert_eq!(
        content[0].as_object().map(serde_json::Map::len),
        Some(2),
        "only type and text: {call}"
    );
    (
        content[0]["text"].as_str().expect("text").to_owned(),
        call["is_error"].as_bool().expect("is_error"),
    )
}

/// Whether `needle` occurs in `haystack`.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// A path for a scratch file of this test process.
pub fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("toolkit-mcp-{}-{name}", std::process::id()))
}

/// What a 2026-07-28 request carries in its `_meta`: the revision, the client's capabilities
/// and who it is.
pub fn modern_meta(capabilities: &Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "toolkit-tests", "version": "1"},
    })
}

/// POSTs one JSON-RPC message with these headers, as an MCP client does over streamable HTTP:
/// the status, the session id the server gave (if any), and the JSON-RPC answer from the body
/// (plain JSON, else the body as a string, or the `data:` of an event). `Err` when no HTTP
/// answer came, or an event's data is not JSON.
pub async fn post(
    client: &reqwest::Client,
    url: &str,
    headers: &[(&str, &str)],
    message: &Value,
) -> Result<(u16, Option<String>, Value), String> {
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(message.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.map_err(|error| error.to_string())?;
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let body = response.text().await.map_err(|error| error.to_string())?;
    let event = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| !data.is_empty());
    let answer = match event {
        Some(data) => serde_json::from_str(data)
            .map_err(|error| format!("an event's data is not JSON ({error}): {data}"))?,
        None => serde_json::from_str(&body).unwrap_or(Value::String(body)),
    };
    Ok((status, session, answer))
}

/// A 2026-07-28 `tools/call` of `name` (`params` holds its `arguments`; the name and the `_meta`
/// with `capabilities` are added): the result the server answered, or why there is none.
pub async fn call_tool(
    client: &reqwest::Client,
    url: &str,
    name: &str,
    params: Value,
    capabilities: &Value,
) -> Result<Value, String> {
    let mut params = params;
    params["name"] = json!(name);
    params["_meta"] = modern_meta(capabilities);
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", name),
    ];
    let (status, _, answer) = post(client, url, &headers, &message).await?;
    match answer.get("result") {
        Some(result) if status == 200 => Ok(result.clone()),
        _ => Err(format!("HTTP {status}: {answer}")),
    }
}

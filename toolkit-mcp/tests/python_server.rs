//! Our MCP client against a server on the official Python MCP SDK, inside a scripted run.

use serde_json::json;
use toolkit::provider::ScriptedProvider;
use toolkit::{RunRequest, ToolLoopService, ToolRegistry, recording::Termination};
use toolkit_mcp::{McpServerConfig, add_mcp_tools};
use toolkit_testing::mcp;

fn python_server(python: &std::path::Path) -> McpServerConfig {
    McpServerConfig::command(
        "py",
        python.to_str().expect("UTF-8 path"),
        [mcp::script("server.py").to_str().expect("UTF-8 path")],
    )
}

/// What the model reads of `picture`: its caption, after the note of the image set aside.
const PICTURE: &str = "a red square";

/// The server offers `dotted.name`: a name MCP allows and providers do not.
fn dotted_warning(server: &str) -> String {
    format!(
        "MCP server \"{server}\": tool \"dotted.name\" is dropped: '.' is not allowed in a tool name; use A-Z, a-z, 0-9, `_` and `-`."
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_server_tools_run_in_the_loop_and_its_death_is_a_clean_error() {
    let Some(python) = mcp::python() else {
        return;
    };
    let mut registry = toolkit_builtins::registry().expect("no duplicates");
    let builtins = registry.len();
    let added = add_mcp_tools(
        &mut registry,
        &[
            python_server(&python),
            McpServerConfig::command("gone", "/nonexistent/mcp-server", ["--stdio"]),
        ],
    )
    .await;

    assert_eq!(added.added(), ["shout", "picture", "fail", "die"]);
    let calculate_place = registry
        .get("calculate")
        .expect("the builtin")
        .spec()
        .place()
        .to_owned();
    assert_eq!(
        added.warnings(),
        [
            format!(
                "MCP server \"py\": tool \"calculate\" is dropped: a tool of that name is already registered (defined at {calculate_place})."
            ),
            dotted_warning("py"),
            "MCP server \"gone\" is not available: cannot start `/nonexistent/mcp-server`: No such file or directory (os error 2); it adds no tools.".to_owned(),
        ]
    );
    // The SDK's server answers `server/discover`: no session, every request self-contained.
    assert_eq!(
        added.revisions(),
        [("py".to_owned(), "2026-07-28".to_owned())]
    );
    assert_eq!(registry.len(), builtins + 4);
    let shout = registry.get("shout").expect("added").spec();
    assert!(shout.flags().remote());
    assert_eq!(shout.group(), "mcp:py");
    assert_eq!(shout.description(), "Upper-cases a text.");
    assert_eq!(shout.input_schema()["required"], json!(["text"]));

    let script = json!({"turns": [
        {"tool_calls": [
            {"name": "shout", "arguments": {"text": "hello"}},
            {"name": "picture"},
            {"name": "fail", "arguments": {"reason": "no"}},
            {"name": "shout", "arguments_raw": "[1]"},
        ]},
        {"tool_calls": [{"name": "die"}]},
        {"tool_calls": [
            {"name": "shout", "arguments": {"text": "anyone?"}},
            {"name": "calculate", "arguments": {"expression": "6 * 7"}},
        ]},
        {"content": "The server is gone."},
    ]})
    .to_string();
    let provider = ScriptedProvider::from_json(&script).expect("a valid script");
    let service = ToolLoopService::new(registry);
    let options = toolkit::RunOptions::default().with_max_iterations(6);
    let result = service
        .run(
            &provider,
            RunRequest::new("Use the Python tools.").with_options(options),
        )
        .await
        .expect("the run ends");

    assert_eq!(result.termination, Termination::Answered);
    assert_eq!(result.content, "The server is gone.");
    let calls: Vec<(&str, &str, bool)> = result
        .trace
        .invocations()
        .map(|call| (call.name(), call.content(), call.is_error()))
        .collect();
    assert_eq!(
        calls,
        [
            ("shout", "HELLO!", false),
            ("picture", PICTURE, false),
            ("fail", "Error executing tool fail: refused: no", true),
            (
                "shout",
                "Error: invalid arguments for tool \"shout\": expected a JSON object, found an array.",
                true
            ),
            (
                "die",
                "Error: MCP server \"py\" is not available: Transport closed.",
                true
            ),
            (
                "shout",
                "Error: MCP server \"py\" is not available: Transport closed.",
                true
            ),
            // Only the dead server's tools are gone.
            ("calculate", "6 * 7 = 42", false),
        ]
    );
    assert_the_image_reached_the_model(&result);
}

/// The picture's image reached the model as media, after its caption; no artifact was made.
fn assert_the_image_reached_the_model(result: &toolkit::ToolLoopResult) {
    let picture = result
        .trace
        .invocations()
        .find(|call| call.name() == "picture")
        .expect("the picture call");
    assert!(picture.artifacts().is_empty());
    let shown: Vec<(&str, &str)> = picture
        .wire()
        .media()
        .iter()
        .map(|part| (part.mime_type(), part.base64()))
        .collect();
    assert_eq!(shown, [("image/png", "iVBORw0KGgo=")]);
    // The messages name it by type and size; the bytes go only to the wire.
    let sent = serde_json::to_value(&result.messages).expect("JSON");
    let message = sent
        .as_array()
        .expect("a list")
        .iter()
        .find(|message| message["content"] == PICTURE)
        .expect("the picture's result");
    assert_eq!(
        message["media"],
        json!([{"mime_type": "image/png", "bytes": 8}])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_tools_count_against_the_run_budget_of_remote_calls() {
    let Some(python) = mcp::python() else {
        return;
    };
    let mut registry = ToolRegistry::new();
    let added = add_mcp_tools(&mut registry, &[python_server(&python)]).await;
    assert_eq!(
        added.added(),
        ["shout", "picture", "fail", "calculate", "die"]
    );
    assert_eq!(added.warnings(), [dotted_warning("py")]);
    let script = json!({"turns": [
        {"tool_calls": [{"name": "shout", "arguments": {"text": "one"}}]},
        {"tool_calls": [{"name": "shout", "arguments": {"text": "two"}}]},
        {"content": "done"},
    ]})
    .to_string();
    let provider = ScriptedProvider::from_json(&script).expect("a valid script");
    let service = ToolLoopService::new(registry);
    let options = toolkit::RunOptions::default().with_remote_budget(1);
    let result = service
        .run(
            &provider,
            RunRequest::new("Shout twice.").with_options(options),
        )
        .await
        .expect("the run ends");
    let contents: Vec<&str> = result
        .trace
        .invocations()
        .map(toolkit::recording::ToolInvocation::content)
        .collect();
    assert_eq!(
        contents,
        [
            "ONE!",
            "Error: this run has used its budget of 1 calls to external tools; \"shout\" was not called.",
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_server_over_streamable_http_joins_by_url() {
    let Some(python) = mcp::python() else {
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let mut server = tokio::process::Command::new(&python)
        .arg(mcp::script("server.py"))
        .args(["http", &port.to_string()])
        .stderr(std::process::Stdio::null()) // uvicorn's access log
        .kill_on_drop(true)
        .spawn()
        .expect("start the Python server");
    let started = std::time::Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "the server listens"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    let mut registry = ToolRegistry::new();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let added = add_mcp_tools(&mut registry, &[McpServerConfig::url("pyhttp", url)]).await;
    assert_eq!(added.warnings(), [dotted_warning("pyhttp")]);
    assert_eq!(
        added.revisions(),
        [("pyhttp".to_owned(), "2026-07-28".to_owned())]
    );
    assert_eq!(
        added.added(),
        ["shout", "picture", "fail", "calculate", "die"]
    );
    let service = ToolLoopService::new(registry);
    let scope = service.scope(toolkit::ToolContext::new()).unwrap();
    let shout = service.invoke(&scope, "shout", r#"{"text": "far"}"#).await;
    assert_eq!(shout.content(), "FAR!");
    let picture = service.invoke(&scope, "picture", "{}").await;
    assert_eq!(picture.content(), PICTURE);
    let shown = &picture.wire().media()[0];
    assert_eq!(
        (shown.mime_type(), shown.base64()),
        ("image/png", "iVBORw0KGgo=")
    );
    assert!(picture.artifacts().is_empty());
    assert!(!picture.is_error());
    let _ = server.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_server_discover_gets_the_initialize_handshake() {
    let Some(python) = mcp::python() else {
        return;
    };
    let mut registry = ToolRegistry::new();
    let added = add_mcp_tools(
        &mut registry,
        &[McpServerConfig::command(
            "legacy",
            python.to_str().expect("UTF-8 path"),
            [mcp::script("legacy_server.py")
                .to_str()
                .expect("UTF-8 path")],
        )],
    )
    .await;
    assert_eq!(added.warnings(), [] as [String; 0]);
    assert_eq!(
        added.revisions(),
        [("legacy".to_owned(), "2025-11-25".to_owned())]
    );
    assert_eq!(added.added(), ["legacy_echo"]);
    let script = json!({"turns": [
        {"tool_calls": [{"name": "legacy_echo", "arguments": {"text": "still here"}}]},
        {"content": "done"},
    ]})
    .to_string();
    let provider = ScriptedProvider::from_json(&script).expect("a valid script");
    let result = ToolLoopService::new(registry)
        .run(&provider, RunRequest::new("Echo."))
        .await
        .expect("the run ends");
    let calls: Vec<(&str, &str, bool)> = result
        .trace
        .invocations()
        .map(|call| (call.name(), call.content(), call.is_error()))
        .collect();
    assert_eq!(calls, [("legacy_echo", "legacy: still here", false)]);
}

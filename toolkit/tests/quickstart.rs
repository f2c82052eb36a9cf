//! The README's quickstart works as a new user meets it: its dependency lines and its program,
//! copied unchanged into a new crate outside the workspace (the dependencies by path, as the
//! README says until the crates are published), build, and the program runs both ways: a call
//! and a loop against a local OpenAI-compatible stand-in, and an MCP server on stdio.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use toolkit::{Table, ToolArtifact};
use toolkit_testing::http::Server;

/// The first fenced block of `kind` after the heading `heading`, as written.
fn block<'a>(readme: &'a str, heading: &str, kind: &str) -> &'a str {
    let section = &readme[readme.find(heading).expect("the heading")..];
    let fence = format!("```{kind}\n");
    let start = section.find(&fence).expect("the block") + fence.len();
    let end = start + section[start..].find("\n```").expect("the block's end") + 1;
    &section[start..end]
}

/// The README's dependency lines, each toolkit crate given by path into this workspace.
fn manifest(readme: &str, workspace: &Path) -> String {
    let mut dependencies = String::new();
    for line in block(readme, "## Add it", "toml").lines() {
        let line = match line.split_once(" = \"0.1\"") {
            Some((name, "")) if name.starts_with("toolkit") => {
                format!(
                    "{name} = {{ path = \"{}\" }}",
                    workspace.join(name).display()
                )
            }
            _ => line.to_owned(),
        };
        dependencies.push_str(&line);
        dependencies.push('\n');
    }
    format!(
        "[package]\nname = \"quickstart\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
         {dependencies}\n[workspace]\n"
    )
}

/// Builds the quickstart crate in `dir` and gives its binary.
fn build(dir: &Path, workspace: &Path) -> PathBuf {
    let readme = std::fs::read_to_string(workspace.join("README.md")).expect("the README");
    std::fs::create_dir_all(dir.join("src")).expect("a source folder");
    std::fs::write(dir.join("Cargo.toml"), manifest(&readme, workspace)).expect("Cargo.toml");
    let program = block(&readme, "## A first tool", "rust,no_run");
    std::fs::write(dir.join("src/main.rs"), program).expect("main.rs");
    // The workspace's versions of every crate, so that the build reuses what is downloaded.
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).expect("Cargo.lock");
    // A target folder of its own, kept between runs (the workspace's is locked by this test's
    // own `cargo test`).
    let target = workspace.join("target/quickstart");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .args(["build", "--offline", "--quiet"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the quickstart crate builds");
    target.join("debug/quickstart")
}

/// A Chat Completions answer: text, or one call of `count_words`.
fn turn(content: Option<&str>, call: Option<&str>) -> (u16, Vec<(&'static str, String)>, Value) {
    let calls = call.map(|text| {
        json!([{"id": "call_1", "type": "function", "function": {
            "name": "count_words", "arguments": json!({"text": text}).to_string()}}])
    });
    let message = json!({"role": "assistant", "content": content, "tool_calls": calls});
    let finish = if call.is_some() { "tool_calls" } else { "stop" };
    (
        200,
        Vec::new(),
        json!({"choices": [{"index": 0, "message": message, "finish_reason": finish}],
               "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
    )
}

/// What a person sees of the quickstart's table, as toolkit prints it.
fn words_table(text: &str) -> String {
    let table =
        Table::from_rows(["word"], text.split_whitespace().map(|word| [word])).expect("one column");
    ToolArtifact::table("Words", table).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_quickstart_builds_in_a_new_crate_and_runs_as_the_readme_says() {
    if !toolkit_testing::tier::needs("a build of a new crate outside the workspace (minutes)") {
        return;
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf();
    let dir = tempfile::tempdir().expect("a folder outside the workspace");
    let binary = {
        let (dir, workspace) = (dir.path().to_path_buf(), workspace.clone());
        tokio::task::spawn_blocking(move || build(&dir, &workspace))
            .await
            .expect("the build")
    };

    // `cargo run`: the call, then a loop against the stand-in.
    let server = Server::start(vec![
        turn(None, Some("to be or not to be")),
        turn(Some("There are 6 words."), None),
    ])
    .await;
    let url = format!("{}/v1", server.url);
    let run = {
        let binary = binary.clone();
        tokio::task::spawn_blocking(move || {
            Command::new(binary)
                .env("OPENAI_BASE_URL", url)
                .env_remove("OPENAI_API_KEY")
                .output()
                .expect("the quickstart runs")
        })
        .await
        .expect("the run")
    };
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        stdout,
        format!(
            "the model reads: 6 words\npeople see:\n{}\nthe model answers: There are 6 words.\n",
            words_table("to be or not to be")
        )
    );
    // The model was sent the tool's content, never its table.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let second: Value = serde_json::from_slice(&requests[1].body).expect("JSON");
    assert_eq!(second["model"], "llama3.2");
    assert_eq!(second["messages"][2]["content"], "6 words");
    assert!(!String::from_utf8_lossy(&requests[1].body).contains("Words"));

    // `cargo run -- mcp`: an MCP server on stdio.
    let reply = tokio::task::spawn_blocking(move || call_over_mcp(&binary))
        .await
        .expect("the MCP session");
    assert_eq!(
        reply["result"]["content"],
        json!([{"type": "text", "text": "6 words"}])
    );
    assert_eq!(reply["result"]["isError"], false);
    assert!(!reply.to_string().contains("Words"), "{reply}");
}

/// Initializes an MCP session with `binary mcp` and calls `count_words`; gives the call's reply.
fn call_over_mcp(binary: &Path) -> Value {
    let mut server = Command::new(binary)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the MCP server starts");
    let mut input = server.stdin.take().expect("stdin");
    let mut output = BufReader::new(server.stdout.take().expect("stdout"));
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "quickstart-test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "count_words", "arguments": {"text": "to be or not to be"}}}),
    ];
    for message in messages {
        writeln!(input, "{message}").expect("a request");
    }
    input.flush().expect("sent");
    let reply = loop {
        let mut line = String::new();
        assert_ne!(
            output.read_line(&mut line).expect("a reply"),
            0,
            "the server ended"
        );
        let message: Value = serde_json::from_str(&line).expect("JSON-RPC");
        if message["id"] == 2 {
            break message;
        }
    };
    // Closing stdin ends the session, and the program with it.
    drop(input);
    assert!(server.wait().expect("the server ends").success());
    reply
}

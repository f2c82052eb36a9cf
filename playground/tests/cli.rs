//! The command line: one clear line and a non-zero exit for every misuse; `list` and `call` print
//! what the registry and the seam give.

use std::process::{Command, Output};

fn playground(args: &[&str]) -> (Output, String, String) {
    let data = tempfile::tempdir().expect("temp dir");
    let output = Command::new(env!("CARGO_BIN_EXE_playground"))
        .args(args)
        .env("XDG_DATA_HOME", data.path())
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output, stdout, stderr)
}

#[test]
fn misuse_gives_one_line_and_a_non_zero_exit() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["run", "/nonexistent/script.json"],
            "error: cannot read /nonexistent/script.json: No such file or directory (os error 2)\n",
        ),
        (
            &["--bogus"],
            "error: unexpected argument '--bogus' found (see playground --help)\n",
        ),
        (
            &["call", "nope", "{}"],
            "error: unknown tool \"nope\" (playground list shows the tools)\n",
        ),
        (
            &["call", "text_stats", "{bad"],
            "error: the arguments are not JSON: key must be a string at line 1 column 2\n",
        ),
        (
            &["serve", "--privacy", "all"],
            "error: invalid value 'all' for '--privacy <PRIVACY>': unknown privacy level \"all\": expected metadata, redacted or full (see playground --help)\n",
        ),
    ];
    for (args, expected) in cases {
        let (output, stdout, stderr) = playground(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr, expected, "{args:?}");
        assert_eq!(stdout, "", "{args:?}");
    }
}

#[test]
fn list_prints_every_tool_and_the_count() {
    let (output, stdout, _) = playground(&["list"]);
    assert!(output.status.success());
    let count = toolkit_builtins::registry().expect("registry").len();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), count + 1);
    assert_eq!(lines[count], format!("{count} tools"));
    let write_file = lines
        .iter()
        .find(|line| line.starts_with("write_file "))
        .expect("write_file listed");
    assert!(
        write_file.ends_with(
            "  writers     Writes a text file in the workspace.  requires_approval,not_enabled_by_default"
        ),
        "{write_file}"
    );
    let uuid = lines
        .iter()
        .find(|line| line.starts_with("uuid "))
        .expect("uuid listed");
    assert!(
        uuid.ends_with(
            "  utility     Generates UUIDs, one a line: version 4 (random) or 7 (time-ordered)."
        ),
        "{uuid}"
    );
}

#[test]
fn describe_shows_the_description_schema_and_every_export() {
    let (output, stdout, stderr) = playground(&["describe", "uuid"]);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stdout.starts_with("uuid (utility)\nGenerates UUIDs"),
        "{stdout}"
    );
    for heading in [
        "\n== input schema\n{",
        "\n== OpenAI\n{",
        "\n== OpenAI, strict\n{",
        "\n== Anthropic\n{",
        "\n== Gemini\n{",
    ] {
        assert!(stdout.contains(heading), "{heading} in {stdout}");
    }
    assert!(stdout.contains("\"strict\": true"), "{stdout}");
    let (output, _, stderr) = playground(&["describe", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr,
        "error: unknown tool \"nope\" (playground list shows the tools)\n"
    );
}

#[test]
fn call_prints_the_wire_content_then_the_artifacts_apart() {
    let (output, stdout, stderr) = playground(&["call", "list_tables", "{}"]);
    assert!(output.status.success(), "{stderr}");
    let (wire, artifacts) = stdout
        .split_once("== artifacts (run-only, never sent to the model): 1\n")
        .expect("two parts");
    assert!(
        wire.starts_with("== wire content (what the model sees), "),
        "{wire}"
    );
    assert!(
        wire.contains("\nThe database has 4 tables and 1 view:"),
        "{wire}"
    );
    assert!(artifacts.starts_with("-- "), "{artifacts}");
    assert!(artifacts.contains("| customers "), "{artifacts}");
    assert!(artifacts.ends_with(" rows)\n"), "{artifacts}");
}

#[test]
fn a_writer_call_is_refused_with_the_reason_and_how_to_run_it() {
    let (output, stdout, stderr) =
        playground(&["call", "write_file", r#"{"path": "x", "content": "y"}"#]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "error: \"write_file\" changes files or records, so it is not offered: ask for it in a \
         loop: playground run --writers; each call waits for your approval\n"
    );
}

#[test]
fn a_missing_argument_is_named_and_errors_carry_their_cause_once() {
    let (output, stdout, stderr) = playground(&["call"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "error: the following required arguments were not provided: <NAME> (see playground --help)\n"
    );
    // Nothing listens on port 9: the cause is said, once.
    let (output, stdout, stderr) =
        playground(&["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout.contains("\n== provider_error\n"), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: cannot reach the provider: ")
            && stderr.contains("Connection refused"),
        "{stderr}"
    );
}

#[test]
fn arguments_come_from_a_file_or_stdin_whatever_their_size() {
    let folder = tempfile::tempdir().expect("temp dir");
    // Larger than one command-line argument may be (128 KiB on Linux).
    let text = "word ".repeat(60_000);
    let path = folder.path().join("args.json");
    std::fs::write(&path, serde_json::json!({"text": text}).to_string()).expect("written");
    let (output, stdout, stderr) =
        playground(&["call", "text_stats", &format!("@{}", path.display())]);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stdout.contains("\nlines: 1, words: 60000, characters: 300000, bytes: 300000"),
        "{stdout}"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_playground"))
        .args(["call", "text_stats", "-"])
        .env("XDG_DATA_HOME", folder.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    std::io::Write::write_all(
        &mut child.stdin.take().expect("stdin"),
        br#"{"text": "one two"}"#,
    )
    .expect("written");
    let output = child.wait_with_output().expect("ends");
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("\nlines: 1, words: 2, characters: 7, bytes: 7"),
        "{stdout}"
    );
    // Durations read as milliseconds, counts agree with their nouns.
    let head = stdout.lines().next().expect("a first line");
    assert!(
        head.starts_with("== wire content (what the model sees), ") && head.ends_with(" ms"),
        "{head}"
    );
}

/// Runs the playground with its data folder in `data`: its exit code, standard output and
/// standard error.
fn playground_in(data: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
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

/// A script whose model writes a file (which waits for approval) and measures a text.
const WRITER_SCRIPT: &str = r#"{"turns": [
  {"content": "I write the note.", "tool_calls": [
    {"id": "w1", "name": "write_file", "arguments": {"path": "notes/from-cli.txt", "content": "approved text"}},
    {"id": "s1", "name": "text_stats", "arguments": {"text": "a b"}}
  ]},
  {"content": "Written."}
]}"#;

#[test]
fn a_run_with_writers_suspends_and_resume_in_another_process_runs_the_approved_call_once() {
    let data = tempfile::tempdir().expect("temp dir");
    let script = data.path().join("script.json");
    std::fs::write(&script, WRITER_SCRIPT).expect("written");
    let script = script.to_string_lossy().into_owned();
    let run = |args: &[&str]| playground_in(data.path(), args);
    let (code, stdout, stderr) = run(&["run", "--writers", &script]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.starts_with("run run_"), "{stdout}");
    assert!(
        stdout.contains(
            "\n== suspended: 1 call waits for your approval\n  w1  write_file  {\"content\":\"approved text\",\"path\":\"notes/from-cli.txt\"}\ntoken: "
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("[2] tool text_stats: lines: 1, words: 2"),
        "{stdout}"
    );
    let token = stdout
        .lines()
        .find_map(|line| line.strip_prefix("token: "))
        .expect("a token line")
        .to_owned();
    let written = data
        .path()
        .join("toolkit-playground/workspace/notes/from-cli.txt");
    assert!(!written.exists());

    let (code, stdout, stderr) = run(&["resume", &token, "--approve", "w1", "--script", &script]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("[5] tool write_file: Wrote 13 bytes to \"notes/from-cli.txt\"."),
        "{stdout}"
    );
    assert!(stdout.ends_with("\n== answered\nWritten.\n"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&written).expect("written"),
        "approved text"
    );
    // The sample workspace the playground was built from is untouched.
    assert!(
        !toolkit_builtins::files::sample_workspace()
            .join("notes/from-cli.txt")
            .exists()
    );

    let (code, _, stderr) = run(&["resume", &token, "--approve", "w1", "--script", &script]);
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        "error: the token was already used: a suspended run resumes once\n"
    );
    let (code, _, stderr) = run(&["resume", &format!("{token}x"), "--deny", "w1"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with("error: the token does not open: "),
        "{stderr}"
    );
}

/// The adversary's turn: an append and a delete of the README that share one id.
const SHARED_ID_SCRIPT: &str = r#"{"turns": [
  {"tool_calls": [
    {"id": "w1", "name": "append_file", "arguments": {"path": "notes/log.txt", "content": "kept\n"}},
    {"id": "w1", "name": "delete_path", "arguments": {"path": "README.md"}}
  ]},
  {"content": "Done."}
]}"#;

/// Two writer calls that share the model's id wait as two (`w1` and `toolkit_1_1`); approving
/// `w1` and denying `toolkit_1_1` runs the append only, and the README stays (before, approving
/// `w1` ran both and deleted it).
#[test]
fn approving_one_of_two_calls_that_share_an_id_runs_that_one_only() {
    let data = tempfile::tempdir().expect("temp dir");
    let script = data.path().join("script.json");
    std::fs::write(&script, SHARED_ID_SCRIPT).expect("written");
    let script = script.to_string_lossy().into_owned();
    let run = |args: &[&str]| playground_in(data.path(), args);
    let (code, stdout, stderr) = run(&["run", "--writers", &script]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains(
            "\n== suspended: 2 calls wait for your approval\n  w1  append_file  {\"content\":\"kept\\n\",\"path\":\"notes/log.txt\"}\n  toolkit_1_1  delete_path  {\"path\":\"README.md\"}\ntoken: "
        ),
        "{stdout}"
    );
    let token = stdout
        .lines()
        .find_map(|line| line.strip_prefix("token: "))
        .expect("a token line")
        .to_owned();
    let workspace = data.path().join("toolkit-playground/workspace");
    let (code, stdout, stderr) = run(&[
        "resume",
        &token,
        "--approve",
        "w1",
        "--deny",
        "toolkit_1_1",
        "--script",
        &script,
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains(
            "tool delete_path failed: Error: tool \"delete_path\" was denied by the operator."
        ) && stdout.contains("tool append_file: Appended 5 bytes to \"notes/log.txt\""),
        "{stdout}"
    );
    assert!(
        workspace.join("README.md").exists(),
        "the README was deleted"
    );
    assert!(
        std::fs::read_to_string(workspace.join("notes/log.txt"))
            .expect("the appended file")
            .ends_with("kept\n")
    );
}

#[test]
fn run_plays_the_embedded_script_with_a_line_per_step() {
    let (output, stdout, stderr) = playground(&["run"]);
    assert!(output.status.success(), "{stderr}");
    let mut heads: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.split_once(':').map(|(head, _)| head))
        .take(13)
        .collect();
    // The two calls of the second turn run at once, each printed as it finishes.
    heads[6..8].sort_unstable();
    // Each model step's text as it came, then the step.
    assert_eq!(
        heads,
        [
            "[0] request",
            "[1] model",
            "[1] llm",
            "[2] tool list_tables",
            "[3] model",
            "[3] llm",
            "[4] tool read_records",
            "[5] tool query_sql",
            "[6] model",
            "[6] llm",
            "[7] tool text_stats",
            "[8] model",
            "[8] llm"
        ]
    );
    assert!(
        stdout.contains("\n[3] model calls read_records\n[3] model calls query_sql\n[3] llm: "),
        "{stdout}"
    );
    assert!(stdout.contains("\n== answered\n"), "{stdout}");
}

#[test]
fn an_audit_url_that_cannot_be_reached_is_reported_without_its_password() {
    // Nothing listens on port 1. The password in the user part, then in the query.
    for (url, shown) in [
        (
            "postgres://toolkit:hunter2-secret@127.0.0.1:1/audit",
            "postgres://toolkit:[REDACTED]@127.0.0.1:1/audit",
        ),
        (
            "postgres://toolkit@127.0.0.1:1/audit?password=hunter2-secret",
            "postgres://toolkit@127.0.0.1:1/audit?password=[REDACTED]",
        ),
    ] {
        let (output, stdout, stderr) = playground(&["run", "--audit", url]);
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(stdout, "");
        assert_eq!(
            stderr,
            format!(
                "error: audit copy: error connecting to server: Connection refused (os error 111) \
                 ({shown})\n"
            )
        );
    }
    // A bad --otlp is a usage error, said before the database is tried.
    let (output, _, stderr) = playground(&[
        "run",
        "--audit",
        "postgres://toolkit@127.0.0.1:1/audit",
        "--otlp",
        "not a url",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr,
        "error: --otlp not a url: OTLP export: invalid exporter configuration: endpoint: \
         invalid endpoint 'not a url/v1/traces': invalid uri character\n"
    );
}

/// A turn of three writer calls, then a second append: the operator edits the first, denies
/// the second with a reason and approves appending for the rest of the run.
const STEERED_SCRIPT: &str = r#"{"turns": [
  {"tool_calls": [
    {"id": "w1", "name": "write_file", "arguments": {"path": "notes/steered.txt", "content": "the model's text"}},
    {"id": "w2", "name": "delete_path", "arguments": {"path": "README.md"}},
    {"id": "w3", "name": "append_file", "arguments": {"path": "notes/log.txt", "content": "one\n"}}
  ]},
  {"tool_calls": [
    {"id": "w4", "name": "append_file", "arguments": {"path": "notes/log.txt", "content": "two\n"}}
  ]},
  {"content": "Done."}
]}"#;

/// The token line of a suspended run's output.
fn token_of(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|line| line.strip_prefix("token: "))
        .expect("a token line")
        .to_owned()
}

#[test]
fn resume_flags_deny_with_a_reason_edit_and_approve_a_tool_for_the_run() {
    let data = tempfile::tempdir().expect("temp dir");
    let script = data.path().join("script.json");
    std::fs::write(&script, STEERED_SCRIPT).expect("written");
    let script = script.to_string_lossy().into_owned();
    let run = |args: &[&str]| playground_in(data.path(), args);
    let (code, stdout, stderr) = run(&["run", "--writers", &script]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("go on with: playground resume TOKEN --approve w1 (or --deny w1[=REASON], --edit w1=JSON, --approve-for-run w1; or --abort)"),
        "{stdout}"
    );
    let token = token_of(&stdout);
    let workspace = data.path().join("toolkit-playground/workspace");

    // An edit the tool refuses leaves the token unspent.
    let (code, stdout, stderr) = run(&[
        "resume",
        &token,
        "--edit",
        r#"w1={"path": 3}"#,
        "--script",
        &script,
    ]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stderr.starts_with("error: the edit of call \"w1\" is refused: Error: invalid arguments for tool \"write_file\" at \"path\": invalid type: integer `3`, expected a string"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["resume", &token, "--edit", "w1", "--script", &script]);
    assert_eq!(
        (code, stderr.as_str()),
        (
            Some(2),
            "error: --edit \"w1\": expected CALL_ID=JSON (or CALL_ID=@FILE)\n"
        )
    );

    let edited = data.path().join("edited.json");
    std::fs::write(
        &edited,
        r#"{"path": "notes/steered.txt", "content": "the operator's text"}"#,
    )
    .expect("written");
    let (code, stdout, stderr) = run(&[
        "resume",
        &token,
        "--edit",
        &format!("w1=@{}", edited.display()),
        "--deny",
        "w2=Keep the README: it is the project's front page.",
        "--approve-for-run",
        "w3",
        "--script",
        &script,
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    for line in [
        "\n  w1  write_file  edited: {\"content\":\"the model's text\",\"path\":\"notes/steered.txt\"} -> {\"path\": \"notes/steered.txt\", \"content\": \"the operator's text\"}\n",
        "\n  w2  delete_path  denied: Keep the README: it is the project's front page.\n",
        "\n  w3  append_file  approved_for_run\n",
        "tool delete_path failed: Keep the README: it is the project's front page. |",
        "] decided:\n  w4  append_file  approved (approved for the run)\n",
    ] {
        assert!(stdout.contains(line), "{line} in {stdout}");
    }
    assert!(stdout.ends_with("\n== answered\nDone.\n"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(workspace.join("notes/steered.txt")).expect("written"),
        "the operator's text"
    );
    assert!(workspace.join("README.md").exists());
    assert!(
        std::fs::read_to_string(workspace.join("notes/log.txt"))
            .expect("appended")
            .ends_with("one\ntwo\n")
    );
}

/// A write in the notes and one of the README.
const POLICY_SCRIPT: &str = r#"{"turns": [
  {"tool_calls": [
    {"id": "w1", "name": "write_file", "arguments": {"path": "notes/auto.txt", "content": "by rule"}},
    {"id": "w2", "name": "write_file", "arguments": {"path": "README.md", "content": "gone", "overwrite": true}}
  ]},
  {"content": "Done."}
]}"#;

#[test]
fn auto_approve_lets_writes_under_a_folder_run_and_abort_stops_the_rest() {
    let data = tempfile::tempdir().expect("temp dir");
    let script = data.path().join("script.json");
    std::fs::write(&script, POLICY_SCRIPT).expect("written");
    let script = script.to_string_lossy().into_owned();
    let run = |args: &[&str]| playground_in(data.path(), args);

    let (code, _, stderr) = run(&["run", "--writers", "--auto-approve", "notes", &script]);
    assert_eq!(
        (code, stderr.as_str()),
        (
            Some(2),
            "error: --auto-approve \"notes\": expected writes-under:FOLDER[,FOLDER...] (file writes beneath these workspace folders run without a question)\n"
        )
    );
    let (code, _, stderr) = run(&[
        "run",
        "--writers",
        "--auto-approve",
        "writes-under:../x",
        &script,
    ]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with(
            "error: --auto-approve: the folder \"../x\" is not one inside the workspace"
        ),
        "{stderr}"
    );

    let (code, stdout, stderr) = run(&[
        "run",
        "--writers",
        "--auto-approve",
        "writes-under:notes,drafts",
        &script,
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("] decided:\n  w1  write_file  approved by policy writes-under: write_file: notes/auto.txt is under notes/\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n== suspended: 1 call waits for your approval\n  w2  write_file  "),
        "{stdout}"
    );
    let workspace = data.path().join("toolkit-playground/workspace");
    assert_eq!(
        std::fs::read_to_string(workspace.join("notes/auto.txt")).expect("written by rule"),
        "by rule"
    );
    let readme = std::fs::read_to_string(workspace.join("README.md")).expect("the README");

    let token = token_of(&stdout);
    let (code, stdout, stderr) = run(&["resume", &token, "--abort", "--approve", "w2"]);
    assert_eq!(code, Some(2), "{stdout}");
    assert!(
        stderr.contains("'--abort' cannot be used with '--approve <CALL_ID>'"),
        "{stderr}"
    );
    let (code, stdout, stderr) = run(&["resume", &token, "--abort", "--script", &script]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("] resumed:\n  w2  write_file  aborted\n")
            && stdout.ends_with("\n== aborted\n"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(workspace.join("README.md")).expect("the README"),
        readme
    );
    let (code, _, stderr) = run(&["resume", &token, "--approve", "w2", "--script", &script]);
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        "error: the token was already used: a suspended run resumes once\n"
    );
}

/// `playground run --provider NAME --base-url URL` against a local server speaking that wire,
/// streaming and not (`--no-stream`), with its key from the wire's variable.
fn run_live(wire: &str, streamed: bool) -> (Output, String, String, Vec<String>) {
    use toolkit_testing::http::{Reply, Server};
    use toolkit_testing::streams::{Call, Turn, Wire};
    let kind = match wire {
        "openai-chat" => Wire::OpenAiChat,
        "openai-responses" => Wire::OpenAiResponses,
        "anthropic" => Wire::Anthropic,
        _ => Wire::Gemini,
    };
    let turns = [
        Turn::calls(
            "Listing the tables — ✓",
            vec![Call::new("call_1", "list_tables", &serde_json::json!({}))],
        ),
        Turn::text("There are 3 tables."),
    ];
    let replies = turns
        .iter()
        .map(|turn| {
            if streamed {
                Reply::stream(&turn.streamed(kind, 3), 9)
            } else {
                Reply::Json((200, Vec::new(), turn.whole(kind)))
            }
        })
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let server = runtime.block_on(Server::start_replies(replies));
    let base_url = match kind {
        Wire::OpenAiChat | Wire::OpenAiResponses => format!("{}/v1", server.url),
        _ => server.url.clone(),
    };
    let data = tempfile::tempdir().expect("temp dir");
    let mut args = vec![
        "run",
        "--provider",
        wire,
        "--base-url",
        &base_url,
        "--model",
        "test-model",
    ];
    if !streamed {
        args.push("--no-stream");
    }
    let output = Command::new(env!("CARGO_BIN_EXE_playground"))
        .args(&args)
        .env("XDG_DATA_HOME", data.path())
        .env("ANTHROPIC_API_KEY", "test-key-anthropic")
        .env("GEMINI_API_KEY", "test-key-gemini")
        .output()
        .expect("runs");
    let lines = server
        .requests()
        .iter()
        .map(|request| request.head.lines().next().unwrap_or_default().to_owned())
        .collect();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output, stdout, stderr, lines)
}

#[test]
fn a_live_run_prints_the_models_text_as_it_streams_on_every_wire() {
    for wire in ["openai-chat", "openai-responses", "anthropic", "gemini"] {
        let (output, stdout, stderr, requests) = run_live(wire, true);
        assert!(output.status.success(), "{wire}: {stderr}\n{stdout}");
        let lines: Vec<&str> = stdout.lines().collect();
        // The run id, the request, the first answer as it streamed, its call, its summary...
        assert!(lines[0].starts_with("run "), "{stdout}");
        assert!(
            lines[1].starts_with("[0] request: ") && lines[1].ends_with(" tools offered"),
            "{wire}: {}",
            lines[1]
        );
        assert_eq!(lines[2], "[1] model: Listing the tables — ✓", "{wire}");
        assert_eq!(lines[3], "[1] model calls list_tables", "{wire}");
        assert!(
            lines[4].starts_with("[1] llm: 1 tool call ("),
            "{wire}: {}",
            lines[4]
        );
        assert!(
            lines[4].ends_with(", 13 in / 5 out tokens)"),
            "{wire}: {}",
            lines[4]
        );
        assert!(
            lines[5].starts_with("[2] tool list_tables: "),
            "{wire}: {}",
            lines[5]
        );
        // ...the answer as it streamed, and the answer.
        assert_eq!(lines[6], "[3] model: There are 3 tables.", "{wire}");
        assert!(lines[7].starts_with("[3] llm: 0 tool calls ("), "{wire}");
        assert_eq!(lines[8..], ["== answered", "There are 3 tables."], "{wire}");
        assert_eq!(requests.len(), 2);
        if wire == "gemini" {
            assert!(
                requests[0]
                    .starts_with("POST /v1beta/models/test-model:streamGenerateContent?alt=sse "),
                "{}",
                requests[0]
            );
        }
    }
}

#[test]
fn with_no_stream_a_live_run_asks_for_whole_answers_and_prints_no_text_as_it_comes() {
    for wire in ["openai-chat", "openai-responses", "anthropic", "gemini"] {
        let (output, stdout, stderr, requests) = run_live(wire, false);
        assert!(output.status.success(), "{wire}: {stderr}\n{stdout}");
        assert!(!stdout.contains("model:"), "{wire}: {stdout}");
        assert!(
            stdout.ends_with("== answered\nThere are 3 tables.\n"),
            "{stdout}"
        );
        if wire == "gemini" {
            assert!(
                requests[0].starts_with("POST /v1beta/models/test-model:generateContent "),
                "{}",
                requests[0]
            );
        }
    }
}

#[test]
fn a_live_model_is_named_by_a_provider_or_a_base_url_and_excludes_a_script() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["run", "--provider", "mistral"],
            "error: invalid value 'mistral' for '--provider <NAME>': unknown provider \"mistral\": expected openai-chat, openai-responses, anthropic or gemini (see playground --help)\n",
        ),
        (
            &["run", "--model", "gpt-4o"],
            "error: --model names the model of a live server: give --provider or --base-url too\n",
        ),
        (
            &["run", "script.json", "--provider", "openai-chat"],
            "error: a script and a live model (--provider, --base-url) exclude each other\n",
        ),
        (
            &["serve", "--model", "gpt-4o"],
            "error: --model names the model of a live server: give --provider or --base-url too\n",
        ),
    ];
    for (args, expected) in cases {
        let (output, stdout, stderr) = playground(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr, expected, "{args:?}");
        assert_eq!(stdout, "", "{args:?}");
    }
}

/// A model that edits `notes/plan.txt`, replacing `old` with `new`.
fn edit_script(old: &str, new: &str) -> String {
    serde_json::json!({"turns": [
        {"tool_calls": [{"id": "w1", "name": "edit_file", "arguments": {
            "path": "notes/plan.txt", "edits": [{"old_text": old, "new_text": new}]}}]},
        {"content": "Edited."}
    ]})
    .to_string()
}

/// A data folder whose workspace holds `notes/plan.txt` with `text`, and the path of that file.
fn workspace_with_plan(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let data = tempfile::tempdir().expect("temp dir");
    let quiet = data.path().join("quiet.json");
    std::fs::write(&quiet, r#"{"turns": [{"content": "nothing"}]}"#).expect("written");
    let (code, _, stderr) = playground_in(data.path(), &["run", &quiet.to_string_lossy()]);
    assert_eq!(code, Some(0), "{stderr}");
    let plan = data
        .path()
        .join("toolkit-playground/workspace/notes/plan.txt");
    std::fs::write(&plan, text).expect("written");
    (data, plan)
}

#[test]
fn an_approval_runs_only_what_the_preview_showed_and_a_changed_file_asks_again() {
    let (data, plan) = workspace_with_plan("x = 1\n");
    let script = data.path().join("script.json");
    std::fs::write(&script, edit_script("1", "2")).expect("written");
    let script = script.to_string_lossy().into_owned();
    let run = |args: &[&str]| playground_in(data.path(), args);
    let (code, stdout, stderr) = run(&["run", "--writers", &script]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("\n    -x = 1\n    +x = 2\n"), "{stdout}");

    // Another writer changes the file while the operator reads; they approve what they saw.
    std::fs::write(&plan, "allow_all = 1\n").expect("written");
    let (code, stdout, stderr) = run(&[
        "resume",
        &token_of(&stdout),
        "--approve",
        "w1",
        "--script",
        &script,
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains(
            "[4] decided:\n  w1  edit_file  preview_changed: what it would do changed after it was \
             shown, so it did not run\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n    -allow_all = 1\n    +allow_all = 2\n"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(&plan).expect("read"),
        "allow_all = 1\n"
    );

    // Refused as it is now shown: nothing ever ran.
    let (code, stdout, stderr) = run(&[
        "resume",
        &token_of(&stdout),
        "--deny",
        "w1",
        "--script",
        &script,
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.ends_with("\n== answered\nEdited.\n"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&plan).expect("read"),
        "allow_all = 1\n"
    );
}

#[test]
fn a_suspension_writes_out_every_hidden_character_of_the_arguments_and_the_preview() {
    let (data, _) = workspace_with_plan("one\ntwo\n");
    let script = data.path().join("script.json");
    std::fs::write(&script, edit_script("two", "t\u{202e}ow")).expect("written");
    let (code, stdout, stderr) = playground_in(
        data.path(),
        &["run", "--writers", &script.to_string_lossy()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains(&format!(
            "== suspended: 1 call waits for your approval\n  {}\n  w1  edit_file  \
             {{\"edits\":[{{\"new_text\":\"t⟨U+202E⟩ow\",\"old_text\":\"two\"}}],\"path\":\"notes/plan.txt\"}}\n",
            toolkit::approval::HIDDEN_WARNING
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n    -two\n    +t⟨U+202E⟩ow\n"),
        "{stdout}"
    );
    assert!(!stdout.contains('\u{202e}'), "{stdout}");
}

/// A run whose model asks the person through `ask_user`.
const ASK_SCRIPT: &str = r#"{"turns": [
  {"tool_calls": [{"id": "q1", "name": "ask_user", "arguments": {"question": "Which table?"}}]},
  {"content": "Using it."}
]}"#;

#[test]
fn a_tools_question_suspends_the_run_and_resume_answers_it() {
    let data = tempfile::tempdir().expect("a data folder");
    let script = data.path().join("ask.json");
    std::fs::write(&script, ASK_SCRIPT).expect("written");
    let script = script.to_string_lossy().into_owned();
    let run = |args: &[&str]| playground_in(data.path(), args);
    let (code, stdout, stderr) = run(&["run", &script]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains(
            "\n== suspended: 1 call waits for your answers\n  q1  ask_user  {\"question\":\"Which table?\"}\n  q1 asks (answer): Which table?\n    answer with the fields {\"properties\":{\"answer\":{\"description\":\"Your answer.\",\"type\":\"string\"}},\"required\":[\"answer\"],\"type\":\"object\"}\ntoken: "
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "\nanswer with: playground resume TOKEN --answer q1='{\"answer\": {..fields..}}' (or --deny q1 to decline)\n"
        ),
        "{stdout}"
    );
    let token = token_of(&stdout);

    // An answer that is not a JSON object is refused before anything is spent.
    let (code, _, stderr) = run(&[
        "resume",
        &token,
        "--answer",
        "q1=orders",
        "--script",
        &script,
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: --answer q1: expected a JSON object of each question's key and the fields of its answer: "),
        "{stderr}"
    );

    let answer = r#"q1={"answer": {"answer": "orders"}}"#;
    let (code, stdout, stderr) = run(&["resume", &token, "--answer", answer, "--script", &script]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("tool ask_user: orders"), "{stdout}");
    assert!(stdout.ends_with("\n== answered\nUsing it.\n"), "{stdout}");
}

//! The shipped `toolkit-mcp` binary under the official Python MCP SDK's client over stdio: it
//! lists the builtins a single call may use and answers exactly as the seam does in process.

use serde_json::{Value, json};
use toolkit::{ToolContext, ToolLoopService};
use toolkit_builtins::{DATABASE_TOOLS, WorkspaceRoot};
use toolkit_testing::mcp::{python, reply, run_client, temp_path};
use toolkit_testing::postgres;

#[test]
fn the_binary_lists_the_builtins_and_answers_as_the_seam_does() {
    let Some(python) = python() else {
        return;
    };
    let raw_log = temp_path("cli-raw.log");
    let calls = json!([
        {"name": "calculate", "arguments": {"expression": "2 + 3 * 4"}},
        {"name": "list_directory", "arguments": {"path": "notes"}},
        {"name": "no_such_tool", "arguments": {}},
        {"name": "write_file", "arguments": {"path": "x.txt", "content": "y"}},
        {"name": "read_file", "arguments": {"path": "logs/app.log", "from_line": 7, "lines": 3}},
    ]);
    let (output, _) = run_client(
        &python,
        &[
            "stdio",
            raw_log.to_str().expect("UTF-8 path"),
            env!("CARGO_BIN_EXE_toolkit-mcp"),
        ],
        &calls,
    );
    let _ = std::fs::remove_file(&raw_log);

    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicates"));
    let context = ToolContext::new().with_extension(WorkspaceRoot::new(
        toolkit_builtins::files::sample_workspace(),
    ));
    let scope = service.scope(context).unwrap();
    let expected: Vec<Value> = scope
        .offered()
        .filter_map(|name| service.registry().get(name))
        .filter(|tool| !tool.spec().flags().requires_approval())
        // No --database: the record tools would only say that none is configured.
        .filter(|tool| !DATABASE_TOOLS.contains(&tool.spec().name()))
        .map(|tool| {
            let spec = tool.spec();
            json!({"name": spec.name(), "description": spec.description(), "input_schema": toolkit_mcp::portable(spec.input_schema())})
        })
        .collect();
    assert_eq!(output["tools"], Value::Array(expected));

    assert_eq!(reply(&output, 0), ("2 + 3 * 4 = 14".to_owned(), false));
    assert_eq!(
        reply(&output, 2),
        ("Error: unknown tool \"no_such_tool\"".to_owned(), true)
    );
    assert_eq!(
        reply(&output, 3),
        ("Error: tool \"write_file\" not permitted".to_owned(), true)
    );
    // A host forwards replies to a model: secrets in what tools read are masked.
    assert_eq!(
        reply(&output, 4),
        (
            "\"logs/app.log\", lines 7-9 of 12:\n\
             7: 2024-05-02 09:00:10 DEBUG retrying with backoff 2s\n\
             8: 2024-05-02 09:00:12 ERROR database connection failed: postgres://app:[REDACTED]@db.internal:5432/shop\n\
             9: 2024-05-02 09:00:15 WARN  config value password=[REDACTED] is a default"
                .to_owned(),
            false
        )
    );
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let listing =
        runtime.block_on(service.invoke(&scope, "list_directory", r#"{"path": "notes"}"#));
    assert_eq!(reply(&output, 1), (listing.content().to_owned(), false));
}

/// `toolkit-mcp ARGS`: its exit code, stdout and stderr.
fn toolkit_mcp(args: &[&str]) -> (Option<i32>, String, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolkit-mcp"))
        .args(args)
        .output()
        .expect("runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_task_tool_the_server_does_not_offer_stops_it_naming_the_tool() {
    // A writer is not offered as is (only to hosts that answer forms), so it cannot be a task.
    for tool in ["no_such_tool", "edit_file"] {
        let (code, _, stderr) = toolkit_mcp(&["--task", "git_log", "--task", tool]);
        assert_eq!(code, Some(1));
        assert_eq!(
            stderr,
            format!("toolkit-mcp: the server offers no tool \"{tool}\" to answer as a task\n")
        );
    }
}

#[test]
fn bad_arguments_are_usage_errors_that_say_what_to_give() {
    let otlp = "error: invalid value 'not a url' for '--otlp <URL>': OTLP export: invalid \
                exporter configuration: endpoint: invalid endpoint 'not a url/v1/traces': invalid \
                uri character (give an OTLP/HTTP receiver's URL, such as http://127.0.0.1:4318)";
    let cases: [(&[&str], &str); 11] = [
        (
            &["--http", "port"],
            "error: invalid value 'port' for '--http <PORT>': give a port number from 0 to 65535 \
             (0: any free port)",
        ),
        (
            &["--http", "65536"],
            "error: invalid value '65536' for '--http <PORT>': give a port number from 0 to 65535 \
             (0: any free port)",
        ),
        // Past a day it is refused, never held as a wait no clock can count.
        (
            &["--approval-timeout", "18446744073709551615"],
            "error: invalid value '18446744073709551615' for '--approval-timeout <SECONDS>': give \
             a number of seconds from 1 to 86400 (a day)",
        ),
        (
            &["--approval-timeout", "0"],
            "error: invalid value '0' for '--approval-timeout <SECONDS>': give a number of \
             seconds from 1 to 86400 (a day)",
        ),
        (
            &["--privacy", "all"],
            "error: invalid value 'all' for '--privacy <LEVEL>': unknown privacy level \"all\": \
             expected metadata, redacted or full",
        ),
        (
            &["--audit"],
            "error: a value is required for '--audit <FILE|URL>' but none was supplied",
        ),
        (
            &["--workspace", "/nonexistent/folder"],
            "error: invalid value '/nonexistent/folder' for '--workspace <DIR>': not a folder \
             (give an existing folder)",
        ),
        (
            &["--instance-id", " "],
            "error: invalid value ' ' for '--instance-id <ID>': give a name for this instance \
             (not blank)",
        ),
        (&["--bogus"], "error: unexpected argument '--bogus' found"),
        (&["--otlp", "not a url"], otlp),
        // Said before any connection is tried (nothing listens on port 1).
        (
            &[
                "--audit",
                "postgres://toolkit@127.0.0.1:1/audit",
                "--otlp",
                "not a url",
            ],
            otlp,
        ),
    ];
    for (args, first_line) in cases {
        let (code, stdout, stderr) = toolkit_mcp(args);
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(stdout, "", "{args:?}");
        assert_eq!(stderr.lines().next(), Some(first_line), "{args:?}");
        // Then where to read more.
        assert!(
            stderr.ends_with("\n\nFor more information, try '--help'.\n"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn help_shows_every_flag_with_an_example_and_whole_invocations() {
    let (code, help, stderr) = toolkit_mcp(&["--help"]);
    assert_eq!(code, Some(0));
    assert_eq!(stderr, "");
    assert!(
        help.starts_with(
            "Serves toolkit's builtin tools to MCP hosts, over stdio or streamable HTTP.\n"
        ),
        "{help}"
    );
    assert!(help.contains("\nUsage: toolkit-mcp [OPTIONS]\n"), "{help}");
    // Each flag's line, and the lines of its help below it.
    let mut flags: Vec<(&str, String)> = Vec::new();
    for line in help[..help.find("\nExamples:\n").expect("examples")].lines() {
        if line.starts_with("      --") || line.starts_with("  -") {
            flags.push((line.trim(), String::new()));
        } else if let Some((_, text)) = flags.last_mut()
            && line.starts_with("          ")
        {
            text.push_str(line.trim());
            text.push('\n');
        }
    }
    let examples = [
        ("--http <PORT>", "Example: --http 8080"),
        ("--workspace <DIR>", "Example: --workspace ~/projects/shop"),
        (
            "--database <FILE>",
            "Example: --database ~/projects/shop/shop.db",
        ),
        ("--playground", "Example: --playground"),
        (
            "--audit <FILE|URL>",
            "Example: --audit postgres://toolkit@127.0.0.1:5432/audit",
        ),
        ("--privacy <LEVEL>", "Example: --privacy redacted"),
        ("--otlp <URL>", "Example: --otlp http://127.0.0.1:4318"),
        ("--show-secrets", "Example: --show-secrets"),
        ("--writers", "Example: --writers"),
        (
            "--approval-timeout <SECONDS>",
            "Example: --approval-timeout 600",
        ),
        ("--task <TOOL>", "Example: --task git_log"),
        ("--instance-id <ID>", "Example: --instance-id mcp-1"),
        ("-h, --help", ""),
        ("-V, --version", ""),
    ];
    assert_eq!(
        flags.iter().map(|(flag, _)| *flag).collect::<Vec<_>>(),
        examples.map(|(flag, _)| flag),
        "{help}"
    );
    for ((flag, text), (_, example)) in flags.iter().zip(examples) {
        if !example.is_empty() {
            assert!(text.contains(&format!("\n{example}\n")), "{flag}: {text}");
        }
    }
    assert!(help.contains("[default: metadata]") && help.contains("[default: 300]"));
    let invocations = &help[help.find("\nExamples:\n").expect("examples")..];
    for invocation in [
        "\n  toolkit-mcp\n",
        "\n  toolkit-mcp --http 8080 --workspace ~/projects/shop --database ~/projects/shop/shop.db\n",
        "\n  toolkit-mcp --playground --writers\n",
        "\n  toolkit-mcp --http 8801 --audit postgres://toolkit@127.0.0.1:5432/audit --instance-id mcp-1\n",
    ] {
        assert!(
            invocations.contains(invocation),
            "{invocation:?} in {invocations}"
        );
    }
    // The short help (-h) shows the same flags and examples, without the longer description.
    let (code, short, _) = toolkit_mcp(&["-h"]);
    assert_eq!(code, Some(0));
    assert!(short.contains("Example: --approval-timeout 600") && short.contains("\nExamples:\n"));
    assert!(short.len() < help.len());
}

#[test]
fn calls_are_kept_in_a_postgres_audit_copy_given_on_the_command_line() {
    let (Some(python), Some(server)) = (python(), postgres::postgres()) else {
        return;
    };
    let url = server.database("toolkit_mcp");
    let raw_log = temp_path("cli-audit-raw.log");
    let calls = json!([{"name": "calculate", "arguments": {"expression": "6 * 7"}}]);
    let (output, _) = run_client(
        &python,
        &[
            "stdio",
            raw_log.to_str().expect("UTF-8 path"),
            env!("CARGO_BIN_EXE_toolkit-mcp"),
            "--audit",
            &url,
            "--privacy",
            "full",
        ],
        &calls,
    );
    let _ = std::fs::remove_file(&raw_log);
    assert_eq!(reply(&output, 0), ("6 * 7 = 42".to_owned(), false));
    let name = url.rsplit('/').next().expect("a database name");
    assert_eq!(
        server.psql(
            name,
            "SELECT runs.kind || ' ' || runs.title || ' ' || runs.privacy || ' ' || \
             convert_from(steps.content, 'UTF8') FROM runs JOIN steps USING (run_id)"
        ),
        Ok("call calculate full 6 * 7 = 42".to_owned())
    );
}

#[test]
fn a_workspace_and_a_database_given_on_the_command_line_are_the_tools_resources() {
    let Some(python) = python() else {
        return;
    };
    let folder = temp_path("resources");
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(folder.join("workspace")).expect("folder");
    std::fs::write(folder.join("workspace/only-here.txt"), "x").expect("file");
    let database = folder.join("shop.db");
    toolkit_builtins::sample::create_sample_database(&database).expect("sample database");
    let raw_log = folder.join("raw.log");
    let calls = json!([
        {"name": "list_directory", "arguments": {}},
        {"name": "count_records", "arguments": {"table": "customers"}},
    ]);
    let (output, _) = run_client(
        &python,
        &[
            "stdio",
            raw_log.to_str().expect("UTF-8 path"),
            env!("CARGO_BIN_EXE_toolkit-mcp"),
            "--workspace",
            folder.join("workspace").to_str().expect("UTF-8 path"),
            "--database",
            database.to_str().expect("UTF-8 path"),
        ],
        &calls,
    );
    let listed: Vec<&str> = output["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    for name in ["count_records", "query_sql", "list_tables"] {
        assert!(listed.contains(&name), "{name} in {listed:?}");
    }
    let (listing, is_error) = reply(&output, 0);
    assert!(!is_error);
    assert!(
        listing.contains("- only-here.txt (file, 1 byte)"),
        "{listing}"
    );
    assert_eq!(
        reply(&output, 1),
        ("\"customers\" has 12 rows.".to_owned(), false)
    );
    let _ = std::fs::remove_dir_all(&folder);

    // An audit copy that cannot be reached (nothing listens on port 1): said with its location,
    // the password masked.
    let unreachable = std::process::Command::new(env!("CARGO_BIN_EXE_toolkit-mcp"))
        .args([
            "--audit",
            "postgres://toolkit:hunter2-secret@127.0.0.1:1/audit",
        ])
        .output()
        .expect("runs");
    assert_eq!(unreachable.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&unreachable.stderr),
        "toolkit-mcp: audit copy: error connecting to server: Connection refused (os error 111) \
         (postgres://toolkit:[REDACTED]@127.0.0.1:1/audit)\n"
    );

    let (code, _, refused) = toolkit_mcp(&["--database", "/nonexistent/shop.db"]);
    assert_eq!(code, Some(2));
    assert!(
        refused.starts_with(
            "error: invalid value '/nonexistent/shop.db' for '--database <FILE>': no such file \
             (give an existing SQLite file)\n"
        ),
        "{refused}"
    );
}

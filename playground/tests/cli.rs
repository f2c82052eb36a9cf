//! The command line: one clear line and a non-zero exit for every misuse; `list` and `call` print
//! what the registry and the seam give.

use std::process::{Command, Output};

use toolkit_builtins as _;

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
    let count = toolkit::ToolRegistry::linked().expect("registry").len();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), count + 1);
    assert_eq!(lines[count], format!("{count} tools"));
    let write_file = lines
        .iter()
        .find(|line| line.starts_with("write_file "))
        .expect("write_file listed");
    assert!(
        write_file.ends_with("  writers     requires_approval,not_enabled_by_default"),
        "{write_file}"
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
fn a_refused_call_exits_non_zero_with_the_seam_error() {
    let (output, stdout, _) =
        playground(&["call", "write_file", r#"{"path": "x", "content": "y"}"#]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout.contains("\nError: tool \"write_file\" not permitted\n"),
        "{stdout}"
    );
}

#[test]
fn run_plays_the_embedded_script_with_a_line_per_step() {
    let (output, stdout, stderr) = playground(&["run"]);
    assert!(output.status.success(), "{stderr}");
    let mut heads: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.split_once(':').map(|(head, _)| head))
        .take(9)
        .collect();
    // The two calls of the second turn run at once, each printed as it finishes.
    heads[4..6].sort_unstable();
    assert_eq!(
        heads,
        [
            "[0] request",
            "[1] llm",
            "[2] tool list_tables",
            "[3] llm",
            "[4] tool read_records",
            "[5] tool query_sql",
            "[6] llm",
            "[7] tool text_stats",
            "[8] llm"
        ]
    );
    assert!(stdout.contains("\n== answered\n"), "{stdout}");
}

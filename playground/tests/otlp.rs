//! `--otlp URL`: a command's runs reach an OTLP receiver as spans before the command exits.

use std::process::Command;

use serde_json::json;
use toolkit_builtins as _;
use toolkit_testing::otlp;

#[test]
fn a_run_is_exported_before_the_command_exits() {
    let Some(python) = otlp::python() else {
        return;
    };
    let receiver = otlp::receiver(&python);
    let data = tempfile::tempdir().expect("temp dir");
    let output = Command::new(env!("CARGO_BIN_EXE_playground"))
        .args([
            "run",
            "--otlp",
            &format!("http://127.0.0.1:{}", receiver.port),
        ])
        .env("XDG_DATA_HOME", data.path())
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let run_id = stdout
        .lines()
        .find_map(|line| line.strip_prefix("run "))
        .expect("a run line");
    let spans = otlp::spans(&receiver);
    let (_, root) = spans
        .iter()
        .find(|(_, span)| span["name"] == json!("invoke_agent toolkit"))
        .expect("the run's span");
    assert_eq!(
        otlp::attributes(root)["gen_ai.conversation.id"],
        json!({"stringValue": run_id})
    );
    let mut children: Vec<String> = spans
        .iter()
        .filter(|(_, span)| span.get("parentSpanId") == Some(&root["spanId"]))
        .map(|(_, span)| span["name"].as_str().expect("a name").to_owned())
        .collect();
    children.sort();
    // A span for each model call and each tool call the command printed.
    let mut printed: Vec<String> = stdout
        .lines()
        .filter_map(|line| line.split_once("] ").map(|(_, step)| step))
        .filter_map(|step| {
            if step.starts_with("llm:") {
                Some("chat scripted".to_owned())
            } else {
                let name = step.strip_prefix("tool ")?.split(':').next()?;
                Some(format!("execute_tool {name}"))
            }
        })
        .collect();
    printed.sort();
    assert_eq!(children, printed);
    assert!(printed.len() >= 2, "{stdout}");
    assert_eq!(spans.len(), 1 + children.len());
}

#[test]
fn an_endpoint_that_is_not_a_url_is_refused_at_once() {
    let data = tempfile::tempdir().expect("temp dir");
    let output = Command::new(env!("CARGO_BIN_EXE_playground"))
        .args(["run", "--otlp", "not a url"])
        .env("XDG_DATA_HOME", data.path())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: --otlp not a url: OTLP export: invalid exporter configuration: endpoint: \
         invalid endpoint 'not a url/v1/traces': invalid uri character\n"
    );
}

//! What a tool reports while it runs reaches an MCP client as notifications, read by the official
//! Python SDK's client over streamable HTTP: `notifications/progress` for a call made with a
//! progress token, `notifications/message` at or above the level the client asked for (a
//! 2025-11-25 session's `logging/setLevel`, a 2026-07-28 request's `_meta` log level), each line
//! masked like content; nothing for a client that asked for neither, and never in the reply.

mod support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::seam::SecretFilter;
use toolkit::talk::LogLevel;
use toolkit::{ToolContext, ToolLoopService, ToolRegistry, tool};
use toolkit_testing::mcp::{python, reply, run_client};

/// Works in three steps, reporting each and logging at three levels.
#[tool]
async fn works(context: &ToolContext) -> String {
    context.log(LogLevel::Debug, "a detail");
    for step in 0..=3 {
        let message = match step {
            0 => "starting",
            3 => "done",
            _ => "",
        };
        context.progress(step, Some(3), message);
        if step < 3 {
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }
    context.log(LogLevel::Info, "worked");
    context.log(
        LogLevel::Warning,
        "connected with DB_PASSWORD=hunter2-Secret-77",
    );
    "worked in three steps".to_owned()
}

/// `works` served over HTTP with secrets masked: the endpoint's URL.
fn serve(runtime: &tokio::runtime::Runtime) -> String {
    let registry = ToolRegistry::linked().expect("no duplicate names");
    let service =
        Arc::new(ToolLoopService::new(registry).with_content_filter(Arc::new(SecretFilter)));
    support::serve(runtime, &service)
}

const PROGRESS: &str = r#"[[0.0,3.0,"starting"],[1.0,3.0,null],[2.0,3.0,null],[3.0,3.0,"done"]]"#;

fn logs(from: LogLevel) -> Value {
    let all = [
        json!(["debug", "works", "a detail"]),
        json!(["info", "works", "worked"]),
        json!(["warning", "works", "connected with DB_PASSWORD=[REDACTED]"]),
    ];
    let skip = match from {
        LogLevel::Debug => 0,
        LogLevel::Info => 1,
        _ => 2,
    };
    Value::Array(all[skip..].to_vec())
}

/// The call's reply, progress and log lines, as `client.py` in `mode` saw them.
fn called(python: &std::path::Path, url: &str, mode: &str, input: &Value) -> Vec<Value> {
    let (output, stdout) = run_client(python, &["http", url, mode], input);
    let calls = output["calls"].as_array().expect("the calls").len();
    (0..calls)
        .map(|index| {
            assert_eq!(
                reply(&output, index),
                ("worked in three steps".to_owned(), false)
            );
            let call = &output["calls"][index];
            json!({"progress": call["progress"], "logs": call["logs"]})
        })
        .inspect(|_| assert!(!stdout.contains("hunter2")))
        .collect()
}

#[test]
fn a_client_gets_the_progress_and_the_log_lines_it_asked_for_on_either_revision() {
    let Some(python) = python() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let url = serve(&runtime);
    let progress: Value = serde_json::from_str(PROGRESS).unwrap();
    for mode in ["2026-07-28", "legacy"] {
        // Nothing asked for: nothing sent.
        let quiet = called(
            &python,
            &url,
            mode,
            &json!([{"name": "works", "arguments": {}}]),
        );
        assert_eq!(quiet, [json!({"progress": [], "logs": []})], "{mode}");
        // Progress and every line from `debug`; then from `warning`, without progress.
        for (level, from) in [("debug", LogLevel::Debug), ("warning", LogLevel::Warning)] {
            let heard = called(
                &python,
                &url,
                mode,
                &json!({"log_level": level, "calls": [
                    {"name": "works", "arguments": {}, "progress": true},
                    {"name": "works", "arguments": {}},
                ]}),
            );
            assert_eq!(
                heard,
                [
                    json!({"progress": progress, "logs": logs(from)}),
                    json!({"progress": [], "logs": logs(from)}),
                ],
                "{mode}, from {level}"
            );
        }
    }
}

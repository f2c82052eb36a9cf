//! The audit copy as a recorder sink: what each privacy level keeps, exactly, from real runs and
//! calls; every finished step committed before it is shown; nothing of one run overwriting
//! another's.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use toolkit::provider::ScriptedProvider;
use toolkit::{
    RunEvent, RunRequest, Table, ToolArtifact, ToolCall, ToolContext, ToolLoopService,
    ToolRegistry, ToolResult, tool,
};
use toolkit_audit::{Privacy, SqliteAudit, StepRow};

/// Looks a person up, slowly.
#[tool]
async fn lookup(
    /// Their e-mail address.
    email: String,
) -> ToolResult {
    tokio::time::sleep(Duration::from_millis(12)).await;
    let table = Table::from_rows(
        ["who", "key"],
        [[email.as_str(), "sk-abcdefghijklmnopqrstuvwx1234"]],
    )
    .expect("two columns");
    ToolResult::text_with(
        format!("found {email} {}", "x".repeat(300)),
        [
            ToolArtifact::table("People", table),
            ToolArtifact::text("Note", "mail bob@example.org"),
        ],
    )
}

const SCRIPT: &str = r#"{"turns": [
    {"content": "looking", "tool_calls": [{"id": "call_1", "name": "lookup", "arguments_raw": "{\"email\": \"ada@example.com\"}"}]},
    {"content": "done"}
]}"#;

/// Runs the script into an audit copy at `privacy` and reads back the run and its tool step.
async fn keep(privacy: Privacy) -> (toolkit_audit::RunRow, StepRow) {
    let folder = tempfile::tempdir().expect("temp dir");
    let audit =
        Arc::new(SqliteAudit::open(&folder.path().join("a.sqlite3"), privacy).expect("open"));
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
        .with_sink(audit.clone());
    let provider = ScriptedProvider::from_json(SCRIPT).expect("script");
    let result = service
        .run(&provider, RunRequest::new("ask ada@example.com"))
        .await
        .expect("runs");
    let (run, steps) = audit
        .run(result.trace.run_id().as_str())
        .expect("read")
        .expect("the run");
    assert_eq!(run.privacy, privacy.as_str());
    assert_eq!(run.kind, "run");
    assert_eq!(run.termination.as_deref(), Some("answered"));
    let kinds: Vec<(i64, &str)> = steps.iter().map(|s| (s.index, s.kind.as_str())).collect();
    assert_eq!(kinds, [(0, "request"), (1, "llm"), (2, "tool"), (3, "llm")]);
    let step = steps[2].clone();
    assert_eq!(step.name.as_deref(), Some("lookup"));
    // The tool slept 12 ms on a paused clock: the recorder timed exactly that.
    assert_eq!(step.duration_ms, Some(12.0));
    assert_eq!(step.content_bytes, 322);
    assert_eq!(step.artifact_count, 2);
    assert_eq!(step.artifact_types, ["table", "text"]);
    match privacy {
        Privacy::Metadata => assert_eq!(run.title, None),
        Privacy::Redacted => assert_eq!(run.title.as_deref(), Some("ask [EMAIL]")),
        _ => assert_eq!(run.title.as_deref(), Some("ask ada@example.com")),
    }
    (run, step)
}

#[tokio::test(start_paused = true)]
async fn metadata_keeps_count_types_and_sizes_only() {
    let (_, step) = keep(Privacy::Metadata).await;
    assert_eq!(
        (step.arguments, step.content, step.artifacts),
        (None, None, None)
    );
}

#[tokio::test(start_paused = true)]
async fn redacted_masks_secrets_and_emails_and_caps_strings() {
    let (_, step) = keep(Privacy::Redacted).await;
    assert_eq!(step.arguments.as_deref(), Some(r#"{"email": "[EMAIL]"}"#));
    let content = step.content.expect("content kept");
    assert_eq!(content, format!("found [EMAIL] {}…[cut]", "x".repeat(186)));
    assert_eq!(
        step.artifacts,
        Some(json!([
            {"type": "table", "label": "People", "data": {"columns": ["who", "key"], "rows": [["[EMAIL]", "[REDACTED]"]]}},
            {"type": "text", "label": "Note", "data": {"text": "mail [EMAIL]"}},
        ]))
    );
}

#[tokio::test(start_paused = true)]
async fn full_keeps_everything() {
    let (_, step) = keep(Privacy::Full).await;
    assert_eq!(
        step.arguments.as_deref(),
        Some(r#"{"email": "ada@example.com"}"#)
    );
    assert_eq!(
        step.content.as_deref(),
        Some(format!("found ada@example.com {}", "x".repeat(300)).as_str())
    );
    assert_eq!(
        step.artifacts,
        Some(json!([
            {"type": "table", "label": "People", "data": {"columns": ["who", "key"], "rows": [["ada@example.com", "sk-abcdefghijklmnopqrstuvwx1234"]]}},
            {"type": "text", "label": "Note", "data": {"text": "mail bob@example.org"}},
        ]))
    );
}

#[test]
fn privacy_names_parse_and_others_are_refused() {
    assert_eq!("metadata".parse::<Privacy>(), Ok(Privacy::Metadata));
    assert_eq!("redacted".parse::<Privacy>(), Ok(Privacy::Redacted));
    assert_eq!("full".parse::<Privacy>(), Ok(Privacy::Full));
    assert_eq!(
        "all".parse::<Privacy>().map_err(|error| error.to_string()),
        Err("unknown privacy level \"all\": expected metadata, redacted or full".to_owned())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_step_is_in_the_file_before_a_subscriber_sees_it() {
    let folder = tempfile::tempdir().expect("temp dir");
    let path = folder.path().join("a.sqlite3");
    let audit = Arc::new(SqliteAudit::open(&path, Privacy::Full).expect("open"));
    let service = Arc::new(
        ToolLoopService::new(ToolRegistry::linked().expect("no duplicates")).with_sink(audit),
    );
    let mut events = service.subscribe();
    let reader = SqliteAudit::open(&path, Privacy::Full).expect("a second connection");
    let watcher = tokio::spawn(async move {
        let mut checked = 0;
        while let Ok(event) = events.recv().await {
            if let RunEvent::ToolInvoked { run_id, index, .. }
            | RunEvent::StepFinished { run_id, index, .. } = &*event
            {
                let (_, steps) = reader.run(run_id.as_str()).unwrap().expect("the run");
                let index = i64::try_from(*index).unwrap();
                assert!(
                    steps.iter().any(|step| step.index == index),
                    "step {index} shown before it was kept"
                );
                checked += 1;
            }
            if matches!(*event, RunEvent::Done { .. }) {
                return checked;
            }
        }
        checked
    });
    let provider = ScriptedProvider::from_json(SCRIPT).expect("script");
    service
        .run(&provider, RunRequest::new("ask"))
        .await
        .expect("runs");
    assert_eq!(watcher.await.expect("watcher"), 4);
}

#[tokio::test]
async fn two_services_on_one_file_keep_both_calls() {
    let folder = tempfile::tempdir().expect("temp dir");
    let path = folder.path().join("a.sqlite3");
    let mut ids = Vec::new();
    for _ in 0..2 {
        let audit = Arc::new(SqliteAudit::open(&path, Privacy::Metadata).expect("open"));
        let service =
            ToolLoopService::new(ToolRegistry::linked().expect("no duplicates")).with_sink(audit);
        let scope = service.scope(ToolContext::new()).unwrap();
        let call = ToolCall::new("mcp_call_1", "nope", "{}");
        let mut events = service.subscribe();
        service.call_observed(&scope, "mcp", call.clone()).await;
        let event = events.recv().await.expect("run started");
        ids.push(event.run_id().to_string());
    }
    assert_ne!(ids[0], ids[1]);
    let audit = SqliteAudit::open(&path, Privacy::Metadata).expect("open");
    let runs = audit.runs(10).expect("runs");
    assert_eq!(runs.len(), 2);
    for run in &runs {
        assert_eq!(run.steps, 1, "{run:?}");
        assert_eq!(run.title.as_deref(), Some("nope"));
    }
}

/// Needs an operator.
#[tool(requires_approval)]
fn guarded() -> String {
    "ran".to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_resumes_once_across_services_sharing_the_audit_database() {
    use toolkit::{Decision, RunError, SealKey, TokenError};

    let folder = tempfile::tempdir().expect("temp dir");
    let path = folder.path().join("shared.sqlite3");
    let key = SealKey::from_bytes([5; 32]);
    // Two instances: each its own connection to the one file, as two processes have.
    let instances: Vec<Arc<ToolLoopService>> = (0..2)
        .map(|_| {
            let audit = Arc::new(SqliteAudit::open(&path, Privacy::Metadata).expect("open"));
            Arc::new(
                ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
                    .with_seal_key(key.clone())
                    .with_replay_store(audit),
            )
        })
        .collect();
    let script = r#"{"turns": [
        {"tool_calls": [{"id": "g1", "name": "guarded"}]},
        {"content": "done"}
    ]}"#;
    let suspended = instances[0]
        .run(
            &ScriptedProvider::from_json(script).unwrap(),
            RunRequest::new("go"),
        )
        .await
        .expect("runs");
    let token = Arc::new(suspended.suspension.expect("suspended").token);
    // Sixteen resumes at once, eight on each instance: exactly one runs.
    let tasks: Vec<_> = (0..16)
        .map(|task| {
            let service = Arc::clone(&instances[task % 2]);
            let token = Arc::clone(&token);
            tokio::spawn(async move {
                let provider = ScriptedProvider::from_json(script).unwrap();
                service
                    .resume(
                        &provider,
                        &token,
                        &[Decision::approve("g1")],
                        ToolContext::new(),
                    )
                    .await
                    .map(|_| ())
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.push(task.await.expect("ends"));
    }
    assert_eq!(outcomes.iter().filter(|outcome| outcome.is_ok()).count(), 1);
    assert!(
        outcomes
            .iter()
            .filter_map(|outcome| outcome.as_ref().err())
            .all(|error| error == &RunError::Token(TokenError::AlreadyUsed))
    );
}

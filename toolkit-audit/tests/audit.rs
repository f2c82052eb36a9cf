//! The audit copy as a recorder sink: what each privacy level keeps, exactly, from real runs and
//! calls; every finished step committed before it is shown; nothing of one run overwriting
//! another's. Every test runs on a SQLite file and on a PostgreSQL database (the test server of
//! `toolkit_testing::postgres`; skipped with one line when PostgreSQL is not installed, outside CI).

use std::sync::Arc;
use std::time::Duration;
use toolkit_testing::postgres;

use serde_json::json;
use toolkit::provider::ScriptedProvider;
use toolkit::{
    RunEvent, RunRequest, Table, ToolArtifact, ToolCall, ToolContext, ToolLoopService,
    ToolRegistry, ToolResult, shared::SharedStore, tool,
};
use toolkit_audit::{Audit, PostgresAudit, Privacy, StepRow};

/// Where a test keeps its audit copy: a new SQLite file, or a new PostgreSQL database.
struct Place {
    location: String,
    _folder: Option<tempfile::TempDir>,
}

impl Place {
    async fn open(&self, privacy: Privacy) -> Audit {
        Audit::open(&self.location, privacy)
            .await
            .unwrap_or_else(|error| panic!("opening {}: {error}", self.location))
    }
}

/// A new SQLite file, and a new PostgreSQL database when the test server runs.
fn places(label: &str) -> Vec<Place> {
    let folder = tempfile::tempdir().expect("temp dir");
    let file = folder.path().join(format!("{label}.sqlite3"));
    let mut places = vec![Place {
        location: file.to_str().expect("a UTF-8 temp path").to_owned(),
        _folder: Some(folder),
    }];
    if let Some(server) = postgres::postgres() {
        places.push(Place {
            location: server.database(label),
            _folder: None,
        });
    }
    places
}

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
    .with_media(toolkit::result::Media::png(toolkit_testing::media::PNG).named("ada.png"))
}

const SCRIPT: &str = r#"{"turns": [
    {"content": "looking", "tool_calls": [{"id": "call_1", "name": "lookup", "arguments_raw": "{\"email\": \"ada@example.com\"}"}]},
    {"content": "done", "thinking": "It found ada@example.com.",
     "usage": {"input_tokens": 2000, "output_tokens": 300, "cache_read_tokens": 1536,
               "cache_write_tokens": 400, "reasoning_tokens": 256}}
]}"#;

/// Runs the script into an audit copy at `privacy` and reads back the run and its tool step;
/// checks its model steps.
async fn keep(place: &Place, privacy: Privacy) -> (toolkit_audit::RunRow, StepRow) {
    let audit = Arc::new(place.open(privacy).await);
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
        .with_sink(audit.clone());
    let provider = ScriptedProvider::from_json(SCRIPT).expect("script");
    let result = service
        .run(&provider, RunRequest::new("ask ada@example.com"))
        .await
        .expect("runs");
    let (run, steps) = audit
        .run(result.trace.run_id().as_str())
        .await
        .expect("read")
        .expect("the run");
    assert_eq!(run.privacy, privacy.as_str());
    assert_eq!(run.kind, "run");
    assert_eq!(run.termination.as_deref(), Some("answered"));
    let kinds: Vec<(i64, &str)> = steps.iter().map(|s| (s.index, s.kind.as_str())).collect();
    assert_eq!(kinds, [(0, "request"), (1, "llm"), (2, "tool"), (3, "llm")]);
    // Why each turn ended and what it was billed, at every level; what the model thought, as
    // the level keeps texts.
    let (asked, answered) = (&steps[1], &steps[3]);
    assert_eq!(asked.stop_reason.as_deref(), Some("tool_calls"));
    assert_eq!(answered.stop_reason.as_deref(), Some("finished"));
    assert_eq!(
        answered.usage,
        Some(
            json!({"input_tokens": 2000, "output_tokens": 300, "cache_read_tokens": 1536,
                    "cache_write_tokens": 400, "reasoning_tokens": 256})
        )
    );
    assert_eq!(asked.thinking, None);
    let thought = match privacy {
        Privacy::Metadata => None,
        Privacy::Redacted => Some("It found [EMAIL]."),
        _ => Some("It found ada@example.com."),
    };
    assert_eq!(answered.thinking.as_deref(), thought);
    let step = steps[2].clone();
    assert_eq!(step.name.as_deref(), Some("lookup"));
    // The tool slept 12 ms on a paused clock: the recorder timed exactly that.
    assert_eq!(step.duration_ms, Some(12.0));
    assert_eq!(step.content_bytes, 322);
    assert_eq!(step.artifact_count, 2);
    assert_eq!(step.artifact_types, ["table", "text"]);
    // The picture the model was shown: its type, name and size at every level, its bytes at
    // `full` only.
    let mut picture = json!({"mime_type": "image/png", "name": "ada.png", "bytes": 69});
    if privacy == Privacy::Full {
        picture["base64"] = json!(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
        );
    }
    assert_eq!(step.media, Some(json!([picture])));
    match privacy {
        Privacy::Metadata => assert_eq!(run.title, None),
        Privacy::Redacted => assert_eq!(run.title.as_deref(), Some("ask [EMAIL]")),
        _ => assert_eq!(run.title.as_deref(), Some("ask ada@example.com")),
    }
    (run, step)
}

#[tokio::test(start_paused = true)]
async fn metadata_keeps_count_types_and_sizes_only() {
    for place in places("metadata") {
        let (_, step) = keep(&place, Privacy::Metadata).await;
        assert_eq!(
            (step.arguments, step.content, step.artifacts),
            (None, None, None)
        );
    }
}

#[tokio::test(start_paused = true)]
async fn redacted_masks_secrets_and_emails_and_caps_strings() {
    for place in places("redacted") {
        let (_, step) = keep(&place, Privacy::Redacted).await;
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
}

#[tokio::test(start_paused = true)]
async fn full_keeps_everything() {
    for place in places("full") {
        let (_, step) = keep(&place, Privacy::Full).await;
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
async fn every_step_is_in_the_database_before_a_subscriber_sees_it() {
    for place in places("committed") {
        let audit = Arc::new(place.open(Privacy::Full).await);
        let service = Arc::new(
            ToolLoopService::new(ToolRegistry::linked().expect("no duplicates")).with_sink(audit),
        );
        let mut events = service.subscribe();
        let reader = place.open(Privacy::Full).await;
        let watcher = tokio::spawn(async move {
            let mut checked = 0;
            while let Ok(event) = events.recv().await {
                if let RunEvent::ToolInvoked { run_id, index, .. }
                | RunEvent::StepFinished { run_id, index, .. } = &*event
                {
                    let (_, steps) = reader.run(run_id.as_str()).await.unwrap().expect("the run");
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
}

#[tokio::test]
async fn two_services_on_one_database_keep_both_calls() {
    for place in places("two") {
        let mut ids = Vec::new();
        for _ in 0..2 {
            let audit = Arc::new(place.open(Privacy::Metadata).await);
            let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
                .with_sink(audit);
            let scope = service.scope(ToolContext::new()).unwrap();
            let call = ToolCall::new("mcp_call_1", "nope", "{}");
            let mut events = service.subscribe();
            service.call_observed(&scope, "mcp", &call).await;
            let event = events.recv().await.expect("run started");
            ids.push(event.run_id().to_string());
        }
        assert_ne!(ids[0], ids[1]);
        let audit = place.open(Privacy::Metadata).await;
        let (runs, total) = audit
            .find_runs(&toolkit_audit::RunQuery::default().with_limit(10))
            .await
            .expect("runs");
        assert_eq!(total, 2);
        assert_eq!(runs.len(), 2);
        for run in &runs {
            assert_eq!(run.steps, 1, "{run:?}");
            assert_eq!(run.title.as_deref(), Some("nope"));
        }
    }
}

#[tokio::test]
async fn a_search_is_literal_text_on_either_database() {
    for place in places("search") {
        let audit = Arc::new(place.open(Privacy::Metadata).await);
        let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
            .with_sink(audit.clone());
        let scope = service.scope(ToolContext::new()).unwrap();
        for name in ["nope", "50%_off"] {
            service
                .call_observed(&scope, "s", &ToolCall::new("1", name, "{}"))
                .await;
        }
        let found = |text: &str| {
            let audit = Arc::clone(&audit);
            let query = toolkit_audit::RunQuery::default()
                .with_text(text)
                .with_limit(10);
            async move { audit.find_runs(&query).await.expect("searches").1 }
        };
        // Wildcards of LIKE and GLOB, and SQL, are only text to look for.
        assert_eq!(found("%").await, 1, "{}", place.location);
        // (A run id holds `_` itself, so `_` is looked for after the `%`.)
        assert_eq!(found("%_").await, 1, "{}", place.location);
        assert_eq!(found("*").await, 0, "{}", place.location);
        assert_eq!(found("NOPE").await, 1, "{}", place.location);
        assert_eq!(found("' OR '1'='1").await, 0, "{}", place.location);
        assert_eq!(
            found("'; DROP TABLE runs; --").await,
            0,
            "{}",
            place.location
        );
        assert_eq!(found("").await, 2, "{}", place.location);
    }
}

/// Needs an operator.
#[tool(requires_approval)]
fn guarded() -> String {
    "ran".to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_resumes_once_across_services_sharing_the_audit_database() {
    use toolkit::{
        RunError,
        approval::Decision,
        seal::{SealKey, TokenError},
    };

    /// Tokens tried, each from sixteen tasks at once.
    const ROUNDS: usize = 20;
    let key = SealKey::from_bytes([5; 32]);
    for place in places("replay") {
        // Two instances, each with one connection of its own (a pool of one on PostgreSQL),
        // as two processes have.
        let mut instances: Vec<Arc<ToolLoopService>> = Vec::new();
        for _ in 0..2 {
            let audit = if place.location.starts_with("postgres://") {
                Audit::Postgres(
                    PostgresAudit::connect_with_pool(&place.location, Privacy::Metadata, 1)
                        .await
                        .expect("connects"),
                )
            } else {
                place.open(Privacy::Metadata).await
            };
            instances.push(Arc::new(
                ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
                    .with_seal_key(key.clone())
                    .with_replay_store(Arc::new(audit)),
            ));
        }
        let script = r#"{"turns": [
            {"tool_calls": [{"id": "g1", "name": "guarded"}]},
            {"content": "done"}
        ]}"#;
        let mut wins = 0;
        for _ in 0..ROUNDS {
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
            assert_eq!(
                outcomes.iter().filter(|outcome| outcome.is_ok()).count(),
                1,
                "{}: {outcomes:?}",
                place.location
            );
            assert!(
                outcomes
                    .iter()
                    .filter_map(|outcome| outcome.as_ref().err())
                    .all(|error| error == &RunError::Token(TokenError::AlreadyUsed))
            );
            wins += 1;
        }
        // Straight to stderr, for the record of what ran (seen with --nocapture).
        println!(
            "{}: {ROUNDS} tokens, {} resumes at once, {wins} succeeded",
            if place.location.starts_with("postgres://") {
                "PostgreSQL"
            } else {
                "SQLite"
            },
            ROUNDS * 16
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_decision_is_kept_as_each_privacy_level_keeps_it() {
    use toolkit::approval::Decision;

    let script = r#"{"turns": [
        {"tool_calls": [{"id": "g1", "name": "guarded"}, {"id": "g2", "name": "guarded"}]},
        {"content": "done"}
    ]}"#;
    let reason = "Not now, ada@example.com: the key sk-abcdefghijklmnopqrstuvwx1234 is live.";
    for place in places("decisions") {
        for privacy in [Privacy::Metadata, Privacy::Redacted, Privacy::Full] {
            let audit = Arc::new(place.open(privacy).await);
            let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
                .with_sink(audit.clone());
            let provider = ScriptedProvider::from_json(script).expect("script");
            let request = RunRequest::new("go").with_tools(["guarded"]);
            let suspended = service.run(&provider, request).await.expect("runs");
            let token = suspended.suspension.expect("suspended").token;
            let decisions = [
                Decision::deny_with_reason("g1", reason),
                Decision::approve("g2"),
            ];
            let resumed = service
                .resume(&provider, &token, &decisions, ToolContext::new())
                .await
                .expect("resumes");
            let (_, steps) = audit
                .run(resumed.trace.run_id().as_str())
                .await
                .expect("read")
                .expect("the run");
            let step = steps
                .iter()
                .find(|step| step.kind == "resumed")
                .expect("the resumed step");
            // What was decided, about which tool and by whom, at every level.
            assert_eq!(
                step.content.as_deref(),
                Some(
                    "denied guarded (operator, a reason of 74 bytes); approved guarded (operator)"
                )
            );
            let kept = match privacy {
                Privacy::Metadata => None,
                Privacy::Redacted => Some(
                    r#"[{"call_id":"g1","tool":"guarded","by":"operator","decision":"denied","reason":"Not now, [EMAIL]: the key [REDACTED] is live."},{"call_id":"g2","tool":"guarded","by":"operator","decision":"approved"}]"#,
                ),
                _ => Some(
                    r#"[{"call_id":"g1","tool":"guarded","by":"operator","decision":"denied","reason":"Not now, ada@example.com: the key sk-abcdefghijklmnopqrstuvwx1234 is live."},{"call_id":"g2","tool":"guarded","by":"operator","decision":"approved"}]"#,
                ),
            };
            assert_eq!(step.arguments.as_deref(), kept, "{}", place.location);
        }
    }
}

/// Answers with a NUL inside.
#[tool]
fn nul_text() -> String {
    "before\0after".to_owned()
}

#[tokio::test]
async fn postgres_keeps_nul_bytes_and_loses_no_step_to_them() {
    let Some(server) = postgres::postgres() else {
        return;
    };
    let audit = Arc::new(
        Audit::open(&server.database("nul"), Privacy::Full)
            .await
            .expect("opens"),
    );
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
        .with_sink(audit.clone());
    let scope = service.scope(ToolContext::new()).unwrap();
    let mut events = service.subscribe();
    // A model can put a NUL in a tool's name and in the arguments; a tool in its answer.
    service
        .call_observed(
            &scope,
            "nul",
            &ToolCall::new("1", "no\0such", "{\"a\": \"\0\"}"),
        )
        .await;
    let first = events
        .recv()
        .await
        .expect("run started")
        .run_id()
        .to_string();
    service
        .call_observed(&scope, "nul", &ToolCall::new("2", "nul_text", "{}"))
        .await;
    let mut second = None;
    while second.is_none() {
        let event = events.recv().await.expect("events");
        if let RunEvent::RunStarted { run_id, .. } = &*event {
            second = Some(run_id.to_string());
        }
    }
    let (run, steps) = audit.run(&first).await.unwrap().expect("the first call");
    assert_eq!(run.title.as_deref(), Some("no\u{FFFD}such"));
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0].name.as_deref(), Some("no\u{FFFD}such"));
    assert_eq!(steps[0].arguments.as_deref(), Some("{\"a\": \"\0\"}"));
    assert!(steps[0].is_error);
    let (_, steps) = audit
        .run(second.as_deref().unwrap())
        .await
        .unwrap()
        .expect("the second call");
    assert_eq!(steps[0].content.as_deref(), Some("before\0after"));
    assert_eq!(steps[0].content_bytes, 12);
    // A search with a NUL finds the title it was kept as.
    let (found, total) = audit
        .find_runs(
            &toolkit_audit::RunQuery::default()
                .with_text("NO\0S")
                .with_limit(10),
        )
        .await
        .unwrap();
    assert_eq!((found.len(), total), (1, 1));
    assert_eq!(found[0].run_id, first);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_migrates_once_and_refuses_a_newer_schema() {
    let Some(server) = postgres::postgres() else {
        return;
    };
    let url = server.database("migrations");
    // Four instances starting at once on an empty database: one migrates, all connect.
    let starts: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move { PostgresAudit::connect(&url, Privacy::Metadata).await })
        })
        .collect();
    for start in starts {
        start.await.expect("ends").expect("connects");
    }
    let name = url.rsplit('/').next().unwrap();
    assert_eq!(
        server.psql(
            name,
            "SELECT version FROM toolkit_audit_migrations ORDER BY version"
        ),
        Ok("1\n2\n3\n4".to_owned())
    );
    assert_eq!(PostgresAudit::schema_version(), 4);
    // Claims delete expired tokens by their expiry: an index, not a scan.
    assert_eq!(
        server.psql(
            name,
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'used_tokens_expiry'"
        ),
        Ok(
            "CREATE INDEX used_tokens_expiry ON public.used_tokens USING btree (expires_at)"
                .to_owned()
        )
    );
    server
        .psql(
            name,
            "INSERT INTO toolkit_audit_migrations (version) VALUES (7)",
        )
        .unwrap();
    let refused = PostgresAudit::connect(&url, Privacy::Metadata)
        .await
        .expect_err("a newer schema");
    assert_eq!(
        refused.to_string(),
        "audit copy: the database's schema is at version 7; this build knows versions up to 4"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_values_are_read_by_any_instance_expire_and_are_taken_once() {
    let Some(server) = postgres::postgres() else {
        return;
    };
    let url = server.database("shared");
    let one = PostgresAudit::connect(&url, Privacy::Metadata)
        .await
        .expect("connects");
    let other = PostgresAudit::connect(&url, Privacy::Metadata)
        .await
        .expect("connects");
    let minute = Duration::from_mins(1);
    one.put("handles", "h1", b"artifacts\0bytes".to_vec(), minute)
        .await
        .expect("kept");
    // Any instance reads it, as often as it likes; another kind or key is another value.
    for _ in 0..2 {
        assert_eq!(
            other.get("handles", "h1").await.expect("read"),
            Some(b"artifacts\0bytes".to_vec())
        );
    }
    assert_eq!(other.get("questions", "h1").await.expect("read"), None);
    assert_eq!(other.get("handles", "h2").await.expect("read"), None);
    // A put replaces.
    one.put("handles", "h1", b"again".to_vec(), minute)
        .await
        .expect("kept");
    assert_eq!(
        other.get("handles", "h1").await.expect("read"),
        Some(b"again".to_vec())
    );

    // Eight takes at once, on two instances: one gets the value.
    one.put("questions", "q1", b"question".to_vec(), minute)
        .await
        .expect("kept");
    let attempts: Vec<_> = (0..8)
        .map(|number| {
            let audit = if number % 2 == 0 {
                one.clone()
            } else {
                other.clone()
            };
            tokio::spawn(async move { audit.take("questions", "q1").await })
        })
        .collect();
    let mut taken = Vec::new();
    for attempt in attempts {
        if let Some(value) = attempt.await.expect("ends").expect("answered") {
            taken.push(value);
        }
    }
    assert_eq!(taken, [(b"question".to_vec(), true)]);

    // Past its lifetime: not read, and a take says it expired.
    one.put(
        "questions",
        "q2",
        b"late".to_vec(),
        Duration::from_millis(1),
    )
    .await
    .expect("kept");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(other.get("questions", "q2").await.expect("read"), None);
    assert_eq!(
        other.take("questions", "q2").await.expect("taken"),
        Some((b"late".to_vec(), false))
    );
    assert_eq!(other.take("questions", "q2").await.expect("taken"), None);
}

/// Another instance (its own pool) records one call, a run row, a step and the run's end; `changes`
/// announces it within five seconds.
/// An audit copy on PostgreSQL at `url` and its announcements of commits.
async fn watch(url: &str) -> (Audit, tokio::sync::watch::Receiver<u64>) {
    let audit = Audit::open(url, Privacy::Metadata).await.expect("opens");
    let changes = audit
        .changes()
        .await
        .unwrap()
        .expect("PostgreSQL announces");
    (audit, changes)
}

async fn commit_elsewhere_and_see_it_announced(
    url: &str,
    changes: &mut tokio::sync::watch::Receiver<u64>,
) {
    let writer = Arc::new(Audit::open(url, Privacy::Metadata).await.expect("opens"));
    let service =
        ToolLoopService::new(ToolRegistry::linked().expect("no duplicates")).with_sink(writer);
    let scope = service.scope(ToolContext::new()).unwrap();
    service
        .call_observed(&scope, "other", &ToolCall::new("1", "nul_text", "{}"))
        .await;
    tokio::time::timeout(Duration::from_secs(5), changes.changed())
        .await
        .expect("announced within 5 s")
        .expect("still listening");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_announces_what_another_instance_commits() {
    let Some(server) = postgres::postgres() else {
        return;
    };
    let url = server.database("changes");
    let (watching, mut changes) = watch(&url).await;
    let before = *changes.borrow_and_update();
    commit_elsewhere_and_see_it_announced(&url, &mut changes).await;
    let (runs, _) = watching
        .find_runs(&toolkit_audit::RunQuery::default().with_limit(10))
        .await
        .unwrap();
    assert_eq!(runs.len(), 1);
    assert!(*changes.borrow() > before);
    // SQLite cannot announce: the history asks again instead.
    let folder = tempfile::tempdir().unwrap();
    let file = Audit::open(
        folder.path().join("a.sqlite3").to_str().unwrap(),
        Privacy::Metadata,
    )
    .await
    .unwrap();
    assert!(file.changes().await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_listens_again_after_its_connection_is_cut() {
    let Some(server) = postgres::postgres() else {
        return;
    };
    let url = server.database("relisten");
    let name = url.rsplit('/').next().unwrap().to_owned();
    let (_watching, mut changes) = watch(&url).await;
    // The server drops the listening connection, as a restart or a network cut would.
    let cut = server
        .psql(
            &name,
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE datname = current_database() AND query LIKE 'LISTEN toolkit_audit%' \
             AND pid <> pg_backend_pid()",
        )
        .expect("terminates");
    assert_eq!(cut, "1");
    // Listening again is announced (whatever happened meanwhile may have been missed) ...
    tokio::time::timeout(Duration::from_secs(10), changes.changed())
        .await
        .expect("listening again within 10 s")
        .expect("still listening");
    let after_reconnect = *changes.borrow_and_update();
    // ... and commits after it are announced again.
    commit_elsewhere_and_see_it_announced(&url, &mut changes).await;
    assert!(*changes.borrow() > after_reconnect);
}

/// Echoes its text (the committer test's tool).
#[tool]
fn echo_text(
    /// What to echo.
    text: String,
) -> String {
    text
}

/// Makes the audit copy at `place` refuse the steps of calls whose arguments hold "poison".
fn poison(place: &Place) {
    if let Some(name) = place.location.strip_prefix("postgres://") {
        let name = name.rsplit('/').next().expect("a database name");
        postgres::postgres()
            .expect("the server of this database")
            .psql(
                name,
                "ALTER TABLE steps ADD CONSTRAINT no_poison CHECK (arguments IS NULL \
                 OR position('poison' in convert_from(arguments, 'UTF8')) = 0)",
            )
            .expect("a constraint");
    } else {
        rusqlite::Connection::open(&place.location)
            .expect("opens")
            .execute_batch(
                "CREATE TRIGGER no_poison BEFORE INSERT ON steps \
                 WHEN instr(NEW.arguments, 'poison') > 0 \
                 BEGIN SELECT RAISE(ABORT, 'poisoned'); END;",
            )
            .expect("a trigger");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_committed_together_fail_alone_when_one_cannot_be_made() {
    for place in places("together") {
        let audit = Arc::new(place.open(Privacy::Full).await);
        poison(&place);
        let service = Arc::new(
            ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
                .with_sink(audit.clone()),
        );
        let scope = Arc::new(service.scope(ToolContext::new()).expect("a scope"));
        // 64 calls at once, every eighth poisoned: their writes wait together and share commits.
        let calls: Vec<_> = (0..64)
            .map(|number| {
                let (service, scope) = (Arc::clone(&service), Arc::clone(&scope));
                let text = if number % 8 == 0 {
                    format!("poison {number}")
                } else {
                    format!("fine {number}")
                };
                tokio::spawn(async move {
                    let call = ToolCall::new("1", "echo_text", json!({"text": text}).to_string());
                    let observed = service.call_observed(&scope, "test", &call).await;
                    (text, observed.is_error(), observed.content().to_owned())
                })
            })
            .collect();
        let mut answered = Vec::new();
        for call in calls {
            answered.push(call.await.expect("ends"));
        }
        for (text, is_error, content) in &answered {
            if text.starts_with("poison") {
                assert!(*is_error, "{text}: {content}");
                assert_eq!(
                    content,
                    "Error: tool \"echo_text\" ran, but the record this service keeps of every \
                     call could not be written, so its result is withheld."
                );
            } else {
                assert_eq!((*is_error, content), (false, text), "{text}");
            }
        }
        // Every fine call is kept, each step with its run; no poisoned step is.
        let (runs, _) = audit
            .find_runs(&toolkit_audit::RunQuery::default().with_limit(100))
            .await
            .expect("runs");
        let mut kept = Vec::new();
        for run in &runs {
            let (run, steps) = audit.run(&run.run_id).await.expect("read").expect("kept");
            for step in steps {
                assert_eq!(run.termination.as_deref(), Some("answered"), "{run:?}");
                kept.push(step.content.expect("kept at full"));
            }
        }
        kept.sort();
        let mut fine: Vec<String> = (0..64)
            .filter(|number| number % 8 != 0)
            .map(|number| format!("fine {number}"))
            .collect();
        fine.sort();
        assert_eq!(kept, fine, "{}", place.location);
    }
}

#[tokio::test]
async fn a_calls_run_and_its_step_are_one_commit_with_its_end() {
    let Some(server) = postgres::postgres() else {
        return;
    };
    let url = server.database("one_commit");
    let audit = Arc::new(
        PostgresAudit::connect(&url, Privacy::Metadata)
            .await
            .expect("connects"),
    );
    let service =
        ToolLoopService::new(ToolRegistry::linked().expect("no duplicates")).with_sink(audit);
    let scope = service.scope(ToolContext::new()).expect("a scope");
    for number in 0..20 {
        let call = ToolCall::new(
            "1",
            "echo_text",
            json!({"text": number.to_string()}).to_string(),
        );
        let observed = service.call_observed(&scope, "test", &call).await;
        assert_eq!(observed.content(), number.to_string());
    }
    // A row's `xmin` is the transaction that wrote it: each call is one transaction, which
    // wrote its run (ended) and its step.
    let name = url.rsplit('/').next().unwrap();
    let counted = server
        .psql(
            name,
            "SELECT count(DISTINCT runs.xmin::text), count(*), \
             count(*) FILTER (WHERE runs.xmin::text = steps.xmin::text), \
             count(*) FILTER (WHERE termination = 'answered') \
             FROM runs JOIN steps USING (run_id)",
        )
        .unwrap();
    assert_eq!(counted, "20|20|20|20");
}

#[tokio::test(start_paused = true)]
async fn a_sqlite_file_of_an_earlier_version_gains_the_new_columns_and_keeps_its_rows() {
    let folder = tempfile::tempdir().expect("temp dir");
    let path = folder.path().join("earlier.sqlite3");
    // The tables as the first release made them, with one run in them.
    let earlier = rusqlite::Connection::open(&path).expect("a file");
    earlier
        .execute_batch(
            "CREATE TABLE runs (run_id TEXT PRIMARY KEY, kind TEXT NOT NULL, title TEXT,
                 started_at TEXT NOT NULL, termination TEXT, privacy TEXT NOT NULL);
             CREATE TABLE steps (run_id TEXT NOT NULL REFERENCES runs(run_id),
                 idx INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT, duration_ms REAL,
                 is_error INTEGER NOT NULL DEFAULT 0, arguments TEXT, content TEXT,
                 content_bytes INTEGER NOT NULL DEFAULT 0,
                 artifact_count INTEGER NOT NULL DEFAULT 0,
                 artifact_types TEXT NOT NULL DEFAULT '[]', artifacts TEXT,
                 finished_at TEXT NOT NULL, PRIMARY KEY (run_id, idx));
             INSERT INTO runs VALUES ('old', 'run', NULL, '2026-01-01T00:00:00Z', 'answered',
                 'metadata');
             INSERT INTO steps (run_id, idx, kind, content_bytes, finished_at)
                 VALUES ('old', 0, 'llm', 4, '2026-01-01T00:00:00Z');",
        )
        .expect("the earlier tables");
    drop(earlier);
    let location = path.to_str().expect("a UTF-8 path");
    let audit = Arc::new(
        Audit::open(location, Privacy::Metadata)
            .await
            .expect("opens"),
    );
    let (_, steps) = audit.run("old").await.expect("read").expect("the old run");
    assert_eq!(
        (
            steps[0].stop_reason.as_deref(),
            &steps[0].usage,
            &steps[0].thinking
        ),
        (None, &None, &None)
    );
    // New runs keep what the new columns hold, in the same file; opening it again adds nothing.
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
        .with_sink(audit.clone());
    let provider = ScriptedProvider::from_json(r#"{"turns": [{"content": "hi"}]}"#).unwrap();
    let result = service.run(&provider, RunRequest::new("x")).await.unwrap();
    let (_, steps) = audit
        .run(result.trace.run_id().as_str())
        .await
        .expect("read")
        .expect("the new run");
    assert_eq!(steps[1].stop_reason.as_deref(), Some("finished"));
    drop(
        Audit::open(location, Privacy::Metadata)
            .await
            .expect("opens again"),
    );
}

//! Load on the PostgreSQL audit copy: N scripted runs at once (N = 1, 16, 256) against one
//! service whose recorder keeps every step in PostgreSQL; prints runs/s and the step commits'
//! median and p99, and checks that nothing was lost (every finished step is in the database).
//!
//! Not part of `cargo test` (it takes a while): `scripts/pg-load` runs it in release.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use toolkit_testing::postgres;

use toolkit::provider::ScriptedProvider;
use toolkit::{
    RunEvent, RunRequest, Sink, ToolLoopService, ToolRegistry, shared::BackendFuture, tool,
};
use toolkit_audit::{PostgresAudit, Privacy};

/// Adds two numbers.
#[tool]
fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

const SCRIPT: &str = r#"{"turns": [
    {"content": "adding", "tool_calls": [{"id": "c1", "name": "add", "arguments": {"a": 40, "b": 2}}]},
    {"content": "42"}
]}"#;

/// Steps each run keeps: the request, two model turns and the tool call.
const STEPS_PER_RUN: usize = 4;

/// Times every step's commit (the sink's whole `record`, waiting for a pooled connection
/// included).
struct Timed {
    audit: PostgresAudit,
    commits: Mutex<Vec<Duration>>,
}

impl Sink for Timed {
    fn record<'a>(&'a self, event: &'a RunEvent) -> BackendFuture<'a, ()> {
        Box::pin(async move {
            let step = matches!(
                event,
                RunEvent::ToolInvoked { .. } | RunEvent::StepFinished { .. }
            );
            let started = Instant::now();
            let recorded = self.audit.record(event).await;
            if step {
                self.commits
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(started.elapsed());
            }
            recorded
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a load run: scripts/pg-load"]
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "counts and shares of a few thousand samples, printed"
)]
async fn concurrent_runs_on_the_postgres_audit_copy() {
    let server = postgres::postgres().expect("PostgreSQL (./scripts/test installs it)");
    let runs_per_level: usize = std::env::var("LOAD_RUNS")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .unwrap_or(1024);
    println!(
        "{runs_per_level} runs per level, {STEPS_PER_RUN} steps each, pool of {} connections",
        PostgresAudit::DEFAULT_POOL_SIZE
    );
    for concurrency in [1_usize, 16, 256] {
        let url = server.database(&format!("load_{concurrency}"));
        let sink = Arc::new(Timed {
            audit: PostgresAudit::connect(&url, Privacy::Metadata)
                .await
                .expect("connects"),
            commits: Mutex::new(Vec::new()),
        });
        let service = Arc::new(
            ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
                .with_sink(sink.clone()),
        );
        let started = Instant::now();
        let workers: Vec<_> = (0..concurrency)
            .map(|worker| {
                let service = Arc::clone(&service);
                tokio::spawn(async move {
                    let provider = ScriptedProvider::from_json(SCRIPT).expect("script");
                    let mut runs = worker;
                    while runs < runs_per_level {
                        let result = service
                            .run(&provider, RunRequest::new("add"))
                            .await
                            .expect("runs");
                        assert_eq!(result.content, "42");
                        runs += concurrency;
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.await.expect("worker");
        }
        let elapsed = started.elapsed();
        let mut commits =
            std::mem::take(&mut *sink.commits.lock().unwrap_or_else(PoisonError::into_inner));
        commits.sort_unstable();
        let at = |share: f64| {
            // Nearest rank.
            let rank = (share * commits.len() as f64).ceil() as usize;
            commits[rank.clamp(1, commits.len()) - 1]
        };
        let name = url.rsplit('/').next().expect("a name");
        let kept = server
            .psql(
                name,
                "SELECT (SELECT count(*) FROM runs WHERE termination = 'answered') || ' ' || \
                 (SELECT count(*) FROM steps)",
            )
            .expect("counts");
        assert_eq!(
            kept,
            format!("{runs_per_level} {}", runs_per_level * STEPS_PER_RUN),
            "every finished step is in the database"
        );
        assert_eq!(commits.len(), runs_per_level * STEPS_PER_RUN);
        println!(
            "N = {concurrency:>3}: {:>7.0} runs/s, step commit median {:>6.2} ms, p99 {:>6.2} ms, \
             {} runs and {} steps kept",
            runs_per_level as f64 / elapsed.as_secs_f64(),
            at(0.5).as_secs_f64() * 1000.0,
            at(0.99).as_secs_f64() * 1000.0,
            runs_per_level,
            runs_per_level * STEPS_PER_RUN,
        );
    }
}

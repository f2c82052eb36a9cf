//! Cost of the seam: one trivial call end to end in each execution mode beside the same work done
//! by hand, observed calls with and without subscribers, many tasks at once, and both bounds at
//! 100 KB and 100 MB.
//!
//! Bounding is measured on borrowed input (`cut_content`, `cut_artifacts`: exactly what the seam
//! calls); freeing the tool's oversized output afterwards is the allocator's O(size) work for any
//! design and is left out of the timing.
//!
//! After criterion's groups, the issue's ratios are measured again in paired rounds (see
//! `support/paired.rs`) and printed with their goals and the load average.

use std::hint::black_box;
use std::sync::Arc;

use criterion::Criterion;
use toolkit::bound::{cut_artifacts, cut_content};
use toolkit::{Table, ToolArtifact, ToolCall, ToolContext, ToolLoopService, ToolRegistry, tool};
use toolkit_testing::paired::{Paired, load_average, verdict, wanted};

const KB_100: usize = 100 * 1024;
const MB_100: usize = 100 * 1024 * 1024;

/// Adds two integers (tiny: runs on the caller's thread, as peers run sync tools).
#[tool(inline)]
fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

/// Adds two integers (async: on the calling task, under the timeout).
#[tool]
#[allow(clippy::unused_async)] // An async tool that happens not to wait: the seam's async path.
async fn add_async(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

/// Adds two integers (a plain `fn`: on a worker thread, under the timeout).
#[tool]
fn add_blocking(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

/// The same arguments, decoded by hand.
#[derive(serde::Deserialize)]
struct Pair {
    a: i64,
    b: i64,
}

const ARGUMENTS: &str = r#"{"a": 40, "b": 2}"#;

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn invoke(c: &mut Criterion) {
    let runtime = current_thread();
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    let scope = service
        .scope(ToolContext::new())
        .expect("no tool reads state");
    for name in ["add", "add_async", "add_blocking"] {
        let check = runtime.block_on(service.invoke(&scope, name, ARGUMENTS));
        assert_eq!(check.content(), "42");
    }

    let mut group = c.benchmark_group("invoke");
    group.bench_function("block_on_only", |b| {
        b.iter(|| runtime.block_on(async { black_box(2i64) }));
    });
    group.bench_function("hand_written_parse_and_call", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let pair: Pair = serde_json::from_str(black_box(ARGUMENTS)).expect("decodes");
                black_box((pair.a + pair.b).to_string())
            })
        });
    });
    group.bench_function("hand_written_spawn_blocking", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let sum = tokio::task::spawn_blocking(|| {
                    let pair: Pair = serde_json::from_str(black_box(ARGUMENTS)).expect("decodes");
                    (pair.a + pair.b).to_string()
                })
                .await
                .expect("ran");
                black_box(sum)
            })
        });
    });
    for (name, label) in [
        ("add", "inline_tool"),
        ("add_async", "async_tool"),
        ("add_blocking", "blocking_tool"),
    ] {
        group.bench_function(label, |b| {
            b.iter(|| {
                black_box(runtime.block_on(service.invoke(
                    &scope,
                    black_box(name),
                    black_box(ARGUMENTS),
                )))
            });
        });
    }
    group.finish();
}

/// A service on a current-thread runtime, with the host's call of `add`, and two more services
/// with ten subscribers each. The first's are tasks on the same runtime, which never run while
/// the calls keep it busy (`block_on` polls a ready call and returns): every call sends its four
/// events and drops the four that fell out of the 4096-event buffer, with the call they held:
/// the caller's cost with subscribers that never read. The second's read every event on a thread of their own, which each call wakes.
struct Observed {
    runtime: tokio::runtime::Runtime,
    service: ToolLoopService,
    scope: toolkit::RunScope,
    watched: ToolLoopService,
    watched_scope: toolkit::RunScope,
    /// A third service whose ten subscribers keep up: tasks on a runtime of their own, whose one
    /// worker thread reads every event as it comes (the caller wakes them).
    read: ToolLoopService,
    read_scope: toolkit::RunScope,
    _readers: tokio::runtime::Runtime,
    /// The host's call, as `invoke` is given the host's text: both borrow what the host holds.
    call: ToolCall,
}

impl Observed {
    fn new() -> Self {
        let runtime = current_thread();
        let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
        let scope = service
            .scope(ToolContext::new())
            .expect("no tool reads state");
        let watched = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
        let watched_scope = watched
            .scope(ToolContext::new())
            .expect("no tool reads state");
        for _ in 0..10 {
            let mut events = watched.subscribe();
            runtime.spawn(async move { follow(&mut events).await });
        }
        let readers = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .expect("runtime");
        let read = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
        let read_scope = read.scope(ToolContext::new()).expect("no tool reads state");
        for _ in 0..10 {
            let mut events = read.subscribe();
            readers.spawn(async move { follow(&mut events).await });
        }
        Self {
            runtime,
            service,
            scope,
            watched,
            watched_scope,
            read,
            read_scope,
            _readers: readers,
            call: ToolCall::new("call_1", "add", ARGUMENTS),
        }
    }

    fn invoke(&self) -> toolkit::BoundedResult {
        self.runtime
            .block_on(self.service.invoke(&self.scope, "add", ARGUMENTS))
    }

    fn observed(&self) -> toolkit::recording::ObservedCall {
        self.runtime
            .block_on(self.service.call_observed(&self.scope, "bench", &self.call))
    }

    fn watched(&self) -> toolkit::recording::ObservedCall {
        self.runtime.block_on(
            self.watched
                .call_observed(&self.watched_scope, "bench", &self.call),
        )
    }

    fn read(&self) -> toolkit::recording::ObservedCall {
        self.runtime.block_on(
            self.read
                .call_observed(&self.read_scope, "bench", &self.call),
        )
    }
}

/// Reads every event until the recorder is gone; one that falls behind reads on from where it
/// is (it stays a subscriber).
async fn follow(events: &mut toolkit::recording::Subscription) {
    loop {
        match events.recv().await {
            Ok(event) => drop(black_box(event)),
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// A single call recorded through the service's recorder (what every MCP `tools/call` is), with
/// nobody listening, with ten subscribers that never read, and with ten that read everything.
fn observed(c: &mut Criterion, fixture: &Observed) {
    let mut group = c.benchmark_group("observed");
    group.bench_function("invoke", |b| b.iter(|| black_box(fixture.invoke())));
    group.bench_function("no_subscriber", |b| {
        b.iter(|| black_box(fixture.observed()));
    });
    group.bench_function("ten_subscribers", |b| {
        b.iter(|| black_box(fixture.watched()));
    });
    group.bench_function("ten_subscribers_reading", |b| {
        b.iter(|| black_box(fixture.read()));
    });
    group.finish();
}

/// 64 tasks of 100 calls each on a two-worker runtime, all calling `invoke` or all making
/// observed calls with nobody listening.
struct Concurrent {
    runtime: tokio::runtime::Runtime,
    service: Arc<ToolLoopService>,
    scope: Arc<toolkit::RunScope>,
}

impl Concurrent {
    const TASKS: usize = 64;
    const CALLS: usize = 100;

    fn new() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let service = Arc::new(ToolLoopService::new(
            ToolRegistry::linked().expect("no duplicates"),
        ));
        let scope = Arc::new(
            service
                .scope(ToolContext::new())
                .expect("no tool reads state"),
        );
        Self {
            runtime,
            service,
            scope,
        }
    }

    /// One batch: every task's calls, observed or not.
    fn batch(&self, observed: bool) {
        self.runtime.block_on(join_tasks((0..Self::TASKS).map(|_| {
            let service = Arc::clone(&self.service);
            let scope = Arc::clone(&self.scope);
            tokio::spawn(async move {
                let call = ToolCall::new("call_1", "add", ARGUMENTS);
                for _ in 0..Self::CALLS {
                    if observed {
                        black_box(service.call_observed(&scope, "bench", &call).await);
                    } else {
                        black_box(service.invoke(&scope, "add", ARGUMENTS).await);
                    }
                }
            })
        })));
    }
}

/// Many tasks calling at once on a two-worker runtime: `invoke` against observed calls with
/// nobody listening. Each iteration is 64 tasks of 100 calls.
fn concurrent(c: &mut Criterion, fixture: &Concurrent) {
    let mut group = c.benchmark_group("concurrent_64_tasks");
    group.throughput(criterion::Throughput::Elements(
        (Concurrent::TASKS * Concurrent::CALLS) as u64,
    ));
    for observed in [false, true] {
        let label = if observed { "observed" } else { "invoke" };
        group.bench_function(label, |b| b.iter(|| fixture.batch(observed)));
    }
    group.finish();
}

/// Waits for every task.
async fn join_tasks(tasks: impl Iterator<Item = tokio::task::JoinHandle<()>>) {
    let tasks: Vec<_> = tasks.collect();
    for task in tasks {
        task.await.expect("task ran");
    }
}

fn text_of(bytes: usize) -> String {
    "lorem ipsum dolor sit amet, consectetur adipiscing elit ".repeat(bytes / 56 + 1)[..bytes]
        .to_owned()
}

fn table_of(bytes: usize) -> Table {
    // Rows of about 100 bytes of JSON each.
    let rows = bytes / 100;
    Table::from_rows(
        ["id", "name", "note"],
        (0..rows).map(|id| {
            [
                format!("{id:08}"),
                format!("name number {id:012}"),
                "x".repeat(48),
            ]
        }),
    )
    .expect("three cells per row")
}

fn bound(c: &mut Criterion) {
    let mut group = c.benchmark_group("bound");
    group.sample_size(50);
    for (size, label) in [(KB_100, "100KB"), (MB_100, "100MB")] {
        let content = text_of(size);
        group.bench_function(format!("content_{label}"), |b| {
            b.iter(|| black_box(cut_content(black_box(&content))));
        });
        let texts = vec![ToolArtifact::text("log", content.clone())];
        group.bench_function(format!("text_artifact_{label}"), |b| {
            b.iter(|| black_box(cut_artifacts(black_box(&texts))));
        });
        drop(texts);
        drop(content);
        let tables = vec![ToolArtifact::table("rows", table_of(size))];
        group.bench_function(format!("table_artifact_{label}"), |b| {
            b.iter(|| black_box(cut_artifacts(black_box(&tables))));
        });
    }
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    invoke(&mut criterion);
    let observed_fixture = Observed::new();
    observed(&mut criterion, &observed_fixture);
    let concurrent_fixture = Concurrent::new();
    concurrent(&mut criterion, &concurrent_fixture);
    bound(&mut criterion);
    criterion.final_summary();
    paired_ratios(&observed_fixture, &concurrent_fixture);
}

/// The issue's goals for observed calls, each from paired rounds.
fn paired_ratios(observed: &Observed, concurrent: &Concurrent) {
    if wanted("observed_ratios") {
        let timings = Paired::new()
            .path("invoke", || drop(black_box(observed.invoke())))
            .path("no_subscriber", || drop(black_box(observed.observed())))
            .path("ten_subscribers", || drop(black_box(observed.watched())))
            .path("ten_reading", || drop(black_box(observed.read())))
            .run(300);
        let ratio = timings.ratio("no_subscriber", "invoke");
        let more = timings.difference("ten_subscribers", "invoke");
        println!(
            "\nobserved, paired over {} rounds (load average: {})",
            timings.rounds(),
            load_average()
        );
        println!(
            "  no_subscriber / invoke: {ratio:.2}  {:.1} ns / {:.1} ns  (goal <= 1.3: {})",
            timings.median("no_subscriber"),
            timings.median("invoke"),
            verdict(ratio <= 1.3)
        );
        println!(
            "  ten_subscribers - invoke: {more:.0} ns  (goal <= 1000 ns: {})",
            verdict(more <= 1000.0)
        );
        let reading = timings.difference("ten_reading", "invoke");
        println!(
            "  ten_subscribers_reading - invoke: {reading:.0} ns  (goal <= 1000 ns: {})",
            verdict(reading <= 1000.0)
        );
    }
    if wanted("concurrent_ratios") {
        let timings = Paired::new()
            .path("invoke", || concurrent.batch(false))
            .path("observed", || concurrent.batch(true))
            .run(100);
        // Throughput is calls over time: observed's share of invoke's is invoke's time over its.
        let share = timings.ratio("invoke", "observed");
        let calls = f64::from(u32::try_from(Concurrent::TASKS * Concurrent::CALLS).expect("6400"));
        println!(
            "\nconcurrent_64_tasks on 2 workers, paired over {} rounds (load average: {})",
            timings.rounds(),
            load_average()
        );
        println!(
            "  observed throughput / invoke throughput: {share:.2}  {:.2} / {:.2} million calls/s  (goal >= 0.7: {})",
            calls / timings.median("observed") * 1e3,
            calls / timings.median("invoke") * 1e3,
            verdict(share >= 0.7)
        );
    }
}

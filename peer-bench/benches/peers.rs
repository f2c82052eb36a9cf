//! One trivial tool call, `add(a, b) -> (a + b).to_string()`, through toolkit, rmcp and rig-core,
//! in one criterion group, so that the ratios between them come from one run on one machine.
//!
//! Every framework starts from the same JSON arguments text and ends at its own result value;
//! each call is one `block_on` on a current-thread runtime, and `block_on_only` is that floor.
//! After the group, the ratios of toolkit's paths to the others are printed from this run's
//! medians.

#![allow(missing_docs)]

use std::convert::Infallible;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use criterion::Criterion;
use rig_core::effect::{EffectKind, Outcome};
use rig_core::serve::adapters::ToolAdapter;
use rig_core::serve::{ErasedHandler, serve_inline};
use rig_core::tool::ErasedTool;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, InitializeRequestParams, NumberOrString,
};
use rmcp::service::{RequestContext, serve_directly};
use rmcp::{RoleServer, ServerHandler};

/// What a model would send, as text, to every framework alike.
const ARGS: &str = r#"{"a": 40, "b": 2}"#;

/// The arguments as a typed value: decoded by hand, by rmcp's `Parameters` and by rig's `Tool`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    a: i64,
    b: i64,
}

// --- toolkit ---

/// Adds two integers.
#[toolkit::tool(inline)]
fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

/// Adds two integers.
#[toolkit::tool]
async fn add_async(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

// --- rmcp ---

#[derive(Clone)]
struct Calculator {
    tool_router: ToolRouter<Self>,
}

#[rmcp::tool_router]
impl Calculator {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// Adds two integers.
    #[rmcp::tool]
    fn add(&self, Parameters(Pair { a, b }): Parameters<Pair>) -> String {
        (a + b).to_string()
    }
}

// The stored router: the macro's default, `Self::tool_router()`, would rebuild the router (every
// tool's attributes) on each call, which a server that cares about speed avoids.
#[rmcp::tool_handler(router = self.tool_router)]
impl ServerHandler for Calculator {}

// --- rig-core ---

struct RigAdd;

impl rig_core::tool::Tool for RigAdd {
    const NAME: &'static str = "add";
    type Args = Pair;
    type Output = String;
    type Error = Infallible;

    fn description(&self) -> String {
        "Adds two integers.".to_owned()
    }

    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        })
    }

    async fn call(
        &self,
        _context: &mut rig_core::tool::ToolContext,
        Pair { a, b }: Pair,
    ) -> Result<String, Infallible> {
        Ok((a + b).to_string())
    }
}

// --- the group ---

/// The arguments as the map an rmcp server receives: its transport decodes the request's JSON,
/// arguments included, so that decode is part of every timed rmcp call.
fn rmcp_params() -> CallToolRequestParams {
    let arguments = serde_json::from_str(black_box(ARGS)).expect("an object");
    CallToolRequestParams::new("add").with_arguments(arguments)
}

fn rmcp_text(response: &CallToolResponse) -> &str {
    let CallToolResponse::Complete(result) = response else {
        panic!("not a completed call");
    };
    &result.content[0].as_text().expect("text").text
}

fn rig_text(outcome: &Outcome) -> String {
    let Outcome::ToolResult { result } = outcome else {
        panic!("not a tool result");
    };
    result.output().as_text().expect("text").to_owned()
}

fn rig_effect() -> EffectKind {
    EffectKind::ToolCall {
        name: "add".into(),
        args: black_box(ARGS).into(),
    }
}

#[allow(clippy::result_large_err)] // rig-core's own `ErrorReport`, returned as rig returns it.
fn peers(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("peers");

    group.bench_function("block_on_only", |b| {
        b.iter(|| runtime.block_on(async { black_box(2i64) }));
    });

    let by_hand = || {
        runtime.block_on(async {
            let Pair { a, b } = serde_json::from_str(black_box(ARGS)).expect("a pair");
            (a + b).to_string()
        })
    };
    assert_eq!(by_hand(), "42");
    group.bench_function("hand_written", |b| b.iter(|| black_box(by_hand())));

    let service = toolkit::ToolLoopService::new(toolkit::ToolRegistry::linked().expect("unique"));
    let scope = service
        .scope(toolkit::ToolContext::new())
        .expect("no tool reads state");
    for name in ["add", "add_async"] {
        let check = runtime.block_on(service.invoke(&scope, name, ARGS));
        assert_eq!(check.content().as_str(), "42");
    }
    group.bench_function("toolkit_invoke_inline", |b| {
        b.iter(|| {
            black_box(runtime.block_on(service.invoke(&scope, black_box("add"), black_box(ARGS))))
        });
    });
    group.bench_function("toolkit_invoke_async", |b| {
        b.iter(|| {
            black_box(runtime.block_on(service.invoke(
                &scope,
                black_box("add_async"),
                black_box(ARGS),
            )))
        });
    });
    // The host builds the call it records from each request (as toolkit's MCP server does), so
    // building it, arguments copy included, is counted.
    // The host's call, borrowed as `invoke` borrows the host's text.
    let call = toolkit::ToolCall::new("call_1", "add", ARGS);
    let observed = || runtime.block_on(service.call_observed(&scope, "bench", black_box(&call)));
    assert_eq!(observed().wire().as_str(), "42");
    group.bench_function("toolkit_observed", |b| b.iter(|| black_box(observed())));

    // `Peer::new` is crate-private, so the server's peer comes from really serving it over an
    // in-memory pipe; `serve_directly` skips the initialize handshake, which `call_tool` never
    // consults. The client end and the running service stay alive for the whole group.
    let server = Calculator::new();
    let (_client_end, server_end) = tokio::io::duplex(4096);
    let running = runtime.block_on(async {
        serve_directly::<RoleServer, _, _, _, _>(
            server.clone(),
            server_end,
            Some(InitializeRequestParams::default()),
        )
    });
    let context = RequestContext::new(NumberOrString::Number(1), running.peer().clone());
    // `call_tool` takes its context by value, so one clone per call is unavoidable (a few `Arc`
    // increments); rmcp's own serve loop builds a fresh context for every request anyway.
    let rmcp_call = || {
        runtime.block_on(ServerHandler::call_tool(
            &server,
            rmcp_params(),
            context.clone(),
        ))
    };
    assert_eq!(rmcp_text(&rmcp_call().expect("called")), "42");
    group.bench_function("rmcp_call_tool", |b| b.iter(|| black_box(rmcp_call())));

    // rig's erased tool takes the arguments as an owned `String`: that copy is counted.
    let rig_call = || {
        runtime.block_on(async {
            let mut context = rig_core::tool::ToolContext::new();
            ErasedTool::execute(&RigAdd, black_box(ARGS).to_owned(), &mut context).await
        })
    };
    assert_eq!(rig_call().output().as_text(), Some("42"));
    group.bench_function("rig_erased_tool", |b| b.iter(|| black_box(rig_call())));

    // rig-core has no public registry that looks a tool up by name: routing by key is a driver's
    // job (outside rig-core). `serve_inline` runs one erased handler, whose adapter checks the
    // effect's tool name against its own, so this is rig's by-name path minus the key lookup.
    let handler = ErasedHandler::new(ToolAdapter::new(RigAdd));
    let rig_dispatch = || runtime.block_on(serve_inline(&handler, rig_effect()));
    assert_eq!(rig_text(&rig_dispatch().expect("served")), "42");
    group.bench_function("rig_handler_by_name", |b| {
        b.iter(|| black_box(rig_dispatch()))
    });

    group.finish();
    drop(running);
}

/// Each ratio printed: a toolkit path, what it is held against, and the issue's goal.
const RATIOS: [(&str, &str, Option<f64>); 7] = [
    ("toolkit_invoke_inline", "rig_erased_tool", Some(0.75)),
    ("toolkit_invoke_inline", "rmcp_call_tool", Some(0.4)),
    ("toolkit_invoke_inline", "hand_written", Some(1.5)),
    ("toolkit_observed", "toolkit_invoke_inline", Some(1.3)),
    ("toolkit_invoke_async", "rig_erased_tool", None),
    ("toolkit_invoke_inline", "rig_handler_by_name", None),
    ("toolkit_observed", "rmcp_call_tool", None),
];

fn main() {
    let started = SystemTime::now();
    // Criterion's own order of places for its results, fixed here so they can be read back.
    let home = std::env::var_os("CRITERION_HOME").map_or_else(
        || {
            std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(
                    || Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
                    PathBuf::from,
                )
                .join("criterion")
        },
        PathBuf::from,
    );
    let mut criterion = Criterion::default()
        .output_directory(&home)
        .configure_from_args();
    peers(&mut criterion);
    criterion.final_summary();
    print_ratios(&home.join("peers"), started);
}

/// The ratios between medians measured in this run (a function filtered out of the run has
/// none, and every ratio that needs it says so).
fn print_ratios(group: &Path, started: SystemTime) {
    let median = |function: &str| -> Option<f64> {
        let path = group.join(function).join("new").join("estimates.json");
        let written = std::fs::metadata(&path)
            .and_then(|meta| meta.modified())
            .ok()?;
        if written < started {
            return None;
        }
        let estimates: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
        estimates["median"]["point_estimate"].as_f64()
    };
    println!(
        "\nratios of medians from this run (load average: {})",
        load_average()
    );
    for (path, other, goal) in RATIOS {
        let line = match (median(path), median(other)) {
            (Some(ours), Some(theirs)) => {
                let ratio = ours / theirs;
                let verdict = goal.map_or(String::new(), |goal| {
                    let met = if ratio <= goal { "met" } else { "not met" };
                    format!("  (goal <= {goal}: {met})")
                });
                format!("{ratio:.2}  {ours:.1} ns / {theirs:.1} ns{verdict}")
            }
            _ => "not measured in this run".to_owned(),
        };
        println!("  {path} / {other}: {line}");
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "unknown".to_owned(),
        |text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        },
    )
}

//! One trivial tool call, `add(a, b) -> (a + b).to_string()`, through toolkit, rmcp and rig-core.
//!
//! Every path starts from the same JSON arguments text and ends at its framework's own result
//! value; each call is one `block_on` on a current-thread runtime, and
//! [`Peers::block_on_only`] is that floor. The criterion bench (`benches/peers.rs`) times each
//! path; the `instructions` binary runs one of them under callgrind (see `instructions.sh`).

#![allow(missing_docs)]

use std::convert::Infallible;
use std::hint::black_box;

use rig_core::effect::{EffectKind, Outcome};
use rig_core::serve::adapters::ToolAdapter;
use rig_core::serve::{ErasedHandler, serve_inline};
use rig_core::tool::ErasedTool;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, InitializeRequestParams, NumberOrString,
};
use rmcp::service::{RequestContext, RunningService, serve_directly};
use rmcp::{RoleServer, ServerHandler};

/// What a model would send, as text, to every framework alike.
pub const ARGS: &str = r#"{"a": 40, "b": 2}"#;

/// Every timed path, in the bench's order.
pub const PATHS: [&str; 10] = [
    "block_on_only",
    "hand_written",
    "toolkit_invoke_inline",
    "toolkit_invoke_async",
    "toolkit_observed",
    "toolkit_observed_10_subscribers",
    "toolkit_seam_inline",
    "rmcp_call_tool",
    "rig_erased_tool",
    "rig_handler_by_name",
];

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

/// Everything the paths need, set up once: the runtime, toolkit's service and scope, rmcp's
/// running server and rig's handler.
pub struct Peers {
    runtime: tokio::runtime::Runtime,
    service: toolkit::ToolLoopService,
    scope: toolkit::RunScope,
    seam: toolkit::Seam,
    seam_scope: toolkit::RunScope,
    call: toolkit::ToolCall,
    watched: toolkit::ToolLoopService,
    watched_scope: toolkit::RunScope,
    server: Calculator,
    context: RequestContext<RoleServer>,
    // The running rmcp service and the client end of its pipe stay alive as long as the paths.
    _running: RunningService<RoleServer, Calculator>,
    _client_end: tokio::io::DuplexStream,
    handler: ErasedHandler,
}

impl Peers {
    /// Sets every framework up and checks once that each path answers `42`.
    ///
    /// # Panics
    /// When a framework cannot be set up or a path answers anything else.
    #[must_use]
    pub fn new() -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let service =
            toolkit::ToolLoopService::new(toolkit::ToolRegistry::linked().expect("unique"));
        let scope = service
            .scope(toolkit::ToolContext::new())
            .expect("no tool reads state");
        let seam = toolkit::Seam::new(toolkit::ToolRegistry::linked().expect("unique"));
        let seam_scope = seam
            .scope(toolkit::ToolContext::new())
            .expect("no tool reads state");
        // The host's call, borrowed as `invoke` borrows the host's text.
        let call = toolkit::ToolCall::new("call_1", "add", ARGS);
        // A service whose events ten subscribers drain, on the same runtime (they run whenever
        // a call waits, as an inspector's listeners would).
        let watched =
            toolkit::ToolLoopService::new(toolkit::ToolRegistry::linked().expect("unique"));
        let watched_scope = watched
            .scope(toolkit::ToolContext::new())
            .expect("no tool reads state");
        for _ in 0..10 {
            let mut events = watched.subscribe();
            runtime.spawn(async move { while events.recv().await.is_ok() {} });
        }

        // `Peer::new` is crate-private, so the server's peer comes from really serving it over
        // an in-memory pipe; `serve_directly` skips the initialize handshake, which `call_tool`
        // never consults.
        let server = Calculator::new();
        let (client_end, server_end) = tokio::io::duplex(4096);
        let running = runtime.block_on(async {
            serve_directly::<RoleServer, _, _, _, _>(
                server.clone(),
                server_end,
                Some(InitializeRequestParams::default()),
            )
        });
        let context = RequestContext::new(NumberOrString::Number(1), running.peer().clone());
        let handler = ErasedHandler::new(ToolAdapter::new(RigAdd));
        let peers = Self {
            runtime,
            service,
            scope,
            seam,
            seam_scope,
            call,
            watched,
            watched_scope,
            server,
            context,
            _running: running,
            _client_end: client_end,
            handler,
        };
        for path in PATHS.into_iter().filter(|path| *path != "block_on_only") {
            assert_eq!(peers.run(path), Some("42".to_owned()), "{path}");
        }
        peers
    }

    /// Runs the path named `path` once and gives its answer's text; `None` for no such path.
    /// (`block_on_only` answers `2`.)
    ///
    /// # Panics
    /// When a framework fails the call.
    #[must_use]
    pub fn run(&self, path: &str) -> Option<String> {
        let text = match path {
            "block_on_only" => self.block_on_only().to_string(),
            "hand_written" => self.hand_written(),
            "toolkit_invoke_inline" => self.toolkit_invoke("add").content().to_owned(),
            "toolkit_invoke_async" => self
                .toolkit_invoke("add_async")
                .content()
                .to_owned(),
            "toolkit_observed" => self.toolkit_observed().wire().as_str().to_owned(),
            "toolkit_observed_10_subscribers" => {
                self.toolkit_observed_watched().wire().as_str().to_owned()
            }
            "toolkit_seam_inline" => self.toolkit_seam("add").content().to_owned(),
            "rmcp_call_tool" => rmcp_text(&self.rmcp_call_tool().expect("called")).to_owned(),
            "rig_erased_tool" => self
                .rig_erased_tool()
                .output()
                .as_text()
                .expect("text")
                .to_owned(),
            "rig_handler_by_name" => rig_text(&self.rig_handler_by_name().expect("served")),
            _ => return None,
        };
        Some(text)
    }

    /// Runs the path named `path` `calls` times, keeping each answer from the optimiser.
    /// Gives `false` for no such path.
    #[must_use]
    pub fn repeat(&self, path: &str, calls: u64) -> bool {
        macro_rules! repeat {
            ($call:expr) => {{
                for _ in 0..calls {
                    let _ = black_box($call);
                }
                true
            }};
        }
        match path {
            "block_on_only" => repeat!(self.block_on_only()),
            "hand_written" => repeat!(self.hand_written()),
            "toolkit_invoke_inline" => repeat!(self.toolkit_invoke("add")),
            "toolkit_invoke_async" => repeat!(self.toolkit_invoke("add_async")),
            "toolkit_observed" => repeat!(self.toolkit_observed()),
            "toolkit_observed_10_subscribers" => repeat!(self.toolkit_observed_watched()),
            "toolkit_seam_inline" => repeat!(self.toolkit_seam("add")),
            "rmcp_call_tool" => repeat!(self.rmcp_call_tool()),
            "rig_erased_tool" => repeat!(self.rig_erased_tool()),
            "rig_handler_by_name" => repeat!(self.rig_handler_by_name()),
            _ => false,
        }
    }

    /// `block_on` of a ready future: the floor.
    pub fn block_on_only(&self) -> i64 {
        self.runtime.block_on(async { black_box(2i64) })
    }

    /// `serde_json::from_str` into a struct, then the sum.
    pub fn hand_written(&self) -> String {
        self.runtime.block_on(async {
            let Pair { a, b } = serde_json::from_str(black_box(ARGS)).expect("a pair");
            (a + b).to_string()
        })
    }

    /// `ToolLoopService::invoke` of the tool named `name`.
    pub fn toolkit_invoke(&self, name: &str) -> toolkit::BoundedResult {
        self.runtime.block_on(
            self.service
                .invoke(&self.scope, black_box(name), black_box(ARGS)),
        )
    }

    /// `Seam::invoke` of the tool named `name`: the service's `invoke` without the service.
    pub fn toolkit_seam(&self, name: &str) -> toolkit::BoundedResult {
        self.runtime.block_on(
            self.seam
                .invoke(&self.seam_scope, black_box(name), black_box(ARGS)),
        )
    }

    /// `call_observed` of a `ToolCall` the host holds (borrowed, as `invoke` borrows its
    /// text), nobody observing.
    pub fn toolkit_observed(&self) -> toolkit::recording::ObservedCall {
        self.runtime.block_on(self.service.call_observed(
            &self.scope,
            "bench",
            black_box(&self.call),
        ))
    }

    /// `call_observed` as [`toolkit_observed`](Self::toolkit_observed) does it, with ten
    /// subscribers draining the service's events.
    pub fn toolkit_observed_watched(&self) -> toolkit::recording::ObservedCall {
        self.runtime.block_on(self.watched.call_observed(
            &self.watched_scope,
            "bench",
            black_box(&self.call),
        ))
    }

    /// Decoding the arguments text into a map (what rmcp's transport does) and
    /// `ServerHandler::call_tool` through `#[tool_router]` / `#[tool_handler]`.
    ///
    /// `call_tool` takes its context by value, so one clone per call is unavoidable (a few
    /// `Arc` increments); rmcp's own serve loop builds a fresh context for every request anyway.
    ///
    /// # Errors
    /// rmcp's, as it gives them.
    pub fn rmcp_call_tool(&self) -> Result<CallToolResponse, rmcp::ErrorData> {
        let arguments = serde_json::from_str(black_box(ARGS)).expect("an object");
        let params = CallToolRequestParams::new("add").with_arguments(arguments);
        self.runtime.block_on(ServerHandler::call_tool(
            &self.server,
            params,
            self.context.clone(),
        ))
    }

    /// `ErasedTool::execute` of a `Tool`, with a new `ToolContext` and an owned copy of the
    /// arguments (rig's erased tool takes them as an owned `String`: that copy is counted).
    pub fn rig_erased_tool(&self) -> rig_core::tool::ToolResult {
        self.runtime.block_on(async {
            let mut context = rig_core::tool::ToolContext::new();
            ErasedTool::execute(&RigAdd, black_box(ARGS).to_owned(), &mut context).await
        })
    }

    /// `serve_inline` of an `ErasedHandler` around a `ToolAdapter`.
    ///
    /// rig-core has no public registry that looks a tool up by name: routing by key is a
    /// driver's job (outside rig-core). `serve_inline` runs one erased handler, whose adapter
    /// checks the effect's tool name against its own, so this is rig's by-name path minus the
    /// key lookup.
    ///
    /// # Errors
    /// rig's, as it gives them.
    #[allow(clippy::result_large_err)] // rig-core's own `ErrorReport`, returned as rig returns it.
    pub fn rig_handler_by_name(&self) -> Result<Outcome, rig_core::ErrorReport> {
        let effect = EffectKind::ToolCall {
            name: "add".into(),
            args: black_box(ARGS).into(),
        };
        self.runtime.block_on(serve_inline(&self.handler, effect))
    }
}

impl Default for Peers {
    fn default() -> Self {
        Self::new()
    }
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

//! Serving a [`ToolLoopService`] to MCP hosts: every call through the seam, artifacts kept local.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use toolkit::{RunScope, ToolCall, ToolContext, ToolLoopService, seam::ScopeError};

use crate::views::{
    ARTIFACTS_TOOL, ArtifactsReply, Kept, ModelReply, UI_EXTENSION, VIEW_URI, artifacts_tool,
    shows_views, view_contents, view_resource, with_view,
};

/// The path the streamable HTTP endpoint is served under: `http://127.0.0.1:PORT/mcp`.
pub const HTTP_PATH: &str = "/mcp";

/// What the server calls itself to hosts, and the `source` of its calls' run ids (`mcp_<uuid>`).
const SOURCE: &str = "mcp";

/// An MCP server over one service: `tools/list` gives the tools a fresh scope of `context`
/// offers; each `tools/call` is one [`ToolLoopService::call_observed`] in such a scope, and the
/// reply is the bounded content as one text block with `isError` from the result.
///
/// Tools that require an operator's approval are not offered: a single MCP call has no operator
/// to ask, and the host's own confirmation is not ours. Calls of them are `not permitted`.
///
/// A model-facing reply ([`ModelReply`]) never carries artifacts, in no field: a host forwards
/// replies to a model. Artifacts go to the service's event stream, as for any run, and, for a
/// client that shows MCP Apps views, to the app-only tool [`ARTIFACTS_TOOL`] under a handle that
/// only the reply's `_meta` holds (see [`views`](crate::views)). Such a client sees every tool
/// name the view [`VIEW_URI`], which the server serves as its one resource; its tools are told
/// that people see their artifacts, other clients' that no one does. A registered tool of that
/// name is not offered: the name is the server's.
#[derive(Clone)]
pub struct McpToolServer {
    service: Arc<ToolLoopService>,
    context: ToolContext,
    /// What `context` is offered by default, less the tools that require approval.
    offered: Arc<[String]>,
    calls: Arc<AtomicU64>,
    kept: Arc<Kept>,
}

impl McpToolServer {
    /// A server offering what `service.scope(context)` offers, less the tools that require
    /// approval. Fails, before any host connects, when an offered tool reads a state `context`
    /// does not hold.
    pub fn new(service: Arc<ToolLoopService>, context: ToolContext) -> Result<Self, ScopeError> {
        let registry = service.registry();
        let offered = service
            .scope(context.clone())?
            .offered()
            .filter(|name| {
                *name != ARTIFACTS_TOOL
                    && registry
                        .get(name)
                        .is_some_and(|tool| !tool.spec().flags().requires_approval())
            })
            .map(str::to_owned)
            .collect();
        Ok(Self {
            service,
            context,
            offered,
            calls: Arc::new(AtomicU64::new(0)),
            kept: Arc::default(),
        })
    }

    /// A scope for one call, offering what [`new`](Self::new) checked. Its tools are told that
    /// people see their artifacts only when the client shows the view.
    fn scope(&self, views: bool) -> RunScope {
        let context = self.context.clone().with_artifacts_shown(views);
        self.service
            .seam()
            .scope_offering(context, self.offered.iter())
            .expect("checked when the server was made, from this service's registry")
    }

    /// The tools a host sees, in registry order.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        let scope = self.scope(false);
        scope
            .offered()
            .filter_map(|name| self.service.registry().get(name))
            .map(|tool| {
                let spec = tool.spec();
                // Type arrays split into `anyOf`: the same values, a more portable spelling.
                let schema = match crate::portable::portable(spec.input_schema()) {
                    serde_json::Value::Object(schema) => schema,
                    // MCP requires an object schema; a tool without one takes no arguments.
                    _ => serde_json::Map::from_iter([("type".to_owned(), "object".into())]),
                };
                rmcp::model::Tool::new(
                    spec.name().to_owned(),
                    spec.description().to_owned(),
                    schema,
                )
            })
            .collect()
    }

    /// Runs one call through the seam for a client that shows no views: the reply is the
    /// bounded content only.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> ModelReply {
        self.reply(name, arguments, false).await
    }

    /// Runs one call through the seam for a client that shows MCP Apps views: the reply is the
    /// bounded content, and, when the call made artifacts, the handle under which the view
    /// gets them from [`artifacts`](Self::artifacts).
    pub async fn call_for_views(
        &self,
        name: &str,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> ModelReply {
        self.reply(name, arguments, true).await
    }

    /// The artifacts of the call a handle from [`call_for_views`](Self::call_for_views) names,
    /// while it is kept.
    pub fn artifacts(&self, handle: &str) -> Option<ArtifactsReply> {
        self.kept.reply(handle)
    }

    async fn reply(
        &self,
        name: &str,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
        views: bool,
    ) -> ModelReply {
        let arguments = arguments.map_or_else(
            || "{}".to_owned(),
            |arguments| serde_json::Value::Object(arguments.clone()).to_string(),
        );
        let number = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let call = ToolCall::new(format!("{SOURCE}_call_{number}"), name, arguments);
        let scope = self.scope(views);
        let observed = self.service.call_observed(&scope, SOURCE, &call).await;
        let handle = (views && !observed.artifacts().is_empty()).then(|| {
            let artifacts = observed.artifacts().to_vec();
            let count = artifacts.len();
            (self.kept.keep(name, artifacts), count)
        });
        ModelReply::new(observed.wire().clone(), handle)
    }

    /// The app-only tool's answer to a view: the artifacts its handle names, or why not.
    fn artifacts_call(
        &self,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> CallToolResult {
        let Some(handle) = arguments
            .and_then(|arguments| arguments.get("handle"))
            .and_then(serde_json::Value::as_str)
        else {
            return CallToolResult::error(vec![rmcp::model::ContentBlock::text(format!(
                "Error: invalid arguments for tool \"{ARTIFACTS_TOOL}\": `handle` (a string) is required."
            ))]);
        };
        self.artifacts(handle).map_or_else(
            || {
                CallToolResult::error(vec![rmcp::model::ContentBlock::text(format!(
                    "Error: no artifacts are kept under this handle (a call's artifacts are kept \
                     for {} minutes, for the {} latest calls).",
                    crate::views::HANDLE_LIFETIME.as_secs() / 60,
                    crate::views::KEPT_CALLS
                ))])
            },
            CallToolResult::from,
        )
    }
}

/// Whether the client of this request shows MCP Apps views: from the capabilities in the
/// request's `_meta` (2026-07-28), else from those of its initialize handshake.
fn client_shows_views(context: &RequestContext<RoleServer>) -> bool {
    let capabilities: Option<ClientCapabilities> =
        context.meta.client_capabilities().or_else(|| {
            context
                .peer
                .peer_info()
                .map(|info| info.capabilities.clone())
        });
    capabilities.is_some_and(|capabilities| shows_views(&capabilities))
}

impl ServerHandler for McpToolServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        capabilities.extensions = Some([(UI_EXTENSION.to_owned(), serde_json::Map::new())].into());
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("toolkit", env!("CARGO_PKG_VERSION")))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![view_resource()]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == VIEW_URI {
            Ok(ReadResourceResult::new(vec![view_contents()]).into())
        } else {
            Err(ErrorData::resource_not_found(
                format!(
                    "no resource {}: this server serves {VIEW_URI} only",
                    toolkit::bound::echo(&request.uri)
                ),
                None,
            ))
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = self.tools();
        if client_shows_views(&context) {
            tools = tools.into_iter().map(with_view).collect();
            tools.push(artifacts_tool());
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.as_ref();
        // A client that shows no views gets for the app-only tool what any tool not offered
        // gets: the seam's refusal.
        let result = if !client_shows_views(&context) {
            self.call(&request.name, arguments).await.into()
        } else if request.name == ARTIFACTS_TOOL {
            self.artifacts_call(arguments)
        } else {
            CallToolResult::from(self.call_for_views(&request.name, arguments).await)
        };
        Ok(result.into())
    }
}

/// Serves `service` over stdin and stdout until the host closes the connection. A tool whose
/// state `context` lacks is an `InvalidInput` error, before anything is served.
pub async fn serve_stdio(service: Arc<ToolLoopService>, context: ToolContext) -> io::Result<()> {
    let running = McpToolServer::new(service, context)
        .map_err(invalid_input)?
        .serve(rmcp::transport::stdio())
        .await
        .map_err(io::Error::other)?;
    running.waiting().await.map_err(io::Error::other)?;
    Ok(())
}

/// Serves `service` over streamable HTTP at `http://127.0.0.1:PORT/mcp` until the process ends.
/// Port 0 picks a free port; `on_bound` is told the address before the first request is served.
/// A tool whose state `context` lacks is an `InvalidInput` error, before the port is bound.
///
/// Only loopback Hosts are served, and a request with an `Origin` only from this server's own
/// origin: a web page elsewhere (or one reached by DNS rebinding) cannot call tools.
pub async fn serve_http(
    service: Arc<ToolLoopService>,
    context: ToolContext,
    port: u16,
    on_bound: impl FnOnce(SocketAddr),
) -> io::Result<()> {
    let server = McpToolServer::new(service, context).map_err(invalid_input)?;
    let listener =
        tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
    let address = listener.local_addr()?;
    on_bound(address);
    // Hosts other than loopback are refused (DNS rebinding), and so is a browser page of any
    // other origin; clients that are not browsers send no Origin and pass.
    let bound = address.port();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_origins([
            format!("http://127.0.0.1:{bound}"),
            format!("http://localhost:{bound}"),
        ])
        .enforce_origin_validation();
    let http = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let app = axum::Router::new().nest_service(HTTP_PATH, http);
    axum::serve(listener, app).await
}

fn invalid_input(error: ScopeError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::{HANDLE_LIFETIME, KEPT_CALLS};
    use rmcp::model::ContentBlock;
    use serde_json::json;
    use toolkit::{
        Table, Tool, ToolArtifact, ToolRegistry, ToolResult, ToolSpec,
        spec::{ExecutePermit, ToolFlags, ToolFuture},
    };

    struct Says(ToolSpec);

    impl Tool for Says {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }

        fn execute<'a>(
            &'a self,
            _arguments: &'a str,
            _context: &'a ToolContext,
            _permit: &ExecutePermit,
        ) -> ToolFuture<'a> {
            ToolFuture::Ready(Ok(ToolResult::text("said")))
        }
    }

    fn server() -> McpToolServer {
        let schema = serde_json::json!({"type": "object"});
        let mut registry = ToolRegistry::new();
        registry
            .register(Says(ToolSpec::new("plain", "Says.", schema.clone())))
            .expect("new name");
        registry
            .register(Says(
                ToolSpec::new("guarded", "Says after approval.", schema)
                    .with_flags(ToolFlags::new().with_requires_approval(true)),
            ))
            .expect("new name");
        McpToolServer::new(Arc::new(ToolLoopService::new(registry)), ToolContext::new())
            .expect("no tool reads state")
    }

    /// Says whether its context shows artifacts to anyone.
    struct Tells(ToolSpec);

    impl Tool for Tells {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }

        fn execute<'a>(
            &'a self,
            _arguments: &'a str,
            context: &'a ToolContext,
            _permit: &ExecutePermit,
        ) -> ToolFuture<'a> {
            ToolFuture::Ready(Ok(ToolResult::text(format!(
                "artifacts shown: {}",
                context.artifacts_shown()
            ))))
        }
    }

    #[tokio::test]
    async fn tools_are_told_that_people_see_their_artifacts_only_where_the_view_shows_them() {
        let mut registry = ToolRegistry::new();
        registry
            .register(Tells(ToolSpec::new(
                "tells",
                "Tells.",
                serde_json::json!({"type": "object"}),
            )))
            .expect("new name");
        let service = Arc::new(ToolLoopService::new(registry));
        let context = ToolContext::new();
        assert!(context.artifacts_shown());
        let server = McpToolServer::new(service, context).expect("no state needed");
        assert_eq!(
            server.call("tells", None).await.text(),
            "artifacts shown: false"
        );
        assert_eq!(
            server.call_for_views("tells", None).await.text(),
            "artifacts shown: true"
        );
    }

    #[test]
    fn a_server_whose_context_lacks_a_tools_state_is_refused_before_serving() {
        struct Pool;
        let mut registry = ToolRegistry::new();
        registry
            .register(Says(
                ToolSpec::new("query", "Queries.", serde_json::json!({"type": "object"}))
                    .with_state::<Pool>(),
            ))
            .expect("new name");
        let service = Arc::new(ToolLoopService::new(registry));
        let Err(error) = McpToolServer::new(Arc::clone(&service), ToolContext::new()) else {
            panic!("a server without the state");
        };
        assert_eq!(
            error.to_string(),
            "the context does not hold the state offered tools read: tool \"query\" reads \
             `toolkit_mcp::server::tests::a_server_whose_context_lacks_a_tools_state_is_refused_before_serving::Pool`. \
             Add each with `ToolContext::with_extension`, or offer only the tools whose state is \
             there (`Seam::scope_offering`)"
        );
        let server = McpToolServer::new(service, ToolContext::new().with_extension(Pool))
            .expect("the state is there");
        assert_eq!(server.tools().len(), 1);
    }

    #[test]
    fn tools_needing_approval_are_not_listed() {
        let names: Vec<String> = server()
            .tools()
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect();
        assert_eq!(names, ["plain"]);
    }

    #[tokio::test]
    async fn tools_needing_approval_are_not_permitted_and_others_answer_in_one_text_block() {
        let server = server();
        let refused = CallToolResult::from(server.call("guarded", None).await);
        assert_eq!(refused.is_error, Some(true));
        assert_eq!(
            refused.content,
            [ContentBlock::text("Error: tool \"guarded\" not permitted")]
        );
        let said = CallToolResult::from(server.call("plain", None).await);
        assert_eq!(said.is_error, Some(false));
        assert_eq!(said.content, [ContentBlock::text("said")]);
        assert_eq!(said.structured_content, None);
        assert_eq!(said.meta, None);
    }

    /// Makes a table and a text whose every string is a canary.
    struct Canary(ToolSpec);

    impl Tool for Canary {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }

        fn execute<'a>(
            &'a self,
            _arguments: &'a str,
            _context: &'a ToolContext,
            _permit: &ExecutePermit,
        ) -> ToolFuture<'a> {
            let table = Table::from_rows(["CANARY-COLUMN"], [["CANARY-CELL"]]).expect("one column");
            ToolFuture::Ready(Ok(ToolResult::text_with(
                "shown to people only",
                [
                    ToolArtifact::table("CANARY-LABEL", table),
                    ToolArtifact::text("note", "CANARY-TEXT"),
                ],
            )))
        }
    }

    fn canary_server() -> McpToolServer {
        let mut registry = ToolRegistry::new();
        for name in ["canary", ARTIFACTS_TOOL] {
            registry
                .register(Canary(ToolSpec::new(
                    name,
                    "Shows canaries.",
                    json!({"type": "object"}),
                )))
                .expect("new name");
        }
        registry
            .register(Says(ToolSpec::new(
                "plain",
                "Says.",
                json!({"type": "object"}),
            )))
            .expect("new name");
        McpToolServer::new(Arc::new(ToolLoopService::new(registry)), ToolContext::new())
            .expect("no tool reads state")
    }

    #[tokio::test]
    async fn a_client_that_shows_views_gets_a_handle_and_the_view_the_artifacts_by_it() {
        let server = canary_server();
        let reply = server.call_for_views("canary", None).await;
        assert_eq!(
            (reply.text(), reply.is_error()),
            ("shown to people only", false)
        );
        let handle = reply.handle().expect("the call made artifacts").to_owned();
        assert_eq!(handle.len(), 32);
        let model_side = serde_json::to_string(&CallToolResult::from(reply)).expect("JSON");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&model_side).expect("JSON"),
            json!({
                "resultType": "complete",
                "content": [{"type": "text", "text": "shown to people only"}],
                "isError": false,
                "_meta": {"toolkit/artifacts": {"handle": handle, "count": 2}},
            })
        );
        assert!(!model_side.contains("CANARY"));

        let view_side = server.artifacts(&handle).expect("a live handle");
        assert_eq!(view_side.tool(), "canary");
        assert_eq!(view_side.artifacts().len(), 2);
        let view_side = CallToolResult::from(view_side);
        assert_eq!(
            view_side.content,
            [ContentBlock::text(
                "2 artifact(s) of a call of tool \"canary\", for the artifacts view."
            )]
        );
        assert_eq!(
            view_side.structured_content,
            Some(json!({"tool": "canary", "artifacts": [
                {"type": "table", "label": "CANARY-LABEL",
                 "data": {"columns": ["CANARY-COLUMN"], "rows": [["CANARY-CELL"]]}},
                {"type": "text", "label": "note", "data": {"text": "CANARY-TEXT"}},
            ]}))
        );
        // Each call has a handle of its own.
        let again = server.call_for_views("canary", None).await;
        assert_ne!(again.handle(), Some(handle.as_str()));
    }

    #[tokio::test]
    async fn no_handle_without_views_or_without_artifacts() {
        let server = canary_server();
        let reply = server.call("canary", None).await;
        assert_eq!(reply.handle(), None);
        assert_eq!(CallToolResult::from(reply).meta, None);
        let reply = server.call_for_views("plain", None).await;
        assert_eq!(reply.handle(), None);
        assert_eq!(CallToolResult::from(reply).meta, None);
    }

    #[tokio::test]
    async fn the_artifacts_tool_refuses_a_missing_or_unknown_handle_and_its_name_is_the_servers() {
        let server = canary_server();
        let missing = server.artifacts_call(None);
        assert_eq!(missing.is_error, Some(true));
        assert_eq!(
            missing.content,
            [ContentBlock::text(
                "Error: invalid arguments for tool \"toolkit_artifacts\": `handle` (a string) is required."
            )]
        );
        let arguments = json!({"handle": "0123456789abcdef0123456789abcdef"});
        let unknown = server.artifacts_call(arguments.as_object());
        assert_eq!(unknown.is_error, Some(true));
        assert_eq!(
            unknown.content,
            [ContentBlock::text(
                "Error: no artifacts are kept under this handle (a call's artifacts are kept for 30 minutes, for the 256 latest calls)."
            )]
        );
        // The registered tool of the reserved name is not offered, not even to a model.
        let names: Vec<String> = server
            .tools()
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect();
        assert_eq!(names, ["canary", "plain"]);
        let refused = server.call(ARTIFACTS_TOOL, None).await;
        assert!(refused.is_error());
        assert_eq!(
            refused.text(),
            "Error: tool \"toolkit_artifacts\" not permitted"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn handles_expire_and_only_the_latest_calls_are_kept() {
        let kept = Kept::default();
        let artifact = || vec![ToolArtifact::text("note", "kept")];
        let first = kept.keep("canary", artifact());
        let second = std::time::Duration::from_secs(1);
        let almost = HANDLE_LIFETIME
            .checked_sub(second)
            .expect("longer than a second");
        tokio::time::advance(almost).await;
        assert!(kept.reply(&first).is_some());
        tokio::time::advance(second).await;
        assert!(kept.reply(&first).is_none());

        let handles: Vec<String> = (0..=KEPT_CALLS)
            .map(|_| kept.keep("canary", artifact()))
            .collect();
        assert!(kept.reply(&handles[0]).is_none());
        assert!(
            handles[1..]
                .iter()
                .all(|handle| kept.reply(handle).is_some())
        );
    }
}

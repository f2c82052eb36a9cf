//! Serving a [`ToolLoopService`] to MCP hosts: every call through the seam, artifacts kept local.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use toolkit::{RunScope, ToolCall, ToolContext, ToolLoopService, seam::ScopeError};

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
/// The reply never carries artifacts (not in `structuredContent`, not in `_meta`): a host forwards
/// replies to a model. Artifacts go to the service's event stream, as for any run.
#[derive(Clone)]
pub struct McpToolServer {
    service: Arc<ToolLoopService>,
    context: ToolContext,
    /// What `context` is offered by default, less the tools that require approval.
    offered: Arc<[String]>,
    calls: Arc<AtomicU64>,
}

impl McpToolServer {
    /// A server offering what `service.scope(context)` offers, less the tools that require
    /// approval. Fails, before any host connects, when an offered tool reads a state `context`
    /// does not hold.
    pub fn new(service: Arc<ToolLoopService>, context: ToolContext) -> Result<Self, ScopeError> {
        // Replies carry only the content: no one here sees an artifact.
        let context = context.with_artifacts_shown(false);
        let registry = service.registry();
        let offered = service
            .scope(context.clone())?
            .offered()
            .filter(|name| {
                registry
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
        })
    }

    /// A scope for one call, offering what [`new`](Self::new) checked.
    fn scope(&self) -> RunScope {
        self.service
            .seam()
            .scope_offering(self.context.clone(), self.offered.iter())
            .expect("checked when the server was made, from this service's registry")
    }

    /// The tools a host sees, in registry order.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        let scope = self.scope();
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

    /// Runs one call through the seam and gives the MCP reply: the bounded content only.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> CallToolResult {
        let arguments = arguments.map_or_else(
            || "{}".to_owned(),
            |arguments| serde_json::Value::Object(arguments.clone()).to_string(),
        );
        let number = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let call = ToolCall::new(format!("{SOURCE}_call_{number}"), name, arguments);
        let scope = self.scope();
        let observed = self.service.call_observed(&scope, SOURCE, &call).await;
        let wire = observed.wire();
        let content = vec![ContentBlock::text(wire.as_str())];
        if wire.is_error() {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
    }
}

impl ServerHandler for McpToolServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("toolkit", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(self
            .call(&request.name, request.arguments.as_ref())
            .await
            .into())
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
    use toolkit::{
        Tool, ToolRegistry, ToolResult, ToolSpec,
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
    async fn tools_served_over_mcp_are_told_that_no_one_sees_their_artifacts() {
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
        let reply = server.call("tells", None).await;
        let text = serde_json::to_value(&reply.content).expect("content");
        assert_eq!(text[0]["text"], "artifacts shown: false");
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
        let refused = server.call("guarded", None).await;
        assert_eq!(refused.is_error, Some(true));
        assert_eq!(
            refused.content,
            [ContentBlock::text("Error: tool \"guarded\" not permitted")]
        );
        let said = server.call("plain", None).await;
        assert_eq!(said.is_error, Some(false));
        assert_eq!(said.content, [ContentBlock::text("said")]);
        assert_eq!(said.structured_content, None);
        assert_eq!(said.meta, None);
    }
}

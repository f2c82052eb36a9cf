//! Using MCP servers' tools inside the loop: each becomes a remote [`Tool`] in a registry.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use toolkit::bound::echo;
use toolkit::{
    Tool, ToolContext, ToolRegistry, ToolResult, ToolSpec,
    spec::{ArgumentError, ExecutePermit, ToolFlags, ToolFuture, check_tool_name},
};

/// How long a server may take to start and list its tools before it counts as not available.
pub const START_TIMEOUT: Duration = Duration::from_secs(20);

/// How to reach one MCP server.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpTransport {
    /// Start `command` with `args` and talk over its stdin and stdout.
    Command {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// Connect to a streamable HTTP endpoint, such as `http://127.0.0.1:8000/mcp`.
    Url(String),
}

/// One MCP server to take tools from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpServerConfig {
    /// The server's name, used in warnings, errors and the tools' group (`mcp:NAME`).
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
}

impl McpServerConfig {
    /// A server started as a child process.
    pub fn command<I, S>(name: impl Into<String>, command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            name: name.into(),
            transport: McpTransport::Command {
                command: command.into(),
                args: args.into_iter().map(Into::into).collect(),
            },
        }
    }

    /// A server at a streamable HTTP URL.
    pub fn url(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            transport: McpTransport::Url(url.into()),
        }
    }
}

/// What [`add_mcp_tools`] did: the tools it added and what it could not add.
#[derive(Debug, Default)]
pub struct McpTools {
    added: Vec<String>,
    warnings: Vec<String>,
    revisions: Vec<(String, String)>,
}

impl McpTools {
    /// The names of the tools added, in the order added.
    pub fn added(&self) -> &[String] {
        &self.added
    }

    /// One line per server that was not available and per tool that was dropped (a name taken
    /// already, or not a valid tool name). Each is also logged as a warning.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The MCP revision agreed with each server that started, by the server's name, in order:
    /// `2026-07-28` with a server that answers `server/discover`, else the one the initialize
    /// handshake agreed on (such as `2025-11-25`).
    pub fn revisions(&self) -> &[(String, String)] {
        &self.revisions
    }
}

/// Connects to each server, lists its tools and registers each as a remote tool (it counts
/// against a run's budget of remote calls) in the group `mcp:NAME`.
///
/// A tool whose name is already registered (say, a builtin) is dropped with a warning: what is
/// there first wins. A server that does not start loses only its own tools, with a warning; one
/// that dies later makes its tools' calls give `Error: MCP server "NAME" is not available: ...`.
/// The connections live as long as the registered tools.
pub async fn add_mcp_tools(registry: &mut ToolRegistry, servers: &[McpServerConfig]) -> McpTools {
    let mut outcome = McpTools::default();
    for config in servers {
        let server = echo(&config.name);
        let (connection, tools) = match connect(config).await {
            Ok(connected) => connected,
            Err(reason) => {
                outcome.warn(format!(
                    "MCP server \"{server}\" is not available: {reason}; it adds no tools."
                ));
                continue;
            }
        };
        let connection = Arc::new(connection);
        if let Some(info) = connection.running.peer_info() {
            let revision = info.protocol_version.as_str().to_owned();
            outcome.revisions.push((config.name.clone(), revision));
        }
        for tool in tools {
            let name = tool.name.to_string();
            if let Err(invalid) = check_tool_name(&name) {
                outcome.warn(format!(
                    "MCP server \"{server}\": tool \"{}\" is dropped: {invalid}.",
                    echo(&name)
                ));
                continue;
            }
            if let Some(existing) = registry.get(&name) {
                outcome.warn(format!(
                    "MCP server \"{server}\": tool \"{name}\" is dropped: a tool of that name is already registered (defined at {}).",
                    existing.spec().place()
                ));
                continue;
            }
            let remote = RemoteTool::new(Arc::clone(&connection), tool);
            match registry.register(remote) {
                Ok(()) => outcome.added.push(name),
                Err(duplicate) => outcome.warn(format!(
                    "MCP server \"{server}\": tool \"{name}\" is dropped: {duplicate}."
                )),
            }
        }
    }
    outcome
}

impl McpTools {
    fn warn(&mut self, warning: String) {
        tracing::warn!("{warning}");
        self.warnings.push(warning);
    }
}

/// A live client session with one server.
struct Connection {
    name: String,
    running: RunningService<RoleClient, ()>,
}

/// Why a server is not available.
#[derive(Debug, thiserror::Error)]
enum ConnectError {
    #[error("cannot start `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Initialize(String),
    #[error("cannot list its tools: {0}")]
    List(rmcp::ServiceError),
    #[error("it did not answer within {} s", START_TIMEOUT.as_secs())]
    Timeout,
}

/// Asks `server/discover` first and speaks 2026-07-28 with a server that answers it (no
/// session: every request carries what it needs); a server that does not know the method gets
/// the initialize handshake of the revisions before.
fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: None,
    }
}

async fn connect(
    config: &McpServerConfig,
) -> Result<(Connection, Vec<rmcp::model::Tool>), ConnectError> {
    let start = async {
        let running = match &config.transport {
            McpTransport::Command { command, args } => {
                let mut child = tokio::process::Command::new(command);
                child.args(args);
                let transport =
                    TokioChildProcess::new(child).map_err(|source| ConnectError::Spawn {
                        command: command.clone(),
                        source,
                    })?;
                ().serve_with_lifecycle(transport, lifecycle())
                    .await
                    .map_err(|error| ConnectError::Initialize(error.to_string()))?
            }
            McpTransport::Url(url) => {
                let transport = StreamableHttpClientTransport::from_uri(url.as_str());
                ().serve_with_lifecycle(transport, lifecycle())
                    .await
                    .map_err(|error| ConnectError::Initialize(error.to_string()))?
            }
        };
        let tools = running.list_all_tools().await.map_err(ConnectError::List)?;
        Ok((
            Connection {
                name: config.name.clone(),
                running,
            },
            tools,
        ))
    };
    tokio::time::timeout(START_TIMEOUT, start)
        .await
        .map_err(|_| ConnectError::Timeout)?
}

/// One tool of an MCP server, run by asking the server.
struct RemoteTool {
    spec: ToolSpec,
    connection: Arc<Connection>,
}

impl RemoteTool {
    fn new(connection: Arc<Connection>, tool: rmcp::model::Tool) -> Self {
        let server = echo(&connection.name);
        let schema = serde_json::Value::Object(tool.input_schema.as_ref().clone());
        let spec = ToolSpec::new(
            tool.name.into_owned(),
            tool.description
                .map(std::borrow::Cow::into_owned)
                .unwrap_or_default(),
            schema,
        )
        .with_group(format!("mcp:{server}"))
        .with_flags(ToolFlags::new().with_remote(true))
        .defined_at(format!("MCP server \"{server}\""));
        Self { spec, connection }
    }

    async fn call(&self, arguments: serde_json::Map<String, serde_json::Value>) -> ToolResult {
        let mut params = CallToolRequestParams::new(self.spec.name().to_owned());
        params.arguments = Some(arguments);
        match self.connection.running.call_tool(params).await {
            Ok(reply) => reply_to_result(reply),
            Err(error) => ToolResult::error(format!(
                "Error: MCP server \"{}\" is not available: {error}.",
                echo(&self.connection.name)
            )),
        }
    }
}

impl Tool for RemoteTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn execute<'a>(
        &'a self,
        arguments: &'a str,
        _context: &'a ToolContext,
        _permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        let arguments = match serde_json::from_str::<serde_json::Value>(arguments) {
            Ok(serde_json::Value::Object(arguments)) => arguments,
            Ok(other) => {
                return ToolFuture::Ready(Err(ArgumentError::new(
                    ".",
                    format!("expected a JSON object, found {}", json_kind(&other)),
                )));
            }
            Err(error) => {
                return ToolFuture::Ready(Err(ArgumentError::new(".", error.to_string())));
            }
        };
        ToolFuture::Pending(Box::pin(async move { Ok(self.call(arguments).await) }))
    }
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// The content a model sees of an MCP reply: its text blocks, one per line, after one leading
/// note naming the blocks that were dropped (images, audio, resources: the wire takes text).
fn reply_to_result(reply: CallToolResult) -> ToolResult {
    let mut texts = Vec::new();
    let mut dropped = Dropped::default();
    for block in reply.content {
        match block {
            ContentBlock::Text(text) => texts.push(text.text),
            other => dropped.add(block_kind(&other)),
        }
    }
    if texts.is_empty()
        && let Some(structured) = reply.structured_content
    {
        texts.push(structured.to_string());
    }
    let text = texts.join("\n");
    let content = match (dropped.is_empty(), text.is_empty()) {
        (true, _) => text,
        (false, true) => format!("[dropped {dropped}]"),
        (false, false) => format!("[dropped {dropped}]\n{text}"),
    };
    if reply.is_error == Some(true) {
        ToolResult::error(content)
    } else {
        ToolResult::text(content)
    }
}

fn block_kind(block: &ContentBlock) -> &'static str {
    match block {
        ContentBlock::Text(_) => "text",
        ContentBlock::Image(_) => "image",
        ContentBlock::Audio(_) => "audio",
        ContentBlock::Resource(_) => "resource",
        ContentBlock::ResourceLink(_) => "resource link",
        // A kind added to MCP after this was written.
        _ => "other",
    }
}

/// Counts of dropped blocks by kind, in the order first seen.
#[derive(Default)]
struct Dropped(Vec<(&'static str, usize)>);

impl Dropped {
    fn add(&mut self, kind: &'static str) {
        match self.0.iter_mut().find(|(seen, _)| *seen == kind) {
            Some((_, count)) => *count += 1,
            None => self.0.push((kind, 1)),
        }
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, (kind, count)) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str(if index + 1 == self.0.len() {
                    " and "
                } else {
                    ", "
                })?;
            }
            let plural = if *count == 1 { "" } else { "s" };
            write!(f, "{count} {kind} block{plural}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(blocks: Vec<ContentBlock>, is_error: bool) -> CallToolResult {
        if is_error {
            CallToolResult::error(blocks)
        } else {
            CallToolResult::success(blocks)
        }
    }

    #[test]
    fn text_blocks_pass_one_per_line() {
        let result = reply_to_result(reply(
            vec![ContentBlock::text("one"), ContentBlock::text("two")],
            false,
        ));
        assert_eq!(result.content(), "one\ntwo");
        assert!(!result.is_error());
    }

    #[test]
    fn dropped_blocks_are_named_in_one_leading_note() {
        let result = reply_to_result(reply(
            vec![
                ContentBlock::image("aGk=", "image/png"),
                ContentBlock::text("caption"),
                ContentBlock::image("aGk=", "image/png"),
                ContentBlock::text("more"),
            ],
            false,
        ));
        assert_eq!(result.content(), "[dropped 2 image blocks]\ncaption\nmore");
    }

    #[test]
    fn three_kinds_are_listed_with_commas_and_and() {
        let mut dropped = Dropped::default();
        dropped.add("image");
        dropped.add("audio");
        dropped.add("resource");
        dropped.add("image");
        assert_eq!(
            dropped.to_string(),
            "2 image blocks, 1 audio block and 1 resource block"
        );
    }

    #[test]
    fn a_reply_with_only_dropped_blocks_is_the_note_alone() {
        let result = reply_to_result(reply(vec![ContentBlock::image("aGk=", "image/png")], false));
        assert_eq!(result.content(), "[dropped 1 image block]");
    }

    #[test]
    fn is_error_makes_an_error_result() {
        let result = reply_to_result(reply(vec![ContentBlock::text("boom")], true));
        assert!(result.is_error());
        assert_eq!(result.content(), "boom");
    }
}

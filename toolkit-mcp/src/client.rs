//! Using MCP servers' tools inside the loop: each becomes a remote [`Tool`] in a registry.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, ProtocolVersion, ResourceContents,
};
use rmcp::service::RunningService;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use toolkit::bound::echo;
use toolkit::result::Media;
use toolkit::{
    Tool, ToolArtifact, ToolContext, ToolRegistry, ToolResult, ToolSpec,
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
        // The server's title when it is one a registry takes, else the first sentence's.
        let spec = match tool.title {
            Some(title) if toolkit::spec::check_tool_title(&title).is_ok() => {
                spec.with_title(title)
            }
            _ => spec,
        };
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

/// What a model sees of an MCP reply, and what people see beside it. The model gets the text
/// blocks, one per line, and the media: each image, audio block and embedded resource becomes
/// [`Media`] for the model (a text resource as a text file, `application/json` or `text/plain`;
/// a blob as its type), which the seam checks like any tool's, so what does not pass reaches
/// the model as a note and people as a download. What is neither (a resource link, data that is
/// not base64, a kind of block added to MCP later) becomes an artifact for people, and so does
/// `structuredContent` beside text blocks that do not say the same (without text blocks, it is
/// the text); one leading note names them. An error keeps no media and no artifact (the seam
/// drops an error's), so there the note says what was dropped.
fn reply_to_result(reply: CallToolResult) -> ToolResult {
    let is_error = reply.is_error == Some(true);
    let mut texts = Vec::new();
    let mut shown = Vec::new();
    let mut aside = SetAside::default();
    for block in reply.content {
        match block {
            ContentBlock::Text(text) => texts.push(text.text),
            other if is_error => aside.block(other),
            other => match model_media(&other) {
                Some(media) => shown.push(media),
                None => aside.block(other),
            },
        }
    }
    let mut text = texts.join("\n");
    match reply.structured_content {
        Some(structured) if texts.is_empty() => text = structured.to_string(),
        Some(structured) if !said(&text, &structured) => aside.structured(&structured),
        _ => {}
    }
    let note = if aside.is_empty() {
        None
    } else if is_error {
        Some(format!("[dropped {}]", aside.what()))
    } else {
        Some(format!("[set aside for people: {}]", aside.what()))
    };
    let content = match (note, text.is_empty()) {
        (None, _) => text,
        (Some(note), true) => note,
        (Some(note), false) => format!("{note}\n{text}"),
    };
    if is_error {
        ToolResult::error(content)
    } else {
        shown.into_iter().fold(
            ToolResult::text_with(content, aside.artifacts),
            ToolResult::with_media,
        )
    }
}

/// A block as media for the model, when it is media whose data is base64: an image, an audio
/// block, an embedded resource (named by its URI when that is a plain name).
fn model_media(block: &ContentBlock) -> Option<Media> {
    let decode = |data: &str| base64::engine::general_purpose::STANDARD.decode(data).ok();
    let named = |media: Media, uri: &str| {
        let plain = (1..=128).contains(&uri.len())
            && uri
                .bytes()
                .all(|byte| byte.is_ascii_graphic() && !matches!(byte, b'"' | b'\'' | b'\\'));
        if plain { media.named(uri) } else { media }
    };
    match block {
        ContentBlock::Image(image) => Some(Media::new(&*image.mime_type, decode(&image.data)?)),
        ContentBlock::Audio(audio) => Some(Media::new(&*audio.mime_type, decode(&audio.data)?)),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => {
                let json = mime_type.as_deref() == Some("application/json");
                let mime_type = if json {
                    "application/json"
                } else {
                    "text/plain"
                };
                Some(named(Media::new(mime_type, text.as_bytes()), uri))
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => {
                let mime_type = mime_type.as_deref().unwrap_or("application/octet-stream");
                Some(named(Media::new(mime_type, decode(blob)?), uri))
            }
            _ => None,
        },
        _ => None,
    }
}

/// What of a reply goes to people instead of the model: counts of the blocks by kind, in the
/// order first seen, whether the structured content did, and the artifacts they became.
#[derive(Default)]
struct SetAside {
    kinds: Vec<(&'static str, usize)>,
    structured: bool,
    artifacts: Vec<ToolArtifact>,
}

impl SetAside {
    fn block(&mut self, block: ContentBlock) {
        let kind = block_kind(&block);
        let number = if let Some((_, count)) = self.kinds.iter_mut().find(|(seen, _)| *seen == kind)
        {
            *count += 1;
            *count
        } else {
            self.kinds.push((kind, 1));
            1
        };
        let label = format!("{kind} {number}");
        let artifact = match block {
            ContentBlock::Image(image) => media(label, &image.mime_type, &image.data),
            ContentBlock::Audio(audio) => media(label, &audio.mime_type, &audio.data),
            ContentBlock::Resource(embedded) => match embedded.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => {
                    ToolArtifact::text(uri, text)
                }
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => media(
                    uri,
                    mime_type.as_deref().unwrap_or("application/octet-stream"),
                    &blob,
                ),
                // A kind of resource added to MCP after this was written.
                other => ToolArtifact::text(
                    label,
                    serde_json::to_string_pretty(&other).unwrap_or_default(),
                ),
            },
            ContentBlock::ResourceLink(link) => {
                let mut text = link.uri.clone();
                if let Some(description) = &link.description {
                    text.push('\n');
                    text.push_str(description);
                }
                ToolArtifact::text(link.name.clone(), text)
            }
            // A kind of block added to MCP after this was written, as it serialises.
            other => ToolArtifact::text(
                label,
                serde_json::to_string_pretty(&other).unwrap_or_default(),
            ),
        };
        self.artifacts.push(artifact);
    }

    fn structured(&mut self, structured: &serde_json::Value) {
        self.structured = true;
        self.artifacts.push(ToolArtifact::text(
            "structured content",
            serde_json::to_string_pretty(structured).unwrap_or_default(),
        ));
    }

    fn is_empty(&self) -> bool {
        self.kinds.is_empty() && !self.structured
    }

    /// `2 image blocks, 1 audio block and the structured content`.
    fn what(&self) -> String {
        let mut items: Vec<String> = self
            .kinds
            .iter()
            .map(|(kind, count)| {
                let plural = if *count == 1 { "" } else { "s" };
                format!("{count} {kind} block{plural}")
            })
            .collect();
        if self.structured {
            items.push("the structured content".to_owned());
        }
        match items.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

/// The kind of a block set aside (never a text block: those are what the model reads).
fn block_kind(block: &ContentBlock) -> &'static str {
    match block {
        ContentBlock::Image(_) => "image",
        ContentBlock::Audio(_) => "audio",
        ContentBlock::Resource(_) => "resource",
        ContentBlock::ResourceLink(_) => "resource link",
        // A kind added to MCP after this was written.
        _ => "other",
    }
}

/// Whether `text` says what `structured` does: as its JSON, or as the one value a plain result
/// is wrapped in (`{"result": "HELLO!"}` beside `HELLO!`, as the SDKs send a typed return).
fn said(text: &str, structured: &serde_json::Value) -> bool {
    let parsed = serde_json::from_str::<serde_json::Value>(text).ok();
    if parsed.as_ref() == Some(structured) {
        return true;
    }
    match structured
        .as_object()
        .map(|object| object.values().collect::<Vec<_>>())
    {
        Some(values) if values.len() == 1 => {
            values[0].as_str() == Some(text) || parsed.as_ref() == Some(values[0])
        }
        _ => false,
    }
}

/// Media from a block's base64 `data`; data that is not base64 is kept as the text it is.
fn media(label: String, mime_type: &str, data: &str) -> ToolArtifact {
    match base64::engine::general_purpose::STANDARD.decode(data) {
        Ok(bytes) => ToolArtifact::media(label, mime_type, bytes),
        Err(_) => ToolArtifact::text(format!("{label} (not base64)"), data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{EmbeddedResource, Resource};
    use serde_json::json;

    fn reply(blocks: Vec<ContentBlock>, is_error: bool) -> CallToolResult {
        if is_error {
            CallToolResult::error(blocks)
        } else {
            CallToolResult::success(blocks)
        }
    }

    /// Each artifact as it serialises.
    fn artifacts(result: &ToolResult) -> serde_json::Value {
        serde_json::to_value(result.artifacts()).expect("JSON")
    }

    #[test]
    fn text_blocks_pass_one_per_line() {
        let result = reply_to_result(reply(
            vec![ContentBlock::text("one"), ContentBlock::text("two")],
            false,
        ));
        assert_eq!(result.content(), "one\ntwo");
        assert!(!result.is_error());
        assert!(result.artifacts().is_empty());
    }

    /// Each media part as (MIME type, bytes, name).
    fn media(result: &ToolResult) -> Vec<(String, Vec<u8>, Option<String>)> {
        result
            .media()
            .iter()
            .map(|part| {
                let name = part.name().map(str::to_owned);
                (part.mime_type().to_owned(), part.bytes().to_vec(), name)
            })
            .collect()
    }

    #[test]
    fn media_blocks_become_media_for_the_model_and_the_rest_artifacts_named_in_one_leading_note() {
        let resource = |contents| ContentBlock::Resource(EmbeddedResource::new(contents));
        let mut json = ResourceContents::text(r#"{"n": 1}"#, "test://data");
        if let ResourceContents::TextResourceContents { mime_type, .. } = &mut json {
            *mime_type = Some("application/json".to_owned());
        }
        let result = reply_to_result(reply(
            vec![
                ContentBlock::image("aGk=", "image/png"),
                ContentBlock::text("caption"),
                ContentBlock::audio("AAE=", "audio/wav"),
                ContentBlock::image("not base64!", "image/gif"),
                resource(ResourceContents::text("a note", "file:///note.txt")),
                resource(json),
                resource(ResourceContents::blob(
                    "AP8=",
                    format!("file:///{}", "x".repeat(200)),
                )),
                ContentBlock::ResourceLink(
                    Resource::new("file:///big.csv", "big.csv").with_description("All rows."),
                ),
                ContentBlock::text("more"),
            ],
            false,
        ));
        assert_eq!(
            result.content(),
            "[set aside for people: 1 image block and 1 resource link block]\ncaption\nmore"
        );
        let text = |mime: &str, bytes: &[u8], name: Option<&str>| {
            (mime.to_owned(), bytes.to_vec(), name.map(str::to_owned))
        };
        assert_eq!(
            media(&result),
            [
                text("image/png", b"hi", None),
                text("audio/wav", &[0, 1], None),
                text("text/plain", b"a note", Some("file:///note.txt")),
                text("application/json", br#"{"n": 1}"#, Some("test://data")),
                // A URI past a plain name's 128 bytes leaves the part unnamed.
                text("application/octet-stream", &[0, 255], None),
            ]
        );
        assert_eq!(
            artifacts(&result),
            json!([
                {"type": "text", "label": "image 1 (not base64)", "data": {"text": "not base64!"}},
                {"type": "text", "label": "big.csv", "data": {"text": "file:///big.csv\nAll rows."}},
            ])
        );
    }

    #[test]
    fn structured_content_is_the_text_without_text_blocks_and_set_aside_with_them() {
        let mut alone = reply(Vec::new(), false);
        alone.structured_content = Some(json!({"n": 1}));
        let result = reply_to_result(alone);
        assert_eq!(result.content(), r#"{"n":1}"#);
        assert!(result.artifacts().is_empty());

        let mut both = reply(
            vec![
                ContentBlock::text("n is 1"),
                ContentBlock::ResourceLink(Resource::new("file:///n", "n")),
            ],
            false,
        );
        both.structured_content = Some(json!({"n": 1}));
        let result = reply_to_result(both);
        assert_eq!(
            result.content(),
            "[set aside for people: 1 resource link block and the structured content]\nn is 1"
        );
        assert_eq!(
            artifacts(&result)[1],
            json!({"type": "text", "label": "structured content", "data": {"text": "{\n  \"n\": 1\n}"}})
        );
    }

    #[test]
    fn structured_content_the_text_already_says_is_not_set_aside() {
        for (text, structured) in [
            ("HELLO!", json!({"result": "HELLO!"})),
            ("42", json!({"result": 42})),
            (r#"{"n": 1, "m": [2]}"#, json!({"n": 1, "m": [2]})),
            ("[1, 2]", json!([1, 2])),
        ] {
            let mut duplicate = reply(vec![ContentBlock::text(text)], false);
            duplicate.structured_content = Some(structured.clone());
            let result = reply_to_result(duplicate);
            assert_eq!(result.content(), text, "{structured}");
            assert!(result.artifacts().is_empty(), "{structured}");
        }
        // One value that is not the text, or more than one, says more.
        for structured in [json!({"result": "hello"}), json!({"a": "HELLO!", "b": 1})] {
            let mut more = reply(vec![ContentBlock::text("HELLO!")], false);
            more.structured_content = Some(structured.clone());
            assert_eq!(reply_to_result(more).artifacts().len(), 1, "{structured}");
        }
    }

    #[test]
    fn a_reply_with_only_blocks_set_aside_is_the_note_alone() {
        let link = ContentBlock::ResourceLink(Resource::new("file:///n", "n"));
        let result = reply_to_result(reply(vec![link], false));
        assert_eq!(
            result.content(),
            "[set aside for people: 1 resource link block]"
        );
        assert_eq!(result.artifacts().len(), 1);
    }

    #[test]
    fn an_error_keeps_no_artifact_and_says_what_was_dropped() {
        let result = reply_to_result(reply(
            vec![
                ContentBlock::text("boom"),
                ContentBlock::image("aGk=", "image/png"),
            ],
            true,
        ));
        assert!(result.is_error());
        assert_eq!(result.content(), "[dropped 1 image block]\nboom");
        assert!(result.artifacts().is_empty() && result.media().is_empty());
    }
}

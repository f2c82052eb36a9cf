//! Anthropic Messages: `tool_use` and `tool_result` blocks.

use std::borrow::Cow;
use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::http::{
    ApiKey, HttpClient, HttpOptions, arguments_value, decode, endpoint, text as lenient,
};
use super::sse::{Decoder, Read, Sse, data, streamed};
use super::stream::{Delta, DeltaStream};
use super::{
    Provider, ProviderError, ProviderFuture, ProviderRequest, ProviderResponse, StopReason,
};
use crate::media::MediaKind;
use crate::provider::Usage;
use crate::wire::{Carried, ChatMessage, ToolCall};

/// The API's own address.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

/// The environment variable holding the key.
pub const ANTHROPIC_KEY_VARIABLE: &str = "ANTHROPIC_API_KEY";

/// The API version sent.
const API_VERSION: &str = "2023-06-01";

/// The name of this wire, on the state it carries between turns.
const WIRE: &str = "anthropic";

/// The smallest thinking budget Anthropic takes.
const MIN_THINKING_BUDGET: u32 = 1024;

/// A Messages provider. Its key goes in `x-api-key` and never appears in `Debug`, logs or
/// traces.
///
/// ```
/// use toolkit::provider::{ANTHROPIC_BASE_URL, AnthropicProvider, ApiKey, HttpOptions};
///
/// # let key_from_your_vault = "sk-ant-0123456789";
/// let provider =
///     AnthropicProvider::new(ANTHROPIC_BASE_URL, "claude-sonnet-4-5", HttpOptions::default())?
///         .with_key(ApiKey::new(key_from_your_vault))?;
/// # Ok::<(), toolkit::provider::ProviderError>(())
/// ```
///
/// With [`with_thinking`](Self::with_thinking), the model thinks before it answers: what it
/// thought is the turn's [`thinking`](ProviderResponse::thinking), for people, and its
/// thinking blocks, signatures included, go back with the turn on the next request (before its
/// text and calls), as Anthropic requires when a turn that used tools is continued.
pub struct AnthropicProvider {
    endpoint: reqwest::Url,
    model: String,
    /// The thinking budget, when thinking is on.
    thinking: Option<u32>,
    http: HttpClient,
}

impl std::fmt::Debug for AnthropicProvider {
    /// The endpoint as text, the model, and the names of the headers sent (never a value: the
    /// key is one).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicProvider")
            .field("endpoint", &self.endpoint.as_str())
            .field("model", &self.model)
            .field("thinking", &self.thinking)
            .field("http", &self.http)
            .finish()
    }
}

impl AnthropicProvider {
    /// A provider for `base_url` (such as [`ANTHROPIC_BASE_URL`]) and a default model, sending
    /// no key until [`with_key`](Self::with_key) gives one (a local server or a gateway that
    /// adds it needs none). A `base_url` that is not an `http` or `https` URL, or a header of
    /// `options` that HTTP does not allow, is a [`ProviderError::Configuration`] here, before
    /// any request.
    pub fn new(base_url: &str, model: &str, options: HttpOptions) -> Result<Self, ProviderError> {
        Ok(Self {
            endpoint: endpoint(base_url, "/v1/messages")?,
            model: model.to_owned(),
            thinking: None,
            http: HttpClient::new(options, &[("anthropic-version", API_VERSION)])?,
        })
    }

    /// The same provider with extended thinking on: the model may spend up to `budget_tokens`
    /// thinking before it answers, on top of the answer's own limit (`max_tokens` is the budget
    /// plus 4 096). Anthropic takes no temperature with thinking: a run's temperature is not
    /// sent. A budget under Anthropic's minimum of 1 024 is a
    /// [`ProviderError::Configuration`].
    pub fn with_thinking(mut self, budget_tokens: u32) -> Result<Self, ProviderError> {
        if budget_tokens < MIN_THINKING_BUDGET {
            return Err(ProviderError::Configuration(format!(
                "a thinking budget of {budget_tokens} tokens is under Anthropic's minimum of \
                 {MIN_THINKING_BUDGET}"
            )));
        }
        self.thinking = Some(budget_tokens);
        Ok(self)
    }

    /// The same provider sending `key` in `x-api-key`. A key with a character HTTP does not
    /// allow in a header is a [`ProviderError::Configuration`].
    pub fn with_key(mut self, key: impl Into<ApiKey>) -> Result<Self, ProviderError> {
        self.http.set_key("x-api-key", "", &key.into())?;
        Ok(self)
    }

    /// [`new`](Self::new) with the key from `ANTHROPIC_API_KEY`, which must be set: unset, it
    /// is a [`ProviderError::Configuration`].
    pub fn from_env(
        base_url: &str,
        model: &str,
        options: HttpOptions,
    ) -> Result<Self, ProviderError> {
        Self::from_env_var(ANTHROPIC_KEY_VARIABLE, base_url, model, options)
    }

    /// The same, with the key read from another environment variable.
    pub fn from_env_var(
        variable: &str,
        base_url: &str,
        model: &str,
        options: HttpOptions,
    ) -> Result<Self, ProviderError> {
        let key = ApiKey::from_env(variable)
            .ok_or_else(|| ProviderError::Configuration(format!("{variable} is not set")))?;
        Self::new(base_url, model, options)?.with_key(key)
    }

    /// The exact bytes this provider POSTs for `request`, serialised straight from borrowed
    /// parts: no message is copied into an intermediate JSON tree, and each tool's declaration
    /// is serialised once (the first time a request offers it) and copied as bytes after.
    pub fn request_body(&self, request: &ProviderRequest<'_>) -> Result<Vec<u8>, ProviderError> {
        self.body(request, false)
    }

    /// The exact bytes this provider POSTs for `request` when it streams: the same body with
    /// `"stream": true`.
    pub fn stream_request_body(
        &self,
        request: &ProviderRequest<'_>,
    ) -> Result<Vec<u8>, ProviderError> {
        self.body(request, true)
    }

    fn body(&self, request: &ProviderRequest<'_>, stream: bool) -> Result<Vec<u8>, ProviderError> {
        let mut system = Vec::new();
        let mut messages: Vec<Message<'_>> = Vec::new();
        for message in request.messages {
            match message {
                ChatMessage::System { content, .. } => system.push(content.as_str()),
                ChatMessage::User { content, .. } => messages.push(Message {
                    role: "user",
                    content: Content::Text(content),
                }),
                ChatMessage::Assistant {
                    content,
                    tool_calls,
                    carried,
                    ..
                } => {
                    // The turn's thinking blocks, as they came, first.
                    let thoughts = carried
                        .as_ref()
                        .and_then(|carried| carried.json_for(WIRE))
                        .and_then(|json| serde_json::from_str::<Vec<Box<RawValue>>>(json).ok())
                        .unwrap_or_default()
                        .into_iter()
                        .map(Block::Kept);
                    let text = (!content.is_empty()).then(|| Block::Text { text: content });
                    let uses = tool_calls.iter().map(|call| Block::ToolUse {
                        id: &call.id,
                        name: &call.name,
                        input: arguments_value(&call.arguments),
                    });
                    messages.push(Message {
                        role: "assistant",
                        content: Content::Blocks(thoughts.chain(text).chain(uses).collect()),
                    });
                }
                ChatMessage::ToolResult(result) => {
                    let block = Block::ToolResult {
                        tool_use_id: result.call_id(),
                        content: result_content(result.wire()),
                        is_error: result.wire().is_error(),
                    };
                    // Results answering one turn travel together in one user message.
                    match messages.last_mut() {
                        Some(Message {
                            role: "user",
                            content: Content::Blocks(blocks),
                        }) if blocks
                            .iter()
                            .all(|block| matches!(block, Block::ToolResult { .. })) =>
                        {
                            blocks.push(block);
                        }
                        _ => messages.push(Message {
                            role: "user",
                            content: Content::Blocks(vec![block]),
                        }),
                    }
                }
            }
        }
        let body = Body {
            model: request.model.unwrap_or(&self.model),
            max_tokens: crate::limits::ANTHROPIC_MAX_TOKENS
                .saturating_add(self.thinking.unwrap_or(0)),
            thinking: self.thinking.map(|budget_tokens| Thinking {
                kind: "enabled",
                budget_tokens,
            }),
            system: (!system.is_empty()).then(|| system.join("\n\n")),
            messages,
            tools: request
                .tools
                .iter()
                .map(|spec| spec.anthropic_declaration())
                .collect(),
            temperature: request.temperature.filter(|_| self.thinking.is_none()),
            stream,
        };
        super::serialise_body(&body, request, &body.tools)
    }
}

/// The request body; tool declarations borrow their schemas instead of copying them.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Thinking>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<String>,
    messages: Vec<Message<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
}

#[derive(Serialize)]
struct Thinking {
    #[serde(rename = "type")]
    kind: &'static str,
    budget_tokens: u32,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    content: Content<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Content<'a> {
    Text(&'a str),
    Blocks(Vec<Block<'a>>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: ResultContent<'a>,
        is_error: bool,
    },
    /// A block of an earlier answer sent back as it came (a thinking block).
    #[serde(untagged)]
    Kept(Box<RawValue>),
}

/// A tool result's content: its text, or (with media) blocks: the text, then each image as an
/// `image` block, each PDF as a `document` block, each text file as a text `document`; a sound,
/// which a `tool_result` does not take, is a note in a text block.
#[derive(Serialize)]
#[serde(untagged)]
enum ResultContent<'a> {
    Text(&'a str),
    Blocks(Vec<ResultBlock<'a>>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ResultBlock<'a> {
    Text { text: Cow<'a, str> },
    Image { source: Source<'a> },
    Document { source: Source<'a> },
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Source<'a> {
    Base64 {
        media_type: &'static str,
        data: &'a str,
    },
    Text {
        media_type: &'static str,
        data: String,
    },
}

fn result_content(wire: &crate::WireString) -> ResultContent<'_> {
    if wire.media().is_empty() {
        return ResultContent::Text(wire.as_str());
    }
    let mut blocks = Vec::with_capacity(1 + wire.media().len());
    if !wire.is_empty() {
        blocks.push(ResultBlock::Text {
            text: Cow::Borrowed(wire.as_str()),
        });
    }
    for part in wire.media() {
        let base64 = Source::Base64 {
            media_type: part.mime_type(),
            data: part.base64(),
        };
        blocks.push(match (part.kind(), part.text()) {
            (_, Some(text)) => ResultBlock::Document {
                source: Source::Text {
                    media_type: "text/plain",
                    data: text,
                },
            },
            (MediaKind::Image, None) => ResultBlock::Image { source: base64 },
            (MediaKind::File, None) => ResultBlock::Document { source: base64 },
            _ => ResultBlock::Text {
                text: Cow::Owned(super::not_carried(
                    part,
                    "the Anthropic Messages API",
                    "sound",
                )),
            },
        });
    }
    ResultContent::Blocks(blocks)
}

/// A Messages answer, as far as the loop reads it.
#[derive(Deserialize)]
struct AnswerBody {
    content: Vec<AnswerBlock>,
    #[serde(default, deserialize_with = "lenient")]
    stop_reason: String,
    #[serde(default)]
    usage: Option<AnswerUsage>,
}

/// A content block, as far as the loop reads it. A flat struct rather than an enum tagged by
/// `type`: serde reads a tagged enum through a buffer, which cannot keep a tool's input as the
/// answer writes it.
#[derive(Deserialize)]
struct AnswerBlock {
    #[serde(rename = "type", deserialize_with = "lenient")]
    kind: String,
    #[serde(default, deserialize_with = "lenient")]
    text: String,
    #[serde(default, deserialize_with = "lenient")]
    id: String,
    #[serde(default, deserialize_with = "lenient")]
    name: String,
    /// A `tool_use` block's arguments, as the answer writes them.
    #[serde(default)]
    input: Option<Box<RawValue>>,
    /// A `thinking` block's text and signature.
    #[serde(default, deserialize_with = "lenient")]
    thinking: String,
    #[serde(default, deserialize_with = "lenient")]
    signature: String,
    /// A `redacted_thinking` block's encrypted thinking.
    #[serde(default, deserialize_with = "lenient")]
    data: String,
}

#[derive(Clone, Default, Deserialize)]
#[allow(clippy::struct_field_names)]
struct AnswerUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_read_input_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: u64,
}

impl From<&AnswerUsage> for Usage {
    /// Anthropic counts the cached part of a prompt apart from its `input_tokens`: here it is
    /// in the prompt's count, as on the other wires.
    fn from(usage: &AnswerUsage) -> Self {
        let input = usage
            .input_tokens
            .saturating_add(usage.cache_read_input_tokens)
            .saturating_add(usage.cache_creation_input_tokens);
        Usage::new(input, usage.output_tokens).with_cache(
            usage.cache_read_input_tokens,
            usage.cache_creation_input_tokens,
        )
    }
}

/// The reason of a `stop_reason`, `None` when there is none.
fn stop_reason(word: &str) -> Option<StopReason> {
    Some(match word {
        "" => return None,
        "end_turn" | "stop_sequence" => StopReason::Finished,
        "tool_use" => StopReason::ToolCalls,
        "max_tokens" | "model_context_window_exceeded" => StopReason::Length,
        "refusal" => StopReason::Refusal,
        other => StopReason::Other(other.to_owned()),
    })
}

/// A thinking block as it goes back to Anthropic: the same JSON, streamed or whole.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Thought {
    Thinking { thinking: String, signature: String },
    RedactedThinking { data: String },
}

/// The turn's thinking blocks as the state carried to the next request; `None` for none.
fn carried(thoughts: &[Thought]) -> Result<Option<Carried>, ProviderError> {
    if thoughts.is_empty() {
        return Ok(None);
    }
    let json = serde_json::to_string(thoughts).map_err(super::unserialisable)?;
    Ok(Some(Carried::new(WIRE, json)))
}

/// A `tool_use` block's arguments: its input's JSON text, `{}` when it has none.
fn input_text(input: Option<Box<RawValue>>) -> String {
    input.map_or_else(|| "{}".to_owned(), |input| input.get().to_owned())
}

impl TryFrom<AnswerBody> for ProviderResponse {
    type Error = ProviderError;

    fn try_from(answer: AnswerBody) -> Result<Self, ProviderError> {
        let mut content = Vec::new();
        let mut thinking = Vec::new();
        let mut thoughts = Vec::new();
        let mut tool_calls = Vec::new();
        // A server tool's blocks and blocks added later carry nothing the loop reads.
        for block in answer.content {
            match block.kind.as_str() {
                "text" => content.push(block.text),
                "tool_use" => {
                    tool_calls.push(ToolCall::new(block.id, block.name, input_text(block.input)));
                }
                "thinking" => {
                    thinking.push(block.thinking.clone());
                    thoughts.push(Thought::Thinking {
                        thinking: block.thinking,
                        signature: block.signature,
                    });
                }
                "redacted_thinking" => {
                    thoughts.push(Thought::RedactedThinking { data: block.data });
                }
                _ => {}
            }
        }
        let usage = answer.usage.as_ref().map(Usage::from).unwrap_or_default();
        let turn = ProviderResponse::new(content.join("\n"), tool_calls, usage)
            .with_thinking(thinking.join("\n"))
            .with_carried(carried(&thoughts)?);
        Ok(turn.stopped(stop_reason(&answer.stop_reason)))
    }
}

impl Provider for AnthropicProvider {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> ProviderFuture<'a> {
        let body = self.request_body(&request);
        Box::pin(async move {
            let bytes = self.http.post_for_bytes(&self.endpoint, body?).await?;
            whole_answer(&bytes)
        })
    }

    fn stream<'a>(&'a self, request: ProviderRequest<'a>) -> DeltaStream<'a> {
        let body = self.stream_request_body(&request);
        let answer = async move { self.http.post_stream(&self.endpoint, body?).await };
        streamed::<EventDecoder>(answer, whole_answer)
    }
}

/// The turn of a whole Messages answer.
pub(super) fn whole_answer(bytes: &[u8]) -> Result<ProviderResponse, ProviderError> {
    decode::<AnswerBody>(bytes).and_then(ProviderResponse::try_from)
}

/// One event of a streamed Messages answer, as far as the loop reads it (flat, for the same
/// reason as [`AnswerBlock`]).
#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    message: Option<StartedMessage>,
    /// The content block an event is about.
    #[serde(default)]
    index: u64,
    #[serde(default)]
    content_block: Option<AnswerBlock>,
    #[serde(default)]
    delta: Option<BlockDelta>,
    #[serde(default)]
    usage: Option<DeltaUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct StartedMessage {
    #[serde(default)]
    usage: Option<AnswerUsage>,
}

/// The counts of a `message_delta`: each given replaces the one before.
#[derive(Deserialize)]
#[allow(clippy::struct_field_names)]
struct DeltaUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
}

/// A block's delta (`text_delta`, `input_json_delta`, `thinking_delta`, `signature_delta`),
/// or a `message_delta`'s (its `stop_reason`).
#[derive(Deserialize)]
struct BlockDelta {
    #[serde(rename = "type", default, deserialize_with = "lenient")]
    kind: String,
    #[serde(default, deserialize_with = "lenient")]
    text: String,
    #[serde(default, deserialize_with = "lenient")]
    partial_json: String,
    #[serde(default, deserialize_with = "lenient")]
    thinking: String,
    #[serde(default, deserialize_with = "lenient")]
    signature: String,
    #[serde(default, deserialize_with = "lenient")]
    stop_reason: String,
}

/// Reads Messages events until `message_stop`: the text of every text block (a block after
/// the first begins on a new line, as a whole answer's blocks are joined), each `tool_use`
/// block as a call, thinking blocks as thinking and carried state, usage from
/// `message_start` and `message_delta`, the stop reason from `message_delta`.
#[derive(Default)]
pub(super) struct EventDecoder {
    /// Text blocks started so far.
    texts: usize,
    /// The thinking blocks started, and the block each is.
    thoughts: Vec<Thought>,
    thought_blocks: Vec<u64>,
    /// Each call started: its block, whether any input delta came, and its start's input
    /// (its arguments when no delta follows).
    calls: Vec<StartedCall>,
    /// The blocks started that are neither text nor a call of ours: a server tool's use
    /// (`server_tool_use`, `mcp_tool_use`), whose input streams as a call's does, its result,
    /// and blocks added later. What they carry is the server's, not the loop's.
    others: Vec<u64>,
    usage: AnswerUsage,
}

struct StartedCall {
    block: u64,
    extended: bool,
    input: Option<Box<RawValue>>,
}

impl Decoder for EventDecoder {
    fn event(&mut self, event: Sse, out: &mut VecDeque<Delta>) -> Result<Read, ProviderError> {
        let event: Event = data(&event)?;
        match event.kind.as_str() {
            "message_start" => {
                if let Some(usage) = event.message.and_then(|message| message.usage) {
                    self.usage = usage;
                    out.push_back(Delta::Usage {
                        usage: Usage::from(&self.usage),
                    });
                }
            }
            "content_block_start" => {
                let Some(block) = event.content_block else {
                    return Err(ProviderError::malformed(
                        "the stream starts a content block without the block",
                    ));
                };
                self.block_started(event.index, block, out);
            }
            "content_block_delta" => {
                if let Some(delta) = event.delta {
                    self.block_delta(event.index, delta, out)?;
                }
            }
            "content_block_stop" => {
                // A call whose input came whole in its start, with no delta after.
                if let Some(index) = self.calls.iter().position(|call| call.block == event.index)
                    && !self.calls[index].extended
                {
                    let fragment = input_text(self.calls[index].input.take());
                    out.push_back(Delta::Arguments { index, fragment });
                }
                // The thinking blocks so far, signatures whole, go back with the turn.
                if self.thought_blocks.contains(&event.index)
                    && let Some(carried) = carried(&self.thoughts)?
                {
                    out.push_back(Delta::Carried { carried });
                }
            }
            "message_delta" => {
                if let Some(usage) = event.usage {
                    let counts = &mut self.usage;
                    let fields = [
                        (&mut counts.input_tokens, usage.input_tokens),
                        (&mut counts.output_tokens, usage.output_tokens),
                        (
                            &mut counts.cache_read_input_tokens,
                            usage.cache_read_input_tokens,
                        ),
                        (
                            &mut counts.cache_creation_input_tokens,
                            usage.cache_creation_input_tokens,
                        ),
                    ];
                    for (count, given) in fields {
                        if let Some(given) = given {
                            *count = given;
                        }
                    }
                    out.push_back(Delta::Usage {
                        usage: Usage::from(&self.usage),
                    });
                }
                if let Some(reason) = event
                    .delta
                    .as_ref()
                    .and_then(|delta| stop_reason(&delta.stop_reason))
                {
                    out.push_back(Delta::Stop { reason });
                }
            }
            "message_stop" => return Ok(Read::Complete),
            "error" => {
                let error = event.error.unwrap_or_default();
                let text = match error.get("message").and_then(Value::as_str) {
                    Some(message) => message.to_owned(),
                    None => error.to_string(),
                };
                return Err(ProviderError::Interrupted(text.chars().take(500).collect()));
            }
            // `ping`, and events added later.
            _ => {}
        }
        Ok(Read::More)
    }
}

impl EventDecoder {
    /// A content block begins: text, a call of ours, thinking, or a block the loop does not
    /// use.
    fn block_started(&mut self, index: u64, block: AnswerBlock, out: &mut VecDeque<Delta>) {
        match block.kind.as_str() {
            "text" => {
                let text = if self.texts == 0 {
                    block.text
                } else {
                    format!("\n{}", block.text)
                };
                self.texts += 1;
                if !text.is_empty() {
                    out.push_back(Delta::Text { text });
                }
            }
            "tool_use" => {
                out.push_back(Delta::CallStarted {
                    index: self.calls.len(),
                    id: block.id,
                    name: block.name,
                });
                self.calls.push(StartedCall {
                    block: index,
                    extended: false,
                    input: block.input,
                });
            }
            "thinking" | "redacted_thinking" => {
                let thought = if block.kind == "thinking" {
                    // A block after the first begins on a new line, as a whole
                    // answer's are joined.
                    let text = if self.thinking_blocks() == 0 {
                        block.thinking.clone()
                    } else {
                        format!("\n{}", block.thinking)
                    };
                    if !text.is_empty() {
                        out.push_back(Delta::Thinking { text });
                    }
                    Thought::Thinking {
                        thinking: block.thinking,
                        signature: block.signature,
                    }
                } else {
                    Thought::RedactedThinking { data: block.data }
                };
                self.thoughts.push(thought);
                self.thought_blocks.push(index);
            }
            _ => self.others.push(index),
        }
    }

    /// More of a started block.
    fn block_delta(
        &mut self,
        index: u64,
        delta: BlockDelta,
        out: &mut VecDeque<Delta>,
    ) -> Result<(), ProviderError> {
        match delta.kind.as_str() {
            "text_delta" if !delta.text.is_empty() => {
                out.push_back(Delta::Text { text: delta.text });
            }
            "thinking_delta" | "signature_delta" => {
                let Some(Thought::Thinking {
                    thinking,
                    signature,
                }) = self.thought_of(index)
                else {
                    return Err(ProviderError::malformed(format!(
                        "the stream sends thinking for block {index}, which is not a \
                         started thinking block"
                    )));
                };
                if delta.kind == "signature_delta" {
                    signature.push_str(&delta.signature);
                } else if !delta.thinking.is_empty() {
                    thinking.push_str(&delta.thinking);
                    out.push_back(Delta::Thinking {
                        text: delta.thinking,
                    });
                }
            }
            "input_json_delta" if self.others.contains(&index) => {}
            "input_json_delta" if !delta.partial_json.is_empty() => {
                let index = self.call_of(index)?;
                self.calls[index].extended = true;
                out.push_back(Delta::Arguments {
                    index,
                    fragment: delta.partial_json,
                });
            }
            _ => {}
        }
        Ok(())
    }

    /// The thinking blocks (not redacted) started so far.
    fn thinking_blocks(&self) -> usize {
        self.thoughts
            .iter()
            .filter(|thought| matches!(thought, Thought::Thinking { .. }))
            .count()
    }

    /// The thinking block `block` is.
    fn thought_of(&mut self, block: u64) -> Option<&mut Thought> {
        let position = self
            .thought_blocks
            .iter()
            .position(|index| *index == block)?;
        self.thoughts.get_mut(position)
    }

    /// The call a block's delta extends.
    fn call_of(&self, block: u64) -> Result<usize, ProviderError> {
        self.calls
            .iter()
            .position(|call| call.block == block)
            .ok_or_else(|| {
                ProviderError::malformed(format!(
                    "the stream sends input for block {block}, which has not started"
                ))
            })
    }
}

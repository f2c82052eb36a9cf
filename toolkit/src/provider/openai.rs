//! OpenAI Chat Completions, and servers that speak it (Ollama, vLLM, llama.cpp, LM Studio).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use std::borrow::Cow;
use std::collections::VecDeque;

use super::http::{ApiKey, HttpClient, HttpOptions, decode, endpoint, text as lenient};
use super::sse::{Decoder, Read, Sse, data, streamed};
use super::stream::{Delta, DeltaStream};
use super::{
    Provider, ProviderError, ProviderFuture, ProviderRequest, ProviderResponse, StopReason,
};
use crate::media::MediaKind;
use crate::provider::Usage;
use crate::wire::{ChatMessage, ToolCall};

/// The API's own address.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// The environment variable holding the key.
pub const OPENAI_KEY_VARIABLE: &str = "OPENAI_API_KEY";

/// A Chat Completions provider. Its key (optional: local servers need none) goes as
/// `Authorization: Bearer` and never appears in `Debug`, logs or traces.
///
/// ```
/// use toolkit::provider::{ApiKey, HttpOptions, OPENAI_BASE_URL, OpenAiProvider};
///
/// # let key_from_your_config = "sk-proj-0123456789";
/// let provider = OpenAiProvider::new(OPENAI_BASE_URL, "gpt-4.1-mini", HttpOptions::default())?
///     .with_key(ApiKey::new(key_from_your_config))?;
/// // A local server (Ollama) needs no key.
/// let local = OpenAiProvider::new("http://127.0.0.1:11434/v1", "qwen3", HttpOptions::default())?;
/// # Ok::<(), toolkit::provider::ProviderError>(())
/// ```
pub struct OpenAiProvider {
    endpoint: reqwest::Url,
    model: String,
    http: HttpClient,
}

impl std::fmt::Debug for OpenAiProvider {
    /// The endpoint as text, the model, and the names of the headers sent (never a value: the
    /// key is one).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiProvider")
            .field("endpoint", &self.endpoint.as_str())
            .field("model", &self.model)
            .field("http", &self.http)
            .finish()
    }
}

impl OpenAiProvider {
    /// A provider for `base_url` (such as [`OPENAI_BASE_URL`], or `http://127.0.0.1:11434/v1`
    /// for Ollama) and a default model, sending no key until [`with_key`](Self::with_key)
    /// gives one. A `base_url` that is not an `http` or `https` URL, or a header of `options`
    /// that HTTP does not allow, is a [`ProviderError::Configuration`] here, before any request.
    pub fn new(base_url: &str, model: &str, options: HttpOptions) -> Result<Self, ProviderError> {
        Ok(Self {
            endpoint: endpoint(base_url, "/chat/completions")?,
            model: model.to_owned(),
            http: HttpClient::new(options, &[])?,
        })
    }

    /// The same provider sending `key` as `Authorization: Bearer`. A key with a character
    /// HTTP does not allow in a header is a [`ProviderError::Configuration`].
    pub fn with_key(mut self, key: impl Into<ApiKey>) -> Result<Self, ProviderError> {
        self.http.set_key("authorization", "Bearer ", &key.into())?;
        Ok(self)
    }

    /// [`new`](Self::new), with the key from `OPENAI_API_KEY` when it is set.
    pub fn from_env(
        base_url: &str,
        model: &str,
        options: HttpOptions,
    ) -> Result<Self, ProviderError> {
        Self::from_env_var(OPENAI_KEY_VARIABLE, base_url, model, options)
    }

    /// The same, with the key read from another environment variable.
    pub fn from_env_var(
        variable: &str,
        base_url: &str,
        model: &str,
        options: HttpOptions,
    ) -> Result<Self, ProviderError> {
        let provider = Self::new(base_url, model, options)?;
        match ApiKey::from_env(variable) {
            Some(key) => provider.with_key(key),
            None => Ok(provider),
        }
    }

    /// The exact bytes this provider POSTs for `request`, serialised straight from borrowed
    /// parts: no message is copied into an intermediate JSON tree, and each tool's declaration
    /// is serialised once (the first time a request offers it) and copied as bytes after. A tool
    /// whose description OpenAI would refuse is refused here, before anything is sent.
    pub fn request_body(&self, request: &ProviderRequest<'_>) -> Result<Vec<u8>, ProviderError> {
        self.body(request, false)
    }

    /// The exact bytes this provider POSTs for `request` when it streams: the same body with
    /// `"stream": true` and usage asked for at the end of the stream.
    pub fn stream_request_body(
        &self,
        request: &ProviderRequest<'_>,
    ) -> Result<Vec<u8>, ProviderError> {
        self.body(request, true)
    }

    fn body(&self, request: &ProviderRequest<'_>, stream: bool) -> Result<Vec<u8>, ProviderError> {
        for spec in request.tools {
            crate::declaration::check_openai_description(spec.name(), spec.description())
                .map_err(ProviderError::Declaration)?;
        }
        let body = Body {
            model: request.model.unwrap_or(&self.model),
            messages: messages(request.messages),
            tools: request
                .tools
                .iter()
                .map(|spec| spec.openai_declaration())
                .collect(),
            temperature: request.temperature,
            stream,
            stream_options: stream.then_some(StreamOptions {
                include_usage: true,
            }),
        };
        super::serialise_body(&body, request, &body.tools)
    }
}

/// The request body; tool declarations borrow their schemas instead of copying them.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: Vec<Message<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

/// One message in the Chat Completions format.
#[derive(Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
enum Message<'a> {
    System {
        content: &'a str,
    },
    User {
        content: UserContent<'a>,
    },
    Assistant {
        /// `None` (`null`) for a turn that only calls tools.
        content: Option<&'a str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<Call<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: Cow<'a, str>,
    },
}

/// A user message's content: its text, or the parts of the message that carries tool results'
/// media.
#[derive(Serialize)]
#[serde(untagged)]
enum UserContent<'a> {
    Text(&'a str),
    Parts(Vec<UserPart<'a>>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum UserPart<'a> {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
    File { file: File<'a> },
}

#[derive(Serialize)]
struct ImageUrl {
    url: String,
}

#[derive(Serialize)]
struct File<'a> {
    filename: &'a str,
    file_data: String,
}

/// The messages of a request. A tool message takes text only, so the images and files of the
/// tool results answering one turn follow them in one user message: for each part, a text part
/// naming it and its call, then the part (`image_url` for an image, `file` for a PDF, as `data:`
/// URLs; a text file is the naming part's next lines). Each tool message's text says which of
/// its parts follow; a sound is a note in it instead.
fn messages(messages: &[ChatMessage]) -> Vec<Message<'_>> {
    let mut out = Vec::with_capacity(messages.len());
    let mut pending = Vec::new();
    for message in messages {
        let ChatMessage::ToolResult(result) = message else {
            flush(&mut out, &mut pending);
            out.push(Message::from(message));
            continue;
        };
        let wire = result.wire();
        if wire.media().is_empty() {
            out.push(Message::from(message));
            continue;
        }
        let mut content = Cow::Borrowed(wire.as_str());
        for part in wire.media() {
            let line = match part.kind() {
                MediaKind::Image | MediaKind::File => {
                    let name = format!(
                        "[{} from the result of call {}]",
                        part.name(),
                        result.call_id()
                    );
                    match (part.kind(), part.text()) {
                        (_, Some(text)) => pending.push(UserPart::Text {
                            text: format!("{name}\n{text}"),
                        }),
                        (MediaKind::Image, None) => {
                            pending.push(UserPart::Text { text: name });
                            pending.push(UserPart::ImageUrl {
                                image_url: ImageUrl {
                                    url: part.data_url(),
                                },
                            });
                        }
                        _ => {
                            pending.push(UserPart::Text { text: name });
                            pending.push(UserPart::File {
                                file: File {
                                    filename: part.file_name(),
                                    file_data: part.data_url(),
                                },
                            });
                        }
                    }
                    format!(
                        "[{} ({}, {} bytes) follows in the next user message]",
                        part.name(),
                        part.mime_type(),
                        part.len()
                    )
                }
                _ => super::not_carried(part, "the Chat Completions API", "sound"),
            };
            let text = content.to_mut();
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&line);
        }
        out.push(Message::Tool {
            tool_call_id: result.call_id(),
            content,
        });
    }
    flush(&mut out, &mut pending);
    out
}

/// The user message of the media pending since the last other message, if any.
fn flush<'a>(out: &mut Vec<Message<'a>>, pending: &mut Vec<UserPart<'a>>) {
    if !pending.is_empty() {
        out.push(Message::User {
            content: UserContent::Parts(std::mem::take(pending)),
        });
    }
}

#[derive(Serialize)]
struct Call<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function<'a>,
}

#[derive(Serialize)]
struct Function<'a> {
    name: &'a str,
    arguments: &'a str,
}

impl<'a> From<&'a ChatMessage> for Message<'a> {
    fn from(message: &'a ChatMessage) -> Self {
        match message {
            ChatMessage::System { content, .. } => Message::System { content },
            ChatMessage::User { content, .. } => Message::User {
                content: UserContent::Text(content),
            },
            ChatMessage::Assistant {
                content,
                tool_calls,
                ..
            } => Message::Assistant {
                content: (!content.is_empty() || tool_calls.is_empty()).then_some(content),
                tool_calls: tool_calls
                    .iter()
                    .map(|call| Call {
                        id: &call.id,
                        kind: "function",
                        function: Function {
                            name: &call.name,
                            arguments: &call.arguments,
                        },
                    })
                    .collect(),
            },
            ChatMessage::ToolResult(result) => Message::Tool {
                tool_call_id: result.call_id(),
                content: Cow::Borrowed(result.content()),
            },
        }
    }
}

/// A Chat Completions answer, as far as the loop reads it.
#[derive(Deserialize)]
struct Completion {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<CompletionUsage>,
}

#[derive(Deserialize)]
struct Choice {
    /// Which of the `n` answers this is; the loop reads answer 0 (a server that sends one
    /// answer may leave the index out).
    #[serde(default)]
    index: u64,
    message: AnswerMessage,
    #[serde(default, deserialize_with = "lenient")]
    finish_reason: String,
}

#[derive(Deserialize)]
struct AnswerMessage {
    /// Text, or `null` for a turn that only calls tools; other shapes carry no text for us.
    #[serde(default)]
    content: Option<Value>,
    /// Why the model refused, when it did (OpenAI's structured outputs).
    #[serde(default, deserialize_with = "lenient")]
    refusal: String,
    /// What the model thought, on servers that show it (`DeepSeek`, `vLLM`: `reasoning_content`;
    /// OpenRouter, Ollama: `reasoning`).
    #[serde(default, deserialize_with = "lenient")]
    reasoning_content: String,
    #[serde(default, deserialize_with = "lenient")]
    reasoning: String,
    #[serde(default)]
    tool_calls: Option<Vec<AnswerCall>>,
}

#[derive(Deserialize)]
struct AnswerCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<AnswerFunction>,
}

#[derive(Deserialize)]
struct AnswerFunction {
    #[serde(default)]
    name: Option<String>,
    /// The arguments' JSON text; some servers send the object itself, read as its JSON text.
    #[serde(default, deserialize_with = "lenient")]
    arguments: String,
}

#[derive(Deserialize)]
struct CompletionUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    #[serde(default)]
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: u64,
}

#[derive(Deserialize)]
struct CompletionDetails {
    #[serde(default)]
    reasoning_tokens: u64,
}

impl From<&CompletionUsage> for Usage {
    fn from(usage: &CompletionUsage) -> Self {
        let cached = usage
            .prompt_tokens_details
            .as_ref()
            .map_or(0, |details| details.cached_tokens);
        let reasoning = usage
            .completion_tokens_details
            .as_ref()
            .map_or(0, |details| details.reasoning_tokens);
        Usage::new(usage.prompt_tokens, usage.completion_tokens)
            .with_cache(cached, 0)
            .with_reasoning(reasoning)
    }
}

/// The stop reason of a `finish_reason`, `None` when there is none yet; a refusal whatever
/// the word when the model refused.
fn stop_reason(finish_reason: &str, refused: bool) -> Option<StopReason> {
    if refused {
        return Some(StopReason::Refusal);
    }
    Some(match finish_reason {
        "" => return None,
        "stop" => StopReason::Finished,
        "length" => StopReason::Length,
        "tool_calls" | "function_call" => StopReason::ToolCalls,
        "content_filter" => StopReason::ContentFilter,
        other => StopReason::Other(other.to_owned()),
    })
}

impl TryFrom<Completion> for ProviderResponse {
    type Error = ProviderError;

    fn try_from(completion: Completion) -> Result<Self, ProviderError> {
        if completion.choices.is_empty() {
            return Err(ProviderError::malformed("the answer has no choices"));
        }
        let choice = completion
            .choices
            .into_iter()
            .find(|choice| choice.index == 0)
            .ok_or_else(|| ProviderError::malformed("the answer has no choice with index 0"))?;
        let mut content = match choice.message.content {
            Some(Value::String(text)) => text,
            _ => String::new(),
        };
        // A refusal's text is the turn's: the caller reads why the model would not answer.
        let refused = !choice.message.refusal.is_empty();
        content.push_str(&choice.message.refusal);
        let thinking = choice.message.reasoning_content + &choice.message.reasoning;
        let tool_calls = choice
            .message
            .tool_calls
            .unwrap_or_default()
            .into_iter()
            .map(|call| {
                let function = call.function;
                let (name, arguments) = function.map_or_else(Default::default, |function| {
                    (function.name.unwrap_or_default(), function.arguments)
                });
                ToolCall::new(call.id.unwrap_or_default(), name, arguments)
            })
            .collect();
        let usage = completion
            .usage
            .as_ref()
            .map(Usage::from)
            .unwrap_or_default();
        let turn = ProviderResponse::new(content, tool_calls, usage).with_thinking(thinking);
        Ok(turn.stopped(stop_reason(&choice.finish_reason, refused)))
    }
}

impl Provider for OpenAiProvider {
    fn name(&self) -> &'static str {
        "openai"
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
        streamed::<ChunkDecoder>(answer, whole_answer)
    }
}

/// The turn of a whole Chat Completions answer.
pub(super) fn whole_answer(bytes: &[u8]) -> Result<ProviderResponse, ProviderError> {
    decode::<Completion>(bytes).and_then(ProviderResponse::try_from)
}

/// One chunk of a streamed Chat Completions answer, as far as the loop reads it.
#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<ChunkChoice>,
    #[serde(default)]
    usage: Option<CompletionUsage>,
    /// What a server sends in place of a chunk when it fails mid-answer.
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    /// Which of the `n` answers this piece belongs to (absent: the only one).
    #[serde(default)]
    index: u64,
    #[serde(default)]
    delta: Option<ChunkDelta>,
    #[serde(default, deserialize_with = "lenient")]
    finish_reason: String,
}

#[derive(Deserialize)]
struct ChunkDelta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    refusal: String,
    #[serde(default, deserialize_with = "lenient")]
    reasoning_content: String,
    #[serde(default, deserialize_with = "lenient")]
    reasoning: String,
    #[serde(default)]
    tool_calls: Option<Vec<ChunkCall>>,
}

#[derive(Deserialize)]
struct ChunkCall {
    /// The call's position in the turn; some servers leave it out and send each call whole.
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<ChunkFunction>,
}

#[derive(Deserialize)]
struct ChunkFunction {
    #[serde(default)]
    name: Option<String>,
    /// A fragment of the arguments' JSON text; some servers send the object itself, read as
    /// its JSON text.
    #[serde(default, deserialize_with = "lenient")]
    arguments: String,
}

/// Reads `data:` chunks until `[DONE]` (a stream that ends before it is cut, even after the
/// last choice finished: the usage comes after that): text deltas, calls by their index (a new
/// index starts a call), usage from the last chunk.
#[derive(Default)]
pub(super) struct ChunkDecoder {
    /// The wire's index of each call started, in order.
    calls: Vec<Option<u64>>,
    /// Whether refusal text came.
    refused: bool,
}

impl ChunkDecoder {
    fn call(&mut self, call: ChunkCall, out: &mut VecDeque<Delta>) {
        let known = match call.index {
            Some(wire) => self.calls.iter().position(|index| *index == Some(wire)),
            // Without an index, a call with an id is a new one; one without extends the last.
            None if call.id.is_some() => None,
            None => self.calls.len().checked_sub(1),
        };
        let (name, fragment) = call.function.map_or((None, String::new()), |function| {
            (function.name, function.arguments)
        });
        let index = known.unwrap_or_else(|| {
            self.calls.push(call.index);
            let index = self.calls.len() - 1;
            out.push_back(Delta::CallStarted {
                index,
                id: call.id.unwrap_or_default(),
                name: name.unwrap_or_default(),
            });
            index
        });
        if !fragment.is_empty() {
            out.push_back(Delta::Arguments { index, fragment });
        }
    }
}

impl Decoder for ChunkDecoder {
    fn event(&mut self, event: Sse, out: &mut VecDeque<Delta>) -> Result<Read, ProviderError> {
        if event.data.trim() == "[DONE]" {
            return Ok(Read::Complete);
        }
        let chunk: Chunk = data(&event)?;
        if let Some(error) = chunk.error {
            return Err(ProviderError::Interrupted(error_text(&error)));
        }
        // Only choice 0 is read, as in a whole answer: a chunk of a stream of several answers
        // may carry any of them first.
        if let Some(choice) = chunk.choices.into_iter().find(|choice| choice.index == 0) {
            if let Some(delta) = choice.delta {
                let thinking = delta.reasoning_content + &delta.reasoning;
                if !thinking.is_empty() {
                    out.push_back(Delta::Thinking { text: thinking });
                }
                if let Some(text) = delta.content.filter(|text| !text.is_empty()) {
                    out.push_back(Delta::Text { text });
                }
                if !delta.refusal.is_empty() {
                    self.refused = true;
                    out.push_back(Delta::Text {
                        text: delta.refusal,
                    });
                }
                for call in delta.tool_calls.unwrap_or_default() {
                    self.call(call, out);
                }
            }
            if let Some(reason) = stop_reason(&choice.finish_reason, self.refused) {
                out.push_back(Delta::Stop { reason });
            }
        }
        if let Some(usage) = &chunk.usage {
            out.push_back(Delta::Usage {
                usage: Usage::from(usage),
            });
        }
        Ok(Read::More)
    }
}

/// The message of a server's error object, else the object's JSON, cut short.
fn error_text(error: &Value) -> String {
    let text = match error.get("message").and_then(Value::as_str) {
        Some(message) => message.to_owned(),
        None => error.to_string(),
    };
    text.chars().take(500).collect()
}

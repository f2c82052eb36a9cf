//! Model providers behind one trait: OpenAI Chat Completions and OpenAI Responses (and the
//! servers that speak them), Anthropic Messages, Gemini, and a deterministic scripted provider.
//! Every HTTP provider streams ([`Provider::stream`]) as well as answering whole.

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};

use crate::spec::ToolSpec;
use crate::wire::{Carried, ChatMessage, ToolCall};

#[cfg(feature = "anthropic")]
mod anthropic;
#[cfg(feature = "http")]
mod framing;
#[cfg(feature = "gemini")]
mod gemini;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "openai")]
mod openai;
#[cfg(feature = "openai")]
mod responses;
mod scripted;
#[cfg(feature = "http")]
mod sse;
mod stream;
#[cfg(all(test, feature = "openai", feature = "anthropic", feature = "gemini"))]
mod streaming_tests;
#[cfg(all(test, feature = "openai", feature = "anthropic", feature = "gemini"))]
mod turn_tests;

#[cfg(feature = "anthropic")]
#[cfg_attr(docsrs, doc(cfg(feature = "anthropic")))]
pub use anthropic::{ANTHROPIC_BASE_URL, ANTHROPIC_KEY_VARIABLE, AnthropicProvider};
#[cfg(feature = "gemini")]
#[cfg_attr(docsrs, doc(cfg(feature = "gemini")))]
pub use gemini::{GEMINI_BASE_URL, GEMINI_KEY_VARIABLE, GeminiProvider};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use http::{ApiKey, HttpOptions};
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use openai::{OPENAI_BASE_URL, OPENAI_KEY_VARIABLE, OpenAiProvider};
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use responses::OpenAiResponsesProvider;
pub use scripted::{ScriptError, ScriptedProvider};
pub use stream::{Assembler, Delta, DeltaStream};

/// Token counts reported by the provider, as it bills them, in one meaning on every wire:
/// `input_tokens` is the whole prompt (the part read from or written to the provider's cache
/// included, and the prompt of a provider's own tool use), `output_tokens` the whole answer
/// (reasoning included). The parts billed apart are counted again in their own fields.
///
/// | wire | `input_tokens` | `cache_read_tokens` | `cache_write_tokens` | `reasoning_tokens` |
/// | --- | --- | --- | --- | --- |
/// | Chat Completions | `prompt_tokens` | `prompt_tokens_details.cached_tokens` | | `completion_tokens_details.reasoning_tokens` |
/// | Responses | `input_tokens` | `input_tokens_details.cached_tokens` | | `output_tokens_details.reasoning_tokens` |
/// | Anthropic | `input_tokens` + both cache counts | `cache_read_input_tokens` | `cache_creation_input_tokens` | |
/// | Gemini | `promptTokenCount` + `toolUsePromptTokenCount` | `cachedContentTokenCount` | | `thoughtsTokenCount` |
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Usage {
    /// Tokens of the prompt, cached ones included.
    pub input_tokens: u64,
    /// Tokens of the answer, reasoning included.
    pub output_tokens: u64,
    /// Of the prompt's tokens, those read from the provider's cache (billed at a discount).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    /// Of the prompt's tokens, those written to the provider's cache (billed at a premium).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    /// Of the answer's tokens, those the model spent reasoning before it answered.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_zero(count: &u64) -> bool {
    *count == 0
}

impl Usage {
    /// The counts of one provider call.
    pub fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            input_tokens,
            output_tokens,
            ..Self::default()
        }
    }

    /// The same counts, with `read` and `written` of the prompt's tokens read from and
    /// written to the provider's cache.
    #[must_use]
    pub fn with_cache(mut self, read: u64, written: u64) -> Self {
        self.cache_read_tokens = read;
        self.cache_write_tokens = written;
        self
    }

    /// The same counts, with `reasoning` of the answer's tokens spent reasoning.
    #[must_use]
    pub fn with_reasoning(mut self, reasoning: u64) -> Self {
        self.reasoning_tokens = reasoning;
        self
    }

    /// Adds another call's counts.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_read_tokens = self
            .cache_read_tokens
            .saturating_add(other.cache_read_tokens);
        self.cache_write_tokens = self
            .cache_write_tokens
            .saturating_add(other.cache_write_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(other.reasoning_tokens);
    }
}

/// Why the model ended its turn, in one word on every wire: Chat Completions' `finish_reason`
/// (and a message's `refusal`), Anthropic's `stop_reason`, a Responses answer's status and
/// incomplete reason (and its refusal parts), Gemini's `finishReason` (and a prompt it
/// blocked). Serialised as its [`as_str`](Self::as_str).
///
/// A turn that asks for tools and whose provider says only that it finished (Gemini's `STOP`,
/// some servers' `stop`) stopped for [`ToolCalls`](Self::ToolCalls); a turn whose provider says
/// nothing stopped for `ToolCalls` when it asks for tools, else [`Finished`](Self::Finished).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StopReason {
    /// The model finished its answer (`stop`, `end_turn`, `stop_sequence`, `STOP`, `completed`).
    Finished,
    /// The model asked for tools (`tool_calls`, `tool_use`).
    ToolCalls,
    /// The answer was cut by a token limit (`length`, `max_tokens`, `MAX_TOKENS`,
    /// `max_output_tokens`, `model_context_window_exceeded`): a call in it may be cut inside
    /// its arguments, and the loop never runs one (see `Termination::Truncated`).
    Length,
    /// The model refused (Anthropic's `refusal`, OpenAI's refusal text, which is the turn's
    /// text).
    Refusal,
    /// A content filter stopped the answer or blocked the prompt (`content_filter`, Gemini's
    /// `SAFETY`, `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`, `IMAGE_SAFETY`).
    ContentFilter,
    /// Another reason, in the provider's own word (`pause_turn`, `MALFORMED_FUNCTION_CALL`).
    Other(String),
}

impl StopReason {
    /// `finished`, `tool_calls`, `length`, `refusal`, `content_filter`, or the provider's word.
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::Finished => "finished",
            StopReason::ToolCalls => "tool_calls",
            StopReason::Length => "length",
            StopReason::Refusal => "refusal",
            StopReason::ContentFilter => "content_filter",
            StopReason::Other(word) => word,
        }
    }

    /// The reason named `name` ([`as_str`](Self::as_str)'s inverse).
    pub fn from_name(name: &str) -> Self {
        match name {
            "finished" => StopReason::Finished,
            "tool_calls" => StopReason::ToolCalls,
            "length" => StopReason::Length,
            "refusal" => StopReason::Refusal,
            "content_filter" => StopReason::ContentFilter,
            other => StopReason::Other(other.to_owned()),
        }
    }

    /// What a turn that does not say stopped for: `ToolCalls` when it asks for tools.
    fn of_turn(calls: &[ToolCall]) -> Self {
        if calls.is_empty() {
            StopReason::Finished
        } else {
            StopReason::ToolCalls
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for StopReason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(Self::from_name(&name))
    }
}

/// What one provider call sends.
#[derive(Debug)]
#[non_exhaustive]
pub struct ProviderRequest<'a> {
    /// The conversation so far.
    pub messages: &'a [ChatMessage],
    /// The tools offered.
    pub tools: &'a [&'a ToolSpec],
    /// The model, when the run names one (else the provider's own default).
    pub model: Option<&'a str>,
    /// Sampling temperature, when the run sets one.
    pub temperature: Option<f32>,
}

impl<'a> ProviderRequest<'a> {
    /// A request of this conversation offering these tools, with the provider's default model
    /// and temperature (for a provider's own tests and for looking at the bytes a provider
    /// would send: see `OpenAiProvider::request_body`).
    pub fn new(messages: &'a [ChatMessage], tools: &'a [&'a ToolSpec]) -> Self {
        Self {
            messages,
            tools,
            model: None,
            temperature: None,
        }
    }
}

/// What one provider call answers.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ProviderResponse {
    /// The model's text (may be empty when it only asks for tools; a refusal's text when it
    /// refused).
    pub content: String,
    /// The calls it asks for, in its order.
    pub tool_calls: Vec<ToolCall>,
    /// Token counts.
    pub usage: Usage,
    /// Why the turn ended.
    pub stop_reason: StopReason,
    /// What the model thought before it answered, where its provider shows it (Anthropic's
    /// thinking, a Responses reasoning summary, Gemini's thoughts): for people (the trace,
    /// subscribers, the audit copy by its privacy level), never sent to a model.
    pub thinking: String,
    /// What the provider needs back with this turn on its next request (see [`Carried`]).
    pub carried: Option<Carried>,
}

/// A provider call that failed. Where a lower layer failed (the HTTP client, the JSON decoder),
/// its error is kept as the [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderError {
    /// The request could not be sent or the connection failed.
    #[error("cannot reach the provider: {message}")]
    Transport {
        /// What failed, without the URL.
        message: String,
        /// The HTTP client's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The provider answered with an HTTP error status (after retries where they apply).
    #[error("the provider answered HTTP {status}: {body}")]
    Status {
        /// The status code.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// The answer is not what the provider's format promises.
    #[error("the provider's answer is unusable: {message}")]
    Malformed {
        /// What is wrong with it.
        message: String,
        /// The decoder's error, when decoding failed.
        #[source]
        source: Option<serde_json::Error>,
    },
    /// A scripted provider has no turn left.
    #[error("the script has no turn left (it has {0})")]
    ScriptEnded(usize),
    /// A required setting is missing, such as an API key.
    #[error("the provider is not configured: {0}")]
    Configuration(String),
    /// The provider ended a streamed answer with an error of its own (an `error` event).
    #[error("the provider stopped its answer with an error: {0}")]
    Interrupted(String),
    /// An offered tool's declaration is one this provider refuses; nothing was sent.
    #[error("a tool cannot be declared to this provider: {0}")]
    Declaration(crate::spec::ExportError),
}

/// The boxed future of a provider call.
pub type ProviderFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ProviderResponse, ProviderError>> + Send + 'a>>;

/// A model provider.
pub trait Provider: Send + Sync {
    /// A short name for traces and logs (`openai`, `anthropic`, `scripted`).
    fn name(&self) -> &str;

    /// Sends the conversation and the tool declarations; returns the model's turn.
    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> ProviderFuture<'a>;

    /// The same turn as [`complete`](Self::complete) gives, as [`Delta`]s while it arrives:
    /// an [`Assembler`] fed every delta finishes with exactly the turn `complete` gives. The
    /// HTTP providers ask their server to stream (and read a whole answer as deltas when the
    /// server sends one anyway); by default, the whole answer of `complete`, as its deltas.
    fn stream<'a>(&'a self, request: ProviderRequest<'a>) -> DeltaStream<'a> {
        stream::whole(self.complete(request))
    }
}

impl ProviderError {
    /// A transport failure, its message without the URL (which may carry a key), the client's
    /// error kept as the source.
    #[cfg(feature = "http")]
    pub(crate) fn transport(error: reqwest::Error) -> Self {
        let error = error.without_url();
        ProviderError::Transport {
            message: error.to_string(),
            source: Box::new(error),
        }
    }

    /// An answer that is not what the format promises, for a reason found by reading it.
    pub fn malformed(message: impl Into<String>) -> Self {
        ProviderError::Malformed {
            message: message.into(),
            source: None,
        }
    }
}

impl ProviderResponse {
    /// The model's turn: its text, the calls it asks for and the tokens it used. It stopped
    /// for [`StopReason::ToolCalls`] when it asks for tools, else [`StopReason::Finished`],
    /// until [`with_stop_reason`](Self::with_stop_reason) says otherwise.
    pub fn new(content: impl Into<String>, tool_calls: Vec<ToolCall>, usage: Usage) -> Self {
        Self {
            content: content.into(),
            stop_reason: StopReason::of_turn(&tool_calls),
            tool_calls,
            usage,
            thinking: String::new(),
            carried: None,
        }
    }

    /// The same turn, stopped for `reason` as its provider said (`Finished` with calls is
    /// `ToolCalls`, as the type's docs say).
    #[must_use]
    pub fn with_stop_reason(mut self, reason: StopReason) -> Self {
        self.stop_reason = match reason {
            StopReason::Finished => StopReason::of_turn(&self.tool_calls),
            other => other,
        };
        self
    }

    /// The same turn, stopped for `reason` when its provider said one (as
    /// [`with_stop_reason`](Self::with_stop_reason)); else as [`new`](Self::new) left it.
    pub(crate) fn stopped(self, reason: Option<StopReason>) -> Self {
        match reason {
            Some(reason) => self.with_stop_reason(reason),
            None => self,
        }
    }

    /// The same turn, with what the model thought before it answered.
    #[must_use]
    pub fn with_thinking(mut self, thinking: impl Into<String>) -> Self {
        self.thinking = thinking.into();
        self
    }

    /// The same turn, with what its provider needs back with it.
    #[must_use]
    pub fn with_carried(mut self, carried: Option<Carried>) -> Self {
        self.carried = carried;
        self
    }
}

/// A request body serialised into a buffer sized up front (see [`body_capacity`]).
#[cfg(feature = "http")]
fn serialise_body(
    body: &impl Serialize,
    request: &ProviderRequest<'_>,
    declarations: &[&serde_json::value::RawValue],
) -> Result<Vec<u8>, ProviderError> {
    let mut bytes = Vec::with_capacity(body_capacity(request, declarations.iter().copied()));
    serde_json::to_writer(&mut bytes, body).map_err(unserialisable)?;
    Ok(bytes)
}

/// Room for a request body, guessed from what it holds: the tools' declarations (already
/// JSON) and the conversation's text, plus room for the JSON around them. A body whose text
/// needs many escapes grows past the guess once; none grows ten times.
#[cfg(feature = "http")]
fn body_capacity<'a>(
    request: &ProviderRequest<'_>,
    declarations: impl Iterator<Item = &'a serde_json::value::RawValue>,
) -> usize {
    let text: usize = request.messages.iter().map(ChatMessage::text_len).sum();
    let declared: usize = declarations.map(|raw| raw.get().len() + 1).sum();
    256 + declared + text + 64 * request.messages.len()
}

/// A body that would not serialise (a value the encoder refuses).
#[cfg(feature = "http")]
fn unserialisable(error: serde_json::Error) -> ProviderError {
    ProviderError::Malformed {
        message: error.to_string(),
        source: Some(error),
    }
}

/// The note a wire writes in a tool result, in place of a media part it cannot carry there:
/// `wire` names the API, `what` what it does not take.
#[cfg(feature = "http")]
fn not_carried(part: &crate::media::WireMedia, wire: &str, what: &str) -> String {
    format!(
        "[{} ({}, {} bytes) was not shown: {wire} takes no {what} in a tool result]",
        part.name(),
        part.mime_type(),
        part.len()
    )
}

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

/// Token counts reported by the provider.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Usage {
    /// Tokens of the prompt.
    pub input_tokens: u64,
    /// Tokens of the answer.
    pub output_tokens: u64,
}

impl Usage {
    /// The counts of one provider call.
    pub fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            input_tokens,
            output_tokens,
        }
    }

    /// Adds another call's counts.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
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
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ProviderResponse {
    /// The model's text (may be empty when it only asks for tools).
    pub content: String,
    /// The calls it asks for, in its order.
    pub tool_calls: Vec<ToolCall>,
    /// Token counts.
    pub usage: Usage,
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
    /// The model's turn: its text, the calls it asks for and the tokens it used.
    pub fn new(content: impl Into<String>, tool_calls: Vec<ToolCall>, usage: Usage) -> Self {
        Self {
            content: content.into(),
            tool_calls,
            usage,
            carried: None,
        }
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

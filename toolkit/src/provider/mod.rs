//! Model providers behind one trait: OpenAI Chat Completions (and compatible servers), Anthropic
//! Messages, and a deterministic scripted provider.

use std::future::Future;
use std::pin::Pin;

use crate::tool::ToolSpec;
use crate::trace::Usage;
use crate::wire::{ChatMessage, ToolCall};

#[cfg(feature = "http")]
mod anthropic;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
mod openai;
mod scripted;

#[cfg(feature = "http")]
pub use anthropic::{ANTHROPIC_BASE_URL, ANTHROPIC_KEY_VARIABLE, AnthropicProvider};
#[cfg(feature = "http")]
pub use http::HttpOptions;
#[cfg(feature = "http")]
pub use openai::{OPENAI_BASE_URL, OPENAI_KEY_VARIABLE, OpenAiProvider};
pub use scripted::{ScriptError, ScriptedProvider};

/// What one provider call sends.
#[derive(Debug)]
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

/// What one provider call answers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProviderResponse {
    /// The model's text (may be empty when it only asks for tools).
    pub content: String,
    /// The calls it asks for, in its order.
    pub tool_calls: Vec<ToolCall>,
    /// Token counts.
    pub usage: Usage,
}

/// A provider call that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// The request could not be sent or the connection failed.
    #[error("cannot reach the provider: {0}")]
    Transport(String),
    /// The provider answered with an HTTP error status (after retries where they apply).
    #[error("the provider answered HTTP {status}: {body}")]
    Status {
        /// The status code.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// The answer is not what the provider's format promises.
    #[error("the provider's answer is unusable: {0}")]
    Malformed(String),
    /// A scripted provider has no turn left.
    #[error("the script has no turn left (it has {0})")]
    ScriptEnded(usize),
    /// A required setting is missing, such as an API key.
    #[error("the provider is not configured: {0}")]
    Configuration(String),
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
}

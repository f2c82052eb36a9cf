//! Anthropic Messages: `tool_use` and `tool_result` blocks.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::http::{HttpClient, HttpOptions, arguments_value, endpoint, key_from_env};
use super::{Provider, ProviderError, ProviderFuture, ProviderRequest, ProviderResponse};
use crate::provider::Usage;
use crate::wire::{ChatMessage, ToolCall};

/// The API's own address.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

/// The environment variable holding the key.
pub const ANTHROPIC_KEY_VARIABLE: &str = "ANTHROPIC_API_KEY";

/// The API version sent.
const API_VERSION: &str = "2023-06-01";

/// Most tokens asked for per answer.
const MAX_TOKENS: u32 = 4096;

/// A Messages provider. The key comes from `ANTHROPIC_API_KEY` and never appears in `Debug`,
/// logs or traces.
pub struct AnthropicProvider {
    http: HttpClient,
    endpoint: reqwest::Url,
    model: String,
    key: String,
}

impl std::fmt::Debug for AnthropicProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicProvider")
            .field("endpoint", &self.endpoint.as_str())
            .field("model", &self.model)
            .field("key", &"<redacted>")
            .finish_non_exhaustive()
    }
}

impl AnthropicProvider {
    /// A provider for `base_url` and a default model; the key must be set in the environment.
    /// A missing key, or a `base_url` that is not an `http` or `https` URL, is a
    /// [`ProviderError::Configuration`] here, before any request.
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
        let key = key_from_env(variable)
            .ok_or_else(|| ProviderError::Configuration(format!("{variable} is not set")))?;
        Ok(Self {
            http: HttpClient::new(options)?,
            endpoint: endpoint(base_url, "/v1/messages")?,
            model: model.to_owned(),
            key,
        })
    }

    /// The exact bytes this provider POSTs for `request`, serialised straight from borrowed
    /// parts: no message is copied into an intermediate JSON tree, and each tool's declaration
    /// is serialised once (the first time a request offers it) and copied as bytes after.
    pub fn request_body(&self, request: &ProviderRequest<'_>) -> Result<Vec<u8>, ProviderError> {
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
                    ..
                } => {
                    let text = (!content.is_empty()).then(|| Block::Text { text: content });
                    let uses = tool_calls.iter().map(|call| Block::ToolUse {
                        id: &call.id,
                        name: &call.name,
                        input: arguments_value(&call.arguments),
                    });
                    messages.push(Message {
                        role: "assistant",
                        content: Content::Blocks(text.into_iter().chain(uses).collect()),
                    });
                }
                ChatMessage::ToolResult(result) => {
                    let block = Block::ToolResult {
                        tool_use_id: result.call_id(),
                        content: result.content(),
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
            max_tokens: MAX_TOKENS,
            system: (!system.is_empty()).then(|| system.join("\n\n")),
            messages,
            tools: request
                .tools
                .iter()
                .map(|spec| spec.anthropic_declaration())
                .collect(),
            temperature: request.temperature,
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
    system: Option<String>,
    messages: Vec<Message<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
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
        content: &'a str,
        is_error: bool,
    },
}

/// A Messages answer, as far as the loop reads it.
#[derive(Deserialize)]
struct Answer {
    content: Vec<AnswerBlock>,
    #[serde(default)]
    usage: Option<AnswerUsage>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum AnswerBlock {
    Text {
        #[serde(default)]
        text: String,
    },
    ToolUse {
        #[serde(default)]
        id: String,
        #[serde(default)]
        name: String,
        #[serde(default)]
        input: Option<Value>,
    },
    /// Thinking and other blocks carry nothing the loop reads.
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct AnswerUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
}

impl From<Answer> for ProviderResponse {
    fn from(answer: Answer) -> Self {
        let mut content = Vec::new();
        let mut tool_calls = Vec::new();
        for block in answer.content {
            match block {
                AnswerBlock::Text { text } => content.push(text),
                AnswerBlock::ToolUse { id, name, input } => {
                    let input = input.map_or_else(|| "{}".to_owned(), |input| input.to_string());
                    tool_calls.push(ToolCall::new(id, name, input));
                }
                AnswerBlock::Other => {}
            }
        }
        let usage = answer.usage.map_or_else(Usage::default, |usage| Usage {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
        });
        ProviderResponse::new(content.join("\n"), tool_calls, usage)
    }
}

impl Provider for AnthropicProvider {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> ProviderFuture<'a> {
        let body = self.request_body(&request);
        Box::pin(async move {
            let bytes = body?;
            let headers = [
                ("x-api-key", self.key.clone()),
                ("anthropic-version", API_VERSION.to_owned()),
            ];
            let answer: Answer = self.http.post_json(&self.endpoint, &headers, bytes).await?;
            Ok(answer.into())
        })
    }
}

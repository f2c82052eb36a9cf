//! Anthropic Messages: `tool_use` and `tool_result` blocks.

use serde::Serialize;
use serde_json::{Value, json};

use super::http::{HttpClient, HttpOptions, arguments_value, key_from_env};
use super::{Provider, ProviderError, ProviderFuture, ProviderRequest, ProviderResponse};
use crate::trace::Usage;
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
    endpoint: String,
    model: String,
    key: String,
}

impl std::fmt::Debug for AnthropicProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicProvider")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("key", &"<redacted>")
            .finish_non_exhaustive()
    }
}

impl AnthropicProvider {
    /// A provider for `base_url` and a default model; the key must be set in the environment.
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
            endpoint: format!("{}/v1/messages", base_url.trim_end_matches('/')),
            model: model.to_owned(),
            key,
        })
    }

    fn body(&self, request: &ProviderRequest<'_>) -> Result<Vec<u8>, ProviderError> {
        let mut system = Vec::new();
        let mut messages: Vec<Value> = Vec::new();
        for message in request.messages {
            match message {
                ChatMessage::System { content, .. } => system.push(content.as_str()),
                ChatMessage::User { content, .. } => {
                    messages.push(json!({"role": "user", "content": content}));
                }
                ChatMessage::Assistant {
                    content,
                    tool_calls,
                    ..
                } => {
                    let mut blocks = Vec::new();
                    if !content.is_empty() {
                        blocks.push(json!({"type": "text", "text": content}));
                    }
                    for call in tool_calls {
                        blocks.push(json!({
                            "type": "tool_use",
                            "id": call.id,
                            "name": call.name,
                            "input": arguments_value(&call.arguments),
                        }));
                    }
                    messages.push(json!({"role": "assistant", "content": blocks}));
                }
                ChatMessage::ToolResult(result) => {
                    let block = json!({
                        "type": "tool_result",
                        "tool_use_id": result.call_id(),
                        "content": result.content().as_str(),
                        "is_error": result.content().is_error(),
                    });
                    // Results answering one turn travel together in one user message.
                    let previous = messages.last_mut().filter(|last| {
                        last["role"] == "user"
                            && last["content"].as_array().is_some_and(|blocks| {
                                blocks.iter().all(|b| b["type"] == "tool_result")
                            })
                    });
                    match previous.and_then(|last| last["content"].as_array_mut()) {
                        Some(blocks) => blocks.push(block),
                        None => messages.push(json!({"role": "user", "content": [block]})),
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
                .map(|spec| Declaration {
                    name: spec.name(),
                    description: spec.description(),
                    input_schema: spec.input_schema(),
                })
                .collect(),
            temperature: request.temperature,
        };
        serde_json::to_vec(&body).map_err(|error| ProviderError::Malformed(error.to_string()))
    }
}

/// The request body; tool declarations borrow their schemas instead of copying them.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<String>,
    messages: Vec<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Declaration<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
}

/// The same shape as [`ToolSpec::anthropic`](crate::ToolSpec::anthropic), borrowed.
#[derive(Serialize)]
struct Declaration<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

/// Reads a Messages answer.
pub(crate) fn parse_response(body: &Value) -> Result<ProviderResponse, ProviderError> {
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::Malformed("the answer has no content blocks".to_owned()))?;
    let mut content = Vec::new();
    let mut tool_calls = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => content.push(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            ),
            Some("tool_use") => {
                let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
                let name = block
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let input = block
                    .get("input")
                    .map_or_else(|| "{}".to_owned(), Value::to_string);
                tool_calls.push(ToolCall::new(id, name, input));
            }
            _ => {}
        }
    }
    let usage = body
        .get("usage")
        .map_or_else(Usage::default, |usage| Usage {
            input_tokens: usage
                .get("input_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            output_tokens: usage
                .get("output_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        });
    Ok(ProviderResponse {
        content: content.join("\n"),
        tool_calls,
        usage,
    })
}

impl Provider for AnthropicProvider {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> ProviderFuture<'a> {
        let body = self.body(&request);
        Box::pin(async move {
            let bytes = body?;
            let headers = [
                ("x-api-key", self.key.clone()),
                ("anthropic-version", API_VERSION.to_owned()),
            ];
            let answer = self.http.post_json(&self.endpoint, &headers, bytes).await?;
            parse_response(&answer)
        })
    }
}

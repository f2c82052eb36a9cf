//! OpenAI Chat Completions, and servers that speak it (Ollama, vLLM, llama.cpp, LM Studio).

use serde::Serialize;
use serde_json::Value;

use super::http::{HttpClient, HttpOptions, key_from_env};
use super::{Provider, ProviderError, ProviderFuture, ProviderRequest, ProviderResponse};
use crate::trace::Usage;
use crate::wire::{ChatMessage, ToolCall};

/// The API's own address.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// The environment variable holding the key.
pub const OPENAI_KEY_VARIABLE: &str = "OPENAI_API_KEY";

/// A Chat Completions provider. The key comes from `OPENAI_API_KEY` (optional: local servers
/// need none) and never appears in `Debug`, logs or traces.
pub struct OpenAiProvider {
    http: HttpClient,
    endpoint: String,
    model: String,
    key: Option<String>,
}

impl std::fmt::Debug for OpenAiProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiProvider")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .finish_non_exhaustive()
    }
}

impl OpenAiProvider {
    /// A provider for `base_url` (such as `http://127.0.0.1:11434/v1` for Ollama) and a default
    /// model, with the key from the environment.
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
        Ok(Self {
            http: HttpClient::new(options)?,
            endpoint: format!("{}/chat/completions", base_url.trim_end_matches('/')),
            model: model.to_owned(),
            key: key_from_env(variable),
        })
    }

    /// The request body, serialised straight from borrowed parts: no schema or message is
    /// copied into an intermediate JSON tree.
    fn body(&self, request: &ProviderRequest<'_>) -> Result<Vec<u8>, ProviderError> {
        let body = Body {
            model: request.model.unwrap_or(&self.model),
            messages: request.messages.iter().map(Message::from).collect(),
            tools: request
                .tools
                .iter()
                .map(|spec| FunctionTool {
                    kind: "function",
                    function: Function {
                        name: spec.name(),
                        description: spec.description(),
                        parameters: spec.input_schema(),
                    },
                })
                .collect(),
            temperature: request.temperature,
        };
        serde_json::to_vec(&body).map_err(|error| ProviderError::Malformed(error.to_string()))
    }
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: Vec<Message<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<FunctionTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
}

/// The same shape as [`ToolSpec::openai`](crate::ToolSpec::openai), borrowed.
#[derive(Serialize)]
struct FunctionTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function<'a>,
}

#[derive(Serialize)]
struct Function<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum Message<'a> {
    System {
        content: &'a str,
    },
    User {
        content: &'a str,
    },
    Assistant {
        /// `null` for a turn that only calls tools.
        content: Option<&'a str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<Call<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: &'a str,
    },
}

#[derive(Serialize)]
struct Call<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: CallFunction<'a>,
}

#[derive(Serialize)]
struct CallFunction<'a> {
    name: &'a str,
    arguments: &'a str,
}

impl<'a> From<&'a ChatMessage> for Message<'a> {
    fn from(message: &'a ChatMessage) -> Self {
        match message {
            ChatMessage::System { content, .. } => Message::System { content },
            ChatMessage::User { content, .. } => Message::User { content },
            ChatMessage::Assistant {
                content,
                tool_calls,
                ..
            } => Message::Assistant {
                content: (!content.is_empty() || tool_calls.is_empty()).then_some(content.as_str()),
                tool_calls: tool_calls
                    .iter()
                    .map(|call| Call {
                        id: &call.id,
                        kind: "function",
                        function: CallFunction {
                            name: &call.name,
                            arguments: &call.arguments,
                        },
                    })
                    .collect(),
            },
            ChatMessage::ToolResult(result) => Message::Tool {
                tool_call_id: result.call_id(),
                content: result.content().as_str(),
            },
        }
    }
}

/// Reads a Chat Completions answer.
pub(crate) fn parse_response(body: &Value) -> Result<ProviderResponse, ProviderError> {
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|choices| choices.first())
        .ok_or_else(|| ProviderError::Malformed("the answer has no choices".to_owned()))?;
    let message = choice
        .get("message")
        .ok_or_else(|| ProviderError::Malformed("the first choice has no message".to_owned()))?;
    let content = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut tool_calls = Vec::new();
    if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
        for call in calls {
            let function = call.get("function");
            let name = function
                .and_then(|function| function.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let arguments = match function.and_then(|function| function.get("arguments")) {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Null) | None => String::new(),
                // Some servers send an object instead of its text.
                Some(other) => other.to_string(),
            };
            let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
            tool_calls.push(ToolCall::new(id, name, arguments));
        }
    }
    let usage = body
        .get("usage")
        .map_or_else(Usage::default, |usage| Usage {
            input_tokens: usage
                .get("prompt_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            output_tokens: usage
                .get("completion_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        });
    Ok(ProviderResponse {
        content,
        tool_calls,
        usage,
    })
}

impl Provider for OpenAiProvider {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> ProviderFuture<'a> {
        let body = self.body(&request);
        Box::pin(async move {
            let bytes = body?;
            let headers: Vec<(&'static str, String)> = self
                .key
                .iter()
                .map(|key| ("authorization", format!("Bearer {key}")))
                .collect();
            let answer = self.http.post_json(&self.endpoint, &headers, bytes).await?;
            parse_response(&answer)
        })
    }
}

//! OpenAI Chat Completions, and servers that speak it (Ollama, vLLM, llama.cpp, LM Studio).

use serde_json::{Value, json};

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

    fn body(&self, request: &ProviderRequest<'_>) -> Value {
        let messages: Vec<Value> = request.messages.iter().map(message).collect();
        let mut body = json!({
            "model": request.model.unwrap_or(&self.model),
            "messages": messages,
        });
        if !request.tools.is_empty() {
            body["tools"] = Value::Array(request.tools.iter().map(|spec| spec.openai()).collect());
        }
        if let Some(temperature) = request.temperature {
            body["temperature"] = json!(temperature);
        }
        body
    }
}

fn message(message: &ChatMessage) -> Value {
    match message {
        ChatMessage::System { content, .. } => json!({"role": "system", "content": content}),
        ChatMessage::User { content, .. } => json!({"role": "user", "content": content}),
        ChatMessage::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let mut turn = json!({"role": "assistant", "content": content});
            if !tool_calls.is_empty() {
                if content.is_empty() {
                    turn["content"] = Value::Null;
                }
                turn["tool_calls"] = tool_calls
                    .iter()
                    .map(|call| {
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        })
                    })
                    .collect();
            }
            turn
        }
        ChatMessage::ToolResult(result) => json!({
            "role": "tool",
            "tool_call_id": result.call_id(),
            "content": result.content().as_str(),
        }),
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
            let bytes = serde_json::to_vec(&body)
                .map_err(|error| ProviderError::Malformed(error.to_string()))?;
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

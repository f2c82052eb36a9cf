//! OpenAI Chat Completions, and servers that speak it (Ollama, vLLM, llama.cpp, LM Studio).

use serde::Deserialize;
use serde_json::Value;

use super::http::{HttpClient, HttpOptions, endpoint, key_from_env};
use super::json::JsonBody;
use super::{Provider, ProviderError, ProviderFuture, ProviderRequest, ProviderResponse};
use crate::declaration::Declared;
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
    endpoint: reqwest::Url,
    model: String,
    key: Option<String>,
}

impl std::fmt::Debug for OpenAiProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiProvider")
            .field("endpoint", &self.endpoint.as_str())
            .field("model", &self.model)
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .finish_non_exhaustive()
    }
}

impl OpenAiProvider {
    /// A provider for `base_url` (such as `http://127.0.0.1:11434/v1` for Ollama) and a default
    /// model, with the key from the environment. A `base_url` that is not an `http` or `https`
    /// URL is a [`ProviderError::Configuration`] here, before any request.
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
            endpoint: endpoint(base_url, "/chat/completions")?,
            model: model.to_owned(),
            key: key_from_env(variable),
        })
    }

    /// The exact bytes this provider POSTs for `request`, written straight from borrowed
    /// parts: no message is copied into an intermediate value, and each tool's declaration is
    /// serialised once (the first time a request offers it) and copied as bytes after.
    pub fn request_body(&self, request: &ProviderRequest<'_>) -> Result<Vec<u8>, ProviderError> {
        let declarations = || request.tools.iter().map(|spec| Declared::openai(spec));
        let mut body = JsonBody::with_capacity(super::body_capacity(request, declarations()));
        body.raw(r#"{"model":"#);
        body.string(request.model.unwrap_or(&self.model));
        body.raw(r#","messages":"#);
        body.array(request.messages, message);
        if !request.tools.is_empty() {
            body.raw(r#","tools":"#);
            body.array(declarations(), |body, declaration| {
                body.raw(declaration.get());
            });
        }
        if let Some(temperature) = request.temperature {
            body.raw(r#","temperature":"#);
            body.value(&temperature).map_err(super::unserialisable)?;
        }
        body.raw("}");
        Ok(body.into_bytes())
    }
}

/// One message in the Chat Completions format.
fn message(body: &mut JsonBody, message: &ChatMessage) {
    match message {
        ChatMessage::System { content, .. } => {
            body.raw(r#"{"role":"system","content":"#);
            body.string(content);
        }
        ChatMessage::User { content, .. } => {
            body.raw(r#"{"role":"user","content":"#);
            body.string(content);
        }
        ChatMessage::Assistant {
            content,
            tool_calls,
            ..
        } => {
            body.raw(r#"{"role":"assistant","content":"#);
            // `null` for a turn that only calls tools.
            if content.is_empty() && !tool_calls.is_empty() {
                body.raw("null");
            } else {
                body.string(content);
            }
            if !tool_calls.is_empty() {
                body.raw(r#","tool_calls":"#);
                body.array(tool_calls, |body, call| {
                    body.raw(r#"{"id":"#);
                    body.string(&call.id);
                    body.raw(r#","type":"function","function":{"name":"#);
                    body.string(&call.name);
                    body.raw(r#","arguments":"#);
                    body.string(&call.arguments);
                    body.raw("}}");
                });
            }
        }
        ChatMessage::ToolResult(result) => {
            body.raw(r#"{"role":"tool","tool_call_id":"#);
            body.string(result.call_id());
            body.raw(r#","content":"#);
            body.string(result.content());
        }
    }
    body.raw("}");
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
    message: AnswerMessage,
}

#[derive(Deserialize)]
struct AnswerMessage {
    /// Text, or `null` for a turn that only calls tools; other shapes carry no text for us.
    #[serde(default)]
    content: Option<Value>,
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
    /// The arguments' JSON text; some servers send the object itself.
    #[serde(default)]
    arguments: Option<Value>,
}

#[derive(Deserialize)]
struct CompletionUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

impl TryFrom<Completion> for ProviderResponse {
    type Error = ProviderError;

    fn try_from(completion: Completion) -> Result<Self, ProviderError> {
        let choice = completion
            .choices
            .into_iter()
            .next()
            .ok_or_else(|| ProviderError::malformed("the answer has no choices"))?;
        let content = match choice.message.content {
            Some(Value::String(text)) => text,
            _ => String::new(),
        };
        let tool_calls = choice
            .message
            .tool_calls
            .unwrap_or_default()
            .into_iter()
            .map(|call| {
                let function = call.function;
                let (name, arguments) = function.map_or_else(Default::default, |function| {
                    let arguments = match function.arguments {
                        Some(Value::String(text)) => text,
                        Some(Value::Null) | None => String::new(),
                        Some(other) => other.to_string(),
                    };
                    (function.name.unwrap_or_default(), arguments)
                });
                ToolCall::new(call.id.unwrap_or_default(), name, arguments)
            })
            .collect();
        let usage = completion.usage.map_or_else(Usage::default, |usage| Usage {
            input_tokens: usage.prompt_tokens,
            output_tokens: usage.completion_tokens,
        });
        Ok(ProviderResponse::new(content, tool_calls, usage))
    }
}

impl Provider for OpenAiProvider {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> ProviderFuture<'a> {
        let body = self.request_body(&request);
        Box::pin(async move {
            let bytes = body?;
            let headers: Vec<(&'static str, String)> = self
                .key
                .iter()
                .map(|key| ("authorization", format!("Bearer {key}")))
                .collect();
            let answer: Completion = self.http.post_json(&self.endpoint, &headers, bytes).await?;
            answer.try_into()
        })
    }
}

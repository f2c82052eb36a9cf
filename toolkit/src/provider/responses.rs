//! OpenAI Responses (`/v1/responses`): typed input and output items, `function_call` and
//! `function_call_output` paired by `call_id`, reasoning items carried between turns. Also
//! served by Azure OpenAI, Ollama, vLLM, LM Studio, LiteLLM and OpenRouter.

use std::borrow::Cow;
use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::http::{ApiKey, HttpClient, HttpOptions, decode, endpoint, text as lenient};
use super::sse::{Decoder, Read, Sse, data, streamed};
use super::stream::{Delta, DeltaStream};
use super::{
    Provider, ProviderError, ProviderFuture, ProviderRequest, ProviderResponse, StopReason, Usage,
};
use crate::media::MediaKind;
use crate::wire::{Carried, ChatMessage, ToolCall};

/// The name of this wire, on the state it carries between turns.
const WIRE: &str = "openai-responses";

/// A Responses provider. Its key (optional: local servers need none) goes as
/// `Authorization: Bearer` and never appears in `Debug`, logs or traces; it is built as
/// [`OpenAiProvider`](super::OpenAiProvider) is.
///
/// The model's reasoning items (from reasoning models) go back to the server with the turn
/// they came in, before its message and calls, as the API asks. By default the server keeps
/// the answers it gives (its own default for `store`); [`without_storage`](Self::without_storage)
/// asks it to keep nothing, and for the reasoning's encrypted content, which then comes back
/// in each turn instead.
pub struct OpenAiResponsesProvider {
    endpoint: reqwest::Url,
    model: String,
    store: bool,
    http: HttpClient,
}

impl std::fmt::Debug for OpenAiResponsesProvider {
    /// The endpoint as text, the model, and the names of the headers sent (never a value: the
    /// key is one).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiResponsesProvider")
            .field("endpoint", &self.endpoint.as_str())
            .field("model", &self.model)
            .field("store", &self.store)
            .field("http", &self.http)
            .finish()
    }
}

impl OpenAiResponsesProvider {
    /// A provider for `base_url` (such as [`OPENAI_BASE_URL`](super::OPENAI_BASE_URL), or
    /// `http://127.0.0.1:11434/v1` for Ollama) and a default model, sending no key until
    /// [`with_key`](Self::with_key) gives one. A `base_url` that is not an `http` or `https`
    /// URL, or a header of `options` that HTTP does not allow, is a
    /// [`ProviderError::Configuration`] here, before any request.
    pub fn new(base_url: &str, model: &str, options: HttpOptions) -> Result<Self, ProviderError> {
        Ok(Self {
            endpoint: endpoint(base_url, "/responses")?,
            model: model.to_owned(),
            store: true,
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
        Self::from_env_var(super::OPENAI_KEY_VARIABLE, base_url, model, options)
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

    /// The same provider asking the server to keep nothing (`"store": false`) and to send
    /// the reasoning's encrypted content, which goes back with each turn.
    #[must_use]
    pub fn without_storage(mut self) -> Self {
        self.store = false;
        self
    }

    /// The exact bytes this provider POSTs for `request` (see
    /// [`OpenAiProvider::request_body`](super::OpenAiProvider::request_body)): system messages
    /// become `instructions`, each turn its reasoning items, message and `function_call`
    /// items, each tool result a `function_call_output`.
    pub fn request_body(&self, request: &ProviderRequest<'_>) -> Result<Vec<u8>, ProviderError> {
        self.body(request, false)
    }

    /// The exact bytes this provider POSTs for `request` when it streams.
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
        let mut instructions = Vec::new();
        let mut input = Vec::new();
        for message in request.messages {
            match message {
                ChatMessage::System { content, .. } => instructions.push(content.as_str()),
                ChatMessage::User { content, .. } => input.push(Item::Message {
                    role: "user",
                    content,
                }),
                ChatMessage::Assistant {
                    content,
                    tool_calls,
                    carried,
                    ..
                } => {
                    let reasoning = carried
                        .as_ref()
                        .and_then(|carried| carried.json_for(WIRE))
                        .and_then(|json| serde_json::from_str::<Vec<Box<RawValue>>>(json).ok())
                        .unwrap_or_default();
                    input.extend(reasoning.into_iter().map(Item::Reasoning));
                    if !content.is_empty() {
                        input.push(Item::Message {
                            role: "assistant",
                            content,
                        });
                    }
                    input.extend(tool_calls.iter().map(|call| Item::FunctionCall {
                        kind: "function_call",
                        call_id: &call.id,
                        name: &call.name,
                        arguments: &call.arguments,
                    }));
                }
                ChatMessage::ToolResult(result) => input.push(Item::FunctionCallOutput {
                    kind: "function_call_output",
                    call_id: result.call_id(),
                    output: output(result.wire()),
                }),
            }
        }
        let body = Body {
            model: request.model.unwrap_or(&self.model),
            instructions: (!instructions.is_empty()).then(|| instructions.join("\n\n")),
            input,
            tools: request
                .tools
                .iter()
                .map(|spec| spec.responses_declaration())
                .collect(),
            temperature: request.temperature,
            stream,
            store: (!self.store).then_some(false),
            include: if self.store {
                &[]
            } else {
                &["reasoning.encrypted_content"]
            },
        };
        super::serialise_body(&body, request, &body.tools)
    }
}

/// The request body; tool declarations borrow their schemas instead of copying them.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<String>,
    input: Vec<Item<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    store: Option<bool>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    include: &'static [&'static str],
}

/// One input item.
#[derive(Serialize)]
#[serde(untagged)]
enum Item<'a> {
    /// A message in the short form: a role and its text.
    Message {
        role: &'static str,
        content: &'a str,
    },
    /// A reasoning item, as the server gave it.
    Reasoning(Box<RawValue>),
    /// A call the model asked for.
    FunctionCall {
        #[serde(rename = "type")]
        kind: &'static str,
        call_id: &'a str,
        name: &'a str,
        arguments: &'a str,
    },
    /// A tool's answer to a call (an error is told in its text: the item has no error flag).
    FunctionCallOutput {
        #[serde(rename = "type")]
        kind: &'static str,
        call_id: &'a str,
        output: Output<'a>,
    },
}

/// A call's output: its text, or (with media) parts: the text as `input_text`, each image as
/// `input_image`, each PDF as `input_file`, both as `data:` URLs, each text file as
/// `input_text` after a line naming it; a sound, which an output does not take, is a note in
/// an `input_text` part.
#[derive(Serialize)]
#[serde(untagged)]
enum Output<'a> {
    Text(&'a str),
    Parts(Vec<OutputPart<'a>>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(
    clippy::enum_variant_names,
    reason = "the names are the wire's types: input_text, input_image, input_file"
)]
enum OutputPart<'a> {
    InputText {
        text: Cow<'a, str>,
    },
    InputImage {
        image_url: String,
    },
    InputFile {
        filename: &'a str,
        file_data: String,
    },
}

fn output(wire: &crate::WireString) -> Output<'_> {
    if wire.media().is_empty() {
        return Output::Text(wire.as_str());
    }
    let mut parts = Vec::with_capacity(1 + wire.media().len());
    if !wire.is_empty() {
        parts.push(OutputPart::InputText {
            text: Cow::Borrowed(wire.as_str()),
        });
    }
    for part in wire.media() {
        parts.push(match (part.kind(), part.text()) {
            (_, Some(text)) => OutputPart::InputText {
                text: Cow::Owned(format!("[{}]\n{text}", part.name())),
            },
            (MediaKind::Image, None) => OutputPart::InputImage {
                image_url: part.data_url(),
            },
            (MediaKind::File, None) => OutputPart::InputFile {
                filename: part.file_name(),
                file_data: part.data_url(),
            },
            _ => OutputPart::InputText {
                text: Cow::Owned(super::not_carried(
                    part,
                    "the OpenAI Responses API",
                    "sound",
                )),
            },
        });
    }
    Output::Parts(parts)
}

/// A Responses answer, as far as the loop reads it.
#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    incomplete_details: Option<IncompleteDetails>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    output: Vec<Box<RawValue>>,
    #[serde(default)]
    usage: Option<ResponseUsage>,
}

#[derive(Deserialize)]
struct IncompleteDetails {
    #[serde(default, deserialize_with = "lenient")]
    reason: String,
}

#[derive(Deserialize)]
struct ResponseUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    input_tokens_details: Option<InputDetails>,
    #[serde(default)]
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Deserialize)]
struct InputDetails {
    #[serde(default)]
    cached_tokens: u64,
}

#[derive(Deserialize)]
struct OutputDetails {
    #[serde(default)]
    reasoning_tokens: u64,
}

/// Why a response ended: its status, and for an incomplete one, the reason it gives; a
/// refusal when the model refused.
fn stop_reason(response: &Response, refused: bool) -> Option<StopReason> {
    if refused {
        return Some(StopReason::Refusal);
    }
    match response.status.as_deref()? {
        "completed" => Some(StopReason::Finished),
        "incomplete" => {
            let reason = response
                .incomplete_details
                .as_ref()
                .map_or("", |details| details.reason.as_str());
            Some(match reason {
                "max_output_tokens" => StopReason::Length,
                "content_filter" => StopReason::ContentFilter,
                "" => StopReason::Other("incomplete".to_owned()),
                other => StopReason::Other(other.to_owned()),
            })
        }
        _ => None,
    }
}

/// An output item's type. Only a `message`'s and a `function_call`'s other fields are read:
/// items the loop does not use (a tool search, a shell call, items added later) may hold
/// anything.
#[derive(Deserialize)]
struct ItemKind {
    #[serde(rename = "type", default, deserialize_with = "lenient")]
    kind: String,
}

/// A `message`, `function_call` or `reasoning` item, as far as the loop reads it.
#[derive(Deserialize)]
struct OutputItem {
    #[serde(default)]
    content: Vec<ContentPart>,
    /// A reasoning item's summary, for people.
    #[serde(default)]
    summary: Vec<ContentPart>,
    #[serde(default, deserialize_with = "lenient")]
    call_id: String,
    #[serde(default, deserialize_with = "lenient")]
    name: String,
    #[serde(default, deserialize_with = "lenient")]
    arguments: String,
}

#[derive(Deserialize)]
struct ContentPart {
    #[serde(rename = "type", default, deserialize_with = "lenient")]
    kind: String,
    #[serde(default, deserialize_with = "lenient")]
    text: String,
    /// A `refusal` part's text.
    #[serde(default, deserialize_with = "lenient")]
    refusal: String,
}

/// What the loop reads of an item: its type, and for a message or a call, the item.
fn read_item(item: &RawValue) -> Result<(String, Option<OutputItem>), ProviderError> {
    let not_expected = |error: serde_json::Error| ProviderError::Malformed {
        message: format!("an output item is not the expected JSON: {error}"),
        source: Some(error),
    };
    let ItemKind { kind } = serde_json::from_str(item.get()).map_err(not_expected)?;
    let read = match kind.as_str() {
        "message" | "function_call" | "reasoning" => {
            Some(serde_json::from_str(item.get()).map_err(not_expected)?)
        }
        _ => None,
    };
    Ok((kind, read))
}

/// The reasoning items among `output`, as state carried to the next request.
fn carried(output: &[Box<RawValue>]) -> Result<Option<Carried>, ProviderError> {
    let mut reasoning = Vec::new();
    for item in output {
        if read_item(item)?.0 == "reasoning" {
            reasoning.push(item.as_ref());
        }
    }
    if reasoning.is_empty() {
        return Ok(None);
    }
    let json = serde_json::to_string(&reasoning).map_err(super::unserialisable)?;
    Ok(Some(Carried::new(WIRE, json)))
}

/// The error of a failed response.
fn failure(error: Option<&Value>) -> ProviderError {
    let message = error
        .and_then(|error| error.get("message"))
        .and_then(Value::as_str)
        .map_or_else(
            || error.map_or_else(|| "the response failed".to_owned(), Value::to_string),
            str::to_owned,
        );
    ProviderError::Interrupted(message.chars().take(500).collect())
}

fn usage(usage: Option<&ResponseUsage>) -> Usage {
    usage.map_or_else(Usage::default, |usage| {
        let cached = usage
            .input_tokens_details
            .as_ref()
            .map_or(0, |details| details.cached_tokens);
        let reasoning = usage
            .output_tokens_details
            .as_ref()
            .map_or(0, |details| details.reasoning_tokens);
        Usage::new(usage.input_tokens, usage.output_tokens)
            .with_cache(cached, 0)
            .with_reasoning(reasoning)
    })
}

/// The turn of a whole Responses answer: the text of every `output_text` part (and of every
/// `refusal` part), each `function_call` item as a call (its `call_id` the id), the reasoning
/// items' summaries as thinking, the reasoning items carried.
pub(super) fn whole_answer(bytes: &[u8]) -> Result<ProviderResponse, ProviderError> {
    let response: Response = decode(bytes)?;
    if response.status.as_deref() == Some("failed") {
        return Err(failure(response.error.as_ref()));
    }
    let mut content = String::new();
    let mut thinking = Vec::new();
    let mut refused = false;
    let mut calls = Vec::new();
    for item in &response.output {
        let (kind, Some(item)) = read_item(item)? else {
            continue;
        };
        match kind.as_str() {
            "message" => {
                for part in &item.content {
                    match part.kind.as_str() {
                        "output_text" => content.push_str(&part.text),
                        "refusal" => {
                            refused = true;
                            content.push_str(&part.refusal);
                        }
                        _ => {}
                    }
                }
            }
            "function_call" => calls.push(ToolCall::new(item.call_id, item.name, item.arguments)),
            "reasoning" => thinking.extend(
                item.summary
                    .into_iter()
                    .filter(|part| part.kind == "summary_text" && !part.text.is_empty())
                    .map(|part| part.text),
            ),
            _ => {}
        }
    }
    let turn = ProviderResponse::new(content, calls, usage(response.usage.as_ref()))
        .with_thinking(thinking.join("\n"))
        .with_carried(carried(&response.output)?);
    Ok(turn.stopped(stop_reason(&response, refused)))
}

/// One streamed event, as far as the loop reads it.
#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type", default, deserialize_with = "lenient")]
    kind: String,
    #[serde(default)]
    output_index: u64,
    /// Which part of a reasoning item's summary a summary delta extends.
    #[serde(default)]
    summary_index: u64,
    #[serde(default)]
    item: Option<Box<RawValue>>,
    /// Text for the deltas the loop reads; other events' deltas may be objects.
    #[serde(default, deserialize_with = "lenient")]
    delta: String,
    #[serde(default)]
    response: Option<Response>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    error: Option<Value>,
}

/// Reads Responses events until `response.completed` (or `response.incomplete`): text from
/// `response.output_text.delta`, a call for each `function_call` item added, its arguments
/// from `response.function_call_arguments.delta`, usage and reasoning items from the final
/// response. `response.failed` and `error` end the answer with the server's message.
#[derive(Default)]
pub(super) struct EventDecoder {
    /// The output index of each call started, in order.
    calls: Vec<u64>,
    /// Whether refusal text came.
    refused: bool,
    /// The summary part the last thinking came from (its item's output index and its own):
    /// thinking of another part begins on a new line, as a whole answer's parts are joined.
    summary: Option<(u64, u64)>,
}

impl EventDecoder {
    fn call_of(&self, output_index: u64) -> Result<usize, ProviderError> {
        self.calls
            .iter()
            .position(|index| *index == output_index)
            .ok_or_else(|| {
                ProviderError::malformed(format!(
                    "the stream sends arguments for output {output_index}, which is not a started \
                     function call"
                ))
            })
    }
}

impl Decoder for EventDecoder {
    fn event(&mut self, event: Sse, out: &mut VecDeque<Delta>) -> Result<Read, ProviderError> {
        // Some servers end with Chat Completions' marker.
        if event.data.trim() == "[DONE]" {
            return Ok(Read::Complete);
        }
        let event: Event = data(&event)?;
        match event.kind.as_str() {
            "response.output_item.added" => {
                let Some(item) = event.item else {
                    return Ok(Read::More);
                };
                if let (kind, Some(item)) = read_item(&item)?
                    && kind == "function_call"
                {
                    let index = self.calls.len();
                    self.calls.push(event.output_index);
                    out.push_back(Delta::CallStarted {
                        index,
                        id: item.call_id,
                        name: item.name,
                    });
                    if !item.arguments.is_empty() {
                        out.push_back(Delta::Arguments {
                            index,
                            fragment: item.arguments,
                        });
                    }
                }
            }
            "response.output_text.delta" if !event.delta.is_empty() => {
                out.push_back(Delta::Text { text: event.delta });
            }
            "response.refusal.delta" if !event.delta.is_empty() => {
                self.refused = true;
                out.push_back(Delta::Text { text: event.delta });
            }
            "response.reasoning_summary_text.delta" if !event.delta.is_empty() => {
                let part = (event.output_index, event.summary_index);
                let text = match self.summary.replace(part) {
                    Some(last) if last != part => format!("\n{}", event.delta),
                    _ => event.delta,
                };
                out.push_back(Delta::Thinking { text });
            }
            "response.function_call_arguments.delta" if !event.delta.is_empty() => {
                let index = self.call_of(event.output_index)?;
                out.push_back(Delta::Arguments {
                    index,
                    fragment: event.delta,
                });
            }
            "response.completed" | "response.incomplete" | "response.done" => {
                if let Some(response) = event.response {
                    out.push_back(Delta::Usage {
                        usage: usage(response.usage.as_ref()),
                    });
                    if let Some(reason) = stop_reason(&response, self.refused) {
                        out.push_back(Delta::Stop { reason });
                    }
                    if let Some(carried) = carried(&response.output)? {
                        out.push_back(Delta::Carried { carried });
                    }
                }
                return Ok(Read::Complete);
            }
            "response.failed" => {
                let error = event.response.and_then(|response| response.error);
                return Err(failure(error.as_ref()));
            }
            "error" => {
                // Documented flat (`message` beside `type`); servers also nest it in `error`.
                let error = match event.message {
                    Some(message) => serde_json::json!({ "message": message }),
                    None => event.error.unwrap_or_default(),
                };
                return Err(failure(Some(&error)));
            }
            _ => {}
        }
        Ok(Read::More)
    }
}

impl Provider for OpenAiResponsesProvider {
    fn name(&self) -> &'static str {
        WIRE
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

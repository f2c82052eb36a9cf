//! Gemini (`generateContent`, `streamGenerateContent`): `functionDeclarations`, and
//! `functionCall` and `functionResponse` parts. Served by Google's Gemini API (and, with the
//! same bodies, by gateways such as LiteLLM that pass it through).

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::http::{ApiKey, HttpClient, HttpOptions, arguments_value, decode, endpoint};
use super::sse::{Decoder, Read, Sse, data, streamed};
use super::stream::{Assembler, Delta, DeltaStream};
use super::{
    Provider, ProviderError, ProviderFuture, ProviderRequest, ProviderResponse, StopReason, Usage,
};
use crate::media::{MediaKind, MediaType};
use crate::wire::{Carried, ChatMessage};

/// The API's own address.
pub const GEMINI_BASE_URL: &str = "https://generativelanguage.googleapis.com";

/// The environment variable holding the key.
pub const GEMINI_KEY_VARIABLE: &str = "GEMINI_API_KEY";

/// The name of this wire, on the state it carries between turns.
const WIRE: &str = "gemini";

/// A Gemini provider. Its key goes in the `x-goog-api-key` header (never in the URL), and
/// never appears in `Debug`, logs or traces.
///
/// Tools are declared with [`ToolSpec::gemini`](crate::ToolSpec::gemini)'s rewrite of their
/// schema; a tool Gemini cannot declare is refused before anything is sent. The thought
/// signatures Gemini puts on a turn's parts go back with that turn, on the same parts, as
/// Gemini asks; a call's `id` goes back only when Gemini gave it.
///
/// ```
/// use toolkit::provider::{ApiKey, GEMINI_BASE_URL, GeminiProvider, HttpOptions};
///
/// # let key_from_your_config = "AIza0123456789";
/// let provider = GeminiProvider::new(GEMINI_BASE_URL, "gemini-2.5-flash", HttpOptions::default())?
///     .with_key(ApiKey::new(key_from_your_config))?;
/// # Ok::<(), toolkit::provider::ProviderError>(())
/// ```
pub struct GeminiProvider {
    base_url: String,
    model: String,
    http: HttpClient,
}

impl std::fmt::Debug for GeminiProvider {
    /// The endpoint as text, the model, and the names of the headers sent (never a value: the
    /// key is one).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeminiProvider")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("http", &self.http)
            .finish()
    }
}

impl GeminiProvider {
    /// A provider for `base_url` (such as [`GEMINI_BASE_URL`]) and a default model (such as
    /// `gemini-2.5-flash`), sending no key until [`with_key`](Self::with_key) gives one. A
    /// `base_url` that is not an `http` or `https` URL, a model name that is not one, or a
    /// header of `options` that HTTP does not allow, is a [`ProviderError::Configuration`]
    /// here, before any request.
    pub fn new(base_url: &str, model: &str, options: HttpOptions) -> Result<Self, ProviderError> {
        let provider = Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            model: model.to_owned(),
            http: HttpClient::new(options, &[])?,
        };
        provider.endpoint(model, false)?;
        Ok(provider)
    }

    /// The same provider sending `key` in `x-goog-api-key`. A key with a character HTTP does
    /// not allow in a header is a [`ProviderError::Configuration`].
    pub fn with_key(mut self, key: impl Into<ApiKey>) -> Result<Self, ProviderError> {
        self.http.set_key("x-goog-api-key", "", &key.into())?;
        Ok(self)
    }

    /// [`new`](Self::new) with the key from `GEMINI_API_KEY`, which must be set: unset, it is
    /// a [`ProviderError::Configuration`].
    pub fn from_env(
        base_url: &str,
        model: &str,
        options: HttpOptions,
    ) -> Result<Self, ProviderError> {
        Self::from_env_var(GEMINI_KEY_VARIABLE, base_url, model, options)
    }

    /// The same, with the key read from another environment variable.
    pub fn from_env_var(
        variable: &str,
        base_url: &str,
        model: &str,
        options: HttpOptions,
    ) -> Result<Self, ProviderError> {
        let key = ApiKey::from_env(variable)
            .ok_or_else(|| ProviderError::Configuration(format!("{variable} is not set")))?;
        Self::new(base_url, model, options)?.with_key(key)
    }

    /// Where a request for `model` goes. A model's name goes into the path, so only names of
    /// letters, digits, `.`, `-` and `_` (after an optional `models/`) are taken.
    fn endpoint(&self, model: &str, stream: bool) -> Result<reqwest::Url, ProviderError> {
        let name = model.strip_prefix("models/").unwrap_or(model);
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        {
            return Err(ProviderError::Configuration(format!(
                "{:?} is not a Gemini model name (letters, digits, '.', '-' and '_')",
                crate::bound::echo(model)
            )));
        }
        let method = if stream {
            "streamGenerateContent?alt=sse"
        } else {
            "generateContent"
        };
        endpoint(&self.base_url, &format!("/v1beta/models/{name}:{method}"))
    }

    /// The exact bytes this provider POSTs for `request`: system messages as the
    /// `systemInstruction`, each turn as a `model` content of its text and `functionCall`
    /// parts, the results answering one turn together in one `user` content of
    /// `functionResponse` parts (`{"output": ...}`, or `{"error": ...}` for an error).
    pub fn request_body(&self, request: &ProviderRequest<'_>) -> Result<Vec<u8>, ProviderError> {
        let mut declarations = Vec::with_capacity(request.tools.len());
        for spec in request.tools {
            let declaration = spec.gemini_declaration().map_err(|error| {
                ProviderError::Declaration(crate::spec::ExportError::Schema(error.clone()))
            })?;
            declarations.push(declaration);
        }
        let mut system = Vec::new();
        let mut contents: Vec<Content<'_>> = Vec::new();
        // The tool each call id names, from the latest turn that made it.
        let mut names: HashMap<&str, (&str, bool)> = HashMap::new();
        for message in request.messages {
            match message {
                ChatMessage::System { content, .. } => system.push(content.as_str()),
                ChatMessage::User { content, .. } => contents.push(Content {
                    role: "user",
                    parts: vec![Part::Text {
                        text: content,
                        thought_signature: None,
                    }],
                }),
                ChatMessage::Assistant {
                    content,
                    tool_calls,
                    carried,
                    ..
                } => {
                    let signed: Signed = carried
                        .as_ref()
                        .and_then(|carried| carried.json_for(WIRE))
                        .and_then(|json| serde_json::from_str(json).ok())
                        .unwrap_or_default();
                    for (call, signed) in tool_calls
                        .iter()
                        .zip(signed.calls.iter().map(Some).chain(std::iter::repeat(None)))
                    {
                        names.insert(&call.id, (&call.name, signed.is_some_and(|s| s.id)));
                    }
                    if let Some(content) = model_content(content, tool_calls, signed) {
                        contents.push(content);
                    }
                }
                ChatMessage::ToolResult(result) => {
                    let (name, given) = names.get(result.call_id()).copied().unwrap_or(("", false));
                    let (text, parts) = response_parts(result.wire());
                    let text = Value::from(text);
                    let response = if result.wire().is_error() {
                        serde_json::json!({ "error": text })
                    } else {
                        serde_json::json!({ "output": text })
                    };
                    let part = Part::Response {
                        function_response: FunctionResponse {
                            id: given.then_some(result.call_id()),
                            name,
                            response,
                            parts,
                        },
                    };
                    // Results answering one turn travel together in one user content.
                    match contents.last_mut() {
                        Some(Content {
                            role: "user",
                            parts,
                        }) if parts
                            .iter()
                            .all(|part| matches!(part, Part::Response { .. })) =>
                        {
                            parts.push(part);
                        }
                        _ => contents.push(Content {
                            role: "user",
                            parts: vec![part],
                        }),
                    }
                }
            }
        }
        let joined = system.join("\n\n");
        let body = Body {
            contents,
            system_instruction: (!system.is_empty()).then(|| SystemInstruction {
                parts: [TextPart { text: &joined }],
            }),
            tools: if declarations.is_empty() {
                Vec::new()
            } else {
                vec![Tools {
                    function_declarations: declarations.clone(),
                }]
            },
            generation_config: request
                .temperature
                .map(|temperature| GenerationConfig { temperature }),
        };
        super::serialise_body(&body, request, &declarations)
    }

    fn model<'a>(&'a self, request: &ProviderRequest<'a>) -> &'a str {
        request.model.unwrap_or(&self.model)
    }
}

/// A turn as a `model` content: its text, then its calls, each part with its signature and
/// each call with its id when Gemini gave it; `None` for a turn of nothing.
fn model_content<'a>(
    content: &'a str,
    tool_calls: &'a [crate::wire::ToolCall],
    signed: Signed,
) -> Option<Content<'a>> {
    let mut parts = Vec::new();
    if !content.is_empty() {
        parts.push(Part::Text {
            text: content,
            thought_signature: signed.text,
        });
    }
    let mut signed_calls = signed.calls.into_iter();
    for call in tool_calls {
        let signed = signed_calls.next();
        let given = signed.as_ref().is_some_and(|signed| signed.id);
        let args = match arguments_value(&call.arguments) {
            object @ Value::Object(_) => object,
            other => serde_json::json!({ "arguments": other }),
        };
        parts.push(Part::Call {
            function_call: FunctionCall {
                id: given.then_some(call.id.as_str()),
                name: &call.name,
                args,
            },
            thought_signature: signed.and_then(|signed| signed.signature),
        });
    }
    (!parts.is_empty()).then_some(Content {
        role: "model",
        parts,
    })
}

#[derive(Serialize)]
struct Body<'a> {
    contents: Vec<Content<'a>>,
    #[serde(rename = "systemInstruction", skip_serializing_if = "Option::is_none")]
    system_instruction: Option<SystemInstruction<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tools<'a>>,
    #[serde(rename = "generationConfig", skip_serializing_if = "Option::is_none")]
    generation_config: Option<GenerationConfig>,
}

#[derive(Serialize)]
struct SystemInstruction<'a> {
    parts: [TextPart<'a>; 1],
}

#[derive(Serialize)]
struct TextPart<'a> {
    text: &'a str,
}

#[derive(Serialize)]
struct Tools<'a> {
    #[serde(rename = "functionDeclarations")]
    function_declarations: Vec<&'a RawValue>,
}

#[derive(Serialize)]
struct GenerationConfig {
    temperature: f32,
}

#[derive(Serialize)]
struct Content<'a> {
    role: &'static str,
    parts: Vec<Part<'a>>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Part<'a> {
    Text {
        text: &'a str,
        #[serde(rename = "thoughtSignature", skip_serializing_if = "Option::is_none")]
        thought_signature: Option<String>,
    },
    Call {
        #[serde(rename = "functionCall")]
        function_call: FunctionCall<'a>,
        #[serde(rename = "thoughtSignature", skip_serializing_if = "Option::is_none")]
        thought_signature: Option<String>,
    },
    Response {
        #[serde(rename = "functionResponse")]
        function_response: FunctionResponse<'a>,
    },
}

#[derive(Serialize)]
struct FunctionCall<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    name: &'a str,
    args: Value,
}

#[derive(Serialize)]
struct FunctionResponse<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    name: &'a str,
    response: Value,
    /// The media of the result, as `inlineData` parts (Gemini 3's multimodal function
    /// responses).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    parts: Vec<InlinePart<'a>>,
}

#[derive(Serialize)]
struct InlinePart<'a> {
    #[serde(rename = "inlineData")]
    inline_data: InlineData<'a>,
}

#[derive(Serialize)]
struct InlineData<'a> {
    #[serde(rename = "mimeType")]
    mime_type: &'static str,
    data: &'a str,
}

/// A result's text and its media as `inlineData` parts. A function response takes PNG, JPEG
/// and WebP images, PDFs and plain text (a JSON file goes as plain text); for a GIF or a sound
/// the text gains a note instead.
fn response_parts(wire: &crate::WireString) -> (Cow<'_, str>, Vec<InlinePart<'_>>) {
    let mut text = Cow::Borrowed(wire.as_str());
    let mut parts = Vec::new();
    for part in wire.media() {
        let mime_type = match part.media_type() {
            MediaType::Json => Some("text/plain"),
            MediaType::Png
            | MediaType::Jpeg
            | MediaType::Webp
            | MediaType::Pdf
            | MediaType::Text => Some(part.mime_type()),
            _ => None,
        };
        if let Some(mime_type) = mime_type {
            parts.push(InlinePart {
                inline_data: InlineData {
                    mime_type,
                    data: part.base64(),
                },
            });
        } else {
            let what = if part.kind() == MediaKind::Audio {
                "sound"
            } else {
                "GIF image"
            };
            let note = super::not_carried(part, "the Gemini API", what);
            let text = text.to_mut();
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&note);
        }
    }
    (text, parts)
}

/// What a turn carries to the next request: the thought signature of its text, and of each
/// call with whether Gemini gave the call's id.
#[derive(Default, PartialEq, Serialize, Deserialize)]
struct Signed {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    calls: Vec<SignedCall>,
}

#[derive(PartialEq, Serialize, Deserialize)]
struct SignedCall {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    signature: Option<String>,
    /// Whether the id is Gemini's own (else it was made here and is not sent back).
    #[serde(default)]
    id: bool,
}

/// A `generateContent` answer, or one chunk of a streamed one, as far as the loop reads it.
#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    candidates: Vec<Candidate>,
    #[serde(rename = "usageMetadata", default)]
    usage_metadata: Option<UsageMetadata>,
    #[serde(rename = "promptFeedback", default)]
    prompt_feedback: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Candidate {
    #[serde(default)]
    content: Option<CandidateContent>,
    #[serde(rename = "finishReason", default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct CandidateContent {
    #[serde(default)]
    parts: Vec<AnswerPart>,
}

#[derive(Deserialize)]
struct AnswerPart {
    #[serde(default)]
    text: Option<String>,
    /// A thought summary, not the answer's text: the turn's thinking, for people.
    #[serde(default)]
    thought: bool,
    #[serde(rename = "thoughtSignature", default)]
    thought_signature: Option<String>,
    #[serde(rename = "functionCall", default)]
    function_call: Option<AnswerCall>,
}

#[derive(Deserialize)]
struct AnswerCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    args: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
#[allow(clippy::struct_field_names)]
struct UsageMetadata {
    #[serde(rename = "promptTokenCount", default)]
    prompt_token_count: u64,
    #[serde(rename = "candidatesTokenCount", default)]
    candidates_token_count: u64,
    /// Thinking tokens, counted apart from the candidates' (other wires count them as output).
    #[serde(rename = "thoughtsTokenCount", default)]
    thoughts_token_count: u64,
    /// Of the prompt, the tokens read from a cache.
    #[serde(rename = "cachedContentTokenCount", default)]
    cached_content_token_count: u64,
    /// The prompt of Gemini's own tool use (search results), billed as prompt.
    #[serde(rename = "toolUsePromptTokenCount", default)]
    tool_use_prompt_token_count: u64,
}

/// The reason of a `finishReason`.
fn stop_reason(word: &str) -> StopReason {
    match word {
        "STOP" => StopReason::Finished,
        "MAX_TOKENS" => StopReason::Length,
        "SAFETY"
        | "RECITATION"
        | "BLOCKLIST"
        | "PROHIBITED_CONTENT"
        | "SPII"
        | "IMAGE_SAFETY"
        | "IMAGE_PROHIBITED_CONTENT"
        | "IMAGE_RECITATION" => StopReason::ContentFilter,
        other => StopReason::Other(other.to_owned()),
    }
}

/// Reads chunks: each is a whole `generateContent` answer holding what came since the last
/// (text parts to append, calls whole, the usage so far); the last has a finish reason, and
/// the stream then ends (Gemini sends no end event). A whole answer is read as one chunk.
#[derive(Default)]
pub(super) struct ChunkDecoder {
    calls: usize,
    signed: Signed,
    finished: bool,
}

impl ChunkDecoder {
    fn chunk(&mut self, chunk: Chunk, out: &mut VecDeque<Delta>) -> Result<(), ProviderError> {
        if let Some(error) = chunk.error {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            return Err(ProviderError::Interrupted(
                message.chars().take(500).collect(),
            ));
        }
        let Some(candidate) = chunk.candidates.into_iter().next() else {
            if let Some(reason) = chunk
                .prompt_feedback
                .as_ref()
                .and_then(|feedback| feedback.get("blockReason"))
            {
                return Err(ProviderError::Interrupted(format!(
                    "the prompt was blocked ({reason})"
                )));
            }
            Self::usage(chunk.usage_metadata.as_ref(), out);
            return Ok(());
        };
        let before = serde_json::to_string(&self.signed).map_err(super::unserialisable)?;
        for part in candidate
            .content
            .map(|content| content.parts)
            .unwrap_or_default()
        {
            if part.thought {
                if let Some(text) = part.text.filter(|text| !text.is_empty()) {
                    out.push_back(Delta::Thinking { text });
                }
                continue;
            }
            if let Some(call) = part.function_call {
                let index = self.calls;
                self.calls += 1;
                self.signed.calls.push(SignedCall {
                    signature: part.thought_signature,
                    id: call.id.is_some(),
                });
                out.push_back(Delta::CallStarted {
                    index,
                    id: call.id.unwrap_or_else(|| format!("gemini_{index}")),
                    name: call.name,
                });
                let fragment = call
                    .args
                    .map_or_else(|| "{}".to_owned(), |args| args.get().to_owned());
                out.push_back(Delta::Arguments { index, fragment });
                continue;
            }
            if let Some(text) = part.text.filter(|text| !text.is_empty()) {
                out.push_back(Delta::Text { text });
            }
            if part.thought_signature.is_some() {
                self.signed.text = part.thought_signature;
            }
        }
        let after = serde_json::to_string(&self.signed).map_err(super::unserialisable)?;
        if after != before {
            out.push_back(Delta::Carried {
                carried: Carried::new(WIRE, after),
            });
        }
        Self::usage(chunk.usage_metadata.as_ref(), out);
        if let Some(reason) = &candidate.finish_reason {
            out.push_back(Delta::Stop {
                reason: stop_reason(reason),
            });
            self.finished = true;
        }
        Ok(())
    }

    fn usage(usage: Option<&UsageMetadata>, out: &mut VecDeque<Delta>) {
        if let Some(usage) = usage {
            out.push_back(Delta::Usage {
                usage: Usage::new(
                    usage
                        .prompt_token_count
                        .saturating_add(usage.tool_use_prompt_token_count),
                    usage
                        .candidates_token_count
                        .saturating_add(usage.thoughts_token_count),
                )
                .with_cache(usage.cached_content_token_count, 0)
                .with_reasoning(usage.thoughts_token_count),
            });
        }
    }
}

impl Decoder for ChunkDecoder {
    fn event(&mut self, event: Sse, out: &mut VecDeque<Delta>) -> Result<Read, ProviderError> {
        self.chunk(data(&event)?, out)?;
        Ok(Read::More)
    }

    /// Gemini ends its stream by closing it: the answer is whole once a chunk said why it
    /// finished.
    fn ends_complete(&self) -> bool {
        self.finished
    }
}

/// The turn of a whole `generateContent` answer: read as the one chunk of a stream, so that
/// both give the same turn by construction.
pub(super) fn whole_answer(bytes: &[u8]) -> Result<ProviderResponse, ProviderError> {
    let mut deltas = VecDeque::new();
    ChunkDecoder::default().chunk(decode(bytes)?, &mut deltas)?;
    let mut assembler = Assembler::new();
    for delta in &deltas {
        assembler.push(delta)?;
    }
    Ok(assembler.finish())
}

impl Provider for GeminiProvider {
    fn name(&self) -> &'static str {
        WIRE
    }

    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> ProviderFuture<'a> {
        let prepared = self
            .endpoint(self.model(&request), false)
            .and_then(|url| Ok((url, self.request_body(&request)?)));
        Box::pin(async move {
            let (url, body) = prepared?;
            let bytes = self.http.post_for_bytes(&url, body).await?;
            whole_answer(&bytes)
        })
    }

    fn stream<'a>(&'a self, request: ProviderRequest<'a>) -> DeltaStream<'a> {
        let prepared = self
            .endpoint(self.model(&request), true)
            .and_then(|url| Ok((url, self.request_body(&request)?)));
        let answer = async move {
            let (url, body) = prepared?;
            self.http.post_stream(&url, body).await
        };
        streamed::<ChunkDecoder>(answer, whole_answer)
    }
}

//! What may leave the process for the provider: conversation messages and bounded tool content.

use std::fmt;
use std::ops::Deref;

use serde::Serialize;
use serde::ser::SerializeStruct as _;

pub use crate::media::WireMedia;

/// A tool's provider-facing content after it passed the seam: UTF-8 text, bounded, artifact-free,
/// and the [`WireMedia`] the seam let through for the model to see (none for most results).
///
/// Only toolkit makes one, in two places: the seam, which bounds every result it gives (a
/// call's, or a refusal's) into a [`BoundedResult`](crate::BoundedResult) holding one; and the
/// opening of a suspended run's verified token, which gives back the content its calls already
/// had, bounded again. There is no public constructor and no `From`, `Default`, `FromStr` or
/// `Deserialize`. It is the only type [`ChatMessage::tool_result`] accepts, so every tool result
/// on the wire passed the seam, its media included. It serialises as its text; a tool-result
/// message's JSON adds the media's types and sizes (never the bytes).
///
/// ```compile_fail
/// let forged = toolkit::WireString::from(String::from("hi"));
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct WireString {
    text: String,
    is_error: bool,
    media: Vec<WireMedia>,
}

impl WireString {
    /// Only the seam calls this, after bounding.
    pub(crate) fn after_seam(bounded: String, is_error: bool) -> Self {
        Self::after_seam_with(bounded, is_error, Vec::new())
    }

    /// Only the seam calls this, after bounding the text and checking the media.
    pub(crate) fn after_seam_with(bounded: String, is_error: bool, media: Vec<WireMedia>) -> Self {
        Self {
            text: bounded,
            is_error,
            media,
        }
    }

    /// The media the model sees after the text, in the tool's order.
    pub fn media(&self) -> &[WireMedia] {
        &self.media
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the tool failed (providers such as Anthropic's carry this flag on the wire).
    pub fn is_error(&self) -> bool {
        self.is_error
    }
}

impl Serialize for WireString {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl Deref for WireString {
    type Target = str;

    fn deref(&self) -> &str {
        &self.text
    }
}

impl AsRef<str> for WireString {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl fmt::Debug for WireString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.text, f)?;
        if !self.media.is_empty() {
            write!(f, " + ")?;
            f.debug_list().entries(&self.media).finish()?;
        }
        Ok(())
    }
}

/// A tool call requested by the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct ToolCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: String,
}

impl ToolCall {
    /// A call of `name` with JSON `arguments`.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// The provider's id for the call, echoed in the tool-result message.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The tool's name, as the model spelled it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments as JSON text, exactly as the model sent them.
    pub fn arguments(&self) -> &str {
        &self.arguments
    }
}

/// What a provider needs back with a model's turn on its next request, opaque to everything
/// else: OpenAI Responses' reasoning items, Gemini's thought signatures. Only the provider of
/// the wire that wrote it reads it; others send the turn without it. It comes from the
/// provider's answer (model output), never from a tool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Carried {
    /// The wire that wrote it: `openai-responses` or `gemini`.
    pub wire: String,
    /// JSON that only that wire's provider reads.
    pub json: String,
}

impl Carried {
    /// State for `wire`'s provider.
    pub fn new(wire: impl Into<String>, json: impl Into<String>) -> Self {
        Self {
            wire: wire.into(),
            json: json.into(),
        }
    }

    /// The JSON, when it was written by `wire`'s provider.
    pub fn json_for(&self, wire: &str) -> Option<&str> {
        (self.wire == wire).then_some(self.json.as_str())
    }
}

/// A message of the conversation with the provider.
///
/// Every variant is `#[non_exhaustive]`, so outside this crate messages are only made by the
/// constructors, and a tool result only from a [`WireString`]. Not `Deserialize`: that would forge
/// tool results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ChatMessage {
    /// Instructions for the model.
    #[non_exhaustive]
    System {
        /// The text.
        content: String,
    },
    /// The user's words.
    #[non_exhaustive]
    User {
        /// The text.
        content: String,
    },
    /// The model's turn: text and the tool calls it asked for.
    #[non_exhaustive]
    Assistant {
        /// The text (may be empty when the turn is only tool calls).
        content: String,
        /// The calls requested in this turn, in the model's order.
        tool_calls: Vec<ToolCall>,
        /// What the provider that gave the turn needs back with it (see [`Carried`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        carried: Option<Carried>,
    },
    /// A tool's bounded content, answering one call. Its [`ToolResultMessage`] only comes from
    /// [`ChatMessage::tool_result`], so this variant needs no further guard.
    ToolResult(ToolResultMessage),
}

impl ChatMessage {
    /// How many bytes of text the message holds: its content and its calls' arguments (what a
    /// provider's request carries of it, before JSON's quotes and escapes, less the short ids
    /// and names).
    #[cfg(feature = "loop")]
    pub(crate) fn text_len(&self) -> usize {
        match self {
            ChatMessage::System { content } | ChatMessage::User { content } => content.len(),
            ChatMessage::Assistant {
                content,
                tool_calls,
                ..
            } => {
                content.len()
                    + tool_calls
                        .iter()
                        .map(|call| call.arguments.len())
                        .sum::<usize>()
            }
            ChatMessage::ToolResult(result) => result.content.len(),
        }
    }
}

/// The answer to one tool call: the call's id (never empty) and content that passed the seam.
///
/// Its fields are private, so even through `&mut ChatMessage` the id cannot be emptied and the
/// content can only be swapped for another [`WireString`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResultMessage {
    call_id: String,
    content: WireString,
}

/// `{"call_id": .., "content": ..}`, and `"media": [{"mime_type": .., "bytes": ..}]` when the
/// content has media: their types and sizes, never their bytes.
impl Serialize for ToolResultMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shown<'a> {
            mime_type: &'a str,
            bytes: usize,
        }
        let media = self.content.media();
        let mut message =
            serializer.serialize_struct("ToolResultMessage", 2 + usize::from(!media.is_empty()))?;
        message.serialize_field("call_id", &self.call_id)?;
        message.serialize_field("content", &self.content)?;
        if !media.is_empty() {
            let shown: Vec<Shown<'_>> = media
                .iter()
                .map(|part| Shown {
                    mime_type: part.mime_type(),
                    bytes: part.len(),
                })
                .collect();
            message.serialize_field("media", &shown)?;
        }
        message.end()
    }
}

impl ToolResultMessage {
    /// The id of the call this answers.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The content that passed the seam, as the message carries it.
    pub fn wire(&self) -> &WireString {
        &self.content
    }

    /// The text of that content.
    pub fn content(&self) -> &str {
        self.content.as_str()
    }
}

/// A message that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MessageError {
    /// A tool result must name the call it answers.
    #[error("a tool-result message needs the id of the call it answers, and the id is empty")]
    EmptyCallId,
}

impl ChatMessage {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        ChatMessage::System {
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        ChatMessage::User {
            content: content.into(),
        }
    }

    /// The model's turn.
    pub fn assistant(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        ChatMessage::Assistant {
            content: content.into(),
            tool_calls,
            carried: None,
        }
    }

    /// The model's turn, with what its provider needs back with it.
    pub fn assistant_carrying(
        content: impl Into<String>,
        tool_calls: Vec<ToolCall>,
        carried: Option<Carried>,
    ) -> Self {
        ChatMessage::Assistant {
            content: content.into(),
            tool_calls,
            carried,
        }
    }

    /// The answer to one tool call. Takes only a [`WireString`], so only bounded content from the
    /// seam can become a tool result; an empty call id is an error.
    pub fn tool_result(
        call_id: impl Into<String>,
        content: WireString,
    ) -> Result<Self, MessageError> {
        let call_id = call_id.into();
        if call_id.is_empty() {
            return Err(MessageError::EmptyCallId);
        }
        Ok(ChatMessage::ToolResult(ToolResultMessage {
            call_id,
            content,
        }))
    }
}

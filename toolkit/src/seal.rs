//! Suspended runs leave the process only as a sealed token: the state serialised, then
//! authenticated with HMAC-SHA256 under the service's key. Opening verifies the tag in constant
//! time before anything is deserialised.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::trace::Usage;
use crate::wire::{ChatMessage, ToolCall, ToolResultMessage, WireString};

type HmacSha256 = Hmac<Sha256>;

/// The version prefix of tokens this build makes and accepts.
const TOKEN_VERSION: &str = "v1";

/// The key sealing suspended runs. Random per service unless given (give the same key to every
/// process that may resume a run). `Debug` does not show it.
#[derive(Clone)]
pub struct SealKey([u8; 32]);

impl SealKey {
    /// A fresh random key.
    ///
    /// # Panics
    ///
    /// When the operating system's random generator fails, which nothing can safely carry on from.
    pub fn random() -> Self {
        let mut key = [0u8; 32];
        // The OS generator failing is not something to carry on from.
        getrandom::fill(&mut key).expect("the operating system's random generator works");
        Self(key)
    }

    /// A key from 32 bytes (say, read from a secret store).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    fn mac(&self) -> HmacSha256 {
        <HmacSha256 as Mac>::new_from_slice(&self.0).expect("HMAC takes keys of any length")
    }
}

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealKey(<redacted>)")
    }
}

/// A token that does not open.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Not of the form `v1.<payload>.<tag>`, or not base64.
    #[error("the token is malformed: {0}")]
    Malformed(&'static str),
    /// The tag does not match: the token was changed, cut, or sealed by another key.
    #[error("the token's seal does not verify: it was altered or sealed by another service")]
    BadSeal,
    /// Verified, but not a state this build understands.
    #[error("the token's state cannot be read: {0}")]
    Unreadable(String),
}

mod sealed {
    pub trait Sealed {}
}

/// Types that may be part of resumable state. Sealed: only this crate implements it, and never
/// for an artifact type, so a [`SuspendedRunState`] provably holds no artifact.
///
/// ```compile_fail
/// fn resumable<T: toolkit::Resumable>() {}
/// resumable::<toolkit::ToolArtifact>();
/// ```
pub trait Resumable: sealed::Sealed {}

macro_rules! resumable {
    ($($type:ty),* $(,)?) => {
        $(impl sealed::Sealed for $type {} impl Resumable for $type {})*
    };
}

resumable!(
    String,
    bool,
    u32,
    u64,
    usize,
    f32,
    ChatMessage,
    ToolCall,
    WireString,
    Usage
);
impl<T: Resumable> sealed::Sealed for Vec<T> {}
impl<T: Resumable> Resumable for Vec<T> {}
impl<T: Resumable> sealed::Sealed for Option<T> {}
impl<T: Resumable> Resumable for Option<T> {}

/// Defines the state struct and proves at compile time that every field type is [`Resumable`].
macro_rules! resumable_state {
    (
        $(#[$meta:meta])*
        pub struct $name:ident { $($(#[$field_meta:meta])* pub(crate) $field:ident: $type:ty,)* }
    ) => {
        $(#[$meta])*
        pub struct $name { $($(#[$field_meta])* pub(crate) $field: $type,)* }

        const _: () = {
            const fn resumable<T: Resumable>() {}
            $(resumable::<$type>();)*
        };

        impl sealed::Sealed for $name {}
        impl Resumable for $name {}
    };
}

resumable_state! {
    /// A run waiting for approvals: the conversation, the turn's calls and what is already known
    /// of them. Holds no artifact (they went to the trace when the calls ran), and is not
    /// publicly `Deserialize`: only a verified token becomes state again.
    #[derive(Debug, Clone)]
    pub struct SuspendedRunState {
        pub(crate) run_id: String,
        pub(crate) messages: Vec<ChatMessage>,
        /// The calls of the suspended turn, in the model's order.
        pub(crate) calls: Vec<ToolCall>,
        /// Per call: its result when it already ran, `None` when it waits for a decision.
        pub(crate) results: Vec<Option<WireString>>,
        pub(crate) iteration: u32,
        pub(crate) max_iterations: u32,
        pub(crate) tool_timeout_ms: u64,
        pub(crate) remote_budget: u32,
        pub(crate) remote_used: u32,
        pub(crate) offered: Vec<String>,
        pub(crate) model: Option<String>,
        pub(crate) temperature: Option<f32>,
        pub(crate) usage: Usage,
    }
}

impl SuspendedRunState {
    /// The run's id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The calls waiting for a decision.
    pub fn pending(&self) -> impl Iterator<Item = &ToolCall> + '_ {
        self.calls
            .iter()
            .zip(&self.results)
            .filter(|(_, result)| result.is_none())
            .map(|(call, _)| call)
    }

    /// Serialises and seals the state.
    pub(crate) fn seal(&self, key: &SealKey) -> String {
        let stored = Stored::from(self);
        let json = serde_json::to_vec(&stored).expect("state serialises");
        let payload = URL_SAFE_NO_PAD.encode(json);
        let signed = format!("{TOKEN_VERSION}.{payload}");
        let mut mac = key.mac();
        mac.update(signed.as_bytes());
        let tag = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{signed}.{tag}")
    }

    /// Verifies a token (in constant time) and only then deserialises it.
    pub(crate) fn open(token: &str, key: &SealKey) -> Result<Self, TokenError> {
        let (signed, tag) = token
            .trim()
            .rsplit_once('.')
            .ok_or(TokenError::Malformed("no seal"))?;
        let (version, payload) = signed
            .split_once('.')
            .ok_or(TokenError::Malformed("no version"))?;
        if version != TOKEN_VERSION {
            return Err(TokenError::Malformed("unknown version"));
        }
        // A seal that does not even decode was altered as surely as one that does not match;
        // both are refused alike, whatever the cut made of the base64.
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| TokenError::BadSeal)?;
        let mut mac = key.mac();
        mac.update(signed.as_bytes());
        mac.verify_slice(&tag).map_err(|_| TokenError::BadSeal)?;
        let json = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| TokenError::Malformed("the state is not base64"))?;
        let stored: Stored = serde_json::from_slice(&json)
            .map_err(|error| TokenError::Unreadable(error.to_string()))?;
        Ok(stored.into())
    }
}

/// The serialised form. Private, so `Deserialize` is reachable only through [`open`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    run_id: String,
    messages: Vec<StoredMessage>,
    calls: Vec<ToolCall>,
    results: Vec<Option<StoredContent>>,
    iteration: u32,
    max_iterations: u32,
    tool_timeout_ms: u64,
    remote_budget: u32,
    remote_used: u32,
    offered: Vec<String>,
    model: Option<String>,
    temperature: Option<f32>,
    input_tokens: u64,
    output_tokens: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case", deny_unknown_fields)]
enum StoredMessage {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        content: String,
        tool_calls: Vec<ToolCall>,
    },
    ToolResult {
        call_id: String,
        content: StoredContent,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredContent {
    text: String,
    is_error: bool,
}

impl From<&WireString> for StoredContent {
    fn from(wire: &WireString) -> Self {
        Self {
            text: wire.as_str().to_owned(),
            is_error: wire.is_error(),
        }
    }
}

impl StoredContent {
    /// Content in a verified token was bounded by the seam before it was sealed; only a token
    /// whose seal verified gets here.
    fn into_wire(self) -> WireString {
        WireString::after_seam(self.text, self.is_error)
    }
}

impl From<&SuspendedRunState> for Stored {
    fn from(state: &SuspendedRunState) -> Self {
        let messages = state
            .messages
            .iter()
            .map(|message| match message {
                ChatMessage::System { content, .. } => StoredMessage::System {
                    content: content.clone(),
                },
                ChatMessage::User { content, .. } => StoredMessage::User {
                    content: content.clone(),
                },
                ChatMessage::Assistant {
                    content,
                    tool_calls,
                    ..
                } => StoredMessage::Assistant {
                    content: content.clone(),
                    tool_calls: tool_calls.clone(),
                },
                ChatMessage::ToolResult(result) => StoredMessage::ToolResult {
                    call_id: result.call_id().to_owned(),
                    content: result.content().into(),
                },
            })
            .collect();
        Self {
            run_id: state.run_id.clone(),
            messages,
            calls: state.calls.clone(),
            results: state
                .results
                .iter()
                .map(|result| result.as_ref().map(Into::into))
                .collect(),
            iteration: state.iteration,
            max_iterations: state.max_iterations,
            tool_timeout_ms: state.tool_timeout_ms,
            remote_budget: state.remote_budget,
            remote_used: state.remote_used,
            offered: state.offered.clone(),
            model: state.model.clone(),
            temperature: state.temperature,
            input_tokens: state.usage.input_tokens,
            output_tokens: state.usage.output_tokens,
        }
    }
}

impl From<Stored> for SuspendedRunState {
    fn from(stored: Stored) -> Self {
        let messages = stored
            .messages
            .into_iter()
            .map(|message| match message {
                StoredMessage::System { content } => ChatMessage::system(content),
                StoredMessage::User { content } => ChatMessage::user(content),
                StoredMessage::Assistant {
                    content,
                    tool_calls,
                } => ChatMessage::assistant(content, tool_calls),
                StoredMessage::ToolResult { call_id, content } => {
                    ChatMessage::ToolResult(ToolResultMessage::new(call_id, content.into_wire()))
                }
            })
            .collect();
        Self {
            run_id: stored.run_id,
            messages,
            calls: stored.calls,
            results: stored
                .results
                .into_iter()
                .map(|result| result.map(StoredContent::into_wire))
                .collect(),
            iteration: stored.iteration,
            max_iterations: stored.max_iterations,
            tool_timeout_ms: stored.tool_timeout_ms,
            remote_budget: stored.remote_budget,
            remote_used: stored.remote_used,
            offered: stored.offered,
            model: stored.model,
            temperature: stored.temperature,
            usage: Usage {
                input_tokens: stored.input_tokens,
                output_tokens: stored.output_tokens,
            },
        }
    }
}

//! Suspended runs leave the process only as a sealed token: the state serialised, then
//! authenticated with HMAC-SHA256 under the service's key. Opening verifies the tag in constant
//! time before anything is deserialised.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::provider::Usage;
use crate::recording::RunId;
pub use crate::replay::{MemoryReplayStore, ReplayStore};
use crate::request::RunOptions;
pub use crate::resumable::Resumable;
use crate::resumable::resumable_state;
use crate::seam::Shown;
use crate::wire::{ChatMessage, ToolCall, WireString};

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

/// A token that does not open, or does not open again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// Not of the form `v1.<payload>.<tag>`, or not base64.
    #[error("the token is malformed: {0}")]
    Malformed(&'static str),
    /// The tag does not match: the token was changed, cut, or sealed by another key.
    #[error("the token's seal does not verify: it was altered or sealed by another service")]
    BadSeal,
    /// Verified, but not a state this build understands, or not one it would have sealed.
    #[error("the token's state cannot be read: {0}")]
    Unreadable(String),
    /// Verified, but past its lifetime.
    #[error("the token has expired: a suspended run must be resumed within its token's lifetime")]
    Expired,
    /// Verified, but already resumed once (here or on an instance sharing the replay store).
    #[error("the token was already used: a suspended run resumes once")]
    AlreadyUsed,
    /// The replay store could not say whether the token was used; nothing ran.
    #[error("the token's use cannot be recorded: {0}")]
    Store(String),
}

resumable_state! {
    /// A run waiting for approvals: its options and its progress. Holds no artifact (they went to
    /// the trace when the calls ran), and is not publicly `Deserialize`: only a verified token
    /// becomes state again.
    #[derive(Debug, Clone)]
    pub struct SuspendedRunState {
        pub(crate) run_id: RunId,
        /// Random: what the replay store records when the token is used.
        pub(crate) token_id: String,
        /// When the token stops opening, in milliseconds since the Unix epoch.
        pub(crate) expires_at: u64,
        pub(crate) options: RunOptions,
        pub(crate) progress: Progress,
    }
}

resumable_state! {
    /// How far a run got: the conversation, the turn waiting for decisions and the counters.
    /// The one shape the loop works on and the token carries.
    #[derive(Debug, Clone, Default, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct Progress {
        #[serde(with = "message_mirror")]
        pub(crate) messages: Vec<ChatMessage>,
        /// The calls of the suspended turn, in the model's order, with what is known of each.
        pub(crate) turn: Vec<TurnCall>,
        pub(crate) iteration: u32,
        pub(crate) remote_used: u32,
        pub(crate) offered: Vec<String>,
        pub(crate) usage: Usage,
        /// The index the run's next step gets (steps go on counting after a resume).
        pub(crate) next_step: usize,
        /// The tools an operator approved for the rest of the run.
        pub(crate) approved_tools: Vec<String>,
    }
}

resumable_state! {
    /// One call of the suspended turn: its result when it already ran, `None` while it waits.
    #[derive(Debug, Clone, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct TurnCall {
        pub(crate) call: ToolCall,
        #[serde(with = "result_mirror")]
        pub(crate) result: Option<WireString>,
        /// What the operator is shown of the call while it waits (its preview's digest): an
        /// approval runs it only while its preview still says that.
        #[serde(default)]
        pub(crate) shown: Shown,
        /// For a call whose tool asked the person questions: the answers it ran with and the
        /// questions it waits for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub(crate) questions: Option<Questioned>,
    }
}

resumable_state! {
    /// A call's questions while it waits: the answers it ran with, and what it asked.
    #[derive(Debug, Clone, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct Questioned {
        pub(crate) answers: crate::ask::Answers,
        pub(crate) asked: Vec<crate::ask::Asked>,
    }
}

impl SuspendedRunState {
    /// The run's id.
    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// The calls waiting for a decision.
    pub fn pending(&self) -> impl Iterator<Item = &ToolCall> + '_ {
        self.progress
            .turn
            .iter()
            .filter(|turn| turn.result.is_none())
            .map(|turn| &turn.call)
    }

    /// Serialises and seals the state.
    pub(crate) fn seal(&self, key: &SealKey) -> String {
        let sealed = Sealed {
            run_id: &self.run_id,
            token_id: &self.token_id,
            expires_at: self.expires_at,
            options: &self.options,
            progress: &self.progress,
        };
        let json = serde_json::to_vec(&sealed).expect("state serialises");
        let payload = URL_SAFE_NO_PAD.encode(json);
        let signed = format!("{TOKEN_VERSION}.{payload}");
        let mut mac = key.mac();
        mac.update(signed.as_bytes());
        let tag = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{signed}.{tag}")
    }

    /// A fresh token id and the expiry of a token sealed now with this lifetime.
    pub(crate) fn token_for(lifetime: std::time::Duration) -> (String, u64) {
        let mut id = [0u8; 16];
        // Ids only need to be unpredictable enough not to collide; a failing OS generator is
        // not something to carry on from.
        getrandom::fill(&mut id).expect("the operating system's random generator works");
        let id = id.iter().fold(String::with_capacity(32), |mut hex, byte| {
            use std::fmt::Write as _;
            let _ = write!(hex, "{byte:02x}");
            hex
        });
        let expires_at =
            now_ms().saturating_add(u64::try_from(lifetime.as_millis()).unwrap_or(u64::MAX));
        (id, expires_at)
    }

    /// When the token stops opening.
    pub(crate) fn expiry(&self) -> std::time::SystemTime {
        std::time::UNIX_EPOCH + std::time::Duration::from_millis(self.expires_at)
    }

    /// Verifies a token (in constant time), and only then deserialises it and checks it as if
    /// it were new: not expired, every call id present, every content bounded again.
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
        let Opened {
            run_id,
            token_id,
            expires_at,
            options,
            progress,
        } = serde_json::from_slice(&json)
            .map_err(|error| TokenError::Unreadable(error.to_string()))?;
        if now_ms() >= expires_at {
            return Err(TokenError::Expired);
        }
        if let Some(turn) = progress.turn.iter().find(|turn| turn.call.id.is_empty()) {
            return Err(TokenError::Unreadable(format!(
                "a call of tool \"{}\" has no id",
                crate::bound::echo(&turn.call.name)
            )));
        }
        Ok(Self {
            run_id,
            token_id,
            expires_at,
            options,
            progress,
        })
    }
}

/// What a token carries, borrowed for sealing.
#[derive(Serialize)]
struct Sealed<'a> {
    run_id: &'a RunId,
    token_id: &'a str,
    expires_at: u64,
    options: &'a RunOptions,
    progress: &'a Progress,
}

/// Now, in milliseconds since the Unix epoch (tokens cross processes: the wall clock).
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// What a verified token opens into. Private, so `Deserialize` of state is reachable only
/// through [`SuspendedRunState::open`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Opened {
    run_id: RunId,
    token_id: String,
    expires_at: u64,
    options: RunOptions,
    progress: Progress,
}

/// Content as a token carries it.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredContent {
    text: String,
    is_error: bool,
    /// The media the model was shown, so that the resumed run shows it again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    media: Vec<StoredMedia>,
}

/// A media part as a token carries it.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredMedia {
    mime_type: String,
    base64: String,
    name: String,
}

impl From<&WireString> for StoredContent {
    fn from(wire: &WireString) -> Self {
        Self {
            text: wire.as_str().to_owned(),
            is_error: wire.is_error(),
            media: wire
                .media()
                .iter()
                .map(|part| StoredMedia {
                    mime_type: part.mime_type().to_owned(),
                    base64: part.base64().to_owned(),
                    name: part.name().to_owned(),
                })
                .collect(),
        }
    }
}

impl StoredContent {
    /// Content of a verified token, bounded again as if it had just come from a tool: a token
    /// the service's key signed is trusted to be the service's, not to be within the bounds.
    /// Its media is checked and bounded again the same way; what no longer passes (a token
    /// written by another version) is left out, its note already in the text.
    fn into_wire(self) -> WireString {
        use base64::Engine as _;
        let media = self
            .media
            .into_iter()
            .filter_map(|part| {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(part.base64)
                    .ok()?;
                Some(crate::media::Media::new(part.mime_type, bytes).named(part.name))
            })
            .collect();
        WireString::after_seam_with(
            crate::bound::bound_content(self.text),
            self.is_error,
            crate::media::bound_media(media, None).shown,
        )
    }
}

/// `Option<WireString>` in a token: `ChatMessage` and `WireString` are deliberately not
/// `Deserialize`, so the token spells them out here, the only hand-written mirror.
mod result_mirror {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::StoredContent;
    use crate::wire::WireString;

    #[allow(clippy::ref_option)] // the signature serde's `with` calls
    pub fn serialize<S: Serializer>(
        result: &Option<WireString>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        result
            .as_ref()
            .map(StoredContent::from)
            .serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<WireString>, D::Error> {
        Ok(Option::<StoredContent>::deserialize(deserializer)?.map(StoredContent::into_wire))
    }
}

/// The conversation in a token.
mod message_mirror {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use serde::de::Error as _;

    use super::StoredContent;
    use crate::wire::{Carried, ChatMessage, ToolCall};

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
            #[serde(default, skip_serializing_if = "Option::is_none")]
            carried: Option<Carried>,
        },
        ToolResult {
            call_id: String,
            content: StoredContent,
        },
    }

    pub fn serialize<S: Serializer>(
        messages: &[ChatMessage],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let stored: Vec<StoredMessage> = messages
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
                    carried,
                    ..
                } => StoredMessage::Assistant {
                    content: content.clone(),
                    tool_calls: tool_calls.clone(),
                    carried: carried.clone(),
                },
                ChatMessage::ToolResult(result) => StoredMessage::ToolResult {
                    call_id: result.call_id().to_owned(),
                    content: result.wire().into(),
                },
            })
            .collect();
        stored.serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<ChatMessage>, D::Error> {
        let stored = Vec::<StoredMessage>::deserialize(deserializer)?;
        // Each message is made as if new: a tool result without a call id does not open.
        stored
            .into_iter()
            .map(|message| match message {
                StoredMessage::System { content } => Ok(ChatMessage::system(content)),
                StoredMessage::User { content } => Ok(ChatMessage::user(content)),
                StoredMessage::Assistant {
                    content,
                    tool_calls,
                    carried,
                } => Ok(ChatMessage::assistant_carrying(
                    content, tool_calls, carried,
                )),
                StoredMessage::ToolResult { call_id, content } => {
                    ChatMessage::tool_result(call_id, content.into_wire()).map_err(D::Error::custom)
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn state(run_id: &RunId) -> SuspendedRunState {
        let (token_id, expires_at) = SuspendedRunState::token_for(Duration::from_mins(1));
        SuspendedRunState {
            run_id: run_id.clone(),
            token_id,
            expires_at,
            options: RunOptions::default(),
            progress: Progress {
                messages: vec![ChatMessage::user("hi")],
                turn: vec![TurnCall {
                    call: ToolCall::new("call_1", "writer", "{}"),
                    result: None,
                    shown: Shown::of(Some("what it would do")),
                    questions: None,
                }],
                iteration: 1,
                offered: vec!["writer".to_owned()],
                ..Progress::default()
            },
        }
    }

    #[test]
    fn the_run_id_survives_sealing_and_opening() {
        let key = SealKey::from_bytes([7; 32]);
        let run_id = RunId::new("run");
        let token = state(&run_id).seal(&key);
        let opened = SuspendedRunState::open(&token, &key).expect("own token");
        assert_eq!(opened.run_id(), &run_id);
        assert!(opened.run_id().as_str().starts_with("run_"));
        assert_eq!(
            opened
                .pending()
                .map(|call| call.id.as_str())
                .collect::<Vec<_>>(),
            ["call_1"]
        );
        // What the operator is shown of the waiting call is sealed with it.
        assert_eq!(
            opened.progress.turn[0].shown,
            Shown::of(Some("what it would do"))
        );
    }

    #[test]
    fn debug_of_a_key_says_it_is_a_key_and_shows_none_of_its_bytes() {
        let bytes: [u8; 32] = std::array::from_fn(|index| 0xA0 + u8::try_from(index).unwrap());
        let debug = format!("{:?}", SealKey::from_bytes(bytes));
        assert_eq!(debug, "SealKey(<redacted>)");
        let alternate = format!("{:#?}", SealKey::from_bytes(bytes));
        assert_eq!(alternate, "SealKey(<redacted>)");
        // Neither the bytes as `Debug` lists them, nor in hex, nor in the token alphabet.
        let hex = bytes
            .iter()
            .fold(String::new(), |hex, byte| hex + &format!("{byte:02x}"));
        for form in [format!("{bytes:?}"), hex, URL_SAFE_NO_PAD.encode(bytes)] {
            assert!(!debug.contains(&form[..8]), "{form} in {debug}");
        }
    }

    #[test]
    fn restored_content_is_bounded_again_and_call_ids_are_checked() {
        let key = SealKey::from_bytes([3; 32]);
        // A state only this crate could make: content past the bound, as if the key had signed
        // whatever someone holding it wished.
        let mut state = state(&RunId::new("run"));
        let oversized = WireString::after_seam("x".repeat(120_000), false);
        state.progress.messages.push(ChatMessage::ToolResult(
            match ChatMessage::tool_result("c0", oversized.clone()).unwrap() {
                ChatMessage::ToolResult(message) => message,
                _ => unreachable!("a tool result"),
            },
        ));
        state.progress.turn.push(TurnCall {
            call: ToolCall::new("c1", "reader", "{}"),
            result: Some(oversized),
            shown: Shown::default(),
            questions: None,
        });
        let opened = SuspendedRunState::open(&state.seal(&key), &key).expect("opens");
        let ChatMessage::ToolResult(message) = opened.progress.messages.last().unwrap() else {
            panic!("the tool result");
        };
        let marker = crate::bound::TRUNCATION_MARKER;
        assert_eq!(message.content().len(), 50_000);
        assert!(message.content().ends_with(marker));
        let restored = opened.progress.turn[1].result.as_ref().unwrap();
        assert_eq!(restored.len(), 50_000);
        assert!(restored.ends_with(marker));

        let mut nameless = self::state(&RunId::new("run"));
        nameless.progress.turn[0].call.id.clear();
        assert_eq!(
            SuspendedRunState::open(&nameless.seal(&key), &key).unwrap_err(),
            TokenError::Unreadable("a call of tool \"writer\" has no id".to_owned())
        );
    }

    #[test]
    fn media_the_model_was_shown_is_sealed_and_checked_again_when_opened() {
        use crate::media::{Media, MediaType, bound_media};
        let key = SealKey::from_bytes([5; 32]);
        let png = b"\x89PNG\r\n\x1a\nrest".to_vec();
        let shown = bound_media(vec![Media::png(png.clone()).named("chart.png")], None).shown;
        // A part that would not pass now, as if the key had signed it.
        let mut forged = shown.clone();
        forged.extend(bound_media(vec![Media::png(png)], None).shown);
        forged.insert(0, crate::media::WireMedia::forged_for_tests(b"<svg/>"));
        let mut state = state(&RunId::new("run"));
        for (id, media) in [("c0", shown), ("c1", forged)] {
            let wire = WireString::after_seam_with("a chart".to_owned(), false, media);
            match ChatMessage::tool_result(id, wire).unwrap() {
                ChatMessage::ToolResult(message) => {
                    state
                        .progress
                        .messages
                        .push(ChatMessage::ToolResult(message));
                }
                _ => unreachable!("a tool result"),
            }
        }
        let opened = SuspendedRunState::open(&state.seal(&key), &key).expect("opens");
        let media: Vec<Vec<(MediaType, String)>> = opened.progress.messages[1..]
            .iter()
            .map(|message| match message {
                ChatMessage::ToolResult(message) => message
                    .wire()
                    .media()
                    .iter()
                    .map(|part| (part.media_type(), part.name().to_owned()))
                    .collect(),
                _ => panic!("a tool result"),
            })
            .collect();
        assert_eq!(
            media,
            [
                vec![(MediaType::Png, "chart.png".to_owned())],
                // The forged part is left out; the others keep their names.
                vec![
                    (MediaType::Png, "chart.png".to_owned()),
                    (MediaType::Png, "media-1.png".to_owned()),
                ],
            ]
        );
    }
}

//! The records of a run: its id, each call as people see it (with its artifacts), and each
//! decision about a call that waited for approval.

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::ask::Answers;
use serde::{Deserialize, Serialize};

use crate::bound;
use crate::result::ToolArtifact;
use crate::seam::BoundedResult;
use crate::wire::{ToolCall, WireString};

/// The id of a run: its source (`run`, `mcp`, ...) and a version 7 UUID, unique across
/// processes and restarts, and sorting by start time. Cloning it shares the text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RunId(Arc<str>);

impl RunId {
    /// A new id for a run from `source` (cut and escaped like a tool name).
    pub(crate) fn new(source: &str) -> Self {
        let source = bound::echoed(source);
        let mut uuid = uuid::Uuid::encode_buffer();
        let uuid = run_uuid().simple().encode_lower(&mut uuid);
        // Assembled on the stack when it fits (nearly always), so the id is one allocation.
        let mut text = [0; 128];
        let length = source.len() + 1 + uuid.len();
        if let Some(place) = text.get_mut(..length) {
            let (head, tail) = place.split_at_mut(source.len());
            head.copy_from_slice(source.as_bytes());
            tail[0] = b'_';
            tail[1..].copy_from_slice(uuid.as_bytes());
            if let Ok(text) = std::str::from_utf8(place) {
                return Self(Arc::from(text));
            }
        }
        Self(format!("{source}_{uuid}").into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A version 7 UUID without a system call for randomness per id: the time in milliseconds, then
/// a counter (runs of one process sort by start within a millisecond), then 42 bits drawn once
/// per process (ids of processes started together differ).
fn run_uuid() -> uuid::Uuid {
    static SEED: LazyLock<u64> = LazyLock::new(|| {
        let mut bytes = [0; 8];
        // Without the system's randomness, the clock's nanoseconds still set processes apart.
        getrandom::fill(&mut bytes).unwrap_or_else(|_| {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            bytes = (u64::from(now.subsec_nanos()) ^ u64::from(std::process::id())).to_le_bytes();
        });
        u64::from_le_bytes(bytes)
    });
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        });
    let seed = SEED.to_le_bytes();
    let count = COUNTER.fetch_add(1, Ordering::Relaxed).to_be_bytes();
    // The builder overwrites the version (the high half of byte 0) and the variant (the top two
    // bits of byte 2): both fall on seed bits, never on the counter.
    let tail = [
        seed[0], seed[1], seed[2], count[0], count[1], count[2], count[3], seed[3], seed[4],
        seed[5],
    ];
    uuid::Builder::from_unix_timestamp_millis(millis, &tail).into_uuid()
}

impl Serialize for RunId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for RunId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|text| Self(text.into()))
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for RunId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for RunId {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for RunId {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

/// One call as the trace, the event stream and the sinks see it: with its bounded artifacts.
///
/// Only the recorder makes one, from the seam's result: its fields are private. Steps, events
/// and callers share one copy (an `Arc`): recording a call copies none of its data.
#[derive(Clone)]
pub struct ToolInvocation {
    call: CallText,
    /// The seam's result, as it came: its content and artifacts are the record's.
    result: BoundedResult,
    duration: Duration,
}

/// A call's id, tool name and arguments (cut to 50 000 bytes like content) in one allocation.
#[derive(Clone)]
struct CallText {
    text: Box<str>,
    /// Where the name starts, and where the arguments do.
    name_at: usize,
    arguments_at: usize,
}

impl CallText {
    fn new(call: &ToolCall) -> Self {
        let arguments = bound::cut_content(&call.arguments);
        let arguments = arguments.as_deref().unwrap_or(&call.arguments);
        let mut text = String::with_capacity(call.id.len() + call.name.len() + arguments.len());
        text.push_str(&call.id);
        text.push_str(&call.name);
        text.push_str(arguments);
        Self {
            text: text.into_boxed_str(),
            name_at: call.id.len(),
            arguments_at: call.id.len() + call.name.len(),
        }
    }

    fn id(&self) -> &str {
        &self.text[..self.name_at]
    }

    fn name(&self) -> &str {
        &self.text[self.name_at..self.arguments_at]
    }

    fn arguments(&self) -> &str {
        &self.text[self.arguments_at..]
    }
}

impl Serialize for ToolInvocation {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;

        let media = self.wire().media();
        let mut fields = 6;
        if !self.artifacts().is_empty() {
            fields += 1;
        }
        if !media.is_empty() {
            fields += 1;
        }
        let mut invocation = serializer.serialize_struct("ToolInvocation", fields)?;
        invocation.serialize_field("call_id", self.call_id())?;
        invocation.serialize_field("name", self.name())?;
        invocation.serialize_field("arguments", self.arguments())?;
        invocation.serialize_field("content", self.wire())?;
        invocation.serialize_field("is_error", &self.is_error())?;
        if media.is_empty() {
            invocation.skip_field("media")?;
        } else {
            let shown: Vec<ShownMedia<'_>> = media
                .iter()
                .map(|part| ShownMedia {
                    mime_type: part.mime_type(),
                    name: part.name(),
                    bytes: part.len(),
                    base64: part.base64(),
                })
                .collect();
            invocation.serialize_field("media", &shown)?;
        }
        if self.artifacts().is_empty() {
            invocation.skip_field("artifacts")?;
        } else {
            invocation.serialize_field("artifacts", self.artifacts())?;
        }
        invocation.serialize_field("duration", &Millis(self.duration))?;
        invocation.end()
    }
}

/// A media part the model was shown, as a trace keeps it for people: its type, name, size and
/// bytes.
#[derive(Serialize)]
struct ShownMedia<'a> {
    mime_type: &'a str,
    name: &'a str,
    bytes: usize,
    base64: &'a str,
}

/// A duration serialised as milliseconds, as every step's is.
struct Millis(Duration);

impl Serialize for Millis {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        duration_ms::serialize(&self.0, serializer)
    }
}

// The call's text is shown as its three parts, under the names they always had.
#[allow(clippy::missing_fields_in_debug)]
impl fmt::Debug for ToolInvocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolInvocation")
            .field("call_id", &self.call_id())
            .field("name", &self.name())
            .field("arguments", &self.arguments())
            .field("content", self.wire())
            .field("is_error", &self.is_error())
            .field("artifacts", &self.artifacts())
            .field("duration", &self.duration)
            .finish()
    }
}

impl ToolInvocation {
    /// The record of `call`, its arguments cut to 50 000 bytes like content.
    pub(super) fn record(call: &ToolCall, result: BoundedResult, duration: Duration) -> Self {
        Self {
            call: CallText::new(call),
            result,
            duration,
        }
    }

    /// The seam's result the record holds.
    pub(super) fn result(&self) -> &BoundedResult {
        &self.result
    }

    /// The wire content for the tool-result message.
    pub fn wire(&self) -> &WireString {
        self.result.wire()
    }

    /// The provider's id for the call.
    pub fn call_id(&self) -> &str {
        self.call.id()
    }

    /// The tool's name as the model spelled it.
    pub fn name(&self) -> &str {
        self.call.name()
    }

    /// The arguments as the model sent them (cut to 50 000 bytes like content).
    pub fn arguments(&self) -> &str {
        self.call.arguments()
    }

    /// The bounded content that went to the provider.
    pub fn content(&self) -> &str {
        self.result.content()
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.result.is_error()
    }

    /// The bounded artifacts: for people only, never on the wire.
    pub fn artifacts(&self) -> &[ToolArtifact] {
        self.result.artifacts()
    }

    /// How long the call took in the seam.
    pub fn duration(&self) -> Duration {
        self.duration
    }
}

/// Who decided about a call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decider {
    /// The operator, on a resume.
    Operator,
    /// The operator's approval of the tool for the rest of the run, given earlier.
    ApprovedForRun,
    /// A policy, by its name, with its reason.
    Policy {
        /// The policy's name.
        policy: String,
        /// Why it answered so.
        why: String,
    },
}

/// What was decided about a call, as the run records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decided {
    /// The call runs.
    Approved,
    /// The call runs, and later calls of its tool in the run need no question.
    ApprovedForRun,
    /// The call does not run; the model reads the reason (the standard text without one).
    Denied {
        /// The reason given.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The call's arguments were changed: both versions.
    Edited {
        /// What the model asked for.
        original: String,
        /// What the operator gave instead.
        arguments: String,
    },
    /// Left without a decision: the call does not run.
    NotDecided,
    /// The run was stopped: the call does not run.
    Aborted,
    /// Approved, but what the call would do changed after it was shown: its preview, computed
    /// again just before it would have run, was not the one the approver saw. It did not run,
    /// and is asked about again with the new preview.
    PreviewChanged,
    /// The person answered the questions the call's tool asked (a dismissed or declined
    /// question is an answer too): the call runs again with the answers.
    Answered {
        /// The answers, by question key.
        answers: Answers,
    },
}

impl Decided {
    /// `approved`, `approved_for_run`, `denied`, `edited`, `not_decided`, `aborted`,
    /// `preview_changed` or `answered`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Decided::Approved => "approved",
            Decided::ApprovedForRun => "approved_for_run",
            Decided::Denied { .. } => "denied",
            Decided::Edited { .. } => "edited",
            Decided::NotDecided => "not_decided",
            Decided::Aborted => "aborted",
            Decided::PreviewChanged => "preview_changed",
            Decided::Answered { .. } => "answered",
        }
    }
}

/// One call's decision as recorded: in a run's `resumed` step (the operator's decisions) or its
/// `decided` step (a policy's, or an earlier approval for the run).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CallDecision {
    /// The call.
    pub call_id: String,
    /// Its tool.
    pub tool: String,
    /// Who decided.
    #[serde(flatten)]
    pub by: Decider,
    /// What.
    #[serde(flatten)]
    pub decided: Decided,
}

impl CallDecision {
    pub(crate) fn new(call: &ToolCall, by: Decider, decided: Decided) -> Self {
        Self {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            by,
            decided,
        }
    }
}

/// Durations as milliseconds with fractions, for people reading traces.
pub(crate) mod duration_ms {
    use std::time::Duration;

    use serde::Serializer;

    pub fn serialize<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(duration.as_secs_f64() * 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{RunId, ToolInvocation, run_uuid};
    use crate::bound::echo;
    use crate::testing::Fixed;
    use crate::{Seam, ToolArtifact, ToolCall, ToolContext, ToolResult};

    #[test]
    fn a_run_id_is_its_echoed_source_and_a_simple_uuid_whatever_the_source() {
        for source in [
            "mcp".to_owned(),
            "é\u{7}".to_owned(),
            "s".repeat(100),
            "\n".repeat(64),
            String::new(),
        ] {
            let id = RunId::new(&source);
            let (head, uuid) = id.as_str().rsplit_once('_').expect("an underscore");
            assert_eq!(head, echo(&source), "{source:?}");
            assert_eq!(uuid.len(), 32, "{uuid}");
            assert!(
                uuid.bytes()
                    .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
            );
            assert_eq!(uuid::Uuid::parse_str(uuid).unwrap().get_version_num(), 7);
        }
    }

    #[test]
    fn a_record_serialises_with_the_call_its_result_and_its_artifacts_only_when_there_are_any() {
        let registry = Fixed::answering("shows", || {
            ToolResult::text_with("two rows", [ToolArtifact::text("Note", "for people")])
        })
        .alone();
        let seam = Seam::new(registry);
        let scope = seam.scope(ToolContext::new()).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let call = ToolCall::new(
            "call_7",
            "shows",
            format!(r#"{{"pad": "{}"}}"#, "x".repeat(60_000)),
        );
        let bounded = runtime.block_on(seam.invoke(&scope, &call.name, &call.arguments));
        let shown = ToolInvocation::record(&call, bounded, Duration::from_micros(1500));
        assert_eq!(
            (
                shown.call_id(),
                shown.name(),
                shown.content(),
                shown.is_error()
            ),
            ("call_7", "shows", "two rows", false)
        );
        // The arguments are cut like content.
        assert_eq!(shown.arguments().len(), 50_000);
        assert!(shown.arguments().ends_with(crate::bound::TRUNCATION_MARKER));
        let json = serde_json::to_value(&shown).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "call_id": "call_7",
                "name": "shows",
                "arguments": shown.arguments(),
                "content": "two rows",
                "is_error": false,
                "artifacts": [{"type": "text", "label": "Note", "data": {"text": "for people"}}],
                "duration": 1.5,
            })
        );
        // Fields in this order, as the audit copy and the inspector have always read them.
        let text = serde_json::to_string(&shown).unwrap();
        assert!(text.starts_with(r#"{"call_id":"call_7","name":"shows","arguments":"{\"pad\""#));
        assert!(text.ends_with(
            r#"","content":"two rows","is_error":false,"artifacts":[{"type":"text","label":"Note","data":{"text":"for people"}}],"duration":1.5}"#
        ));

        let refused = ToolCall::new("call_8", "nope", "{}");
        let bounded = runtime.block_on(seam.invoke(&scope, &refused.name, &refused.arguments));
        let failed = ToolInvocation::record(&refused, bounded, Duration::ZERO);
        assert_eq!(
            serde_json::to_string(&failed).unwrap(),
            r#"{"call_id":"call_8","name":"nope","arguments":"{}","content":"Error: unknown tool \"nope\"","is_error":true,"duration":0.0}"#
        );
        assert_eq!(
            format!("{failed:?}"),
            r#"ToolInvocation { call_id: "call_8", name: "nope", arguments: "{}", content: "Error: unknown tool \"nope\"", is_error: true, artifacts: [], duration: 0ns }"#
        );
    }

    #[test]
    fn run_ids_are_version_7_uuids_in_order_of_creation_and_unique() {
        let ids: Vec<uuid::Uuid> = (0..10_000).map(|_| run_uuid()).collect();
        for id in &ids {
            assert_eq!(id.get_version_num(), 7, "{id}");
            assert_eq!(id.get_variant(), uuid::Variant::RFC4122, "{id}");
        }
        // Later ids sort after earlier ones, within a millisecond too.
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis();
        let (seconds, nanos) = ids[0].get_timestamp().unwrap().to_unix();
        let millis = u128::from(seconds) * 1000 + u128::from(nanos / 1_000_000);
        assert!(now >= millis && now - millis < 60_000, "{now} {millis}");
    }

    #[test]
    fn run_ids_of_many_threads_are_unique() {
        let threads: Vec<_> = (0..4)
            .map(|_| std::thread::spawn(|| (0..5_000).map(|_| run_uuid()).collect::<Vec<_>>()))
            .collect();
        let mut all: Vec<uuid::Uuid> = threads
            .into_iter()
            .flat_map(|thread| thread.join().unwrap())
            .collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 20_000);
    }

    #[test]
    fn a_run_id_reads_and_compares_as_its_text() {
        let id = RunId::new("mcp\n");
        let text = id.as_str().to_owned();
        assert!(text.starts_with("mcp\\n_"), "{text}");
        assert_eq!(AsRef::<str>::as_ref(&id), text);
        assert_eq!(id.to_string(), text);
        assert!(id == *text.as_str());
        assert!(id == text.as_str());
        assert!(id != *"run_other");
        assert!(id != "run_other");
    }
}

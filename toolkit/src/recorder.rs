//! The recorder: the one owner of the three artifact sinks.
//!
//! Artifacts leave the seam here and nowhere else. The [`Recorder`] is the only code that turns a
//! seam result ([`BoundedResult`]) into the two things that follow a call: the [`WireString`] for
//! the tool-result message, and the [`ToolInvocation`] (with the bounded artifacts) for people.
//! Every step it records goes, in this order, to each registered [`Sink`] (the persisted audit
//! copy: committed before anything is shown), to the event stream, and to the run's
//! [`RunTrace`]. The loop, single observed calls (MCP, the inspector's one-tool runs) all record
//! through it, and nothing else can build a `ToolInvocation`: its fields are private to this file.

use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, LazyLock};
use std::task::Poll;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::future::join_all;
use serde::{Deserialize, Serialize};
// Tokio's clock, so a paused test clock times calls exactly; unpaused it is the system's.
use tokio::time::Instant;

use crate::bound;
use crate::events::{CallPart, Channel, RunEvent, RunKind, Subscription};
use crate::result::ToolArtifact;
use crate::seam::{BoundedResult, RunScope, Seam};
use crate::trace::{RunStep, RunTrace, StepKind, Termination, duration_ms};
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
    content: WireString,
    artifacts: Vec<ToolArtifact>,
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

        let mut fields = 6;
        if !self.artifacts.is_empty() {
            fields += 1;
        }
        let mut invocation = serializer.serialize_struct("ToolInvocation", fields)?;
        invocation.serialize_field("call_id", self.call_id())?;
        invocation.serialize_field("name", self.name())?;
        invocation.serialize_field("arguments", self.arguments())?;
        invocation.serialize_field("content", &self.content)?;
        invocation.serialize_field("is_error", &self.is_error())?;
        if self.artifacts.is_empty() {
            invocation.skip_field("artifacts")?;
        } else {
            invocation.serialize_field("artifacts", &self.artifacts)?;
        }
        invocation.serialize_field("duration", &Millis(self.duration))?;
        invocation.end()
    }
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
            .field("content", &self.content)
            .field("is_error", &self.is_error())
            .field("artifacts", &self.artifacts)
            .field("duration", &self.duration)
            .finish()
    }
}

impl ToolInvocation {
    /// The record of `call`, its arguments cut to 50 000 bytes like content.
    fn record(call: &ToolCall, bounded: BoundedResult, duration: Duration) -> Self {
        let (content, _, artifacts) = bounded.into_parts();
        Self {
            call: CallText::new(call),
            content,
            artifacts,
            duration,
        }
    }

    /// The wire content for the tool-result message.
    pub fn wire(&self) -> &WireString {
        &self.content
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
        self.content.as_str()
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.content.is_error()
    }

    /// The bounded artifacts: for people only, never on the wire.
    pub fn artifacts(&self) -> &[ToolArtifact] {
        &self.artifacts
    }

    /// How long the call took in the seam.
    pub fn duration(&self) -> Duration {
        self.duration
    }
}

/// A place that keeps what runs did, such as the persisted audit copy.
///
/// The recorder gives every event of every run to each sink, in the run's order, and waits for
/// the sink before subscribers see the event: a step a sink keeps is committed before it is
/// shown. A sink that fails does not stop the run; its error is logged and reported to
/// subscribers as [`RunEvent::Error`].
pub trait Sink: Send + Sync {
    /// Keeps what `event` reports (or ignores it).
    fn record<'a>(&'a self, event: &'a RunEvent) -> SinkFuture<'a>;
}

/// The boxed future of [`Sink::record`].
pub type SinkFuture<'a> = Pin<Box<dyn Future<Output = Result<(), SinkError>> + Send + 'a>>;

/// A sink that could not keep an event.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct SinkError(Box<dyn std::error::Error + Send + Sync>);

impl SinkError {
    /// Wraps the sink's own error.
    pub fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self(error.into())
    }
}

/// Records runs: fans every step out to the registered [`Sink`]s, the event stream and the
/// run's trace.
pub struct Recorder {
    events: Channel,
    sinks: Vec<Arc<dyn Sink>>,
}

impl Default for Recorder {
    fn default() -> Self {
        Self {
            events: Channel::new(Self::EVENT_BUFFER),
            sinks: Vec::new(),
        }
    }
}

impl fmt::Debug for Recorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recorder")
            .field("sinks", &self.sinks.len())
            .field("subscribers", &self.events.subscribers())
            .finish_non_exhaustive()
    }
}

impl Recorder {
    /// How many messages a subscriber may fall behind before it misses events (it is told how
    /// many events): a message is one event of a loop, or all of a single call's events.
    pub const EVENT_BUFFER: usize = 4096;

    /// A recorder with no sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same recorder also keeping every event in `sink`.
    #[must_use]
    pub fn with_sink(mut self, sink: Arc<dyn Sink>) -> Self {
        self.sinks.push(sink);
        self
    }

    /// Follows every run's events live, from now on. A subscriber that falls more than
    /// [`EVENT_BUFFER`](Self::EVENT_BUFFER) messages behind misses events (and is told how
    /// many); it never slows a run.
    pub fn subscribe(&self) -> Subscription {
        self.events.subscribe()
    }

    /// Whether anyone keeps or watches events; when nobody does, none is built.
    fn observed(&self) -> bool {
        !self.sinks.is_empty() || self.events.subscribers() > 0
    }

    /// Gives the event to every sink, then to subscribers. With no sink there is nothing to
    /// wait for: the event goes to subscribers at once, without a future of its own.
    fn emit(&self, event: impl FnOnce() -> RunEvent) -> impl Future<Output = ()> + Send + '_ {
        let kept = if self.observed() {
            let event = Arc::new(event());
            if self.sinks.is_empty() {
                self.events.send(event);
                None
            } else {
                Some(event)
            }
        } else {
            None
        };
        async move {
            if let Some(event) = kept {
                self.keep(event).await;
            }
        }
    }

    /// Gives the event to every sink, then to subscribers.
    async fn keep(&self, event: Arc<RunEvent>) {
        for sink in &self.sinks {
            if let Err(error) = sink.record(&event).await {
                tracing::error!(run_id = %event.run_id(), %error, "a sink could not keep an event");
                let report = RunEvent::Error {
                    run_id: event.run_id().clone(),
                    message: format!("a sink could not keep this run's event: {error}"),
                };
                self.events.send(Arc::new(report));
            }
        }
        self.events.send(event);
    }

    /// Runs one call through `seam` as a run of one tool step, under the run id `SOURCE_<uuid>`:
    /// sinks and subscribers see `RunStarted`, `StepStarted`, `ToolInvoked` (with the
    /// artifacts) and `Done`. When nobody observes, nothing is recorded: no event, no record,
    /// no clock read, nothing copied; the seam's result is given as it is. When only
    /// subscribers watch, each event is made when one of them first reads it.
    pub(crate) async fn call(
        &self,
        seam: &Seam,
        scope: &RunScope,
        source: &str,
        call: &ToolCall,
    ) -> ObservedCall {
        // Boxed: a recording's state does not weigh on the future of an unobserved call.
        let recorded = if !self.sinks.is_empty() {
            Box::pin(self.call_recorded(seam, scope, source, call)).await
        } else if self.events.subscribers() > 0 {
            Box::pin(self.call_watched(seam, scope, source, call)).await
        } else {
            let bounded = seam.invoke(scope, &call.name, &call.arguments).await;
            return ObservedCall(Observed::Unrecorded(bounded));
        };
        ObservedCall(Observed::Recorded(recorded))
    }

    /// [`call`](Self::call) watched by subscribers alone: no sink waits for its events, so none
    /// is made here, and they go out in one message (see [`Channel::send_call`]). A call done at
    /// its first poll sends all four once it is done; one that waits sends `RunStarted` and
    /// `StepStarted` before it waits, so that watchers see it running.
    async fn call_watched(
        &self,
        seam: &Seam,
        scope: &RunScope,
        source: &str,
        call: &ToolCall,
    ) -> Arc<ToolInvocation> {
        let run_id = RunId::new(source);
        let started = Instant::now();
        let mut invoke = pin!(seam.invoke(scope, &call.name, &call.arguments));
        let first = poll_fn(|context| Poll::Ready(invoke.as_mut().poll(context))).await;
        let (bounded, unsent) = match first {
            Poll::Ready(bounded) => (bounded, CallPart::All),
            Poll::Pending => {
                self.events.send_call_start(&run_id, &call.name);
                (invoke.await, CallPart::Finish)
            }
        };
        let invocation = Arc::new(ToolInvocation::record(call, bounded, started.elapsed()));
        self.events
            .send_call(run_id, Arc::clone(&invocation), unsent);
        invocation
    }

    /// [`call`](Self::call) with a sink: every event made, and kept by each sink before
    /// subscribers see it.
    async fn call_recorded(
        &self,
        seam: &Seam,
        scope: &RunScope,
        source: &str,
        call: &ToolCall,
    ) -> Arc<ToolInvocation> {
        let mut recording =
            Recording::start(self, RunId::new(source), RunKind::Call, &call.name).await;
        let index = recording.begin(StepKind::Tool, Some(&call.name)).await;
        let started = Instant::now();
        let bounded = seam.invoke(scope, &call.name, &call.arguments).await;
        let invocation = Arc::new(ToolInvocation::record(call, bounded, started.elapsed()));
        // Announced, not kept: nobody reads a single call's trace.
        recording
            .announce_finished(index, &RunStep::Tool(Arc::clone(&invocation)))
            .await;
        recording
            .end(Termination::Answered, invocation.content())
            .await;
        invocation
    }
}

/// What [`ToolLoopService::call_observed`](crate::ToolLoopService::call_observed) gives back:
/// the bounded result for whoever asked, and the record the sinks and subscribers were given
/// when anyone kept or watched events.
#[derive(Clone, Debug)]
pub struct ObservedCall(Observed);

#[derive(Clone, Debug)]
enum Observed {
    Recorded(Arc<ToolInvocation>),
    Unrecorded(BoundedResult),
}

impl ObservedCall {
    /// The wire content for the tool-result message (or an MCP reply).
    pub fn wire(&self) -> &WireString {
        match &self.0 {
            Observed::Recorded(invocation) => invocation.wire(),
            Observed::Unrecorded(bounded) => bounded.content(),
        }
    }

    /// The bounded content that goes to whoever asked.
    pub fn content(&self) -> &str {
        self.wire().as_str()
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.wire().is_error()
    }

    /// The bounded artifacts: for people only, never on the wire.
    pub fn artifacts(&self) -> &[ToolArtifact] {
        match &self.0 {
            Observed::Recorded(invocation) => invocation.artifacts(),
            Observed::Unrecorded(bounded) => bounded.artifacts(),
        }
    }

    /// The record every sink and subscriber was given (the same one, shared), with how long the
    /// call took; `None` when no sink kept and no subscriber watched events, so that nothing
    /// was recorded or timed. A host that wants the time of an unobserved call times its
    /// `await`, as around [`invoke`](crate::ToolLoopService::invoke).
    pub fn record(&self) -> Option<&Arc<ToolInvocation>> {
        match &self.0 {
            Observed::Recorded(invocation) => Some(invocation),
            Observed::Unrecorded(_) => None,
        }
    }
}

/// One run being recorded: its id, the next step's index and its trace.
pub(crate) struct Recording<'r> {
    recorder: &'r Recorder,
    run_id: RunId,
    steps: Vec<RunStep>,
    next: usize,
}

impl<'r> Recording<'r> {
    /// A new run: sinks and subscribers are told it started.
    pub(crate) async fn start(
        recorder: &'r Recorder,
        run_id: RunId,
        kind: RunKind,
        title: &str,
    ) -> Self {
        recorder
            .emit(|| RunEvent::run_started(&run_id, kind, title))
            .await;
        Self {
            recorder,
            run_id,
            steps: Vec::new(),
            next: 0,
        }
    }

    /// A run going on after a suspension, its steps numbered on from `next`.
    pub(crate) fn resume(recorder: &'r Recorder, run_id: RunId, next: usize) -> Self {
        Self {
            recorder,
            run_id,
            steps: Vec::new(),
            next,
        }
    }

    pub(crate) fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// The index the next step will get.
    pub(crate) fn next_index(&self) -> usize {
        self.next
    }

    /// Announces a step that takes a while (a provider call): subscribers see it started.
    pub(crate) async fn begin(&mut self, kind: StepKind, tool: Option<&str>) -> usize {
        let index = self.next;
        self.next += 1;
        let run_id = &self.run_id;
        self.recorder
            .emit(|| RunEvent::step_started(run_id, index, kind, tool))
            .await;
        index
    }

    /// Records a step begun with [`begin`](Self::begin).
    pub(crate) async fn finish(&mut self, index: usize, step: RunStep) {
        self.announce_finished(index, &step).await;
        self.steps.push(step);
    }

    /// Records a step that took no time of its own.
    pub(crate) async fn step(&mut self, step: RunStep) {
        let tool = match &step {
            RunStep::Tool(invocation) => Some(Arc::clone(invocation)),
            _ => None,
        };
        let index = self
            .begin(step.kind(), tool.as_ref().map(|tool| tool.name()))
            .await;
        self.finish(index, step).await;
    }

    async fn announce_finished(&self, index: usize, step: &RunStep) {
        let run_id = &self.run_id;
        self.recorder
            .emit(|| RunEvent::step_finished(run_id, index, step))
            .await;
    }

    /// Records a call answered without running it (a refusal): a tool step like any other.
    pub(crate) async fn answered(&mut self, call: &ToolCall, bounded: BoundedResult) -> WireString {
        let invocation = Arc::new(ToolInvocation::record(call, bounded, Duration::ZERO));
        let wire = invocation.wire().clone();
        self.step(RunStep::Tool(invocation)).await;
        wire
    }

    /// Runs `calls` concurrently through `execute` (the seam), each timed; each is shown as it
    /// finishes, and the trace keeps them in the calls' order. Each call's wire string goes to
    /// the slot of `answers` its position names.
    pub(crate) async fn tools<'c, F, Fut>(
        &mut self,
        calls: &[(usize, &'c ToolCall)],
        answers: &mut [Option<WireString>],
        execute: F,
    ) where
        F: Fn(&'c ToolCall) -> Fut,
        Fut: Future<Output = BoundedResult>,
    {
        // One call (the usual turn) needs no join.
        if let [(position, call)] = calls {
            let index = self.begin(StepKind::Tool, Some(&call.name)).await;
            let (wire, step) = self.tool(call, index, &execute).await;
            self.steps.push(step);
            answers[*position] = Some(wire);
            return;
        }
        let mut indices = Vec::with_capacity(calls.len());
        for (_, call) in calls {
            indices.push(self.begin(StepKind::Tool, Some(&call.name)).await);
        }
        let this = &*self;
        let finished = join_all(
            calls
                .iter()
                .zip(indices)
                .map(|(&(_, call), index)| this.tool(call, index, &execute)),
        )
        .await;
        for (&(position, _), (wire, step)) in calls.iter().zip(finished) {
            self.steps.push(step);
            answers[position] = Some(wire);
        }
    }

    /// One call of a turn, begun as step `index`: run, timed and shown as it finishes.
    async fn tool<'c, F, Fut>(
        &self,
        call: &'c ToolCall,
        index: usize,
        execute: &F,
    ) -> (WireString, RunStep)
    where
        F: Fn(&'c ToolCall) -> Fut,
        Fut: Future<Output = BoundedResult>,
    {
        let started = Instant::now();
        let bounded = execute(call).await;
        let invocation = Arc::new(ToolInvocation::record(call, bounded, started.elapsed()));
        let wire = invocation.wire().clone();
        let step = RunStep::Tool(invocation);
        self.announce_finished(index, &step).await;
        (wire, step)
    }

    /// The run stopped: sinks and subscribers are told why; the trace is complete.
    pub(crate) async fn end(self, termination: Termination, content: &str) -> RunTrace {
        let run_id = &self.run_id;
        self.recorder
            .emit(|| RunEvent::done(run_id, termination, content))
            .await;
        RunTrace::new(self.run_id, self.steps)
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
    fn a_run_nobody_observes_makes_no_event_and_one_watched_makes_every_one() {
        let registry = Fixed::answering("shows", || ToolResult::text("shown")).alone();
        let service = crate::ToolLoopService::new(registry);
        let script = r#"{"turns": [{"tool_calls": [{"name": "shows"}]}, {"content": "end"}]}"#;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let run = || {
            let provider = crate::provider::ScriptedProvider::from_json(script).unwrap();
            let result = runtime
                .block_on(service.run(&provider, crate::RunRequest::new("x")))
                .unwrap();
            assert_eq!(result.content, "end");
        };
        run();
        assert_eq!(service.recorder().events.published(), 0);
        let _watching = service.subscribe();
        run();
        // Started; the request, the model, the tool and the model again, each begun and
        // finished; done.
        assert_eq!(service.recorder().events.published(), 10);
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

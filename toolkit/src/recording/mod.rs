//! Recording: the one pipeline from the seam to every place a call is shown or kept.
//!
//! For the service and everything above it, artifacts leave the seam here and nowhere else (code
//! that calls [`Seam`] itself holds them in the [`BoundedResult`]). A run's `Recording` is the
//! only code that turns a seam result ([`BoundedResult`]) into the two things that follow a
//! call: the [`WireString`] for the tool-result message, and the [`ToolInvocation`] (with the
//! bounded artifacts) for people.
//! Every run, a loop or one call made outside a loop (MCP, the inspector's one-tool runs), is
//! recorded by one `Recording`, and every step it records goes, in this order, to each
//! registered [`Sink`] (the persisted audit copy: committed before anything is shown), to the
//! event stream (one [`RunEvent`] per message), and to the run's [`RunTrace`]. A sink that keeps
//! runs whole ([`Sink::keeps_runs_whole`]) is given a call's run in one piece once the call ran,
//! before its step is shown. The one shortcut: a call nobody keeps or watches is not recorded at
//! all, and its caller gets the seam's result.

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::future::join_all;
// Tokio's clock, so a paused test clock times calls exactly; unpaused it is the system's.
use tokio::time::Instant;

use crate::ask::{Answers, Asked};
use crate::provider::Delta;
use crate::report::ReportSink;
use crate::result::ToolArtifact;
use crate::seam::Invoked;
use crate::seam::{Approval, BoundedResult, RunScope, Seam};
use crate::shared::BackendFuture;
use crate::wire::{ToolCall, WireString};

pub(crate) mod events;
pub(crate) mod record;
pub(crate) mod trace;

pub use events::{RunEvent, RunKind, Subscription};
pub use record::{CallDecision, Decided, Decider, RunId, ToolInvocation};
pub use trace::{RunStep, RunTrace, StepKind, Termination};

use events::{Called, Channel};

/// A place that keeps what runs did, such as the persisted audit copy.
///
/// The recorder gives every event of every run to each sink, in the run's order, and waits for
/// the sink before subscribers see the event: a step a sink keeps is committed before it is
/// shown. A sink that fails does not stop a loop's run; its error is logged and reported to
/// subscribers as [`RunEvent::Error`]. A call made outside a loop
/// ([`ToolLoopService::call_observed`](crate::ToolLoopService::call_observed), an answered
/// question) is never answered as a success that a sink did not keep: it does not run when its
/// start cannot be kept, and answers an error when a later event cannot
/// ([`ObservedCall::unkept`]).
///
/// A database keeps a call made outside a loop faster in one write than in three (its start,
/// its step, its end: a commit each). A sink that says it
/// [keeps runs whole](Self::keeps_runs_whole) is given such a run once the call ran, every
/// event of it at once ([`record_run`](Self::record_run)), and the call's step and end are
/// shown only once it kept them. Its start is then not kept before the call runs, except while
/// the last write of a sink failed (say, its database is down): then the start is kept alone
/// first, and a call whose start cannot be kept does not run.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolkit::{RunEvent, Sink, shared::BackendFuture};
///
/// /// Keeps the tool name of every call's run, a whole run at once.
/// #[derive(Default)]
/// struct Titles(Mutex<Vec<String>>);
///
/// impl Titles {
///     /// One lock, taken once: all of these events or none.
///     fn keep<'a>(&self, events: impl Iterator<Item = &'a RunEvent>) -> BackendFuture<'a, ()> {
///         let mut titles = self.0.lock().unwrap();
///         for event in events {
///             if let RunEvent::RunStarted { title, .. } = event {
///                 titles.push(title.clone());
///             }
///         }
///         Box::pin(async { Ok(()) })
///     }
/// }
///
/// impl Sink for Titles {
///     fn record<'a>(&'a self, event: &'a RunEvent) -> BackendFuture<'a, ()> {
///         self.keep(std::iter::once(event))
///     }
///
///     fn keeps_runs_whole(&self) -> bool {
///         true
///     }
///
///     fn record_run<'a>(&'a self, events: &'a [Arc<RunEvent>]) -> BackendFuture<'a, ()> {
///         self.keep(events.iter().map(|event| &**event))
///     }
/// }
/// ```
pub trait Sink: Send + Sync {
    /// Keeps what `event` reports (or ignores it).
    fn record<'a>(&'a self, event: &'a RunEvent) -> BackendFuture<'a, ()>;

    /// Whether this sink keeps the run of a call made outside a loop in one write, given to
    /// [`record_run`](Self::record_run) once the call ran, rather than event by event as it
    /// happens. The default, `false`, suits a sink that keeps an event without waiting (an
    /// export) or that must see a run start as it starts.
    fn keeps_runs_whole(&self) -> bool {
        false
    }

    /// Keeps `events`, every event of one run in the run's order, in one write: all of them or
    /// none. Called only when [`keeps_runs_whole`](Self::keeps_runs_whole) says so; the default
    /// keeps each with [`record`](Self::record) in turn, up to the first that fails.
    fn record_run<'a>(&'a self, events: &'a [Arc<RunEvent>]) -> BackendFuture<'a, ()> {
        Box::pin(async move {
            for event in events {
                self.record(event).await?;
            }
            Ok(())
        })
    }
}

/// Records runs: fans every step out to the registered [`Sink`]s, the event stream and the
/// run's trace.
pub struct Recorder {
    events: Channel,
    sinks: Vec<Arc<dyn Sink>>,
    /// Whether the last write of a sink failed: then a call's run is kept event by event, its
    /// start before it runs.
    failing: AtomicBool,
}

impl Default for Recorder {
    fn default() -> Self {
        Self {
            events: Channel::new(crate::limits::EVENT_BUFFER),
            sinks: Vec::new(),
            failing: AtomicBool::new(false),
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
    /// [`EVENT_BUFFER`](crate::limits::EVENT_BUFFER) events behind misses events (and is told how
    /// many); it never slows a run.
    pub fn subscribe(&self) -> Subscription {
        self.events.subscribe()
    }

    /// Whether anyone keeps or watches events; when nobody does, none is built.
    fn observed(&self) -> bool {
        !self.sinks.is_empty() || self.events.subscribers() > 0
    }

    /// Gives the event to every sink, then to subscribers; when nobody keeps or watches
    /// events, the event is not made. Whether every sink kept it.
    async fn emit(&self, event: impl FnOnce() -> RunEvent) -> bool {
        if !self.observed() {
            return true;
        }
        let event = Arc::new(event());
        let kept = self.keep(&event, |_| true).await;
        self.events.send(event);
        kept
    }

    /// Gives `event` to the sinks `chosen` picks, in turn: whether each kept it. A sink that
    /// could not is logged and reported to subscribers.
    async fn keep(&self, event: &RunEvent, chosen: impl Fn(&dyn Sink) -> bool) -> bool {
        let (mut kept, mut asked) = (true, false);
        for sink in self.sinks.iter().filter(|sink| chosen(sink.as_ref())) {
            asked = true;
            if let Err(error) = sink.record(event).await {
                tracing::error!(run_id = %event.run_id(), %error, "a sink could not keep an event");
                self.unkept(event.run_id(), &format!("event: {error}"));
                kept = false;
            }
        }
        if asked {
            self.failing.store(!kept, Ordering::Relaxed);
        }
        kept
    }

    /// Gives the sinks that keep runs whole the run of one call (`events`): whether each kept
    /// it.
    async fn keep_run(&self, run_id: &RunId, events: &[Arc<RunEvent>]) -> bool {
        let mut kept = true;
        for sink in self.sinks.iter().filter(|sink| sink.keeps_runs_whole()) {
            if let Err(error) = sink.record_run(events).await {
                tracing::error!(%run_id, %error, "a sink could not keep a run");
                self.unkept(run_id, &format!("events: {error}"));
                kept = false;
            }
        }
        self.failing.store(!kept, Ordering::Relaxed);
        kept
    }

    /// Tells subscribers a sink could not keep what `what` says of `run_id`.
    fn unkept(&self, run_id: &RunId, what: &str) {
        let report = RunEvent::Error {
            run_id: run_id.clone(),
            message: format!("a sink could not keep this run's {what}"),
        };
        self.events.send(Arc::new(report));
    }

    /// Whether a call's run is given whole to the sinks that keep runs whole: when there is
    /// one, and no sink's last write failed.
    fn keeps_calls_whole(&self) -> bool {
        self.sinks.iter().any(|sink| sink.keeps_runs_whole())
            && !self.failing.load(Ordering::Relaxed)
    }

    /// Runs one call through `seam` as a run of one tool step, under the run id `SOURCE_<uuid>`:
    /// sinks and subscribers see `RunStarted`, `StepStarted`, `ToolInvoked` (with the
    /// artifacts) and `Done`, recorded as a loop records its steps; a call the scope's cancel
    /// signal ended is recorded with its cancellation as its result, and its run as cancelled. When nobody observes,
    /// nothing is recorded: no event, no record, no clock read, nothing copied; the seam's
    /// result is given as it is.
    pub(crate) async fn call(
        &self,
        seam: &Seam,
        scope: &RunScope,
        source: &str,
        call: &ToolCall,
    ) -> ObservedCall {
        if !self.observed() {
            let bounded = seam.invoke_call(scope, call).await;
            return ObservedCall::of(Observed::Unrecorded(bounded));
        }
        // Boxed: a recording's state does not weigh on the future of an unobserved call.
        Box::pin(async {
            let mut recording = Recording::start_call(self, RunId::new(source), &call.name).await;
            let ran = recording.kept();
            let invocation = if ran {
                let execution = seam.invoke_call(scope, call);
                recording.tool_once(call, execution).await
            } else {
                recording
                    .answered(call, Seam::refuse(scope, not_run(call)))
                    .await
            };
            recording.observed(scope, call, invocation, ran).await
        })
        .await
    }

    /// [`call`](Self::call) for a caller that can ask the person: the call runs with `answers`
    /// ([`Seam::invoke_answering`]); a round whose tool asks what it has no answer to is
    /// recorded as a run of one `asked` step (what it asked), ending suspended, and gives the
    /// questions ([`Answering::Asking`]).
    pub(crate) async fn call_answering(
        &self,
        seam: &Seam,
        scope: &RunScope,
        source: &str,
        call: &ToolCall,
        answers: Answers,
    ) -> Answering {
        let execution = seam.invoke_answering(scope, call, answers);
        if !self.observed() {
            return match execution.await {
                Invoked::Done(result) => {
                    Answering::Done(ObservedCall::of(Observed::Unrecorded(result)))
                }
                Invoked::Asking { asked, .. } => Answering::Asking(asked),
            };
        }
        Box::pin(async {
            let mut recording = Recording::start_call(self, RunId::new(source), &call.name).await;
            if !recording.kept() {
                let refused = Seam::refuse(scope, not_run(call));
                let invocation = recording.answered(call, refused).await;
                return Answering::Done(recording.observed(scope, call, invocation, false).await);
            }
            let index = recording
                .begin(StepKind::Tool, Some(Called::of(call)))
                .await;
            match recording.tool_asking(call, index, execution).await {
                Ran::Invoked(invocation) => {
                    recording.steps.push(RunStep::Tool(Arc::clone(&invocation)));
                    Answering::Done(recording.observed(scope, call, invocation, true).await)
                }
                Ran::Asked(step) => {
                    let RunStep::Asked { asked, .. } = &step else {
                        unreachable!("an asked round records an asked step")
                    };
                    let asked = asked.clone();
                    recording.steps.push(step);
                    recording.end(Termination::Suspended, "").await;
                    Answering::Asking(asked)
                }
            }
        })
        .await
    }

    /// Runs or refuses one call a person decided outside a loop, as a run of one call under the
    /// run id `SOURCE_<uuid>`: the step that records the decisions (none when the call could
    /// not be asked about), then the call's tool step. With an `Ok` approval (of exactly this
    /// call, its preview checked) the call runs through `seam`; with an `Err` refusal, the
    /// model reads it and nothing runs. When nobody observes, nothing is recorded.
    pub(crate) async fn decided(
        &self,
        seam: &Seam,
        scope: &RunScope,
        source: &str,
        call: &ToolCall,
        decisions: Option<RunStep>,
        outcome: Result<Approval, String>,
    ) -> ObservedCall {
        if !self.observed() {
            let bounded = match outcome {
                Err(text) => Seam::refuse(scope, text),
                Ok(approval) => seam.invoke_approved(scope, call, approval).await,
            };
            return ObservedCall::of(Observed::Unrecorded(bounded));
        }
        Box::pin(async {
            let mut recording = Recording::start_call(self, RunId::new(source), &call.name).await;
            if let Some(step) = decisions {
                recording.step(step).await;
            }
            let kept = recording.kept();
            let ran = outcome.is_ok() && kept;
            let invocation = match outcome {
                Ok(approval) if kept => {
                    let execution = seam.invoke_approved(scope, call, approval);
                    recording.tool_once(call, execution).await
                }
                Ok(_) => {
                    recording
                        .answered(call, Seam::refuse(scope, not_run(call)))
                        .await
                }
                Err(text) => recording.answered(call, Seam::refuse(scope, text)).await,
            };
            recording.observed(scope, call, invocation, ran).await
        })
        .await
    }
}

/// What a call made outside a loop answers when its run's start could not be kept by a sink:
/// it is not run, since nothing would keep what it did.
fn not_run(call: &ToolCall) -> String {
    format!(
        "Error: tool \"{}\" was not run: the record this service keeps of every call could not \
         be written. Try again later.",
        crate::bound::echo(&call.name)
    )
}

/// What a call made outside a loop answers when it ran but a sink could not keep its record:
/// an error, never its result.
fn not_kept(call: &ToolCall) -> String {
    format!(
        "Error: tool \"{}\" ran, but the record this service keeps of every call could not be \
         written, so its result is withheld.",
        crate::bound::echo(&call.name)
    )
}

/// What [`ToolLoopService::call_observed`](crate::ToolLoopService::call_observed) gives back:
/// the bounded result for whoever asked, and the record the sinks and subscribers were given
/// when anyone kept or watched events.
#[derive(Clone, Debug)]
pub struct ObservedCall {
    observed: Observed,
}

/// What [`ToolLoopService::call_observed_answering`](crate::ToolLoopService::call_observed_answering)
/// gives: the call's result, or the questions its tool waits for.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Answering {
    /// The call ran to its end with the answers it had (or asked nothing).
    Done(ObservedCall),
    /// The call's tool asked questions it has no answer to: ask the person, then make the
    /// call again with the answers so far and these.
    Asking(Vec<Asked>),
}

#[derive(Clone, Debug)]
enum Observed {
    Recorded(Arc<ToolInvocation>),
    Unrecorded(BoundedResult),
    /// Recorded, but a sink could not keep every event of it: the caller gets an error.
    Unkept {
        record: Arc<ToolInvocation>,
        reply: BoundedResult,
    },
}

impl ObservedCall {
    fn of(observed: Observed) -> Self {
        Self { observed }
    }

    /// The seam's result, recorded or not; an error when a sink could not keep the call.
    fn result(&self) -> &BoundedResult {
        match &self.observed {
            Observed::Recorded(invocation) => invocation.result(),
            Observed::Unrecorded(bounded) | Observed::Unkept { reply: bounded, .. } => bounded,
        }
    }

    /// Whether a sink (the audit copy) could not keep every event of this call. Then the call
    /// did not run when its start could not be kept, and its result is an error either way:
    /// a caller is never told a call succeeded that was not kept.
    pub fn unkept(&self) -> bool {
        matches!(self.observed, Observed::Unkept { .. })
    }

    /// The wire content for the tool-result message (or an MCP reply).
    pub fn wire(&self) -> &WireString {
        self.result().wire()
    }

    /// The bounded content that goes to whoever asked.
    pub fn content(&self) -> &str {
        self.result().content()
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.result().is_error()
    }

    /// The bounded artifacts: for people only, never on the wire.
    pub fn artifacts(&self) -> &[ToolArtifact] {
        self.result().artifacts()
    }

    /// The record every sink and subscriber was given (the same one, shared), with how long the
    /// call took; `None` when no sink kept and no subscriber watched events, so that nothing
    /// was recorded or timed. A host that wants the time of an unobserved call times its
    /// `await`, as around [`invoke`](crate::ToolLoopService::invoke).
    pub fn record(&self) -> Option<&Arc<ToolInvocation>> {
        match &self.observed {
            Observed::Recorded(invocation)
            | Observed::Unkept {
                record: invocation, ..
            } => Some(invocation),
            Observed::Unrecorded(_) => None,
        }
    }
}

/// What became of a call run through an execution that may ask the person.
pub(crate) enum Ran {
    /// It ran: its record.
    Invoked(Arc<ToolInvocation>),
    /// Its tool asked questions it has no answer to: the `asked` step recorded.
    Asked(RunStep),
}

impl Ran {
    /// The record of a call whose execution cannot ask (it gives `Invoked::Done` only).
    fn into_invocation(self) -> Arc<ToolInvocation> {
        match self {
            Ran::Invoked(invocation) => invocation,
            Ran::Asked(_) => unreachable!("an execution that cannot ask ran to its end"),
        }
    }
}

/// One run being recorded: its id, the next step's index, its trace, and whether every sink
/// kept every event so far.
pub(crate) struct Recording<'r> {
    recorder: &'r Recorder,
    run_id: RunId,
    steps: Vec<RunStep>,
    next: usize,
    kept: AtomicBool,
    /// For the run of one call that sinks keep whole: every event of it so far, in order, which
    /// they will be given. Boxed: a loop's recording, which never has one, stays as small as it
    /// was.
    whole: Option<Box<Mutex<Vec<Arc<RunEvent>>>>>,
}

/// Whether subscribers see `event` of a run kept whole as it happens: a run's and a step's
/// starts show nothing a call did. Every other event is shown once the run was kept.
fn shown_at_once(event: &RunEvent) -> bool {
    matches!(
        event,
        RunEvent::RunStarted { .. } | RunEvent::StepStarted { .. }
    )
}

impl<'r> Recording<'r> {
    /// A new run: sinks and subscribers are told it started.
    pub(crate) async fn start(
        recorder: &'r Recorder,
        run_id: RunId,
        kind: RunKind,
        title: &str,
    ) -> Self {
        let kept = recorder
            .emit(|| RunEvent::run_started(&run_id, kind, title))
            .await;
        Self {
            recorder,
            run_id,
            steps: Vec::new(),
            next: 0,
            kept: AtomicBool::new(kept),
            whole: None,
        }
    }

    /// A new run of one call made outside a loop, titled by its tool's name. The sinks that
    /// keep runs whole are given it once it ended ([`settle`](Self::settle)), unless a sink's
    /// last write failed: then it is recorded as a loop is, its start kept before the call runs.
    async fn start_call(recorder: &'r Recorder, run_id: RunId, tool: &str) -> Self {
        if !recorder.keeps_calls_whole() {
            return Self::start(recorder, run_id, RunKind::Call, tool).await;
        }
        let mut recording = Self::resume(recorder, run_id, 0);
        recording.whole = Some(Box::default());
        let run_id = &recording.run_id;
        recording
            .emit(|| RunEvent::run_started(run_id, RunKind::Call, tool))
            .await;
        recording
    }

    /// A run going on after a suspension, its steps numbered on from `next`.
    pub(crate) fn resume(recorder: &'r Recorder, run_id: RunId, next: usize) -> Self {
        Self {
            recorder,
            run_id,
            steps: Vec::new(),
            next,
            kept: AtomicBool::new(true),
            whole: None,
        }
    }

    /// Whether every sink kept every event of the run so far.
    pub(crate) fn kept(&self) -> bool {
        self.kept.load(Ordering::Relaxed)
    }

    /// Gives `event` to the recorder, noting a sink that could not keep it. In a run kept
    /// whole, the sinks that keep runs whole get it with the rest of the run, and subscribers
    /// see it once they kept it (unless it is a start).
    async fn emit(&self, event: impl FnOnce() -> RunEvent) {
        let Some(whole) = &self.whole else {
            if !self.recorder.emit(event).await {
                self.kept.store(false, Ordering::Relaxed);
            }
            return;
        };
        let event = Arc::new(event());
        let recorder = self.recorder;
        if !recorder.keep(&event, |sink| !sink.keeps_runs_whole()).await {
            self.kept.store(false, Ordering::Relaxed);
        }
        whole
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Arc::clone(&event));
        if shown_at_once(&event) {
            recorder.events.send(event);
        }
    }

    /// Gives a run kept whole to the sinks that keep runs whole, then shows subscribers what
    /// was held for them; nothing for a run recorded event by event.
    async fn settle(&self) {
        let Some(whole) = &self.whole else {
            return;
        };
        let events = std::mem::take(&mut *whole.lock().unwrap_or_else(PoisonError::into_inner));
        if !self.recorder.keep_run(&self.run_id, &events).await {
            self.kept.store(false, Ordering::Relaxed);
        }
        for event in events {
            if !shown_at_once(&event) {
                self.recorder.events.send(event);
            }
        }
    }

    /// Ends a run of one call made outside a loop (which `ran`, or was refused): what its caller
    /// gets, an error when a sink could not keep the call. The run is
    /// [`Cancelled`](Termination::Cancelled) when its scope's cancel signal was given (the call
    /// was given up: an MCP client cancelled it or went away), else `Answered`.
    async fn observed(
        self,
        scope: &RunScope,
        call: &ToolCall,
        invocation: Arc<ToolInvocation>,
        ran: bool,
    ) -> ObservedCall {
        let run_id = &self.run_id;
        let termination = if scope.is_cancelled() {
            Termination::Cancelled
        } else {
            Termination::Answered
        };
        self.emit(|| RunEvent::done(run_id, termination, invocation.content()))
            .await;
        self.settle().await;
        if self.kept() {
            return ObservedCall::of(Observed::Recorded(invocation));
        }
        let text = if ran { not_kept(call) } else { not_run(call) };
        ObservedCall::of(Observed::Unkept {
            record: invocation,
            reply: Seam::refuse(scope, text),
        })
    }

    pub(crate) fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// The index the next step will get.
    pub(crate) fn next_index(&self) -> usize {
        self.next
    }

    /// Announces a step that takes a while (a provider call, a tool's `call`): subscribers see
    /// it started.
    pub(crate) async fn begin(&mut self, kind: StepKind, call: Option<Called<'_>>) -> usize {
        let index = self.next;
        self.next += 1;
        let run_id = &self.run_id;
        self.emit(|| RunEvent::step_started(run_id, index, kind, call))
            .await;
        index
    }

    /// The sink that shows subscribers what this run's calls report while they run
    /// ([`RunScope::with_reports`]).
    pub(crate) fn reports(&self) -> Arc<dyn ReportSink> {
        Arc::new(self.recorder.events.reports(&self.run_id))
    }

    /// Shows subscribers a piece of the answer of the model step `index`, when any watch.
    /// Sinks do not get it: they keep the finished step.
    pub(crate) fn delta(&self, index: usize, delta: &Delta) {
        if self.recorder.events.subscribers() == 0 {
            return;
        }
        self.recorder.events.send(Arc::new(RunEvent::ModelDelta {
            run_id: self.run_id.clone(),
            index,
            delta: delta.clone(),
        }));
    }

    /// Records a step begun with [`begin`](Self::begin).
    pub(crate) async fn finish(&mut self, index: usize, step: RunStep) {
        self.announce_finished(index, &step).await;
        self.steps.push(step);
    }

    /// Records a step that took no time of its own.
    pub(crate) async fn step(&mut self, step: RunStep) {
        let call = match &step {
            RunStep::Tool(invocation) => Some(Called {
                tool: invocation.name(),
                id: invocation.call_id(),
            }),
            _ => None,
        };
        let index = self.begin(step.kind(), call).await;
        self.finish(index, step).await;
    }

    async fn announce_finished(&self, index: usize, step: &RunStep) {
        let run_id = &self.run_id;
        self.emit(|| RunEvent::step_finished(run_id, index, step))
            .await;
    }

    /// Records a call answered without running it (a refusal): a tool step like any other.
    pub(crate) async fn answered(
        &mut self,
        call: &ToolCall,
        bounded: BoundedResult,
    ) -> Arc<ToolInvocation> {
        let invocation = Arc::new(ToolInvocation::record(call, bounded, Duration::ZERO));
        self.step(RunStep::Tool(Arc::clone(&invocation))).await;
        invocation
    }

    /// Runs `calls` concurrently, each with its execution through the seam, each timed; each is
    /// shown as it finishes, and the trace keeps them in the calls' order. Gives their records
    /// in that order.
    pub(crate) async fn tools<Fut>(
        &mut self,
        calls: Vec<(&ToolCall, Fut)>,
    ) -> Vec<Arc<ToolInvocation>>
    where
        Fut: Future<Output = BoundedResult>,
    {
        let calls = calls
            .into_iter()
            .map(|(call, execution)| (call, async { Invoked::Done(execution.await) }))
            .collect();
        let ran = self.tools_asking(calls).await;
        ran.into_iter().map(Ran::into_invocation).collect()
    }

    /// One call run through `execution`, timed and shown as it finishes, as
    /// [`tools`](Self::tools) runs several: its record.
    pub(crate) async fn tool_once(
        &mut self,
        call: &ToolCall,
        execution: impl Future<Output = BoundedResult>,
    ) -> Arc<ToolInvocation> {
        let index = self.begin(StepKind::Tool, Some(Called::of(call))).await;
        let execution = async { Invoked::Done(execution.await) };
        let invocation = self
            .tool_asking(call, index, execution)
            .await
            .into_invocation();
        self.steps.push(RunStep::Tool(Arc::clone(&invocation)));
        invocation
    }

    /// Runs `calls` concurrently as [`tools`](Self::tools) does, each through an execution that
    /// may ask the person ([`Seam::invoke_answering`]): a call that ran is recorded as a tool
    /// step, one whose tool asked what it has no answer to as an `asked` step. Gives what became
    /// of each, in the calls' order.
    pub(crate) async fn tools_asking<Fut>(&mut self, calls: Vec<(&ToolCall, Fut)>) -> Vec<Ran>
    where
        Fut: Future<Output = Invoked>,
    {
        let mut indices = Vec::with_capacity(calls.len());
        let started: Vec<&ToolCall> = calls.iter().map(|&(call, _)| call).collect();
        for call in started {
            indices.push(self.begin(StepKind::Tool, Some(Called::of(call))).await);
        }
        let this = &*self;
        let ran = join_all(
            calls
                .into_iter()
                .zip(indices)
                .map(|((call, execution), index)| this.tool_asking(call, index, execution)),
        )
        .await;
        self.steps.extend(ran.iter().map(|ran| match ran {
            Ran::Invoked(invocation) => RunStep::Tool(Arc::clone(invocation)),
            Ran::Asked(step) => step.clone(),
        }));
        ran
    }

    /// One call begun as step `index` through an execution that may ask: recorded as it
    /// finishes, a tool step or an `asked` step.
    async fn tool_asking(
        &self,
        call: &ToolCall,
        index: usize,
        execution: impl Future<Output = Invoked>,
    ) -> Ran {
        let started = Instant::now();
        match execution.await {
            Invoked::Done(bounded) => {
                let invocation = Arc::new(ToolInvocation::record(call, bounded, started.elapsed()));
                self.announce_finished(index, &RunStep::Tool(Arc::clone(&invocation)))
                    .await;
                Ran::Invoked(invocation)
            }
            Invoked::Asking { asked, .. } => {
                let step = RunStep::Asked {
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                    asked,
                };
                self.announce_finished(index, &step).await;
                Ran::Asked(step)
            }
        }
    }

    /// The run stopped: sinks and subscribers are told why; the trace is complete.
    pub(crate) async fn end(self, termination: Termination, content: &str) -> RunTrace {
        let run_id = &self.run_id;
        self.emit(|| RunEvent::done(run_id, termination, content))
            .await;
        self.settle().await;
        RunTrace::new(self.run_id, self.steps)
    }
}

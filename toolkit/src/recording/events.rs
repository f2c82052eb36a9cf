//! The live event stream of runs: what subscribers and sinks are told, step by step.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use tokio::sync::broadcast;

use crate::bound::echo;
use crate::provider::Delta;
use crate::recording::record::{RunId, ToolInvocation};
use crate::recording::trace::{RunStep, StepKind, Termination};
use crate::report::{CallReport, ReportSink};

/// What a run is: a loop, or one call made outside a loop (an MCP `tools/call`, the inspector's
/// one-tool run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunKind {
    /// A tool loop with a model.
    Run,
    /// One call through the seam.
    Call,
}

impl RunKind {
    /// `run` or `call`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Run => "run",
            RunKind::Call => "call",
        }
    }
}

/// The call a tool step is about: its tool's name and its id.
#[derive(Clone, Copy)]
pub(crate) struct Called<'a> {
    pub(crate) tool: &'a str,
    pub(crate) id: &'a str,
}

impl<'a> Called<'a> {
    pub(crate) fn of(call: &'a crate::wire::ToolCall) -> Self {
        Self {
            tool: &call.name,
            id: &call.id,
        }
    }
}

/// Something that happened in a run. Only the [`Recorder`](super::Recorder) makes events:
/// every variant is `#[non_exhaustive]`, so code outside this crate reads them and cannot forge
/// one.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunEvent {
    /// A run began.
    #[non_exhaustive]
    RunStarted {
        /// The run.
        run_id: RunId,
        /// A loop or a single call.
        kind: RunKind,
        /// What it is about: a loop's question, a call's tool name.
        title: String,
    },
    /// A step began.
    #[non_exhaustive]
    StepStarted {
        /// The run.
        run_id: RunId,
        /// The step's position in the run (it goes on counting after a resume).
        index: usize,
        /// What kind of step.
        kind: StepKind,
        /// The tool's name, for a tool step.
        #[serde(skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        /// The call's id, for a tool step: its [`ToolReport`](RunEvent::ToolReport)s name it.
        #[serde(skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
    },
    /// A step other than a tool call finished.
    #[non_exhaustive]
    StepFinished {
        /// The run.
        run_id: RunId,
        /// The step's position in the run.
        index: usize,
        /// The step.
        step: RunStep,
    },
    /// A piece of the model's answer as it streams in, for people watching a model step:
    /// its text as it grows, calls as they are assembled, usage when it arrives. Only
    /// subscribers see these; sinks keep the finished `llm` step, which holds the whole turn.
    #[non_exhaustive]
    ModelDelta {
        /// The run.
        run_id: RunId,
        /// The model step it belongs to.
        index: usize,
        /// The piece.
        delta: Delta,
    },
    /// What a running call's tool reported ([`ToolContext::progress`](crate::ToolContext::progress),
    /// [`ToolContext::log`](crate::ToolContext::log)): for people watching the call, so only
    /// subscribers see these; sinks keep the finished call, and the model never reads them.
    #[non_exhaustive]
    ToolReport {
        /// The run.
        run_id: RunId,
        /// The call, as its [`StepStarted`](RunEvent::StepStarted) names it.
        call_id: String,
        /// What it reported: paced, masked and cut (see [`talk`](crate::talk)).
        report: CallReport,
    },
    /// A tool call finished: with its artifacts, for people watching.
    #[non_exhaustive]
    ToolInvoked {
        /// The run.
        run_id: RunId,
        /// The step's position in the run.
        index: usize,
        /// The call (shared with the run's trace).
        invocation: Arc<ToolInvocation>,
    },
    /// The run stopped.
    #[non_exhaustive]
    Done {
        /// The run.
        run_id: RunId,
        /// Why.
        termination: Termination,
        /// The final content.
        content: String,
    },
    /// Something went wrong that the run reports but survives, or that ended it.
    #[non_exhaustive]
    Error {
        /// The run.
        run_id: RunId,
        /// What.
        message: String,
    },
}

impl RunEvent {
    /// `RunStarted`: a run about `title` (a loop's question, a call's tool name).
    pub(crate) fn run_started(run_id: &RunId, kind: RunKind, title: &str) -> Self {
        RunEvent::RunStarted {
            run_id: run_id.clone(),
            kind,
            title: title.to_owned(),
        }
    }

    /// `StepStarted`, naming the tool and the call of a tool step (cut and escaped like every
    /// echoed name).
    pub(crate) fn step_started(
        run_id: &RunId,
        index: usize,
        kind: StepKind,
        call: Option<Called<'_>>,
    ) -> Self {
        RunEvent::StepStarted {
            run_id: run_id.clone(),
            index,
            kind,
            tool: call.map(|call| echo(call.tool)),
            call_id: call.map(|call| call.id.to_owned()),
        }
    }

    /// The event of a finished step: `ToolInvoked` for a tool step, `StepFinished` for others.
    pub(crate) fn step_finished(run_id: &RunId, index: usize, step: &RunStep) -> Self {
        match step {
            RunStep::Tool(invocation) => RunEvent::ToolInvoked {
                run_id: run_id.clone(),
                index,
                invocation: Arc::clone(invocation),
            },
            other => RunEvent::StepFinished {
                run_id: run_id.clone(),
                index,
                step: other.clone(),
            },
        }
    }

    /// `Done`, with the run's final content.
    pub(crate) fn done(run_id: &RunId, termination: Termination, content: &str) -> Self {
        RunEvent::Done {
            run_id: run_id.clone(),
            termination,
            content: content.to_owned(),
        }
    }

    /// The run the event belongs to.
    pub fn run_id(&self) -> &RunId {
        match self {
            RunEvent::RunStarted { run_id, .. }
            | RunEvent::StepStarted { run_id, .. }
            | RunEvent::StepFinished { run_id, .. }
            | RunEvent::ModelDelta { run_id, .. }
            | RunEvent::ToolReport { run_id, .. }
            | RunEvent::ToolInvoked { run_id, .. }
            | RunEvent::Done { run_id, .. }
            | RunEvent::Error { run_id, .. } => run_id,
        }
    }
}

/// The channel subscribers read: one event per message, so that a subscriber that falls behind
/// is told exactly how many events it missed.
pub(crate) struct Channel {
    sender: broadcast::Sender<Arc<RunEvent>>,
    /// Live [`Subscription`]s, counted apart from the channel (whose count takes its lock):
    /// every call reads this to know whether to record at all.
    subscribers: Arc<AtomicUsize>,
}

impl Channel {
    /// A channel holding the last `capacity` events for subscribers that fall behind.
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            sender: broadcast::Sender::new(capacity),
            subscribers: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// How many subscriptions live.
    pub(crate) fn subscribers(&self) -> usize {
        self.subscribers.load(Ordering::Relaxed)
    }

    /// A subscription to every event sent from now on.
    pub(crate) fn subscribe(&self) -> Subscription {
        self.subscribers.fetch_add(1, Ordering::Relaxed);
        Subscription {
            receiver: self.sender.subscribe(),
            subscribers: Arc::clone(&self.subscribers),
        }
    }

    /// Gives subscribers an event (none may be listening: events are for whoever watches).
    pub(crate) fn send(&self, event: Arc<RunEvent>) {
        let _ = self.sender.send(event);
    }
}

/// A run's [`ReportSink`]: each report of its calls, as a [`RunEvent::ToolReport`] to the
/// subscribers watching (sinks keep finished calls only).
pub(crate) struct RunReports {
    sender: broadcast::Sender<Arc<RunEvent>>,
    subscribers: Arc<AtomicUsize>,
    run_id: RunId,
}

impl ReportSink for RunReports {
    fn report(&self, call_id: &str, report: CallReport) {
        if self.subscribers.load(Ordering::Relaxed) == 0 {
            return;
        }
        let _ = self.sender.send(Arc::new(RunEvent::ToolReport {
            run_id: self.run_id.clone(),
            call_id: call_id.to_owned(),
            report,
        }));
    }
}

impl Channel {
    /// A sink that shows the reports of the calls of run `run_id` to subscribers.
    pub(crate) fn reports(&self, run_id: &RunId) -> RunReports {
        RunReports {
            sender: self.sender.clone(),
            subscribers: Arc::clone(&self.subscribers),
            run_id: run_id.clone(),
        }
    }
}

/// Every run's events as the recorder records them, from the moment it was made by
/// [`Recorder::subscribe`](super::Recorder::subscribe). While one exists, runs are recorded;
/// once every one is dropped (and with no sink), none is.
pub struct Subscription {
    receiver: broadcast::Receiver<Arc<RunEvent>>,
    subscribers: Arc<AtomicUsize>,
}

impl Subscription {
    /// The next event. [`RecvError::Lagged`](broadcast::error::RecvError::Lagged) says how many
    /// events a follower more than [`EVENT_BUFFER`](crate::limits::EVENT_BUFFER)
    /// events behind missed; [`RecvError::Closed`](broadcast::error::RecvError::Closed) that the
    /// recorder is gone. Cancel-safe: a receive given up (in a `select!`, say) takes no event,
    /// and the next one gets it.
    pub async fn recv(&mut self) -> Result<Arc<RunEvent>, broadcast::error::RecvError> {
        self.receiver.recv().await
    }

    /// The next event if one is waiting, without waiting.
    pub fn try_recv(&mut self) -> Result<Arc<RunEvent>, broadcast::error::TryRecvError> {
        self.receiver.try_recv()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.subscribers.fetch_sub(1, Ordering::Relaxed);
    }
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Missed events count as waiting until the subscriber is told of them.
        f.debug_struct("Subscription")
            .field("waiting", &self.receiver.len())
            .finish_non_exhaustive()
    }
}

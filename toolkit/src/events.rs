//! The live event stream of runs: what subscribers and sinks are told, step by step.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde::Serialize;
use tokio::sync::broadcast;

use crate::bound::echo;
use crate::recorder::{RunId, ToolInvocation};
use crate::trace::{RunStep, StepKind, Termination};

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

/// Something that happened in a run. Only the [`Recorder`](crate::Recorder) makes events:
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

    /// `StepStarted`, naming the tool of a tool step (cut and escaped like every echoed name).
    pub(crate) fn step_started(
        run_id: &RunId,
        index: usize,
        kind: StepKind,
        tool: Option<&str>,
    ) -> Self {
        RunEvent::StepStarted {
            run_id: run_id.clone(),
            index,
            kind,
            tool: tool.map(echo),
        }
    }

    /// The event of a finished step: `ToolInvoked` for a tool step, `StepFinished` for others.
    pub(crate) fn step_finished(run_id: &RunId, index: usize, step: &RunStep) -> Self {
        match step {
            RunStep::Tool(invocation) => Self::tool_invoked(run_id, index, invocation),
            other => RunEvent::StepFinished {
                run_id: run_id.clone(),
                index,
                step: other.clone(),
            },
        }
    }

    /// `ToolInvoked`: a tool step's call, shared with whoever else holds it.
    pub(crate) fn tool_invoked(
        run_id: &RunId,
        index: usize,
        invocation: &Arc<ToolInvocation>,
    ) -> Self {
        RunEvent::ToolInvoked {
            run_id: run_id.clone(),
            index,
            invocation: Arc::clone(invocation),
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
            | RunEvent::ToolInvoked { run_id, .. }
            | RunEvent::Done { run_id, .. }
            | RunEvent::Error { run_id, .. } => run_id,
        }
    }
}

/// The channel subscribers read. Every message carries its events' number (how many events all
/// runs published before it), so a subscriber that falls behind is told exactly how many events
/// it missed although a single call's events travel in one message.
pub(crate) struct Channel {
    sender: broadcast::Sender<Published>,
    /// Events published so far. Numbered and sent under this lock, so that numbers follow the
    /// channel's order whatever the threads sending.
    published: Arc<Mutex<u64>>,
    /// Live [`Subscription`]s, counted apart from the channel (whose count takes its lock):
    /// every call reads this to know whether to record at all.
    subscribers: Arc<AtomicUsize>,
}

impl Channel {
    /// A channel holding the last `capacity` messages for subscribers that fall behind.
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            sender: broadcast::Sender::new(capacity),
            published: Arc::new(Mutex::new(0)),
            subscribers: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// How many subscriptions live.
    pub(crate) fn subscribers(&self) -> usize {
        self.subscribers.load(Ordering::Relaxed)
    }

    /// A subscription to every event published from now on.
    pub(crate) fn subscribe(&self) -> Subscription {
        self.subscribers.fetch_add(1, Ordering::Relaxed);
        let published = lock(&self.published);
        // Under the lock: the first message it receives is numbered `next`.
        Subscription {
            receiver: self.sender.subscribe(),
            next: *published,
            unread: None,
            published: Arc::clone(&self.published),
            subscribers: Arc::clone(&self.subscribers),
        }
    }

    /// Gives subscribers an event (none may be listening: events are for whoever watches).
    pub(crate) fn send(&self, event: Arc<RunEvent>) {
        self.publish(Batch::Event(event));
    }

    /// Gives subscribers a single call's `RunStarted` and `StepStarted` at once, each in a
    /// message of its own, for a call that waits (its last two follow with
    /// [`CallPart::Finish`]).
    pub(crate) fn send_call_start(&self, run_id: &RunId, name: &str) {
        for which in 0..2 {
            self.send(Arc::new(call_start(run_id, name, which)));
        }
    }

    /// Gives subscribers a single call's events, in one message; each is made when a
    /// subscriber first reads it (see [`CallEvents`]).
    pub(crate) fn send_call(&self, run_id: RunId, invocation: Arc<ToolInvocation>, part: CallPart) {
        let events = CallEvents {
            run_id,
            invocation,
            made: Default::default(),
        };
        self.publish(Batch::Call(Arc::new(events), part));
    }

    /// How many events were published so far.
    #[cfg(test)]
    pub(crate) fn published(&self) -> u64 {
        *lock(&self.published)
    }

    fn publish(&self, events: Batch) {
        let mut published = lock(&self.published);
        let number = *published;
        *published += events.len() as u64;
        let _ = self.sender.send(Published { number, events });
    }
}

fn lock(count: &Mutex<u64>) -> std::sync::MutexGuard<'_, u64> {
    // Nothing panics while holding it; a poisoned count is still the count.
    count.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One message of the channel: events and the number of the first.
#[derive(Clone)]
struct Published {
    number: u64,
    events: Batch,
}

/// The events of one message.
#[derive(Clone)]
enum Batch {
    /// An event its sender made.
    Event(Arc<RunEvent>),
    /// A single call's events.
    Call(Arc<CallEvents>, CallPart),
}

impl Batch {
    fn len(&self) -> usize {
        match self {
            Batch::Event(_) => 1,
            Batch::Call(_, part) => 4 - part.first(),
        }
    }

    /// The event at `offset` (below [`len`](Self::len)).
    fn get(&self, offset: usize) -> Arc<RunEvent> {
        match self {
            Batch::Event(event) => Arc::clone(event),
            Batch::Call(events, part) => events.event(part.first() + offset),
        }
    }
}

/// The events of a single call watched by subscribers alone (no sink waits for them), made when
/// a subscriber first reads each, once for all of them: a call whose subscribers fall behind,
/// or never read, makes none, and its caller sends one message.
struct CallEvents {
    run_id: RunId,
    invocation: Arc<ToolInvocation>,
    made: [OnceLock<Arc<RunEvent>>; 4],
}

/// Which of a single call's events a message carries.
#[derive(Clone, Copy)]
pub(crate) enum CallPart {
    /// All four: `RunStarted`, `StepStarted`, `ToolInvoked` and `Done`.
    All,
    /// `ToolInvoked` and `Done`, for a call whose start went out before it waited.
    Finish,
}

impl CallPart {
    /// The position of its first event among the four.
    fn first(self) -> usize {
        match self {
            CallPart::All => 0,
            CallPart::Finish => 2,
        }
    }
}

impl CallEvents {
    /// The event at `which` among the four (`RunStarted`, `StepStarted`, `ToolInvoked`, `Done`),
    /// made by the first reader.
    fn event(&self, which: usize) -> Arc<RunEvent> {
        Arc::clone(self.made[which].get_or_init(|| Arc::new(self.make(which))))
    }

    fn make(&self, which: usize) -> RunEvent {
        let (run_id, invocation) = (&self.run_id, &self.invocation);
        match which {
            0 | 1 => call_start(run_id, invocation.name(), which),
            2 => RunEvent::tool_invoked(run_id, 0, invocation),
            _ => RunEvent::done(run_id, Termination::Answered, invocation.content()),
        }
    }
}

/// A single call's first events, by position: `RunStarted` (0), titled by the tool's name, and
/// then `StepStarted` (1) of its one tool step.
fn call_start(run_id: &RunId, name: &str, which: usize) -> RunEvent {
    if which == 0 {
        RunEvent::run_started(run_id, RunKind::Call, name)
    } else {
        RunEvent::step_started(run_id, 0, StepKind::Tool, Some(name))
    }
}

/// Every run's events as the recorder records them, from the moment it was made by
/// [`Recorder::subscribe`](crate::Recorder::subscribe). While one exists, runs are recorded;
/// once every one is dropped (and with no sink), none is.
pub struct Subscription {
    receiver: broadcast::Receiver<Published>,
    /// The number of the next event to give, or to report missed.
    next: u64,
    /// A message taken from the channel whose events are not all given yet, and where they
    /// go on.
    unread: Option<(Batch, usize)>,
    published: Arc<Mutex<u64>>,
    subscribers: Arc<AtomicUsize>,
}

impl Subscription {
    /// The next event. [`RecvError::Lagged`](broadcast::error::RecvError::Lagged) says how many
    /// events a follower more than [`Recorder::EVENT_BUFFER`](crate::Recorder::EVENT_BUFFER)
    /// messages behind missed; [`RecvError::Closed`](broadcast::error::RecvError::Closed) that
    /// the recorder is gone. Cancel-safe: a receive given up (in a `select!`, say) takes no
    /// event, and the next one gets it.
    pub async fn recv(&mut self) -> Result<Arc<RunEvent>, broadcast::error::RecvError> {
        use broadcast::error::RecvError;
        loop {
            if let Some(event) = self.next_unread() {
                return Ok(event);
            }
            match self.receiver.recv().await {
                Ok(message) => {
                    if let Some(missed) = self.take(message) {
                        return Err(RecvError::Lagged(missed));
                    }
                }
                // The next message's number says how many events that was.
                Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => return Err(RecvError::Closed),
            }
        }
    }

    /// The next event if one is waiting, without waiting.
    pub fn try_recv(&mut self) -> Result<Arc<RunEvent>, broadcast::error::TryRecvError> {
        use broadcast::error::TryRecvError;
        loop {
            if let Some(event) = self.next_unread() {
                return Ok(event);
            }
            match self.receiver.try_recv() {
                Ok(message) => {
                    if let Some(missed) = self.take(message) {
                        return Err(TryRecvError::Lagged(missed));
                    }
                }
                Err(TryRecvError::Lagged(_)) => {}
                Err(error) => return Err(error),
            }
        }
    }

    /// The next event of the message being read, if it has one left.
    fn next_unread(&mut self) -> Option<Arc<RunEvent>> {
        let (events, offset) = self.unread.as_mut()?;
        if *offset == events.len() {
            self.unread = None;
            return None;
        }
        let event = events.get(*offset);
        *offset += 1;
        self.next += 1;
        Some(event)
    }

    /// Reads on from `message`; how many events were missed before it, if any were.
    fn take(&mut self, message: Published) -> Option<u64> {
        let missed = message.number.saturating_sub(self.next);
        self.next = message.number;
        self.unread = Some((message.events, 0));
        (missed > 0).then_some(missed)
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
        let waiting = lock(&self.published).saturating_sub(self.next);
        f.debug_struct("Subscription")
            .field("waiting", &waiting)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{Batch, CallPart, RunEvent};
    use crate::testing::Fixed;
    use crate::{Recorder, Seam, ToolArtifact, ToolCall, ToolContext, ToolResult};

    #[test]
    fn a_call_watched_by_subscribers_alone_is_one_message_whose_events_are_made_when_read() {
        let registry = Fixed::answering("shows", || {
            ToolResult::text_with("two rows", [ToolArtifact::text("Note", "for people")])
        })
        .alone();
        let seam = Seam::new(registry);
        let scope = seam.scope(ToolContext::new()).unwrap();
        let recorder = Recorder::new();
        let mut reader = recorder.subscribe();
        let mut other = recorder.subscribe();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let call = ToolCall::new("call_1", "shows", "{}");
        let observed = runtime.block_on(recorder.call(&seam, &scope, "mcp", &call));

        let message = reader.receiver.try_recv().expect("one message");
        assert!(reader.receiver.try_recv().is_err(), "and only one");
        assert_eq!(message.number, 0);
        let Batch::Call(events, CallPart::All) = &message.events else {
            panic!("the call's four events in one message");
        };
        let events = Arc::clone(events);
        assert!(Arc::ptr_eq(&events.invocation, observed.record().unwrap()));
        // Sent, and nothing made: nobody has read them.
        assert!(events.made.iter().all(|made| made.get().is_none()));

        assert_eq!(reader.take(message), None, "nothing missed");
        let started = reader.try_recv().unwrap();
        assert!(matches!(&*started, RunEvent::RunStarted { title, .. } if title == "shows"));
        // Reading one makes that one, once for every subscriber.
        assert!(events.made[0].get().is_some());
        assert!(events.made[1..].iter().all(|made| made.get().is_none()));
        assert!(Arc::ptr_eq(&started, &other.try_recv().unwrap()));
        assert_eq!(format!("{reader:?}"), "Subscription { waiting: 3, .. }");
    }
}

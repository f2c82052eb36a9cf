//! The live event stream of runs: any number of subscribers, none of which can slow a run.

use std::sync::Arc;

use serde::Serialize;
use tokio::sync::broadcast;

use crate::trace::{RunStep, Termination, ToolInvocation};

/// How many events a subscriber may fall behind before it misses some (it is told how many).
pub const EVENT_BUFFER: usize = 4096;

/// Something that happened in a run.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RunEvent {
    /// A run began.
    RunStarted {
        /// The run.
        run_id: String,
    },
    /// A step began.
    StepStarted {
        /// The run.
        run_id: String,
        /// The step's position in the trace.
        index: usize,
        /// `request`, `llm`, `tool`, `suspended` or `resumed`.
        kind: &'static str,
        /// The tool's name, for a tool step.
        #[serde(skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
    },
    /// A step other than a tool call finished.
    StepFinished {
        /// The run.
        run_id: String,
        /// The step's position in the trace.
        index: usize,
        /// The step.
        step: RunStep,
    },
    /// A tool call finished: with its artifacts, for people watching.
    ToolInvoked {
        /// The run.
        run_id: String,
        /// The step's position in the trace.
        index: usize,
        /// The call.
        invocation: ToolInvocation,
    },
    /// The run stopped.
    Done {
        /// The run.
        run_id: String,
        /// Why.
        termination: Termination,
        /// The final content.
        content: String,
    },
    /// Something went wrong that the run reports but survives, or that ended it.
    Error {
        /// The run.
        run_id: String,
        /// What.
        message: String,
    },
}

/// Sends run events to every subscriber without waiting for any.
#[derive(Clone, Debug)]
pub struct EventBus {
    sender: broadcast::Sender<Arc<RunEvent>>,
}

impl Default for EventBus {
    fn default() -> Self {
        Self {
            sender: broadcast::Sender::new(EVENT_BUFFER),
        }
    }
}

impl EventBus {
    /// A new subscriber: it sees every event from now on; one that falls more than
    /// [`EVENT_BUFFER`] events behind is told how many it missed.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<RunEvent>> {
        self.sender.subscribe()
    }

    pub(crate) fn emit(&self, event: RunEvent) {
        // No subscriber is fine: events are for whoever watches.
        let _ = self.sender.send(Arc::new(event));
    }
}

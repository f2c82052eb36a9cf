//! The live event stream of runs: what subscribers and sinks are told, step by step.

use std::sync::Arc;

use serde::Serialize;

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

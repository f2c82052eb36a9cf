//! What a run did, step by step: one of the three places artifacts may go.

use std::sync::Arc;
use std::time::Duration;

use crate::ask::Asked;
use serde::Serialize;

use crate::provider::{StopReason, Usage};
use crate::recording::record::{CallDecision, RunId, ToolInvocation, duration_ms};
use crate::wire::ToolCall;

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Termination {
    /// The model answered without asking for tools.
    Answered,
    /// The iteration limit was reached while the model still asked for tools.
    MaxIterations,
    /// A call needs an operator's approval; resume with the sealed token.
    Suspended,
    /// The provider failed (after retries) or answered with something unusable.
    ProviderError,
    /// The caller cancelled the run.
    Cancelled,
    /// An operator stopped the run while it waited for approvals.
    Aborted,
    /// The model's turn was cut by its token limit ([`StopReason::Length`]) while it asked
    /// for tools: a call may be cut inside its arguments, so none of the turn's calls ran.
    Truncated,
}

impl Termination {
    /// The name used in events and the audit copy: `answered`, `max_iterations`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Answered => "answered",
            Termination::MaxIterations => "max_iterations",
            Termination::Suspended => "suspended",
            Termination::ProviderError => "provider_error",
            Termination::Cancelled => "cancelled",
            Termination::Aborted => "aborted",
            Termination::Truncated => "truncated",
        }
    }
}

/// The kind of a step, as events and the audit copy name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StepKind {
    /// The run's input.
    Request,
    /// One provider call.
    Llm,
    /// One tool call through the seam.
    Tool,
    /// The run stopped to wait for approvals.
    Suspended,
    /// The run went on after approvals.
    Resumed,
    /// Calls that need approval were decided without a question (by a policy, or by an
    /// approval for the run).
    Decided,
    /// A call's tool asked the person questions it had no answer to; the call runs again with
    /// the answers.
    Asked,
}

impl StepKind {
    /// `request`, `llm`, `tool`, `suspended`, `resumed`, `decided` or `asked`.
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Request => "request",
            StepKind::Llm => "llm",
            StepKind::Tool => "tool",
            StepKind::Suspended => "suspended",
            StepKind::Resumed => "resumed",
            StepKind::Decided => "decided",
            StepKind::Asked => "asked",
        }
    }
}

/// One step of a run.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunStep {
    /// The run's input.
    #[non_exhaustive]
    Request {
        /// Number of messages sent first (system and user).
        messages: usize,
        /// The tools offered.
        tools: Vec<String>,
    },
    /// One provider call.
    #[non_exhaustive]
    Llm {
        /// 1-based iteration.
        iteration: u32,
        /// The model's text.
        content: String,
        /// The calls it asked for.
        tool_calls: Vec<ToolCall>,
        /// Token counts.
        usage: Usage,
        /// Why the turn ended (`None` when the call failed).
        #[serde(skip_serializing_if = "Option::is_none")]
        stop_reason: Option<StopReason>,
        /// What the model thought before it answered, where its provider shows it: for people,
        /// never sent to a model (the audit copy keeps it by its privacy level).
        #[serde(skip_serializing_if = "String::is_empty")]
        thinking: String,
        /// What went wrong, when the call failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// How long the provider took.
        #[serde(with = "duration_ms")]
        duration: Duration,
    },
    /// One tool call through the seam.
    Tool(Arc<ToolInvocation>),
    /// The run stopped to wait for approvals.
    #[non_exhaustive]
    Suspended {
        /// The calls waiting for an operator.
        pending: Vec<ToolCall>,
    },
    /// The run went on (or, aborted, ended) after an operator's decisions: one per call that
    /// waited, in the turn's order.
    #[non_exhaustive]
    Resumed {
        /// What was decided about each call.
        decisions: Vec<CallDecision>,
    },
    /// Calls of a turn that need approval, decided without a question (by a policy, or by an
    /// earlier approval of their tool for the run), before any of them runs.
    #[non_exhaustive]
    Decided {
        /// What was decided about each, and by whom.
        decisions: Vec<CallDecision>,
    },
    /// One round of a call whose tool asked the person questions it had no answer to: what it
    /// asked. Nothing of the round reaches the model; the call runs again with the answers.
    #[non_exhaustive]
    Asked {
        /// The call.
        call_id: String,
        /// Its tool.
        tool: String,
        /// The questions, in the order asked.
        asked: Vec<Asked>,
    },
}

impl RunStep {
    /// The step's kind.
    pub fn kind(&self) -> StepKind {
        match self {
            RunStep::Request { .. } => StepKind::Request,
            RunStep::Llm { .. } => StepKind::Llm,
            RunStep::Tool(_) => StepKind::Tool,
            RunStep::Suspended { .. } => StepKind::Suspended,
            RunStep::Resumed { .. } => StepKind::Resumed,
            RunStep::Decided { .. } => StepKind::Decided,
            RunStep::Asked { .. } => StepKind::Asked,
        }
    }
}

/// Every step of one run, in order (a resumed run's trace holds the steps since the resume).
#[derive(Clone, Debug, Serialize)]
pub struct RunTrace {
    run_id: RunId,
    steps: Vec<RunStep>,
}

impl RunTrace {
    pub(crate) fn new(run_id: RunId, steps: Vec<RunStep>) -> Self {
        Self { run_id, steps }
    }

    /// The run's id.
    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// The steps, in order.
    pub fn steps(&self) -> &[RunStep] {
        &self.steps
    }

    /// The tool calls of the run, in order.
    pub fn invocations(&self) -> impl Iterator<Item = &ToolInvocation> + '_ {
        self.steps.iter().filter_map(|step| match step {
            RunStep::Tool(invocation) => Some(invocation.as_ref()),
            _ => None,
        })
    }
}

//! What a run did, step by step: one of the three places artifacts may go.

use std::time::Duration;

use serde::Serialize;

use crate::result::ToolArtifact;
use crate::wire::ToolCall;

/// Token counts reported by the provider.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Tokens of the prompt.
    pub input_tokens: u64,
    /// Tokens of the answer.
    pub output_tokens: u64,
}

impl Usage {
    /// Adds another call's counts.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
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
}

/// One executed call, as the trace and the event stream see it: with its bounded artifacts.
#[derive(Clone, Debug, Serialize)]
pub struct ToolInvocation {
    /// The provider's id for the call.
    pub call_id: String,
    /// The tool's name as the model spelled it.
    pub name: String,
    /// The arguments as the model sent them (cut to 50 000 bytes).
    pub arguments: String,
    /// The bounded content that went to the provider.
    pub content: String,
    /// Whether the call failed.
    pub is_error: bool,
    /// The bounded artifacts: for people only, never on the wire.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<ToolArtifact>,
    /// How long the call took in the seam.
    #[serde(with = "duration_ms")]
    pub duration: Duration,
}

/// One step of a run.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunStep {
    /// The run's input.
    Request {
        /// Number of messages sent first (system and user).
        messages: usize,
        /// The tools offered.
        tools: Vec<String>,
    },
    /// One provider call.
    Llm {
        /// 1-based iteration.
        iteration: u32,
        /// The model's text.
        content: String,
        /// The calls it asked for.
        tool_calls: Vec<ToolCall>,
        /// Token counts.
        usage: Usage,
        /// What went wrong, when the call failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// How long the provider took.
        #[serde(with = "duration_ms")]
        duration: Duration,
    },
    /// One tool call through the seam.
    Tool(ToolInvocation),
    /// The run stopped to wait for approvals.
    Suspended {
        /// The calls waiting for an operator.
        pending: Vec<ToolCall>,
    },
    /// The run went on after approvals.
    Resumed {
        /// Calls approved.
        approved: Vec<String>,
        /// Calls refused or left without a decision.
        refused: Vec<String>,
    },
}

/// Every step of one run, in order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RunTrace {
    /// The run's id.
    pub run_id: String,
    /// The steps.
    pub steps: Vec<RunStep>,
}

impl RunTrace {
    /// The tool calls of the run, in order.
    pub fn invocations(&self) -> impl Iterator<Item = &ToolInvocation> + '_ {
        self.steps.iter().filter_map(|step| match step {
            RunStep::Tool(invocation) => Some(invocation),
            _ => None,
        })
    }
}

/// Durations as milliseconds with fractions, for people reading traces.
mod duration_ms {
    use std::time::Duration;

    use serde::Serializer;

    pub fn serialize<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(duration.as_secs_f64() * 1000.0)
    }
}

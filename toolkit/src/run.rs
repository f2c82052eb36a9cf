//! The tool loop's request, options, cancel signal, result, suspension, previews and errors:
//! what [`ToolLoopService::run`](crate::ToolLoopService::run) and
//! [`resume`](crate::ToolLoopService::resume) take and give. The loop itself (ask the provider,
//! run the calls it asks for through the seam, repeat) is the service's.

use serde::Serialize;

use crate::ask::Asked;
use crate::provider::{StopReason, Usage};
use crate::recording::{RunTrace, Termination};
pub use crate::request::{RunOptions, RunRequest};
use crate::seal::TokenError;
pub use crate::seam::CancelSignal;
use crate::seam::ScopeError;
use crate::wire::{ChatMessage, ToolCall};

/// A run that waits for an operator.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Suspension {
    /// The sealed state: give it to [`ToolLoopService::resume`](crate::ToolLoopService::resume).
    pub token: String,
    /// The calls waiting for a decision.
    pub pending: Vec<ToolCall>,
    /// What the tools' previews say about the pending calls (see [`ToolSpec::with_preview`]),
    /// for the operator: one per pending call whose tool names a preview.
    ///
    /// [`ToolSpec::with_preview`]: crate::ToolSpec::with_preview
    pub previews: Vec<Preview>,
    /// The questions the tools of pending calls asked the person
    /// ([`ToolContext::ask`](crate::ToolContext::ask)): one per such call. Decide each such
    /// call with [`Decision::answer`](crate::approval::Decision::answer) (or deny it, which
    /// declines its questions); it runs again with the answers.
    pub questions: Vec<PendingQuestions>,
}

/// The questions a pending call's tool asked the person, waiting for their answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PendingQuestions {
    /// The call.
    pub call_id: String,
    /// What it asked, in order: each question's key, text and form; every character of a text
    /// that could make what a person reads differ from what it says is written out as
    /// `⟨U+XXXX⟩` ([`visible`](crate::approval::visible)).
    pub asked: Vec<Asked>,
}

/// A preview of one pending call: the answer of the tool's preview tool, run with the call's
/// arguments, bounded like any tool content. It goes to the operator only, never to the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Preview {
    /// The pending call it previews.
    pub call_id: String,
    /// The preview tool's content (its error text, if it refused).
    pub text: String,
}

/// How a run ended. Artifacts are only in [`trace`](Self::trace); the messages and the content
/// hold none.
#[derive(Debug)]
#[non_exhaustive]
pub struct ToolLoopResult {
    /// The model's final text (for a provider error, the error; empty when suspended or cancelled).
    pub content: String,
    /// Every step, tool steps with their artifacts.
    pub trace: RunTrace,
    /// Provider calls made.
    pub iterations: u32,
    /// Why it stopped.
    pub termination: Termination,
    /// Tokens used.
    pub usage: Usage,
    /// The conversation as sent to the provider.
    pub messages: Vec<ChatMessage>,
    /// Set when the run waits for approvals.
    pub suspension: Option<Suspension>,
    /// Why the model's last turn ended (`None` when no turn came in this run: the provider
    /// failed first, or the run was cancelled, aborted or suspended before asking).
    pub stop_reason: Option<StopReason>,
}

/// A run that cannot start or resume.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The request offers a tool that is not registered, or whose state the context lacks.
    #[error(transparent)]
    Scope(#[from] ScopeError),
    /// The resume token does not open.
    #[error(transparent)]
    Token(#[from] TokenError),
    /// A decision names a call that is not waiting.
    #[error("no pending call has the id \"{0}\"")]
    UnknownDecision(String),
    /// Two decisions on one call disagree.
    #[error("the call \"{0}\" has two different decisions")]
    ConflictingDecisions(String),
    /// A decision approves or edits a call that waits for answers to its tool's questions,
    /// or answers a call that asked none: nothing ran and the token is not spent.
    #[error("the call \"{call_id}\" cannot be decided so: {why}")]
    WrongDecision {
        /// The call.
        call_id: String,
        /// Which decisions it takes.
        why: &'static str,
    },
    /// An edit's arguments would not run: nothing ran and the token is not spent, so the
    /// operator can correct the edit.
    #[error("the edit of call \"{call_id}\" is refused: {message}")]
    InvalidEdit {
        /// The call edited.
        call_id: String,
        /// What the tool's call would have been told.
        message: String,
    },
}

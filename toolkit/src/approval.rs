//! What an operator (or a policy written as code) decides about a call that waits for approval,
//! in a run or, put as a [`Question`](crate::question::Question), about one call outside a
//! loop. How each decision is recorded is [`CallDecision`](crate::recording::CallDecision).

use std::panic::{self, AssertUnwindSafe};

use serde::{Deserialize, Serialize};

use crate::bound::echo;
use crate::context::ToolContext;
use crate::recording::{Decided, RunId};
use crate::seam::{CheckedEdit, approval_not_given};
use crate::spec::ToolSpec;
use crate::wire::ToolCall;

/// An operator's decision on one pending call, as a page or a client sends it:
/// `{"call_id": "w1", "choice": "approve"}`, `{"call_id": "w1", "choice": "deny", "reason":
/// ".."}`, `{"call_id": "w1", "choice": "edit", "arguments": "{..}"}` or `{"call_id": "w1",
/// "choice": "approve_for_run"}`.
///
/// It names the call by its id in the suspension's `pending`, which no other call of the turn
/// has: the loop gives a call an id of its own when the model repeated one. To stop the whole
/// run instead, see [`ToolLoopService::abort`](crate::ToolLoopService::abort).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Decision {
    /// The call decided.
    pub call_id: String,
    /// What was decided.
    #[serde(flatten)]
    pub choice: Choice,
}

/// What an operator decides on one pending call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "choice", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum Choice {
    /// The call runs.
    Approve,
    /// The call runs, and so do later calls of the same tool in this run, without a question.
    ApproveForRun,
    /// The call does not run. The model reads `reason` as the call's result (bounded and
    /// masked like any tool content); without one, it reads that the operator denied the call.
    Deny {
        /// What the model is told.
        #[serde(default)]
        reason: Option<String>,
    },
    /// The call runs with these arguments instead of the model's, once they pass the tool's
    /// checks. When the tool names a preview, the edited call waits again with the preview of
    /// the new arguments, so that nothing runs that the operator has not seen.
    Edit {
        /// The arguments, as a JSON text.
        arguments: String,
    },
}

impl Decision {
    /// Lets the call run.
    pub fn approve(call_id: impl Into<String>) -> Self {
        Self::new(call_id, Choice::Approve)
    }

    /// Lets the call run, and the later calls of its tool in this run.
    pub fn approve_for_run(call_id: impl Into<String>) -> Self {
        Self::new(call_id, Choice::ApproveForRun)
    }

    /// Refuses the call; the model reads that the operator denied it.
    pub fn deny(call_id: impl Into<String>) -> Self {
        Self::new(call_id, Choice::Deny { reason: None })
    }

    /// Refuses the call; the model reads `reason`.
    pub fn deny_with_reason(call_id: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::new(
            call_id,
            Choice::Deny {
                reason: Some(reason.into()),
            },
        )
    }

    /// Runs the call with other arguments (a JSON text).
    pub fn edit(call_id: impl Into<String>, arguments: impl Into<String>) -> Self {
        Self::new(
            call_id,
            Choice::Edit {
                arguments: arguments.into(),
            },
        )
    }

    fn new(call_id: impl Into<String>, choice: Choice) -> Self {
        Self {
            call_id: call_id.into(),
            choice,
        }
    }
}

/// What becomes of one call that waited for an operator.
pub(crate) enum Then {
    /// It runs now, approved.
    Run,
    /// It waits again (an edit to preview).
    Wait,
    /// It does not run: the model reads this.
    Refuse(String),
}

/// The tool result text for a call the operator refused.
fn denied(name: &str) -> String {
    format!("Error: tool \"{}\" was denied by the operator.", echo(name))
}

/// What an operator's choice (if any) about a waiting `call` comes to: what is recorded, and
/// what becomes of the call. `edit` is the checked edit when the choice is one; an edited call
/// of a tool that is `previewed` waits again, unless the arguments did not change.
pub(crate) fn decide(
    call: &ToolCall,
    choice: Option<&Choice>,
    edit: Option<&CheckedEdit>,
    previewed: bool,
) -> (Decided, Then) {
    match choice {
        None => (
            Decided::NotDecided,
            Then::Refuse(approval_not_given(&call.name)),
        ),
        Some(Choice::Approve) => (Decided::Approved, Then::Run),
        Some(Choice::ApproveForRun) => (Decided::ApprovedForRun, Then::Run),
        Some(Choice::Deny { reason }) => {
            let reason = reason.clone().filter(|reason| !reason.trim().is_empty());
            let text = reason.clone().unwrap_or_else(|| denied(&call.name));
            (Decided::Denied { reason }, Then::Refuse(text))
        }
        Some(Choice::Edit { .. }) => {
            let edited = &edit.expect("every edit was checked").call().arguments;
            if *edited == call.arguments {
                return (Decided::Approved, Then::Run);
            }
            let decided = Decided::Edited {
                original: call.arguments.clone(),
                arguments: edited.clone(),
            };
            (decided, if previewed { Then::Wait } else { Then::Run })
        }
    }
}

/// A call that needs approval, as a policy sees it before the run would stop for it. The seam
/// has checked it (the tool is offered, the arguments decode): a policy never sees a call that
/// could not run.
#[derive(Debug)]
#[non_exhaustive]
pub struct PendingCall<'a> {
    /// The run.
    pub run_id: &'a RunId,
    /// The call: its id, its tool and its arguments (a JSON text).
    pub call: &'a ToolCall,
    /// The tool's declaration.
    pub spec: &'a ToolSpec,
    /// What the call would do, when its tool names a preview (see
    /// [`ToolSpec::with_preview`]): the preview tool's content. An approval runs the call only
    /// while its preview, computed again just before it runs, still says this; otherwise the
    /// call waits for the operator with the new preview.
    pub preview: Option<&'a str>,
    /// What the tools of the run see.
    pub context: &'a ToolContext,
}

/// A policy's answer about one call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PolicyAnswer {
    /// The call runs without a question; the text says why (for the operator and the record).
    Approve(String),
    /// The call does not run; the model reads the text as its result (without one, that the
    /// policy denied the call).
    Deny(String),
    /// The policy has no answer: the next policy is asked, then the operator.
    Ask,
}

/// Approval by rule: code that answers for calls an operator would otherwise be asked about.
///
/// Policies registered on the service
/// ([`with_approval_policy`](crate::ToolLoopService::with_approval_policy)) are asked in order,
/// before a run stops for a call that needs approval; the first answer other than
/// [`PolicyAnswer::Ask`] decides, and the run records the policy's name with it. A policy only
/// sees calls the seam would run, and an approved call still goes through every check of the
/// seam. A policy that panics is taken to answer `Ask`.
///
/// ```
/// use toolkit::{approval::ApprovalPolicy, approval::PendingCall, approval::PolicyAnswer};
///
/// /// Never lets a call delete anything.
/// struct NoDeletes;
///
/// impl ApprovalPolicy for NoDeletes {
///     fn name(&self) -> &str {
///         "no-deletes"
///     }
///
///     fn decide(&self, pending: &PendingCall<'_>) -> PolicyAnswer {
///         if pending.call.name.starts_with("delete") {
///             PolicyAnswer::Deny("Deleting is not allowed in this workspace.".to_owned())
///         } else {
///             PolicyAnswer::Ask
///         }
///     }
/// }
/// ```
pub trait ApprovalPolicy: Send + Sync {
    /// The name recorded with each answer.
    fn name(&self) -> &str;

    /// The answer about one call.
    fn decide(&self, pending: &PendingCall<'_>) -> PolicyAnswer;
}

/// The first answer of `policies` other than `Ask`, with the name of the policy that gave it.
pub(crate) fn ask_policies(
    policies: &[std::sync::Arc<dyn ApprovalPolicy>],
    pending: &PendingCall<'_>,
) -> Option<(String, PolicyAnswer)> {
    policies.iter().find_map(|policy| {
        let answer = panic::catch_unwind(AssertUnwindSafe(|| policy.decide(pending)))
            .unwrap_or_else(|_| {
                tracing::error!(policy = policy.name(), "an approval policy panicked");
                PolicyAnswer::Ask
            });
        (answer != PolicyAnswer::Ask).then(|| (policy.name().to_owned(), answer))
    })
}

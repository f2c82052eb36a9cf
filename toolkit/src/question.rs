//! Approval outside a loop: one call of a tool that requires approval, put to one person as a
//! [`Question`] (an MCP server asks its host's user through elicitation) and answered once. The
//! person decides with the same [`Choice`](crate::approval::Choice)s as an operator of a suspended run, and the call is
//! recorded as a run of one call with the decisions.

use serde::{Deserialize, Serialize};

use crate::recording::{CallDecision, Decided};
use crate::wire::ToolCall;

/// One call of a tool that requires approval, checked as the seam checks a call and shown with
/// its preview, waiting for one person's answer outside a loop: an MCP server asks its host's
/// user through elicitation. Only [`ToolLoopService::question`](crate::ToolLoopService::question) makes one and only
/// [`ToolLoopService::answer`](crate::ToolLoopService::answer) (or [`run_approved_earlier`](crate::ToolLoopService::run_approved_earlier))
/// spends it: an approval it comes to covers this call only, its id, its tool and its argument
/// bytes.
#[derive(Debug)]
pub struct Question {
    pub(crate) call: ToolCall,
    pub(crate) preview: Option<String>,
    /// The person's earlier answers about this call (edits of a previewed tool's arguments,
    /// approvals that did not run because the preview changed), recorded with the last one.
    pub(crate) earlier: Vec<CallDecision>,
}

impl Question {
    /// The call asked about: after an edit, with the edited arguments.
    pub fn call(&self) -> &ToolCall {
        &self.call
    }

    /// What the preview tool the call's tool names shows of it (for `edit_file`, the diff);
    /// `None` when its tool names none.
    pub fn preview(&self) -> Option<&str> {
        self.preview.as_deref()
    }

    /// How many times the person edited the call's arguments before this question.
    pub fn edits(&self) -> usize {
        self.earlier
            .iter()
            .filter(|earlier| matches!(earlier.decided, Decided::Edited { .. }))
            .count()
    }

    /// What another process needs to answer this question
    /// ([`ToolLoopService::answer_kept`](crate::ToolLoopService::answer_kept)): a server that keeps waiting questions in a store
    /// several instances share keeps this.
    pub fn keep(&self) -> KeptQuestion {
        KeptQuestion {
            call: self.call.clone(),
            preview: self.preview.clone(),
            earlier: self.earlier.clone(),
        }
    }
}

/// A [`Question`] as kept between requests, perhaps by another process: its call, the preview
/// it was shown with and the earlier answers, as JSON. It is not a question:
/// [`ToolLoopService::answer_kept`](crate::ToolLoopService::answer_kept) checks its call again before it applies an answer, and an
/// approval runs the call only while its preview is still the one kept here.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptQuestion {
    pub(crate) call: ToolCall,
    pub(crate) preview: Option<String>,
    pub(crate) earlier: Vec<CallDecision>,
}

impl KeptQuestion {
    /// The call asked about.
    pub fn call(&self) -> &ToolCall {
        &self.call
    }

    /// The preview the person was shown when the question was kept.
    pub fn preview(&self) -> Option<&str> {
        self.preview.as_deref()
    }
}

/// What [`ToolLoopService::decline`](crate::ToolLoopService::decline) refuses: a call not asked about yet (`From<ToolCall>`),
/// or a [`Question`] with the person's earlier answers about it.
#[derive(Debug)]
pub struct Unasked {
    pub(crate) call: ToolCall,
    pub(crate) earlier: Vec<CallDecision>,
}

impl From<ToolCall> for Unasked {
    fn from(call: ToolCall) -> Self {
        Self {
            call,
            earlier: Vec::new(),
        }
    }
}

impl From<Question> for Unasked {
    fn from(question: Question) -> Self {
        Self {
            call: question.call,
            earlier: question.earlier,
        }
    }
}

/// A question to put to the person again, instead of a result: they changed the arguments of a
/// tool that shows a preview (asked again with the new preview, so that nothing runs that they
/// have not seen), gave arguments that fail the tool's checks (asked again, saying why), or
/// approved a call whose preview changed since they were shown it (asked again with the preview
/// as it is now: see [`preview_changed`](Self::preview_changed)).
#[derive(Debug)]
pub struct AskAgain {
    pub(crate) question: Question,
    pub(crate) why: Option<String>,
    pub(crate) preview_changed: bool,
}

impl AskAgain {
    /// `call` asked about again because its preview is `now` (`None`: none can be made now),
    /// not the one its approver saw.
    pub(crate) fn preview_changed_to(
        call: ToolCall,
        now: Option<String>,
        earlier: Vec<CallDecision>,
    ) -> Self {
        Self {
            question: Question {
                call,
                preview: now,
                earlier,
            },
            why: None,
            preview_changed: true,
        }
    }

    /// The question to ask now.
    pub fn question(&self) -> &Question {
        &self.question
    }

    /// Why the arguments given were not taken (the text the call would get), if they were not.
    pub fn why(&self) -> Option<&str> {
        self.why.as_deref()
    }

    /// Whether the person approved, but what the call would do changed after they were shown
    /// it (its preview, computed again just before it would have run, was another): nothing
    /// ran, and the question shows the preview as it is now.
    pub fn preview_changed(&self) -> bool {
        self.preview_changed
    }

    /// The question, to answer.
    pub fn into_question(self) -> Question {
        self.question
    }
}

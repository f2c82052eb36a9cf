//! A tool's questions to the person (`ToolContext::ask`) over MCP. A call runs with the answers
//! it has; when its tool asks what it has no answer to, the person is asked and the call runs
//! again:
//! - a 2025-11-25 session asks with `elicitation/create`, one form per question, and runs the
//!   call again in the same request;
//! - a 2026-07-28 request answers `input_required`: one form per question under its key, and a
//!   `requestState` that names what was asked, kept in the server's store (any instance of a
//!   fleet takes it) until the client retries with `inputResponses`. A state is taken once, for
//!   the same tool and arguments only, within the time to answer; an answer without the state
//!   of its question is not taken, and a state that is unknown, used, expired or for another
//!   call is an error.

use std::time::Duration;

use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    InputRequest, InputRequiredResult,
};
use serde::{Deserialize, Serialize};
use toolkit::talk::{Answer, Answers, Asked};

use crate::approvals::question_key;
use crate::store::{BackendError, QUESTIONS, SharedStore};

/// The form that asks `asked`, or why a form cannot (rmcp's forms take a subset of JSON
/// Schema).
pub(super) fn form(asked: &Asked) -> Result<ElicitRequestParams, String> {
    let requested_schema: ElicitationSchema = serde_json::from_value(asked.form().clone())
        .map_err(|error| format!("its form is not one MCP can ask ({error})"))?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        // Every hidden character written out, as in an approval's form.
        message: toolkit::approval::visible(asked.message()).into_owned(),
        requested_schema,
    })
}

/// What the person did, as the tool hears it: no answer (the client could not ask, or time
/// ran out) is a dismissal.
pub(super) fn answer(result: Option<ElicitResult>) -> Answer {
    match result {
        Some(result) => match result.action {
            ElicitationAction::Accept => {
                Answer::accept(result.content.unwrap_or(serde_json::Value::Null))
            }
            ElicitationAction::Decline => Answer::Decline,
            _ => Answer::Cancel,
        },
        None => Answer::Cancel,
    }
}

/// The answer a 2026-07-28 client sent for one question (an `ElicitResult`), or a dismissal
/// when it is not one.
pub(super) fn answer_sent(sent: &serde_json::Value) -> Answer {
    answer(serde_json::from_value::<ElicitResult>(sent.clone()).ok())
}

/// A 2026-07-28 call's questions while the client asks the person: the answers so far, the
/// keys asked in the last round, and how many rounds it took.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Kept {
    answers: Answers,
    asked: Vec<String>,
    rounds: usize,
}

impl Kept {
    /// The answers so far and those `responses` give to the questions of the last round (a
    /// key the round did not ask is ignored).
    pub(super) fn answers_with(
        mut self,
        responses: Option<&rmcp::model::InputResponses>,
    ) -> (Answers, usize) {
        for key in &self.asked {
            if let Some(sent) = responses.and_then(|responses| responses.get(key)) {
                self.answers.insert(key.clone(), answer_sent(sent));
            }
        }
        (self.answers, self.rounds)
    }
}

/// Why a 2026-07-28 retry's state gives no answers.
pub(super) enum Unkept {
    /// No question is kept under it for this call: unknown, taken already, or another call's.
    Unknown,
    /// Its time to answer passed.
    Expired,
    /// The store could not be read.
    Store(BackendError),
}

/// The questions kept under `state` for this call (its tool and arguments), taken out of the
/// store: each state answers once, on whichever instance.
pub(super) async fn take(
    store: &dyn SharedStore,
    state: &str,
    name: &str,
    arguments: &str,
) -> Result<Kept, Unkept> {
    let key = question_key(state, name, arguments);
    match store.take(QUESTIONS, &key).await {
        Ok(Some((value, true))) => {
            serde_json::from_slice(&value).map_err(|error| Unkept::Store(BackendError::new(error)))
        }
        Ok(Some((_, false))) => Err(Unkept::Expired),
        Ok(None) => Err(Unkept::Unknown),
        Err(error) => Err(Unkept::Store(error)),
    }
}

/// Keeps the questions `asked` of this call with the answers so far, for `within`: the
/// `input_required` reply that asks the client for them (a question MCP cannot ask is left
/// out, and the call's next round says it was dismissed).
pub(super) async fn ask_later(
    store: &dyn SharedStore,
    (name, arguments): (&str, &str),
    answers: Answers,
    asked: &[Asked],
    rounds: usize,
    within: Duration,
) -> Result<InputRequiredResult, BackendError> {
    let state = uuid::Uuid::new_v4().simple().to_string();
    let mut requests = std::collections::HashMap::new();
    let mut answers = answers;
    for question in asked {
        match form(question) {
            Ok(form) => {
                requests.insert(
                    question.key().to_owned(),
                    InputRequest::Elicitation(ElicitRequest::new(form)),
                );
            }
            Err(why) => {
                tracing::warn!(key = question.key(), %why, "a tool's question cannot be asked");
                answers.insert(question.key(), Answer::Cancel);
            }
        }
    }
    let kept = Kept {
        answers,
        asked: asked
            .iter()
            .map(|question| question.key().to_owned())
            .collect(),
        rounds,
    };
    let value = serde_json::to_vec(&kept).map_err(BackendError::new)?;
    store
        .put(
            QUESTIONS,
            &question_key(&state, name, arguments),
            value,
            within,
        )
        .await?;
    let mut result = InputRequiredResult::from_request_state(state);
    result.input_requests = Some(requests.into_iter().collect());
    Ok(result)
}

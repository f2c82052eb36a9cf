//! Approvals by elicitation: a call of a tool that requires approval, from a client that answers
//! form elicitation, is put to the host's user as a form (`elicitation/create`): the tool, its
//! arguments and its preview (for `edit_file`, the diff), with the choices of a suspended run's
//! operator. The answer decides the call through the service's
//! [`Question`], so an approval covers that call only.
//!
//! On a session (2025-11-25, stdio) the server asks while the call waits, and gives up after
//! the time limit. On the stateless revision (2026-07-28) it answers the call with
//! `input_required`, holding the question under an opaque `requestState`, and the client retries
//! the call with the user's answer.

use std::time::Duration;

use base64::Engine as _;
use rmcp::model::{
    ClientCapabilities, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequiredResult,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use toolkit::approval::Choice;
use toolkit::bound::echo;
use toolkit::question::{AskAgain, KeptQuestion, Question};

use crate::store::{QUESTIONS, SharedStore, StoreError};

/// How long a person has to answer before the call is not approved.
pub const APPROVAL_TIMEOUT: Duration = Duration::from_mins(5);

/// How many forms one call may take (an edit of a previewed tool, or arguments that did not
/// pass, asks again); past that, the call is not approved.
pub const MAX_FORMS: usize = 8;

/// The key of the form among a stateless reply's `inputRequests`.
pub(crate) const INPUT_KEY: &str = "approval";

/// The `decision` values of the form.
const APPROVE: &str = "approve";
const DENY: &str = "deny";
const EDIT: &str = "edit";
const APPROVE_FOR_SESSION: &str = "approve_for_session";

/// Whether these client capabilities answer form elicitation (an `elicitation` capability
/// without modes means forms).
pub(crate) fn answers_forms(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        .is_some_and(|modes| modes.form.is_some() || modes.url.is_none())
}

/// What a form that asks again says first: why the last arguments were not taken, or that the
/// call's preview changed after it was shown, so the approval given did not run it.
pub(crate) fn asked_again(again: &AskAgain) -> Option<String> {
    if again.preview_changed() {
        return Some(
            "What this call would do changed after you were shown it, so it was not run. \
             This is what it would do now."
                .to_owned(),
        );
    }
    again
        .why()
        .map(|why| format!("Those arguments were not taken: {why}"))
}

/// The form that asks about `question`; `session` offers approval of the tool for the rest of
/// the session, `note` (see [`asked_again`]) says why it is asked again.
pub(crate) fn form(question: &Question, session: bool, note: Option<&str>) -> ElicitRequestParams {
    let call = question.call();
    let tool = echo(&call.name);
    let arguments = serde_json::from_str::<Value>(&call.arguments)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| call.arguments.clone());
    let note = note.map_or_else(String::new, |note| format!("{note}\n\n"));
    let preview = question.preview().map_or_else(String::new, |preview| {
        format!("\nWhat it would do:\n{preview}\n")
    });
    let message = format!(
        "{note}Approve this call of tool \"{tool}\"?\n\nArguments:\n{arguments}\n{preview}"
    );
    let mut choices = vec![
        json!({"const": APPROVE, "title": "Approve this call"}),
        json!({"const": DENY, "title": "Deny it"}),
        json!({"const": EDIT, "title": "Run it with the arguments below instead"}),
    ];
    if session {
        choices.push(json!({
            "const": APPROVE_FOR_SESSION,
            "title": format!("Approve it, and later calls of \"{tool}\" in this session"),
        }));
    }
    let schema = json!({
        "type": "object",
        "properties": {
            "decision": {"type": "string", "title": "Decision", "oneOf": choices},
            "reason": {
                "type": "string",
                "title": "Reason",
                "description": "For a denial: what the model is told instead of the result.",
            },
            "arguments": {
                "type": "string",
                "title": "Arguments",
                "description": "For an edit: the arguments to run it with, as JSON.",
                "default": call.arguments,
            },
        },
        "required": ["decision"],
    });
    let requested_schema: ElicitationSchema =
        serde_json::from_value(schema).expect("a schema of primitive properties");
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    }
}

/// What a person's answer comes to: `None` when none came (in time) or it chose nothing this
/// form offers. Declining or cancelling the form denies the call.
pub(crate) fn choice(answer: Option<ElicitResult>, session: bool) -> Option<Choice> {
    let answer = answer?;
    // Declining, cancelling, and whatever else a later revision adds, is no approval.
    if answer.action != ElicitationAction::Accept {
        return Some(Choice::Deny { reason: None });
    }
    let content = answer.content.unwrap_or(Value::Null);
    let text = |key: &str| content.get(key).and_then(Value::as_str).map(str::to_owned);
    match text("decision")?.as_str() {
        APPROVE => Some(Choice::Approve),
        APPROVE_FOR_SESSION if session => Some(Choice::ApproveForRun),
        DENY => Some(Choice::Deny {
            reason: text("reason"),
        }),
        EDIT => Some(Choice::Edit {
            arguments: text("arguments").unwrap_or_default(),
        }),
        _ => None,
    }
}

/// A stateless client's call that waits for its user's answer.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Waiting {
    /// The question, as the last form put it.
    pub(crate) question: KeptQuestion,
    /// How many forms it took so far.
    pub(crate) forms: usize,
    /// Whether the time to answer has passed.
    #[serde(skip)]
    pub(crate) expired: bool,
}

/// The key a question is kept under in the store: its `requestState` (a random, version 4,
/// UUID given to one client) and the call the client must send again, its tool and arguments,
/// so that another call with that state takes nothing.
fn waiting_key(state: &str, name: &str, arguments: &str) -> String {
    let mut call = Sha256::new();
    call.update(name.as_bytes());
    call.update([0]);
    call.update(arguments.as_bytes());
    let call = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(call.finalize());
    format!("{state}:{call}")
}

/// Keeps `question` in `store`, asked about a call of `name` with `arguments` for the
/// `forms`-th time, for `within`: the reply that asks the client for the answer to `form`.
pub(crate) async fn ask_later(
    store: &dyn SharedStore,
    (name, arguments): (&str, &str),
    question: &Question,
    forms: usize,
    form: ElicitRequestParams,
    within: Duration,
) -> Result<InputRequiredResult, StoreError> {
    let state = uuid::Uuid::new_v4().simple().to_string();
    let waiting = Waiting {
        question: question.keep(),
        forms,
        expired: false,
    };
    let value = serde_json::to_vec(&waiting).map_err(StoreError::new)?;
    let key = waiting_key(&state, name, arguments);
    store.put(QUESTIONS, &key, value, within).await?;
    let request = InputRequest::Elicitation(ElicitRequest::new(form));
    let mut result = InputRequiredResult::from_request_state(state);
    result.input_requests = Some([(INPUT_KEY.to_owned(), request)].into());
    Ok(result)
}

/// The question kept under `state` for this same call (its tool and its arguments), taken
/// out of `store`: each is answered once, on whichever instance.
pub(crate) async fn take_waiting(
    store: &dyn SharedStore,
    state: &str,
    name: &str,
    arguments: &str,
) -> Result<Option<Waiting>, StoreError> {
    let key = waiting_key(state, name, arguments);
    let Some((value, live)) = store.take(QUESTIONS, &key).await? else {
        return Ok(None);
    };
    let mut waiting: Waiting = serde_json::from_slice(&value).map_err(StoreError::new)?;
    waiting.expired = !live;
    Ok(Some(waiting))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;
    use crate::testing::Answers;
    use rmcp::model::{ElicitationCapability, FormElicitationCapability, UrlElicitationCapability};
    use toolkit::{ToolCall, ToolContext, ToolLoopService, ToolRegistry, ToolSpec};

    fn answered(action: ElicitationAction, content: Option<Value>) -> ElicitResult {
        let mut result = ElicitResult::new(action);
        result.content = content;
        result
    }

    #[test]
    fn each_answer_comes_to_its_choice() {
        let accept = |content: Value| Some(answered(ElicitationAction::Accept, Some(content)));
        assert_eq!(
            choice(accept(json!({"decision": "approve"})), false),
            Some(Choice::Approve)
        );
        assert_eq!(
            choice(accept(json!({"decision": "deny", "reason": "no"})), false),
            Some(Choice::Deny {
                reason: Some("no".to_owned())
            })
        );
        assert_eq!(
            choice(
                accept(json!({"decision": "edit", "arguments": "{}"})),
                false
            ),
            Some(Choice::Edit {
                arguments: "{}".to_owned()
            })
        );
        // An edit without arguments is an edit of none: the tool's checks say what is wrong.
        assert_eq!(
            choice(accept(json!({"decision": "edit"})), false),
            Some(Choice::Edit {
                arguments: String::new()
            })
        );
        // Approval for the session only where the form offered it.
        let session = json!({"decision": "approve_for_session"});
        assert_eq!(
            choice(accept(session.clone()), true),
            Some(Choice::ApproveForRun)
        );
        assert_eq!(choice(accept(session), false), None);
        // Nothing chosen, or something not offered, is no decision; no answer neither.
        assert_eq!(choice(accept(json!({})), true), None);
        assert_eq!(choice(accept(json!({"decision": "yes"})), true), None);
        assert_eq!(
            choice(Some(answered(ElicitationAction::Accept, None)), true),
            None
        );
        assert_eq!(choice(None, true), None);
        for action in [ElicitationAction::Decline, ElicitationAction::Cancel] {
            assert_eq!(
                choice(
                    Some(answered(action, Some(json!({"decision": "approve"})))),
                    true
                ),
                Some(Choice::Deny { reason: None })
            );
        }
    }

    #[test]
    fn forms_are_answered_by_clients_that_declare_them_or_declare_no_mode() {
        let with = |elicitation: Option<ElicitationCapability>| {
            let mut capabilities = ClientCapabilities::default();
            capabilities.elicitation = elicitation;
            answers_forms(&capabilities)
        };
        assert!(!with(None));
        assert!(with(Some(ElicitationCapability::new())));
        assert!(with(Some(
            ElicitationCapability::new().with_form(FormElicitationCapability::default())
        )));
        assert!(!with(Some(
            ElicitationCapability::new().with_url(UrlElicitationCapability::default())
        )));
    }

    /// A question about a call of `guarded`, a tool that requires approval.
    async fn question(arguments: &str) -> Question {
        let mut registry = ToolRegistry::new();
        registry
            .register(Answers(
                ToolSpec::new("guarded", "Guarded.", json!({"type": "object"}))
                    .with_flags(toolkit::spec::ToolFlags::new().with_requires_approval(true)),
                |_| toolkit::ToolResult::text("done"),
            ))
            .expect("a new name");
        let service = ToolLoopService::new(registry);
        let scope = service.scope(ToolContext::new()).expect("a scope");
        service
            .question(&scope, "test", ToolCall::new("g1", "guarded", arguments))
            .await
            .expect("a question")
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiting_question_is_taken_once_by_the_same_call_and_expires() {
        let store = MemoryStore::default();
        let asked = question("{}").await;
        let form = form(&asked, false, None);
        let call = ("guarded", "{}");
        let reply = ask_later(&store, call, &asked, 1, form, TIMEOUT_FOR_TEST)
            .await
            .expect("kept");
        let state = reply.request_state.clone().expect("a state");
        assert_eq!(state.len(), 32);
        let requests = reply.input_requests.expect("the form");
        assert_eq!(requests.keys().collect::<Vec<_>>(), [INPUT_KEY]);

        // Another call (other arguments, another tool) or another state takes nothing.
        let take = |state: &str, name: &'static str, arguments: &'static str| {
            let (store, state) = (&store, state.to_owned());
            async move {
                take_waiting(store, &state, name, arguments)
                    .await
                    .expect("a memory store answers")
            }
        };
        assert!(take(&state, "guarded", r#"{"a":1}"#).await.is_none());
        assert!(take(&state, "other", "{}").await.is_none());
        assert!(
            take("0123456789abcdef0123456789abcdef", "guarded", "{}")
                .await
                .is_none()
        );
        let taken = take(&state, "guarded", "{}").await.expect("waiting");
        assert_eq!((taken.forms, taken.expired), (1, false));
        assert_eq!(taken.question, asked.keep());
        assert!(
            take(&state, "guarded", "{}").await.is_none(),
            "answered once"
        );

        let asked = question("{}").await;
        let form = super::form(&asked, false, None);
        let state = ask_later(&store, call, &asked, 2, form, TIMEOUT_FOR_TEST)
            .await
            .expect("kept")
            .request_state
            .expect("a state");
        tokio::time::advance(TIMEOUT_FOR_TEST).await;
        let taken = take(&state, "guarded", "{}").await.expect("still kept");
        assert_eq!((taken.forms, taken.expired), (2, true));
    }

    const TIMEOUT_FOR_TEST: Duration = Duration::from_mins(1);

    #[tokio::test]
    async fn the_form_says_why_arguments_were_not_taken_and_offers_the_session_on_one() {
        let asked = question(r#"{"a": 1}"#).await;
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = form(
            &asked,
            true,
            Some("Those arguments were not taken: Error: bad."),
        )
        else {
            panic!("a form");
        };
        assert_eq!(
            message,
            "Those arguments were not taken: Error: bad.\n\nApprove this call of tool \"guarded\"?\n\nArguments:\n{\n  \"a\": 1\n}\n"
        );
        let schema = serde_json::to_value(requested_schema).expect("JSON");
        assert_eq!(schema["required"], json!(["decision"]));
        assert_eq!(schema["properties"]["arguments"]["default"], r#"{"a": 1}"#);
        assert_eq!(
            schema["properties"]["decision"]["oneOf"][3],
            json!({"const": "approve_for_session", "title": "Approve it, and later calls of \"guarded\" in this session"})
        );
    }
}

//! Approvals by elicitation: a call of a tool that requires approval, from a client that answers
//! form elicitation, is put to the host's user as a form (`elicitation/create`): the tool, its
//! arguments and its preview (for `edit_file`, the diff), with the choices of a suspended run's
//! operator. The answer decides the call through the service's
//! [`Question`], so an approval covers that call only.
//!
//! On a session (2025-11-25, stdio) the server asks while the call waits, and gives up after
//! the time limit, or at once when the client cancels the call (then it is refused unrun, and
//! an approved call that is running ends as any cancelled call does). On the stateless revision (2026-07-28) it answers the call with
//! `input_required`, holding the question under an opaque `requestState`, and the client retries
//! the call with the user's answer.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use base64::Engine as _;
use rmcp::model::{
    ClientCapabilities, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequiredResult,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use toolkit::ToolCall;
use toolkit::approval::{Choice, HIDDEN_WARNING, escaped_json, hides_characters, visible};
use toolkit::bound::echo;
use toolkit::question::{AskAgain, KeptQuestion, Question};

use crate::store::{BackendError, QUESTIONS, SharedStore};

/// How long a person has to answer before the call is not approved.
pub const APPROVAL_TIMEOUT: Duration = Duration::from_mins(5);

/// How many forms one call may take (an edit of a previewed tool, or arguments that did not
/// pass, asks again); past that, the call is not approved.
pub const MAX_FORMS: usize = 8;

/// How many calls of one session (2025-11-25, or stdio) may wait for the person's answer at
/// once; past it, a call is refused at once with an error that says so.
pub const MAX_WAITING_PER_SESSION: usize = 8;

/// How many calls may wait for the person's answer at once on one server, all its sessions
/// together; past it, a call is refused at once with an error that says so.
pub const MAX_WAITING: usize = 64;

/// The largest form sent, in bytes of JSON (its message and its schema): a form shows the whole
/// call (arguments, preview, the arguments again to edit), and a larger call is refused rather
/// than shown in part. Hosts bound what they read too (the official Python SDK reads no event
/// over 1 MiB).
pub const FORM_LIMIT: usize = 512 * 1024;

/// The calls of one session waiting for the person's answer, and those of the whole server.
#[derive(Clone, Debug, Default)]
pub(crate) struct WaitingCalls {
    session: Arc<AtomicUsize>,
    server: Arc<AtomicUsize>,
}

/// One call's place among the waiting calls, given back when dropped.
#[derive(Debug)]
pub(crate) struct WaitingCall(WaitingCalls);

impl WaitingCalls {
    /// The count of a new session of the same server.
    pub(crate) fn for_session(&self) -> Self {
        Self {
            session: Arc::default(),
            server: Arc::clone(&self.server),
        }
    }

    /// A place for one more call of `tool` to wait, or the error it gets when there is none.
    pub(crate) fn enter(&self, tool: &str) -> Result<WaitingCall, String> {
        let taken = |count: &AtomicUsize, most: usize| {
            count
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
                    (now < most).then_some(now + 1)
                })
                .is_ok()
        };
        if !taken(&self.session, MAX_WAITING_PER_SESSION) {
            return Err(format!(
                "Error: {MAX_WAITING_PER_SESSION} calls of this session already wait for the \
                 person's answer; this call of tool \"{}\" was not asked about and did not run. \
                 Call it again once they are answered.",
                echo(tool)
            ));
        }
        if !taken(&self.server, MAX_WAITING) {
            self.session.fetch_sub(1, Ordering::AcqRel);
            return Err(format!(
                "Error: {MAX_WAITING} calls already wait for an answer on this server; this call \
                 of tool \"{}\" was not asked about and did not run. Call it again later.",
                echo(tool)
            ));
        }
        Ok(WaitingCall(self.clone()))
    }
}

impl Drop for WaitingCall {
    fn drop(&mut self) {
        self.0.session.fetch_sub(1, Ordering::AcqRel);
        self.0.server.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The error of a call whose arguments alone are past [`FORM_LIMIT`], which no form could show
/// (the message shows them whole): known before anything is built or previewed.
pub(crate) fn too_large_to_show(call: &ToolCall) -> Option<String> {
    (call.arguments().len() > FORM_LIMIT).then(|| too_large(call.name(), call.arguments().len()))
}

/// The error of a call of `tool` whose form takes `bytes` bytes, more than [`FORM_LIMIT`].
fn too_large(tool: &str, bytes: usize) -> String {
    format!(
        "Error: this call of tool \"{}\" is too large to show in a form ({bytes} bytes, at most \
         {FORM_LIMIT}): it was not asked about and did not run. Make the change in smaller \
         calls.",
        echo(tool)
    )
}

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
/// the session, `note` (see [`asked_again`]) says why it is asked again. A form that would take
/// more than [`FORM_LIMIT`] bytes is not made: the error is what the call gets instead (its
/// arguments alone say so before anything is built).
pub(crate) fn form(
    question: &Question,
    session: bool,
    note: Option<&str>,
) -> Result<ElicitRequestParams, String> {
    let call = question.call();
    if let Some(why) = too_large_to_show(call) {
        return Err(why);
    }
    let tool = echo(call.name());
    // The arguments as sent, not re-serialised (which could write a number otherwise), every
    // character a person could not see written out, as in the preview.
    let arguments = visible(call.arguments());
    let note = note.map_or_else(String::new, |note| format!("{note}\n\n"));
    let hidden =
        hides_characters(call.arguments()) || question.preview().is_some_and(hides_characters);
    let warning = if hidden {
        format!("{HIDDEN_WARNING}\n\n")
    } else {
        String::new()
    };
    let preview = question.preview().map_or_else(String::new, |preview| {
        format!("\nWhat it would do:\n{}\n", visible(preview))
    });
    let message = format!(
        "{note}{warning}Approve this call of tool \"{tool}\"?\n\nArguments:\n{arguments}\n{preview}"
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
            "arguments": arguments_field(call.arguments()),
        },
        "required": ["decision"],
    });
    let requested_schema: ElicitationSchema =
        serde_json::from_value(schema).expect("a schema of primitive properties");
    let form = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    };
    let bytes = serde_json::to_vec(&form).map_or(usize::MAX, |json| json.len());
    if bytes > FORM_LIMIT {
        return Err(too_large(call.name(), bytes));
    }
    Ok(form)
}

/// The form's field for an edit's arguments. It starts from the call's own arguments, every
/// hidden character escaped (it shows them all, and sent back as it is, it is the same call),
/// when they are at most [`EDIT_DEFAULT_LIMIT`] bytes; longer ones are in the message already,
/// and a second copy in every waiting form would only hold memory.
fn arguments_field(arguments: &str) -> Value {
    let mut field = json!({
        "type": "string",
        "title": "Arguments",
        "description": "For an edit: the arguments to run it with, as JSON.",
    });
    if arguments.len() <= EDIT_DEFAULT_LIMIT {
        field["default"] = Value::from(escaped_json(arguments));
    }
    field
}

/// The longest arguments a form's edit field starts from, in bytes.
pub const EDIT_DEFAULT_LIMIT: usize = 16 * 1024;

/// What a person's answer comes to: `Ok(None)` when none came (in time), or the choice made.
/// Declining or cancelling the form denies the call. An answer the form does not ask for (a
/// decision it does not offer, written in another case or as a number, a field it does not
/// have) is `Err` with why: it decides nothing, and the form is sent again saying so.
pub(crate) fn choice(
    answer: Option<ElicitResult>,
    session: bool,
) -> Result<Option<Choice>, String> {
    let Some(answer) = answer else {
        return Ok(None);
    };
    // Declining, cancelling, and whatever else a later revision adds, is no approval.
    if answer.action != ElicitationAction::Accept {
        return Ok(Some(Choice::Deny { reason: None }));
    }
    let Some(Value::Object(fields)) = answer.content else {
        return Err("it has no decision".to_owned());
    };
    if let Some(unknown) = fields
        .keys()
        .find(|field| !matches!(field.as_str(), "decision" | "reason" | "arguments"))
    {
        return Err(format!("the form has no field \"{}\"", echo(unknown)));
    }
    let text = |key: &str| match fields.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("\"{key}\" is not a text")),
    };
    let decision = text("decision")?.ok_or("it has no decision")?;
    match decision.as_str() {
        APPROVE => Ok(Some(Choice::Approve)),
        APPROVE_FOR_SESSION if session => Ok(Some(Choice::ApproveForRun)),
        DENY => Ok(Some(Choice::Deny {
            reason: text("reason")?,
        })),
        EDIT => Ok(Some(Choice::Edit {
            arguments: text("arguments")?.unwrap_or_default(),
        })),
        other => {
            let session = if session {
                ", \"approve_for_session\""
            } else {
                ""
            };
            Err(format!(
                "\"{}\" is not a decision this form offers (\"approve\", \"deny\", \"edit\"{session})",
                echo(other)
            ))
        }
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
pub(crate) fn question_key(state: &str, name: &str, arguments: &str) -> String {
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
) -> Result<InputRequiredResult, BackendError> {
    let state = uuid::Uuid::new_v4().simple().to_string();
    let waiting = Waiting {
        question: question.keep(),
        forms,
        expired: false,
    };
    let value = serde_json::to_vec(&waiting).map_err(BackendError::new)?;
    let key = question_key(&state, name, arguments);
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
) -> Result<Option<Waiting>, BackendError> {
    let key = question_key(state, name, arguments);
    let Some((value, live)) = store.take(QUESTIONS, &key).await? else {
        return Ok(None);
    };
    let mut waiting: Waiting = serde_json::from_slice(&value).map_err(BackendError::new)?;
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
            Ok(Some(Choice::Approve))
        );
        // The form's other fields come along with any decision (a client sends their defaults).
        assert_eq!(
            choice(
                accept(json!({"decision": "approve", "reason": "", "arguments": "{}"})),
                false
            ),
            Ok(Some(Choice::Approve))
        );
        assert_eq!(
            choice(accept(json!({"decision": "deny", "reason": "no"})), false),
            Ok(Some(Choice::Deny {
                reason: Some("no".to_owned())
            }))
        );
        assert_eq!(
            choice(
                accept(json!({"decision": "edit", "arguments": "{}"})),
                false
            ),
            Ok(Some(Choice::Edit {
                arguments: "{}".to_owned()
            }))
        );
        // An edit without arguments is an edit of none: the tool's checks say what is wrong.
        assert_eq!(
            choice(accept(json!({"decision": "edit"})), false),
            Ok(Some(Choice::Edit {
                arguments: String::new()
            }))
        );
        // Approval for the session only where the form offered it.
        let session = json!({"decision": "approve_for_session"});
        assert_eq!(
            choice(accept(session.clone()), true),
            Ok(Some(Choice::ApproveForRun))
        );
        assert_eq!(
            choice(accept(session), false),
            Err(
                "\"approve_for_session\" is not a decision this form offers (\"approve\", \"deny\", \"edit\")"
                    .to_owned()
            )
        );
        // An answer the form does not ask for decides nothing, and says why.
        let refused = [
            (json!({}), "it has no decision"),
            (
                json!({"decision": "yes"}),
                "\"yes\" is not a decision this form offers (\"approve\", \"deny\", \"edit\", \"approve_for_session\")",
            ),
            (
                json!({"decision": "Approve"}),
                "\"Approve\" is not a decision this form offers (\"approve\", \"deny\", \"edit\", \"approve_for_session\")",
            ),
            (json!({"decision": 0}), "\"decision\" is not a text"),
            (
                json!({"decision": "deny", "reason": 7}),
                "\"reason\" is not a text",
            ),
            (
                json!({"decision": "approve", "scope": "all"}),
                "the form has no field \"scope\"",
            ),
            (json!("approve"), "it has no decision"),
        ];
        for (content, why) in refused {
            assert_eq!(
                choice(accept(content.clone()), true),
                Err(why.to_owned()),
                "{content}"
            );
        }
        assert_eq!(
            choice(Some(answered(ElicitationAction::Accept, None)), true),
            Err("it has no decision".to_owned())
        );
        assert_eq!(choice(None, true), Ok(None));
        for action in [ElicitationAction::Decline, ElicitationAction::Cancel] {
            assert_eq!(
                choice(
                    Some(answered(action, Some(json!({"decision": "approve"})))),
                    true
                ),
                Ok(Some(Choice::Deny { reason: None }))
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
        let form = form(&asked, false, None).expect("a small form");
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
        let form = super::form(&asked, false, None).expect("a small form");
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
    async fn a_form_writes_out_every_hidden_character_and_warns_of_them() {
        let asked = question("{\"new_text\": \"t\u{202e}ow\u{2028}\"}").await;
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = form(&asked, false, None).expect("a small form")
        else {
            panic!("a form");
        };
        assert_eq!(
            message,
            format!(
                "{HIDDEN_WARNING}\n\nApprove this call of tool \"guarded\"?\n\nArguments:\n\
                 {{\"new_text\": \"t⟨U+202E⟩ow⟨U+2028⟩\"}}\n"
            )
        );
        // The field to edit holds the same call, every character escaped.
        let schema = serde_json::to_value(requested_schema).expect("JSON");
        assert_eq!(
            schema["properties"]["arguments"]["default"],
            r#"{"new_text": "t\u202eow\u2028"}"#
        );
        let plain = question(r#"{"new_text": "tow"}"#).await;
        let ElicitRequestParams::FormElicitationParams { message, .. } =
            form(&plain, false, None).expect("a small form")
        else {
            panic!("a form");
        };
        assert!(!message.contains("Warning"), "{message}");
    }

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
        .expect("a small form")
        else {
            panic!("a form");
        };
        assert_eq!(
            message,
            "Those arguments were not taken: Error: bad.\n\nApprove this call of tool \"guarded\"?\n\nArguments:\n{\"a\": 1}\n"
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

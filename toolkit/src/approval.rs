//! What an operator (or a policy written as code) decides about a call that waits for approval,
//! in a run or, put as a [`Question`](crate::question::Question), about one call outside a
//! loop. How each decision is recorded is [`CallDecision`](crate::recording::CallDecision).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};

use serde::{Deserialize, Serialize};

pub use crate::hidden::{inert, is_hidden};

use crate::ask::{Answer, Answers, Asked};
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
///
/// Only these spellings are read: a choice written another way (`"Approve"`, a number), a field
/// the choice does not take (a `reason` with `approve`), an unknown field, or an edit without
/// its `arguments` is refused with an error that names it, and decides nothing.
///
/// ```
/// use toolkit::approval::{Choice, Decision};
///
/// let decision: Decision = serde_json::from_str(r#"{"call_id": "w1", "choice": "approve"}"#)?;
/// assert_eq!(decision, Decision::approve("w1"));
/// let refused = serde_json::from_str::<Decision>(r#"{"call_id": "w1", "choice": 1}"#);
/// assert_eq!(
///     refused.unwrap_err().to_string(),
///     "invalid type: integer `1`, expected a string at line 1 column 29"
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "DecisionText")]
#[non_exhaustive]
pub struct Decision {
    /// The call decided.
    pub call_id: String,
    /// What was decided.
    #[serde(flatten)]
    pub choice: Choice,
}

/// What an operator decides on one pending call: `{"choice": "approve"}`, `{"choice":
/// "approve_for_run"}`, `{"choice": "deny", "reason": ".."}` (the reason may be left out),
/// `{"choice": "edit", "arguments": "{..}"}`, or for a call waiting for the answers to its
/// tool's questions `{"choice": "answer", "answers": {"KEY": {"action": "accept", "content":
/// {..}}}}`, read exactly as [`Decision`] reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "choice",
    rename_all = "snake_case",
    deny_unknown_fields,
    try_from = "ChoiceText"
)]
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
    /// For a call whose tool asked the person questions
    /// ([`ToolContext::ask`](crate::ToolContext::ask)): the answers, by question key. The call
    /// runs again with them (and the earlier ones); a question left unanswered is dismissed.
    /// Denying such a call declines every question it asked.
    Answer {
        /// The answers.
        answers: Answers,
    },
}

/// A choice as a client spells it: each field read exactly, unknown ones refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChoiceText {
    choice: String,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
    #[serde(default)]
    answers: Option<Answers>,
}

/// A decision as a client spells it: [`ChoiceText`] and the call it decides. Its fields repeat
/// `ChoiceText`'s rather than flatten it, since serde does not deny unknown fields through a
/// flattened field.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DecisionText {
    call_id: String,
    choice: String,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
    #[serde(default)]
    answers: Option<Answers>,
}

impl TryFrom<ChoiceText> for Choice {
    type Error = String;

    fn try_from(text: ChoiceText) -> Result<Self, String> {
        let ChoiceText {
            choice,
            reason,
            arguments,
            answers,
        } = text;
        let name = choice.as_str();
        if !matches!(
            name,
            "approve" | "approve_for_run" | "deny" | "edit" | "answer"
        ) {
            return Err(format!(
                "unknown choice `{}`, expected one of `approve`, `approve_for_run`, `deny`, `edit`, `answer`",
                echo(name)
            ));
        }
        if reason.is_some() && name != "deny" {
            return Err(format!("the choice `{name}` takes no `reason`"));
        }
        if arguments.is_some() && name != "edit" {
            return Err(format!("the choice `{name}` takes no `arguments`"));
        }
        if answers.is_some() && name != "answer" {
            return Err(format!("the choice `{name}` takes no `answers`"));
        }
        Ok(match name {
            "approve" => Choice::Approve,
            "approve_for_run" => Choice::ApproveForRun,
            "deny" => Choice::Deny { reason },
            "edit" => Choice::Edit {
                arguments: arguments.ok_or("the choice `edit` needs `arguments`")?,
            },
            _ => Choice::Answer {
                answers: answers.ok_or("the choice `answer` needs `answers`")?,
            },
        })
    }
}

impl TryFrom<DecisionText> for Decision {
    type Error = String;

    fn try_from(text: DecisionText) -> Result<Self, String> {
        let DecisionText {
            call_id,
            choice,
            reason,
            arguments,
            answers,
        } = text;
        let choice = Choice::try_from(ChoiceText {
            choice,
            reason,
            arguments,
            answers,
        })?;
        Ok(Self { call_id, choice })
    }
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

    /// Answers the questions the call's tool asked; it runs again with the answers.
    pub fn answer(call_id: impl Into<String>, answers: Answers) -> Self {
        Self::new(call_id, Choice::Answer { answers })
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
    /// It runs again with these answers to its tool's questions.
    Answer(Answers),
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
        // `check_decisions` refuses an answer to a call that asked nothing.
        None | Some(Choice::Answer { .. }) => (
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

/// What an operator's choice (if any) about a call whose tool asked `asked` comes to: what is
/// recorded, and the answers it runs again with (`earlier` and these). An answer leaves a
/// question it does not answer dismissed; a denial declines every question; no decision
/// dismisses them all. `check_decisions` refuses an approval or an edit of such a call.
pub(crate) fn decide_answers(
    choice: Option<&Choice>,
    asked: &[Asked],
    earlier: &Answers,
) -> (Decided, Then) {
    let mut answers = earlier.clone();
    let mut given = Answers::new();
    for question in asked {
        let answer = match choice {
            Some(Choice::Answer { answers }) => answers
                .get(question.key())
                .cloned()
                .unwrap_or(Answer::Cancel),
            Some(Choice::Deny { .. }) => Answer::Decline,
            _ => Answer::Cancel,
        };
        given.insert(question.key(), answer.clone());
        answers.insert(question.key(), answer);
    }
    let decided = match choice {
        Some(Choice::Deny { reason }) => Decided::Denied {
            reason: reason.clone(),
        },
        Some(Choice::Answer { .. }) => Decided::Answered { answers: given },
        _ => Decided::NotDecided,
    };
    (decided, Then::Answer(answers))
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
///         if pending.call.name().starts_with("delete") {
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

/// What a surface that asks for a decision (a form, the inspector's page, the terminal) says
/// above a call whose arguments or preview hold characters [`visible`] writes out.
pub const HIDDEN_WARNING: &str = "Warning: this call holds characters that are invisible or change \
     how text around them is shown (direction overrides, zero-width or line-separating \
     characters, controls); each is written out as ⟨U+XXXX⟩ here.";

/// Text as a surface that asks for a decision shows it: every character that could make what a
/// person reads differ from what runs is written out as `⟨U+XXXX⟩`, so that a `-two` and a
/// `+t\u{202e}ow` never look alike. Those are the controls but a line feed, a tab and the
/// carriage return of a CRLF line end; the characters that change text direction (U+061C,
/// U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069); the line and paragraph separators
/// (U+2028, U+2029); the characters Unicode says render invisibly by default (soft hyphen,
/// zero-width spaces and joiners, variation selectors, tags, fillers); and the spaces other
/// than U+0020, which look like it. Text without any is borrowed as it is.
///
/// ```
/// use toolkit::approval::{hides_characters, visible};
///
/// assert_eq!(visible("t\u{202e}ow"), "t⟨U+202E⟩ow");
/// assert_eq!(visible("-two\r\n+2\n"), "-two\r\n+2\n");
/// assert_eq!(visible("a\u{e0041}b\u{a0}c"), "a⟨U+E0041⟩b⟨U+00A0⟩c");
/// assert!(hides_characters("t\u{202e}ow") && !hides_characters("naïve café\n"));
/// ```
pub fn visible(text: &str) -> Cow<'_, str> {
    let mut shown: Option<String> = None;
    let mut copied = 0;
    for (at, character) in hidden_characters(text) {
        let shown = shown.get_or_insert_with(|| String::with_capacity(text.len() + 16));
        shown.push_str(&text[copied..at]);
        let _ = write!(shown, "⟨U+{:04X}⟩", u32::from(character));
        copied = at + character.len_utf8();
    }
    match shown {
        None => Cow::Borrowed(text),
        Some(mut shown) => {
            shown.push_str(&text[copied..]);
            Cow::Owned(shown)
        }
    }
}

/// Whether [`visible`] writes out any character of `text`: a surface then shows
/// [`HIDDEN_WARNING`].
pub fn hides_characters(text: &str) -> bool {
    hidden_characters(text).next().is_some()
}

/// The characters of `text` [`visible`] writes out, with where each starts: those
/// [`is_hidden`] names, but the carriage return of a CRLF line end.
fn hidden_characters(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut characters = text.char_indices().peekable();
    std::iter::from_fn(move || {
        while let Some((at, character)) = characters.next() {
            let line_end =
                character == '\r' && characters.peek().is_some_and(|&(_, next)| next == '\n');
            if !line_end && is_hidden(character) {
                return Some((at, character));
            }
        }
        None
    })
}

/// A JSON text that decodes to the same value as `json`, with every character [`visible`]
/// would write out that sits inside a string written as a `\uXXXX` escape instead: what an
/// editable field shows of a call's arguments, so that it shows every character and, sent back
/// unchanged, runs the same call. Outside strings, valid JSON holds no such character but the
/// carriage return, which stays as it is; text without any is borrowed as it is.
///
/// ```
/// use toolkit::approval::escaped_json;
///
/// // The model's arguments: `t`, a right-to-left override, `ow`, then a quoted crab.
/// let arguments = format!(r#"{{"new_text": "t{}ow \"🦀\""}}"#, '\u{202e}');
/// let escaped = escaped_json(&arguments);
/// assert_eq!(escaped, r#"{"new_text": "t\u202eow \"🦀\""}"#);
/// let same: serde_json::Value = serde_json::from_str(&escaped).unwrap();
/// assert_eq!(same, serde_json::from_str::<serde_json::Value>(&arguments).unwrap());
/// ```
pub fn escaped_json(json: &str) -> Cow<'_, str> {
    let mut escaped: Option<String> = None;
    let (mut in_string, mut after_backslash) = (false, false);
    for (at, character) in json.char_indices() {
        // Whether a backslash before this character escapes it.
        let escaped_here = after_backslash;
        after_backslash = in_string && !escaped_here && character == '\\';
        let escape = in_string && !escaped_here && is_hidden(character);
        if character == '"' && !escaped_here {
            in_string = !in_string;
        }
        if escape {
            let escaped = escaped.get_or_insert_with(|| {
                let mut escaped = String::with_capacity(json.len() + 16);
                escaped.push_str(&json[..at]);
                escaped
            });
            let mut units = [0u16; 2];
            for unit in character.encode_utf16(&mut units) {
                let _ = write!(escaped, "\\u{unit:04x}");
            }
        } else if let Some(escaped) = &mut escaped {
            escaped.push(character);
        }
    }
    escaped.map_or(Cow::Borrowed(json), Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_character_that_hides_or_reorders_text_is_written_out_and_its_neighbours_are_not() {
        let written_out = [
            '\u{0}',
            '\u{1b}',
            '\u{7f}',
            '\u{85}',
            '\u{9f}',
            '\u{b}',
            '\u{c}',
            '\u{a0}',
            '\u{ad}',
            '\u{34f}',
            '\u{61c}',
            '\u{115f}',
            '\u{1680}',
            '\u{180e}',
            '\u{2000}',
            '\u{200b}',
            '\u{200d}',
            '\u{200e}',
            '\u{200f}',
            '\u{2028}',
            '\u{2029}',
            '\u{202a}',
            '\u{202e}',
            '\u{202f}',
            '\u{205f}',
            '\u{2060}',
            '\u{2066}',
            '\u{2069}',
            '\u{206f}',
            '\u{2800}',
            '\u{3000}',
            '\u{3164}',
            '\u{fe00}',
            '\u{fe0f}',
            '\u{feff}',
            '\u{ffa0}',
            '\u{fff9}',
            '\u{1bca0}',
            '\u{1d173}',
            '\u{e0001}',
            '\u{e0041}',
            '\u{e01ef}',
            '\u{e0fff}',
        ];
        for character in written_out {
            let text = format!("a{character}b");
            let expected = format!("a⟨U+{:04X}⟩b", u32::from(character));
            assert_eq!(visible(&text), expected);
            assert!(hides_characters(&text));
        }
        let kept = [
            ' ',
            '\n',
            '\t',
            '~',
            'é',
            '\u{2010}',
            '\u{2030}',
            '\u{205e}',
            '\u{2070}',
            '\u{27ff}',
            '\u{2801}',
            '\u{fe10}',
            '€',
            '中',
            '\u{1f980}',
            '\u{e1000}',
            '\u{fffd}',
        ];
        for character in kept {
            let text = format!("a{character}b");
            assert!(matches!(visible(&text), Cow::Borrowed(_)), "{character:?}");
        }
    }

    #[test]
    fn a_decision_is_read_only_as_documented_and_anything_else_is_refused_by_name() {
        let read = |text: &str| serde_json::from_str::<Decision>(text).map_err(|e| e.to_string());
        for decision in [
            Decision::approve("w1"),
            Decision::approve_for_run("w1"),
            Decision::deny("w1"),
            Decision::deny_with_reason("w1", "no"),
            Decision::edit("w1", "{}"),
            Decision::answer(
                "w1",
                Answers::new()
                    .with("size", Answer::accept(serde_json::json!({"count": 2})))
                    .with("sure", Answer::Decline),
            ),
        ] {
            let text = serde_json::to_string(&decision).expect("JSON");
            assert_eq!(read(&text), Ok(decision), "{text}");
        }
        assert_eq!(
            read(r#"{"call_id": "w1", "choice": "deny"}"#),
            Ok(Decision::deny("w1"))
        );
        let refused = [
            (
                r#"{"call_id": "w1", "choice": 1}"#,
                "invalid type: integer `1`, expected a string at line 1 column 29",
            ),
            (
                r#"{"call_id": "w1", "choice": "Approve"}"#,
                "unknown choice `Approve`, expected one of `approve`, `approve_for_run`, `deny`, \
                 `edit`, `answer`",
            ),
            (
                r#"{"call_id": "w1", "choice": "approve", "scope": "all"}"#,
                "unknown field `scope`, expected one of `call_id`, `choice`, `reason`, \
                 `arguments`, `answers` at line 1 column 46",
            ),
            (
                r#"{"call_id": "w1", "choice": "answer"}"#,
                "the choice `answer` needs `answers`",
            ),
            (
                r#"{"call_id": "w1", "choice": "approve", "answers": {}}"#,
                "the choice `approve` takes no `answers`",
            ),
            (
                r#"{"call_id": "w1", "choice": "answer", "answers": {"k": {"action": "maybe"}}}"#,
                "unknown variant `maybe`, expected one of `accept`, `decline`, `cancel` at line 1 column 73",
            ),
            (
                r#"{"call_id": "w1", "choice": "approve", "reason": "ok"}"#,
                "the choice `approve` takes no `reason`",
            ),
            (
                r#"{"call_id": "w1", "choice": "deny", "arguments": "{}"}"#,
                "the choice `deny` takes no `arguments`",
            ),
            (
                r#"{"call_id": "w1", "choice": "edit"}"#,
                "the choice `edit` needs `arguments`",
            ),
            (
                r#"{"call_id": "w1"}"#,
                "missing field `choice` at line 1 column 17",
            ),
        ];
        for (text, error) in refused {
            assert_eq!(read(text), Err(error.to_owned()), "{text}");
        }
        // A choice read alone is read the same way.
        let choice = serde_json::from_str::<Choice>(r#"{"choice": 0}"#);
        assert_eq!(
            choice.map_err(|e| e.to_string()),
            Err("invalid type: integer `0`, expected a string at line 1 column 12".to_owned())
        );
    }

    #[test]
    fn a_carriage_return_is_a_line_end_only_before_a_line_feed() {
        assert_eq!(visible("a\r\nb"), "a\r\nb");
        assert_eq!(visible("a\rb\r"), "a⟨U+000D⟩b⟨U+000D⟩");
        assert_eq!(visible("a\r\r\n"), "a⟨U+000D⟩\r\n");
    }

    #[test]
    fn escaped_json_decodes_to_the_same_value_and_shows_every_character() {
        let texts = [
            "{\"a\": \"t\u{202e}ow\"}",
            "{\"a\\\"\u{200b}\": \"\\\\\u{2066}\", \"b\": [\"\u{e0041}\", 1e2, null]}",
            "{\"a\": \"plain\"}\r\n",
            "[\"\\\"\", \"\\\\\", \"\u{85}\u{7f}\"]",
        ];
        for text in texts {
            let escaped = escaped_json(text);
            assert!(!hides_characters(&escaped.replace("\r\n", "")), "{escaped}");
            let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
            assert_eq!(
                serde_json::from_str::<serde_json::Value>(&escaped).expect("still JSON"),
                value
            );
        }
        assert_eq!(
            escaped_json("{\"a\": \"x\u{e0041}\"}"),
            r#"{"a": "x\udb40\udc41"}"#
        );
        assert!(matches!(escaped_json(r#"{"a": "b"}"#), Cow::Borrowed(_)));
    }
}

//! What the loop adds to the seam: what an approver was shown of a call ([`Shown`]), an
//! operator's edit checked as a call ([`CheckedEdit`]), a call's preview, and the approval of a
//! call as it was shown. Only the loop (its runs and its questions) asks for these, so only the
//! `loop` feature compiles them; the seam itself knows nothing of the loop.

use std::sync::atomic::Ordering;

use super::{Approval, BoundedResult, Check, RunScope, Seam, argument_error_message};
use crate::result::ToolResult;
use crate::wire::ToolCall;

/// What an approver was shown of a call: a digest (SHA-256) of its preview, or that its tool
/// names none. A suspended run's sealed token carries it for each pending call, so the preview
/// itself need not travel.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub(crate) struct Shown(String);

impl Shown {
    /// What showing `preview` (`None`: the tool names no preview) comes to.
    pub(crate) fn of(preview: Option<&str>) -> Self {
        use sha2::Digest as _;
        use std::fmt::Write as _;
        let Some(preview) = preview else {
            return Self::default();
        };
        let digest = sha2::Sha256::digest(preview.as_bytes());
        Self(
            digest
                .iter()
                .fold(String::with_capacity(64), |mut hex, byte| {
                    let _ = write!(hex, "{byte:02x}");
                    hex
                }),
        )
    }
}

/// A pending call with the arguments an operator gave instead of the model's, checked by the
/// seam as a call of its tool would be (offered, not too long, decoded). Only
/// [`Seam::check_edit`] makes one, and a suspended run's call takes other arguments from
/// nothing else: an approval of an edited call covers checked arguments only.
#[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
#[derive(Clone, Debug)]
pub struct CheckedEdit {
    call: ToolCall,
}

impl CheckedEdit {
    /// The call with the edited arguments (same id, same tool).
    pub fn call(&self) -> &ToolCall {
        &self.call
    }
}

impl Seam {
    /// An error result that did not come from a tool (a refusal), bounded like any other.
    pub(crate) fn refuse(scope: &RunScope, message: String) -> BoundedResult {
        BoundedResult::bound(ToolResult::error(message), scope.context.filter())
    }

    /// Why a call would be refused before running, without charging the budget or running it:
    /// an unknown or not offered tool, or arguments too long or that do not decode. The loop
    /// asks before it suspends a run for an operator, so nobody is asked to approve a call that
    /// could not run.
    pub(crate) fn refusal(&self, scope: &RunScope, name: &str, arguments: &str) -> Option<String> {
        match self.check(scope, name, arguments, Check::Look) {
            Err(refusal) => Some(refusal.message(scope, name, arguments)),
            Ok(found) => found
                .tool
                .check_arguments(arguments)
                .err()
                .map(|invalid| argument_error_message(name, &invalid)),
        }
    }

    /// Checks arguments an operator gives instead of `call`'s as a call of its tool would be
    /// checked, without running it; the error is the text the tool's call would get.
    #[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
    pub fn check_edit(
        &self,
        scope: &RunScope,
        call: &ToolCall,
        arguments: &str,
    ) -> Result<CheckedEdit, String> {
        match self.refusal(scope, &call.name, arguments) {
            Some(refusal) => Err(refusal),
            None => Ok(CheckedEdit {
                call: ToolCall::new(call.id.clone(), call.name.clone(), arguments),
            }),
        }
    }

    /// What the operator is shown of `call` before deciding: the content of the preview tool its
    /// tool names, run read-only on the call's arguments in `scope`'s context, when it names one.
    pub(crate) async fn preview(&self, scope: &RunScope, call: &ToolCall) -> Option<String> {
        let preview = self.registry.get(&call.name)?.spec().preview()?;
        let scope = self
            .scope_offering(scope.context().clone(), [preview])
            .ok()?
            .read_only();
        let answer = self.invoke(&scope, preview, &call.arguments).await;
        Some(answer.content().to_owned())
    }

    /// The approval of `call`, decided by an approver who was `shown` what its preview said,
    /// if that is still what the preview says: the preview is computed again now, just before
    /// the call runs. When it differs, what the call would do changed since it was shown (a
    /// file it edits was written meanwhile), so the approval was about another call: the error
    /// is the preview now (`None` when it can no longer be made), to ask again with. A call
    /// whose tool names no preview is approved as it is.
    ///
    /// Every approved call is checked here, whoever approved it: an operator resuming a run,
    /// a person answering a question, an approval of the tool for the run, a policy.
    pub(crate) async fn approve(
        &self,
        scope: &RunScope,
        call: &ToolCall,
        shown: &Shown,
    ) -> Result<Approval, Option<String>> {
        let now = self.preview(scope, call).await;
        if Shown::of(now.as_deref()) != *shown {
            return Err(now);
        }
        Ok(Approval {
            call_id: call.id.clone(),
            name: call.name.clone(),
            arguments: call.arguments.clone(),
        })
    }

    /// Whether a call of `name` in `scope` waits for an operator: a tool this seam has, offered
    /// in the scope, that requires approval.
    pub(crate) fn needs_approval(&self, scope: &RunScope, name: &str) -> bool {
        self.registry.lookup(name).is_some_and(|found| {
            found.policy.flags.requires_approval() && scope.offers(&self.registry, found.index)
        })
    }
}

impl RunScope {
    /// The same scope with `used` remote calls already charged (a resumed run's).
    #[must_use]
    pub(crate) fn with_remote_used(self, used: u32) -> Self {
        self.remote_used.store(used, Ordering::Relaxed);
        self
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::context::ToolContext;
    use crate::registry::ToolRegistry;
    use crate::spec::ToolSpec;
    use crate::testing::Fixed;

    /// A seam over one tool, `guarded`, that requires approval and counts its runs.
    fn guarded() -> (Arc<Fixed>, Seam) {
        let counted = Arc::new(Fixed::new(
            ToolSpec::new("guarded", "Guarded.", serde_json::json!({"type": "object"}))
                .with_flags(crate::spec::ToolFlags::new().with_requires_approval(true)),
            || ToolResult::text("ran"),
        ));
        let mut registry = ToolRegistry::new();
        registry.register_shared(counted.clone()).unwrap();
        let seam = Seam::new(registry);
        (counted, seam)
    }

    #[tokio::test]
    async fn an_approval_covers_one_exact_call_and_nothing_else() {
        let (counted, seam) = guarded();
        let scope = seam.scope(ToolContext::new()).unwrap();
        let call = ToolCall::new("c1", "guarded", r#"{"a":1}"#);
        let approve = || async {
            seam.approve(&scope, &call, &Shown::default())
                .await
                .expect("a tool without a preview shows nothing that can change")
        };
        for other in [
            ToolCall::new("c2", "guarded", r#"{"a":1}"#),
            ToolCall::new("c1", "other", r#"{"a":1}"#),
            ToolCall::new("c1", "guarded", r#"{"a": 1}"#),
        ] {
            let refused = seam.invoke_approved(&scope, &other, approve().await).await;
            assert!(refused.is_error());
            assert_eq!(
                refused.content(),
                format!(
                    "Error: the approval given is not for call \"{}\" of tool \"{}\" with these arguments; it was not run.",
                    other.id, other.name
                )
            );
        }
        assert_eq!(counted.runs(), 0);
        let approval = approve().await;
        assert_eq!(approval.call_id(), "c1");
        let ran = seam.invoke_approved(&scope, &call, approval).await;
        assert_eq!(ran.content(), "ran");
        assert_eq!(counted.runs(), 1);
    }

    #[test]
    fn what_was_shown_is_the_sha256_of_the_preview_or_nothing() {
        assert_eq!(
            Shown::of(Some("abc")),
            Shown("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".to_owned())
        );
        // No preview, and the field missing from a token sealed before it existed, are alike.
        assert_eq!(Shown::of(None), Shown::default());
        assert_ne!(Shown::of(Some("")), Shown::of(None));
    }

    #[tokio::test]
    async fn an_approval_does_not_run_a_writer_in_a_read_only_scope() {
        let (counted, seam) = guarded();
        let scope = seam.scope(ToolContext::new()).unwrap().read_only();
        let call = ToolCall::new("c1", "guarded", "{}");
        let approval = seam.approve(&scope, &call, &Shown::default()).await;
        let refused = seam
            .invoke_approved(&scope, &call, approval.expect("no preview to change"))
            .await;
        assert_eq!(
            (refused.content(), refused.is_error()),
            (
                "Error: tool \"guarded\" is not read-only, and this scope runs only read-only tools; it was not run.",
                true
            )
        );
        assert_eq!(counted.runs(), 0);
    }
}

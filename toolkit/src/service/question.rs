//! How a [`ToolLoopService`] puts one call that requires approval to a person outside a loop
//! (an MCP host's user): the types it gives and takes are in [`question`](crate::question).

use crate::approval::{Choice, Then, decide};
use crate::bound::echo;
use crate::recording::{CallDecision, Decided, Decider, ObservedCall, RunStep};
use crate::seam::{RunScope, Shown};
use crate::service::ToolLoopService;
use crate::wire::ToolCall;

use crate::question::{AskAgain, KeptQuestion, Question, Unasked};

impl ToolLoopService {
    /// The question to ask a person about `call`, a call of a tool in `scope` that requires
    /// approval, with its preview. Nobody is asked about a call that could not run (a tool that
    /// is not there or not offered, arguments that do not decode) or that needs no approval:
    /// then the refusal is the call's result, recorded as a run of one call of `source`.
    pub async fn question(
        &self,
        scope: &RunScope,
        source: &str,
        call: ToolCall,
    ) -> Result<Question, ObservedCall> {
        if let Some(refused) = self.refuse_to_ask(scope, source, &call).await {
            return Err(refused);
        }
        let preview = self.seam().preview(scope, &call).await;
        Ok(Question {
            call,
            preview,
            earlier: Vec::new(),
        })
    }

    /// The refusal of a call nobody should be asked about (one that could not run, or needs no
    /// approval), recorded as a run of one call of `source`; `None` when it may be asked about.
    async fn refuse_to_ask(
        &self,
        scope: &RunScope,
        source: &str,
        call: &ToolCall,
    ) -> Option<ObservedCall> {
        let refusal = self
            .seam()
            .refusal(scope, &call.name, &call.arguments)
            .or_else(|| {
                (!self.seam().needs_approval(scope, &call.name)).then(|| {
                    format!(
                        "Error: tool \"{}\" needs no approval; it is called, not asked about.",
                        echo(&call.name)
                    )
                })
            })?;
        Some(
            self.recorder()
                .decided(self.seam(), scope, source, call, None, Err(refusal))
                .await,
        )
    }

    /// The question `kept` keeps (perhaps kept by another process), to ask again as it is now:
    /// its call checked again as [`question`](Self::question) checks one (a refusal is the
    /// call's result, recorded) and its preview computed again, with the earlier answers. For
    /// when the person's answer could not be read and the form is sent again.
    pub async fn ask_kept(
        &self,
        scope: &RunScope,
        source: &str,
        kept: KeptQuestion,
    ) -> Result<Question, ObservedCall> {
        let KeptQuestion { call, earlier, .. } = kept;
        let mut question = self.question(scope, source, call).await?;
        question.earlier = earlier;
        Ok(question)
    }

    /// Answers the question `kept` keeps (perhaps kept by another process) as
    /// [`answer`](Self::answer) answers a question, once its call is checked again as
    /// [`question`](Self::question) checks one (a refusal is the call's result, recorded). The
    /// preview the person was shown is the one kept: when the call's preview is another by now
    /// (what the call would do changed meanwhile), their approval was about another call,
    /// so nothing runs and the question is asked again with the new preview.
    pub async fn answer_kept(
        &self,
        scope: &RunScope,
        source: &str,
        kept: KeptQuestion,
        choice: Option<Choice>,
    ) -> Result<ObservedCall, AskAgain> {
        let KeptQuestion {
            call,
            preview,
            earlier,
        } = kept;
        if let Some(refused) = self.refuse_to_ask(scope, source, &call).await {
            return Ok(refused);
        }
        let question = Question {
            call,
            preview,
            earlier,
        };
        self.answer(scope, source, question, choice).await
    }

    /// Answers `question` with the person's `choice` (`None`: no answer came) and, unless it
    /// asks again ([`AskAgain`]), runs or refuses the call: its result, recorded as a run of
    /// one call of `source`, a `resumed` step with the person's decisions, then the call's tool
    /// step.
    ///
    /// Approve runs the call, and so does approve-for-run (keeping the tool's approval for
    /// later calls is the caller's: see [`run_approved_earlier`](Self::run_approved_earlier)),
    /// as long as its preview, computed again just before it runs, is the one the question
    /// showed: otherwise nothing runs and the question is asked again with the new preview.
    /// Deny gives the model the reason, or that the operator denied the call; no answer gives
    /// it that the approval was not given. An edit is checked as a call of the tool would be:
    /// arguments that fail ask again with why; changed arguments of a tool that names a preview
    /// ask again with the new preview; otherwise the edited call runs.
    pub async fn answer(
        &self,
        scope: &RunScope,
        source: &str,
        question: Question,
        choice: Option<Choice>,
    ) -> Result<ObservedCall, AskAgain> {
        let edit = match &choice {
            Some(Choice::Edit { arguments }) => {
                match self.seam().check_edit(scope, &question.call, arguments) {
                    Ok(edit) => Some(edit),
                    Err(why) => {
                        return Err(AskAgain {
                            question,
                            why: Some(why),
                            preview_changed: false,
                        });
                    }
                }
            }
            _ => None,
        };
        let Question {
            call,
            preview: shown,
            mut earlier,
        } = question;
        let previewed = self
            .registry()
            .get(&call.name)
            .and_then(|tool| tool.spec().preview())
            .is_some();
        let (decided, then) = decide(&call, choice.as_ref(), edit.as_ref(), previewed);
        let asked = call;
        let call = edit.map_or_else(|| asked.clone(), |edit| edit.call().clone());
        let outcome = match then {
            Then::Run => match self
                .seam()
                .approve(scope, &call, &Shown::of(shown.as_deref()))
                .await
            {
                Ok(approval) => Ok(approval),
                Err(now) => {
                    earlier.push(CallDecision::new(
                        &asked,
                        Decider::Operator,
                        Decided::PreviewChanged,
                    ));
                    return Err(AskAgain::preview_changed_to(call, now, earlier));
                }
            },
            Then::Refuse(text) => Err(text),
            // An approval's question asks nothing of a tool: no answer comes to one.
            Then::Answer(_) => Err(crate::seam::approval_not_given(&call.name)),
            Then::Wait => {
                earlier.push(CallDecision::new(&asked, Decider::Operator, decided));
                let preview = self.seam().preview(scope, &call).await;
                return Err(AskAgain {
                    question: Question {
                        call,
                        preview,
                        earlier,
                    },
                    why: None,
                    preview_changed: false,
                });
            }
        };
        earlier.push(CallDecision::new(&asked, Decider::Operator, decided));
        let decisions = RunStep::Resumed { decisions: earlier };
        Ok(self
            .recorder()
            .decided(self.seam(), scope, source, &call, Some(decisions), outcome)
            .await)
    }

    /// Refuses a call of a tool that requires approval without putting it to the person,
    /// because it cannot be (too many calls wait for them already, or it is too large to show):
    /// the model reads `why`, and the call is recorded as a run of one call of `source` with
    /// `not_decided`, after the person's earlier answers when it is a [`Question`] already.
    /// Nothing is checked or previewed first: declining a call costs no more than recording it.
    pub async fn decline(
        &self,
        scope: &RunScope,
        source: &str,
        unasked: impl Into<Unasked>,
        why: String,
    ) -> ObservedCall {
        let Unasked { call, mut earlier } = unasked.into();
        earlier.push(CallDecision::new(
            &call,
            Decider::Operator,
            Decided::NotDecided,
        ));
        let decisions = RunStep::Resumed { decisions: earlier };
        self.recorder()
            .decided(self.seam(), scope, source, &call, Some(decisions), Err(why))
            .await
    }

    /// Runs `question`'s call without asking, because the person approved its tool earlier
    /// (for the run, or an MCP session): recorded as a run of one call of `source`, with a
    /// `decided` step that says so. Like any approval, it runs the call only while its preview
    /// is the one the question was made with; otherwise nothing runs and the person is asked,
    /// with the new preview.
    pub async fn run_approved_earlier(
        &self,
        scope: &RunScope,
        source: &str,
        question: Question,
    ) -> Result<ObservedCall, AskAgain> {
        let Question {
            call,
            preview,
            mut earlier,
        } = question;
        match self
            .seam()
            .approve(scope, &call, &Shown::of(preview.as_deref()))
            .await
        {
            Ok(approval) => {
                earlier.push(CallDecision::new(
                    &call,
                    Decider::ApprovedForRun,
                    Decided::Approved,
                ));
                let decisions = RunStep::Decided { decisions: earlier };
                Ok(self
                    .recorder()
                    .decided(
                        self.seam(),
                        scope,
                        source,
                        &call,
                        Some(decisions),
                        Ok(approval),
                    )
                    .await)
            }
            Err(now) => {
                earlier.push(CallDecision::new(
                    &call,
                    Decider::ApprovedForRun,
                    Decided::PreviewChanged,
                ));
                Err(AskAgain::preview_changed_to(call, now, earlier))
            }
        }
    }
}

//! How a [`ToolLoopService`] runs the loop: ask the provider, run the calls it asks for through
//! the seam, repeat; and how it resumes a suspended run. The types a run gives and takes are in
//! [`run`](crate::run).

use std::collections::HashSet;
use std::mem;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::approval::{
    ApprovalPolicy, Choice, Decision, PendingCall, PolicyAnswer, Then, ask_policies, decide,
    decide_answers, visible,
};
use crate::bound::echo;
use crate::context::ToolContext;
use futures_util::StreamExt;

use crate::ask::Answers;
use crate::provider::{
    Assembler, Delta, Provider, ProviderRequest, ProviderResponse, StopReason, Usage,
};
use crate::recording::{
    CallDecision, Decided, Decider, Ran, Recording, RunKind, RunStep, StepKind, Termination,
};
use crate::request::{RunOptions, RunRequest};
use crate::seal::{Progress, Questioned, SealKey, SuspendedRunState, TokenError, TurnCall};
use crate::seam::{CancelSignal, CheckedEdit, RunScope, Seam, Shown};
use crate::service::ToolLoopService;
use crate::spec::ToolSpec;
use crate::wire::{ChatMessage, ToolCall, WireString};

use crate::run::{PendingQuestions, Preview, RunError, Suspension, ToolLoopResult};

/// Gives every call of a turn an id no other call of the turn has, so that each gets exactly
/// one answer and each decision names exactly one call: a call the model sent without an id, or
/// with the id of an earlier call of the same turn, gets `toolkit_<iteration>_<position>` (with
/// `_` added while another call of the turn has that id), in the turn as it is recorded, sealed
/// and sent back to the provider. The ids of calls that came without one are returned: those
/// calls do not run, since the model gave nothing to tell them apart by; a call renamed because
/// its id repeated runs (or waits for an operator) like any other.
fn give_own_ids(calls: &mut [ToolCall], iteration: u32) -> Vec<String> {
    let mut taken: HashSet<String> = calls.iter().map(|call| call.id.clone()).collect();
    let mut kept: HashSet<String> = HashSet::with_capacity(calls.len());
    let mut unanswerable = Vec::new();
    for (position, call) in calls.iter_mut().enumerate() {
        let missing = call.id.is_empty();
        if !missing && kept.insert(call.id.clone()) {
            continue;
        }
        let mut id = format!("toolkit_{iteration}_{position}");
        while taken.contains(&id) {
            id.push('_');
        }
        taken.insert(id.clone());
        kept.insert(id.clone());
        if missing {
            unanswerable.push(id.clone());
        }
        call.id = id;
    }
    unanswerable
}

impl ToolLoopService {
    /// Runs the loop with `provider` until the model answers without calls, the iteration limit,
    /// a call that needs approval, a provider error, or cancellation: the request's
    /// [`CancelSignal`] ends the run at once, a running call included (recorded with
    /// `Error: the call of tool "NAME" was cancelled before it finished.`).
    pub async fn run(
        &self,
        provider: &dyn Provider,
        request: RunRequest,
    ) -> Result<ToolLoopResult, RunError> {
        let mut scope = match &request.tools {
            Some(tools) => self.seam().scope_offering(request.context, tools)?,
            None => self.scope(request.context)?,
        }
        .with_remote_budget(request.options.remote_budget)
        .with_timeout(request.options.tool_timeout);
        // A cancelled run stops the calls it is running too, not only its next turn.
        if let Some(cancel) = &request.cancel {
            scope = scope.with_cancel(cancel.clone());
        }
        let mut messages = Vec::new();
        if let Some(system) = request.system {
            messages.push(ChatMessage::system(system));
        }
        let recording =
            Recording::start(self.recorder(), request.run_id, RunKind::Run, &request.user).await;
        // What the run's tools report while they run goes to its subscribers.
        let scope = scope.with_reports(recording.reports());
        messages.push(ChatMessage::user(request.user));
        let mut run = Run {
            seam: self.seam(),
            policies: self.policies(),
            seal_key: self.seal_key(),
            token_lifetime: self.token_lifetime(),
            provider,
            scope,
            recording,
            options: request.options,
            progress: Progress {
                messages,
                ..Progress::default()
            },
            cancel: request.cancel,
            stop_reason: None,
            asking: Vec::new(),
        };
        let offered = run.scope.offered().map(str::to_owned).collect();
        let count = run.progress.messages.len();
        run.recording
            .step(RunStep::Request {
                messages: count,
                tools: offered,
            })
            .await;
        Ok(run.drive().await)
    }

    /// Opens a suspended run's token and goes on with `provider` by the operator's decisions,
    /// one per pending call (see [`Choice`]): approved calls run through the seam; a denied call
    /// answers with the operator's reason, or the standard refusal; an edited call runs with its
    /// new arguments, or waits again with its new preview when its tool names one; a call of a
    /// tool approved for the run runs, and so will the tool's later calls; a call left without
    /// a decision is refused. Every decision goes to the `resumed` step, so to the audit copy.
    ///
    /// `context` is what the tools see now (it is not sealed into the token, since it may hold
    /// values that do not serialise). A token that does not verify runs nothing, and neither do
    /// decisions that name no pending call, disagree, or edit arguments the seam refuses: those
    /// leave the token unspent.
    ///
    /// # Panics
    ///
    /// Never: the one `expect` holds by construction (one result per approved call).
    pub async fn resume(
        &self,
        provider: &dyn Provider,
        token: &str,
        decisions: &[Decision],
        context: ToolContext,
    ) -> Result<ToolLoopResult, RunError> {
        let state = SuspendedRunState::open(token, self.seal_key())?;
        let scope = self
            .seam()
            .scope_offering(context, &state.progress.offered)?
            .with_remote_budget(state.options.remote_budget)
            .with_timeout(state.options.tool_timeout)
            .with_remote_used(state.progress.remote_used);
        let edits = self.check_decisions(&state, decisions, &scope)?;
        self.claim(&state).await?;
        let SuspendedRunState {
            run_id,
            options,
            mut progress,
            ..
        } = state;
        let mut turn = mem::take(&mut progress.turn);
        let recording = Recording::resume(self.recorder(), run_id, progress.next_step);
        let scope = scope.with_reports(recording.reports());
        let mut run = Run {
            seam: self.seam(),
            policies: self.policies(),
            seal_key: self.seal_key(),
            token_lifetime: self.token_lifetime(),
            provider,
            scope,
            recording,
            options,
            progress,
            cancel: None,
            stop_reason: None,
            asking: Vec::new(),
        };
        let mut records = Vec::new();
        let mut plans = Vec::with_capacity(turn.len());
        for TurnCall {
            call,
            result,
            questions,
            ..
        } in &mut turn
        {
            if result.is_some() {
                // It ran before the run stopped.
                plans.push(None);
                continue;
            }
            let choice = decisions
                .iter()
                .find(|decision| decision.call_id == call.id)
                .map(|decision| &decision.choice);
            if let Some(questions) = questions {
                let (decided, then) = decide_answers(choice, &questions.asked, &questions.answers);
                records.push(CallDecision::new(call, Decider::Operator, decided));
                plans.push(Some(then));
                continue;
            }
            let edit = edits.iter().find(|edit| edit.call().id == call.id);
            let (decided, then) = run.operator_decision(call, choice, edit);
            records.push(CallDecision::new(call, Decider::Operator, decided));
            if let Some(edit) = edit {
                run.progress.edit(edit);
                *call = edit.call().clone();
            }
            plans.push(Some(then));
        }
        run.recording
            .step(RunStep::Resumed { decisions: records })
            .await;
        let outcomes = run.carry_out(&turn, plans).await;
        let calls: Vec<ToolCall> = turn.into_iter().map(|turn| turn.call).collect();
        if outcomes.iter().any(Option::is_none) {
            // An edited call whose tool has a preview waits again, with the new preview, and so
            // does an approved call whose preview changed since the operator saw it.
            return Ok(Box::pin(run.suspend(calls, outcomes)).await);
        }
        for (call, outcome) in calls.iter().zip(outcomes) {
            run.answer(call, outcome.expect("every call ran or was refused"));
        }
        // Boxed, like the suspension above, so that the future a caller holds stays small.
        Ok(Box::pin(run.drive()).await)
    }

    /// Stops a suspended run for good: the token is spent, no pending call runs, the `resumed`
    /// step records each as aborted, and the run ends with [`Termination::Aborted`]. A token
    /// that does not open, or was used, changes nothing.
    pub async fn abort(&self, token: &str) -> Result<ToolLoopResult, RunError> {
        let state = SuspendedRunState::open(token, self.seal_key())?;
        self.claim(&state).await?;
        let decisions = state
            .pending()
            .map(|call| CallDecision::new(call, Decider::Operator, Decided::Aborted))
            .collect();
        let SuspendedRunState {
            run_id, progress, ..
        } = state;
        let mut recording = Recording::resume(self.recorder(), run_id, progress.next_step);
        recording.step(RunStep::Resumed { decisions }).await;
        let trace = recording.end(Termination::Aborted, "").await;
        Ok(ToolLoopResult {
            content: String::new(),
            trace,
            iterations: progress.iteration,
            termination: Termination::Aborted,
            usage: progress.usage,
            messages: progress.messages,
            suspension: None,
            stop_reason: None,
        })
    }

    /// Checks an operator's decisions before the token is spent, so that wrong ones can be
    /// corrected: each names a pending call, no two on one call differ, and each edit's
    /// arguments pass the seam's checks (the edits come back checked).
    fn check_decisions(
        &self,
        state: &SuspendedRunState,
        decisions: &[Decision],
        scope: &RunScope,
    ) -> Result<Vec<CheckedEdit>, RunError> {
        for decision in decisions {
            let Some(waiting) = state
                .progress
                .turn
                .iter()
                .find(|turn| turn.result.is_none() && turn.call.id == decision.call_id)
            else {
                return Err(RunError::UnknownDecision(echo(&decision.call_id)));
            };
            let answers = matches!(decision.choice, Choice::Answer { .. });
            let takes = matches!(decision.choice, Choice::Answer { .. } | Choice::Deny { .. });
            if waiting.questions.is_some() && !takes {
                return Err(RunError::WrongDecision {
                    call_id: echo(&decision.call_id),
                    why: "it waits for the answers to its tool's questions: answer them, or deny it",
                });
            }
            if waiting.questions.is_none() && answers {
                return Err(RunError::WrongDecision {
                    call_id: echo(&decision.call_id),
                    why: "its tool asked no question: approve, approve it for the run, deny or edit it",
                });
            }
            if decisions
                .iter()
                .any(|other| other.call_id == decision.call_id && other.choice != decision.choice)
            {
                return Err(RunError::ConflictingDecisions(echo(&decision.call_id)));
            }
        }
        let mut edits = Vec::new();
        for call in state.pending() {
            let edit = decisions
                .iter()
                .find_map(|decision| match &decision.choice {
                    Choice::Edit { arguments } if decision.call_id == call.id => Some(arguments),
                    _ => None,
                });
            if let Some(arguments) = edit {
                let checked =
                    self.seam()
                        .check_edit(scope, call, arguments)
                        .map_err(|message| RunError::InvalidEdit {
                            call_id: echo(&call.id),
                            message,
                        })?;
                edits.push(checked);
            }
        }
        Ok(edits)
    }

    /// Spends a token: from here on it never opens again. Only a token that would run is spent.
    async fn claim(&self, state: &SuspendedRunState) -> Result<(), RunError> {
        match self
            .replay_store()
            .claim(&state.token_id, state.expiry())
            .await
        {
            Ok(true) => Ok(()),
            Ok(false) => Err(TokenError::AlreadyUsed.into()),
            Err(error) => Err(TokenError::Store(error.to_string()).into()),
        }
    }
}

impl Progress {
    /// Puts an operator's edit into the conversation: the model's turn asks for the call with
    /// the edited arguments, which are the ones that run.
    fn edit(&mut self, edit: &CheckedEdit) {
        let edited = edit.call();
        for message in self.messages.iter_mut().rev() {
            if let ChatMessage::Assistant { tool_calls, .. } = message
                && let Some(call) = tool_calls.iter_mut().find(|call| call.id == edited.id)
            {
                call.arguments.clone_from(&edited.arguments);
                return;
            }
        }
    }
}

/// One run on its way: the seam and provider it uses, its scope, its recording, and its state
/// in the one shape a token carries ([`RunOptions`] and progress).
struct Run<'s> {
    seam: &'s Seam,
    policies: &'s [Arc<dyn ApprovalPolicy>],
    seal_key: &'s SealKey,
    token_lifetime: Duration,
    provider: &'s dyn Provider,
    scope: RunScope,
    recording: Recording<'s>,
    options: RunOptions,
    progress: Progress,
    cancel: Option<CancelSignal>,
    /// Why the model's last turn of this run ended.
    stop_reason: Option<StopReason>,
    /// The calls of the current turn whose tools asked the person questions, by call id.
    asking: Vec<(String, Questioned)>,
}

/// A call approved and not run yet: its place in the turn, who approved it, and what they were
/// shown of it.
struct Approved<'c> {
    position: usize,
    call: &'c ToolCall,
    by: Decider,
    shown: Shown,
}

enum Turn {
    Response(ProviderResponse, Duration),
    Failed(String, Duration),
    Cancelled,
}

impl<'s> Run<'s> {
    fn is_cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(CancelSignal::is_cancelled)
    }

    async fn drive(mut self) -> ToolLoopResult {
        let mut last_content = String::new();
        loop {
            if self.is_cancelled() {
                return self.end(Termination::Cancelled, String::new(), None).await;
            }
            if self.progress.iteration >= self.options.max_iterations {
                return self
                    .end(Termination::MaxIterations, last_content, None)
                    .await;
            }
            self.progress.iteration += 1;
            let iteration = self.progress.iteration;
            let index = self.recording.begin(StepKind::Llm, None).await;
            let (mut response, duration) = match self.ask(index).await {
                Turn::Response(response, duration) => (response, duration),
                Turn::Cancelled => {
                    return self.end(Termination::Cancelled, String::new(), None).await;
                }
                Turn::Failed(message, duration) => {
                    self.recording
                        .finish(
                            index,
                            RunStep::Llm {
                                iteration,
                                content: String::new(),
                                tool_calls: Vec::new(),
                                usage: Usage::default(),
                                stop_reason: None,
                                thinking: String::new(),
                                error: Some(message.clone()),
                                duration,
                            },
                        )
                        .await;
                    return self.end(Termination::ProviderError, message, None).await;
                }
            };
            let unanswerable = give_own_ids(&mut response.tool_calls, iteration);
            self.progress.usage.add(response.usage);
            self.stop_reason = Some(response.stop_reason.clone());
            self.recording
                .finish(
                    index,
                    RunStep::Llm {
                        iteration,
                        content: response.content.clone(),
                        tool_calls: response.tool_calls.clone(),
                        usage: response.usage,
                        stop_reason: Some(response.stop_reason.clone()),
                        thinking: mem::take(&mut response.thinking),
                        error: None,
                        duration,
                    },
                )
                .await;
            if response.tool_calls.is_empty() {
                return self
                    .end(Termination::Answered, response.content, None)
                    .await;
            }
            // A turn cut by its token limit may hold a call cut inside its arguments: none of
            // its calls runs, and the run ends saying why.
            if response.stop_reason == StopReason::Length {
                return self
                    .end(Termination::Truncated, response.content, None)
                    .await;
            }
            last_content.clone_from(&response.content);
            let calls = response.tool_calls;
            self.asking.clear();
            let outcomes = self.answer_what_it_can(&calls, &unanswerable).await;
            if outcomes.iter().any(Option::is_none) {
                // Cancelled while its calls ran: nobody waits for the approvals it would ask.
                if self.is_cancelled() {
                    return self.end(Termination::Cancelled, String::new(), None).await;
                }
                self.progress.messages.push(ChatMessage::assistant_carrying(
                    response.content,
                    calls.clone(),
                    response.carried,
                ));
                // Boxed: sealing and previews hold kilobytes of state that every run's future
                // would otherwise carry (and every executor's move of it copy).
                return Box::pin(self.suspend(calls, outcomes)).await;
            }
            // The answers, then the turn they answer before them: the turn takes the calls
            // themselves, not a copy.
            let turn_at = self.progress.messages.len();
            for (call, outcome) in calls.iter().zip(outcomes) {
                self.answer(call, outcome.expect("every call ran or was refused"));
            }
            self.progress.messages.insert(
                turn_at,
                ChatMessage::assistant_carrying(response.content, calls, response.carried),
            );
        }
    }

    /// Answers the calls of a turn that need no operator: each runs through the seam, or is
    /// refused (no id, could not run), or is decided without a question (an approval of its
    /// tool for the run, or a policy: recorded in one `decided` step before any runs). The
    /// calls left `None` wait for an operator.
    async fn answer_what_it_can(
        &mut self,
        calls: &[ToolCall],
        unanswerable: &[String],
    ) -> Vec<Option<WireString>> {
        let mut outcomes: Vec<Option<WireString>> = vec![None; calls.len()];
        let mut to_run = Vec::new();
        let mut approved = Vec::new();
        let mut refusals = Vec::new();
        let mut decided = Vec::new();
        for (position, call) in calls.iter().enumerate() {
            if unanswerable.contains(&call.id) {
                let text = format!(
                    "Error: the call of tool \"{}\" came without an id; it was not run.",
                    echo(&call.name)
                );
                refusals.push((position, text));
            } else if !self.needs_approval(call) {
                to_run.push((position, call));
            } else if let Some(text) = self.seam.refusal(&self.scope, &call.name, &call.arguments) {
                // Nobody is asked to approve a call that could not run.
                refusals.push((position, text));
            } else {
                // What the call would do, when an approval without a question may come: the
                // policy decides on it, and the call runs only while it still says that.
                let preview = if self.may_decide_unasked(call) {
                    self.seam.preview(&self.scope, call).await
                } else {
                    None
                };
                if let Some((by, outcome)) = self.decide_unasked(call, preview.as_deref()) {
                    match &outcome {
                        Decided::Denied { reason } => {
                            refusals.push((position, reason.clone().unwrap_or_default()));
                        }
                        _ => approved.push(Approved {
                            position,
                            call,
                            by: by.clone(),
                            shown: Shown::of(preview.as_deref()),
                        }),
                    }
                    decided.push(CallDecision::new(call, by, outcome));
                }
            }
        }
        if !decided.is_empty() {
            self.recording
                .step(RunStep::Decided { decisions: decided })
                .await;
        }
        for (position, text) in refusals {
            let refusal = Seam::refuse(&self.scope, text);
            let answered = self.recording.answered(&calls[position], refusal).await;
            outcomes[position] = Some(answered.wire().clone());
        }
        self.execute(&to_run, &mut outcomes).await;
        self.execute_approved(approved, &mut outcomes).await;
        outcomes
    }

    /// Asks the provider for the turn of the model step `index`: streamed, its deltas shown
    /// to subscribers as they come, unless the run's options say not to stream.
    async fn ask(&self, index: usize) -> Turn {
        let specs: Vec<&ToolSpec> = self.scope.offered_specs().collect();
        let request = ProviderRequest {
            messages: &self.progress.messages,
            tools: &specs,
            model: self.options.model.as_deref(),
            temperature: self.options.temperature,
        };
        let started = Instant::now();
        let call = async {
            if !self.options.stream {
                return self.provider.complete(request).await;
            }
            let mut deltas = self.provider.stream(request);
            let mut assembler = Assembler::new();
            while let Some(delta) = deltas.next().await {
                let delta = delta?;
                assembler.push(&delta)?;
                if !matches!(delta, Delta::Carried { .. }) {
                    self.recording.delta(index, &delta);
                }
            }
            Ok(assembler.finish())
        };
        let outcome = match &self.cancel {
            Some(cancel) => tokio::select! {
                outcome = call => outcome,
                () = cancel.cancelled() => return Turn::Cancelled,
            },
            None => call.await,
        };
        match outcome {
            Ok(response) => Turn::Response(response, started.elapsed()),
            Err(error) => Turn::Failed(crate::with_causes(&error), started.elapsed()),
        }
    }

    fn needs_approval(&self, call: &ToolCall) -> bool {
        self.seam.needs_approval(&self.scope, &call.name)
    }

    /// Whether a call that needs approval may be decided without asking the operator: its
    /// tool is approved for the run, or a policy may answer.
    fn may_decide_unasked(&self, call: &ToolCall) -> bool {
        self.progress.approved_tools.contains(&call.name) || !self.policies.is_empty()
    }

    /// A decision about a call that needs approval without asking the operator: an earlier
    /// approval of its tool for the run, else the first policy's answer other than `Ask`
    /// (policies see `preview`, what the call would do, when its tool names a preview).
    fn decide_unasked(&self, call: &ToolCall, preview: Option<&str>) -> Option<(Decider, Decided)> {
        if self.progress.approved_tools.contains(&call.name) {
            return Some((Decider::ApprovedForRun, Decided::Approved));
        }
        let spec = self.seam.registry().get(&call.name)?.spec();
        let pending = PendingCall {
            run_id: self.recording.run_id(),
            call,
            spec,
            preview,
            context: self.scope.context(),
        };
        let (policy, answer) = ask_policies(self.policies, &pending)?;
        Some(match answer {
            PolicyAnswer::Approve(why) => (Decider::Policy { policy, why }, Decided::Approved),
            PolicyAnswer::Deny(reason) => {
                // A policy that gives no reason still tells the model who refused.
                let reason = if reason.trim().is_empty() {
                    format!(
                        "Error: tool \"{}\" was denied by the approval policy \"{}\".",
                        echo(&call.name),
                        echo(&policy)
                    )
                } else {
                    reason
                };
                let why = reason.clone();
                (
                    Decider::Policy { policy, why },
                    Decided::Denied {
                        reason: Some(reason),
                    },
                )
            }
            PolicyAnswer::Ask => return None,
        })
    }

    /// Carries out what the operator decided about each call of the resumed turn: its
    /// outcome, in the turn's order (`None` for a call that waits again).
    async fn carry_out(
        &mut self,
        turn: &[TurnCall],
        plans: Vec<Option<Then>>,
    ) -> Vec<Option<WireString>> {
        let mut outcomes = Vec::with_capacity(turn.len());
        let mut to_run = Vec::new();
        let mut to_answer = Vec::new();
        for (
            position,
            (
                TurnCall {
                    call,
                    result,
                    shown,
                    ..
                },
                then,
            ),
        ) in turn.iter().zip(plans).enumerate()
        {
            outcomes.push(match then {
                None => result.clone(),
                Some(Then::Run) => {
                    to_run.push(Approved {
                        position,
                        call,
                        by: Decider::Operator,
                        shown: shown.clone(),
                    });
                    None
                }
                Some(Then::Wait) => None,
                Some(Then::Answer(answers)) => {
                    to_answer.push((position, call, answers));
                    None
                }
                Some(Then::Refuse(text)) => Some(
                    self.recording
                        .answered(call, Seam::refuse(&self.scope, text))
                        .await
                        .wire()
                        .clone(),
                ),
            });
        }
        self.execute_approved(to_run, &mut outcomes).await;
        self.execute_answering(to_answer, &mut outcomes).await;
        outcomes
    }

    /// What the operator's choice (if any) about a waiting call comes to; an approval of its
    /// tool for the run is kept for the later calls of the run.
    fn operator_decision(
        &mut self,
        call: &ToolCall,
        choice: Option<&Choice>,
        edit: Option<&CheckedEdit>,
    ) -> (Decided, Then) {
        if matches!(choice, Some(Choice::ApproveForRun))
            && !self.progress.approved_tools.contains(&call.name)
        {
            self.progress.approved_tools.push(call.name.clone());
        }
        let previewed = self.preview_tool(&call.name).is_some();
        decide(call, choice, edit, previewed)
    }

    /// Runs calls concurrently through the seam, recorded; each call's wire string goes to the
    /// slot of `answers` at its position in the turn.
    async fn execute(&mut self, calls: &[(usize, &ToolCall)], answers: &mut [Option<WireString>]) {
        let calls = calls
            .iter()
            .map(|&(position, call)| (position, call, Answers::new()))
            .collect();
        self.execute_answering(calls, answers).await;
    }

    /// Runs calls concurrently through the seam, each with the answers it has to its tool's
    /// questions, recorded; each call's wire string goes to the slot of `answers` at its
    /// position. A call whose tool asks a question it has no answer to keeps its slot `None`
    /// and waits for the person with its questions (recorded as an `asked` step).
    async fn execute_answering(
        &mut self,
        calls: Vec<(usize, &ToolCall, Answers)>,
        answers: &mut [Option<WireString>],
    ) {
        let seam = self.seam;
        let scope = &self.scope;
        let executions = calls
            .iter()
            .map(|(_, call, given)| (*call, seam.invoke_answering(scope, call, given.clone())))
            .collect();
        let ran = self.recording.tools_asking(executions).await;
        for ((position, call, given), ran) in calls.into_iter().zip(ran) {
            match ran {
                Ran::Invoked(invocation) => answers[position] = Some(invocation.wire().clone()),
                Ran::Asked(step) => {
                    let RunStep::Asked { asked, .. } = step else {
                        unreachable!("an asked round records an asked step")
                    };
                    let questioned = Questioned {
                        answers: given,
                        asked,
                    };
                    self.asking.push((call.id.clone(), questioned));
                }
            }
        }
    }

    /// Runs approved calls, each with the proof of its approval, which the seam gives only
    /// while what the call would do is what its approver was shown ([`Seam::approve`]). The
    /// calls whose tool names no preview run concurrently; then each previewed call is checked
    /// just before it runs, one after another, so that no approved call of the turn changes
    /// what another's preview said between that one's check and its run. A call whose preview
    /// changed does not run: a `decided` step records it, and its slot stays `None`, so it
    /// waits for the operator with its new preview.
    async fn execute_approved(
        &mut self,
        calls: Vec<Approved<'_>>,
        answers: &mut [Option<WireString>],
    ) {
        let seam = self.seam;
        let (previewed, plain): (Vec<_>, Vec<_>) = calls
            .into_iter()
            .partition(|approved| self.preview_tool(&approved.call.name).is_some());
        let mut changed = Vec::new();
        let mut ready = Vec::with_capacity(plain.len());
        for approved in plain {
            match seam
                .approve(&self.scope, approved.call, &approved.shown)
                .await
            {
                Ok(approval) => ready.push((approved.position, approved.call, approval)),
                Err(_) => changed.push(approved),
            }
        }
        let scope = &self.scope;
        let (positions, executions): (Vec<usize>, Vec<_>) = ready
            .into_iter()
            .map(|(position, call, approval)| {
                (
                    position,
                    (call, seam.invoke_approved(scope, call, approval)),
                )
            })
            .unzip();
        let invocations = self.recording.tools(executions).await;
        for (position, invocation) in positions.into_iter().zip(invocations) {
            answers[position] = Some(invocation.wire().clone());
        }
        for approved in previewed {
            match seam
                .approve(&self.scope, approved.call, &approved.shown)
                .await
            {
                Ok(approval) => {
                    let execution = seam.invoke_approved(&self.scope, approved.call, approval);
                    let invocation = self.recording.tool_once(approved.call, execution).await;
                    answers[approved.position] = Some(invocation.wire().clone());
                }
                Err(_) => changed.push(approved),
            }
        }
        if !changed.is_empty() {
            let decisions = changed
                .into_iter()
                .map(|approved| {
                    CallDecision::new(approved.call, approved.by, Decided::PreviewChanged)
                })
                .collect();
            self.recording.step(RunStep::Decided { decisions }).await;
        }
    }

    fn answer(&mut self, call: &ToolCall, wire: WireString) {
        let message =
            ChatMessage::tool_result(call.id.clone(), wire).expect("every call has an id by now");
        self.progress.messages.push(message);
    }

    async fn suspend(
        mut self,
        calls: Vec<ToolCall>,
        results: Vec<Option<WireString>>,
    ) -> ToolLoopResult {
        let pending: Vec<ToolCall> = calls
            .iter()
            .zip(&results)
            .filter(|(_, result)| result.is_none())
            .map(|(call, _)| call.clone())
            .collect();
        self.recording
            .step(RunStep::Suspended {
                pending: pending.clone(),
            })
            .await;
        // What the operator will be shown of each waiting call, sealed with it: an approval
        // runs the call only while its preview still says that. A call waiting for answers
        // is shown its questions.
        let asking = mem::take(&mut self.asking);
        let questioned = |id: &str| {
            asking
                .iter()
                .find(|(call_id, _)| call_id == id)
                .map(|(_, questioned)| questioned.clone())
        };
        let awaiting_approval: Vec<ToolCall> = pending
            .iter()
            .filter(|call| questioned(&call.id).is_none())
            .cloned()
            .collect();
        let previews = self.previews(&awaiting_approval).await;
        let questions = asking
            .iter()
            .map(|(call_id, questioned)| PendingQuestions {
                call_id: call_id.clone(),
                // Every hidden character of a question written out, as in an approval's call.
                asked: questioned
                    .asked
                    .iter()
                    .map(|asked| asked.shown_as(visible(asked.message()).into_owned()))
                    .collect(),
            })
            .collect();
        self.progress.turn = calls
            .into_iter()
            .zip(results)
            .map(|(call, result)| {
                let shown = previews
                    .iter()
                    .find(|preview| preview.call_id == call.id)
                    .map(|preview| preview.text.as_str());
                let shown = Shown::of(shown);
                let questions = questioned(&call.id);
                TurnCall {
                    call,
                    result,
                    shown,
                    questions,
                }
            })
            .collect();
        self.progress.remote_used = self.scope.remote_calls_used();
        self.progress.offered = self.scope.offered().map(str::to_owned).collect();
        self.progress.next_step = self.recording.next_index();
        let (token_id, expires_at) = SuspendedRunState::token_for(self.token_lifetime);
        let state = SuspendedRunState {
            run_id: self.recording.run_id().clone(),
            token_id,
            expires_at,
            options: self.options.clone(),
            progress: mem::take(&mut self.progress),
        };
        let token = state.seal(self.seal_key);
        self.progress = state.progress;
        self.end(
            Termination::Suspended,
            String::new(),
            Some(Suspension {
                token,
                pending,
                previews,
                questions,
            }),
        )
        .await
    }

    /// Runs the preview tool of each pending call that names one, through the seam, in a
    /// read-only scope of its own (the run's context, only that tool offered): the registry
    /// refused any preview tool not marked read-only, and this scope would refuse it again.
    /// A preview tool whose state the context lacks gives no preview.
    async fn previews(&self, pending: &[ToolCall]) -> Vec<Preview> {
        let mut previews = Vec::new();
        for call in pending {
            if let Some(text) = self.seam.preview(&self.scope, call).await {
                previews.push(Preview {
                    call_id: call.id.clone(),
                    text,
                });
            }
        }
        previews
    }

    /// The preview tool a call of `name` is shown with, if its tool names one.
    fn preview_tool(&self, name: &str) -> Option<&'s str> {
        self.seam.registry().get(name)?.spec().preview()
    }

    /// The run's result once the recording ends. The future keeps only what the result takes
    /// from the run, not the whole run.
    fn end(
        self,
        termination: Termination,
        content: String,
        suspension: Option<Suspension>,
    ) -> impl Future<Output = ToolLoopResult> + Send + 's {
        let Run {
            recording,
            progress:
                Progress {
                    iteration,
                    usage,
                    messages,
                    ..
                },
            stop_reason,
            ..
        } = self;
        async move {
            let trace = recording.end(termination, &content).await;
            ToolLoopResult {
                content,
                trace,
                iterations: iteration,
                termination,
                usage,
                messages,
                suspension,
                stop_reason,
            }
        }
    }
}

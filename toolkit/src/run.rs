//! The tool loop: ask the provider, run the calls it asks for through the seam, repeat.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use tokio::sync::Notify;

use crate::bound::{self, echo};
use crate::events::RunEvent;
use crate::provider::{ProviderRequest, ProviderResponse};
use crate::seal::{SuspendedRunState, TokenError};
use crate::seam::{BoundedResult, NotRegistered, RunScope, ToolLoopService};
use crate::tool::{ToolContext, ToolSpec};
use crate::trace::{RunStep, RunTrace, Termination, ToolInvocation, Usage};
use crate::wire::{ChatMessage, ToolCall, WireString};

/// Limits and model settings of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOptions {
    /// Provider calls at most (default 5).
    pub max_iterations: u32,
    /// Per tool call (default 30 s).
    pub tool_timeout: Duration,
    /// Calls to remote tools at most (default 20).
    pub remote_budget: u32,
    /// The model, else the provider's default.
    pub model: Option<String>,
    /// Sampling temperature, else the provider's default.
    pub temperature: Option<f32>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            max_iterations: 5,
            tool_timeout: crate::seam::DEFAULT_TOOL_TIMEOUT,
            remote_budget: crate::seam::DEFAULT_REMOTE_BUDGET,
            model: None,
            temperature: None,
        }
    }
}

/// Stops a run from outside: the run ends at its next wait with [`Termination::Cancelled`].
#[derive(Clone, Debug, Default)]
pub struct CancelSignal(Arc<CancelInner>);

#[derive(Debug, Default)]
struct CancelInner {
    cancelled: AtomicBool,
    notify: Notify,
}

impl CancelSignal {
    /// A signal not yet given.
    pub fn new() -> Self {
        Self::default()
    }

    /// Gives the signal.
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::SeqCst);
        self.0.notify.notify_waiters();
    }

    /// Whether it was given.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    async fn cancelled(&self) {
        loop {
            let notified = self.0.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// What to run.
#[derive(Debug)]
pub struct RunRequest {
    system: Option<String>,
    user: String,
    tools: Option<Vec<String>>,
    options: RunOptions,
    context: ToolContext,
    cancel: Option<CancelSignal>,
}

impl RunRequest {
    /// A run answering `user`, with the default tools, options and an empty context.
    pub fn new(user: impl Into<String>) -> Self {
        Self {
            system: None,
            user: user.into(),
            tools: None,
            options: RunOptions::default(),
            context: ToolContext::new(),
            cancel: None,
        }
    }

    /// The same request with a system message.
    #[must_use]
    pub fn with_system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// The same request offering exactly these tools (default: the enabled-by-default tools the
    /// caller may use).
    #[must_use]
    pub fn with_tools<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// The same request with other options.
    #[must_use]
    pub fn with_options(mut self, options: RunOptions) -> Self {
        self.options = options;
        self
    }

    /// The same request with the context tools see.
    #[must_use]
    pub fn with_context(mut self, context: ToolContext) -> Self {
        self.context = context;
        self
    }

    /// The same request, cancellable by `signal`.
    #[must_use]
    pub fn with_cancel(mut self, signal: CancelSignal) -> Self {
        self.cancel = Some(signal);
        self
    }
}

/// A run that waits for an operator.
#[derive(Clone, Debug)]
pub struct Suspension {
    /// The sealed state: give it to [`ToolLoopService::resume`].
    pub token: String,
    /// The calls waiting for a decision.
    pub pending: Vec<ToolCall>,
}

/// An operator's decision on one pending call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The call decided.
    pub call_id: String,
    /// Whether it may run.
    pub approved: bool,
}

impl Decision {
    /// Lets the call run.
    pub fn approve(call_id: impl Into<String>) -> Self {
        Self {
            call_id: call_id.into(),
            approved: true,
        }
    }

    /// Refuses the call.
    pub fn deny(call_id: impl Into<String>) -> Self {
        Self {
            call_id: call_id.into(),
            approved: false,
        }
    }
}

/// How a run ended. Artifacts are only in [`trace`](Self::trace); the messages and the content
/// hold none.
#[derive(Debug)]
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
}

/// A run that cannot start or resume.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The service has no provider.
    #[error("the service has no provider; give one with ToolLoopService::with_provider")]
    NoProvider,
    /// The request offers a tool that is not registered.
    #[error(transparent)]
    NotRegistered(#[from] NotRegistered),
    /// The resume token does not open.
    #[error(transparent)]
    Token(#[from] TokenError),
    /// A decision names a call that is not waiting.
    #[error("no pending call has the id \"{0}\"")]
    UnknownDecision(String),
}

/// The tool result text for a call the operator refused.
fn denied(name: &str) -> String {
    format!("Error: tool \"{}\" was denied by the operator.", echo(name))
}

/// The tool result text for a call nobody decided on.
fn not_given(name: &str) -> String {
    format!(
        "Error: tool \"{}\" requires approval that was not given.",
        echo(name)
    )
}

impl ToolLoopService {
    /// Runs the loop until the model answers without calls, the iteration limit, a call that
    /// needs approval, a provider error, or cancellation.
    pub async fn run(&self, request: RunRequest) -> Result<ToolLoopResult, RunError> {
        let provider_missing = self.provider().is_none();
        if provider_missing {
            return Err(RunError::NoProvider);
        }
        let mut scope = self
            .scope(request.context)
            .with_remote_budget(request.options.remote_budget)
            .with_timeout(request.options.tool_timeout);
        if let Some(tools) = &request.tools {
            scope = scope.offer(tools)?;
        }
        let mut messages = Vec::new();
        if let Some(system) = request.system {
            messages.push(ChatMessage::system(system));
        }
        messages.push(ChatMessage::user(request.user));
        let mut run = Run {
            service: self,
            scope,
            run_id: new_run_id(),
            messages,
            trace: RunTrace::default(),
            usage: Usage::default(),
            iteration: 0,
            options: request.options,
            cancel: request.cancel,
        };
        run.trace.run_id.clone_from(&run.run_id);
        self.events().emit(RunEvent::RunStarted {
            run_id: run.run_id.clone(),
        });
        let offered = run.scope.offered().map(str::to_owned).collect();
        let count = run.messages.len();
        run.step(RunStep::Request {
            messages: count,
            tools: offered,
        });
        Ok(run.drive().await)
    }

    /// Opens a suspended run's token and goes on: approved calls run through the seam, refused
    /// ones and those left without a decision get the refusal texts, and the loop continues.
    ///
    /// `context` is what the tools see now (it is not sealed into the token, since it may hold
    /// values that do not serialise). A token that does not verify runs nothing.
    ///
    /// # Panics
    ///
    /// Never: the one `expect` holds by construction (one result per approved call).
    pub async fn resume(
        &self,
        token: &str,
        decisions: &[Decision],
        context: ToolContext,
    ) -> Result<ToolLoopResult, RunError> {
        if self.provider().is_none() {
            return Err(RunError::NoProvider);
        }
        let state = SuspendedRunState::open(token, self.seal_key())?;
        for decision in decisions {
            if !state.pending().any(|call| call.id == decision.call_id) {
                return Err(RunError::UnknownDecision(echo(&decision.call_id)));
            }
        }
        let scope = self
            .scope(context)
            .offer(&state.offered)?
            .with_remote_budget(state.remote_budget)
            .with_timeout(Duration::from_millis(state.tool_timeout_ms))
            .with_remote_used(state.remote_used);
        let mut run = Run {
            service: self,
            scope,
            run_id: state.run_id.clone(),
            messages: state.messages,
            trace: RunTrace {
                run_id: state.run_id,
                steps: Vec::new(),
            },
            usage: state.usage,
            iteration: state.iteration,
            options: RunOptions {
                max_iterations: state.max_iterations,
                tool_timeout: Duration::from_millis(state.tool_timeout_ms),
                remote_budget: state.remote_budget,
                model: state.model,
                temperature: state.temperature,
            },
            cancel: None,
        };
        let (approved, refused): (Vec<&ToolCall>, Vec<&ToolCall>) = state
            .calls
            .iter()
            .zip(&state.results)
            .filter(|(_, result)| result.is_none())
            .map(|(call, _)| call)
            .partition(|call| decisions.iter().any(|d| d.call_id == call.id && d.approved));
        run.step(RunStep::Resumed {
            approved: approved.iter().map(|call| call.id.clone()).collect(),
            refused: refused.iter().map(|call| call.id.clone()).collect(),
        });
        let mut outcomes = Vec::with_capacity(state.calls.len());
        let mut to_run = Vec::new();
        for (call, result) in state.calls.iter().zip(state.results) {
            match result {
                Some(done) => outcomes.push(Some(done)),
                None if approved.iter().any(|a| a.id == call.id) => {
                    to_run.push(call.clone());
                    outcomes.push(None);
                }
                None => {
                    let decided = decisions.iter().any(|d| d.call_id == call.id);
                    let text = if decided {
                        denied(&call.name)
                    } else {
                        not_given(&call.name)
                    };
                    let bounded = Self::refuse(text);
                    let wire = run.record_call(call, bounded);
                    outcomes.push(Some(wire));
                }
            }
        }
        let ran = run.execute(&to_run).await;
        let mut ran = ran.into_iter();
        for (call, outcome) in state.calls.iter().zip(outcomes) {
            let wire = match outcome {
                Some(wire) => wire,
                None => ran.next().expect("one result per approved call"),
            };
            run.answer(call, wire);
        }
        Ok(run.drive().await)
    }
}

#[allow(clippy::struct_field_names)] // `run_id` is the run's id, named as everywhere else
struct Run<'s> {
    service: &'s ToolLoopService,
    scope: RunScope,
    run_id: String,
    messages: Vec<ChatMessage>,
    trace: RunTrace,
    usage: Usage,
    iteration: u32,
    options: RunOptions,
    cancel: Option<CancelSignal>,
}

enum Turn {
    Response(ProviderResponse, Duration),
    Failed(String, Duration),
    Cancelled,
}

impl Run<'_> {
    /// Records a finished step and tells subscribers.
    fn step(&mut self, step: RunStep) {
        let index = self.trace.steps.len();
        let tool = match &step {
            RunStep::Tool(invocation) => Some(echo(&invocation.name)),
            _ => None,
        };
        self.service.events().emit(RunEvent::StepStarted {
            run_id: self.run_id.clone(),
            index,
            kind: kind_of(&step),
            tool,
        });
        self.finish(index, step);
    }

    fn finish(&mut self, index: usize, step: RunStep) {
        let event = match &step {
            RunStep::Tool(invocation) => RunEvent::ToolInvoked {
                run_id: self.run_id.clone(),
                index,
                invocation: invocation.clone(),
            },
            other => RunEvent::StepFinished {
                run_id: self.run_id.clone(),
                index,
                step: other.clone(),
            },
        };
        self.service.events().emit(event);
        self.trace.steps.push(step);
    }

    fn is_cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(CancelSignal::is_cancelled)
    }

    async fn drive(mut self) -> ToolLoopResult {
        let mut last_content = String::new();
        loop {
            if self.is_cancelled() {
                return self.end(Termination::Cancelled, String::new(), None);
            }
            if self.iteration >= self.options.max_iterations {
                return self.end(Termination::MaxIterations, last_content, None);
            }
            self.iteration += 1;
            let (mut response, duration) = match self.ask().await {
                Turn::Response(response, duration) => (response, duration),
                Turn::Cancelled => return self.end(Termination::Cancelled, String::new(), None),
                Turn::Failed(message, duration) => {
                    self.step(RunStep::Llm {
                        iteration: self.iteration,
                        content: String::new(),
                        tool_calls: Vec::new(),
                        usage: Usage::default(),
                        error: Some(message.clone()),
                        duration,
                    });
                    self.service.events().emit(RunEvent::Error {
                        run_id: self.run_id.clone(),
                        message: message.clone(),
                    });
                    return self.end(Termination::ProviderError, message, None);
                }
            };
            // A call the model sent without an id still needs one to be answered; it does not run.
            let mut unanswerable = Vec::new();
            for (index, call) in response.tool_calls.iter_mut().enumerate() {
                if call.id.is_empty() {
                    call.id = format!("toolkit_{}_{index}", self.iteration);
                    unanswerable.push(call.id.clone());
                }
            }
            self.usage.add(response.usage);
            self.step(RunStep::Llm {
                iteration: self.iteration,
                content: response.content.clone(),
                tool_calls: response.tool_calls.clone(),
                usage: response.usage,
                error: None,
                duration,
            });
            if response.tool_calls.is_empty() {
                return self.end(Termination::Answered, response.content, None);
            }
            last_content.clone_from(&response.content);
            let calls = response.tool_calls;
            self.messages
                .push(ChatMessage::assistant(response.content, calls.clone()));

            let needs_approval: Vec<bool> =
                calls.iter().map(|call| self.needs_approval(call)).collect();
            let mut outcomes: Vec<Option<WireString>> = vec![None; calls.len()];
            let mut to_run = Vec::new();
            let mut positions = Vec::new();
            for (index, call) in calls.iter().enumerate() {
                if unanswerable.contains(&call.id) {
                    let text = format!(
                        "Error: the call of tool \"{}\" came without an id; it was not run.",
                        echo(&call.name)
                    );
                    let bounded = ToolLoopService::refuse(text);
                    outcomes[index] = Some(self.record_call(call, bounded));
                } else if !needs_approval[index] {
                    to_run.push(call.clone());
                    positions.push(index);
                }
            }
            for (position, wire) in positions.into_iter().zip(self.execute(&to_run).await) {
                outcomes[position] = Some(wire);
            }
            if outcomes.iter().any(Option::is_none) {
                return self.suspend(calls, outcomes);
            }
            for (call, outcome) in calls.iter().zip(outcomes) {
                let wire = outcome.expect("every call ran or was refused");
                self.answer(call, wire);
            }
        }
    }

    async fn ask(&self) -> Turn {
        let Some(provider) = self.service.provider() else {
            return Turn::Failed(RunError::NoProvider.to_string(), Duration::ZERO);
        };
        let specs: Vec<&ToolSpec> = self
            .scope
            .offered()
            .filter_map(|name| self.service.registry().get(name))
            .map(crate::tool::Tool::spec)
            .collect();
        let request = ProviderRequest {
            messages: &self.messages,
            tools: &specs,
            model: self.options.model.as_deref(),
            temperature: self.options.temperature,
        };
        let started = Instant::now();
        let call = provider.complete(request);
        let outcome = match &self.cancel {
            Some(cancel) => tokio::select! {
                outcome = call => outcome,
                () = cancel.cancelled() => return Turn::Cancelled,
            },
            None => call.await,
        };
        match outcome {
            Ok(response) => Turn::Response(response, started.elapsed()),
            Err(error) => Turn::Failed(error.to_string(), started.elapsed()),
        }
    }

    fn needs_approval(&self, call: &ToolCall) -> bool {
        self.service
            .registry()
            .get(&call.name)
            .is_some_and(|tool| tool.spec().flags().requires_approval)
            && self.scope.offered().any(|name| name == call.name)
    }

    /// Runs calls concurrently through the seam; results in the calls' order.
    async fn execute(&mut self, calls: &[ToolCall]) -> Vec<WireString> {
        let base = self.trace.steps.len();
        for (offset, call) in calls.iter().enumerate() {
            self.service.events().emit(RunEvent::StepStarted {
                run_id: self.run_id.clone(),
                index: base + offset,
                kind: "tool",
                tool: Some(echo(&call.name)),
            });
        }
        let service = self.service;
        let scope = &self.scope;
        let run_id = &self.run_id;
        let results = join_all(calls.iter().enumerate().map(|(offset, call)| async move {
            let bounded = service.invoke(scope, &call.name, &call.arguments).await;
            let (wire, invocation) = invocation(call, bounded);
            service.events().emit(RunEvent::ToolInvoked {
                run_id: run_id.clone(),
                index: base + offset,
                invocation: invocation.clone(),
            });
            (wire, invocation)
        }))
        .await;
        results
            .into_iter()
            .map(|(wire, invocation)| {
                self.trace.steps.push(RunStep::Tool(invocation));
                wire
            })
            .collect()
    }

    /// Records a call answered without running it.
    fn record_call(&mut self, call: &ToolCall, bounded: BoundedResult) -> WireString {
        let (wire, invocation) = invocation(call, bounded);
        self.step(RunStep::Tool(invocation));
        wire
    }

    fn answer(&mut self, call: &ToolCall, wire: WireString) {
        let message =
            ChatMessage::tool_result(call.id.clone(), wire).expect("every call has an id by now");
        self.messages.push(message);
    }

    fn suspend(mut self, calls: Vec<ToolCall>, results: Vec<Option<WireString>>) -> ToolLoopResult {
        let pending: Vec<ToolCall> = calls
            .iter()
            .zip(&results)
            .filter(|(_, result)| result.is_none())
            .map(|(call, _)| call.clone())
            .collect();
        self.step(RunStep::Suspended {
            pending: pending.clone(),
        });
        let state = SuspendedRunState {
            run_id: self.run_id.clone(),
            messages: self.messages.clone(),
            calls,
            results,
            iteration: self.iteration,
            max_iterations: self.options.max_iterations,
            tool_timeout_ms: u64::try_from(self.options.tool_timeout.as_millis())
                .unwrap_or(u64::MAX),
            remote_budget: self.options.remote_budget,
            remote_used: self.scope.remote_calls_used(),
            offered: self.scope.offered().map(str::to_owned).collect(),
            model: self.options.model.clone(),
            temperature: self.options.temperature,
            usage: self.usage,
        };
        let token = state.seal(self.service.seal_key());
        self.end(
            Termination::Suspended,
            String::new(),
            Some(Suspension { token, pending }),
        )
    }

    fn end(
        self,
        termination: Termination,
        content: String,
        suspension: Option<Suspension>,
    ) -> ToolLoopResult {
        self.service.events().emit(RunEvent::Done {
            run_id: self.run_id.clone(),
            termination,
            content: content.clone(),
        });
        ToolLoopResult {
            content,
            trace: self.trace,
            iterations: self.iteration,
            termination,
            usage: self.usage,
            messages: self.messages,
            suspension,
        }
    }
}

/// The wire content and the trace record of one call.
fn invocation(call: &ToolCall, bounded: BoundedResult) -> (WireString, ToolInvocation) {
    let duration = bounded.duration();
    let (wire, is_error, artifacts) = bounded.into_parts();
    let invocation = ToolInvocation {
        call_id: call.id.clone(),
        name: call.name.clone(),
        arguments: bound::cut_content(&call.arguments).unwrap_or_else(|| call.arguments.clone()),
        content: wire.as_str().to_owned(),
        is_error,
        artifacts,
        duration,
    };
    (wire, invocation)
}

fn kind_of(step: &RunStep) -> &'static str {
    match step {
        RunStep::Request { .. } => "request",
        RunStep::Llm { .. } => "llm",
        RunStep::Tool(_) => "tool",
        RunStep::Suspended { .. } => "suspended",
        RunStep::Resumed { .. } => "resumed",
    }
}

fn new_run_id() -> String {
    let mut bytes = [0u8; 8];
    // Ids only need to be distinct; a failing OS generator falls back to the clock.
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos());
        bytes = u64::try_from(nanos % u128::from(u64::MAX))
            .unwrap_or(0)
            .to_le_bytes();
    }
    format!("run_{:016x}", u64::from_le_bytes(bytes))
}

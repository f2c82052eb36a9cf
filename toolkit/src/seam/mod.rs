//! The seam: the one place where any tool executes, and where both channels are bounded.

use std::any::Any;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::ask::{Answers, Asked, Asking};
use crate::bound::{self, echo};
use crate::context::ToolContext;
pub use crate::filter::ContentFilter;
#[cfg(feature = "secrets")]
#[cfg_attr(docsrs, doc(cfg(feature = "secrets")))]
pub use crate::filter::SecretFilter;
use crate::limits::{ARGUMENT_LIMIT, DEFAULT_REMOTE_BUDGET, DEFAULT_TOOL_TIMEOUT};
use crate::registry::{Found, ToolRegistry};
use crate::report::ReportSink;
use crate::result::{ToolArtifact, ToolResult};
use crate::spec::{
    ArgumentError, BoxToolFuture, ExecutePermit, Execution, Tool, ToolFuture, ToolSpec,
};
use crate::wire::{ToolCall, WireString};
use crate::workers;

#[cfg(feature = "loop")]
mod approving;
mod cancel;
#[cfg(feature = "loop")]
#[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
pub use approving::CheckedEdit;
#[cfg(feature = "loop")]
pub(crate) use approving::Shown;
pub use cancel::CancelSignal;
use cancel::{Ended, within};

/// The one place where tools run: it checks each call, executes it under its limits and bounds
/// what comes back. It holds the registry and the content filter, and nothing else: no
/// provider, no seal key, no events. [`ToolLoopService`](crate::ToolLoopService) sits on top of
/// it (the loop, sealing, recording).
///
/// ```
/// use toolkit::{Seam, ToolContext, ToolRegistry};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let seam = Seam::new(ToolRegistry::new());
/// let scope = seam.scope(ToolContext::new())?;
/// let result = seam.invoke(&scope, "nope", "{}").await;
/// assert!(result.is_error());
/// assert_eq!(result.content(), "Error: unknown tool \"nope\"");
/// # Ok::<(), toolkit::seam::ScopeError>(())
/// # }).unwrap();
/// ```
pub struct Seam {
    registry: Arc<ToolRegistry>,
    filter: Option<Arc<dyn ContentFilter>>,
}

/// Proof that one exact call was approved as it was shown: its id, its tool, its argument
/// bytes, and, when its tool names a preview, a preview computed again just before the call
/// runs that is the one the approver was shown.
///
/// Only toolkit makes one (in `Seam::approve`, the one place that checks the preview), from an
/// operator's decision on a verified, unused token of a suspended run, a person's answer to a
/// [`Question`](crate::question::Question), an approval of the tool for the run or a policy's;
/// [`Seam::invoke_approved`] spends it. A tool that
/// [requires approval](crate::spec::ToolFlags::requires_approval) runs with nothing less.
#[derive(Debug)]
pub struct Approval {
    call_id: String,
    name: String,
    arguments: String,
}

impl Approval {
    /// The id of the call it approves.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    fn covers(&self, call: &ToolCall) -> bool {
        self.call_id == call.id && self.name == call.name && self.arguments == call.arguments
    }
}

impl Seam {
    /// A seam over these tools, with no content filter.
    pub fn new(registry: ToolRegistry) -> Self {
        Self {
            registry: Arc::new(registry),
            filter: None,
        }
    }

    /// The same seam filtering every tool's content with `filter` in the scopes it makes
    /// (a scope may set its own).
    #[must_use]
    pub fn with_content_filter(mut self, filter: Arc<dyn ContentFilter>) -> Self {
        self.filter = Some(filter);
        self
    }

    /// The tools this seam can run.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// A scope for one run with the defaults: the enabled-by-default tools the caller may use
    /// (admin tools only for an admin context), a budget of [`DEFAULT_REMOTE_BUDGET`] remote calls,
    /// a [`DEFAULT_TOOL_TIMEOUT`] per call, and this seam's content filter.
    ///
    /// Fails when an offered tool declares a state type (a `#[state]` parameter) that `context`
    /// does not hold: once, before any call, naming the tool and the type. To offer fewer tools
    /// than the defaults, use [`scope_offering`](Self::scope_offering).
    pub fn scope(&self, context: ToolContext) -> Result<RunScope, ScopeError> {
        let offered = self
            .registry
            .specs()
            .map(|spec| {
                let flags = spec.flags();
                flags.enabled_by_default() && (!flags.requires_admin() || context.is_admin())
            })
            .collect();
        self.scope_with(context, offered)
    }

    /// A scope like [`scope`](Self::scope)'s offering exactly these tools (whatever their
    /// flags): a name no tool has, or a tool whose declared state `context` lacks, is an error.
    ///
    /// The one way to choose what a scope offers: [`ToolLoopService::scope_offering`] is this
    /// seam's, and a loop run offering [`RunRequest::with_tools`] builds its scope here. Every
    /// registered tool: `seam.scope_offering(context, seam.registry().names())`.
    ///
    /// [`ToolLoopService::scope_offering`]: crate::ToolLoopService::scope_offering
    /// [`RunRequest::with_tools`]: crate::RunRequest::with_tools
    pub fn scope_offering<I, S>(
        &self,
        context: ToolContext,
        names: I,
    ) -> Result<RunScope, ScopeError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let offered = offered_by_name(&self.registry, names)?;
        self.scope_with(context, offered)
    }

    fn scope_with(
        &self,
        context: ToolContext,
        offered: Box<[bool]>,
    ) -> Result<RunScope, ScopeError> {
        check_states(&self.registry, &offered, &context)?;
        Ok(RunScope {
            registry: Arc::clone(&self.registry),
            offered,
            remote_budget: DEFAULT_REMOTE_BUDGET,
            remote_used: AtomicU32::new(0),
            timeout: DEFAULT_TOOL_TIMEOUT,
            read_only: false,
            cancel: None,
            context: context.with_filter(self.filter.clone()),
        })
    }

    /// Checks, executes and bounds one call. The only place any tool runs, and where every
    /// [`WireString`] of a call is made.
    ///
    /// In order: an unknown name, a tool not offered in this scope, a tool not marked read-only
    /// in a [read-only scope](RunScope::read_only), a remote call past the scope's budget
    /// (charged once the checks before it pass), arguments longer than [`ARGUMENT_LIMIT`], a
    /// tool that requires approval (use [`invoke_approved`](Self::invoke_approved) with the
    /// operator's [`Approval`]; its arguments are not even decoded without one), and arguments
    /// that do not decode each give an error result and the tool does not run; a panic or a
    /// timeout gives `Error: tool "NAME" failed.` (the panic message goes to the log), and the
    /// scope's [cancel signal](RunScope::with_cancel) `Error: the call of tool "NAME" was
    /// cancelled before it finished.` (given before the call, the tool does not run). Then an
    /// error result loses its artifacts, content passes the content filter, and both channels
    /// are bounded (see [`bound`]).
    ///
    /// What the tool reports while it runs goes to the scope's
    /// [report sink](RunScope::with_reports) under an empty call id; [`invoke_call`](Self::invoke_call)
    /// names the call.
    pub async fn invoke(&self, scope: &RunScope, name: &str, arguments: &str) -> BoundedResult {
        self.invoke_as(scope, "", name, arguments, None).await
    }

    /// [`invoke`](Self::invoke) for `call`: the same checks and result, and what its tool
    /// reports while it runs goes to the scope's [report sink](RunScope::with_reports) under
    /// the call's id (several calls of one scope running at once are told apart).
    pub async fn invoke_call(&self, scope: &RunScope, call: &ToolCall) -> BoundedResult {
        self.invoke_as(scope, &call.id, &call.name, &call.arguments, None)
            .await
    }

    /// [`invoke_call`](Self::invoke_call) for a caller that can ask the person: the call runs
    /// with `answers`, and its tool's [`ToolContext::ask`] gives those; a question it has no
    /// answer to makes the call [`Invoked::Asking`] (what the tool returned then is dropped),
    /// to be run again with the answers so far and the new ones (see [`talk`](crate::talk)).
    pub async fn invoke_answering(
        &self,
        scope: &RunScope,
        call: &ToolCall,
        answers: Answers,
    ) -> Invoked {
        let asking = Arc::new(Asking::new(answers));
        let result = self
            .invoke_as(scope, &call.id, &call.name, &call.arguments, Some(&asking))
            .await;
        let asked = asking.take_asked();
        if asked.is_empty() {
            Invoked::Done(result)
        } else {
            Invoked::Asking { asked }
        }
    }

    async fn invoke_as(
        &self,
        scope: &RunScope,
        call_id: &str,
        name: &str,
        arguments: &str,
        asking: Option<&Arc<Asking>>,
    ) -> BoundedResult {
        let own = scope.context.for_one_call(call_id, asking);
        let context = own.as_ref().unwrap_or(&scope.context);
        let result = match self.start(scope, context, name, arguments, false) {
            Started::Finished(result) => result,
            // Boxed: the ready path's future carries none of the waiting state.
            started => Box::pin(self.wait(started, scope, context, name, arguments)).await,
        };
        BoundedResult::bound(result, scope.context.filter())
    }

    /// The same checks as [`invoke`](Self::invoke) for a call an operator approved: `approval`
    /// must be for exactly this call (its id, tool and argument bytes), else nothing runs.
    pub async fn invoke_approved(
        &self,
        scope: &RunScope,
        call: &ToolCall,
        approval: Approval,
    ) -> BoundedResult {
        let result = if approval.covers(call) {
            let own = scope.context.for_one_call(&call.id, None);
            let context = own.as_ref().unwrap_or(&scope.context);
            let started = self.start(scope, context, &call.name, &call.arguments, true);
            self.wait(started, scope, context, &call.name, &call.arguments)
                .await
        } else {
            ToolResult::error(format!(
                "Error: the approval given is not for call \"{}\" of tool \"{}\" with these arguments; it was not run.",
                echo(&call.id),
                echo(&call.name)
            ))
        };
        BoundedResult::bound(result, scope.context.filter())
    }

    /// The result of a call [`start`](Self::start)ed: waited for under the timeout when the
    /// tool waits or runs on a worker.
    async fn wait(
        &self,
        started: Started<'_>,
        scope: &RunScope,
        context: &ToolContext,
        name: &str,
        arguments: &str,
    ) -> ToolResult {
        let outcome = match started {
            Started::Finished(result) => return result,
            Started::Waiting(future) => run_pending(future, scope).await,
            Started::OnWorker(index) => self.run_on_worker(index, arguments, scope, context).await,
        };
        finished(name, outcome)
    }

    /// The checks, in order, before a tool runs: the tool, or why it does not run. The one
    /// place their order is written: a call about to run and a look before a run stops for an
    /// operator both come here.
    #[inline]
    fn check<'a>(
        &'a self,
        scope: &RunScope,
        name: &str,
        arguments: &str,
        check: Check,
    ) -> Result<Found<'a>, Refusal<'a>> {
        let Some(found) = self.registry.lookup(name) else {
            return Err(Refusal::Unknown);
        };
        if !scope.offers(&self.registry, found.index) {
            return Err(Refusal::NotPermitted);
        }
        if scope.read_only && !found.policy.flags.read_only() {
            return Err(Refusal::Writes);
        }
        let runs = matches!(check, Check::Run { .. });
        if runs && found.policy.flags.remote() && !scope.charge_remote_call() {
            return Err(Refusal::OverBudget);
        }
        if arguments.len() > ARGUMENT_LIMIT {
            return Err(Refusal::TooLong);
        }
        if matches!(check, Check::Run { approved: false }) && found.policy.flags.requires_approval()
        {
            return Err(Refusal::NotApproved(found.tool));
        }
        Ok(found)
    }

    /// The checks, then the tool's `execute` when it runs on the calling thread.
    fn start<'a>(
        &'a self,
        scope: &RunScope,
        context: &'a ToolContext,
        name: &str,
        arguments: &'a str,
        approved: bool,
    ) -> Started<'a> {
        match self.check(scope, name, arguments, Check::Run { approved }) {
            Err(refusal) => refusal.result(scope, name, arguments),
            // Given up before it started: it does not start.
            Ok(_) if scope.is_cancelled() => {
                Started::Finished(finished(name, Err(Failure::Cancelled)))
            }
            Ok(found) if found.policy.execution == Execution::Blocking => {
                Started::OnWorker(found.index)
            }
            Ok(found) => match execute_here(found.tool, arguments, context) {
                Ok(ToolFuture::Ready(Ok(result))) => Started::Finished(result),
                other => not_ready(name, other),
            },
        }
    }

    /// Runs a blocking tool on a worker thread and waits for it under the scope's timeout.
    async fn run_on_worker(
        &self,
        index: usize,
        arguments: &str,
        scope: &RunScope,
        context: &ToolContext,
    ) -> Outcome {
        let registry = Arc::clone(&self.registry);
        let arguments = arguments.to_owned();
        let cancel = Arc::new(AtomicBool::new(false));
        let context = context.for_call(Arc::clone(&cancel));
        let (sender, receiver) = tokio::sync::oneshot::channel();
        let job = Box::new(move || {
            let tool = registry.at(index);
            let ran = panic::catch_unwind(AssertUnwindSafe(|| {
                match tool.execute(&arguments, &context, &ExecutePermit(())) {
                    ToolFuture::Ready(outcome) => Ok(outcome),
                    ToolFuture::Pending(_) => Err(Failure::NotBlocking),
                }
            }));
            let outcome = ran
                .unwrap_or_else(|payload| Err(Failure::Panicked(panic_message(payload.as_ref()))));
            // The caller may have stopped waiting (a timeout): nobody to tell.
            let _ = sender.send(outcome);
        });
        if workers::submit(job).is_err() {
            return Err(Failure::NoWorker);
        }
        // Whatever ends this wait (the outcome, the timeout, the scope's cancel signal, the
        // caller dropping the call) tells the tool to stop: `ToolContext::is_cancelled`.
        let _stop = RaiseOnDrop(cancel);
        match within(receiver, scope.timeout, scope.cancel.as_ref()).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(_)) => Err(Failure::NoWorker),
            Err(ended) => Err(Failure::ended(ended, scope.timeout)),
        }
    }
}

/// Raises its flag when dropped.
struct RaiseOnDrop(Arc<AtomicBool>);

impl Drop for RaiseOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What running a tool gave: its outcome, or why there is none.
type Outcome = Result<Result<ToolResult, ArgumentError>, Failure>;

/// How far [`Seam::start`] got.
enum Started<'a> {
    /// The result: a refusal, or what a tool that ran on the calling thread gave.
    Finished(ToolResult),
    /// The tool waits: its future, to poll under the timeout.
    Waiting(BoxToolFuture<'a>),
    /// A blocking tool, to run on a worker.
    OnWorker(usize),
}

/// Why [`Seam::check`] refused a call.
#[derive(Clone, Copy)]
enum Refusal<'a> {
    Unknown,
    NotPermitted,
    /// The scope runs only read-only tools, and this one is not.
    Writes,
    OverBudget,
    TooLong,
    /// The tool needs an operator's approval, which the call does not have.
    NotApproved(&'a dyn Tool),
}

impl Refusal<'_> {
    /// The error result the caller gets.
    #[cold]
    fn result<'a>(self, scope: &RunScope, name: &str, arguments: &str) -> Started<'a> {
        Started::Finished(ToolResult::error(self.message(scope, name, arguments)))
    }

    /// What the caller is told.
    #[cold]
    fn message(self, scope: &RunScope, name: &str, arguments: &str) -> String {
        match self {
            Refusal::Unknown => unknown(name),
            Refusal::NotPermitted => not_permitted(name),
            Refusal::Writes => writes(name),
            Refusal::OverBudget => over_budget(scope.remote_budget, name),
            Refusal::TooLong => too_long(name, arguments),
            Refusal::NotApproved(tool) => not_approved(tool, name, arguments),
        }
    }
}

/// What [`Seam::check`] checks for.
#[derive(Clone, Copy)]
enum Check {
    /// A call about to run: charged to the remote budget, and refused without an approval
    /// when its tool needs one.
    Run { approved: bool },
    /// A look before a run stops for an operator: nothing charged, no approval asked.
    #[cfg_attr(not(feature = "loop"), allow(dead_code))]
    Look,
}

/// Calls `execute` on the calling thread, catching a panic.
#[inline]
fn execute_here<'a>(
    tool: &'a dyn Tool,
    arguments: &'a str,
    context: &'a ToolContext,
) -> std::thread::Result<ToolFuture<'a>> {
    let permit = ExecutePermit(());
    panic::catch_unwind(AssertUnwindSafe(|| {
        tool.execute(arguments, context, &permit)
    }))
}

/// How far a call got when `execute` did not give a result at once: a future to wait for, or
/// the result of arguments that did not decode or of a panic.
#[cold]
fn not_ready<'a>(name: &str, executed: std::thread::Result<ToolFuture<'a>>) -> Started<'a> {
    match executed {
        Ok(ToolFuture::Pending(future)) => Started::Waiting(future),
        Ok(ToolFuture::Ready(outcome)) => Started::Finished(finished(name, Ok(outcome))),
        Err(payload) => Started::Finished(finished(
            name,
            Err(Failure::Panicked(panic_message(payload.as_ref()))),
        )),
    }
}

/// The result of a tool that ran (or failed to).
fn finished(name: &str, outcome: Outcome) -> ToolResult {
    match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(invalid)) => ToolResult::error(argument_error_message(name, &invalid)),
        Err(Failure::Cancelled) => {
            tracing::info!(tool = %echo(name), "tool call cancelled");
            ToolResult::error(format!(
                "Error: the call of tool \"{}\" was cancelled before it finished.",
                echo(name)
            ))
        }
        Err(failure) => {
            tracing::error!(tool = %echo(name), reason = %failure, "tool call failed");
            ToolResult::error(format!("Error: tool \"{}\" failed.", echo(name)))
        }
    }
}

#[cold]
fn unknown(name: &str) -> String {
    format!("Error: unknown tool \"{}\"", echo(name))
}

#[cold]
fn not_permitted(name: &str) -> String {
    format!("Error: tool \"{}\" not permitted", echo(name))
}

#[cold]
fn writes(name: &str) -> String {
    format!(
        "Error: tool \"{}\" is not read-only, and this scope runs only read-only tools; it was not run.",
        echo(name)
    )
}

#[cold]
fn over_budget(budget: u32, name: &str) -> String {
    format!(
        "Error: this run has used its budget of {budget} calls to external tools; \"{}\" was not called.",
        echo(name)
    )
}

/// Why a call that needs an operator's approval and has none does not run: its arguments'
/// fault first, so that nobody is told to approve a call that could not run.
#[cold]
fn not_approved(tool: &dyn Tool, name: &str, arguments: &str) -> String {
    match tool.check_arguments(arguments) {
        Err(invalid) => argument_error_message(name, &invalid),
        Ok(()) => approval_not_given(name),
    }
}

#[cold]
fn too_long(name: &str, arguments: &str) -> String {
    format!(
        "Error: invalid arguments for tool \"{}\": {} bytes of arguments; the limit is {ARGUMENT_LIMIT}.",
        echo(name),
        arguments.len()
    )
}

/// The result text for a call that needs an operator's approval and has none.
pub(crate) fn approval_not_given(name: &str) -> String {
    format!(
        "Error: tool \"{}\" requires approval that was not given.",
        echo(name)
    )
}

impl std::fmt::Debug for Seam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seam")
            .field("registry", &self.registry)
            .field("filtered", &self.filter.is_some())
            .finish()
    }
}

fn argument_error_message(name: &str, invalid: &ArgumentError) -> String {
    let name = echo(name);
    if invalid.path() == "." {
        format!(
            "Error: invalid arguments for tool \"{name}\": {}.",
            invalid.message()
        )
    } else {
        format!(
            "Error: invalid arguments for tool \"{name}\" at \"{}\": {}.",
            invalid.path(),
            invalid.message()
        )
    }
}

/// Why a call gave no result.
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error("panicked: {0}")]
    Panicked(String),
    #[error("timed out after {0:?}")]
    TimedOut(Duration),
    /// Not a failure of the tool: its caller gave the scope's cancel signal.
    #[error("cancelled")]
    Cancelled,
    #[error("a blocking tool returned a future; only async tools may wait")]
    NotBlocking,
    #[error("no worker thread could be started")]
    NoWorker,
}

impl Failure {
    /// Why a wait for a tool under `timeout` ended without the tool's outcome.
    fn ended(ended: Ended, timeout: Duration) -> Self {
        match ended {
            Ended::TimedOut => Failure::TimedOut(timeout),
            Ended::Cancelled => Failure::Cancelled,
        }
    }
}

/// Polls a tool's future under the scope's timeout and cancel signal; when either ends the
/// wait, the future is dropped, and the tool with it.
async fn run_pending(future: BoxToolFuture<'_>, scope: &RunScope) -> Outcome {
    match within(CatchUnwind(future), scope.timeout, scope.cancel.as_ref()).await {
        Ok(Ok(outcome)) => Ok(outcome),
        Ok(Err(message)) => Err(Failure::Panicked(message)),
        Err(ended) => Err(Failure::ended(ended, scope.timeout)),
    }
}

/// Polls a tool's future, turning a panic inside it into the panic's message.
struct CatchUnwind<'a>(BoxToolFuture<'a>);

impl Future for CatchUnwind<'_> {
    type Output = Result<Result<ToolResult, ArgumentError>, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = &mut self.0;
        match panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(outcome)) => Poll::Ready(Ok(outcome)),
            Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a panic with a payload that is not a string".to_owned()
    }
}

/// What one run may use: the tools offered, the remote-call budget, the per-call timeout, the
/// signal that cancels its calls and the [`ToolContext`] tools see.
pub struct RunScope {
    registry: Arc<ToolRegistry>,
    offered: Box<[bool]>,
    remote_budget: u32,
    remote_used: AtomicU32,
    timeout: Duration,
    read_only: bool,
    cancel: Option<CancelSignal>,
    // Holds the run's content filter too (tools may apply it to what they cut or search).
    context: ToolContext,
}

/// Why a scope cannot offer the tools it was asked to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScopeError {
    /// A name no tool has.
    #[error("cannot offer tool \"{0}\": no tool of that name is registered")]
    NotRegistered(String),
    /// Offered tools read states the context does not hold: every one of them, in registry
    /// order.
    #[error("{}", missing_states(.0))]
    MissingStates(Vec<MissingState>),
}

/// A state an offered tool reads and the context does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MissingState {
    /// The tool.
    pub tool: String,
    /// The state type as the tool's code writes it (`Db` for `#[state] db: &Db`).
    pub written: &'static str,
    /// The state type, as `std::any::type_name` gives it.
    pub type_name: &'static str,
    /// The context holds an `Arc` of it instead (`with_extension(Arc::new(db))`).
    pub in_arc: bool,
}

/// Every missing state, each with its tool, then what to do.
fn missing_states(missing: &[MissingState]) -> String {
    let named: Vec<String> = missing
        .iter()
        .map(|state| {
            let written = state.written;
            let full = if written == state.type_name {
                String::new()
            } else {
                format!(" ({})", state.type_name)
            };
            let in_arc = if state.in_arc {
                format!(
                    ", and the context holds an `Arc<{written}>` instead: give `with_extension` \
                     the `{written}` itself (the context shares it already)"
                )
            } else {
                String::new()
            };
            format!("tool \"{}\" reads `{written}`{full}{in_arc}", state.tool)
        })
        .collect();
    format!(
        "the context does not hold the state offered tools read: {}. Add each with \
         `ToolContext::with_extension`, or offer only the tools whose state is there \
         (`Seam::scope_offering`)",
        named.join("; ")
    )
}

/// The tools of these names, as a registry-wide offer.
fn offered_by_name<I, S>(registry: &ToolRegistry, names: I) -> Result<Box<[bool]>, ScopeError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut offered = vec![false; registry.len()].into_boxed_slice();
    for name in names {
        let name = name.as_ref();
        let index = registry
            .index_of(name)
            .ok_or_else(|| ScopeError::NotRegistered(echo(name)))?;
        offered[index] = true;
    }
    Ok(offered)
}

/// Every state an offered tool declares and `context` lacks, in registry order.
fn check_states(
    registry: &ToolRegistry,
    offered: &[bool],
    context: &ToolContext,
) -> Result<(), ScopeError> {
    let missing: Vec<MissingState> = registry
        .specs()
        .zip(offered)
        .filter(|(_, offered)| **offered)
        .flat_map(|(spec, _)| {
            spec.states()
                .iter()
                .filter(|state| !context.has_state(**state))
                .map(|state| MissingState {
                    tool: spec.name().to_owned(),
                    written: state.written(),
                    type_name: state.type_name(),
                    in_arc: context.holds(state.in_arc()),
                })
        })
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(ScopeError::MissingStates(missing))
    }
}

impl RunScope {
    /// The same scope with another budget of remote calls.
    #[must_use]
    pub fn with_remote_budget(mut self, calls: u32) -> Self {
        self.remote_budget = calls;
        self
    }

    /// The same scope filtering every tool's content with `filter` (instead of the seam's).
    #[must_use]
    pub fn with_content_filter(mut self, filter: Arc<dyn ContentFilter>) -> Self {
        self.context = self.context.with_filter(Some(filter));
        self
    }

    /// The same scope with no content filter.
    #[must_use]
    pub fn without_content_filter(mut self) -> Self {
        self.context = self.context.with_filter(None);
        self
    }

    /// The same scope running only tools marked [read-only](crate::spec::ToolFlags::read_only):
    /// a call of any other tool is refused and does not run, whatever it is offered or approved.
    /// The loop runs every preview in such a scope.
    #[must_use]
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// The same scope with another per-call timeout.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The same scope whose calls `signal` cancels: once it is given, a call waiting for its
    /// tool ends at once with `Error: the call of tool "NAME" was cancelled before it
    /// finished.` (a blocking tool sees [`ToolContext::is_cancelled`] become true, an async
    /// tool's future is dropped), as a timeout ends it, and no call of the scope starts after.
    ///
    /// A loop run's scope takes its request's signal ([`RunRequest::with_cancel`]); an MCP
    /// server gives each call's scope one that the client's `notifications/cancelled` or a
    /// closed connection gives. The recorder records such a call's run as cancelled.
    ///
    /// [`RunRequest::with_cancel`]: crate::RunRequest::with_cancel
    #[must_use]
    pub fn with_cancel(mut self, signal: CancelSignal) -> Self {
        self.cancel = Some(signal);
        self
    }

    /// The same scope whose calls report to `sink` what their tools say while they run
    /// ([`ToolContext::progress`], [`ToolContext::log`]), each report under its call's id (see
    /// [`Seam::invoke_call`]). A loop run's scope has one that makes
    /// [`RunEvent::ToolReport`](crate::RunEvent::ToolReport)s; an MCP server's, one that
    /// notifies the client. Reports are never model content: see [`talk`](crate::talk).
    #[must_use]
    pub fn with_reports(mut self, sink: Arc<dyn ReportSink>) -> Self {
        self.context = self.context.with_reports(sink);
        self
    }

    /// Whether the scope's cancel signal was given.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(CancelSignal::is_cancelled)
    }

    /// The names of the tools offered, in registry order.
    pub fn offered(&self) -> impl Iterator<Item = &str> + '_ {
        self.offered_specs().map(ToolSpec::name)
    }

    /// The specs of the tools offered, in registry order.
    pub(crate) fn offered_specs(&self) -> impl Iterator<Item = &ToolSpec> + '_ {
        self.registry
            .specs()
            .zip(self.offered.iter())
            .filter(|(_, offered)| **offered)
            .map(|(spec, _)| spec)
    }

    /// Remote calls charged so far.
    pub fn remote_calls_used(&self) -> u32 {
        self.remote_used.load(Ordering::Relaxed)
    }

    /// The context tools see.
    pub fn context(&self) -> &ToolContext {
        &self.context
    }

    fn offers(&self, registry: &Arc<ToolRegistry>, index: usize) -> bool {
        // A scope from another service offers nothing of this one.
        Arc::ptr_eq(registry, &self.registry) && self.offered[index]
    }

    fn charge_remote_call(&self) -> bool {
        self.remote_used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                (used < self.remote_budget).then_some(used + 1)
            })
            .is_ok()
    }
}

impl std::fmt::Debug for RunScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunScope")
            .field("offered", &self.offered().collect::<Vec<_>>())
            .field("remote_budget", &self.remote_budget)
            .field("remote_used", &self.remote_calls_used())
            .field("timeout", &self.timeout)
            .field("cancelled", &self.is_cancelled())
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

/// What [`Seam::invoke_answering`](crate::Seam::invoke_answering) gives: the call's result, or
/// the questions it waits for.
#[derive(Debug)]
#[non_exhaustive]
pub enum Invoked {
    /// The call ran to its end with the answers it had (or asked nothing).
    Done(BoundedResult),
    /// The call asked questions it has no answer to: ask the person each, then run the call
    /// again with the answers so far and these. What the tool returned meanwhile is dropped:
    /// nobody, the model least, reads it.
    #[non_exhaustive]
    Asking {
        /// The questions, in the order asked.
        asked: Vec<Asked>,
    },
}

/// A result that passed the seam: content bounded and turned into a [`WireString`] (its media
/// checked and bounded), artifacts bounded (none on an error).
#[derive(Clone, Debug)]
pub struct BoundedResult {
    content: WireString,
    artifacts: Vec<ToolArtifact>,
}

impl BoundedResult {
    #[inline]
    fn bound(result: ToolResult, filter: Option<&dyn ContentFilter>) -> Self {
        let (content, is_error, media, artifacts) = result.into_parts();
        // What fits as it is passes as it is: no media, no artifact to bound, content within
        // the limit.
        if media.is_empty()
            && artifacts.is_empty()
            && filter.is_none()
            && content.len() <= crate::limits::CONTENT_LIMIT
        {
            return Self {
                content: WireString::after_seam(content, is_error),
                artifacts,
            };
        }
        Self::bound_all(content, is_error, media, artifacts, filter)
    }

    #[cold]
    fn bound_all(
        content: String,
        is_error: bool,
        media: Vec<crate::media::Media>,
        mut artifacts: Vec<ToolArtifact>,
        filter: Option<&dyn ContentFilter>,
    ) -> Self {
        // A failed result shows its message only: no media, no artifacts.
        let media = if is_error {
            crate::media::BoundedMedia::default()
        } else {
            crate::media::bound_media(media, filter)
        };
        let artifacts = if is_error {
            Vec::new()
        } else {
            artifacts.extend(
                media
                    .not_shown
                    .into_iter()
                    .map(|(label, mime_type, bytes)| ToolArtifact::media(label, mime_type, bytes)),
            );
            bound::bound_artifacts(artifacts)
        };
        let limit = crate::limits::CONTENT_LIMIT - media.notes.len();
        let mut content = match filter {
            None => bound::bound_content_to(content, limit),
            Some(filter) => bound::bound_filtered_content_to(content, filter, limit),
        };
        if !media.notes.is_empty() {
            content.push_str(if content.is_empty() {
                media.notes.trim_start_matches('\n')
            } else {
                &media.notes
            });
        }
        Self {
            content: WireString::after_seam_with(content, is_error, media.shown),
            artifacts,
        }
    }

    /// The bounded content as the tool-result message takes it: what goes to the provider.
    pub fn wire(&self) -> &WireString {
        &self.content
    }

    /// The bounded content's text.
    pub fn content(&self) -> &str {
        self.content.as_str()
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.content.is_error()
    }

    /// The bounded artifacts: for the trace, the event stream and the audit copy only.
    pub fn artifacts(&self) -> &[ToolArtifact] {
        &self.artifacts
    }

    /// The parts: wire content, error flag, artifacts.
    pub fn into_parts(self) -> (WireString, bool, Vec<ToolArtifact>) {
        let is_error = self.content.is_error();
        (self.content, is_error, self.artifacts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_reads_as_its_message_whatever_its_payload() {
        assert_eq!(panic_message(&"static text"), "static text");
        assert_eq!(panic_message(&String::from("owned text")), "owned text");
        assert_eq!(
            panic_message(&42_u8),
            "a panic with a payload that is not a string"
        );
    }
}

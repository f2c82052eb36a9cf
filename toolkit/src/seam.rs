//! The seam: the one place where any tool executes, and where both channels are bounded.

use std::any::Any;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::bound::{self, echo};
use crate::context::ToolContext;
use crate::registry::ToolRegistry;
use crate::result::{ToolArtifact, ToolResult};
use crate::tool::{ArgumentError, BoxToolFuture, ExecutePermit, ToolFuture};
use crate::wire::WireString;

/// How many calls to remote tools one run may make unless told otherwise.
pub const DEFAULT_REMOTE_BUDGET: u32 = 20;

/// Largest arguments text decoded, in bytes; larger arguments are refused before decoding.
pub const ARGUMENT_LIMIT: usize = 1024 * 1024;

/// How long one tool call may wait unless told otherwise.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(30);

/// The one place where tools run: it checks each call, executes it under its limits and bounds
/// what comes back. It holds the registry and nothing else: no provider, no seal key, no events.
/// [`ToolLoopService`](crate::ToolLoopService) sits on top of it (the loop, sealing, recording).
///
/// ```
/// use toolkit::{Seam, ToolContext, ToolRegistry};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let seam = Seam::new(ToolRegistry::new());
/// let scope = seam.scope(ToolContext::new());
/// let result = seam.invoke(&scope, "nope", "{}").await;
/// assert!(result.is_error());
/// assert_eq!(result.content().as_str(), "Error: unknown tool \"nope\"");
/// # });
/// ```
pub struct Seam {
    registry: Arc<ToolRegistry>,
}

impl Seam {
    /// A seam over these tools.
    pub fn new(registry: ToolRegistry) -> Self {
        Self {
            registry: Arc::new(registry),
        }
    }

    /// The tools this seam can run.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// An error result that did not come from a tool (a refusal), bounded like any other.
    #[cfg(feature = "loop")]
    pub(crate) fn refuse(message: String) -> BoundedResult {
        BoundedResult::bound(ToolResult::error(message))
    }

    /// A scope for one run with the defaults: the enabled-by-default tools the caller may use
    /// (admin tools only for an admin context), a budget of [`DEFAULT_REMOTE_BUDGET`] remote calls,
    /// and a [`DEFAULT_TOOL_TIMEOUT`] per call.
    pub fn scope(&self, context: ToolContext) -> RunScope {
        let offered = self
            .registry
            .specs()
            .map(|spec| {
                let flags = spec.flags();
                flags.enabled_by_default() && (!flags.requires_admin() || context.is_admin())
            })
            .collect();
        RunScope {
            registry: Arc::clone(&self.registry),
            offered,
            remote_budget: DEFAULT_REMOTE_BUDGET,
            remote_used: AtomicU32::new(0),
            timeout: DEFAULT_TOOL_TIMEOUT,
            context,
        }
    }

    /// Checks, executes and bounds one call. The only place any tool runs, and the only producer
    /// of [`WireString`].
    ///
    /// In order: an unknown name, a tool not offered in this scope, a remote call past the
    /// scope's budget (charged once the first two checks pass) and arguments that do not decode
    /// each give an error result and the tool does not run; a panic or a timeout gives
    /// `Error: tool "NAME" failed.` (the panic message goes to the log). Then an error result
    /// loses its artifacts and both channels are bounded (see [`bound`]).
    pub async fn invoke(&self, scope: &RunScope, name: &str, arguments: &str) -> BoundedResult {
        BoundedResult::bound(self.check_and_execute(scope, name, arguments).await)
    }

    async fn check_and_execute(&self, scope: &RunScope, name: &str, arguments: &str) -> ToolResult {
        let Some(index) = self.registry.index_of(name) else {
            return ToolResult::error(format!("Error: unknown tool \"{}\"", echo(name)));
        };
        if !scope.offers(&self.registry, index) {
            return ToolResult::error(format!("Error: tool \"{}\" not permitted", echo(name)));
        }
        let tool = self.registry.at(index);
        if tool.spec().flags().remote() && !scope.charge_remote_call() {
            return ToolResult::error(format!(
                "Error: this run has used its budget of {} calls to external tools; \"{}\" was not called.",
                scope.remote_budget,
                echo(name)
            ));
        }
        if arguments.len() > ARGUMENT_LIMIT {
            return ToolResult::error(format!(
                "Error: invalid arguments for tool \"{}\": {} bytes of arguments; the limit is {ARGUMENT_LIMIT}.",
                echo(name),
                arguments.len()
            ));
        }
        let outcome = match panic::catch_unwind(AssertUnwindSafe(|| {
            tool.execute(arguments, &scope.context, ExecutePermit(()))
        })) {
            Ok(ToolFuture::Ready(outcome)) => Ok(outcome),
            // Boxed so that the timer's state does not weigh on every call's future.
            Ok(ToolFuture::Pending(future)) => Box::pin(run_pending(future, scope.timeout)).await,
            Err(payload) => Err(Failure::Panicked(panic_message(payload.as_ref()))),
        };
        match outcome {
            Ok(Ok(result)) => result,
            Ok(Err(invalid)) => ToolResult::error(argument_error_message(name, &invalid)),
            Err(failure) => {
                tracing::error!(tool = %echo(name), reason = %failure, "tool call failed");
                ToolResult::error(format!("Error: tool \"{}\" failed.", echo(name)))
            }
        }
    }
}

impl std::fmt::Debug for Seam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seam")
            .field("registry", &self.registry)
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
}

async fn run_pending(
    future: BoxToolFuture<'_>,
    timeout: Duration,
) -> Result<Result<ToolResult, ArgumentError>, Failure> {
    match tokio::time::timeout(timeout, CatchUnwind(future)).await {
        Ok(Ok(outcome)) => Ok(outcome),
        Ok(Err(message)) => Err(Failure::Panicked(message)),
        Err(_) => Err(Failure::TimedOut(timeout)),
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

/// What one run may use: the tools offered, the remote-call budget, the per-call timeout and
/// the [`ToolContext`] tools see.
pub struct RunScope {
    registry: Arc<ToolRegistry>,
    offered: Box<[bool]>,
    remote_budget: u32,
    remote_used: AtomicU32,
    timeout: Duration,
    context: ToolContext,
}

/// A name offered to a run that no tool has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot offer tool \"{0}\": no tool of that name is registered")]
pub struct NotRegistered(pub String);

impl RunScope {
    /// The same scope offering exactly these tools (whatever their flags).
    pub fn offer<I, S>(mut self, names: I) -> Result<Self, NotRegistered>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut offered = vec![false; self.registry.len()].into_boxed_slice();
        for name in names {
            let name = name.as_ref();
            let index = self
                .registry
                .index_of(name)
                .ok_or_else(|| NotRegistered(echo(name)))?;
            offered[index] = true;
        }
        self.offered = offered;
        Ok(self)
    }

    /// The same scope offering every registered tool.
    #[must_use]
    pub fn offer_all(mut self) -> Self {
        self.offered = vec![true; self.registry.len()].into_boxed_slice();
        self
    }

    /// The same scope with another budget of remote calls.
    #[must_use]
    pub fn with_remote_budget(mut self, calls: u32) -> Self {
        self.remote_budget = calls;
        self
    }

    /// The same scope with `used` remote calls already charged (a resumed run's).
    #[cfg(feature = "loop")]
    #[must_use]
    pub(crate) fn with_remote_used(self, used: u32) -> Self {
        self.remote_used.store(used, Ordering::Relaxed);
        self
    }

    /// The same scope with another per-call timeout.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The names of the tools offered, in registry order.
    pub fn offered(&self) -> impl Iterator<Item = &str> + '_ {
        self.registry
            .specs()
            .zip(self.offered.iter())
            .filter(|(_, offered)| **offered)
            .map(|(spec, _)| spec.name())
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
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

/// A result that passed the seam: content bounded and turned into a [`WireString`], artifacts
/// bounded (none on an error).
#[derive(Clone, Debug)]
pub struct BoundedResult {
    content: WireString,
    is_error: bool,
    artifacts: Vec<ToolArtifact>,
}

impl BoundedResult {
    fn bound(result: ToolResult) -> Self {
        let (content, is_error, artifacts) = result.into_parts();
        let artifacts = if is_error {
            Vec::new()
        } else {
            bound::bound_artifacts(artifacts)
        };
        let content = WireString::after_seam(bound::bound_content(content), is_error);
        Self {
            content,
            is_error,
            artifacts,
        }
    }

    /// The bounded content: what goes to the provider.
    pub fn content(&self) -> &WireString {
        &self.content
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// The bounded artifacts: for the trace, the event stream and the audit copy only.
    pub fn artifacts(&self) -> &[ToolArtifact] {
        &self.artifacts
    }

    /// The parts: wire content, error flag, artifacts.
    pub fn into_parts(self) -> (WireString, bool, Vec<ToolArtifact>) {
        (self.content, self.is_error, self.artifacts)
    }
}

#[cfg(test)]
mod tests {
    use super::panic_message;

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

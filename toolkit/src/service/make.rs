//! Making a service and configuring it: its first methods in its rustdoc.

use crate::approval::ApprovalPolicy;
use crate::ask::Answers;
use crate::context::ToolContext;
use crate::filter::ContentFilter;
use crate::limits::DEFAULT_TOKEN_LIFETIME;
use crate::recording::{Answering, ObservedCall, Recorder, Sink, Subscription};
use crate::registry::ToolRegistry;
use crate::replay::{MemoryReplayStore, ReplayStore};
use crate::seal::{SealKey, SuspendedRunState, TokenError};
use crate::seam::{BoundedResult, RunScope, ScopeError, Seam};
use crate::wire::ToolCall;
use std::sync::Arc;
use std::time::Duration;

use super::ToolLoopService;

impl ToolLoopService {
    /// A service over these tools, with a random seal key, tokens that open once within
    /// [`DEFAULT_TOKEN_LIFETIME`] (recorded in a [`MemoryReplayStore`]), no content filter and a
    /// recorder with no sink.
    pub fn new(registry: ToolRegistry) -> Self {
        Self {
            seam: Seam::new(registry),
            recorder: Recorder::new(),
            seal_key: SealKey::random(),
            token_lifetime: DEFAULT_TOKEN_LIFETIME,
            replay: Arc::new(MemoryReplayStore::new()),
            policies: Vec::new(),
        }
    }

    /// The same service filtering every tool's content with `filter` before it becomes a wire
    /// string (see [`Seam::with_content_filter`]).
    #[must_use]
    pub fn with_content_filter(mut self, filter: Arc<dyn ContentFilter>) -> Self {
        self.seam = self.seam.with_content_filter(filter);
        self
    }

    /// The same service giving suspended runs tokens that open for `lifetime` after they are
    /// sealed.
    #[must_use]
    pub fn with_token_lifetime(mut self, lifetime: Duration) -> Self {
        self.token_lifetime = lifetime;
        self
    }

    /// The same service recording used tokens in `store` (share one between processes that
    /// resume each other's runs, so a token opens once across all of them).
    #[must_use]
    pub fn with_replay_store(mut self, store: Arc<dyn ReplayStore>) -> Self {
        self.replay = store;
        self
    }

    /// The same service sealing suspended runs with `key` (share it between processes that
    /// resume each other's runs).
    #[must_use]
    pub fn with_seal_key(mut self, key: SealKey) -> Self {
        self.seal_key = key;
        self
    }

    /// The same service also keeping every event of every run in `sink` (say, the audit copy).
    #[must_use]
    pub fn with_sink(mut self, sink: Arc<dyn Sink>) -> Self {
        self.recorder = self.recorder.with_sink(sink);
        self
    }

    /// The same service asking `policy` about each call that needs approval before a run stops
    /// for it (after the policies registered before; see [`ApprovalPolicy`]).
    #[must_use]
    pub fn with_approval_policy(mut self, policy: impl ApprovalPolicy + 'static) -> Self {
        self.policies.push(Arc::new(policy));
        self
    }

    /// The seam every call goes through.
    pub fn seam(&self) -> &Seam {
        &self.seam
    }

    /// The recorder every recorded step goes through.
    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// The tools this service can run.
    pub fn registry(&self) -> &ToolRegistry {
        self.seam.registry()
    }

    pub(crate) fn seal_key(&self) -> &SealKey {
        &self.seal_key
    }

    pub(crate) fn token_lifetime(&self) -> Duration {
        self.token_lifetime
    }

    pub(crate) fn replay_store(&self) -> &dyn ReplayStore {
        self.replay.as_ref()
    }

    pub(crate) fn policies(&self) -> &[Arc<dyn ApprovalPolicy>] {
        &self.policies
    }

    /// Opens a suspended run's `token` without spending it: which run it is and the calls it
    /// waits on, for an operator to look at before deciding. A token that does not verify with
    /// this service's key, or that has expired, says why; whether it was already used is known
    /// only when [`resume`](Self::resume) claims it.
    pub fn suspended(&self, token: &str) -> Result<SuspendedRunState, TokenError> {
        SuspendedRunState::open(token, &self.seal_key)
    }

    /// Follows every run's events live (see [`Recorder::subscribe`]).
    pub fn subscribe(&self) -> Subscription {
        self.recorder.subscribe()
    }

    /// A scope for one run with the defaults (see [`Seam::scope`]).
    pub fn scope(&self, context: ToolContext) -> Result<RunScope, ScopeError> {
        self.seam.scope(context)
    }

    /// A scope offering exactly these tools (see [`Seam::scope_offering`]).
    pub fn scope_offering<I, S>(
        &self,
        context: ToolContext,
        names: I,
    ) -> Result<RunScope, ScopeError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.seam.scope_offering(context, names)
    }

    /// Checks, executes and bounds one call through the seam (see [`Seam::invoke`]). Nothing is
    /// recorded: for a call people should see, use [`call_observed`](Self::call_observed).
    ///
    /// The seam's own future, not one wrapped around it: nothing runs until it is polled.
    pub fn invoke<'a>(
        &'a self,
        scope: &'a RunScope,
        name: &'a str,
        arguments: &'a str,
    ) -> impl Future<Output = BoundedResult> + Send + 'a {
        self.seam.invoke(scope, name, arguments)
    }

    /// Runs one call outside a loop (an MCP host's, the inspector's) through the seam and
    /// records it as a run of one tool step, under the run id `SOURCE_<uuid>`: sinks and
    /// subscribers see `RunStarted`, `StepStarted`, `ToolInvoked` (with the artifacts) and
    /// `Done`. When no sink keeps and no subscriber watches events, nothing is recorded and the
    /// call costs what [`invoke`](Self::invoke) costs.
    ///
    /// Gives the bounded result: its [`wire`](ObservedCall::wire) content for whoever asked, its
    /// artifacts for people only, and the [`record`](ObservedCall::record) the events carried.
    /// When a sink cannot keep the call, it is not run (its start was not kept) or its result
    /// is withheld for an error ([`unkept`](ObservedCall::unkept)).
    ///
    /// A caller that may give the call up (an MCP client cancelling it) gives `scope` a
    /// [cancel signal](RunScope::with_cancel): the call then ends at once, its result is
    /// `Error: the call of tool "NAME" was cancelled before it finished.` and its run is
    /// recorded as [cancelled](crate::recording::Termination::Cancelled).
    ///
    /// ```
    /// use toolkit::{RunEvent, ToolCall, ToolContext, ToolLoopService, ToolRegistry};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let service = ToolLoopService::new(ToolRegistry::new());
    /// let scope = service.scope(ToolContext::new()).unwrap();
    /// let call = ToolCall::new("1", "nope", "{}");
    ///
    /// // Nobody observes: the seam's answer, and no record.
    /// let observed = service.call_observed(&scope, "mcp", &call).await;
    /// assert_eq!(observed.wire().as_str(), "Error: unknown tool \"nope\"");
    /// assert!(observed.is_error() && observed.record().is_none());
    ///
    /// // A subscriber: the same answer, recorded as a run of one step.
    /// let mut events = service.subscribe();
    /// let observed = service.call_observed(&scope, "mcp", &call).await;
    /// assert_eq!(observed.record().unwrap().call_id(), "1");
    /// let started = events.recv().await.unwrap();
    /// assert!(matches!(&*started, RunEvent::RunStarted { run_id, .. } if run_id.as_str().starts_with("mcp_")));
    /// # });
    /// ```
    ///
    /// The recorder's own future, not one wrapped around it: nothing runs until it is polled.
    pub fn call_observed<'a>(
        &'a self,
        scope: &'a RunScope,
        source: &'a str,
        call: &'a ToolCall,
    ) -> impl Future<Output = ObservedCall> + Send + 'a {
        self.recorder.call(&self.seam, scope, source, call)
    }

    /// [`call_observed`](Self::call_observed) for a caller that can ask the person (an MCP
    /// server): the call runs with `answers`, and when its tool asks a question it has no
    /// answer to, [`Answering::Asking`] gives the questions; ask the person, then make the
    /// call again with the answers so far and the new ones (see [`talk`](crate::talk)). Each
    /// round is recorded as a run of one call (a round that asks, as an `asked` step).
    pub fn call_observed_answering<'a>(
        &'a self,
        scope: &'a RunScope,
        source: &'a str,
        call: &'a ToolCall,
        answers: Answers,
    ) -> impl Future<Output = Answering> + Send + 'a {
        self.recorder
            .call_answering(&self.seam, scope, source, call, answers)
    }
}

//! Serving a [`ToolLoopService`] to MCP hosts: every call through the seam, artifacts kept local.

use std::collections::HashMap;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::serve::ListenerExt as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ElicitResult,
    Implementation, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use toolkit::approval::Choice;
use toolkit::question::{Question, Unasked};
use toolkit::recording::{Answering, ObservedCall};
use toolkit::seam::CancelSignal;
use toolkit::spec::TaskSupport;
use toolkit::talk::ReportSink;
use toolkit::talk::{Answer, Answers};
use toolkit::{RunScope, ToolCall, ToolContext, ToolLoopService, seam::ScopeError};

use self::questions::Unkept;
use self::reports::{Listening, SessionLogLevel};
use self::tasks::{LocalTasks, Progress, Running};
pub use self::tasks::{TASK_AFTER, TASK_LIFETIME};
use crate::approvals::{
    APPROVAL_TIMEOUT, INPUT_KEY, MAX_FORMS, WaitingCalls, answers_forms, ask_later, asked_again,
    choice, form, take_waiting, too_large_to_show,
};
use crate::store::{BackendError, MemoryStore, Sessions, SharedStore};
use crate::views::{
    ARTIFACTS_TOOL, ArtifactsReply, ModelReply, UI_EXTENSION, VIEW_URI, artifacts_tool, keep, kept,
    shows_views, view_contents, view_resource, with_view,
};

/// The path the streamable HTTP endpoint is served under: `http://127.0.0.1:PORT/mcp`.
pub const HTTP_PATH: &str = "/mcp";

/// What the server calls itself to hosts, and the `source` of its calls' run ids (`mcp_<uuid>`).
const SOURCE: &str = "mcp";

/// The longest URI an unknown resource's error gives back whole in its data.
const MAX_ECHOED_URI: usize = 2048;

/// How long serving over stdio waits, once the connection closed and rmcp cancelled the calls
/// still running, for them to end and be recorded (a sink writing the audit copy): they end at
/// once, so only a stuck sink makes it wait this long.
const STOPPING_GRACE: Duration = Duration::from_secs(5);

/// An MCP server over one service: `tools/list` gives the tools a fresh scope of `context`
/// offers, each with its [title](toolkit::ToolSpec::title) and MCP's annotations from its
/// [flags](toolkit::spec::ToolFlags) (read-only; destructive for a writer; idempotent; open
/// world, or remote); each `tools/call` is one [`ToolLoopService::call_observed`] in such a
/// scope, and the reply is the bounded content as one text block with `isError` from the result.
///
/// Tools that require an operator's approval are not offered, unless
/// [`with_writers`](Self::with_writers) offers them to clients that answer form elicitation: a
/// call of one asks the host's user (see [`approvals`](crate::approvals)), and runs only on their
/// approval of that call. Other clients are not offered them, and calls of them are `not
/// permitted`.
///
/// A model-facing reply ([`ModelReply`]) never carries artifacts, in no field: a host forwards
/// replies to a model. Artifacts go to the service's event stream, as for any run, and, for a
/// client that shows MCP Apps views, to the app-only tool [`ARTIFACTS_TOOL`] under a handle that
/// only the reply's `_meta` holds (see [`views`](crate::views)). Such a client sees every tool
/// name the view [`VIEW_URI`], which the server serves as its one resource; its tools are told
/// that people see their artifacts, other clients' that no one does. A registered tool of that
/// name is not offered: the name is the server's.
#[derive(Clone)]
pub struct McpToolServer {
    service: Arc<ToolLoopService>,
    context: ToolContext,
    /// What `context` is offered by default, less the tools that require approval.
    offered: Arc<[String]>,
    /// The tools that require approval, offered to clients that answer form elicitation.
    writers: Arc<[String]>,
    approval_timeout: Duration,
    /// The tools the user approved for the rest of this session (each session has its own).
    approved_for_session: Arc<Mutex<Vec<String>>>,
    /// The calls waiting for the user's answer: of this session, and of the whole server.
    waiting: WaitingCalls,
    /// The artifacts kept for views and the questions stateless clients were asked and have
    /// not answered (and, when shared, the 2025-11-25 sessions).
    store: Arc<dyn SharedStore>,
    /// Whether `store` is shared with other instances.
    shared: bool,
    calls: Arc<AtomicU64>,
    /// Held (read) by every call being answered, so that serving over stdio returns only once
    /// each call the host left behind has ended and is recorded (see
    /// [`serve_stdio`](Self::serve_stdio)).
    answering: Arc<tokio::sync::RwLock<()>>,
    /// The name and version `initialize` gives hosts.
    info: Arc<(String, String)>,
    /// The least level of the log lines this session's client asked for (`logging/setLevel`).
    log_level: SessionLogLevel,
    /// The tasks this instance runs, of every session (see the `tasks` module).
    tasks: LocalTasks,
    /// Whether a tool it offers may be answered as a task: then it declares the tasks
    /// extension.
    task_tools: bool,
    /// The tools the host chose to answer as tasks besides those marked so
    /// ([`with_task_tools`](Self::with_task_tools)).
    chosen_tasks: Arc<[String]>,
    /// The tools it offers whose arguments name `x-mcp-header`s (SEP-2243), as listed: rmcp
    /// checks a call's `Mcp-Param-*` headers against its arguments with them.
    header_tools: Arc<HashMap<String, rmcp::model::Tool>>,
}

impl McpToolServer {
    /// A server offering what `service.scope(context)` offers, less the tools that require
    /// approval. Fails, before any host connects, when a tool it offers reads a state `context`
    /// does not hold, naming the tool and the state; a tool it does not offer (a writer, until
    /// [`with_writers`](Self::with_writers)) is not checked.
    pub fn new(service: Arc<ToolLoopService>, context: ToolContext) -> Result<Self, ScopeError> {
        // What the default scope offers, less what this server does not list: only those are
        // checked for their state (a writer's is checked when `with_writers` offers it).
        let offered: Arc<[String]> = service
            .registry()
            .specs()
            .filter(|spec| {
                let flags = spec.flags();
                flags.enabled_by_default()
                    && (!flags.requires_admin() || context.is_admin())
                    && !flags.requires_approval()
                    && spec.name() != ARTIFACTS_TOOL
            })
            .map(|spec| spec.name().to_owned())
            .collect();
        service.scope_offering(context.clone(), offered.iter())?;
        let header_tools = Arc::new(header_tools(&service, &offered));
        let task_tools = offered.iter().any(|name| {
            service
                .registry()
                .get(name)
                .is_some_and(|tool| tool.spec().flags().task_support() != TaskSupport::Forbidden)
        });
        Ok(Self {
            service,
            context,
            offered,
            writers: Arc::new([]),
            approval_timeout: APPROVAL_TIMEOUT,
            approved_for_session: Arc::default(),
            waiting: WaitingCalls::default(),
            store: Arc::new(MemoryStore::default()),
            shared: false,
            calls: Arc::new(AtomicU64::new(0)),
            answering: Arc::default(),
            info: Arc::new(("toolkit".to_owned(), env!("CARGO_PKG_VERSION").to_owned())),
            log_level: SessionLogLevel::default(),
            tasks: LocalTasks::default(),
            task_tools,
            chosen_tasks: Arc::new([]),
            header_tools,
        })
    }

    /// Answers calls of the tools `names` as tasks to clients that take them, as if each were
    /// marked `#[tool(task)]` (one marked `task = "required"` stays so): for a host that knows
    /// which of its tools run long. A name the server does not offer as is (not listed, or a
    /// writer) is an error naming it.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolkit::{ToolContext, ToolLoopService, ToolRegistry, tool};
    /// use toolkit_mcp::McpToolServer;
    ///
    /// /// Runs the test suite.
    /// #[tool]
    /// fn run_tests() -> String {
    ///     "all passed".to_owned()
    /// }
    ///
    /// let service = Arc::new(ToolLoopService::new(ToolRegistry::of([RUN_TESTS_TOOL])?));
    /// let server = McpToolServer::new(Arc::clone(&service), ToolContext::new())?
    ///     .with_task_tools(["run_tests"])?;
    /// let refused = McpToolServer::new(service, ToolContext::new())?.with_task_tools(["deploy"]);
    /// assert_eq!(
    ///     refused.err().map(|error| error.to_string()).as_deref(),
    ///     Some("the server offers no tool \"deploy\" to answer as a task")
    /// );
    /// # let _ = server;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_task_tools<I, S>(mut self, names: I) -> Result<Self, NotOffered>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut chosen = self.chosen_tasks.to_vec();
        for name in names {
            let name = name.into();
            if !self.offered.contains(&name) {
                return Err(NotOffered(name));
            }
            chosen.push(name);
        }
        self.task_tools |= !chosen.is_empty();
        self.chosen_tasks = chosen.into();
        Ok(self)
    }

    /// Names the server to hosts as `name` at `version` in its `initialize` answer (by default
    /// `toolkit` and this crate's version): hosts show it and key their settings by it.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolkit::{ToolContext, ToolLoopService, ToolRegistry};
    /// use toolkit_mcp::McpToolServer;
    ///
    /// let service = Arc::new(ToolLoopService::new(ToolRegistry::new()));
    /// let server = McpToolServer::new(service, ToolContext::new())?
    ///     .with_server_info("weather", env!("CARGO_PKG_VERSION"));
    /// # Ok::<(), toolkit::seam::ScopeError>(())
    /// ```
    #[must_use]
    pub fn with_server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = Arc::new((name.into(), version.into()));
        self
    }

    /// Keeps what a later request may need (the artifacts views ask for, the questions waiting
    /// for an answer, the 2025-11-25 sessions) in `store`, shared with the other instances of a
    /// fleet, so that any instance answers any request, instead of in this process's memory.
    /// Approvals of a tool for a session stay with the instance that asked.
    #[must_use]
    pub fn with_shared_store(mut self, store: Arc<dyn SharedStore>) -> Self {
        self.store = store;
        self.shared = true;
        self
    }

    /// Offers the registry's tools that require approval (admin tools never) to clients that
    /// answer form elicitation; fails when one reads a state `context` does not hold.
    pub fn with_writers(mut self) -> Result<Self, ScopeError> {
        let writers: Arc<[String]> = self
            .service
            .registry()
            .specs()
            .filter(|spec| {
                let flags = spec.flags();
                flags.requires_approval()
                    && !flags.requires_admin()
                    && spec.name() != ARTIFACTS_TOOL
            })
            .map(|spec| spec.name().to_owned())
            .collect();
        self.service
            .seam()
            .scope_offering(self.context.clone(), writers.iter())?;
        let mut headers = header_tools(&self.service, &writers);
        headers.extend(
            self.header_tools
                .iter()
                .map(|(name, tool)| (name.clone(), tool.clone())),
        );
        self.header_tools = Arc::new(headers);
        self.writers = writers;
        Ok(self)
    }

    /// How long the host's user has to answer for a call (default [`APPROVAL_TIMEOUT`]); no
    /// answer in time is no approval.
    #[must_use]
    pub fn with_approval_timeout(mut self, timeout: Duration) -> Self {
        self.approval_timeout = timeout;
        self
    }

    /// The server for one more session: the same tools, no tool approved yet.
    fn for_session(&self) -> Self {
        Self {
            approved_for_session: Arc::default(),
            waiting: self.waiting.for_session(),
            log_level: SessionLogLevel::default(),
            ..self.clone()
        }
    }

    /// A scope for one call, offering what [`new`](Self::new) checked, and the writers to a
    /// client that answers forms. Its tools are told that people see their artifacts only when
    /// the client shows the view.
    fn scope(&self, views: bool, writers: bool) -> RunScope {
        let context = self.context.clone().with_artifacts_shown(views);
        let writers = if writers { &self.writers[..] } else { &[] };
        self.service
            .seam()
            .scope_offering(context, self.offered.iter().chain(writers))
            .expect("checked when the server was made, from this service's registry")
    }

    /// [`scope`](Self::scope) for one call: ended by `cancel`, its tools' reports to `reports`.
    fn call_scope(
        &self,
        views: bool,
        writers: bool,
        cancel: &CancelSignal,
        reports: Option<Arc<dyn ReportSink>>,
    ) -> RunScope {
        let scope = self.scope(views, writers).with_cancel(cancel.clone());
        match reports {
            Some(sink) => scope.with_reports(sink),
            None => scope,
        }
    }

    /// The tools a host that answers no form sees, in registry order.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.listed(false)
    }

    /// The tools a host sees, with the writers when it answers forms, in registry order.
    fn listed(&self, writers: bool) -> Vec<rmcp::model::Tool> {
        let scope = self.scope(false, writers);
        scope
            .offered()
            .filter_map(|name| self.service.registry().get(name))
            .map(|tool| listed_tool(tool.spec()))
            .collect()
    }

    /// Runs one call through the seam for a client that shows no views: the reply is the
    /// bounded content only.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> ModelReply {
        self.reply(name, arguments, false, &CancelSignal::new(), None)
            .await
    }

    /// Runs one call through the seam for a client that shows MCP Apps views: the reply is the
    /// bounded content, and, when the call made artifacts, the handle under which the view
    /// gets them from [`artifacts`](Self::artifacts).
    pub async fn call_for_views(
        &self,
        name: &str,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> ModelReply {
        self.reply(name, arguments, true, &CancelSignal::new(), None)
            .await
    }

    /// The artifacts of the call a handle from [`call_for_views`](Self::call_for_views) names,
    /// while it is kept; an error when the store cannot answer.
    pub async fn artifacts(&self, handle: &str) -> Result<Option<ArtifactsReply>, BackendError> {
        kept(&*self.store, handle).await
    }

    /// One call's reply, the call ended when `cancel` is given and its tool's reports going to
    /// `reports` (see `call_tool`).
    async fn reply(
        &self,
        name: &str,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
        views: bool,
        cancel: &CancelSignal,
        reports: Option<Arc<dyn ReportSink>>,
    ) -> ModelReply {
        let call = self.next_call(name, arguments_text(arguments));
        let scope = self.call_scope(views, false, cancel, reports);
        let observed = self.service.call_observed(&scope, SOURCE, &call).await;
        self.model_reply(name, &observed, views).await
    }

    /// The call a request makes: the next id, and its arguments as a JSON text.
    fn next_call(&self, name: &str, arguments: String) -> ToolCall {
        let number = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        ToolCall::new(format!("{SOURCE}_call_{number}"), name, arguments)
    }

    /// The model-facing reply of a call: its wire string, and for a client that shows views the
    /// handle of its artifacts when it made some.
    /// When the store cannot keep the artifacts, the reply has no handle (and the view says
    /// the call made none); the model's reply is the same.
    async fn model_reply(&self, name: &str, observed: &ObservedCall, views: bool) -> ModelReply {
        let artifacts = observed.artifacts();
        let handle = if views && !artifacts.is_empty() {
            match keep(&*self.store, name, artifacts).await {
                Ok(handle) => Some((handle, artifacts.len())),
                Err(error) => {
                    tracing::error!(%error, tool = name, "the artifacts of a call could not be kept for its view");
                    None
                }
            }
        } else {
            None
        };
        ModelReply::new(observed.wire().clone(), handle)
    }

    /// A call of a writer from a client that answers forms: asked about, then run or refused.
    /// When `cancel` is given while the person has the form, the call is refused unrun; while
    /// it runs, the seam ends it.
    async fn approved(
        &self,
        mut request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        views: bool,
        cancel: &CancelSignal,
        reports: Option<Arc<dyn ReportSink>>,
    ) -> CallToolResponse {
        let scope = self.call_scope(views, true, cancel, reports);
        let stateless = context
            .protocol_version()
            .is_some_and(|version| !version.has_initialize());
        // The arguments as the text the call takes; the request's own copy is let go at once,
        // so that a call waiting for a person holds them as few times as it can.
        let arguments = arguments_text(request.arguments.take().as_ref());
        if stateless {
            return self
                .approved_statelessly(&request, arguments, &scope, views)
                .await;
        }
        let call = self.next_call(&request.name, arguments);
        // Refused before anything else is done with it: a call no form could show, or one more
        // than may wait. A call of a tool approved for the session runs without waiting.
        let approved = self.session_approved(&request.name);
        if let Some(why) = too_large_to_show(&call).filter(|_| !approved) {
            return self.decline(&scope, &request.name, call, why, views).await;
        }
        let waiting = if approved {
            None
        } else {
            match self.waiting.enter(&request.name) {
                Ok(place) => Some(place),
                Err(why) => {
                    return self.decline(&scope, &request.name, call, why, views).await;
                }
            }
        };
        let question = match self.service.question(&scope, SOURCE, call).await {
            Ok(question) => question,
            Err(refused) => return self.complete(&request.name, &refused, views).await,
        };
        let (mut question, mut note) = if approved {
            match self
                .service
                .run_approved_earlier(&scope, SOURCE, question)
                .await
            {
                Ok(ran) => return self.complete(&request.name, &ran, views).await,
                // What it would do changed since the call came: the person is asked.
                Err(again) => {
                    let note = asked_again(&again);
                    (again.into_question(), note)
                }
            }
        } else {
            (question, None)
        };
        // A place among the calls that wait for the person, held until this one is decided.
        let _waiting = match waiting {
            Some(place) => place,
            None => match self.waiting.enter(&request.name) {
                Ok(place) => place,
                Err(why) => {
                    return self
                        .decline(&scope, &request.name, question, why, views)
                        .await;
                }
            },
        };
        for forms in 1.. {
            let answer = if forms > MAX_FORMS {
                None
            } else {
                let asked = match form(&question, true, note.as_deref()) {
                    Ok(asked) => asked,
                    Err(why) => {
                        return self
                            .decline(&scope, &request.name, question, why, views)
                            .await;
                    }
                };
                let Some(answer) = self.ask(context, asked, cancel).await else {
                    let why = cancelled_before_answered(&request.name);
                    return self
                        .decline(&scope, &request.name, question, why, views)
                        .await;
                };
                answer
            };
            let choice = match choice(answer, true) {
                Ok(choice) => choice,
                Err(why) => {
                    note = Some(format!("That answer was not taken: {why}."));
                    continue;
                }
            };
            if matches!(choice, Some(Choice::ApproveForRun)) {
                self.approve_for_session(&request.name);
            }
            match self.service.answer(&scope, SOURCE, question, choice).await {
                Ok(observed) => return self.complete(&request.name, &observed, views).await,
                Err(again) => {
                    note = asked_again(&again);
                    question = again.into_question();
                }
            }
        }
        unreachable!("the forms end with an answer or none")
    }

    /// The person's answer to the form `asked` (`None` inside when none came in time, or the
    /// client could not ask them); `None` when the client cancelled the call meanwhile.
    async fn ask(
        &self,
        context: &RequestContext<RoleServer>,
        asked: rmcp::model::ElicitRequestParams,
        cancel: &CancelSignal,
    ) -> Option<Option<ElicitResult>> {
        let asking = context
            .peer
            .create_elicitation_with_timeout(asked, Some(self.approval_timeout));
        tokio::select! {
            answer = asking => Some(answer.ok()),
            () = cancel.cancelled() => None,
        }
    }

    /// A writer's call from a stateless client: the first request gets the form as an input
    /// request, kept under its `requestState` in the store; the retry with the user's answer,
    /// on whichever instance, decides it.
    async fn approved_statelessly(
        &self,
        request: &CallToolRequestParams,
        arguments: String,
        scope: &RunScope,
        views: bool,
    ) -> CallToolResponse {
        let waiting = match request.request_state.as_deref() {
            Some(state) => take_waiting(&*self.store, state, &request.name, &arguments).await,
            None => Ok(None),
        };
        let waiting = match waiting {
            Ok(waiting) => waiting,
            Err(error) => return store_unavailable(&error),
        };
        let Some(waiting) = waiting else {
            let call = self.next_call(&request.name, arguments.clone());
            if let Some(why) = too_large_to_show(&call) {
                // No form could show it: refused before anything else is done with it.
                return self.decline(scope, &request.name, call, why, views).await;
            }
            return match self.service.question(scope, SOURCE, call).await {
                Ok(question) => {
                    self.ask_later(request, &arguments, scope, question, 1, None, views)
                        .await
                }
                Err(refused) => self.complete(&request.name, &refused, views).await,
            };
        };
        let forms = waiting.forms;
        let answer = request
            .input_responses
            .as_ref()
            .and_then(|responses| responses.get(INPUT_KEY))
            .map(|answer| {
                serde_json::from_value::<ElicitResult>(answer.clone())
                    .map_err(|error| format!("it is not an answer to a form ({error})"))
            })
            .transpose();
        let choice = match answer {
            _ if waiting.expired => Ok(None),
            Ok(answer) => choice(answer, false),
            Err(why) => Err(why),
        };
        let decided = match choice {
            Ok(choice) => {
                self.service
                    .answer_kept(scope, SOURCE, waiting.question, choice)
                    .await
            }
            // An answer that decides nothing: the form again, saying why, while forms remain.
            Err(why) if forms < MAX_FORMS => {
                let note = format!("That answer was not taken: {why}.");
                return match self.service.ask_kept(scope, SOURCE, waiting.question).await {
                    Ok(question) => {
                        let next = forms + 1;
                        self.ask_later(
                            request,
                            &arguments,
                            scope,
                            question,
                            next,
                            Some(&note),
                            views,
                        )
                        .await
                    }
                    Err(refused) => self.complete(&request.name, &refused, views).await,
                };
            }
            Err(_) => {
                self.service
                    .answer_kept(scope, SOURCE, waiting.question, None)
                    .await
            }
        };
        match decided {
            Ok(observed) => self.complete(&request.name, &observed, views).await,
            Err(again) if forms < MAX_FORMS => {
                let note = asked_again(&again);
                let next = again.into_question();
                let forms = forms + 1;
                self.ask_later(
                    request,
                    &arguments,
                    scope,
                    next,
                    forms,
                    note.as_deref(),
                    views,
                )
                .await
            }
            // No more forms: the call is not approved.
            Err(again) => match self
                .service
                .answer(scope, SOURCE, again.into_question(), None)
                .await
            {
                Ok(observed) => self.complete(&request.name, &observed, views).await,
                Err(_) => unreachable!("no answer decides the call: it is never asked again"),
            },
        }
    }

    /// Asks a stateless client for the person's answer about `question` (its `forms`-th form):
    /// the reply with the form, the question kept for the retry; a form too large to send
    /// refuses the call instead.
    #[expect(
        clippy::too_many_arguments,
        reason = "the request, its arguments, scope and views, and the question with its forms"
    )]
    async fn ask_later(
        &self,
        request: &CallToolRequestParams,
        arguments: &str,
        scope: &RunScope,
        question: Question,
        forms: usize,
        note: Option<&str>,
        views: bool,
    ) -> CallToolResponse {
        let asked = match form(&question, false, note) {
            Ok(asked) => asked,
            Err(why) => {
                return self
                    .decline(scope, &request.name, question, why, views)
                    .await;
            }
        };
        let call = (&*request.name, arguments);
        match ask_later(
            &*self.store,
            call,
            &question,
            forms,
            asked,
            self.approval_timeout,
        )
        .await
        {
            Ok(input_required) => input_required.into(),
            Err(error) => store_unavailable(&error),
        }
    }

    /// The reply to a call of `name` refused without asking the person (`why`: too many wait,
    /// or no form could show it), recorded as the service records such a call.
    async fn decline(
        &self,
        scope: &RunScope,
        name: &str,
        unasked: impl Into<Unasked>,
        why: String,
        views: bool,
    ) -> CallToolResponse {
        let refused = self.service.decline(scope, SOURCE, unasked, why).await;
        self.complete(name, &refused, views).await
    }

    async fn complete(&self, name: &str, observed: &ObservedCall, views: bool) -> CallToolResponse {
        CallToolResult::from(self.model_reply(name, observed, views).await).into()
    }

    fn session_approved(&self, name: &str) -> bool {
        self.approved_for_session
            .lock()
            .expect("never poisoned: no panic while held")
            .iter()
            .any(|approved| approved == name)
    }

    fn approve_for_session(&self, name: &str) {
        let mut approved = self
            .approved_for_session
            .lock()
            .expect("never poisoned: no panic while held");
        // Only a call asked about approves its tool for the session, and a tool approved
        // for it is not asked about again: it is not there yet.
        approved.push(name.to_owned());
    }

    /// The app-only tool's answer to a view: the artifacts its handle names, or why not.
    async fn artifacts_call(
        &self,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> CallToolResult {
        let Some(handle) = arguments
            .and_then(|arguments| arguments.get("handle"))
            .and_then(serde_json::Value::as_str)
        else {
            return CallToolResult::error(vec![rmcp::model::ContentBlock::text(format!(
                "Error: invalid arguments for tool \"{ARTIFACTS_TOOL}\": `handle` (a string) is required."
            ))]);
        };
        match self.artifacts(handle).await {
            Ok(Some(reply)) => CallToolResult::from(reply),
            Ok(None) => CallToolResult::error(vec![rmcp::model::ContentBlock::text(format!(
                "Error: no artifacts are kept under this handle (a call's artifacts are kept \
                 for {} minutes{}).",
                crate::views::HANDLE_LIFETIME.as_secs() / 60,
                if self.shared {
                    String::new()
                } else {
                    format!(", for the {} latest calls", crate::views::KEPT_CALLS)
                }
            ))]),
            Err(error) => {
                tracing::error!(%error, "the artifacts of a handle could not be read");
                CallToolResult::error(vec![rmcp::model::ContentBlock::text(
                    "Error: the artifacts cannot be read now (the store that keeps them did \
                     not answer). Try again later.",
                )])
            }
        }
    }
}

/// A tool named to be answered as a task that the server does not offer as is
/// ([`McpToolServer::with_task_tools`]).
#[derive(Debug, thiserror::Error)]
#[error("the server offers no tool \"{}\" to answer as a task", toolkit::bound::echo(.0))]
pub struct NotOffered(String);

/// What a stateless writer's call answers when the store that keeps its question does not: an
/// error, and nothing asked or run.
fn store_unavailable(error: &BackendError) -> CallToolResponse {
    tracing::error!(%error, "the question of a call could not be kept or read");
    CallToolResult::error(vec![rmcp::model::ContentBlock::text(
        "Error: the call was not run: the store that keeps questions for approval did not \
         answer. Try again later.",
    )])
    .into()
}

/// A tool as `tools/list` gives it: its name, description, title, annotations, and its input
/// schema with type arrays split into `anyOf` (the same values, a more portable spelling).
fn listed_tool(spec: &toolkit::ToolSpec) -> rmcp::model::Tool {
    let schema = match crate::portable::portable(spec.input_schema()) {
        serde_json::Value::Object(schema) => schema,
        // MCP requires an object schema; a tool without one takes no arguments.
        _ => serde_json::Map::from_iter([("type".to_owned(), "object".into())]),
    };
    rmcp::model::Tool::new(
        spec.name().to_owned(),
        spec.description().to_owned(),
        schema,
    )
    .with_title(spec.title())
    .with_annotations(annotations(spec.flags()))
}

/// The tools of `names` whose argument schema names an `x-mcp-header` (SEP-2243), as listed.
fn header_tools(service: &ToolLoopService, names: &[String]) -> HashMap<String, rmcp::model::Tool> {
    names
        .iter()
        .filter_map(|name| service.registry().get(name))
        .filter(|tool| names_header(tool.spec().input_schema()))
        .map(|tool| (tool.spec().name().to_owned(), listed_tool(tool.spec())))
        .collect()
}

/// Whether a schema names an `x-mcp-header` anywhere in it.
fn names_header(schema: &serde_json::Value) -> bool {
    match schema {
        serde_json::Value::Object(map) => map
            .iter()
            .any(|(key, value)| key == "x-mcp-header" || names_header(value)),
        serde_json::Value::Array(items) => items.iter().any(names_header),
        _ => false,
    }
}

/// What a tool's flags tell a host of it, as MCP's hints: `readOnlyHint` from
/// [`read_only`](toolkit::spec::ToolFlags::read_only); `destructiveHint` for a tool that does
/// not only read and requires an operator's approval (the writers), false for any other;
/// `idempotentHint` from [`idempotent`](toolkit::spec::ToolFlags::idempotent);
/// `openWorldHint` from [`open_world`](toolkit::spec::ToolFlags::open_world) or
/// [`remote`](toolkit::spec::ToolFlags::remote) (a network tool, another MCP server's tool).
/// Every hint is given, since MCP's defaults (destructive, open world) fit few of them.
pub(crate) fn annotations(flags: toolkit::spec::ToolFlags) -> rmcp::model::ToolAnnotations {
    rmcp::model::ToolAnnotations::new()
        .read_only(flags.read_only())
        .destructive(!flags.read_only() && flags.requires_approval())
        .idempotent(flags.idempotent())
        .open_world(flags.open_world() || flags.remote())
}

/// The capabilities of the client of this request: those in the request's `_meta`
/// (2026-07-28), else those of its initialize handshake.
fn client_capabilities(context: &RequestContext<RoleServer>) -> Option<ClientCapabilities> {
    context.meta.client_capabilities().or_else(|| {
        context
            .peer
            .peer_info()
            .map(|info| info.capabilities.clone())
    })
}

/// Arguments as a JSON text: `{}` for none.
fn arguments_text(arguments: Option<&serde_json::Map<String, serde_json::Value>>) -> String {
    arguments.map_or_else(
        || "{}".to_owned(),
        |arguments| serde_json::to_string(arguments).expect("a JSON map serialises"),
    )
}

impl ServerHandler for McpToolServer {
    #[allow(
        deprecated,
        reason = "logging (gone in 2026-07-28) is what 2025-11-25 clients set a level for"
    )]
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_logging()
            .build();
        let mut extensions = rmcp::model::ExtensionCapabilities::new();
        extensions.insert(UI_EXTENSION.to_owned(), serde_json::Map::new());
        if self.task_tools {
            extensions.insert(
                rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                serde_json::Map::new(),
            );
        }
        capabilities.extensions = Some(extensions);
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.info.0.as_str(),
            self.info.1.as_str(),
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![view_resource()]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == VIEW_URI {
            Ok(ReadResourceResult::new(vec![view_contents()]).into())
        } else {
            Err(ErrorData::resource_not_found(
                format!(
                    "no resource {}: this server serves {VIEW_URI} only",
                    toolkit::bound::echo(&request.uri)
                ),
                // The URI asked for, as SEP-2164 has it, unless it is too long to echo whole.
                (request.uri.len() <= MAX_ECHOED_URI)
                    .then(|| serde_json::json!({"uri": request.uri})),
            ))
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let capabilities = client_capabilities(&context);
        let asks = !self.writers.is_empty() && capabilities.as_ref().is_some_and(answers_forms);
        let mut tools = self.listed(asks);
        if capabilities.as_ref().is_some_and(shows_views) {
            tools = tools.into_iter().map(with_view).collect();
            tools.push(artifacts_tool());
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    /// Answers a call through the seam, in a scope whose cancel signal rmcp's cancellation of
    /// the request gives (see `answer_until_cancelled`): the client's
    /// `notifications/cancelled`, or a connection gone. What the tool reports while it runs
    /// goes to the client as notifications, each sent before the reply (see the `reports` module).
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let _answering = self.answering.read().await;
        let cancel = CancelSignal::new();
        let Some(listening) = Listening::of(&context, &self.log_level, &request.name) else {
            let answer = self.answer_call(request, &context, &cancel, None);
            return answer_until_cancelled(&context, &cancel, answer).await;
        };
        let answer = self.answer_call(request, &context, &cancel, Some(listening.sink()));
        let answer = answer_until_cancelled(&context, &cancel, answer);
        // Boxed: the approvals' state is large, and most calls are not listened to.
        Box::pin(listening.forward_while(answer)).await
    }

    /// Sets the least level of the log lines the session's calls send (`notifications/message`,
    /// named by the tool that logs): none are sent before a client sets one.
    #[allow(deprecated, reason = "2025-11-25 sessions still set a level")]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.set(request.level);
        Ok(())
    }

    /// The tool `name` when its arguments name `x-mcp-header`s: rmcp then checks a call's
    /// `Mcp-Param-*` headers against its arguments, and refuses a call where they differ.
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.header_tools.get(name).cloned()
    }

    /// A task's state, from whichever instance runs it (see the `tasks` module); rmcp answers
    /// `-32021` first to a client that did not declare the tasks extension.
    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        tasks::get(&*self.store, &request.task_id).await
    }

    /// Answers to a task's questions; a key it does not ask is ignored.
    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        tasks::update(
            &*self.store,
            &self.tasks,
            &request.task_id,
            &request.input_responses,
        )
        .await
    }

    /// Cancels a task's call; a task that ended is left as it is.
    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        tasks::cancel(&*self.store, &self.tasks, &request.task_id).await
    }
}

impl McpToolServer {
    /// The reply to a `tools/call`, the call ended when `cancel` is given; an error for a
    /// `requestState` that names no question of this call.
    async fn answer_call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        cancel: &CancelSignal,
        reports: Option<Arc<dyn ReportSink>>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.as_ref();
        let capabilities = client_capabilities(context);
        let views = capabilities.as_ref().is_some_and(shows_views);
        let support = self.task_support(&request.name);
        if support != TaskSupport::Forbidden {
            if capabilities
                .as_ref()
                .is_some_and(ClientCapabilities::supports_tasks)
            {
                let forms = capabilities.as_ref().is_some_and(answers_forms);
                return self
                    .task_call(request, context, (views, forms), support, cancel)
                    .await;
            }
            if support == TaskSupport::Required {
                return Err(ErrorData::missing_required_client_capability(
                    ClientCapabilities::builder().enable_tasks().build(),
                ));
            }
        }
        let asks = capabilities.as_ref().is_some_and(answers_forms)
            && self.writers.iter().any(|writer| *writer == request.name);
        if asks {
            return Ok(self
                .approved(request, context, views, cancel, reports)
                .await);
        }
        let answers_forms = capabilities.as_ref().is_some_and(answers_forms);
        if answers_forms && !(views && request.name == ARTIFACTS_TOOL) {
            return self
                .answered(request, context, views, cancel, reports)
                .await;
        }
        // A client that shows no views gets for the app-only tool what any tool not offered
        // gets: the seam's refusal.
        let result = if views && request.name == ARTIFACTS_TOOL {
            self.artifacts_call(arguments).await
        } else {
            let reply = self.reply(&request.name, arguments, views, cancel, reports);
            CallToolResult::from(reply.await)
        };
        Ok(result.into())
    }

    /// A call from a client that answers forms: run with the answers it has, and while its
    /// tool asks what it has no answer to, the person is asked (see the `questions` module):
    /// in this request on a 2025-11-25 session, by an `input_required` reply on 2026-07-28.
    async fn answered(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        views: bool,
        cancel: &CancelSignal,
        reports: Option<Arc<dyn ReportSink>>,
    ) -> Result<CallToolResponse, ErrorData> {
        let scope = self.call_scope(views, false, cancel, reports);
        let arguments = arguments_text(request.arguments.as_ref());
        let stateless = context
            .protocol_version()
            .is_some_and(|version| !version.has_initialize());
        let (mut answers, mut rounds) = match request.request_state.as_deref() {
            // An answer comes with the state of its question, or is not taken.
            None => (Answers::new(), 0),
            Some(_) if !stateless => (Answers::new(), 0),
            Some(state) => {
                match questions::take(&*self.store, state, &request.name, &arguments).await {
                    Ok(kept) => kept.answers_with(request.input_responses.as_ref()),
                    Err(Unkept::Store(error)) => return Ok(store_unavailable(&error)),
                    Err(unkept) => return Err(unkept_state(&unkept)),
                }
            }
        };
        let call = self.next_call(&request.name, arguments.clone());
        loop {
            let asked = match self
                .service
                .call_observed_answering(&scope, SOURCE, &call, answers.clone())
                .await
            {
                Answering::Done(observed) => {
                    return Ok(self.complete(&request.name, &observed, views).await);
                }
                Answering::Asking(asked) => asked,
                _ => unreachable!("a call is done or asking"),
            };
            rounds += 1;
            if rounds >= MAX_FORMS {
                return Ok(too_many_rounds(&request.name).into());
            }
            if stateless {
                let call = (&*request.name, &*arguments);
                return Ok(self.ask_later_round(call, answers, &asked, rounds).await);
            }
            for asked in &asked {
                let answer = match questions::form(asked) {
                    Ok(form) => {
                        let Some(answer) = self.ask(context, form, cancel).await else {
                            let why = cancelled_while_asking(&request.name);
                            let text = rmcp::model::ContentBlock::text(why);
                            return Ok(CallToolResult::error(vec![text]).into());
                        };
                        questions::answer(answer)
                    }
                    Err(why) => {
                        tracing::warn!(key = asked.key(), %why, "a tool's question cannot be asked");
                        Answer::Cancel
                    }
                };
                answers.insert(asked.key(), answer);
            }
        }
    }
}

impl McpToolServer {
    /// How a call of `name` may be answered as a task: never for a tool this server does not
    /// offer as is (a writer, the app-only tool).
    fn task_support(&self, name: &str) -> TaskSupport {
        if !self.task_tools || !self.offered.iter().any(|offered| offered == name) {
            return TaskSupport::Forbidden;
        }
        let marked = self
            .service
            .registry()
            .get(name)
            .map_or(TaskSupport::Forbidden, |tool| {
                tool.spec().flags().task_support()
            });
        if marked == TaskSupport::Forbidden && self.chosen_tasks.iter().any(|chosen| chosen == name)
        {
            TaskSupport::Optional
        } else {
            marked
        }
    }

    /// The `input_required` reply that asks a 2026-07-28 client the questions `asked` of a call
    /// (its `rounds`-th round), the answers so far kept in the store under its `requestState`.
    async fn ask_later_round(
        &self,
        call: (&str, &str),
        answers: Answers,
        asked: &[toolkit::talk::Asked],
        rounds: usize,
    ) -> CallToolResponse {
        let within = self.approval_timeout;
        match questions::ask_later(&*self.store, call, answers, asked, rounds, within).await {
            Ok(input_required) => input_required.into(),
            Err(error) => store_unavailable(&error),
        }
    }

    /// One round of a call with the answers so far; a client that answers no form leaves every
    /// question unanswered.
    async fn round(
        &self,
        scope: &RunScope,
        call: &ToolCall,
        forms: bool,
        answers: Answers,
    ) -> Answering {
        if forms {
            self.service
                .call_observed_answering(scope, SOURCE, call, answers)
                .await
        } else {
            Answering::Done(self.service.call_observed(scope, SOURCE, call).await)
        }
    }

    /// A call of a task tool from a client that takes tasks (see the `tasks` module): what it
    /// answers within [`TASK_AFTER`] is its reply, as for any call (a tool whose every answer
    /// is a task gets one completed already); a call still running then, or asking on a
    /// 2025-11-25 session, becomes a task and goes on in the background. `cancel` (the
    /// request's) ends it only before it is a task; `tasks/cancel` ends the task.
    async fn task_call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        (views, forms): (bool, bool),
        support: TaskSupport,
        cancel: &CancelSignal,
    ) -> Result<CallToolResponse, ErrorData> {
        // Held by the task's call until it ends and is recorded, as `call_tool` holds it for a
        // call; not to be had when the server is stopping, and then no task outlives it.
        let Ok(answering) = Arc::clone(&self.answering).try_read_owned() else {
            let arguments = request.arguments.as_ref();
            let reply = self.reply(&request.name, arguments, views, cancel, None);
            return Ok(CallToolResult::from(reply.await).into());
        };
        let arguments = arguments_text(request.arguments.as_ref());
        let stateless = context
            .protocol_version()
            .is_some_and(|version| !version.has_initialize());
        let (answers, mut rounds) = match request.request_state.as_deref() {
            Some(state) if stateless && forms => {
                match questions::take(&*self.store, state, &request.name, &arguments).await {
                    Ok(kept) => kept.answers_with(request.input_responses.as_ref()),
                    Err(Unkept::Store(error)) => return Ok(store_unavailable(&error)),
                    Err(unkept) => return Err(unkept_state(&unkept)),
                }
            }
            _ => (Answers::new(), 0),
        };
        let task_cancel = CancelSignal::new();
        let progress = Arc::new(Progress::default());
        let reports: Arc<dyn ReportSink> = progress.clone();
        let running = Arc::new(Running {
            server: self.clone(),
            scope: self.call_scope(views, false, &task_cancel, Some(reports)),
            call: self.next_call(&request.name, arguments.clone()),
            views,
            forms,
            cancel: task_cancel.clone(),
            progress,
        });
        let mut first = running.round(answers.clone());
        let early = tokio::select! {
            outcome = &mut first => Some(outcome),
            () = tokio::time::sleep(TASK_AFTER) => None,
            () = cancel.cancelled() => {
                task_cancel.cancel();
                Some((&mut first).await)
            }
        };
        let first = match early {
            None => first,
            Some(Answering::Done(observed)) => {
                if support != TaskSupport::Required {
                    return Ok(self.complete(&request.name, &observed, views).await);
                }
                let ended = tasks::ended(&running, &observed).await;
                return Ok(match tasks::create(self, &task_cancel, Some(ended)).await {
                    Ok((reply, _)) => CallToolResponse::Task(reply),
                    Err(error) => tasks::unkept(&error),
                });
            }
            Some(Answering::Asking(asked)) if stateless => {
                rounds += 1;
                if rounds >= MAX_FORMS {
                    return Ok(too_many_rounds(&request.name).into());
                }
                let call = (&*request.name, &*arguments);
                return Ok(self.ask_later_round(call, answers, &asked, rounds).await);
            }
            Some(asking) => Box::pin(std::future::ready(asking)),
        };
        match tasks::create(self, &task_cancel, None).await {
            Ok((reply, created)) => {
                let created = created.expect("a task made without an end is still working");
                let run = tasks::run(running, created, first, answers, rounds);
                tokio::spawn(async move {
                    run.await;
                    drop(answering);
                });
                Ok(CallToolResponse::Task(reply))
            }
            Err(error) => {
                // No task could be kept, so no client could read its answer: the call stops,
                // and is recorded as cancelled.
                task_cancel.cancel();
                first.await;
                Ok(tasks::unkept(&error))
            }
        }
    }
}

/// Answers a `tools/call` with `answer`, giving `cancel` (the call's scope's cancel signal) as
/// soon as rmcp cancels the request's token; the seam then ends the call at once (a blocking
/// tool sees `ToolContext::is_cancelled`, an async tool's future is dropped) and it is recorded
/// as cancelled, so `answer` ends soon after. rmcp cancels the token:
/// - on the client's `notifications/cancelled` for the request, at once (and sends no reply);
/// - on a 2026-07-28 request (stateless) whose client disconnects before the reply, at once;
/// - when a stdio connection reaches its end of input, or a 2025-11-25 session is closed
///   (`DELETE`) or expires, once rmcp's grace for replies in flight (5 s) is over.
///
/// A 2025-11-25 client whose HTTP connection drops does not cancel its calls: the session
/// keeps their replies for the client to resume (the revision says a disconnection is not a
/// cancellation).
async fn answer_until_cancelled<T>(
    context: &RequestContext<RoleServer>,
    cancel: &CancelSignal,
    answer: impl Future<Output = T>,
) -> T {
    let mut answer = std::pin::pin!(answer);
    tokio::select! {
        biased;
        answered = &mut answer => return answered,
        () = context.ct.cancelled() => cancel.cancel(),
    }
    answer.await
}

/// What a call answers when its client cancels it while the person has its tool's question.
fn cancelled_while_asking(name: &str) -> String {
    format!(
        "Error: the call of tool \"{}\" was cancelled while the person had its question.",
        toolkit::bound::echo(name)
    )
}

/// What a call answers whose tool asked more rounds of questions than [`MAX_FORMS`].
fn too_many_rounds(name: &str) -> CallToolResult {
    CallToolResult::error(vec![rmcp::model::ContentBlock::text(format!(
        "Error: tool \"{}\" asked {MAX_FORMS} rounds of questions and still had no answer it \
         could take; it was stopped.",
        toolkit::bound::echo(name)
    ))])
}

/// The error a 2026-07-28 retry gets whose `requestState` names no question of this call.
fn unkept_state(unkept: &Unkept) -> ErrorData {
    let why = match unkept {
        Unkept::Expired => "its time to answer passed",
        _ => "it is unknown, was answered already, or is another call's",
    };
    ErrorData::invalid_params(
        format!(
            "the requestState names no question of this call: {why}. Make the call again \
             without it."
        ),
        None,
    )
}

/// What a writer's call answers when its client cancels it while the person has its form: it
/// was not run.
fn cancelled_before_answered(name: &str) -> String {
    format!(
        "Error: the call of tool \"{}\" was cancelled before the person answered; it was not run.",
        toolkit::bound::echo(name)
    )
}

/// Serves `service` over stdin and stdout until the host closes the connection. A tool whose
/// state `context` lacks is an `InvalidInput` error, before anything is served.
pub async fn serve_stdio(service: Arc<ToolLoopService>, context: ToolContext) -> io::Result<()> {
    McpToolServer::new(service, context)
        .map_err(invalid_input)?
        .serve_stdio()
        .await
}

/// Serves `service` over streamable HTTP at `http://127.0.0.1:PORT/mcp` until the process ends
/// (see [`McpToolServer::serve_http`]). A tool whose state `context` lacks is an `InvalidInput`
/// error, before the port is bound.
pub async fn serve_http(
    service: Arc<ToolLoopService>,
    context: ToolContext,
    port: u16,
    on_bound: impl FnOnce(SocketAddr),
) -> io::Result<()> {
    McpToolServer::new(service, context)
        .map_err(invalid_input)?
        .serve_http(port, on_bound)
        .await
}

impl McpToolServer {
    /// Serves over stdin and stdout until the host closes the connection: one session.
    ///
    /// Calls still running when the input ends get rmcp's grace (5 s) to reply, for a host
    /// that closes its side once it has sent its last request; then they are cancelled (their
    /// tools told to stop, each recorded as cancelled), and this returns once every call has
    /// ended and is recorded (waiting 5 s more at most, for a sink that is stuck), so that a
    /// process exiting next leaves no call running nor half recorded.
    pub async fn serve_stdio(self) -> io::Result<()> {
        self.serve_transport(rmcp::transport::stdio()).await
    }

    /// Serves one session over `transport` until it closes, then waits for the calls left
    /// behind as [`serve_stdio`](Self::serve_stdio) says.
    async fn serve_transport<T, E, A>(self, transport: T) -> io::Result<()>
    where
        T: rmcp::transport::IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let answering = Arc::clone(&self.answering);
        let tasks = self.tasks.clone();
        // Boxed: the handshake's state does not weigh on the future that serves.
        let running = Box::pin(self.serve(transport))
            .await
            .map_err(io::Error::other)?;
        let served = running.waiting().await.map_err(io::Error::other);
        // No client can poll this connection's tasks any more.
        tasks.cancel_all();
        if tokio::time::timeout(STOPPING_GRACE, answering.write())
            .await
            .is_err()
        {
            tracing::warn!(
                "calls were still being answered {STOPPING_GRACE:?} after the connection closed"
            );
        }
        served.map(drop)
    }

    /// Serves over streamable HTTP at `http://127.0.0.1:PORT/mcp` until the process ends. Port
    /// 0 picks a free port; `on_bound` is told the address before the first request is served.
    /// Each session of a 2025-11-25 client has its own approvals of tools for the session.
    ///
    /// Only loopback Hosts are served, and a request with an `Origin` only from this server's
    /// own origin: a web page elsewhere (or one reached by DNS rebinding) cannot call tools.
    pub async fn serve_http(self, port: u16, on_bound: impl FnOnce(SocketAddr)) -> io::Result<()> {
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
        let address = listener.local_addr()?;
        on_bound(address);
        // Hosts other than loopback are refused (DNS rebinding), and so is a browser page of
        // any other origin; clients that are not browsers send no Origin and pass.
        let bound = address.port();
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_origins([
                format!("http://127.0.0.1:{bound}"),
                format!("http://localhost:{bound}"),
            ])
            .enforce_origin_validation();
        // A fleet's instances find each other's sessions in the shared store.
        if self.shared {
            config.session_store = Some(Arc::new(Sessions(Arc::clone(&self.store))));
        }
        let http = StreamableHttpService::new(
            move || Ok(self.for_session()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let app = axum::Router::new().nest_service(HTTP_PATH, http);
        // A reply goes out in several writes (an event stream's headers, then its events):
        // without TCP_NODELAY the later ones wait for the client's delayed acknowledgement,
        // some 40 ms each.
        let listener = listener.tap_io(|connection| {
            if let Err(error) = connection.set_nodelay(true) {
                tracing::debug!(%error, "TCP_NODELAY could not be set on a connection");
            }
        });
        axum::serve(listener, app).await
    }
}

fn invalid_input(error: ScopeError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, error)
}

mod questions;
mod reports;
mod tasks;

#[cfg(test)]
mod cancellation_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Answers;
    use crate::views::{HANDLE_LIFETIME, KEPT_CALLS};
    use rmcp::model::ContentBlock;
    use serde_json::json;
    use toolkit::{Table, ToolArtifact, ToolRegistry, ToolResult, ToolSpec, spec::ToolFlags};

    /// A tool that answers "said".
    fn says(spec: ToolSpec) -> Answers {
        Answers(spec, |_| ToolResult::text("said"))
    }

    /// A registry of a plain tool and a writer named `writer` (changed by `spec`).
    fn plain_and_writer(writer: &'static str, spec: fn(ToolSpec) -> ToolSpec) -> ToolRegistry {
        let schema = serde_json::json!({"type": "object"});
        let mut registry = ToolRegistry::new();
        registry
            .register(says(ToolSpec::new("plain", "Says.", schema.clone())))
            .expect("new name");
        registry
            .register(says(spec(
                ToolSpec::new(writer, "Says after approval.", schema)
                    .with_flags(ToolFlags::new().with_requires_approval(true)),
            )))
            .expect("new name");
        registry
    }

    fn server() -> McpToolServer {
        let registry = plain_and_writer("guarded", |spec| spec);
        McpToolServer::new(Arc::new(ToolLoopService::new(registry)), ToolContext::new())
            .expect("no tool reads state")
    }

    #[test]
    fn a_writers_missing_state_stops_only_the_server_that_offers_writers() {
        struct Ledger;
        let registry = plain_and_writer("post_entry", ToolSpec::with_state::<Ledger>);
        let service = Arc::new(ToolLoopService::new(registry));
        // The writer is not listed without `with_writers`: its state is not asked for.
        let server = McpToolServer::new(Arc::clone(&service), ToolContext::new())
            .expect("the server of what it lists starts");
        let listed: Vec<String> = server
            .tools()
            .iter()
            .map(|tool| tool.name.to_string())
            .collect();
        assert!(listed.iter().any(|name| name == "plain"), "{listed:?}");
        assert!(
            !listed.iter().any(|name| name == "post_entry"),
            "{listed:?}"
        );
        // Offering it asks for its state, naming the tool.
        let error = server
            .with_writers()
            .err()
            .expect("the writer's state is missing");
        assert!(
            error.to_string().contains("tool \"post_entry\" reads"),
            "{error}"
        );
    }

    #[test]
    fn only_a_server_that_offers_a_task_tool_declares_the_tasks_extension() {
        let extensions = |registry: ToolRegistry| {
            let server =
                McpToolServer::new(Arc::new(ToolLoopService::new(registry)), ToolContext::new())
                    .expect("no tool reads state");
            let extensions = server
                .get_info()
                .capabilities
                .extensions
                .unwrap_or_default();
            extensions.into_keys().collect::<Vec<_>>()
        };
        let schema = serde_json::json!({"type": "object"});
        let tasked = |name: &'static str, support: TaskSupport, offered: bool| {
            says(
                ToolSpec::new(name, "Says.", schema.clone()).with_flags(
                    ToolFlags::new()
                        .with_task_support(support)
                        .with_enabled_by_default(offered),
                ),
            )
        };
        let mut registry = ToolRegistry::new();
        registry
            .register(tasked("plain", TaskSupport::Forbidden, true))
            .expect("new");
        // A task tool the server does not offer does not count.
        registry
            .register(tasked("hidden", TaskSupport::Required, false))
            .expect("new");
        assert_eq!(extensions(registry), [UI_EXTENSION]);
        let mut registry = ToolRegistry::new();
        registry
            .register(tasked("long", TaskSupport::Optional, true))
            .expect("new");
        assert_eq!(
            extensions(registry),
            [rmcp::model::TASKS_EXTENSION_ID, UI_EXTENSION]
        );
    }

    #[test]
    fn a_tool_the_host_chooses_is_answered_as_a_task_and_one_it_does_not_offer_is_refused() {
        let server = server();
        assert_eq!(server.task_support("plain"), TaskSupport::Forbidden);
        assert!(!server.get_info().capabilities.supports_tasks());
        let refused = server.clone().with_task_tools(["guarded"]).err();
        assert_eq!(
            refused.map(|error| error.to_string()).as_deref(),
            Some("the server offers no tool \"guarded\" to answer as a task")
        );
        let chosen = server.with_task_tools(["plain"]).expect("offered");
        assert_eq!(chosen.task_support("plain"), TaskSupport::Optional);
        assert!(chosen.get_info().capabilities.supports_tasks());
    }

    #[test]
    fn the_server_names_itself_toolkit_unless_told_another_name() {
        let info = |server: &McpToolServer| {
            let info = server.get_info().server_info;
            (info.name, info.version)
        };
        assert_eq!(
            info(&server()),
            ("toolkit".to_owned(), env!("CARGO_PKG_VERSION").to_owned())
        );
        let named = server().with_server_info("weather", "2.3.1");
        assert_eq!(info(&named), ("weather".to_owned(), "2.3.1".to_owned()));
        // Each session's server is named alike.
        assert_eq!(
            info(&named.for_session()),
            ("weather".to_owned(), "2.3.1".to_owned())
        );
    }

    #[tokio::test]
    async fn tools_are_told_that_people_see_their_artifacts_only_where_the_view_shows_them() {
        let mut registry = ToolRegistry::new();
        registry
            // Says whether its context shows artifacts to anyone.
            .register(Answers(
                ToolSpec::new("tells", "Tells.", serde_json::json!({"type": "object"})),
                |context| {
                    ToolResult::text(format!("artifacts shown: {}", context.artifacts_shown()))
                },
            ))
            .expect("new name");
        let service = Arc::new(ToolLoopService::new(registry));
        let context = ToolContext::new();
        assert!(context.artifacts_shown());
        let server = McpToolServer::new(service, context).expect("no state needed");
        assert_eq!(
            server.call("tells", None).await.text(),
            "artifacts shown: false"
        );
        assert_eq!(
            server.call_for_views("tells", None).await.text(),
            "artifacts shown: true"
        );
    }

    #[test]
    fn a_server_whose_context_lacks_a_tools_state_is_refused_before_serving() {
        struct Pool;
        let mut registry = ToolRegistry::new();
        registry
            .register(says(
                ToolSpec::new("query", "Queries.", serde_json::json!({"type": "object"}))
                    .with_state::<Pool>(),
            ))
            .expect("new name");
        let service = Arc::new(ToolLoopService::new(registry));
        let Err(error) = McpToolServer::new(Arc::clone(&service), ToolContext::new()) else {
            panic!("a server without the state");
        };
        assert_eq!(
            error.to_string(),
            "the context does not hold the state offered tools read: tool \"query\" reads \
             `toolkit_mcp::server::tests::a_server_whose_context_lacks_a_tools_state_is_refused_before_serving::Pool`. \
             Add each with `ToolContext::with_extension`, or offer only the tools whose state is \
             there (`Seam::scope_offering`)"
        );
        let server = McpToolServer::new(service, ToolContext::new().with_extension(Pool))
            .expect("the state is there");
        assert_eq!(server.tools().len(), 1);
    }

    #[test]
    fn the_writers_are_the_tools_that_require_approval_and_no_admin_tool() {
        let schema = serde_json::json!({"type": "object"});
        let mut registry = ToolRegistry::new();
        for (name, flags) in [
            ("plain", ToolFlags::new()),
            ("guarded", ToolFlags::new().with_requires_approval(true)),
            (
                "guarded_admin",
                ToolFlags::new()
                    .with_requires_approval(true)
                    .with_requires_admin(true),
            ),
            ("admin", ToolFlags::new().with_requires_admin(true)),
        ] {
            registry
                .register(says(
                    ToolSpec::new(name, "Says.", schema.clone()).with_flags(flags),
                ))
                .expect("new name");
        }
        let server =
            McpToolServer::new(Arc::new(ToolLoopService::new(registry)), ToolContext::new())
                .expect("no tool reads state");
        assert!(server.writers.is_empty());
        let server = server.with_writers().expect("no tool reads state");
        assert_eq!(&server.writers[..], ["guarded"]);
        let listed: Vec<String> = server
            .listed(true)
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect();
        assert_eq!(listed, ["plain", "guarded"]);
    }

    #[test]
    fn tools_needing_approval_are_not_listed() {
        let names: Vec<String> = server()
            .tools()
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect();
        assert_eq!(names, ["plain"]);
    }

    #[tokio::test]
    async fn tools_needing_approval_are_not_permitted_and_others_answer_in_one_text_block() {
        let server = server();
        let refused = CallToolResult::from(server.call("guarded", None).await);
        assert_eq!(refused.is_error, Some(true));
        assert_eq!(
            refused.content,
            [ContentBlock::text("Error: tool \"guarded\" not permitted")]
        );
        let said = CallToolResult::from(server.call("plain", None).await);
        assert_eq!(said.is_error, Some(false));
        assert_eq!(said.content, [ContentBlock::text("said")]);
        assert_eq!(said.structured_content, None);
        assert_eq!(said.meta, None);
    }

    /// A table, a text and an image whose every string (and the image's bytes) is a canary,
    /// and an image for the model.
    fn canaries(_context: &ToolContext) -> ToolResult {
        let table = Table::from_rows(["CANARY-COLUMN"], [["CANARY-CELL"]]).expect("one column");
        ToolResult::text_with(
            "shown to people only",
            [
                ToolArtifact::table("CANARY-LABEL", table),
                ToolArtifact::text("note", "CANARY-TEXT"),
                ToolArtifact::media("picture", "image/png", canary_png()),
            ],
        )
        .with_media(toolkit::result::Media::png(toolkit_testing::media::PNG))
    }

    fn canary_png() -> Vec<u8> {
        toolkit_testing::media::png_with("CANARY-MEDIA")
    }

    fn base64(bytes: &[u8]) -> String {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    fn canary_server() -> McpToolServer {
        let mut registry = ToolRegistry::new();
        for name in ["canary", ARTIFACTS_TOOL] {
            registry
                .register(Answers(
                    ToolSpec::new(name, "Shows canaries.", json!({"type": "object"})),
                    canaries,
                ))
                .expect("new name");
        }
        registry
            .register(says(ToolSpec::new(
                "plain",
                "Says.",
                json!({"type": "object"}),
            )))
            .expect("new name");
        McpToolServer::new(Arc::new(ToolLoopService::new(registry)), ToolContext::new())
            .expect("no tool reads state")
    }

    #[tokio::test]
    async fn a_client_that_shows_views_gets_a_handle_and_the_view_the_artifacts_by_it() {
        let server = canary_server();
        let reply = server.call_for_views("canary", None).await;
        assert_eq!(
            (reply.text(), reply.is_error()),
            ("shown to people only", false)
        );
        let handle = reply.handle().expect("the call made artifacts").to_owned();
        assert_eq!(handle.len(), 32);
        let model_side = serde_json::to_string(&CallToolResult::from(reply)).expect("JSON");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&model_side).expect("JSON"),
            json!({
                "resultType": "complete",
                "content": [
                    {"type": "text", "text": "shown to people only"},
                    {"type": "image", "data": base64(toolkit_testing::media::PNG), "mimeType": "image/png"},
                ],
                "isError": false,
                "_meta": {"toolkit/artifacts": {"handle": handle, "count": 3}},
            })
        );
        assert!(!model_side.contains("CANARY"));
        assert!(!model_side.contains(&base64(&canary_png())));

        let view_side = server
            .artifacts(&handle)
            .await
            .expect("memory answers")
            .expect("a live handle");
        assert_eq!(view_side.tool(), "canary");
        assert_eq!(view_side.artifacts().len(), 3);
        let view_side = CallToolResult::from(view_side);
        assert_eq!(
            view_side.content,
            [ContentBlock::text(
                "3 artifact(s) of a call of tool \"canary\", for the artifacts view."
            )]
        );
        assert_eq!(
            view_side.structured_content,
            Some(json!({"tool": "canary", "artifacts": [
                {"type": "table", "label": "CANARY-LABEL",
                 "data": {"columns": ["CANARY-COLUMN"], "rows": [["CANARY-CELL"]]}},
                {"type": "text", "label": "note", "data": {"text": "CANARY-TEXT"}},
                {"type": "media", "label": "picture",
                 "data": {"mime_type": "image/png", "base64": base64(&canary_png())}},
            ]}))
        );
        // Each call has a handle of its own.
        let again = server.call_for_views("canary", None).await;
        assert_ne!(again.handle(), Some(handle.as_str()));
    }

    /// A sound, a PDF and a text file, with no text.
    fn files(_context: &ToolContext) -> ToolResult {
        use toolkit::result::Media;
        use toolkit_testing::media::{PDF, WAV};
        ToolResult::text("")
            .with_media(Media::new("audio/wav", WAV))
            .with_media(Media::new("application/pdf", PDF).named("q3.pdf"))
            .with_media(Media::new("text/plain", "a note").named("file:///notes.txt"))
    }

    #[tokio::test]
    async fn media_reaches_a_client_as_audio_and_embedded_resources_and_no_empty_text() {
        let mut registry = ToolRegistry::new();
        registry
            .register(Answers(
                ToolSpec::new("files", "Shows files.", json!({"type": "object"})),
                files,
            ))
            .expect("new name");
        let server =
            McpToolServer::new(Arc::new(ToolLoopService::new(registry)), ToolContext::new())
                .expect("no tool reads state");
        let reply = CallToolResult::from(server.call("files", None).await);
        assert_eq!(
            serde_json::to_value(&reply).expect("JSON"),
            json!({
                "resultType": "complete",
                "content": [
                    {"type": "audio", "data": base64(toolkit_testing::media::WAV), "mimeType": "audio/wav"},
                    {"type": "resource", "resource": {
                        "uri": "toolkit:media/q3.pdf",
                        "mimeType": "application/pdf",
                        "blob": base64(toolkit_testing::media::PDF),
                    }},
                    {"type": "resource", "resource": {
                        "uri": "file:///notes.txt",
                        "mimeType": "text/plain",
                        "text": "a note",
                    }},
                ],
                "isError": false,
            })
        );
    }

    #[tokio::test]
    async fn no_handle_without_views_or_without_artifacts() {
        let server = canary_server();
        let reply = server.call("canary", None).await;
        assert_eq!(reply.handle(), None);
        assert_eq!(CallToolResult::from(reply).meta, None);
        let reply = server.call_for_views("plain", None).await;
        assert_eq!(reply.handle(), None);
        assert_eq!(CallToolResult::from(reply).meta, None);
    }

    #[tokio::test]
    async fn the_artifacts_tool_refuses_a_missing_or_unknown_handle_and_its_name_is_the_servers() {
        let server = canary_server();
        let missing = server.artifacts_call(None).await;
        assert_eq!(missing.is_error, Some(true));
        assert_eq!(
            missing.content,
            [ContentBlock::text(
                "Error: invalid arguments for tool \"toolkit_artifacts\": `handle` (a string) is required."
            )]
        );
        let arguments = json!({"handle": "0123456789abcdef0123456789abcdef"});
        let unknown = server.artifacts_call(arguments.as_object()).await;
        assert_eq!(unknown.is_error, Some(true));
        assert_eq!(
            unknown.content,
            [ContentBlock::text(
                "Error: no artifacts are kept under this handle (a call's artifacts are kept for 30 minutes, for the 256 latest calls)."
            )]
        );
        // The registered tool of the reserved name is not offered, not even to a model.
        let names: Vec<String> = server
            .tools()
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect();
        assert_eq!(names, ["canary", "plain"]);
        let refused = server.call(ARTIFACTS_TOOL, None).await;
        assert!(refused.is_error());
        assert_eq!(
            refused.text(),
            "Error: tool \"toolkit_artifacts\" not permitted"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn handles_expire_and_only_the_latest_calls_are_kept() {
        let store = MemoryStore::default();
        let artifact = [ToolArtifact::text("note", "kept")];
        let live = async |handle: &str| {
            kept(&store, handle)
                .await
                .expect("memory answers")
                .is_some()
        };
        let first = keep(&store, "canary", &artifact).await.expect("kept");
        let second = Duration::from_secs(1);
        let almost = HANDLE_LIFETIME
            .checked_sub(second)
            .expect("longer than a second");
        tokio::time::advance(almost).await;
        assert!(live(&first).await);
        tokio::time::advance(second).await;
        assert!(!live(&first).await);

        let mut handles = Vec::new();
        for _ in 0..=KEPT_CALLS {
            handles.push(keep(&store, "canary", &artifact).await.expect("kept"));
        }
        assert!(!live(&handles[0]).await);
        for handle in &handles[1..] {
            assert!(live(handle).await);
        }
    }
}

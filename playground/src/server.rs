//! The web inspector: a small axum server for the embedded page, the tool list, one-call
//! invocations, loops streamed as NDJSON events, and the runs history from the audit copy.
//!
//! One service serves every call and run; its recorder keeps each step in the audit copy
//! before the page sees it. Handlers take typed JSON bodies and answer typed JSON.
//!
//! Every response carries a strict Content-Security-Policy: the page's own script and style
//! only, no inline script, no eval, nothing from elsewhere. Every request passes the
//! [`guard`](crate::guard) first: this server's Host, this launch's token for the API, and this
//! server's own origin for anything that changes something.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::{broadcast, mpsc, oneshot};
use toolkit::provider::Provider;
use toolkit::{
    RunError, RunEvent, RunOptions, RunRequest, ToolArtifact, ToolCall, ToolContext,
    ToolLoopResult, ToolLoopService, ToolRegistry,
    approval::{Decision, HIDDEN_WARNING, hides_characters, visible},
    recording::{RunId, ToolInvocation},
    registry::RegistryError,
    run::{PendingQuestions, Preview},
    seal::TokenError,
};
use toolkit_audit::{Audit, RunQuery};

use crate::defaults::{DEFAULT_QUESTION, DEFAULT_SCRIPT};
use crate::guard::{Guard, same_origin};

/// The policy sent on every response.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
    style-src 'self'; img-src 'self' data:; media-src data:; connect-src 'self'; \
    object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const INDEX_HTML: &str = include_str!("../assets/index.html");
const RUNS_HTML: &str = include_str!("../assets/runs.html");
const APP_JS: &str = include_str!("../assets/app.js");
const STYLE_CSS: &str = include_str!("../assets/style.css");
const FAVICON_SVG: &str = include_str!("../assets/favicon.svg");

pub use crate::defaults::LiveModel;

/// What the server works with: one service for every call and run (its recorder feeds the
/// audit copy), the context tools see, the audit copy to read the history from, and this
/// launch's token.
#[derive(Clone)]
pub struct AppState {
    service: Arc<ToolLoopService>,
    context: ToolContext,
    audit: Option<Arc<Audit>>,
    live: Option<LiveModel>,
    writers: bool,
    auto_approve: Option<String>,
    token: Arc<str>,
}

/// The server could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A tool could not be registered.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The sample data could not be made.
    #[error(transparent)]
    Sample(#[from] crate::defaults::SampleSetupError),
}

impl AppState {
    /// The state over `registry` (see [`defaults::service`](crate::defaults::service): secrets
    /// masked for the model unless `show_secrets`), its tools working on `context`; every call
    /// and run is kept in `audit` when there is one.
    pub fn new(
        registry: ToolRegistry,
        context: ToolContext,
        audit: Option<Arc<Audit>>,
        live: Option<LiveModel>,
        show_secrets: bool,
    ) -> Self {
        let service = crate::defaults::service(registry, audit.as_ref(), show_secrets);
        Self::over(Arc::new(service), context, audit, live)
    }

    /// The state over a service built elsewhere (say, with a seal key of its own); `audit` is
    /// where the history is read from.
    pub fn over(
        service: Arc<ToolLoopService>,
        context: ToolContext,
        audit: Option<Arc<Audit>>,
        live: Option<LiveModel>,
    ) -> Self {
        Self {
            service,
            context,
            audit,
            live,
            writers: false,
            auto_approve: None,
            token: crate::guard::launch_token().into(),
        }
    }

    /// The same state offering the tools that change files or records to loops: each of their
    /// calls waits for the operator's approval in the page.
    #[must_use]
    pub fn with_writers(mut self, writers: bool) -> Self {
        self.writers = writers;
        self
    }

    /// The same state telling the page which calls the service's approval policy answers
    /// without a question (`description`, say "writes under notes/").
    #[must_use]
    pub fn with_auto_approve(mut self, description: Option<String>) -> Self {
        self.auto_approve = description;
        self
    }

    /// This launch's token: API clients send it in the `X-Playground-Token` header.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The tools a loop is offered (see [`offered_tools`](crate::defaults::offered_tools)).
    fn offered(&self) -> Vec<String> {
        crate::defaults::offered_tools(self.service.registry(), self.writers)
    }

    /// The embedded default: the linked tools over the sample workspace and database, secrets
    /// masked for the model.
    pub fn embedded(
        audit: Option<Arc<Audit>>,
        live: Option<LiveModel>,
    ) -> Result<Self, SetupError> {
        let context = crate::defaults::sample_context()?;
        Ok(Self::new(
            toolkit_builtins::registry()?,
            context,
            audit,
            live,
            false,
        ))
    }
}

/// The inspector's routes, for a server bound to `address`.
pub fn router(state: AppState, address: SocketAddr) -> Router {
    let guard = Guard::new(address, &state.token);
    // The page learns the token from its HTML, which only a request for this Host receives.
    let index: Arc<str> = INDEX_HTML.replace(TOKEN_PLACEHOLDER, &state.token).into();
    let history: Arc<str> = RUNS_HTML.replace(TOKEN_PLACEHOLDER, &state.token).into();
    Router::new()
        .route("/", get(move || std::future::ready(page(&index))))
        .route("/runs", get(move || std::future::ready(page(&history))))
        .route(
            "/artifacts.js",
            get(|| async {
                asset(
                    toolkit_mcp::views::RENDERER_JS,
                    "text/javascript; charset=utf-8",
                )
            }),
        )
        .route(
            "/app.js",
            get(|| async { asset(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/style.css",
            get(|| async { asset(STYLE_CSS, "text/css; charset=utf-8") }),
        )
        .route(
            "/favicon.svg",
            get(|| async { asset(FAVICON_SVG, "image/svg+xml") }),
        )
        .route(
            "/favicon.ico",
            get(|| async { asset(FAVICON_SVG, "image/svg+xml") }),
        )
        .route("/api/tools", get(tools))
        .route("/api/config", get(config))
        .route("/api/invoke", post(invoke))
        .route("/api/run", post(run))
        .route("/api/resume", post(resume))
        .route("/api/runs", get(runs))
        .route("/api/runs/changes", get(run_changes))
        .route("/api/runs/{run_id}", get(run_detail))
        .layer(middleware::from_fn_with_state(guard, same_origin))
        .layer(middleware::from_fn(security_headers))
        .with_state(state)
}

/// Serves the inspector on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    let address = listener.local_addr()?;
    axum::serve(listener, router(state, address)).await
}

/// Where the HTML pages carry the launch token (in `<meta name="playground-token">`).
const TOKEN_PLACEHOLDER: &str = "{{playground-token}}";

fn page(html: &str) -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        html.to_owned(),
    )
        .into_response()
}

async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn asset(body: &'static str, content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

fn bad_request(message: impl Into<String>) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(ErrorBody {
            error: message.into(),
        }),
    )
        .into_response()
}

#[derive(Serialize)]
struct ErrorBody {
    error: String,
}

/// A body that is not the JSON a handler takes, as our JSON error.
fn rejected(rejection: &JsonRejection) -> Response {
    bad_request(format!("invalid request: {}", rejection.body_text()))
}

#[derive(Serialize)]
struct ToolView<'a> {
    name: &'a str,
    description: &'a str,
    group: &'a str,
    flags: FlagsView,
    input_schema: &'a serde_json::Value,
}

#[derive(Serialize)]
#[allow(clippy::struct_excessive_bools)] // the flags as the page reads them
struct FlagsView {
    requires_approval: bool,
    requires_admin: bool,
    enabled_by_default: bool,
    remote: bool,
}

async fn tools(State(state): State<AppState>) -> Response {
    let tools: Vec<ToolView<'_>> = state
        .service
        .registry()
        .specs()
        .map(|spec| {
            let flags = spec.flags();
            ToolView {
                name: spec.name(),
                description: spec.description(),
                group: spec.group(),
                flags: FlagsView {
                    requires_approval: flags.requires_approval(),
                    requires_admin: flags.requires_admin(),
                    enabled_by_default: flags.enabled_by_default(),
                    remote: flags.remote(),
                },
                input_schema: spec.input_schema(),
            }
        })
        .collect();
    Json(tools).into_response()
}

async fn config(State(state): State<AppState>) -> Response {
    Json(json!({
        "default_script": DEFAULT_SCRIPT,
        "default_question": DEFAULT_QUESTION,
        "live": state.live.as_ref().map(|live| json!({
            "provider": live.wire.as_str(),
            "base_url": live.base_url,
            "model": live.model,
        })),
        "audit": state.audit.as_ref().map(|audit| audit.privacy().as_str()),
        "writers": state.writers,
        "auto_approve": state.auto_approve,
    }))
    .into_response()
}

#[derive(Deserialize)]
struct InvokeBody {
    name: String,
    #[serde(default)]
    arguments: Option<String>,
}

/// One call, answered as the step the page renders: its index in its run and the call's record.
#[derive(Serialize)]
struct InvokeReply<'a> {
    index: usize,
    invocation: Shown<'a>,
}

/// The call as the page renders it: its record when one was kept, else the same fields from the
/// call and its result, timed by the handler.
#[derive(Serialize)]
#[serde(untagged)]
enum Shown<'a> {
    Recorded(&'a ToolInvocation),
    Unrecorded {
        call_id: &'a str,
        name: &'a str,
        arguments: &'a str,
        content: &'a str,
        is_error: bool,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        artifacts: &'a [ToolArtifact],
        /// Milliseconds, as the record's duration serialises.
        duration: f64,
    },
}

/// Why the page cannot run `name` as one call, and how to run it, for a tool that is not
/// offered by default; `None` for the others (the seam answers for unknown names).
pub fn not_offered(registry: &ToolRegistry, name: &str, writers: bool) -> Option<String> {
    let flags = registry.get(name)?.spec().flags();
    if flags.requires_approval() {
        return Some(if writers {
            format!(
                "{name:?} changes files or records, so each call waits for your approval: ask for \
                 it in a loop (the Loop panel, or playground run --writers); the loop stops and \
                 shows the call for you to approve or deny"
            )
        } else {
            format!(
                "{name:?} changes files or records, so it is not offered: start the playground \
                 with --writers, then ask for it in a loop; each call waits for your approval"
            )
        });
    }
    if flags.requires_admin() {
        return Some(format!(
            "{name:?} is for administrators, and the playground does not run as one"
        ));
    }
    None
}

async fn invoke(
    State(state): State<AppState>,
    body: Result<Json<InvokeBody>, JsonRejection>,
) -> Result<Response, Response> {
    let Json(body) = body.map_err(|rejection| rejected(&rejection))?;
    if let Some(why) = not_offered(state.service.registry(), &body.name, state.writers) {
        return Err(bad_request(why));
    }
    let arguments = body.arguments.unwrap_or_else(|| "{}".to_owned());
    let scope = state
        .service
        .scope(state.context.clone())
        .map_err(|error| bad_request(error.to_string()))?;
    let call = ToolCall::new("call_1", body.name, arguments);
    // Recorded like any run: the audit copy keeps it before the page sees it.
    let started = Instant::now();
    let observed = state.service.call_observed(&scope, "invoke", &call).await;
    let took = started.elapsed();
    let invocation = match observed.record() {
        Some(record) => Shown::Recorded(record),
        None => Shown::Unrecorded {
            call_id: call.id(),
            name: call.name(),
            arguments: call.arguments(),
            content: observed.content(),
            is_error: observed.is_error(),
            artifacts: observed.artifacts(),
            duration: took.as_secs_f64() * 1000.0,
        },
    };
    Ok(Json(InvokeReply {
        index: 0,
        invocation,
    })
    .into_response())
}

#[derive(Deserialize)]
struct RunBody {
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    script: Option<String>,
    #[serde(default)]
    question: Option<String>,
    /// Whether the model's answers stream into the page (yes unless `false`).
    #[serde(default)]
    stream: Option<bool>,
}

/// The provider a run or a resume asks: `mode` is `scripted` (the default, playing `script`)
/// or `live` (the server's `--base-url`); the error is the page's message.
fn provider(
    state: &AppState,
    mode: Option<&str>,
    script: Option<&str>,
) -> Result<Arc<dyn Provider>, String> {
    let live = match mode.unwrap_or("scripted") {
        "scripted" => None,
        "live" => Some(state.live.as_ref().ok_or(
            "no live model: start the playground with --provider NAME or --base-url URL \
                     [--model NAME]",
        )?),
        other => return Err(format!("unknown mode {other:?}: expected scripted or live")),
    };
    crate::defaults::provider(live, script)
}

fn ndjson_response(lines: mpsc::UnboundedReceiver<Line>) -> Response {
    let stream = futures_util::stream::unfold(lines, |mut lines| async move {
        lines
            .recv()
            .await
            .map(|line| (Ok::<_, Infallible>(ndjson(&line)), lines))
    });
    (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(stream),
    )
        .into_response()
}

async fn run(
    State(state): State<AppState>,
    body: Result<Json<RunBody>, JsonRejection>,
) -> Result<Response, Response> {
    let Json(body) = body.map_err(|rejection| rejected(&rejection))?;
    let provider =
        provider(&state, body.mode.as_deref(), body.script.as_deref()).map_err(bad_request)?;
    let question = body
        .question
        .filter(|question| !question.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_QUESTION.to_owned());
    let options = RunOptions::default().with_streaming(body.stream.unwrap_or(true));
    let request = RunRequest::new(question)
        .with_tools(state.offered())
        .with_context(state.context.clone())
        .with_options(options);
    Ok(ndjson_response(stream_run(
        &state.service,
        provider,
        request,
    )))
}

#[derive(Deserialize)]
struct ResumeBody {
    token: String,
    #[serde(default)]
    decisions: Vec<Decision>,
    /// Stop the run instead: nothing pending runs.
    #[serde(default)]
    abort: bool,
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    script: Option<String>,
}

async fn resume(
    State(state): State<AppState>,
    body: Result<Json<ResumeBody>, JsonRejection>,
) -> Result<Response, Response> {
    let Json(body) = body.map_err(|rejection| rejected(&rejection))?;
    let provider =
        provider(&state, body.mode.as_deref(), body.script.as_deref()).map_err(bad_request)?;
    let resolution = match (body.abort, body.decisions.is_empty()) {
        (true, false) => {
            return Err(bad_request(
                "an abort takes no decisions: nothing pending runs".to_owned(),
            ));
        }
        (true, true) => Resolution::Abort,
        (false, _) => Resolution::Decide(body.decisions),
    };
    let lines = stream_resume(
        &state.service,
        provider,
        &body.token,
        resolution,
        state.context.clone(),
    )
    .map_err(|error| bad_request(error.to_string()))?;
    Ok(ndjson_response(lines))
}

/// One line of a run's stream: one of the run's events, or what the stream itself has to say.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Line {
    /// An event of the run, as the recorder made it.
    Event(Arc<RunEvent>),
    /// Something about the stream, not the run.
    Notice(Notice),
}

/// What the stream says of itself, in the events' shape (`{"event": "error", ...}`).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Notice {
    /// Events were lost, or the run could not start.
    Error {
        /// What happened.
        message: String,
    },
    /// The run could not start: the stream ends here.
    NotStarted,
    /// The run waits for an operator: the calls to decide on, and the token that resumes it
    /// (once, before it expires).
    Suspended {
        /// The run.
        run_id: RunId,
        /// The sealed state, for `/api/resume` or `playground resume`.
        token: String,
        /// The calls waiting, with their arguments.
        pending: Vec<ToolCall>,
        /// What the tools' previews say about them (an edit's diff), for the operator.
        previews: Vec<Preview>,
        /// What the page shows of each waiting call: its arguments and preview with every
        /// character a person could not see written out.
        shown: Vec<ShownCall>,
        /// The questions the tools of waiting calls asked you, each with its form.
        questions: Vec<PendingQuestions>,
    },
}

/// One waiting call as the page shows it to the operator: its arguments as sent and its
/// preview, with every character a person could not see (a direction override, a zero-width
/// space, a line separator) written out as `⟨U+XXXX⟩` ([`toolkit::approval::visible`]), and
/// the warning to show above them when there was any.
#[derive(Clone, Debug, Serialize)]
pub struct ShownCall {
    /// The call.
    pub call_id: String,
    /// Its arguments.
    pub arguments: String,
    /// Its preview, when its tool names one.
    pub preview: Option<String>,
    /// [`HIDDEN_WARNING`] when the arguments or the preview hold such characters.
    pub warning: Option<&'static str>,
}

impl ShownCall {
    fn of(call: &ToolCall, previews: &[Preview]) -> Self {
        let preview = previews
            .iter()
            .find(|preview| preview.call_id == call.id())
            .map(|preview| preview.text.as_str());
        let hidden = hides_characters(call.arguments()) || preview.is_some_and(hides_characters);
        Self {
            call_id: call.id().to_owned(),
            arguments: visible(call.arguments()).into_owned(),
            preview: preview.map(|preview| visible(preview).into_owned()),
            warning: hidden.then_some(HIDDEN_WARNING),
        }
    }
}

/// A line as NDJSON: the one place lines become text.
pub fn ndjson(line: &Line) -> String {
    let mut text = serde_json::to_string(line).unwrap_or_else(|error| {
        json!({"event": "error", "message": format!("a line could not be written: {error}")})
            .to_string()
    });
    text.push('\n');
    text
}

/// Runs the loop in the background and gives its lines: the run's events as the recorder makes
/// them (the audit copy, when the service has one, kept each step first), a
/// [`Notice::Suspended`] when it stops for approvals, then the end of the stream. Other runs of
/// the same service are not in it.
pub fn stream_run(
    service: &Arc<ToolLoopService>,
    provider: Arc<dyn Provider>,
    request: RunRequest,
) -> mpsc::UnboundedReceiver<Line> {
    let run_id = request.run_id().clone();
    let work = {
        let service = Arc::clone(service);
        async move { service.run(provider.as_ref(), request).await }
    };
    stream(service, run_id, work)
}

/// What the operator says to a suspended run.
#[derive(Clone, Debug)]
pub enum Resolution {
    /// A decision per pending call (a call without one is refused).
    Decide(Vec<Decision>),
    /// Stop the run: nothing pending runs.
    Abort,
}

/// Resumes (or aborts) a suspended run in the background as the operator resolved it, and gives
/// its lines as [`stream_run`] does. A token that does not open (tampered, expired, for another
/// key) is refused here, before anything runs; one already used, and decisions the run refuses
/// (an unknown call, an edit that does not check), are refused in the stream.
pub fn stream_resume(
    service: &Arc<ToolLoopService>,
    provider: Arc<dyn Provider>,
    token: &str,
    resolution: Resolution,
    context: ToolContext,
) -> Result<mpsc::UnboundedReceiver<Line>, TokenError> {
    let run_id = service.suspended(token)?.run_id().clone();
    let token = token.to_owned();
    let work = {
        let service = Arc::clone(service);
        async move {
            match resolution {
                Resolution::Decide(decisions) => {
                    service
                        .resume(provider.as_ref(), &token, &decisions, context)
                        .await
                }
                Resolution::Abort => service.abort(&token).await,
            }
        }
    };
    Ok(stream(service, run_id, work))
}

fn stream(
    service: &ToolLoopService,
    run_id: RunId,
    work: impl Future<Output = Result<ToolLoopResult, RunError>> + Send + 'static,
) -> mpsc::UnboundedReceiver<Line> {
    let (sender, lines) = mpsc::unbounded_channel();
    let mut events = service.subscribe();
    let forward = sender.clone();
    let watched = run_id.clone();
    // A run that does not start has no `Done`: its failure ends the forwarding instead.
    let (failed, mut not_started) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let mut started = false;
        loop {
            let next = tokio::select! {
                next = events.recv() => next,
                // Dropped unsent when the run started: then only `Done` ends this.
                failed = &mut not_started, if !started => {
                    if failed.is_ok() {
                        break;
                    }
                    started = true;
                    continue;
                }
            };
            let event = match next {
                Ok(event) => event,
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    let message = format!("the inspector missed {missed} events");
                    let _ = forward.send(Line::Notice(Notice::Error { message }));
                    continue;
                }
                Err(broadcast::error::RecvError::Closed) => break,
            };
            if event.run_id() != &watched {
                continue;
            }
            let done = matches!(*event, RunEvent::Done { .. });
            let _ = forward.send(Line::Event(event));
            if done {
                break;
            }
        }
    });
    tokio::spawn(async move {
        match work.await {
            Ok(result) => {
                if let Some(suspension) = result.suspension {
                    let shown = suspension
                        .pending
                        .iter()
                        .map(|call| ShownCall::of(call, &suspension.previews))
                        .collect();
                    let _ = sender.send(Line::Notice(Notice::Suspended {
                        run_id,
                        token: suspension.token,
                        pending: suspension.pending,
                        previews: suspension.previews,
                        shown,
                        questions: suspension.questions,
                    }));
                }
            }
            Err(error) => {
                let message = error.to_string();
                let _ = sender.send(Line::Notice(Notice::Error { message }));
                let _ = sender.send(Line::Notice(Notice::NotStarted));
                let _ = failed.send(());
            }
        }
    });
    lines
}

/// The history's query: `q` (text in a title, run id or tool name), `status` (a termination or
/// `unfinished`), and a page (`offset`, `limit` up to 200).
#[derive(Deserialize)]
struct RunsQuery {
    #[serde(default)]
    q: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    offset: usize,
    #[serde(default)]
    limit: Option<usize>,
}

/// Most runs one page of the history holds.
const RUNS_PAGE_LIMIT: usize = 200;

async fn runs(
    State(state): State<AppState>,
    query: Result<Query<RunsQuery>, QueryRejection>,
) -> Response {
    let Query(query) = match query {
        Ok(query) => query,
        Err(rejection) => return bad_request(format!("invalid query: {}", rejection.body_text())),
    };
    let Some(audit) = state.audit.clone() else {
        return Json(json!({"runs": [], "total": 0, "audit": null})).into_response();
    };
    let mut runs = RunQuery::default()
        .with_offset(query.offset)
        .with_limit(query.limit.unwrap_or(RUNS_PAGE_LIMIT).min(RUNS_PAGE_LIMIT));
    if let Some(text) = query.q {
        runs = runs.with_text(text);
    }
    if let Some(termination) = query.status {
        runs = runs.with_termination(termination);
    }
    let query = runs;
    // Read before the page: a change committed while it is read is announced after this. An
    // audit copy that cannot announce changes now still lists its runs; the page then asks
    // again every two seconds, as for SQLite.
    let version = match audit.changes().await {
        Ok(changes) => changes.map(|changes| *changes.borrow()),
        Err(error) => {
            eprintln!("playground: runs history: {error}; the page asks again every two seconds");
            None
        }
    };
    match audit.find_runs(&query).await {
        Ok((runs, total)) => Json(json!({
            "runs": runs,
            "total": total,
            "audit": audit.privacy().as_str(),
            "kind": audit.kind(),
            "version": version,
        }))
        .into_response(),
        Err(error) => server_error(&error.to_string()),
    }
}

/// `after`: the `version` of the history the page shows.
#[derive(Deserialize)]
struct ChangesQuery {
    after: u64,
}

/// How long one wait for a change lasts before the page asks again.
const CHANGES_WAIT: std::time::Duration = std::time::Duration::from_secs(25);

/// Waits until some instance commits to the audit copy after the page's `version` (at most
/// [`CHANGES_WAIT`]) and answers the new version: `{"live": true, "version": N}`. A version is
/// this process's count, so any other version (a page opened before a restart) answers at once.
/// An audit copy
/// that cannot announce commits (SQLite) answers `{"live": false}` at once, and the page asks
/// for the runs again every two seconds instead.
async fn run_changes(
    State(state): State<AppState>,
    query: Result<Query<ChangesQuery>, QueryRejection>,
) -> Response {
    let Query(ChangesQuery { after }) = match query {
        Ok(query) => query,
        Err(rejection) => return bad_request(format!("invalid query: {}", rejection.body_text())),
    };
    let Some(audit) = state.audit.clone() else {
        return Json(json!({"live": false})).into_response();
    };
    let mut changes = match audit.changes().await {
        Ok(Some(changes)) => changes,
        Ok(None) => return Json(json!({"live": false})).into_response(),
        Err(error) => return server_error(&error.to_string()),
    };
    // Over when the version is not the page's, when the feed closes, or after the wait.
    let _ = tokio::time::timeout(CHANGES_WAIT, changes.wait_for(|version| *version != after)).await;
    let version = *changes.borrow();
    Json(json!({"live": true, "version": version})).into_response()
}

async fn run_detail(State(state): State<AppState>, Path(run_id): Path<String>) -> Response {
    let Some(audit) = state.audit.clone() else {
        return (
            StatusCode::NOT_FOUND,
            Json(ErrorBody {
                error: "no audit copy".to_owned(),
            }),
        )
            .into_response();
    };
    match audit.run(&run_id).await {
        Ok(Some((run, steps))) => Json(json!({"run": run, "steps": steps})).into_response(),
        Ok(None) => (
            StatusCode::NOT_FOUND,
            Json(ErrorBody {
                error: "unknown run".to_owned(),
            }),
        )
            .into_response(),
        Err(error) => server_error(&error.to_string()),
    }
}

fn server_error(message: &str) -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        Json(ErrorBody {
            error: message.to_owned(),
        }),
    )
        .into_response()
}

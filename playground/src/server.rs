//! The web inspector: a small axum server for the embedded page, the tool list, one-call
//! invocations, loops streamed as NDJSON events, and the runs history from the audit copy.
//!
//! One service serves every call and run; its recorder keeps each step in the audit copy
//! before the page sees it. Handlers take typed JSON bodies and answer typed JSON.
//!
//! Every response carries a strict Content-Security-Policy: the page's own script and style
//! only, no inline script, no eval, nothing from elsewhere.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::{broadcast, mpsc};
use toolkit::provider::{HttpOptions, OpenAiProvider, Provider, ScriptedProvider};
use toolkit::{
    RegistryError, RunEvent, RunRequest, ToolCall, ToolContext, ToolInvocation, ToolLoopService,
    ToolRegistry,
};
use toolkit_audit::SqliteAudit;

use crate::defaults::{DEFAULT_QUESTION, DEFAULT_SCRIPT};

/// The policy sent on every response.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
    style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

const INDEX_HTML: &str = include_str!("../assets/index.html");
const RUNS_HTML: &str = include_str!("../assets/runs.html");
const APP_JS: &str = include_str!("../assets/app.js");
const STYLE_CSS: &str = include_str!("../assets/style.css");
const FAVICON_SVG: &str = include_str!("../assets/favicon.svg");

/// An OpenAI-compatible server for live loops.
#[derive(Clone, Debug)]
pub struct LiveModel {
    /// Its base URL, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// The model to ask.
    pub model: String,
}

/// What the server works with: one service for every call and run (its recorder feeds the
/// audit copy), the context tools see, and the audit copy to read the history from.
#[derive(Clone)]
pub struct AppState {
    service: Arc<ToolLoopService>,
    context: ToolContext,
    audit: Option<Arc<SqliteAudit>>,
    live: Option<LiveModel>,
}

/// The server could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A tool could not be registered.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The sample database could not be made.
    #[error(transparent)]
    Sample(#[from] toolkit_builtins::sample::SampleError),
}

impl AppState {
    /// The state over `registry` (see [`defaults::service`](crate::defaults::service): secrets
    /// masked for the model unless `show_secrets`), its tools working on `context`; every call
    /// and run is kept in `audit` when there is one.
    pub fn new(
        registry: ToolRegistry,
        context: ToolContext,
        audit: Option<Arc<SqliteAudit>>,
        live: Option<LiveModel>,
        show_secrets: bool,
    ) -> Self {
        let service = crate::defaults::service(registry, audit.as_ref(), show_secrets);
        Self {
            service: Arc::new(service),
            context,
            audit,
            live,
        }
    }

    /// The embedded default: the linked tools over the sample workspace and database, secrets
    /// masked for the model.
    pub fn embedded(
        audit: Option<Arc<SqliteAudit>>,
        live: Option<LiveModel>,
    ) -> Result<Self, SetupError> {
        let context = crate::defaults::sample_context()?;
        Ok(Self::new(
            ToolRegistry::linked()?,
            context,
            audit,
            live,
            false,
        ))
    }
}

/// The inspector's routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/runs",
            get(|| async { asset(RUNS_HTML, "text/html; charset=utf-8") }),
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
        .route("/api/runs", get(runs))
        .route("/api/runs/{run_id}", get(run_detail))
        .layer(middleware::from_fn(security_headers))
        .with_state(state)
}

/// Serves the inspector on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    axum::serve(listener, router(state)).await
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
        "live": state.live.as_ref().map(|live| json!({"base_url": live.base_url, "model": live.model})),
        "audit": state.audit.as_ref().map(|audit| audit.privacy().as_str()),
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
struct InvokeReply {
    index: usize,
    invocation: ToolInvocation,
}

async fn invoke(
    State(state): State<AppState>,
    body: Result<Json<InvokeBody>, JsonRejection>,
) -> Response {
    let Json(body) = match body {
        Ok(body) => body,
        Err(rejection) => return rejected(&rejection),
    };
    let arguments = body.arguments.unwrap_or_else(|| "{}".to_owned());
    let scope = state.service.scope(state.context.clone());
    let call = ToolCall::new("call_1", body.name, arguments);
    // Recorded like any run: the audit copy keeps it before the page sees it.
    let (_, invocation) = state.service.call_observed(&scope, "invoke", &call).await;
    Json(InvokeReply {
        index: 0,
        invocation,
    })
    .into_response()
}

#[derive(Deserialize)]
struct RunBody {
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    script: Option<String>,
    #[serde(default)]
    question: Option<String>,
}

async fn run(
    State(state): State<AppState>,
    body: Result<Json<RunBody>, JsonRejection>,
) -> Response {
    let Json(body) = match body {
        Ok(body) => body,
        Err(rejection) => return rejected(&rejection),
    };
    let provider: Arc<dyn Provider> = match body.mode.as_deref().unwrap_or("scripted") {
        "scripted" => {
            let script = body.script.as_deref().unwrap_or(DEFAULT_SCRIPT);
            match ScriptedProvider::from_json(script) {
                Ok(provider) => Arc::new(provider),
                Err(error) => return bad_request(error.to_string()),
            }
        }
        "live" => {
            let Some(live) = &state.live else {
                return bad_request(
                    "no live model: start the playground with --base-url URL [--model NAME]",
                );
            };
            match OpenAiProvider::from_env(&live.base_url, &live.model, HttpOptions::default()) {
                Ok(provider) => Arc::new(provider),
                Err(error) => return bad_request(error.to_string()),
            }
        }
        other => return bad_request(format!("unknown mode {other:?}: expected scripted or live")),
    };
    let question = body
        .question
        .filter(|question| !question.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_QUESTION.to_owned());
    let request = RunRequest::new(question).with_context(state.context.clone());
    let lines = stream_run(Arc::clone(&state.service), provider, request);
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
/// them (the audit copy, when the service has one, kept each step first), then the end of the
/// stream. Other runs of the same service are not in it.
pub fn stream_run(
    service: Arc<ToolLoopService>,
    provider: Arc<dyn Provider>,
    request: RunRequest,
) -> mpsc::UnboundedReceiver<Line> {
    let (sender, receiver) = mpsc::unbounded_channel();
    let run_id = request.run_id().clone();
    let mut events = service.subscribe();
    let forward = sender.clone();
    tokio::spawn(async move {
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    let message = format!("the inspector missed {missed} events");
                    let _ = forward.send(Line::Notice(Notice::Error { message }));
                    continue;
                }
                Err(broadcast::error::RecvError::Closed) => break,
            };
            if event.run_id() != &run_id {
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
        if let Err(error) = service.run(provider.as_ref(), request).await {
            let message = error.to_string();
            let _ = sender.send(Line::Notice(Notice::Error { message }));
            let _ = sender.send(Line::Notice(Notice::NotStarted));
        }
    });
    receiver
}

async fn runs(State(state): State<AppState>) -> Response {
    let Some(audit) = state.audit.clone() else {
        return Json(json!({"runs": [], "audit": null})).into_response();
    };
    match tokio::task::spawn_blocking(move || audit.runs(200).map(|runs| (runs, audit))).await {
        Ok(Ok((runs, audit))) => {
            Json(json!({"runs": runs, "audit": audit.privacy().as_str()})).into_response()
        }
        Ok(Err(error)) => server_error(&error.to_string()),
        Err(error) => server_error(&error.to_string()),
    }
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
    match tokio::task::spawn_blocking(move || audit.run(&run_id)).await {
        Ok(Ok(Some((run, steps)))) => Json(json!({"run": run, "steps": steps})).into_response(),
        Ok(Ok(None)) => (
            StatusCode::NOT_FOUND,
            Json(ErrorBody {
                error: "unknown run".to_owned(),
            }),
        )
            .into_response(),
        Ok(Err(error)) => server_error(&error.to_string()),
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

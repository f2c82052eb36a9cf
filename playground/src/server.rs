//! The web inspector: a small axum server for the embedded page, the tool list, one-call
//! invocations, loops streamed as NDJSON events, and the runs history from the audit copy.
//!
//! Every response carries a strict Content-Security-Policy: the page's own script and style
//! only, no inline script, no eval, nothing from elsewhere.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolkit::provider::{HttpOptions, OpenAiProvider, Provider, ScriptedProvider};
use toolkit::{
    DuplicateTool, RunEvent, RunRequest, ToolContext, ToolInvocation, ToolLoopService, ToolRegistry,
};

use crate::audit::Audit;
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

/// Builds a fresh registry for each loop (a loop's service owns its registry).
pub type RegistryFactory = Arc<dyn Fn() -> Result<ToolRegistry, DuplicateTool> + Send + Sync>;

/// An OpenAI-compatible server for live loops.
#[derive(Clone, Debug)]
pub struct LiveModel {
    /// Its base URL, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// The model to ask.
    pub model: String,
}

/// What the server works with.
#[derive(Clone)]
pub struct AppState {
    registry: RegistryFactory,
    service: Arc<ToolLoopService>,
    context: ToolContext,
    audit: Option<Arc<Audit>>,
    live: Option<LiveModel>,
}

/// The server could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// Two tools share a name.
    #[error(transparent)]
    Duplicate(#[from] DuplicateTool),
    /// The sample database could not be made.
    #[error(transparent)]
    Sample(#[from] builtins::sample::SampleError),
}

impl AppState {
    /// The state over tools from `registry`, working on `context`.
    pub fn new(
        registry: RegistryFactory,
        context: ToolContext,
        audit: Option<Arc<Audit>>,
        live: Option<LiveModel>,
    ) -> Result<Self, DuplicateTool> {
        let service = Arc::new(ToolLoopService::new(registry()?));
        Ok(Self {
            registry,
            service,
            context,
            audit,
            live,
        })
    }

    /// The embedded default: the linked tools over the sample workspace and database.
    pub fn embedded(
        audit: Option<Arc<Audit>>,
        live: Option<LiveModel>,
    ) -> Result<Self, SetupError> {
        let context = crate::defaults::sample_context()?;
        Ok(Self::new(
            Arc::new(ToolRegistry::linked),
            context,
            audit,
            live,
        )?)
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

fn json_response(status: StatusCode, value: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

fn bad_request(message: impl Into<String>) -> Response {
    json_response(StatusCode::BAD_REQUEST, &json!({ "error": message.into() }))
}

async fn tools(State(state): State<AppState>) -> Response {
    let tools: Vec<Value> = state
        .service
        .registry()
        .specs()
        .map(|spec| {
            let flags = spec.flags();
            json!({
                "name": spec.name(),
                "description": spec.description(),
                "group": spec.group(),
                "flags": {
                    "requires_approval": flags.requires_approval,
                    "requires_admin": flags.requires_admin,
                    "enabled_by_default": flags.enabled_by_default,
                    "remote": flags.remote,
                },
                "input_schema": spec.input_schema(),
            })
        })
        .collect();
    json_response(StatusCode::OK, &Value::Array(tools))
}

async fn config(State(state): State<AppState>) -> Response {
    json_response(
        StatusCode::OK,
        &json!({
            "default_script": DEFAULT_SCRIPT,
            "default_question": DEFAULT_QUESTION,
            "live": state.live.as_ref().map(|live| json!({"base_url": live.base_url, "model": live.model})),
            "audit": state.audit.as_ref().map(|audit| audit.privacy().as_str()),
        }),
    )
}

#[derive(Deserialize)]
struct InvokeBody {
    name: String,
    #[serde(default)]
    arguments: Option<String>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn new_id(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    format!(
        "{prefix}-{nanos:x}-{}",
        NEXT_ID.fetch_add(1, Ordering::Relaxed)
    )
}

async fn invoke(State(state): State<AppState>, body: String) -> Response {
    let body: InvokeBody = match serde_json::from_str(&body) {
        Ok(body) => body,
        Err(error) => return bad_request(format!("invalid request: {error}")),
    };
    let arguments = body.arguments.unwrap_or_else(|| "{}".to_owned());
    let scope = state.service.scope(state.context.clone());
    let result = state.service.invoke(&scope, &body.name, &arguments).await;
    let invocation = ToolInvocation {
        call_id: "call_1".to_owned(),
        name: body.name.clone(),
        arguments,
        content: result.content().as_str().to_owned(),
        is_error: result.is_error(),
        artifacts: result.artifacts().to_vec(),
        duration: result.duration(),
    };
    let run_id = new_id("invoke");
    if let Some(audit) = &state.audit {
        let kept = audit
            .begin_run(&run_id, "invoke", Some(&body.name))
            .and_then(|()| audit.record_invocation(&run_id, 0, &invocation))
            .and_then(|()| {
                audit.finish_run(
                    &run_id,
                    if invocation.is_error {
                        "error"
                    } else {
                        "answered"
                    },
                )
            });
        if let Err(error) = kept {
            tracing_line(&error.to_string());
        }
    }
    let event = RunEvent::ToolInvoked {
        run_id,
        index: 0,
        invocation,
    };
    match serde_json::to_value(&event) {
        Ok(value) => json_response(StatusCode::OK, &value),
        Err(error) => bad_request(error.to_string()),
    }
}

fn tracing_line(message: &str) {
    eprintln!("playground: {message}");
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

async fn run(State(state): State<AppState>, body: String) -> Response {
    let body: RunBody = match serde_json::from_str(&body) {
        Ok(body) => body,
        Err(error) => return bad_request(format!("invalid request: {error}")),
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
    let registry = match (state.registry)() {
        Ok(registry) => registry,
        Err(error) => return bad_request(error.to_string()),
    };
    let service = Arc::new(ToolLoopService::new(registry).with_provider(provider));
    let question = body
        .question
        .filter(|question| !question.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_QUESTION.to_owned());
    let request = RunRequest::new(question.clone()).with_context(state.context.clone());
    let lines = stream_run(service, request, state.audit.clone(), &question);
    let stream = futures_util::stream::unfold(lines, |mut lines| async move {
        lines
            .recv()
            .await
            .map(|line| (Ok::<_, Infallible>(line), lines))
    });
    (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(stream),
    )
        .into_response()
}

/// Runs the loop in the background; each event, as one NDJSON line, goes to the audit copy (when
/// it reports a finished step) and to the returned channel.
/// The run's `title` (its question) is kept as the privacy level allows.
pub fn stream_run(
    service: Arc<ToolLoopService>,
    request: RunRequest,
    audit: Option<Arc<Audit>>,
    title: &str,
) -> mpsc::UnboundedReceiver<String> {
    let title = title.to_owned();
    let (sender, receiver) = mpsc::unbounded_channel();
    let mut events = service.subscribe();
    let forward = sender.clone();
    tokio::spawn(async move {
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                    let line = json!({"event": "error", "run_id": "", "message": format!("the inspector missed {missed} events")});
                    let _ = forward.send(format!("{line}\n"));
                    continue;
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            };
            if let Some(audit) = &audit {
                let kept = match &*event {
                    RunEvent::RunStarted { run_id } => audit.begin_run(run_id, "run", Some(&title)),
                    other => audit.record_event(other),
                };
                if let Err(error) = kept {
                    tracing_line(&error.to_string());
                }
            }
            if let Ok(line) = serde_json::to_string(&*event) {
                let _ = forward.send(format!("{line}\n"));
            }
            if matches!(*event, RunEvent::Done { .. }) {
                break;
            }
        }
    });
    tokio::spawn(async move {
        if let Err(error) = service.run(request).await {
            let line = json!({"event": "error", "run_id": "", "message": error.to_string()});
            let _ = sender.send(format!("{line}\n"));
            let done = json!({"event": "done", "run_id": "", "termination": "provider_error", "content": ""});
            let _ = sender.send(format!("{done}\n"));
        }
    });
    receiver
}

async fn runs(State(state): State<AppState>) -> Response {
    let Some(audit) = &state.audit else {
        return json_response(StatusCode::OK, &json!({"runs": [], "audit": null}));
    };
    match audit.runs(200) {
        Ok(runs) => json_response(
            StatusCode::OK,
            &json!({"runs": runs, "audit": audit.privacy().as_str()}),
        ),
        Err(error) => json_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            &json!({"error": error.to_string()}),
        ),
    }
}

async fn run_detail(State(state): State<AppState>, Path(run_id): Path<String>) -> Response {
    let Some(audit) = &state.audit else {
        return json_response(StatusCode::NOT_FOUND, &json!({"error": "no audit copy"}));
    };
    match audit.run(&run_id) {
        Ok(Some((run, steps))) => {
            json_response(StatusCode::OK, &json!({"run": run, "steps": steps}))
        }
        Ok(None) => json_response(StatusCode::NOT_FOUND, &json!({"error": "unknown run"})),
        Err(error) => json_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            &json!({"error": error.to_string()}),
        ),
    }
}

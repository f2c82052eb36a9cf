//! What the audit copy keeps, whichever database keeps it: the rows an event becomes at a
//! privacy level, and the rows the history reads back.

use serde::Serialize;
use serde_json::Value;
use tokio::sync::oneshot;
use toolkit::shared::BackendError;
use toolkit::wire::WireMedia;
use toolkit::{
    RunEvent,
    recording::{CallDecision, Decided, Decider, RunKind, RunStep, ToolInvocation},
};

use crate::privacy::Privacy;

/// The audit copy could not be opened, written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// SQLite refused.
    #[error("audit copy: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Its folder could not be created.
    #[error("audit copy: cannot create its folder: {0}")]
    Io(#[from] std::io::Error),
    /// Artifacts would not serialise (cannot happen for toolkit's typed artifacts).
    #[error("audit copy: {0}")]
    Json(#[from] serde_json::Error),
    /// PostgreSQL refused, or could not be reached (said with its causes: the driver's own
    /// message, "error connecting to server", does not say why).
    #[cfg(feature = "postgres")]
    #[error("audit copy: {}", toolkit::with_causes(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// No connection came free in the pool, or none could be made.
    #[cfg(feature = "postgres")]
    #[error("audit copy: {}", match .0 {
        deadpool_postgres::PoolError::Backend(driver) => toolkit::with_causes(driver),
        other => toolkit::with_causes(other),
    })]
    Pool(#[from] deadpool_postgres::PoolError),
    /// The location cannot be opened by this build, the database's schema is newer than this
    /// build, or a background task of the audit copy failed (said in the message).
    #[error("audit copy: {0}")]
    Location(String),
}

/// Which runs [`Audit::find_runs`](crate::Audit::find_runs) lists: those whose title, run id or a tool's name
/// contains `text` (any case), that ended with `termination` (`answered`, ..., or `unfinished`
/// for none yet), `limit` of them after skipping `offset`.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct RunQuery {
    /// Text to look for; `None` or empty for any.
    pub text: Option<String>,
    /// How the runs ended; `None` or empty for any.
    pub termination: Option<String>,
    /// Runs skipped, most recent first.
    pub offset: usize,
    /// Most runs returned.
    pub limit: usize,
}

impl RunQuery {
    /// The same query looking for `text`.
    #[must_use]
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    /// The same query for runs that ended so (`answered`, ..., `unfinished`).
    #[must_use]
    pub fn with_termination(mut self, termination: impl Into<String>) -> Self {
        self.termination = Some(termination.into());
        self
    }

    /// The same query skipping `offset` runs.
    #[must_use]
    pub fn with_offset(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }

    /// The same query returning at most `limit` runs.
    #[must_use]
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }
}

/// One run as the history lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RunRow {
    /// The run's id.
    pub run_id: String,
    /// `run` (a loop) or `call` (one call outside a loop).
    pub kind: String,
    /// The question (as the privacy level allows), or the called tool's name.
    pub title: Option<String>,
    /// When it began (UTC, ISO 8601).
    pub started_at: String,
    /// Why it stopped, once it has.
    pub termination: Option<String>,
    /// The privacy level its rows were kept at.
    pub privacy: String,
    /// How many steps are kept.
    pub steps: i64,
}

/// One finished step as kept.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct StepRow {
    /// Its position in the run.
    pub index: i64,
    /// `request`, `llm`, `tool`, `suspended`, `resumed` or `decided`.
    pub kind: String,
    /// The tool's name, for a tool step.
    pub name: Option<String>,
    /// How long it took, in milliseconds.
    pub duration_ms: Option<f64>,
    /// Whether the tool's result was an error.
    pub is_error: bool,
    /// The arguments (not at `metadata`).
    pub arguments: Option<String>,
    /// The wire string, or the model's text (not at `metadata`).
    pub content: Option<String>,
    /// The content's length in bytes, at every level.
    pub content_bytes: i64,
    /// How many artifacts the step had.
    pub artifact_count: i64,
    /// Their types, in order.
    pub artifact_types: Vec<String>,
    /// The artifacts as `[{type, label, data}]` (not at `metadata`).
    pub artifacts: Option<Value>,
    /// Why a model step's turn ended ([`StopReason`](toolkit::provider::StopReason)'s name), at
    /// every level.
    pub stop_reason: Option<String>,
    /// A model step's token counts as billed (`{"input_tokens", "output_tokens",
    /// "cache_read_tokens", ...}`, [`Usage`](toolkit::provider::Usage)'s fields), at every
    /// level.
    pub usage: Option<Value>,
    /// What the model thought before it answered (not at `metadata`).
    pub thinking: Option<String>,
    /// The media a tool's result showed the model, as `[{mime_type, name, bytes}]` at every
    /// level, each with its `base64` at `full` only (bytes cannot be masked, so `redacted`
    /// keeps what `metadata` does).
    pub media: Option<Value>,
}

/// A stored step's artifact types and artifacts (JSON texts) as read back; an artifacts text
/// this version cannot read still shows, as text.
pub(crate) fn read_artifacts(
    types: &str,
    artifacts: Option<String>,
) -> (Vec<String>, Option<Value>) {
    (
        serde_json::from_str(types).unwrap_or_default(),
        artifacts.map(|text| serde_json::from_str(&text).unwrap_or(Value::String(text))),
    )
}

/// A stored step's usage (JSON text) as read back; a text this version cannot read still
/// shows, as text.
pub(crate) fn read_usage(usage: Option<String>) -> Option<Value> {
    usage.map(|text| serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// What a whole run (`events`, in order) asks to keep, as this privacy level keeps it: one
/// write per event, except that a run that starts and ends here is written with its end, once.
pub(crate) fn writes_for_run(
    privacy: Privacy,
    events: &[std::sync::Arc<RunEvent>],
) -> Result<Vec<Write>, serde_json::Error> {
    let mut writes = Vec::with_capacity(events.len());
    for event in events {
        let Some(write) = write_for(privacy, event)? else {
            continue;
        };
        if let Write::Finish {
            run_id,
            termination: ended,
        } = &write
            && let Some(Write::Begin { termination, .. }) = writes.iter_mut().find(
                |begun| matches!(begun, Write::Begin { run_id: begun, .. } if begun == run_id),
            )
        {
            *termination = Some(*ended);
            continue;
        }
        writes.push(write);
    }
    Ok(writes)
}

/// What `event` asks to keep, as this privacy level keeps it.
pub(crate) fn write_for(
    privacy: Privacy,
    event: &RunEvent,
) -> Result<Option<Write>, serde_json::Error> {
    let write = match event {
        RunEvent::RunStarted {
            run_id,
            kind,
            title,
            ..
        } => Write::Begin {
            run_id: run_id.to_string(),
            kind: kind.as_str(),
            // A call's title is the tool's name, which is metadata; a loop's is its question.
            title: match kind {
                RunKind::Call => Some(title.clone()),
                _ => privacy.keep(title),
            },
            termination: None,
        },
        RunEvent::ToolInvoked {
            run_id,
            index,
            invocation,
            ..
        } => Write::Step {
            run_id: run_id.to_string(),
            index: *index,
            row: Box::new(tool_row(privacy, invocation)?),
        },
        RunEvent::StepFinished {
            run_id,
            index,
            step,
            ..
        } => Write::Step {
            run_id: run_id.to_string(),
            index: *index,
            row: Box::new(step_row(privacy, step)?),
        },
        RunEvent::Done {
            run_id,
            termination,
            ..
        } => Write::Finish {
            run_id: run_id.to_string(),
            termination: termination.as_str(),
        },
        _ => return Ok(None),
    };
    Ok(Some(write))
}

fn tool_row(privacy: Privacy, invocation: &ToolInvocation) -> Result<NewRow, serde_json::Error> {
    let artifacts = invocation.artifacts();
    let types: Vec<&str> = artifacts
        .iter()
        .map(|artifact| artifact.kind().as_str())
        .collect();
    let kept = match privacy {
        Privacy::Metadata => None,
        _ => privacy.keep_value(serde_json::to_value(artifacts)?),
    };
    Ok(NewRow {
        kind: "tool",
        name: Some(invocation.name().to_owned()),
        duration_ms: Some(invocation.duration().as_secs_f64() * 1000.0),
        is_error: invocation.is_error(),
        arguments: privacy.keep(invocation.arguments()),
        content: privacy.keep(invocation.content()),
        content_bytes: invocation.content().len(),
        artifact_types: serde_json::to_string(&types)?,
        artifact_count: types.len(),
        artifacts: kept.map(|value| value.to_string()),
        media: media_row(privacy, invocation.wire().media())?,
        ..NewRow::empty("tool")
    })
}

/// The media a result showed the model, as this level keeps it (see [`StepRow::media`]); `None`
/// for a result without media.
fn media_row(privacy: Privacy, media: &[WireMedia]) -> Result<Option<String>, serde_json::Error> {
    if media.is_empty() {
        return Ok(None);
    }
    let kept: Vec<Value> = media
        .iter()
        .map(|part| {
            let mut kept = serde_json::json!({
                "mime_type": part.mime_type(),
                "name": part.name(),
                "bytes": part.len(),
            });
            if privacy == Privacy::Full {
                kept["base64"] = Value::from(part.base64());
            }
            kept
        })
        .collect();
    serde_json::to_string(&kept).map(Some)
}

fn step_row(privacy: Privacy, step: &RunStep) -> Result<NewRow, serde_json::Error> {
    if let RunStep::Llm {
        content,
        tool_calls,
        usage,
        stop_reason,
        thinking,
        error,
        duration,
        ..
    } = step
    {
        let content = error.clone().unwrap_or_else(|| content.clone());
        return Ok(NewRow {
            kind: step.kind().as_str(),
            duration_ms: Some(duration.as_secs_f64() * 1000.0),
            arguments: privacy.keep(&serde_json::to_string(tool_calls)?),
            content: privacy.keep(&content),
            content_bytes: content.len(),
            stop_reason: stop_reason
                .as_ref()
                .map(|reason| reason.as_str().to_owned()),
            usage: Some(serde_json::to_string(usage)?),
            thinking: (!thinking.is_empty())
                .then(|| privacy.keep(thinking))
                .flatten(),
            ..NewRow::empty(step.kind().as_str())
        });
    }
    let (duration_ms, content, arguments) = match step {
        RunStep::Tool(invocation) => return tool_row(privacy, invocation),
        RunStep::Request {
            messages, tools, ..
        } => (
            None,
            format!("{messages} messages, {} tools offered", tools.len()),
            None,
        ),
        RunStep::Suspended { pending, .. } => {
            (None, String::new(), Some(serde_json::to_string(pending)?))
        }
        RunStep::Resumed { decisions, .. } | RunStep::Decided { decisions, .. } => {
            // What was decided, about which tool and by whom, is metadata: kept at every level.
            // Call ids, reasons, edited arguments and a policy's why are in the arguments.
            let summary = decisions
                .iter()
                .map(decision_summary)
                .collect::<Vec<_>>()
                .join("; ");
            let kept = privacy.keep(&serde_json::to_string(decisions)?);
            return Ok(NewRow {
                kind: step.kind().as_str(),
                name: None,
                duration_ms: None,
                is_error: false,
                arguments: kept,
                content_bytes: summary.len(),
                content: Some(summary),
                ..NewRow::empty(step.kind().as_str())
            });
        }
        _ => (None, String::new(), None),
    };
    Ok(NewRow {
        kind: step.kind().as_str(),
        name: None,
        duration_ms,
        is_error: false,
        arguments: arguments.and_then(|text| privacy.keep(&text)),
        content: privacy.keep(&content),
        content_bytes: content.len(),
        ..NewRow::empty(step.kind().as_str())
    })
}

/// One decision as metadata: `denied delete_path (operator, a reason of 12 bytes)`.
pub(crate) fn decision_summary(decision: &CallDecision) -> String {
    let by = match &decision.by {
        Decider::Policy { policy, .. } => format!("policy {policy}"),
        Decider::ApprovedForRun => "approved for the run".to_owned(),
        _ => "operator".to_owned(),
    };
    let detail = match &decision.decided {
        Decided::Denied {
            reason: Some(reason),
        } => format!(", a reason of {} bytes", reason.len()),
        Decided::Edited { arguments, .. } => format!(", arguments of {} bytes", arguments.len()),
        _ => String::new(),
    };
    format!(
        "{} {} ({by}{detail})",
        decision.decided.as_str(),
        decision.tool
    )
}

/// Writes that are made together or not at all (an event's, or a whole run's), waiting for a
/// committer, and whom it tells (with its error `E`) once they are committed.
pub(crate) type Waiting<E> = (Vec<Write>, oneshot::Sender<Result<(), E>>);

/// Hands `writes` to a committer through `send` (which says whether it took them), and waits
/// until they are committed.
pub(crate) async fn committed<E: Into<Box<dyn std::error::Error + Send + Sync>>>(
    writes: Vec<Write>,
    send: impl FnOnce(Waiting<E>) -> bool,
) -> Result<(), BackendError> {
    if writes.is_empty() {
        return Ok(());
    }
    let (committed, answer) = oneshot::channel();
    let stopped = || BackendError::new("the audit copy's committer stopped");
    if !send((writes, committed)) {
        return Err(stopped());
    }
    answer
        .await
        .map_err(|_| stopped())?
        .map_err(BackendError::new)
}

/// One write the audit copy makes.
pub(crate) enum Write {
    Begin {
        run_id: String,
        kind: &'static str,
        title: Option<String>,
        /// How the run ended, when it is kept whole: its end is written with its start.
        termination: Option<&'static str>,
    },
    Step {
        run_id: String,
        index: usize,
        row: Box<NewRow>,
    },
    Finish {
        run_id: String,
        termination: &'static str,
    },
}

pub(crate) struct NewRow {
    pub(crate) kind: &'static str,
    pub(crate) name: Option<String>,
    pub(crate) duration_ms: Option<f64>,
    pub(crate) is_error: bool,
    pub(crate) arguments: Option<String>,
    pub(crate) content: Option<String>,
    pub(crate) content_bytes: usize,
    pub(crate) artifact_types: String,
    pub(crate) artifact_count: usize,
    pub(crate) artifacts: Option<String>,
    pub(crate) stop_reason: Option<String>,
    pub(crate) usage: Option<String>,
    pub(crate) thinking: Option<String>,
    pub(crate) media: Option<String>,
}

impl NewRow {
    /// A row of `kind` with nothing in it yet.
    fn empty(kind: &'static str) -> Self {
        Self {
            kind,
            name: None,
            duration_ms: None,
            is_error: false,
            arguments: None,
            content: None,
            content_bytes: 0,
            artifact_types: "[]".to_owned(),
            artifact_count: 0,
            artifacts: None,
            stop_reason: None,
            usage: None,
            thinking: None,
            media: None,
        }
    }
}

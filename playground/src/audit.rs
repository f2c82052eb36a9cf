//! The audit copy: every finished step of every run, one SQLite row each, committed at once
//! (WAL), so a process killed mid-run loses no step it had reported as finished.
//!
//! What a row keeps depends on the [`Privacy`] level: `metadata` keeps names, timings, flags and
//! the artifacts' count and types; `redacted` also keeps arguments, contents and artifacts with
//! secret-shaped strings and e-mail addresses masked and every string capped; `full` keeps all.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use serde_json::Value;
use toolkit::{RunEvent, RunStep, ToolInvocation};

/// Longest string kept at the `redacted` level, in characters (a longer one is cut and marked).
pub const REDACTED_STRING_LIMIT: usize = 200;

/// How much of each step the audit copy keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Privacy {
    /// Names, timings, flags, and the artifacts' count and types: no argument, content or data.
    #[default]
    Metadata,
    /// Everything, with secret-shaped strings and e-mail addresses masked and strings capped.
    Redacted,
    /// Everything as it was.
    Full,
}

impl Privacy {
    /// The level's name, as on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Metadata => "metadata",
            Self::Redacted => "redacted",
            Self::Full => "full",
        }
    }

    /// A string as this level keeps it; `None` at `metadata`.
    fn keep(self, text: &str) -> Option<String> {
        match self {
            Self::Metadata => None,
            Self::Redacted => Some(redact(text)),
            Self::Full => Some(text.to_owned()),
        }
    }
}

impl fmt::Display for Privacy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A privacy level name that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown privacy level {0:?}: expected metadata, redacted or full")]
pub struct UnknownPrivacy(pub String);

impl FromStr for Privacy {
    type Err = UnknownPrivacy;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "metadata" => Ok(Self::Metadata),
            "redacted" => Ok(Self::Redacted),
            "full" => Ok(Self::Full),
            other => Err(UnknownPrivacy(other.to_owned())),
        }
    }
}

/// Masks secrets and e-mail addresses, then caps the length.
fn redact(text: &str) -> String {
    let masked = builtins::redact::mask(text);
    match masked.char_indices().nth(REDACTED_STRING_LIMIT) {
        Some((cut, _)) => format!("{}…[cut]", &masked[..cut]),
        None => masked,
    }
}

/// Every string inside a JSON value redacted.
fn redact_value(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(redact(text)),
        Value::Array(items) => Value::Array(items.iter().map(redact_value).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(key, value)| (redact(key), redact_value(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The audit copy could not be opened, written or read.
#[derive(Debug, thiserror::Error)]
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
}

/// One run as the history lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunRow {
    /// The run's id.
    pub run_id: String,
    /// `run` (a loop) or `invoke` (one call).
    pub kind: String,
    /// The question, or the tool's name.
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
pub struct StepRow {
    /// Its position in the run's trace.
    pub index: i64,
    /// `request`, `llm`, `tool`, `suspended` or `resumed`.
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
}

/// The audit copy: a SQLite file in WAL mode.
pub struct Audit {
    connection: Mutex<Connection>,
    privacy: Privacy,
}

impl fmt::Debug for Audit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Audit")
            .field("privacy", &self.privacy)
            .finish_non_exhaustive()
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    title TEXT,
    started_at TEXT NOT NULL,
    termination TEXT,
    privacy TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS steps (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    idx INTEGER NOT NULL,
    kind TEXT NOT NULL,
    name TEXT,
    duration_ms REAL,
    is_error INTEGER NOT NULL DEFAULT 0,
    arguments TEXT,
    content TEXT,
    content_bytes INTEGER NOT NULL DEFAULT 0,
    artifact_count INTEGER NOT NULL DEFAULT 0,
    artifact_types TEXT NOT NULL DEFAULT '[]',
    artifacts TEXT,
    finished_at TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
);
";

const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

impl Audit {
    /// Opens (or creates) the audit copy at `path`, its folder too, in WAL mode.
    pub fn open(path: &Path, privacy: Privacy) -> Result<Self, AuditError> {
        if let Some(folder) = path
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
        {
            std::fs::create_dir_all(folder)?;
        }
        let connection = Connection::open(path)?;
        connection.busy_timeout(std::time::Duration::from_secs(5))?;
        let _mode: String =
            connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        // Each row is its own transaction, synced at commit: a finished step survives a kill.
        connection.execute_batch("PRAGMA synchronous = FULL;")?;
        connection.execute_batch(SCHEMA)?;
        Ok(Self {
            connection: Mutex::new(connection),
            privacy,
        })
    }

    /// The level rows are written at.
    pub fn privacy(&self) -> Privacy {
        self.privacy
    }

    fn with<T>(
        &self,
        work: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, AuditError> {
        let connection = self
            .connection
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(work(&connection)?)
    }

    /// Records that a run began.
    pub fn begin_run(
        &self,
        run_id: &str,
        kind: &str,
        title: Option<&str>,
    ) -> Result<(), AuditError> {
        let title = title
            .and_then(|title| self.privacy.keep(title))
            .or_else(|| {
                // A one-call run's title is the tool's name, which is metadata.
                (kind == "invoke").then(|| title.unwrap_or_default().to_owned())
            });
        self.with(|db| {
            db.execute(
                &format!(
                    "INSERT OR IGNORE INTO runs (run_id, kind, title, started_at, privacy) \
                     VALUES (?1, ?2, ?3, {NOW}, ?4)"
                ),
                params![run_id, kind, title, self.privacy.as_str()],
            )
        })?;
        Ok(())
    }

    /// Records why a run stopped.
    pub fn finish_run(&self, run_id: &str, termination: &str) -> Result<(), AuditError> {
        self.with(|db| {
            db.execute(
                "UPDATE runs SET termination = ?2 WHERE run_id = ?1",
                params![run_id, termination],
            )
        })?;
        Ok(())
    }

    /// Records one finished tool call.
    pub fn record_invocation(
        &self,
        run_id: &str,
        index: usize,
        invocation: &ToolInvocation,
    ) -> Result<(), AuditError> {
        let types: Vec<&str> = invocation
            .artifacts
            .iter()
            .map(|artifact| artifact.kind().as_str())
            .collect();
        let artifacts = match self.privacy {
            Privacy::Metadata => None,
            Privacy::Redacted => Some(redact_value(&serde_json::to_value(&invocation.artifacts)?)),
            Privacy::Full => Some(serde_json::to_value(&invocation.artifacts)?),
        };
        let row = NewRow {
            kind: "tool",
            name: Some(&invocation.name),
            duration_ms: Some(invocation.duration.as_secs_f64() * 1000.0),
            is_error: invocation.is_error,
            arguments: self.privacy.keep(&invocation.arguments),
            content: self.privacy.keep(&invocation.content),
            content_bytes: invocation.content.len(),
            artifact_types: serde_json::to_string(&types)?,
            artifact_count: types.len(),
            artifacts: artifacts.map(|value| value.to_string()),
        };
        self.insert(run_id, index, &row)
    }

    /// Records one finished step that is not a tool call.
    pub fn record_step(
        &self,
        run_id: &str,
        index: usize,
        step: &RunStep,
    ) -> Result<(), AuditError> {
        let (kind, duration_ms, content, arguments) = match step {
            RunStep::Tool(invocation) => return self.record_invocation(run_id, index, invocation),
            RunStep::Request { messages, tools } => (
                "request",
                None,
                format!("{messages} messages, {} tools offered", tools.len()),
                None,
            ),
            RunStep::Llm {
                content,
                tool_calls,
                error,
                duration,
                ..
            } => (
                "llm",
                Some(duration.as_secs_f64() * 1000.0),
                error.clone().unwrap_or_else(|| content.clone()),
                Some(serde_json::to_string(tool_calls)?),
            ),
            RunStep::Suspended { pending } => (
                "suspended",
                None,
                String::new(),
                Some(serde_json::to_string(pending)?),
            ),
            RunStep::Resumed { approved, refused } => (
                "resumed",
                None,
                format!("{} approved, {} refused", approved.len(), refused.len()),
                None,
            ),
        };
        let row = NewRow {
            kind,
            name: None,
            duration_ms,
            is_error: false,
            arguments: arguments.and_then(|text| self.privacy.keep(&text)),
            content: self.privacy.keep(&content),
            content_bytes: content.len(),
            artifact_types: "[]".to_owned(),
            artifact_count: 0,
            artifacts: None,
        };
        self.insert(run_id, index, &row)
    }

    /// Records what an event reports as finished; other events are ignored.
    pub fn record_event(&self, event: &RunEvent) -> Result<(), AuditError> {
        match event {
            RunEvent::RunStarted { run_id } => self.begin_run(run_id, "run", None),
            RunEvent::StepFinished {
                run_id,
                index,
                step,
            } => self.record_step(run_id, *index, step),
            RunEvent::ToolInvoked {
                run_id,
                index,
                invocation,
            } => self.record_invocation(run_id, *index, invocation),
            RunEvent::Done {
                run_id,
                termination,
                ..
            } => {
                let name = serde_json::to_value(termination)?;
                self.finish_run(run_id, name.as_str().unwrap_or("unknown"))
            }
            _ => Ok(()),
        }
    }

    fn insert(&self, run_id: &str, index: usize, row: &NewRow<'_>) -> Result<(), AuditError> {
        self.with(|db| {
            db.execute(
                &format!(
                    "INSERT OR REPLACE INTO steps (run_id, idx, kind, name, duration_ms, is_error, \
                     arguments, content, content_bytes, artifact_count, artifact_types, artifacts, \
                     finished_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, {NOW})"
                ),
                params![
                    run_id,
                    i64::try_from(index).unwrap_or(i64::MAX),
                    row.kind,
                    row.name,
                    row.duration_ms,
                    row.is_error,
                    row.arguments,
                    row.content,
                    i64::try_from(row.content_bytes).unwrap_or(i64::MAX),
                    i64::try_from(row.artifact_count).unwrap_or(i64::MAX),
                    row.artifact_types,
                    row.artifacts,
                ],
            )
        })?;
        Ok(())
    }

    /// The most recent runs first, at most `limit`.
    pub fn runs(&self, limit: usize) -> Result<Vec<RunRow>, AuditError> {
        self.with(|db| {
            let mut statement = db.prepare(
                "SELECT runs.run_id, kind, title, started_at, termination, privacy, \
                 (SELECT COUNT(*) FROM steps WHERE steps.run_id = runs.run_id) \
                 FROM runs ORDER BY started_at DESC, rowid DESC LIMIT ?1",
            )?;
            let rows = statement.query_map([i64::try_from(limit).unwrap_or(i64::MAX)], run_row)?;
            rows.collect()
        })
    }

    /// One run and its kept steps in order; `None` for an unknown id.
    pub fn run(&self, run_id: &str) -> Result<Option<(RunRow, Vec<StepRow>)>, AuditError> {
        let run = self.with(|db| {
            db.query_row(
                "SELECT run_id, kind, title, started_at, termination, privacy, \
                 (SELECT COUNT(*) FROM steps WHERE steps.run_id = runs.run_id) \
                 FROM runs WHERE run_id = ?1",
                [run_id],
                run_row,
            )
            .optional()
        })?;
        let Some(run) = run else {
            return Ok(None);
        };
        let steps = self.with(|db| {
            let mut statement = db.prepare(
                "SELECT idx, kind, name, duration_ms, is_error, arguments, content, content_bytes, \
                 artifact_count, artifact_types, artifacts FROM steps WHERE run_id = ?1 ORDER BY idx",
            )?;
            let rows = statement.query_map([run_id], |row| {
                let types: String = row.get(9)?;
                let artifacts: Option<String> = row.get(10)?;
                Ok(StepRow {
                    index: row.get(0)?,
                    kind: row.get(1)?,
                    name: row.get(2)?,
                    duration_ms: row.get(3)?,
                    is_error: row.get(4)?,
                    arguments: row.get(5)?,
                    content: row.get(6)?,
                    content_bytes: row.get(7)?,
                    artifact_count: row.get(8)?,
                    artifact_types: serde_json::from_str(&types).unwrap_or_default(),
                    // A row this version cannot read still shows, as text.
                    artifacts: artifacts.map(|text| {
                        serde_json::from_str(&text).unwrap_or(Value::String(text))
                    }),
                })
            })?;
            rows.collect()
        })?;
        Ok(Some((run, steps)))
    }
}

fn run_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<RunRow> {
    Ok(RunRow {
        run_id: row.get(0)?,
        kind: row.get(1)?,
        title: row.get(2)?,
        started_at: row.get(3)?,
        termination: row.get(4)?,
        privacy: row.get(5)?,
        steps: row.get(6)?,
    })
}

struct NewRow<'a> {
    kind: &'a str,
    name: Option<&'a str>,
    duration_ms: Option<f64>,
    is_error: bool,
    arguments: Option<String>,
    content: Option<String>,
    content_bytes: usize,
    artifact_types: String,
    artifact_count: usize,
    artifacts: Option<String>,
}

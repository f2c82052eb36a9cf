//! The audit copy in SQLite: one row per run, one per finished step.

use std::fmt;
use std::path::Path;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use toolkit::{
    RunEvent, Sink,
    seal::ReplayStore,
    shared::{BackendError, BackendFuture},
};

use crate::privacy::Privacy;
use crate::rows::{
    AuditError, RunQuery, RunRow, StepRow, Write, committed, read_artifacts, read_usage, write_for,
    writes_for_run,
};

/// The audit copy: a SQLite file in WAL mode, and a [`Sink`] for a service's recorder.
///
/// Its writes are committed together (group commit) by a thread of its own: while one
/// transaction commits, the writes that come in wait and go in the next, so that one sync of
/// the file serves every call answered at the same time.
#[derive(Clone)]
pub struct SqliteAudit {
    connection: Arc<Mutex<Connection>>,
    /// Where writes go to be committed together ([`commit_together`]).
    committer: Sender<Waiting>,
    privacy: Privacy,
}

/// At most this many units of writes (an event's, or a whole run's) are committed in one
/// transaction.
const BATCH: usize = 256;

/// Writes waiting for this database's committer, told of a failure with its error as text (the
/// units of a batch share it).
type Waiting = crate::rows::Waiting<String>;

impl fmt::Debug for SqliteAudit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteAudit")
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
CREATE TABLE IF NOT EXISTS used_tokens (
    token_id TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
);
-- Every claim first deletes the expired tokens: found by this index, not a scan of them all.
CREATE INDEX IF NOT EXISTS used_tokens_expiry ON used_tokens (expires_at);
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
    stop_reason TEXT,
    usage TEXT,
    thinking TEXT,
    media TEXT,
    PRIMARY KEY (run_id, idx)
);
";

/// Columns added to `steps` after its first release, each added to a file that lacks it.
const ADDED_STEP_COLUMNS: [&str; 4] = ["stop_reason", "usage", "thinking", "media"];

const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

impl SqliteAudit {
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
        // Processes opening one new file at once: switching it to WAL and creating the tables
        // can be refused as busy without the busy handler being asked (SQLite's deadlock
        // avoidance), so the setup is tried again until the others are done.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            match set_up(&connection) {
                Ok(()) => break,
                Err(rusqlite::Error::SqliteFailure(failure, _))
                    if matches!(
                        failure.code,
                        rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                    ) && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(error) => return Err(error.into()),
            }
        }
        let connection = Arc::new(Mutex::new(connection));
        let (committer, waiting) = channel();
        let committing = Arc::clone(&connection);
        std::thread::Builder::new()
            .name("toolkit-audit-sqlite".to_owned())
            .spawn(move || commit_together(&committing, privacy, &waiting))?;
        Ok(Self {
            connection,
            committer,
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
            .unwrap_or_else(PoisonError::into_inner);
        Ok(work(&connection)?)
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

    /// A page of the runs `query` selects, most recent first, and how many it selects in all.
    pub fn find_runs(&self, query: &RunQuery) -> Result<(Vec<RunRow>, usize), AuditError> {
        const SELECTED: &str = "FROM runs WHERE \
            (?1 IS NULL OR instr(lower(coalesce(title, '')), lower(?1)) > 0 \
             OR instr(run_id, ?1) > 0 \
             OR EXISTS (SELECT 1 FROM steps WHERE steps.run_id = runs.run_id \
                        AND instr(lower(coalesce(name, '')), lower(?1)) > 0)) \
            AND (?2 IS NULL OR (?2 = 'unfinished' AND termination IS NULL) OR termination = ?2)";
        let text = query.text.as_deref().filter(|text| !text.is_empty());
        let termination = query.termination.as_deref().filter(|text| !text.is_empty());
        self.with(|db| {
            let total: i64 = db.query_row(
                &format!("SELECT COUNT(*) {SELECTED}"),
                params![text, termination],
                |row| row.get(0),
            )?;
            let mut statement = db.prepare(&format!(
                "SELECT runs.run_id, kind, title, started_at, termination, privacy, \
                 (SELECT COUNT(*) FROM steps WHERE steps.run_id = runs.run_id) \
                 {SELECTED} ORDER BY started_at DESC, rowid DESC LIMIT ?3 OFFSET ?4"
            ))?;
            let page = |value: usize| i64::try_from(value).unwrap_or(i64::MAX);
            let rows = statement
                .query_map(
                    params![text, termination, page(query.limit), page(query.offset)],
                    run_row,
                )?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok((rows, usize::try_from(total).unwrap_or(0)))
        })
    }

    /// One run and its kept steps in order; `None` for an unknown id.
    pub fn run(&self, run_id: &str) -> Result<Option<(RunRow, Vec<StepRow>)>, AuditError> {
        self.with(|db| {
            let run = db
                .query_row(
                    "SELECT run_id, kind, title, started_at, termination, privacy, \
                     (SELECT COUNT(*) FROM steps WHERE steps.run_id = runs.run_id) \
                     FROM runs WHERE run_id = ?1",
                    [run_id],
                    run_row,
                )
                .optional()?;
            let Some(run) = run else {
                return Ok(None);
            };
            let mut statement = db.prepare(
                "SELECT idx, kind, name, duration_ms, is_error, arguments, content, content_bytes, \
                 artifact_count, artifact_types, artifacts, stop_reason, usage, thinking, media \
                 FROM steps WHERE run_id = ?1 ORDER BY idx",
            )?;
            let steps = statement
                .query_map([run_id], step_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Some((run, steps)))
        })
    }
}

impl SqliteAudit {
    /// Commits `writes` together (with the writes of other runs that wait at the same time).
    async fn keep(&self, writes: Vec<Write>) -> Result<(), BackendError> {
        committed(writes, |waiting| self.committer.send(waiting).is_ok()).await
    }
}

impl Sink for SqliteAudit {
    /// Keeps run starts, finished steps and run ends; each is committed (with the writes of
    /// other runs that wait at the same time) before the recorder shows the event to anyone.
    fn record<'a>(&'a self, event: &'a RunEvent) -> BackendFuture<'a, ()> {
        Box::pin(async move {
            let write = write_for(self.privacy, event).map_err(BackendError::new)?;
            self.keep(write.into_iter().collect()).await
        })
    }

    /// A call's run is one commit: its start (with how it ended) and its step.
    fn keeps_runs_whole(&self) -> bool {
        true
    }

    fn record_run<'a>(&'a self, events: &'a [Arc<RunEvent>]) -> BackendFuture<'a, ()> {
        Box::pin(async move {
            let writes = writes_for_run(self.privacy, events).map_err(BackendError::new)?;
            self.keep(writes).await
        })
    }
}

/// Commits the writes that wait together, each transaction as soon as the one before it
/// committed; a transaction that fails is made again one unit at a time, so that a unit that
/// cannot be made fails alone. It ends when the last handle of the audit copy is dropped.
fn commit_together(connection: &Mutex<Connection>, privacy: Privacy, waiting: &Receiver<Waiting>) {
    while let Ok(first) = waiting.recv() {
        let mut batch = vec![first];
        batch.extend(waiting.try_iter().take(BATCH - 1));
        let mut connection = connection.lock().unwrap_or_else(PoisonError::into_inner);
        let together = commit(
            &mut connection,
            privacy,
            batch.iter().flat_map(|(unit, _)| unit),
        );
        match together {
            Ok(()) => {
                for (_, committed) in batch {
                    let _ = committed.send(Ok(()));
                }
            }
            Err(_) if batch.len() > 1 => {
                for (unit, committed) in batch {
                    let alone = commit(&mut connection, privacy, unit.iter());
                    let _ = committed.send(alone.map_err(|error| error.to_string()));
                }
            }
            Err(error) => {
                for (_, committed) in batch {
                    let _ = committed.send(Err(error.to_string()));
                }
            }
        }
    }
}

/// Makes `writes` in one transaction.
fn commit<'w>(
    connection: &mut Connection,
    privacy: Privacy,
    writes: impl Iterator<Item = &'w Write>,
) -> rusqlite::Result<()> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for write in writes {
        apply(write, &transaction, privacy)?;
    }
    transaction.commit()
}

/// The audit database is also a replay store: processes that share it resume each sealed token
/// once between them. A claim is one `INSERT` on the token's unique key, never a read then a
/// write, so two claims at once cannot both win.
impl ReplayStore for SqliteAudit {
    fn claim<'a>(
        &'a self,
        id: &'a str,
        expires_at: std::time::SystemTime,
    ) -> BackendFuture<'a, bool> {
        let connection = Arc::clone(&self.connection);
        let id = id.to_owned();
        let millis = |time: std::time::SystemTime| {
            time.duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| {
                    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
                })
        };
        let expires = millis(expires_at);
        let now = millis(std::time::SystemTime::now());
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let db = connection.lock().unwrap_or_else(PoisonError::into_inner);
                // A token past its expiry cannot open any more: its row is not needed.
                db.execute("DELETE FROM used_tokens WHERE expires_at < ?1", [now])?;
                let inserted = db.execute(
                    "INSERT OR IGNORE INTO used_tokens (token_id, expires_at) VALUES (?1, ?2)",
                    params![id, expires],
                )?;
                Ok::<bool, rusqlite::Error>(inserted == 1)
            })
            .await
            .map_err(BackendError::new)?
            .map_err(BackendError::new)
        })
    }
}

/// Makes `write` in SQLite. The statements are prepared once per connection (every call makes
/// the same ones).
fn apply(write: &Write, db: &Connection, privacy: Privacy) -> rusqlite::Result<()> {
    match write {
        Write::Begin {
            run_id,
            kind,
            title,
            termination,
        } => db
            .prepare_cached(&format!(
                "INSERT OR IGNORE INTO runs (run_id, kind, title, started_at, privacy, termination) \
                 VALUES (?1, ?2, ?3, {NOW}, ?4, ?5)"
            ))?
            .execute(params![run_id, kind, title, privacy.as_str(), termination])?,
        Write::Step { run_id, index, row } => db
            .prepare_cached(&format!(
                "INSERT INTO steps (run_id, idx, kind, name, duration_ms, is_error, \
                 arguments, content, content_bytes, artifact_count, artifact_types, artifacts, \
                 stop_reason, usage, thinking, media, finished_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, {NOW})"
            ))?
            .execute(params![
                run_id,
                i64::try_from(*index).unwrap_or(i64::MAX),
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
                row.stop_reason,
                row.usage,
                row.thinking,
                row.media,
            ])?,
        Write::Finish {
            run_id,
            termination,
        } => db
            .prepare_cached("UPDATE runs SET termination = ?2 WHERE run_id = ?1")?
            .execute(params![run_id, termination])?,
    };
    Ok(())
}

/// WAL, a sync at every commit (a finished step survives a kill), and the tables.
fn set_up(connection: &Connection) -> rusqlite::Result<()> {
    let _mode: String = connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    connection.execute_batch("PRAGMA synchronous = FULL;")?;
    connection.execute_batch(SCHEMA)?;
    let present: Vec<String> = connection
        .prepare("SELECT name FROM pragma_table_info('steps')")?
        .query_map([], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for column in ADDED_STEP_COLUMNS {
        if !present.iter().any(|name| name == column) {
            connection.execute_batch(&format!("ALTER TABLE steps ADD COLUMN {column} TEXT"))?;
        }
    }
    Ok(())
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

fn step_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<StepRow> {
    let types: String = row.get(9)?;
    let (artifact_types, artifacts) = read_artifacts(&types, row.get(10)?);
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
        artifact_types,
        artifacts,
        stop_reason: row.get(11)?,
        usage: read_usage(row.get(12)?),
        thinking: row.get(13)?,
        media: read_usage(row.get(14)?),
    })
}

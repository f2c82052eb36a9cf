//! The audit copy in PostgreSQL: the same runs, steps and privacy levels as SQLite, for several
//! instances at once. One pool of connections writes and reads; each committed row notifies
//! (`LISTEN toolkit_audit`), so any instance can follow what every other one records.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio::sync::{OnceCell, mpsc, watch};
use tokio_postgres::types::ToSql;
use tokio_postgres::{AsyncMessage, NoTls, Row};
use toolkit::{
    RunEvent, Sink,
    seal::ReplayStore,
    shared::{BackendError, BackendFuture, SharedStore},
};

use crate::privacy::Privacy;
use crate::rows::{
    AuditError, RunQuery, RunRow, StepRow, Write, committed, read_artifacts, read_usage, write_for,
    writes_for_run,
};

/// The channel every committed run or step is announced on (its payload: the run id).
const CHANNEL: &str = "toolkit_audit";

/// How long [`PostgresAudit::changes`] waits for its first `LISTEN`.
const LISTEN_WAIT: Duration = Duration::from_secs(10);

/// The schema, one migration per version, applied in order at connect and recorded in
/// `toolkit_audit_migrations`. A released migration never changes; a new version appends one.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE runs (
    seq BIGSERIAL NOT NULL,
    run_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    title TEXT,
    started_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    termination TEXT,
    privacy TEXT NOT NULL
);
CREATE INDEX runs_started ON runs (started_at DESC, seq DESC);
CREATE TABLE steps (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    idx BIGINT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT,
    duration_ms DOUBLE PRECISION,
    is_error BOOLEAN NOT NULL DEFAULT FALSE,
    arguments BYTEA,
    content BYTEA,
    content_bytes BIGINT NOT NULL DEFAULT 0,
    artifact_count BIGINT NOT NULL DEFAULT 0,
    artifact_types TEXT NOT NULL DEFAULT '[]',
    artifacts TEXT,
    finished_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (run_id, idx)
);
CREATE TABLE used_tokens (
    token_id TEXT PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
);
-- Every claim first deletes the expired tokens: found by this index, not a scan of them all.
CREATE INDEX used_tokens_expiry ON used_tokens (expires_at);
CREATE FUNCTION toolkit_audit_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('toolkit_audit', NEW.run_id);
    RETURN NULL;
END
$$;
CREATE TRIGGER runs_notify AFTER INSERT OR UPDATE ON runs
    FOR EACH ROW EXECUTE FUNCTION toolkit_audit_notify();
CREATE TRIGGER steps_notify AFTER INSERT ON steps
    FOR EACH ROW EXECUTE FUNCTION toolkit_audit_notify();
",
    "
CREATE TABLE shared_state (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    value BYTEA NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (kind, key)
);
CREATE INDEX shared_state_expiry ON shared_state (expires_at);
",
    "
ALTER TABLE steps
    ADD COLUMN stop_reason TEXT,
    ADD COLUMN usage TEXT,
    ADD COLUMN thinking BYTEA;
",
    "
ALTER TABLE steps ADD COLUMN media TEXT;
",
];

/// Serialises instances migrating one database at once (`pg_advisory_xact_lock`'s key).
const MIGRATION_LOCK: i64 = 0x0074_6f6f_6c6b_6974;

/// The audit copy in PostgreSQL, and a [`Sink`] and [`ReplayStore`] for a service's recorder.
///
/// Several instances (processes, machines) can share one database: steps are committed before
/// the recorder shows them (the writes of the runs going on at once share a transaction and
/// its commit, so that a busy instance does not pay one commit per write), a token is claimed
/// with one `INSERT` on its unique key, and
/// [`changes`](Self::changes) follows what every instance commits. Texts keep every byte, a NUL
/// included (arguments and contents are stored as bytes); in the searchable columns (a run's
/// title, a tool's name) a NUL becomes U+FFFD, since PostgreSQL's text cannot hold one.
///
/// Connections are made without TLS: use it on a private network or through a local socket
/// proxy.
#[derive(Clone)]
pub struct PostgresAudit {
    pool: Pool,
    /// Where records go to be committed together ([`commit_together`]).
    committer: mpsc::UnboundedSender<Waiting>,
    config: Arc<tokio_postgres::Config>,
    privacy: Privacy,
    listener: Arc<OnceCell<watch::Receiver<u64>>>,
}

impl fmt::Debug for PostgresAudit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let status = self.pool.status();
        f.debug_struct("PostgresAudit")
            .field("privacy", &self.privacy)
            .field("connections", &status.size)
            .field("max_connections", &status.max_size)
            .finish_non_exhaustive()
    }
}

impl PostgresAudit {
    /// Connections a pool keeps at most unless told otherwise.
    pub const DEFAULT_POOL_SIZE: usize = 8;

    /// Connects to the database at `url` (`postgres://user@host:port/name`) with a pool of
    /// [`DEFAULT_POOL_SIZE`](Self::DEFAULT_POOL_SIZE), and brings its schema to this version.
    pub async fn connect(url: &str, privacy: Privacy) -> Result<Self, AuditError> {
        Self::connect_with_pool(url, privacy, Self::DEFAULT_POOL_SIZE).await
    }

    /// [`connect`](Self::connect) with a pool of at most `connections`.
    pub async fn connect_with_pool(
        url: &str,
        privacy: Privacy,
        connections: usize,
    ) -> Result<Self, AuditError> {
        let config = tokio_postgres::Config::from_str(url)?;
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(connections.max(1))
            .build()
            .map_err(|error| AuditError::Location(format!("connection pool: {error}")))?;
        let (committer, waiting) = mpsc::unbounded_channel();
        tokio::spawn(commit_together(pool.clone(), privacy, waiting));
        let audit = Self {
            pool,
            committer,
            config: Arc::new(config),
            privacy,
            listener: Arc::new(OnceCell::new()),
        };
        audit.migrate().await?;
        Ok(audit)
    }

    /// The level rows are written at.
    pub fn privacy(&self) -> Privacy {
        self.privacy
    }

    /// The schema version this build writes.
    pub fn schema_version() -> usize {
        MIGRATIONS.len()
    }

    /// Applies the migrations the database lacks, one transaction under an advisory lock, so
    /// that instances starting together migrate once.
    async fn migrate(&self) -> Result<(), AuditError> {
        let mut client = self.pool.get().await?;
        let transaction = client.transaction().await?;
        transaction
            .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        transaction
            .batch_execute(
                "CREATE TABLE IF NOT EXISTS toolkit_audit_migrations (\
                 version INTEGER PRIMARY KEY, \
                 applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
            )
            .await?;
        let applied: i32 = transaction
            .query_one(
                "SELECT coalesce(max(version), 0) FROM toolkit_audit_migrations",
                &[],
            )
            .await?
            .get(0);
        let applied = usize::try_from(applied).unwrap_or(0);
        if applied > MIGRATIONS.len() {
            return Err(AuditError::Location(format!(
                "the database's schema is at version {applied}; this build knows versions up to {}",
                MIGRATIONS.len()
            )));
        }
        for (version, migration) in MIGRATIONS.iter().enumerate().skip(applied) {
            transaction.batch_execute(migration).await?;
            let version = i32::try_from(version + 1).unwrap_or(i32::MAX);
            transaction
                .execute(
                    "INSERT INTO toolkit_audit_migrations (version) VALUES ($1)",
                    &[&version],
                )
                .await?;
        }
        transaction.commit().await?;
        Ok(())
    }

    /// A page of the runs `query` selects, most recent first, and how many it selects in all.
    pub async fn find_runs(&self, query: &RunQuery) -> Result<(Vec<RunRow>, usize), AuditError> {
        const SELECTED: &str = "FROM runs WHERE \
            ($1::text IS NULL OR strpos(lower(coalesce(title, '')), lower($1)) > 0 \
             OR strpos(run_id, $1) > 0 \
             OR EXISTS (SELECT 1 FROM steps WHERE steps.run_id = runs.run_id \
                        AND strpos(lower(coalesce(name, '')), lower($1)) > 0)) \
            AND ($2::text IS NULL OR ($2 = 'unfinished' AND termination IS NULL) \
                 OR termination = $2)";
        let text = query
            .text
            .as_deref()
            .filter(|text| !text.is_empty())
            .map(searchable);
        let termination = query
            .termination
            .as_deref()
            .filter(|text| !text.is_empty())
            .map(searchable);
        let page = |value: usize| i64::try_from(value).unwrap_or(i64::MAX);
        let client = self.pool.get().await?;
        let total: i64 = client
            .query_one(
                &format!("SELECT COUNT(*) {SELECTED}"),
                &[&text, &termination],
            )
            .await?
            .get(0);
        let rows = client
            .query(
                &format!(
                    "SELECT {RUN_COLUMNS} {SELECTED} \
                     ORDER BY started_at DESC, seq DESC LIMIT $3 OFFSET $4"
                ),
                &[&text, &termination, &page(query.limit), &page(query.offset)],
            )
            .await?;
        Ok((
            rows.iter().map(run_row).collect(),
            usize::try_from(total).unwrap_or(0),
        ))
    }

    /// One run and its kept steps in order; `None` for an unknown id.
    pub async fn run(&self, run_id: &str) -> Result<Option<(RunRow, Vec<StepRow>)>, AuditError> {
        let client = self.pool.get().await?;
        let Some(run) = client
            .query_opt(
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE run_id = $1"),
                &[&run_id],
            )
            .await?
        else {
            return Ok(None);
        };
        let steps = client
            .query(
                "SELECT idx, kind, name, duration_ms, is_error, arguments, content, \
                 content_bytes, artifact_count, artifact_types, artifacts, stop_reason, usage, \
                 thinking, media FROM steps WHERE run_id = $1 ORDER BY idx",
                &[&run_id],
            )
            .await?;
        Ok(Some((run_row(&run), steps.iter().map(step_row).collect())))
    }

    /// A counter that grows whenever any instance commits a run or a step to this database
    /// (PostgreSQL's `LISTEN`/`NOTIFY`), to wait on with
    /// [`changed`](watch::Receiver::changed). One connection listens for every receiver; if it
    /// drops, it is made again every second, and the counter grows once it is back (changes in
    /// between may have been missed).
    pub async fn changes(&self) -> Result<watch::Receiver<u64>, AuditError> {
        let receiver = self
            .listener
            .get_or_try_init(|| async {
                let (sender, receiver) = watch::channel(0);
                let (client, connection) = self.config.connect(NoTls).await?;
                let mut follower = Follower {
                    config: Arc::clone(&self.config),
                    sender,
                };
                let listening = tokio::spawn(async move {
                    follower.follow(client, connection).await;
                });
                // The first LISTEN is in place before anyone waits on the counter; a database
                // that does not take it within the wait is reported, not waited on forever.
                let mut ready = receiver.clone();
                let listened = tokio::time::timeout(LISTEN_WAIT, async {
                    tokio::select! {
                        _ = ready.changed() => true,
                        _ = listening => false,
                    }
                });
                match listened.await {
                    Ok(true) => Ok(receiver),
                    Ok(false) | Err(_) => Err(AuditError::Location(format!(
                        "cannot listen for changes (LISTEN {CHANNEL} did not succeed within {} s)",
                        LISTEN_WAIT.as_secs()
                    ))),
                }
            })
            .await?;
        let mut receiver = receiver.clone();
        receiver.mark_unchanged();
        Ok(receiver)
    }
}

/// The store a fleet's instances share, in this database: what a later request may need,
/// whichever instance it reaches (an MCP server's artifact handles, the questions waiting for a
/// person's answer, its sessions). Each value has a kind, a key and an expiry; an expired value
/// is never read (a take says it expired), and is deleted by a write of its kind an hour after
/// it expired.
impl SharedStore for PostgresAudit {
    fn put<'a>(
        &'a self,
        kind: &'static str,
        key: &'a str,
        value: Vec<u8>,
        lifetime: Duration,
    ) -> BackendFuture<'a, ()> {
        Box::pin(async move {
            let client = self.pool.get().await.map_err(BackendError::new)?;
            client
                .execute(
                    "DELETE FROM shared_state WHERE kind = $1 \
                     AND expires_at < clock_timestamp() - interval '1 hour'",
                    &[&kind],
                )
                .await
                .map_err(BackendError::new)?;
            client
                .execute(
                    "INSERT INTO shared_state (kind, key, value, expires_at) \
                     VALUES ($1, $2, $3, clock_timestamp() + make_interval(secs => $4)) \
                     ON CONFLICT (kind, key) DO UPDATE SET value = EXCLUDED.value, \
                     expires_at = EXCLUDED.expires_at",
                    &[&kind, &key, &value, &lifetime.as_secs_f64()],
                )
                .await
                .map_err(BackendError::new)?;
            Ok(())
        })
    }

    fn get<'a>(&'a self, kind: &'static str, key: &'a str) -> BackendFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            let client = self.pool.get().await.map_err(BackendError::new)?;
            let row = client
                .query_opt(
                    "SELECT value FROM shared_state WHERE kind = $1 AND key = $2 \
                     AND expires_at > clock_timestamp()",
                    &[&kind, &key],
                )
                .await
                .map_err(BackendError::new)?;
            Ok(row.map(|row| row.get(0)))
        })
    }

    /// Of several instances taking a value at once, one gets it: one `DELETE … RETURNING`.
    fn take<'a>(
        &'a self,
        kind: &'static str,
        key: &'a str,
    ) -> BackendFuture<'a, Option<(Vec<u8>, bool)>> {
        Box::pin(async move {
            let client = self.pool.get().await.map_err(BackendError::new)?;
            let row = client
                .query_opt(
                    "DELETE FROM shared_state WHERE kind = $1 AND key = $2 \
                     RETURNING value, expires_at > clock_timestamp()",
                    &[&kind, &key],
                )
                .await
                .map_err(BackendError::new)?;
            Ok(row.map(|row| (row.get(0), row.get(1))))
        })
    }
}

/// Drives the listening connection, counting notifications.
struct Follower {
    config: Arc<tokio_postgres::Config>,
    sender: watch::Sender<u64>,
}

impl Follower {
    async fn follow(
        &mut self,
        mut client: tokio_postgres::Client,
        mut connection: tokio_postgres::Connection<
            tokio_postgres::Socket,
            tokio_postgres::tls::NoTlsStream,
        >,
    ) {
        loop {
            self.listen(&client, &mut connection).await;
            // Lost: every receiver gone means nobody waits any more.
            loop {
                tokio::select! {
                    () = self.sender.closed() => return,
                    () = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
                if let Ok((again, connection_again)) = self.config.connect(NoTls).await {
                    client = again;
                    connection = connection_again;
                    break;
                }
            }
        }
    }

    /// Listens on one connection until it closes (or nobody waits any more).
    async fn listen(
        &mut self,
        client: &tokio_postgres::Client,
        connection: &mut tokio_postgres::Connection<
            tokio_postgres::Socket,
            tokio_postgres::tls::NoTlsStream,
        >,
    ) {
        let statement = format!("LISTEN {CHANNEL}");
        let listen = client.batch_execute(&statement);
        let mut listen = std::pin::pin!(listen);
        let mut listening = false;
        loop {
            tokio::select! {
                done = &mut listen, if !listening => {
                    if done.is_err() {
                        return;
                    }
                    listening = true;
                    // In place (again): whatever happened before may not have been seen.
                    self.sender.send_modify(|count| *count += 1);
                }
                message = std::future::poll_fn(|context| connection.poll_message(context)) => {
                    match message {
                        Some(Ok(AsyncMessage::Notification(_))) => {
                            self.sender.send_modify(|count| *count += 1);
                        }
                        Some(Ok(_)) => {}
                        Some(Err(_)) | None => return,
                    }
                }
                () = self.sender.closed() => return,
            }
        }
    }
}

const RUN_COLUMNS: &str = "run_id, kind, title, \
    to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), \
    termination, privacy, (SELECT COUNT(*) FROM steps WHERE steps.run_id = runs.run_id)";

fn run_row(row: &Row) -> RunRow {
    RunRow {
        run_id: row.get(0),
        kind: row.get(1),
        title: row.get(2),
        started_at: row.get(3),
        termination: row.get(4),
        privacy: row.get(5),
        steps: row.get(6),
    }
}

fn step_row(row: &Row) -> StepRow {
    let text = |index: usize| {
        row.get::<_, Option<Vec<u8>>>(index).map(|bytes| {
            String::from_utf8(bytes)
                .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
        })
    };
    let types: String = row.get(9);
    let (artifact_types, artifacts) = read_artifacts(&types, row.get(10));
    StepRow {
        index: row.get(0),
        kind: row.get(1),
        name: row.get(2),
        duration_ms: row.get(3),
        is_error: row.get(4),
        arguments: text(5),
        content: text(6),
        content_bytes: row.get(7),
        artifact_count: row.get(8),
        artifact_types,
        artifacts,
        stop_reason: row.get(11),
        usage: read_usage(row.get(12)),
        thinking: text(13),
        media: read_usage(row.get(14)),
    }
}

/// A text for a searchable column: PostgreSQL's text cannot hold NUL.
fn searchable(text: &str) -> String {
    text.replace('\0', "\u{FFFD}")
}

/// At most this many units of writes (an event's, or a whole run's) are committed in one
/// transaction.
const BATCH: usize = 256;

/// Writes waiting for this database's committer, told of a failure with its error (the units of
/// a batch share it).
type Waiting = crate::rows::Waiting<Arc<AuditError>>;

/// Commits the writes of every run together (group commit): while one transaction commits,
/// the writes that come in wait and go in the next, and each writer is told once its writes are
/// committed. One commit (one flush of the log, one announcement) serves every write waiting,
/// where a commit each made PostgreSQL the fleet's bottleneck. A transaction that fails is made
/// again one unit at a time, so that a unit that cannot be made fails alone. It ends when the
/// last handle of the audit copy is dropped.
async fn commit_together(
    pool: Pool,
    privacy: Privacy,
    mut waiting: mpsc::UnboundedReceiver<Waiting>,
) {
    let mut batch = Vec::with_capacity(BATCH);
    while waiting.recv_many(&mut batch, BATCH).await > 0 {
        let together = commit(&pool, privacy, batch.iter().flat_map(|(unit, _)| unit)).await;
        match together {
            Ok(()) => {
                for (_, committed) in batch.drain(..) {
                    let _ = committed.send(Ok(()));
                }
            }
            Err(_) if batch.len() > 1 => {
                for (unit, committed) in batch.drain(..) {
                    let alone = commit(&pool, privacy, unit.iter()).await;
                    let _ = committed.send(alone.map_err(Arc::new));
                }
            }
            Err(error) => {
                let error = Arc::new(error);
                for (_, committed) in batch.drain(..) {
                    let _ = committed.send(Err(Arc::clone(&error)));
                }
            }
        }
    }
}

/// Makes `writes` in one transaction, in two round trips to the server: `BEGIN` and every write
/// are sent together (tokio-postgres sends a request when its future is first polled, and
/// `join!` polls `BEGIN` first), then `COMMIT` once every write succeeded, `ROLLBACK` otherwise.
/// Only [`commit_together`] calls it, and that task is never cancelled: a connection goes back
/// to the pool with no transaction open.
async fn commit<'w>(
    pool: &Pool,
    privacy: Privacy,
    writes: impl Iterator<Item = &'w Write>,
) -> Result<(), AuditError> {
    let client = pool.get().await?;
    let (begun, applied) = tokio::join!(
        client.batch_execute("BEGIN"),
        futures_util::future::join_all(writes.map(|write| apply(&client, write, privacy))),
    );
    let made = begun
        .map_err(AuditError::from)
        .and_then(|()| applied.into_iter().collect::<Result<Vec<()>, _>>());
    match made {
        Ok(_) => Ok(client.batch_execute("COMMIT").await?),
        Err(error) => {
            // A connection that cannot roll back is closed, and the pool drops it.
            let _ = client.batch_execute("ROLLBACK").await;
            Err(error)
        }
    }
}

/// Makes `write` on `client`, in the transaction [`commit`] began. The statements are prepared
/// once per connection (every call writes the same three).
async fn apply(
    client: &deadpool_postgres::Client,
    write: &Write,
    privacy: Privacy,
) -> Result<(), AuditError> {
    match write {
        Write::Begin {
            run_id,
            kind,
            title,
            termination,
        } => {
            let title = title.as_deref().map(searchable);
            let statement = client
                .prepare_cached(
                    "INSERT INTO runs (run_id, kind, title, privacy, termination) \
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id) DO NOTHING",
                )
                .await?;
            client
                .execute(
                    &statement,
                    &[run_id, kind, &title, &privacy.as_str(), termination],
                )
                .await?;
        }
        Write::Step { run_id, index, row } => {
            let name = row.name.as_deref().map(searchable);
            let count = |value: usize| i64::try_from(value).unwrap_or(i64::MAX);
            let parameters: [&(dyn ToSql + Sync); 16] = [
                run_id,
                &count(*index),
                &row.kind,
                &name,
                &row.duration_ms,
                &row.is_error,
                &row.arguments.as_deref().map(str::as_bytes),
                &row.content.as_deref().map(str::as_bytes),
                &count(row.content_bytes),
                &count(row.artifact_count),
                &row.artifact_types,
                &row.artifacts,
                &row.stop_reason,
                &row.usage,
                &row.thinking.as_deref().map(str::as_bytes),
                &row.media,
            ];
            let statement = client
                .prepare_cached(
                    "INSERT INTO steps (run_id, idx, kind, name, duration_ms, is_error, \
                     arguments, content, content_bytes, artifact_count, artifact_types, \
                     artifacts, stop_reason, usage, thinking, media) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, \
                     $16)",
                )
                .await?;
            client.execute(&statement, &parameters).await?;
        }
        Write::Finish {
            run_id,
            termination,
        } => {
            let statement = client
                .prepare_cached("UPDATE runs SET termination = $2 WHERE run_id = $1")
                .await?;
            client.execute(&statement, &[run_id, termination]).await?;
        }
    }
    Ok(())
}

impl PostgresAudit {
    /// Commits `writes` together (with the writes of other runs that wait at the same time).
    async fn keep(&self, writes: Vec<Write>) -> Result<(), BackendError> {
        committed(writes, |waiting| self.committer.send(waiting).is_ok()).await
    }
}

impl Sink for PostgresAudit {
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

/// Every instance on the database resumes each sealed token once between them: a claim is one
/// `INSERT` on the token's unique key, so two claims at once (on any instances) cannot both win.
impl ReplayStore for PostgresAudit {
    fn claim<'a>(&'a self, id: &'a str, expires_at: SystemTime) -> BackendFuture<'a, bool> {
        let seconds = expires_at
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |since| since.as_secs_f64());
        Box::pin(async move {
            let client = self.pool.get().await.map_err(BackendError::new)?;
            // A token past its expiry cannot open any more: its row is not needed.
            client
                .execute("DELETE FROM used_tokens WHERE expires_at < now()", &[])
                .await
                .map_err(BackendError::new)?;
            let inserted = client
                .execute(
                    "INSERT INTO used_tokens (token_id, expires_at) VALUES ($1, to_timestamp($2)) \
                     ON CONFLICT (token_id) DO NOTHING",
                    &[&id, &seconds],
                )
                .await
                .map_err(BackendError::new)?;
            Ok(inserted == 1)
        })
    }
}

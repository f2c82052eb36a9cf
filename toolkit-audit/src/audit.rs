//! The audit copy wherever it lives: a SQLite file, or (feature `postgres`) a PostgreSQL
//! database, chosen by its location.

use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

#[cfg(feature = "postgres")]
use crate::postgres::PostgresAudit;
use crate::privacy::Privacy;
use crate::rows::{AuditError, RunQuery, RunRow, StepRow};
use crate::sqlite::SqliteAudit;
use toolkit::{RunEvent, Sink, seal::ReplayStore, shared::BackendFuture};

/// An audit copy: what a program that takes an audit location (say, `--audit`) opens. It is a
/// [`Sink`] and a [`ReplayStore`] for a service, and reads the history back.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Audit {
    /// A SQLite file.
    Sqlite(SqliteAudit),
    /// A PostgreSQL database.
    #[cfg(feature = "postgres")]
    Postgres(PostgresAudit),
}

impl Audit {
    /// Opens the audit copy at `location`: a `postgres://` or `postgresql://` URL is a
    /// PostgreSQL database (feature `postgres`), anything else a SQLite file's path.
    pub async fn open(location: &str, privacy: Privacy) -> Result<Self, AuditError> {
        if location.starts_with("postgres://") || location.starts_with("postgresql://") {
            #[cfg(feature = "postgres")]
            return Ok(Self::Postgres(
                PostgresAudit::connect(location, privacy).await?,
            ));
            #[cfg(not(feature = "postgres"))]
            return Err(AuditError::Location(
                "a PostgreSQL audit copy needs toolkit-audit's `postgres` feature".to_owned(),
            ));
        }
        let path = Path::new(location).to_owned();
        off_thread(move || SqliteAudit::open(&path, privacy))
            .await
            .map(Self::Sqlite)
    }

    /// The level rows are written at.
    pub fn privacy(&self) -> Privacy {
        match self {
            Self::Sqlite(audit) => audit.privacy(),
            #[cfg(feature = "postgres")]
            Self::Postgres(audit) => audit.privacy(),
        }
    }

    /// The database's name, for people: `SQLite` or `PostgreSQL`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Sqlite(_) => "SQLite",
            #[cfg(feature = "postgres")]
            Self::Postgres(_) => "PostgreSQL",
        }
    }

    /// A page of the runs `query` selects, most recent first, and how many it selects in all.
    pub async fn find_runs(&self, query: &RunQuery) -> Result<(Vec<RunRow>, usize), AuditError> {
        match self {
            Self::Sqlite(audit) => {
                let (audit, query) = (audit.clone(), query.clone());
                off_thread(move || audit.find_runs(&query)).await
            }
            #[cfg(feature = "postgres")]
            Self::Postgres(audit) => audit.find_runs(query).await,
        }
    }

    /// One run and its kept steps in order; `None` for an unknown id.
    pub async fn run(&self, run_id: &str) -> Result<Option<(RunRow, Vec<StepRow>)>, AuditError> {
        match self {
            Self::Sqlite(audit) => {
                let (audit, run_id) = (audit.clone(), run_id.to_owned());
                off_thread(move || audit.run(&run_id)).await
            }
            #[cfg(feature = "postgres")]
            Self::Postgres(audit) => audit.run(run_id).await,
        }
    }

    /// A counter that grows whenever any instance commits to this audit copy, when the
    /// database can announce commits (PostgreSQL); `None` for SQLite, which has to be asked
    /// again to see other processes' rows.
    #[cfg_attr(
        not(feature = "postgres"),
        allow(clippy::unused_async, reason = "waits only on PostgreSQL")
    )]
    pub async fn changes(&self) -> Result<Option<tokio::sync::watch::Receiver<u64>>, AuditError> {
        match self {
            Self::Sqlite(_) => Ok(None),
            #[cfg(feature = "postgres")]
            Self::Postgres(audit) => audit.changes().await.map(Some),
        }
    }
}

/// SQLite's blocking `work` on the blocking pool, so that it does not hold up the runtime.
async fn off_thread<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, AuditError> + Send + 'static,
) -> Result<T, AuditError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| AuditError::Location(error.to_string()))?
}

impl Sink for Audit {
    fn record<'a>(&'a self, event: &'a RunEvent) -> BackendFuture<'a, ()> {
        match self {
            Self::Sqlite(audit) => audit.record(event),
            #[cfg(feature = "postgres")]
            Self::Postgres(audit) => audit.record(event),
        }
    }

    fn keeps_runs_whole(&self) -> bool {
        match self {
            Self::Sqlite(audit) => audit.keeps_runs_whole(),
            #[cfg(feature = "postgres")]
            Self::Postgres(audit) => audit.keeps_runs_whole(),
        }
    }

    fn record_run<'a>(&'a self, events: &'a [Arc<RunEvent>]) -> BackendFuture<'a, ()> {
        match self {
            Self::Sqlite(audit) => audit.record_run(events),
            #[cfg(feature = "postgres")]
            Self::Postgres(audit) => audit.record_run(events),
        }
    }
}

impl ReplayStore for Audit {
    fn claim<'a>(&'a self, id: &'a str, expires_at: SystemTime) -> BackendFuture<'a, bool> {
        match self {
            Self::Sqlite(audit) => audit.claim(id, expires_at),
            #[cfg(feature = "postgres")]
            Self::Postgres(audit) => audit.claim(id, expires_at),
        }
    }
}

//! # toolkit-audit
//!
//! The persisted audit copy of [`toolkit`] runs: a [`Sink`](toolkit::Sink) a service's recorder
//! gives every event to, over a SQLite file ([`SqliteAudit`]) or, with the `postgres` feature, a
//! PostgreSQL database that several instances share ([`PostgresAudit`]); [`Audit::open`] takes
//! either location. Each finished step is one row, committed (SQLite in WAL mode, synchronous;
//! PostgreSQL at commit) before the recorder shows the step to anyone, so a process killed
//! mid-run loses no step it had reported as finished. Both are also a
//! [`ReplayStore`](toolkit::seal::ReplayStore): every instance on one audit copy resumes each sealed
//! token once between them.
//!
//! With the `otlp` feature, [`OtlpExport`] sends runs as OpenTelemetry traces (GenAI semantic
//! conventions) over OTLP/HTTP, never with artifacts.
//!
//! What a row keeps depends on the [`Privacy`] level: `metadata` keeps names, timings, flags,
//! sizes and the artifacts' count and types; `redacted` also keeps arguments, contents and
//! artifacts with secret-shaped strings and e-mail addresses masked and every string capped;
//! `full` keeps all.
//!
//! ```
//! use std::sync::Arc;
//! use toolkit::{ToolCall, ToolContext, ToolLoopService, ToolRegistry};
//! use toolkit_audit::{Privacy, SqliteAudit};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let folder = std::env::temp_dir().join(format!("toolkit-audit-doc-{}", std::process::id()));
//! let audit = Arc::new(SqliteAudit::open(&folder.join("audit.sqlite3"), Privacy::Metadata)?);
//! let service = ToolLoopService::new(ToolRegistry::new()).with_sink(audit.clone());
//! let scope = service.scope(ToolContext::new())?;
//! service.call_observed(&scope, "doc", &ToolCall::new("1", "nope", "{}")).await;
//!
//! let runs = audit.runs(10)?;
//! assert_eq!(runs[0].kind, "call");
//! assert_eq!(runs[0].title.as_deref(), Some("nope"));
//! # std::fs::remove_dir_all(&folder)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
// Types whose fields or variants will grow say so: a new one is not a breaking change.
#![warn(clippy::exhaustive_structs, clippy::exhaustive_enums)]

// The recording guide, rendered as `toolkit::guide::recording`: its code uses this crate, so it is
// compiled and run here. It is read through a link, doctests/recording.md, so that the published
// crate holds it (cargo packages the file itself) and runs these doctests too.
#[cfg(doctest)]
#[doc = include_str!("../doctests/recording.md")]
struct GuideDoctests;

mod audit;
#[cfg(feature = "otlp")]
mod otlp;
#[cfg(feature = "postgres")]
mod postgres;
mod privacy;
mod rows;
mod sqlite;

pub use audit::Audit;
#[cfg(feature = "otlp")]
#[cfg_attr(docsrs, doc(cfg(feature = "otlp")))]
pub use otlp::{OtlpError, OtlpExport};
#[cfg(feature = "postgres")]
#[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
pub use postgres::PostgresAudit;
pub use privacy::{Privacy, REDACTED_STRING_LIMIT, UnknownPrivacy};
pub use rows::{AuditError, RunQuery, RunRow, StepRow};
pub use sqlite::SqliteAudit;

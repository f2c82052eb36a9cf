//! The embedded default: where the playground keeps its files, the sample data, and the script
//! the scripted provider plays when none is given.

use std::path::PathBuf;

use std::sync::Arc;

use toolkit::{SecretFilter, ToolContext, ToolLoopService, ToolRegistry};
use toolkit_audit::SqliteAudit;
use toolkit_builtins::{Database, WorkspaceRoot};

/// The script played by `run` and the inspector's loop when no other is given: it lists the
/// sample database's tables, reads a few customers, sums the orders per customer with SQL and
/// measures a text, so steps with and without TABLE artifacts appear.
pub const DEFAULT_SCRIPT: &str = r#"{"turns": [
  {"content": "First I look at what the sample database holds.", "tool_calls": [
    {"name": "list_tables", "arguments": {}}
  ]},
  {"content": "Now the first customers, and the order totals per customer.", "tool_calls": [
    {"name": "read_records", "arguments": {"table": "customers", "limit": 5}},
    {"name": "query_sql", "arguments": {"sql": "SELECT customer_id, COUNT(*) AS orders FROM orders GROUP BY customer_id ORDER BY customer_id"}}
  ]},
  {"content": "And a quick measure of the question itself.", "tool_calls": [
    {"name": "text_stats", "arguments": {"text": "Which customers ordered the most?\nList them."}}
  ]},
  {"content": "The sample shop has customers, products, orders and order items; the order counts per customer are in the query_sql table (an artifact, shown here only, never sent to the model)."}
]}"#;

/// The question the default script answers.
pub const DEFAULT_QUESTION: &str = "Which customers of the sample shop ordered the most?";

/// The folder for the playground's files: `$XDG_DATA_HOME/toolkit-playground`, else
/// `$HOME/.local/share/toolkit-playground`, else `.toolkit-playground` in the current folder.
pub fn data_dir() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|value| !value.is_empty())
                .map(|home| PathBuf::from(home).join(".local").join("share"))
        });
    match base {
        Some(base) => base.join("toolkit-playground"),
        None => PathBuf::from(".toolkit-playground"),
    }
}

/// The default audit copy: `audit.sqlite3` in [`data_dir`].
pub fn default_audit_path() -> PathBuf {
    data_dir().join("audit.sqlite3")
}

/// What the tools work on: the sample workspace, and the sample database in [`data_dir`]
/// (created on first use).
pub fn sample_context() -> Result<ToolContext, toolkit_builtins::sample::SampleError> {
    let database = data_dir().join("sample.db");
    toolkit_builtins::sample::create_sample_database(&database)?;
    Ok(ToolContext::new()
        .with_extension(WorkspaceRoot::new(
            toolkit_builtins::files::sample_workspace(),
        ))
        .with_extension(Database::new(database)))
}

/// The service every command uses: over `registry`, keeping each call and run (and each used
/// token) in `audit` when there is one, and masking secret-shaped strings in what tools send to the model unless
/// `show_secrets` (artifacts, for people, always keep them).
pub fn service(
    registry: ToolRegistry,
    audit: Option<&Arc<SqliteAudit>>,
    show_secrets: bool,
) -> ToolLoopService {
    let mut service = ToolLoopService::new(registry);
    if let Some(audit) = audit {
        // The audit file also records used tokens, so every process on it resumes each once.
        service = service
            .with_sink(audit.clone())
            .with_replay_store(audit.clone());
    }
    if !show_secrets {
        service = service.with_content_filter(Arc::new(SecretFilter));
    }
    service
}

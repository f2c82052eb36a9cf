//! What the builtin tools work on, given to a run as typed extensions of its
//! [`ToolContext`](toolkit::ToolContext). A tool whose resource is absent answers with one exact
//! error and touches nothing.

use std::path::{Path, PathBuf};

/// The folder the file, data and system tools are confined to.
///
/// ```
/// use toolkit::ToolContext;
/// use toolkit_builtins::WorkspaceRoot;
///
/// let context = ToolContext::new().with_extension(WorkspaceRoot::new("/srv/project"));
/// assert_eq!(
///     context.extension::<WorkspaceRoot>().map(WorkspaceRoot::path),
///     Some(std::path::Path::new("/srv/project"))
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceRoot(PathBuf);

impl WorkspaceRoot {
    /// The workspace at `root` (opened, and checked, by each call).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self(root.into())
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

/// The SQLite database the records tools read and the record writers change.
///
/// ```
/// use toolkit::ToolContext;
/// use toolkit_builtins::Database;
///
/// let context = ToolContext::new().with_extension(Database::new("shop.db"));
/// assert!(context.extension::<Database>().is_some());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Database(PathBuf);

impl Database {
    /// The database file at `path` (never created by a tool).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self(path.into())
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

/// The groups whose builtins can show text read from a workspace, a repository, a web page or a
/// database: `data`, `files`, `git`, `network`, `records` and `system`.
pub const SOURCE_GROUPS: &[&str] = &["data", "files", "git", "network", "records", "system"];

/// Whether the tool `spec` describes can show text read from a workspace, a repository, a web
/// page or a database: it is [read-only](toolkit::spec::ToolFlags::read_only) and of one of the
/// [`SOURCE_GROUPS`]. Such text may hold secrets, so the secret corpus test
/// (`tests/secrets_wire.rs`) tries every tool this says yes to, a new one included, without a
/// list of names.
///
/// ```
/// use toolkit_builtins::shows_sources;
///
/// let registry = toolkit_builtins::registry().expect("no duplicate names");
/// let read_file = registry.get("read_file").expect("linked").spec();
/// let calculate = registry.get("calculate").expect("linked").spec();
/// assert!(shows_sources(read_file) && !shows_sources(calculate));
/// ```
pub fn shows_sources(spec: &toolkit::ToolSpec) -> bool {
    spec.flags().read_only() && SOURCE_GROUPS.contains(&spec.group())
}

/// What a file tool answers when the run has no [`WorkspaceRoot`].
pub const NO_WORKSPACE: &str = "Error: no workspace folder is configured for this run.";

/// What a records tool answers when the run has no [`Database`].
pub const NO_DATABASE: &str = "Error: no database is configured for this run.";

/// The builtins that need a [`Database`] to do anything: a server without one should not offer
/// them (they would only answer [`NO_DATABASE`]).
pub const DATABASE_TOOLS: &[&str] = &[
    "count_records",
    "delete_record",
    "describe_database",
    "get_table_schema",
    "insert_record",
    "list_tables",
    "preview_record_change",
    "query_sql",
    "read_records",
    "search_records",
    "update_record",
];

/// The builtins that need a [`WorkspaceRoot`] to do anything (those that can also work on text
/// they are given, such as `csv_preview`, are not here).
pub const WORKSPACE_TOOLS: &[&str] = &[
    "append_file",
    "copy_path",
    "create_directory",
    "delete_path",
    "edit_file",
    "fetch_logs",
    "file_hash",
    "file_info",
    "find_files",
    "git_blame",
    "git_diff",
    "git_log",
    "git_show",
    "git_status",
    "list_directory",
    "move_path",
    "preview_edit",
    "read_file",
    "read_files",
    "search_files",
    "tree",
    "write_file",
];

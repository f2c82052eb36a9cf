//! The workspace folder file tools are confined to, and the helpers every tool shares.
//!
//! Confinement is two layers. A model's path is first checked as text: a NUL byte, a `\`, an
//! absolute path (Unix or Windows) or any `..` component is refused before the file system is
//! touched. What is left is opened through a [`cap_std::fs::Dir`] on the root, which resolves
//! every component beneath that handle (with `openat2(RESOLVE_BENEATH)` where Linux has it), so a
//! symbolic link that points out of the root, absolutely or through `..`, cannot be followed.
//!
//! Walks (`tree`, `find_files`, `search_files`) use the `ignore` walker from the root without
//! following links, and open every file they read through the same capability.

use std::fmt::Write as _;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use toolkit::{Table, TableError, ToolArtifact, ToolContext, ToolResult};

/// Longest path accepted, in bytes.
const PATH_LIMIT: usize = 4_096;

/// The workspace root of a run, opened as a capability.
pub(crate) struct Workspace {
    dir: Dir,
    /// The root as the file system names it, for the walker.
    root: PathBuf,
}

/// A path the model gave, checked as text: relative, no `..`, `/`-separated, `.` parts dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RelativePath {
    path: PathBuf,
    shown: String,
}

impl RelativePath {
    /// Checks a model's path. A refusal is a text result the model can reason about.
    pub(crate) fn parse(raw: &str) -> Result<Self, ToolResult> {
        if raw.contains('\0') {
            return Err(refusal(format!(
                "Refused: the path \"{}\" contains a NUL byte.",
                raw.escape_debug()
            )));
        }
        if raw.len() > PATH_LIMIT {
            return Err(ToolResult::error(format!(
                "Error: the path is {} bytes long; the limit is {PATH_LIMIT}.",
                raw.len()
            )));
        }
        if raw.contains('\\') {
            return Err(refusal(format!(
                "Refused: the path \"{raw}\" contains `\\`; separate folders with `/`."
            )));
        }
        let bytes = raw.as_bytes();
        let windows_drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
        if raw.starts_with('/') || windows_drive {
            return Err(refusal(format!(
                "Refused: the path \"{raw}\" is absolute; give a path relative to the workspace."
            )));
        }
        let mut parts = Vec::new();
        for part in raw.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    return Err(refusal(format!(
                        "Refused: the path \"{raw}\" contains `..`; paths stay inside the workspace."
                    )));
                }
                part => parts.push(part),
            }
        }
        let shown = if parts.is_empty() {
            ".".to_owned()
        } else {
            parts.join("/")
        };
        let path = parts.iter().collect::<PathBuf>();
        Ok(Self { path, shown })
    }

    /// The path for the capability (empty is the root).
    pub(crate) fn as_path(&self) -> &Path {
        if self.path.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &self.path
        }
    }

    /// The path as shown to the model: `/`-separated, `.` for the root.
    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }

    /// Whether this is the root.
    pub(crate) fn is_root(&self) -> bool {
        self.path.as_os_str().is_empty()
    }
}

impl Workspace {
    /// The run's workspace; an error result when the run has none or it cannot be opened.
    pub(crate) fn open(context: &ToolContext) -> Result<Self, ToolResult> {
        let Some(root) = context.workspace() else {
            return Err(no_workspace());
        };
        Self::open_root(root)
    }

    /// The workspace at `root`.
    pub(crate) fn open_root(root: &Path) -> Result<Self, ToolResult> {
        let root = std::fs::canonicalize(root).map_err(|error| {
            ToolResult::error(format!(
                "Error: the workspace folder cannot be opened: {error}."
            ))
        })?;
        let dir = Dir::open_ambient_dir(&root, ambient_authority()).map_err(|error| {
            ToolResult::error(format!(
                "Error: the workspace folder cannot be opened: {error}."
            ))
        })?;
        Ok(Self { dir, root })
    }

    /// The root capability.
    pub(crate) fn dir(&self) -> &Dir {
        &self.dir
    }

    /// The real path of a folder inside the workspace, links resolved, relative to the root;
    /// refused when it leads out or is not a folder.
    pub(crate) fn real_folder(&self, path: &RelativePath) -> Result<PathBuf, ToolResult> {
        let metadata = self
            .dir
            .metadata(path.as_path())
            .map_err(|error| io_refusal(path, &error))?;
        if !metadata.is_dir() {
            return Err(refusal(format!("\"{}\" is not a folder.", path.shown())));
        }
        let real = self
            .dir
            .canonicalize(path.as_path())
            .map_err(|error| io_refusal(path, &error))?;
        // `canonicalize` names the root itself `.`.
        Ok(real
            .components()
            .filter(|part| !matches!(part, Component::CurDir))
            .collect())
    }

    /// Opens a regular file for reading; refused when missing, outside or not a file.
    pub(crate) fn open_file(&self, path: &RelativePath) -> Result<cap_std::fs::File, ToolResult> {
        let file = self
            .dir
            .open(path.as_path())
            .map_err(|error| io_refusal(path, &error))?;
        let metadata = file.metadata().map_err(|error| io_refusal(path, &error))?;
        if metadata.is_dir() {
            return Err(refusal(format!(
                "\"{}\" is a folder, not a file.",
                path.shown()
            )));
        }
        Ok(file)
    }

    /// The text of a file of at most `limit` bytes.
    pub(crate) fn read_text(&self, path: &RelativePath, limit: u64) -> Result<String, ToolResult> {
        let file = self.open_file(path)?;
        let mut bytes = Vec::new();
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| io_refusal(path, &error))?;
        if bytes.len() as u64 > limit {
            return Err(ToolResult::error(format!(
                "Error: \"{}\" is larger than {limit} bytes.",
                path.shown()
            )));
        }
        String::from_utf8(bytes)
            .map_err(|_| refusal(format!("\"{}\" is not UTF-8 text.", path.shown())))
    }

    /// A walker from the root down to and through `start` (a real folder path relative to the
    /// root, from [`real_folder`](Self::real_folder)), at most `depth` levels below `start`.
    ///
    /// Walking from the root lets its `.gitignore` apply to a sub-folder without reading any
    /// ignore file above the root. It honours `.gitignore` and `.ignore` files (with or without a
    /// Git repository), shows dot files, skips `.git`, never follows links and visits each
    /// folder's entries by name.
    pub(crate) fn walker(&self, start: &Path, depth: Option<usize>) -> ignore::Walk {
        let root = self.root.clone();
        let start_owned = start.to_path_buf();
        let mut builder = ignore::WalkBuilder::new(&self.root);
        builder
            .follow_links(false)
            .hidden(false)
            .parents(false)
            .git_ignore(true)
            .git_global(false)
            .git_exclude(false)
            .require_git(false)
            .ignore(true)
            .max_depth(depth.map(|depth| depth + start.components().count()))
            .sort_by_file_name(Ord::cmp)
            .filter_entry(move |entry| {
                if entry.file_name() == ".git" {
                    return false;
                }
                let Ok(relative) = entry.path().strip_prefix(&root) else {
                    return false;
                };
                relative.starts_with(&start_owned) || start_owned.starts_with(relative)
            });
        builder.build()
    }

    /// The path of a walked entry relative to the root, when it lies strictly below `start`.
    pub(crate) fn below<'p>(&self, path: &'p Path, start: &Path) -> Option<&'p Path> {
        path.strip_prefix(&self.root)
            .ok()
            .filter(|relative| relative.starts_with(start) && *relative != start)
    }
}

/// A relative path shown with `/` separators.
pub(crate) fn shown(path: &Path) -> String {
    let mut out = String::new();
    for (index, part) in path.components().enumerate() {
        if index > 0 {
            out.push('/');
        }
        out.push_str(&part.as_os_str().to_string_lossy());
    }
    out
}

/// The result either way: `Err` carries a refusal or an error made early.
pub(crate) fn settle(outcome: Result<ToolResult, ToolResult>) -> ToolResult {
    outcome.unwrap_or_else(|result| result)
}

/// A text result for something the model should reason about (not found, not allowed).
pub(crate) fn refusal(message: impl Into<String>) -> ToolResult {
    ToolResult::text(message)
}

/// The error result of a run without a workspace.
pub(crate) fn no_workspace() -> ToolResult {
    ToolResult::error("Error: no workspace folder is configured for this run.")
}

/// The result for an I/O failure on a model's path: missing and escaping paths are refusals the
/// model can act on; anything else is an error.
pub(crate) fn io_refusal(path: &RelativePath, error: &io::Error) -> ToolResult {
    match error.kind() {
        io::ErrorKind::NotFound => refusal(format!(
            "No file or folder at \"{}\" in the workspace.",
            path.shown()
        )),
        // cap-std reports an escape as a `PermissionDenied` of its own making; the operating
        // system's own denials carry an OS error code instead.
        io::ErrorKind::PermissionDenied if error.raw_os_error().is_none() => refusal(format!(
            "Refused: the path \"{}\" leads outside the workspace.",
            path.shown()
        )),
        io::ErrorKind::PermissionDenied => {
            refusal(format!("Refused: \"{}\" is not readable.", path.shown()))
        }
        _ => ToolResult::error(format!("Error: cannot use \"{}\": {error}.", path.shown())),
    }
}

/// Runs blocking work off the async threads so the seam's timeout applies; a panic in the work
/// is raised again here, where the seam catches it.
pub(crate) async fn blocking<F>(work: F) -> ToolResult
where
    F: FnOnce() -> ToolResult + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(error) => match error.try_into_panic() {
            Ok(payload) => std::panic::resume_unwind(payload),
            Err(_) => ToolResult::error("Error: the work was cancelled."),
        },
    }
}

/// Rows for a table artifact and lines for the content, written from the same cells in one
/// pass: the first `in_content` rows become content lines, every row goes to the table.
pub(crate) struct Listing {
    table: Table,
    lines: String,
    rows: usize,
    in_content: usize,
}

impl Listing {
    /// An empty listing with these columns, showing up to `in_content` rows in the content.
    pub(crate) fn new<C: Into<String>>(
        columns: impl IntoIterator<Item = C>,
        in_content: usize,
    ) -> Self {
        Self {
            table: Table::new(columns),
            lines: String::new(),
            rows: 0,
            in_content,
        }
    }

    /// Adds a row; `line` renders its content line from the same cells.
    pub(crate) fn push(
        &mut self,
        cells: Vec<String>,
        line: impl FnOnce(&[String]) -> String,
    ) -> Result<(), TableError> {
        if self.rows < self.in_content {
            let _ = write!(self.lines, "\n{}", line(&cells));
        }
        self.rows += 1;
        self.table.push_row(cells)
    }

    /// Rows so far.
    pub(crate) fn len(&self) -> usize {
        self.rows
    }

    /// The result: `head`, the content lines, a note of the rows only in the artifact, and the
    /// table labelled `label`.
    pub(crate) fn finish(self, head: &str, label: &str) -> ToolResult {
        let more = if self.rows > self.in_content {
            format!("\n… {} more in the artifact.", self.rows - self.in_content)
        } else {
            String::new()
        };
        ToolResult::text_with(
            format!("{head}{}{more}", self.lines),
            [ToolArtifact::table(label, self.table)],
        )
    }
}

/// A table-width mismatch, which only a bug here can cause, as an error result.
pub(crate) fn table_error(error: &TableError) -> ToolResult {
    ToolResult::error(format!("Error: {error}"))
}

/// `text` cut to at most `limit` characters, with `…` when cut.
pub(crate) fn cut(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// `1 file`, `2 files`.
pub(crate) fn plural(count: usize, one: &str, many: &str) -> String {
    if count == 1 {
        format!("{count} {one}")
    } else {
        format!("{count} {many}")
    }
}

/// Checks that `value` lies in `min..=max`, naming the argument.
pub(crate) fn check_range(
    name: &str,
    value: usize,
    min: usize,
    max: usize,
) -> Result<(), ToolResult> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ToolResult::error(format!(
            "Error: {name} must be between {min} and {max}, not {value}."
        )))
    }
}

/// The text a data tool works on: a workspace file (`path`) or text passed in (`text`), exactly
/// one of them. Returns a label for the content (the quoted path, or `the text`) and the text.
pub(crate) fn source_text(
    context: &ToolContext,
    path: Option<&str>,
    text: Option<String>,
    limit: u64,
) -> Result<(String, String), ToolResult> {
    match (path, text) {
        (Some(path), None) => {
            let workspace = Workspace::open(context)?;
            let path = RelativePath::parse(path)?;
            let text = workspace.read_text(&path, limit)?;
            Ok((format!("\"{}\"", path.shown()), text))
        }
        (None, Some(text)) => {
            if text.len() as u64 > limit {
                return Err(ToolResult::error(format!(
                    "Error: the text is {} bytes long; the limit is {limit}.",
                    text.len()
                )));
            }
            Ok(("the text".to_owned(), text))
        }
        _ => Err(ToolResult::error(
            "Error: give exactly one of `path` (a workspace file) or `text`.",
        )),
    }
}

/// A modification time as RFC 3339 in UTC, seconds precision; empty when unknown.
pub(crate) fn timestamp(time: io::Result<cap_std::time::SystemTime>) -> String {
    time.ok()
        .and_then(|time| jiff::Timestamp::try_from(time.into_std()).ok())
        .map(|time| time.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

/// Lowercase hex of bytes.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, byte| {
            let _ = write!(out, "{byte:02x}");
            out
        })
}

/// Whether bytes look binary: a NUL in the first 8 KiB.
pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8_192).any(|byte| *byte == 0)
}

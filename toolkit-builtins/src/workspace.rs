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

#![cfg_attr(
    not(all(
        feature = "data",
        feature = "files",
        feature = "system",
        feature = "writers"
    )),
    allow(dead_code)
)]

use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use toolkit::{ToolContext, ToolResult};

use crate::resources::{NO_WORKSPACE, WorkspaceRoot};
use crate::shared::refusal;

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
        let Some(root) = context.extension::<WorkspaceRoot>() else {
            return Err(no_workspace());
        };
        Self::open_root(root.path())
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

/// The error result of a run without a workspace.
pub(crate) fn no_workspace() -> ToolResult {
    ToolResult::error(NO_WORKSPACE)
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

//! Tools that change the workspace folder. Each needs an operator's approval and is off unless a
//! run offers it; each is confined to the workspace like the files group, and none touches a
//! `.git` folder (see [`GIT_FOLDER_REFUSAL`]).

// `content` (what to write) and `context` (the run's) are each the natural name.
#![allow(clippy::similar_names)]

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Component, Path, PathBuf};

use cap_std::fs::{Dir, OpenOptions};
use schemars::JsonSchema;
use serde::Deserialize;
use toolkit::{ToolArtifact, ToolContext, ToolResult, tool};

use crate::shared::{line_diff, plural, refusal, settle};
use crate::workspace::{
    DEPTH_LIMIT, RelativePath, Workspace, io_refusal, is_a_folder, not_regular, not_utf8,
    open_folder,
};

/// What every writer answers, after `Refused: "PATH" `, for a path that is a `.git` folder, is
/// in one, or leads into one through links; nothing is touched first. The git tools read the
/// workspace's repository, and what a writer could put there (`.git/config`, `.git/hooks/*`,
/// `.git/info/attributes`) would make them run commands.
///
/// ```
/// assert!(toolkit_builtins::file_writers::GIT_FOLDER_REFUSAL.starts_with("is or leads into"));
/// ```
pub const GIT_FOLDER_REFUSAL: &str = "is or leads into a .git folder; the file tools do not touch a repository's own files, and nothing was changed. Give a path outside `.git`.";

/// Largest text written in one call, in bytes.
const WRITE_LIMIT: usize = 1_000_000;

fn check_size(content: &str) -> Result<(), ToolResult> {
    if content.len() > WRITE_LIMIT {
        return Err(ToolResult::error(format!(
            "Error: the content is {} bytes long; the limit is {WRITE_LIMIT}.",
            content.len()
        )));
    }
    Ok(())
}

/// The path of a file to create or change; the workspace root itself is not one, and neither
/// is a path that is or leads into a `.git` folder (see [`GIT_FOLDER_REFUSAL`]): as written, or
/// through the links on its way, and through its last component too when the writer follows
/// it (`follow_last`).
fn file_path(
    workspace: &Workspace,
    raw: &str,
    follow_last: bool,
) -> Result<RelativePath, ToolResult> {
    let path = RelativePath::parse(raw)?;
    if path.is_root() {
        return Err(refusal(
            "Refused: give the path of a file, not the workspace folder.",
        ));
    }
    let written = path
        .as_path()
        .components()
        .any(|part| is_git_name(part.as_os_str()));
    if written || leads_into_git(workspace.dir(), path.as_path(), follow_last) {
        return Err(refusal(format!(
            "Refused: \"{}\" {GIT_FOLDER_REFUSAL}",
            path.shown()
        )));
    }
    Ok(path)
}

/// Whether a name is `.git` as some file system reads it: in any case (a case-insensitive file
/// system), with the trailing dots and spaces or the `:stream` suffix NTFS drops, as NTFS's
/// short name `git~1`, or with the invisible characters HFS+ ignores; git itself refuses each.
fn is_git_name(name: &OsStr) -> bool {
    /// Code points HFS+ ignores when it compares names (git's `is_hfs_dotgit`).
    fn ignored_by_hfs(c: char) -> bool {
        matches!(c, '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}')
    }
    let name = name.to_string_lossy();
    let visible: String = name.chars().filter(|c| !ignored_by_hfs(*c)).collect();
    let stem = visible
        .split(':')
        .next()
        .unwrap_or_default()
        .trim_end_matches(['.', ' ']);
    stem.eq_ignore_ascii_case(".git") || stem.eq_ignore_ascii_case("git~1")
}

/// Most links followed while resolving one path, as Linux's own limit.
const LINK_HOPS: usize = 40;

/// Whether `path`, resolved beneath the root as the file system would (each link on its way
/// replaced by its target, the last component's too with `follow_last`), passes through a
/// `.git` folder; the parts that do not exist yet count as written. A link that leads out of
/// the root, or that cannot be read, ends the search: the capability refuses such a path when
/// it is used.
fn leads_into_git(dir: &Dir, path: &Path, follow_last: bool) -> bool {
    let mut real = PathBuf::new();
    let mut left: VecDeque<OsString> = path
        .components()
        .map(|part| part.as_os_str().to_owned())
        .collect();
    let mut hops = 0;
    while let Some(part) = left.pop_front() {
        match Path::new(&part).components().next() {
            Some(Component::Normal(_)) => {}
            Some(Component::ParentDir) => {
                if !real.pop() {
                    return false;
                }
                continue;
            }
            Some(Component::RootDir | Component::Prefix(_)) => return false,
            Some(Component::CurDir) | None => continue,
        }
        if is_git_name(&part) {
            return true;
        }
        let candidate = real.join(&part);
        if left.is_empty() && !follow_last {
            return false;
        }
        match dir.symlink_metadata(&candidate) {
            Ok(metadata) if metadata.is_symlink() => {
                hops += 1;
                let Ok(target) = dir.read_link_contents(&candidate) else {
                    return false;
                };
                if hops > LINK_HOPS {
                    return false;
                }
                for part in target.components().rev() {
                    left.push_front(part.as_os_str().to_owned());
                }
            }
            Ok(_) => real = candidate,
            // Missing from here on: what is left will be made as written.
            Err(_) => return left.iter().any(|part| is_git_name(part)),
        }
    }
    false
}

/// Writes a text file in the workspace. Its folder must exist (see `create_directory`); an
/// existing file is replaced only with `overwrite: true`.
#[tool(
    group = "writers",
    requires_approval,
    idempotent,
    enabled_by_default = false
)]
pub fn write_file(
    /// The file, relative to the workspace root.
    path: String,
    /// The text to write.
    content: String,
    /// Replace the file if it exists.
    #[arg(default = false)]
    overwrite: bool,
    context: &ToolContext,
) -> ToolResult {
    settle(write_file_in(context, &path, &content, overwrite))
}

fn write_file_in(
    context: &ToolContext,
    path: &str,
    content: &str,
    overwrite: bool,
) -> Result<ToolResult, ToolResult> {
    check_size(content)?;
    let workspace = Workspace::open(context)?;
    let path = file_path(&workspace, path, true)?;
    let mut file = open_target(&workspace, &path, overwrite)?;
    file.set_len(0)
        .and_then(|()| file.write_all(content.as_bytes()))
        .map_err(|error| io_refusal(&path, &error))?;
    Ok(ToolResult::text(format!(
        "Wrote {} bytes to \"{}\".",
        content.len(),
        path.shown()
    )))
}

/// Appends text to a file in the workspace, creating the file if it does not exist (its
/// folder must).
#[tool(group = "writers", requires_approval, enabled_by_default = false)]
pub fn append_file(
    /// The file, relative to the workspace root.
    path: String,
    /// The text to append (add a trailing newline if you want one).
    content: String,
    context: &ToolContext,
) -> ToolResult {
    settle(append_file_in(context, &path, &content))
}

fn append_file_in(
    context: &ToolContext,
    path: &str,
    content: &str,
) -> Result<ToolResult, ToolResult> {
    check_size(content)?;
    let workspace = Workspace::open(context)?;
    let path = file_path(&workspace, path, true)?;
    let mut options = writing();
    options.append(true).create(true);
    let mut file = workspace
        .dir()
        .open_with(path.as_path(), &options)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => refusal(format!(
                "The folder of \"{}\" does not exist; create it with create_directory first.",
                path.shown()
            )),
            _ => open_refusal(&path, &error),
        })?;
    check_writable(&file, &path)?;
    file.write_all(content.as_bytes())
        .map_err(|error| io_refusal(&path, &error))?;
    let size = file
        .metadata()
        .map_err(|error| io_refusal(&path, &error))?
        .len();
    Ok(ToolResult::text(format!(
        "Appended {} bytes to \"{}\" (now {size} bytes).",
        content.len(),
        path.shown()
    )))
}

/// The file at `path` opened to be written whole, not yet truncated: created, or with
/// `overwrite` an existing one, which must be a regular file with no other hard link.
fn open_target(
    workspace: &Workspace,
    path: &RelativePath,
    overwrite: bool,
) -> Result<cap_std::fs::File, ToolResult> {
    let mut options = writing();
    if overwrite {
        // Not truncated on opening: only once the file is known to be safe to write.
        options.create(true);
    } else {
        options.create_new(true);
    }
    let file = workspace
        .dir()
        .open_with(path.as_path(), &options)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::AlreadyExists => refusal(format!(
                "\"{}\" exists; pass overwrite: true to replace it.",
                path.shown()
            )),
            std::io::ErrorKind::NotFound => refusal(format!(
                "The folder of \"{}\" does not exist; create it with create_directory first.",
                path.shown()
            )),
            _ => open_refusal(path, &error),
        })?;
    check_writable(&file, path)?;
    Ok(file)
}

/// Options to open a file for writing without waiting: a FIFO without a reader fails at once
/// instead of blocking the call.
fn writing() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    options
}

/// An error opening a file to write it, as a refusal: a FIFO without a reader is not a
/// regular file, and a folder is not a file.
fn open_refusal(path: &RelativePath, error: &std::io::Error) -> ToolResult {
    #[cfg(unix)]
    if error.raw_os_error() == Some(libc::ENXIO) {
        return not_regular(path);
    }
    #[cfg(unix)]
    if error.raw_os_error() == Some(libc::EISDIR) {
        return is_a_folder(path);
    }
    io_refusal(path, error)
}

/// Only a regular file with no other name is written: another hard link may be a file outside
/// the workspace, which writing through this name would change.
fn check_writable(file: &cap_std::fs::File, path: &RelativePath) -> Result<(), ToolResult> {
    let metadata = file.metadata().map_err(|error| io_refusal(path, &error))?;
    if !metadata.is_file() {
        return Err(not_regular(path));
    }
    #[cfg(unix)]
    {
        use cap_std::fs::MetadataExt as _;
        if metadata.nlink() > 1 {
            return Err(refusal(format!(
                "Refused: \"{}\" has {} hard links, so writing it could change a file outside the workspace; it was not written. Write to a new path instead.",
                path.shown(),
                metadata.nlink()
            )));
        }
    }
    Ok(())
}

/// Creates a folder in the workspace, with any missing parent folders.
#[tool(
    group = "writers",
    requires_approval,
    idempotent,
    enabled_by_default = false
)]
pub fn create_directory(
    /// The folder, relative to the workspace root.
    path: String,
    context: &ToolContext,
) -> ToolResult {
    settle(create_directory_in(context, &path))
}

fn create_directory_in(context: &ToolContext, path: &str) -> Result<ToolResult, ToolResult> {
    let workspace = Workspace::open(context)?;
    let path = file_path(&workspace, path, true)?;
    match workspace.dir().metadata(path.as_path()) {
        Ok(metadata) => {
            // The folder asked for is there: done. Anything else there is a refusal.
            return if metadata.is_dir() {
                Ok(ToolResult::text(format!(
                    "The folder \"{}\" already exists.",
                    path.shown()
                )))
            } else {
                Err(refusal(format!(
                    "\"{}\" exists and is not a folder; give the new folder another path.",
                    path.shown()
                )))
            };
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(io_refusal(&path, &error)),
    }
    workspace
        .dir()
        .create_dir_all(path.as_path())
        .map_err(|error| io_refusal(&path, &error))?;
    Ok(ToolResult::text(format!(
        "Created the folder \"{}\".",
        path.shown()
    )))
}

/// Largest file copied in one call, in bytes.
const COPY_LIMIT: u64 = 100_000_000;

/// What is at a path, without following a last link.
fn entry_at(workspace: &Workspace, path: &RelativePath) -> Result<Option<Entry>, ToolResult> {
    match workspace.dir().symlink_metadata(path.as_path()) {
        Ok(metadata) if metadata.is_symlink() => Ok(Some(Entry::Link)),
        Ok(metadata) if metadata.is_dir() => Ok(Some(Entry::Folder)),
        Ok(metadata) => Ok(Some(Entry::File(metadata.len()))),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(io_refusal(path, &error)),
    }
}

/// A file (with its size), a folder or a link.
enum Entry {
    File(u64),
    Folder,
    Link,
}

fn missing(path: &RelativePath) -> ToolResult {
    io_refusal(path, &std::io::ErrorKind::NotFound.into())
}

/// Deletes a file, a link or a folder in the workspace. A folder with anything in it is deleted
/// only with `recursive: true`; a link is deleted itself, never what it points to.
#[tool(group = "writers", requires_approval, enabled_by_default = false)]
pub fn delete_path(
    /// The file, link or folder, relative to the workspace root.
    path: String,
    /// Delete a folder with everything in it.
    #[arg(default = false)]
    recursive: bool,
    context: &ToolContext,
) -> ToolResult {
    settle(delete_path_in(context, &path, recursive))
}

fn delete_path_in(
    context: &ToolContext,
    path: &str,
    recursive: bool,
) -> Result<ToolResult, ToolResult> {
    let workspace = Workspace::open(context)?;
    let path = file_path(&workspace, path, false)?;
    let dir = workspace.dir();
    let shown = path.shown();
    let text = match entry_at(&workspace, &path)?.ok_or_else(|| missing(&path))? {
        Entry::Folder if recursive => {
            remove_tree(dir, path.as_path()).map_err(|removal| match removal {
                Removal::TooDeep => refusal(format!(
                    "Refused: \"{shown}\" holds entries more than {DEPTH_LIMIT} levels below it; delete_path deletes folders at most {DEPTH_LIMIT} levels deep, and nothing was deleted. Delete its deepest folders first."
                )),
                Removal::Failed(error) => io_refusal(&path, &error),
            })?;
            format!("Deleted the folder \"{shown}\" and everything in it.")
        }
        Entry::Folder => {
            dir.remove_dir(path.as_path()).map_err(|error| {
                if error.kind() == std::io::ErrorKind::DirectoryNotEmpty {
                    refusal(format!(
                        "\"{shown}\" is a folder with something in it; pass recursive: true to delete it and everything in it."
                    ))
                } else {
                    io_refusal(&path, &error)
                }
            })?;
            format!("Deleted the empty folder \"{shown}\".")
        }
        Entry::Link => {
            dir.remove_file(path.as_path())
                .map_err(|error| io_refusal(&path, &error))?;
            format!("Deleted the link \"{shown}\"; what it pointed to is untouched.")
        }
        Entry::File(size) => {
            dir.remove_file(path.as_path())
                .map_err(|error| io_refusal(&path, &error))?;
            format!("Deleted \"{shown}\" ({}).", bytes(size))
        }
    };
    Ok(ToolResult::text(text))
}

/// Why a recursive delete stopped.
enum Removal {
    /// Something lies more than [`DEPTH_LIMIT`] levels down; nothing was deleted.
    TooDeep,
    Failed(std::io::Error),
}

impl From<std::io::Error> for Removal {
    fn from(error: std::io::Error) -> Self {
        Self::Failed(error)
    }
}

/// Deletes the folder at `path` and everything in it. Every folder is opened from its parent's
/// handle without following a link, and every entry is deleted by name through the handle of
/// its folder (a link is deleted itself), so a folder swapped for a link meanwhile cannot lead
/// the delete anywhere. It keeps its place on the heap and holds at most [`DEPTH_LIMIT`] + 1
/// handles: a folder with anything deeper is refused before anything is deleted.
fn remove_tree(dir: &Dir, path: &Path) -> Result<(), Removal> {
    visit_tree(open_folder(dir, path)?, &mut |_, _| Ok(()), &mut |_, _| {
        Ok(())
    })?;
    visit_tree(
        open_folder(dir, path)?,
        &mut |folder, name| folder.remove_file(name),
        &mut |parent, name| parent.remove_dir(name),
    )?;
    dir.remove_dir(path)?;
    Ok(())
}

/// One folder of a tree being visited: its handle, its name in its parent, and the entries
/// (name, whether a folder) it has yet to visit.
struct Level {
    folder: Dir,
    name: OsString,
    entries: std::vec::IntoIter<(OsString, bool)>,
}

/// Visits everything below `top`, depth first: `file` for each entry that is not a folder,
/// with the handle of its folder, and `done` for each folder once its entries are visited, with
/// the handle of its parent. Fails with [`Removal::TooDeep`] on meeting an entry more than
/// [`DEPTH_LIMIT`] levels below `top`.
fn visit_tree(
    top: Dir,
    file: &mut dyn FnMut(&Dir, &OsStr) -> std::io::Result<()>,
    done: &mut dyn FnMut(&Dir, &OsStr) -> std::io::Result<()>,
) -> Result<(), Removal> {
    let listing = |folder: Dir, name: OsString| -> std::io::Result<Level> {
        let mut entries = Vec::new();
        for entry in folder.entries()? {
            let entry = entry?;
            let is_folder = entry.file_type()?.is_dir();
            entries.push((entry.file_name(), is_folder));
        }
        Ok(Level {
            folder,
            name,
            entries: entries.into_iter(),
        })
    };
    let mut stack = vec![listing(top, OsString::new())?];
    while let Some(level) = stack.last_mut() {
        match level.entries.next() {
            Some((name, true)) => {
                let below = listing(open_folder(&level.folder, Path::new(&name))?, name)?;
                // The new folder's entries are `stack.len() + 1` levels below `top`.
                if stack.len() >= DEPTH_LIMIT && below.entries.len() > 0 {
                    return Err(Removal::TooDeep);
                }
                stack.push(below);
            }
            Some((name, false)) => file(&level.folder, &name)?,
            None => {
                if let Some(finished) = stack.pop()
                    && let Some(parent) = stack.last()
                {
                    done(&parent.folder, &finished.name)?;
                }
            }
        }
    }
    Ok(())
}

fn bytes(size: u64) -> String {
    if size == 1 {
        "1 byte".to_owned()
    } else {
        format!("{size} bytes")
    }
}

/// Moves or renames a file, link or folder inside the workspace. An existing file at `to` is
/// replaced only with `overwrite: true`; a folder never replaces anything.
#[tool(group = "writers", requires_approval, enabled_by_default = false)]
pub fn move_path(
    /// What to move, relative to the workspace root.
    from: String,
    /// Where it goes, relative to the workspace root (its folder must exist).
    to: String,
    /// Replace a file at `to`.
    #[arg(default = false)]
    overwrite: bool,
    context: &ToolContext,
) -> ToolResult {
    settle(move_path_in(context, &from, &to, overwrite))
}

fn move_path_in(
    context: &ToolContext,
    from: &str,
    to: &str,
    overwrite: bool,
) -> Result<ToolResult, ToolResult> {
    let workspace = Workspace::open(context)?;
    // A rename moves a last link itself, never what it points to.
    let from = file_path(&workspace, from, false)?;
    let to = file_path(&workspace, to, false)?;
    let source = entry_at(&workspace, &from)?.ok_or_else(|| missing(&from))?;
    if let Some(target) = entry_at(&workspace, &to)? {
        if matches!(target, Entry::Folder) || matches!(source, Entry::Folder) {
            return Err(refusal(format!(
                "\"{}\" exists; a folder is never moved onto, or replaced by, another path. Move it to a path that does not exist yet.",
                to.shown()
            )));
        }
        if !overwrite {
            return Err(refusal(format!(
                "\"{}\" exists; pass overwrite: true to replace it.",
                to.shown()
            )));
        }
    }
    let dir = workspace.dir();
    dir.rename(from.as_path(), dir, to.as_path())
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => refusal(format!(
                "The folder of \"{}\" does not exist; create it with create_directory first.",
                to.shown()
            )),
            _ => io_refusal(&to, &error),
        })?;
    Ok(ToolResult::text(format!(
        "Moved \"{}\" to \"{}\".",
        from.shown(),
        to.shown()
    )))
}

/// Copies a file inside the workspace (one file; folders are not copied). An existing file at
/// `to` is replaced only with `overwrite: true`.
#[tool(group = "writers", requires_approval, enabled_by_default = false)]
pub fn copy_path(
    /// The file to copy, relative to the workspace root.
    from: String,
    /// The copy's path, relative to the workspace root (its folder must exist).
    to: String,
    /// Replace a file at `to`.
    #[arg(default = false)]
    overwrite: bool,
    context: &ToolContext,
) -> ToolResult {
    settle(copy_path_in(context, &from, &to, overwrite))
}

fn copy_path_in(
    context: &ToolContext,
    from: &str,
    to: &str,
    overwrite: bool,
) -> Result<ToolResult, ToolResult> {
    let workspace = Workspace::open(context)?;
    let from = file_path(&workspace, from, true)?;
    let to = file_path(&workspace, to, true)?;
    let source = workspace.open_file(&from).map_err(|refused| {
        if matches!(entry_at(&workspace, &from), Ok(Some(Entry::Folder))) {
            refusal(format!(
                "\"{}\" is a folder; copy_path copies one file, so copy its files one by one.",
                from.shown()
            ))
        } else {
            refused
        }
    })?;
    let size = source
        .metadata()
        .map_err(|error| io_refusal(&from, &error))?
        .len();
    if size > COPY_LIMIT {
        return Err(ToolResult::error(format!(
            "Error: \"{}\" is {size} bytes; the limit is {COPY_LIMIT}.",
            from.shown()
        )));
    }
    let mut target = open_target(&workspace, &to, overwrite)?;
    // The same file under two names (`a.txt`, `./a.txt`, a folder link): truncating the target
    // would empty the source.
    #[cfg(unix)]
    {
        use cap_std::fs::MetadataExt as _;
        let identity = |metadata: std::io::Result<cap_std::fs::Metadata>| {
            metadata.map(|data| (data.dev(), data.ino())).ok()
        };
        if identity(source.metadata()) == identity(target.metadata()) {
            return Err(refusal(format!(
                "\"{}\" and \"{}\" are the same file; nothing was copied. Give a `to` that names another file.",
                from.shown(),
                to.shown()
            )));
        }
    }
    target
        .set_len(0)
        .and_then(|()| std::io::copy(&mut source.take(COPY_LIMIT), &mut target))
        .map_err(|error| io_refusal(&to, &error))?;
    Ok(ToolResult::text(format!(
        "Copied \"{}\" to \"{}\" ({}).",
        from.shown(),
        to.shown(),
        bytes(size)
    )))
}

/// Most edits one `edit_file` call makes.
const MAX_EDITS: usize = 50;

/// One replacement in a file.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Edit {
    /// The exact text to replace: it must occur exactly once in the file (as the earlier edits
    /// left it), so include enough of the lines around it.
    pub old_text: String,
    /// The text that replaces it.
    pub new_text: String,
}

/// Edits a text file in the workspace by exact replacements, applied in order; each old text
/// must occur exactly once. Shows the change as a unified diff. With `dry_run: true` nothing is
/// written.
#[tool(
    group = "writers",
    requires_approval,
    enabled_by_default = false,
    preview = "preview_edit"
)]
pub fn edit_file(
    /// The file, relative to the workspace root.
    path: String,
    /// The replacements, 1 to 50, applied in order.
    edits: Vec<Edit>,
    /// Only show the diff; leave the file as it is.
    #[arg(default = false)]
    dry_run: bool,
    context: &ToolContext,
) -> ToolResult {
    settle(edit_file_in(context, &path, &edits, dry_run))
}

/// Shows the unified diff `edit_file` would make with these edits, without writing anything
/// (and without an operator's approval).
#[tool(
    read_only,
    idempotent,
    group = "files",
    title = "Shows the diff an edit_file call would make"
)]
pub fn preview_edit(
    /// The file, relative to the workspace root.
    path: String,
    /// The replacements, 1 to 50, applied in order.
    edits: Vec<Edit>,
    /// Ignored: a preview never writes (accepted so that an `edit_file` call previews as is).
    #[arg(default = true)]
    dry_run: bool,
    context: &ToolContext,
) -> ToolResult {
    let _ = dry_run;
    settle(edit_file_in(context, &path, &edits, true))
}

fn edit_file_in(
    context: &ToolContext,
    path: &str,
    edits: &[Edit],
    dry_run: bool,
) -> Result<ToolResult, ToolResult> {
    if edits.is_empty() || edits.len() > MAX_EDITS {
        return Err(ToolResult::error(format!(
            "Error: give 1 to {MAX_EDITS} edits, not {}.",
            edits.len()
        )));
    }
    let workspace = Workspace::open(context)?;
    let path = file_path(&workspace, path, true)?;
    let mut options = writing();
    options.read(true);
    let mut file = workspace
        .dir()
        .open_with(path.as_path(), &options)
        .map_err(|error| open_refusal(&path, &error))?;
    check_writable(&file, &path)?;
    let mut bytes = Vec::new();
    (&mut file)
        .take(WRITE_LIMIT as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| io_refusal(&path, &error))?;
    if bytes.len() > WRITE_LIMIT {
        return Err(ToolResult::error(format!(
            "Error: \"{}\" is larger than {WRITE_LIMIT} bytes; edit_file edits smaller files.",
            path.shown()
        )));
    }
    let old = String::from_utf8(bytes).map_err(|_| not_utf8(&path))?;
    let new = apply_edits(&old, edits, &path)?;
    check_size(&new)?;
    let shown = path.shown();
    let (counts, unified) = line_diff(
        &old,
        &new,
        3,
        (&format!("a/{shown}"), &format!("b/{shown}")),
    );
    if !dry_run {
        file.set_len(0)
            .and_then(|()| file.seek(std::io::SeekFrom::Start(0)))
            .and_then(|_| file.write_all(new.as_bytes()))
            .map_err(|error| io_refusal(&path, &error))?;
    }
    let done = if dry_run {
        "would change (dry run, nothing written)"
    } else {
        "changed"
    };
    let summary = format!(
        "\"{shown}\" {done}: {}, {counts}:\n{}",
        plural(edits.len(), "edit", "edits"),
        unified.trim_end_matches('\n')
    );
    Ok(ToolResult::text_with(
        summary,
        [ToolArtifact::text(format!("Diff of {shown}"), unified)],
    ))
}

/// `text` with each edit applied in order, or the refusal naming the first edit whose old text
/// does not occur exactly once.
fn apply_edits(text: &str, edits: &[Edit], path: &RelativePath) -> Result<String, ToolResult> {
    let mut text = text.to_owned();
    for (index, edit) in edits.iter().enumerate() {
        let number = index + 1;
        if edit.old_text.is_empty() {
            return Err(refusal(format!(
                "Edit {number}: old_text is empty; give the exact text to replace."
            )));
        }
        let Some(at) = text.find(edit.old_text.as_str()) else {
            return Err(refusal(format!(
                "Edit {number}: old_text does not occur in \"{}\"{}; nothing was written. Read the file again (read_file) and copy old_text exactly from it.",
                path.shown(),
                if index > 0 {
                    " after the edits before it"
                } else {
                    ""
                }
            )));
        };
        // Overlapping occurrences count too: in "aaa", "aa" is at two places.
        let occurrences = occurrences(&text, &edit.old_text);
        if occurrences > 1 {
            return Err(refusal(format!(
                "Edit {number}: old_text occurs {occurrences} times in \"{}\"; include more of the text around it so that it occurs once. Nothing was written.",
                path.shown()
            )));
        }
        text.replace_range(at..at + edit.old_text.len(), &edit.new_text);
    }
    Ok(text)
}

/// How many times `needle` (not empty) occurs in `text`, overlaps included.
fn occurrences(text: &str, needle: &str) -> usize {
    let step = needle.chars().next().map_or(1, char::len_utf8);
    let mut count = 0;
    let mut from = 0;
    while let Some(at) = text[from..].find(needle) {
        count += 1;
        from += at + step;
    }
    count
}

//! Read-only tools over the git repository of the workspace: status, log, show, diff and blame,
//! read with [`gix`] and never written to.
//!
//! The repository is the workspace's own: a `.git` folder directly in the workspace root. A
//! `.git` that is a symbolic link or a `gitdir:` file, a linked work tree (`commondir`),
//! borrowed object stores (`objects/info/alternates`), a git folder or work tree that resolves
//! outside the root, or a git folder holding anything but plain files and folders (a link, a
//! FIFO, a socket or a device anywhere in it) is refused. The repository is opened isolated: no
//! system, global or user configuration, no environment variables, no `include` files; a
//! repository configuration that names an excludes or attributes file (which would be read from
//! wherever it points) is refused too.
//!
//! **Nothing runs.** No configured command is ever started, whatever the repository's
//! configuration says: the repository is opened with no configuration section trusted for
//! programs, so `filter.<driver>.clean`, `.smudge` and `.process`, `diff.<driver>.textconv`
//! and `.command`, and every other key naming a program are ignored (gix has no hooks, and
//! fsmonitor is not built in).
//!
//! **Bounded work.** A repository may be hostile: a tree of a billion paths made of a few
//! kilobytes of objects, a blob of a gigabyte that compresses to a megabyte. Every object a
//! call reads goes through `Objects`, which refuses an object larger than its kind's limit
//! before decompressing it, counts reads against a budget, and stops the call's work once its
//! caller stops waiting ([`ToolContext::is_cancelled`]); trees are read up to
//! [`ENTRY_LIMIT`] entries, the index up to [`INDEX_LIMIT`] bytes, and a work tree file is
//! compared up to [`WORK_FILE_LIMIT`] bytes.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use gix::bstr::{BStr, ByteSlice};
use gix::hash::ObjectId;
use gix::objs::tree::EntryKind;
use toolkit::{Table, ToolArtifact, ToolContext, ToolResult, tool};

use crate::resources::WorkspaceRoot;
use crate::shared::{
    Listing, PAGE_LIMIT, cancelled, check_range, cut, line_diff, looks_binary, plural, refusal,
    settle, table_error,
};
use crate::workspace::{RelativePath, Workspace};

/// The fix a refusal of the whole repository names: the files are still there to read.
macro_rules! file_tools_instead {
    () => {
        " Read the work tree with the file tools (read_file, search_files) instead."
    };
}

/// What every tool answers when the workspace root holds no `.git`.
pub const NOT_A_REPOSITORY: &str = concat!(
    "Refused: the workspace is not a git repository (there is no `.git` folder in its root).",
    file_tools_instead!()
);
/// What every tool answers when `.git` is a symbolic link.
pub const GIT_LINK: &str = concat!(
    "Refused: `.git` in the workspace root is a symbolic link; only a `.git` folder directly in the workspace is read.",
    file_tools_instead!()
);
/// What every tool answers when `.git` is a file (a `gitdir:` pointer to a repository elsewhere).
pub const GIT_FILE: &str = concat!(
    "Refused: `.git` in the workspace root is a file pointing to a repository elsewhere; only a `.git` folder directly in the workspace is read.",
    file_tools_instead!()
);
/// What every tool answers when the repository reaches outside the workspace.
pub const GIT_OUTSIDE: &str = concat!(
    "Refused: the repository's git folder or work tree lies outside the workspace, or it borrows objects from elsewhere.",
    file_tools_instead!()
);

/// What the tools that compare the work tree or the index name as the fix when they cannot.
const HISTORY_INSTEAD: &str = "git_log, git_show and git_diff between commits still work.";

/// What every tool answers when the git folder holds a link, a FIFO, a socket or a device.
fn not_plain(path: &Path, kind: &str) -> ToolResult {
    refusal(format!(
        concat!(
            "Refused: `{}` in the repository is {}; the git tools read only a git folder of plain files and folders.",
            file_tools_instead!()
        ),
        path.display(),
        kind
    ))
}

/// Most files and folders one tree (with its subtrees) may have, and the index: a larger one
/// is refused.
pub const ENTRY_LIMIT: usize = 200_000;
/// Largest index file read, in bytes.
pub const INDEX_LIMIT: u64 = 32 * 1024 * 1024;
/// Largest work tree file compared with the index, in bytes (a tracked file of the index's
/// size past it is refused, since comparing means reading it whole).
pub const WORK_FILE_LIMIT: u64 = 64 * 1024 * 1024;
/// Largest commit, tag or tree object read, in bytes.
const OBJECT_LIMIT: u64 = 16 * 1024 * 1024;
/// Most objects one call reads.
const READ_LIMIT: usize = 4_000_000;
/// How many object reads apart a git tool reports its progress (reads so far; a read does not
/// know how many more a walk needs).
const PROGRESS_EVERY: usize = 256;
/// Most objects one call of `git_blame` reads: gix's blame compares whole trees, and what it
/// has yet to compare grows with what it reads on a tree of billions of paths.
const BLAME_READ_LIMIT: usize = 100_000;
/// Most entries of the git folder looked at when it is checked.
const GIT_FOLDER_LIMIT: usize = 1_000_000;

/// The stack of the thread that compares the work tree with the index: gix walks the work
/// tree recursively, a frame per folder level, and a chain of 2 000 folders (as deep as paths
/// go) needs more than a worker's 2 MiB.
const WORK_TREE_STACK: usize = 16 * 1024 * 1024;

/// `work`'s result, worked out on a thread of its own with [`WORK_TREE_STACK`] bytes of
/// stack (the calling worker waits for it; the call's cancellation reaches it through the
/// context it borrows).
fn on_large_stack(work: impl FnOnce() -> Result<ToolResult, ToolResult> + Send) -> ToolResult {
    std::thread::scope(|scope| {
        let started = std::thread::Builder::new()
            .name("toolkit-git-work-tree".to_owned())
            .stack_size(WORK_TREE_STACK)
            .spawn_scoped(scope, work);
        match started {
            Ok(thread) => settle(
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            ),
            Err(error) => failed("no thread could be started", error),
        }
    })
}

/// Longest revision accepted, in bytes.
const REVISION_LIMIT: usize = 256;
/// Characters of the short commit ids shown.
const SHORT_ID: usize = 12;
/// Commits `git_log` walks before it stops.
const WALK_LIMIT: usize = 10_000;
/// Changed files a diff looks at; more are counted and said.
const FILE_LIMIT: usize = 1_000;
/// Largest side of a file diffed, in bytes; a larger file is said to have changed.
const BLOB_LIMIT: usize = 1024 * 1024;
/// Bytes of diff text put in the content; files past it are listed as left out.
const CONTENT_DIFF_LIMIT: usize = 40_000;
/// Bytes of diff text put in the text artifact.
const ARTIFACT_DIFF_LIMIT: usize = 4 * 1024 * 1024;
/// Longest line of `git_blame` shown, in characters.
const BLAME_LINE_LIMIT: usize = 500;
/// Longest subject `git_log` shows, in characters.
const SUBJECT_LIMIT: usize = 200;

/// The repository of the workspace, opened and checked, with the workspace it lives in.
struct Opened {
    workspace: Workspace,
    /// The workspace root, resolved.
    root: PathBuf,
    repo: gix::Repository,
}

/// Why [`Objects`] stopped giving objects.
#[derive(Clone, Copy)]
enum Stop {
    /// The call's caller stopped waiting.
    Cancelled,
    /// The call read [`READ_LIMIT`] objects.
    Reads,
    /// An object past its kind's limit: its kind and size.
    TooLarge(gix::objs::Kind, u64),
}

/// The repository's objects as one call reads them: each read stops once the caller stops
/// waiting, counts against [`READ_LIMIT`], and refuses an object larger than its kind's limit
/// (a blob: `blob_limit`; others: [`OBJECT_LIMIT`]) from its header, before decompressing it.
/// Once it stops, every later read fails too, and [`stopped`](Self::stopped) says why.
struct Objects<'a> {
    odb: &'a gix::OdbHandle,
    context: &'a ToolContext,
    blob_limit: u64,
    read_limit: usize,
    reads: Cell<usize>,
    stop: Cell<Option<Stop>>,
}

impl<'a> Objects<'a> {
    /// The objects of `repo` for one call of a tool, reading blobs up to [`BLOB_LIMIT`] and
    /// at most [`READ_LIMIT`] objects.
    fn new(repo: &'a gix::Repository, context: &'a ToolContext) -> Self {
        Self {
            odb: &repo.objects,
            context,
            blob_limit: BLOB_LIMIT as u64,
            read_limit: READ_LIMIT,
            reads: Cell::new(0),
            stop: Cell::new(None),
        }
    }

    /// The same, reading at most `reads` objects.
    fn reading_at_most(mut self, reads: usize) -> Self {
        self.read_limit = reads;
        self
    }

    /// The largest object of this kind read.
    fn limit(&self, kind: gix::objs::Kind) -> u64 {
        if kind == gix::objs::Kind::Blob {
            self.blob_limit
        } else {
            OBJECT_LIMIT
        }
    }

    /// The kind of an object, refused (and reads stopped) when it is larger than its kind's
    /// limit: checked before a high-level read of gix's reads it whole.
    fn fits(&self, id: &gix::hash::oid) -> Result<gix::objs::Kind, ToolResult> {
        let header = self.header(id)?;
        if header.size > self.limit(header.kind) {
            self.stop
                .set(Some(Stop::TooLarge(header.kind, header.size)));
            return Err(self.failure("an object cannot be read", "too large"));
        }
        Ok(header.kind)
    }

    /// Why reads stopped, if they did.
    fn stopped(&self) -> Option<Stop> {
        self.stop.get()
    }

    /// The error a read gives once reads stop.
    fn stopping(&self, stop: Stop) -> gix::Error {
        self.stop.set(Some(stop));
        gix::error::message("the call's budget for reading the repository is spent").into()
    }

    /// Checks the call is waited for and its budget holds, counting one read.
    fn charge(&self) -> Result<(), gix::Error> {
        if let Some(stop) = self.stop.get() {
            return Err(self.stopping(stop));
        }
        if self.context.is_cancelled() {
            return Err(self.stopping(Stop::Cancelled));
        }
        let reads = self.reads.get() + 1;
        if reads > self.read_limit {
            return Err(self.stopping(Stop::Reads));
        }
        self.reads.set(reads);
        if reads.is_multiple_of(PROGRESS_EVERY) {
            self.context
                .progress(reads as u64, None, "objects of the repository read");
        }
        Ok(())
    }

    /// What a failure of `what` means as a result: the budget's refusal when reads stopped,
    /// else gix's error.
    fn failure(&self, what: &str, error: impl std::fmt::Display) -> ToolResult {
        match self.stopped() {
            None => failed(what, error),
            Some(Stop::Cancelled) => cancelled(),
            Some(Stop::Reads) => refusal(format!(
                "Refused: this needs more than {} reads of the repository's objects; the git tools stop there. Narrow the call to a path or a more recent revision.",
                self.read_limit
            )),
            Some(Stop::TooLarge(kind, size)) => refusal(format!(
                "Refused: the repository holds a {kind} of {size} bytes on the way; the git tools read a {kind} of at most {} bytes. Narrow the call to a path or revision that avoids it.",
                self.limit(kind)
            )),
        }
    }

    /// The kind and size of an object, from its header.
    fn header(&self, id: &gix::hash::oid) -> Result<gix::objs::Header, ToolResult> {
        use gix::objs::FindHeader as _;
        match self.try_header(id) {
            Ok(Some(header)) => Ok(header),
            Ok(None) => Err(failed("an object is missing", id)),
            Err(error) => Err(self.failure("an object cannot be read", error)),
        }
    }
}

impl gix::objs::Find for Objects<'_> {
    fn try_find<'b>(
        &self,
        id: &gix::hash::oid,
        buffer: &'b mut Vec<u8>,
    ) -> Result<Option<gix::objs::Data<'b>>, gix::Error> {
        use gix::objs::FindHeader as _;
        self.charge()?;
        let Some(header) = self.odb.try_header(id)? else {
            return Ok(None);
        };
        if header.size > self.limit(header.kind) {
            return Err(self.stopping(Stop::TooLarge(header.kind, header.size)));
        }
        self.odb.try_find(id, buffer)
    }
}

impl gix::objs::FindHeader for Objects<'_> {
    fn try_header(&self, id: &gix::hash::oid) -> Result<Option<gix::objs::Header>, gix::Error> {
        self.charge()?;
        self.odb.try_header(id)
    }
}

/// A failure inside gix, as an error result.
fn failed(what: &str, error: impl std::fmt::Display) -> ToolResult {
    ToolResult::error(format!("Error: {what}: {error}."))
}

/// Whether `path`, resolved, lies in `root` (itself resolved).
fn resolves_inside(path: &Path, root: &Path) -> bool {
    std::fs::canonicalize(path).is_ok_and(|real| real.starts_with(root))
}

/// Opens the repository of the run's workspace, refusing anything that is not a `.git` folder
/// directly in the root, or that reaches outside it.
fn open(context: &ToolContext) -> Result<Opened, ToolResult> {
    let workspace = Workspace::open(context)?;
    let root = context
        .extension::<WorkspaceRoot>()
        .map(WorkspaceRoot::path)
        .ok_or_else(|| ToolResult::error(crate::resources::NO_WORKSPACE))?;
    let root = std::fs::canonicalize(root).map_err(|error| {
        ToolResult::error(format!(
            "Error: the workspace folder cannot be opened: {error}."
        ))
    })?;
    let dot_git = root.join(".git");
    let metadata = match std::fs::symlink_metadata(&dot_git) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(refusal(NOT_A_REPOSITORY));
        }
        Err(error) => return Err(failed("cannot read `.git`", error)),
    };
    if metadata.file_type().is_symlink() {
        return Err(refusal(GIT_LINK));
    }
    if !metadata.is_dir() {
        return Err(refusal(GIT_FILE));
    }
    for borrowed in ["commondir", "objects/info/alternates"] {
        if std::fs::symlink_metadata(dot_git.join(borrowed)).is_ok() {
            return Err(refusal(GIT_OUTSIDE));
        }
    }
    for part in ["objects", "refs", "index", "HEAD", "config", "packed-refs"] {
        let path = dot_git.join(part);
        if std::fs::symlink_metadata(&path).is_ok() && !resolves_inside(&path, &dot_git) {
            return Err(refusal(GIT_OUTSIDE));
        }
    }
    check_plain(&dot_git, context)?;
    if let Ok(index) = std::fs::symlink_metadata(dot_git.join("index"))
        && index.len() > INDEX_LIMIT
    {
        return Err(refusal(format!(
            concat!(
                "Refused: the repository's index is {} bytes; the git tools read an index of at most {} bytes.",
                file_tools_instead!()
            ),
            index.len(),
            INDEX_LIMIT
        )));
    }
    // No configuration section is trusted for programs or paths: no filter, textconv or diff
    // command, credential helper or editor it names is ever started.
    let options = gix::open::Options::isolated().filter_config_section(|_| false);
    let repo = gix::open_opts(&root, options)
        .map_err(|error| failed("the repository cannot be opened", error))?;
    let inside = std::fs::canonicalize(repo.git_dir()).is_ok_and(|real| real == dot_git)
        && std::fs::canonicalize(repo.common_dir()).is_ok_and(|real| real == dot_git)
        && repo
            .workdir()
            .and_then(|workdir| std::fs::canonicalize(workdir).ok())
            .is_some_and(|real| real == root);
    if !inside {
        return Err(refusal(GIT_OUTSIDE));
    }
    let config = repo.config_snapshot();
    for key in ["core.excludesFile", "core.attributesFile"] {
        if config.string(key).is_some() {
            return Err(refusal(format!(
                concat!(
                    "Refused: the repository's configuration sets `{}`, a file these tools do not read.",
                    file_tools_instead!()
                ),
                key
            )));
        }
    }
    Ok(Opened {
        workspace,
        root,
        repo,
    })
}

/// Refuses a git folder holding anything but plain files and folders: a link (to another
/// repository's objects or packs, to an ignore or attributes file elsewhere), a FIFO that would
/// block a read forever, a socket or a device. Walked without following links, iteratively.
fn check_plain(dot_git: &Path, context: &ToolContext) -> Result<(), ToolResult> {
    let mut folders: Vec<PathBuf> = vec![PathBuf::new()];
    let mut seen = 0_usize;
    while let Some(relative) = folders.pop() {
        if context.is_cancelled() {
            return Err(cancelled());
        }
        let entries = std::fs::read_dir(dot_git.join(&relative))
            .map_err(|error| failed("the git folder cannot be read", error))?;
        for entry in entries {
            let entry = entry.map_err(|error| failed("the git folder cannot be read", error))?;
            seen += 1;
            if seen > GIT_FOLDER_LIMIT {
                return Err(refusal(format!(
                    concat!(
                        "Refused: the git folder holds more than {} files and folders; the git tools stop there.",
                        file_tools_instead!()
                    ),
                    GIT_FOLDER_LIMIT
                )));
            }
            let kind = entry
                .file_type()
                .map_err(|error| failed("the git folder cannot be read", error))?;
            let path = relative.join(entry.file_name());
            if kind.is_dir() {
                folders.push(path);
            } else if !kind.is_file() {
                let what = if kind.is_symlink() {
                    "a symbolic link"
                } else {
                    special_kind(kind)
                };
                return Err(not_plain(&Path::new(".git").join(path), what));
            }
        }
    }
    Ok(())
}

/// What a file that is neither a regular file, a folder nor a link is.
#[cfg(unix)]
fn special_kind(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a device"
    }
}

/// What a file that is neither a regular file, a folder nor a link is.
#[cfg(not(unix))]
fn special_kind(_: std::fs::FileType) -> &'static str {
    "not a regular file"
}

/// Annotated tags followed from a revision to its commit.
const TAG_HOPS: usize = 16;

/// The commit a revision names, refused when there is none; every object on the way checked
/// for its size before it is read.
fn commit_of<'repo>(
    repo: &'repo gix::Repository,
    objects: &Objects<'_>,
    revision: &str,
) -> Result<gix::Commit<'repo>, ToolResult> {
    if revision.is_empty() || revision.len() > REVISION_LIMIT || revision.contains('\0') {
        return Err(ToolResult::error(format!(
            "Error: a revision is 1 to {REVISION_LIMIT} bytes without NUL, not \"{}\".",
            cut(&revision.escape_debug().to_string(), 40)
        )));
    }
    let mut id = repo
        .rev_parse_single(revision)
        .map_err(|_| {
            ToolResult::error(format!(
                "Error: the revision \"{revision}\" does not exist in the repository."
            ))
        })?
        .detach();
    let not_a_commit = || {
        ToolResult::error(format!(
            "Error: the revision \"{revision}\" is not a commit."
        ))
    };
    for _ in 0..TAG_HOPS {
        match objects.fits(&id)? {
            gix::objs::Kind::Commit => {
                return repo
                    .find_commit(id)
                    .map_err(|error| objects.failure("a commit cannot be read", error));
            }
            gix::objs::Kind::Tag => {
                id = repo
                    .find_tag(id)
                    .map_err(|error| objects.failure("a tag cannot be read", error))?
                    .target_id()
                    .map_err(|_| not_a_commit())?
                    .detach();
            }
            _ => return Err(not_a_commit()),
        }
    }
    Err(not_a_commit())
}

/// A commit id, shortened.
fn short(id: &gix::hash::oid) -> String {
    id.to_hex_with_len(SHORT_ID).to_string()
}

/// Seconds since the epoch as `YYYY-MM-DD HH:MM`, UTC.
fn utc_minute(seconds: i64) -> String {
    jiff::Timestamp::from_second(seconds).map_or_else(
        |_| format!("@{seconds}"),
        |time| time.strftime("%Y-%m-%d %H:%M").to_string(),
    )
}

/// A commit's author and date (`Name <email>`, UTC minute).
fn author_and_date(commit: &gix::Commit<'_>) -> Result<(String, String, String), ToolResult> {
    let author = commit
        .author()
        .map_err(|error| failed("a commit's author cannot be read", error))?;
    Ok((
        author.name.trim().to_str_lossy().into_owned(),
        author.email.trim().to_str_lossy().into_owned(),
        utc_minute(author.seconds()),
    ))
}

/// A model's path limiting a listing: `None` for the whole repository.
fn path_filter(path: &str) -> Result<Option<RelativePath>, ToolResult> {
    let path = RelativePath::parse(path)?;
    Ok((!path.is_root()).then_some(path))
}

/// Whether repository path `candidate` is `filter` or lies below it.
fn under(candidate: &str, filter: Option<&RelativePath>) -> bool {
    filter.is_none_or(|filter| {
        let filter = filter.shown();
        candidate == filter
            || candidate
                .strip_prefix(filter)
                .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// The changes in the work tree and the index against HEAD, one row per path: staged (added,
/// modified, deleted, renamed) and unstaged (modified, deleted, untracked) changes. Files the
/// `.gitignore` files ignore are not listed.
#[tool(read_only, idempotent, group = "git")]
pub fn git_status(
    /// The first path to show, counted from 0 in path order (for the next page).
    #[arg(default = 0)]
    offset: usize,
    /// Most paths to show (1 to 200).
    #[arg(default = 50)]
    limit: usize,
    context: &ToolContext,
) -> ToolResult {
    if let Err(result) = check_range("limit", limit, 1, PAGE_LIMIT) {
        return result;
    }
    on_large_stack(|| status_in(context, offset, limit))
}

/// The branch HEAD is on, or `detached HEAD at <id>`.
fn branch(repo: &gix::Repository) -> Result<String, ToolResult> {
    let name = repo
        .head_name()
        .map_err(|error| failed("HEAD cannot be read", error))?;
    if let Some(name) = name {
        return Ok(format!("on branch {}", name.shorten()));
    }
    let id = repo
        .head_id()
        .map_err(|error| failed("HEAD cannot be read", error))?;
    Ok(format!("at detached HEAD {}", short(&id)))
}

/// The index, refused past [`ENTRY_LIMIT`] entries.
fn bounded_index(repo: &gix::Repository) -> Result<gix::worktree::Index, ToolResult> {
    let index = repo
        .index_or_empty()
        .map_err(|error| failed("the index cannot be read", error))?;
    if index.entries().len() > ENTRY_LIMIT {
        return Err(refusal(format!(
            "Refused: the index has {} entries; the git tools read an index of at most {ENTRY_LIMIT}. {HISTORY_INSTEAD}",
            index.entries().len()
        )));
    }
    Ok(index)
}

/// What comparing the work tree with the index needs bounded first: HEAD's tree (which gix
/// makes into an index whole), the index, and every tracked file gix may read to compare it (a
/// regular file of the size the index records, past [`WORK_FILE_LIMIT`], is refused).
fn check_status_inputs(
    repo: &gix::Repository,
    objects: &Objects<'_>,
    root: &Path,
    with_head: bool,
) -> Result<(), ToolResult> {
    if with_head {
        let head = repo
            .head_tree_id_or_empty()
            .map_err(|error| failed("HEAD cannot be read", error))?;
        tree_files(objects, &head, None, "HEAD")?;
    }
    let index = bounded_index(repo)?;
    for entry in index.entries() {
        if objects.context.is_cancelled() {
            return Err(cancelled());
        }
        if entry.mode != gix::index::entry::Mode::FILE
            && entry.mode != gix::index::entry::Mode::FILE_EXECUTABLE
        {
            continue;
        }
        let path = entry.path(&index).to_str_lossy();
        // A path of the index that is not a plain relative path (`..`, absolute) names nothing
        // of the workspace, and nothing outside it is looked at.
        let Ok(relative) = RelativePath::parse(&path) else {
            continue;
        };
        let Ok(metadata) = std::fs::symlink_metadata(root.join(relative.as_path())) else {
            continue;
        };
        // The index keeps sizes modulo 2^32; gix reads a file whose size agrees.
        #[expect(clippy::cast_possible_truncation, reason = "as the index records it")]
        let recorded = metadata.len() as u32;
        if metadata.is_file() && metadata.len() > WORK_FILE_LIMIT && recorded == entry.stat.size {
            return Err(refusal(format!(
                "Refused: \"{path}\" in the work tree is {} bytes; the git tools compare files of at most {WORK_FILE_LIMIT} bytes. {HISTORY_INSTEAD}",
                metadata.len()
            )));
        }
    }
    Ok(())
}

fn status_in(context: &ToolContext, offset: usize, limit: usize) -> Result<ToolResult, ToolResult> {
    let Opened { repo, root, .. } = open(context)?;
    let objects = Objects::new(&repo, context);
    check_status_inputs(&repo, &objects, &root, true)?;
    let unreadable = |error: gix::Error| failed("the status cannot be computed", error);
    let items = repo
        .status(gix::progress::Discard)
        .map_err(unreadable)?
        .should_interrupt_owned(context.cancel_flag())
        .untracked_files(gix::status::UntrackedFiles::Files)
        .index_worktree_rewrites(None)
        .index_worktree_submodules(None)
        // Renames whose content is unchanged: finding similar content would read both sides
        // of every pair whole, whatever their size.
        .tree_index_track_renames(gix::status::tree_index::TrackRenames::Given(
            gix::diff::Rewrites {
                percentage: None,
                ..gix::diff::Rewrites::default()
            },
        ))
        .into_iter(Vec::new())
        .map_err(unreadable)?;
    let rows = status_rows(items)?;
    // Interrupted, gix ends early: what it gave is not the whole status.
    if context.is_cancelled() {
        return Err(cancelled());
    }
    let branch = branch(&repo)?;
    if rows.is_empty() {
        return Ok(ToolResult::text(format!(
            "The work tree is clean ({branch})."
        )));
    }
    let head = format!(
        "{} {branch}:",
        plural(rows.len(), "changed path", "changed paths")
    );
    let mut listing = Listing::page(["path", "staged", "unstaged"], offset, limit);
    for (path, [staged, unstaged]) in rows {
        listing
            .push(
                vec![path, staged.to_owned(), unstaged.to_owned()],
                |cells| {
                    let states: Vec<String> = [("staged", &cells[1]), ("unstaged", &cells[2])]
                        .into_iter()
                        .filter(|(_, state)| !state.is_empty())
                        .map(|(side, state)| format!("{side}: {state}"))
                        .collect();
                    format!("- {} ({})", cells[0], states.join(", "))
                },
            )
            .map_err(|error| table_error(&error))?;
    }
    Ok(listing.finish(&head, "Git status"))
}

/// The status's items as rows: path to its staged and unstaged state.
fn status_rows(
    items: gix::status::Iter,
) -> Result<BTreeMap<String, [&'static str; 2]>, ToolResult> {
    let mut rows: BTreeMap<String, [&str; 2]> = BTreeMap::new();
    for item in items {
        let item = item.map_err(|error| failed("the status cannot be computed", error))?;
        if rows.len() > ENTRY_LIMIT {
            return Err(refusal(format!(
                "Refused: more than {ENTRY_LIMIT} paths changed; the git tools list at most that many. git_diff with a `path` shows the changes below one folder."
            )));
        }
        match item {
            gix::status::Item::TreeIndex(change) => {
                use gix::diff::index::ChangeRef;
                let (path, state) = match &change {
                    ChangeRef::Addition { location, .. } => (location.to_string(), "added"),
                    ChangeRef::Deletion { location, .. } => (location.to_string(), "deleted"),
                    ChangeRef::Modification { location, .. } => (location.to_string(), "modified"),
                    ChangeRef::Rewrite {
                        location,
                        source_location,
                        copy,
                        ..
                    } => {
                        if !copy {
                            rows.entry(source_location.to_string()).or_default()[0] = "deleted";
                        }
                        (
                            location.to_string(),
                            if *copy { "copied" } else { "renamed" },
                        )
                    }
                };
                rows.entry(path).or_default()[0] = state;
            }
            gix::status::Item::IndexWorktree(item) => {
                use gix::status::index_worktree::iter::Summary;
                let Some(summary) = item.summary() else {
                    continue;
                };
                let state = match summary {
                    Summary::Removed => "deleted",
                    Summary::Added => "untracked",
                    Summary::Modified => "modified",
                    Summary::TypeChange => "type changed",
                    Summary::Renamed => "renamed",
                    Summary::Copied => "copied",
                    Summary::IntentToAdd => "intent to add",
                    Summary::Conflict => "conflict",
                };
                let mut path = item.rela_path().to_string();
                if path.ends_with('/') {
                    path.pop();
                }
                rows.entry(path).or_default()[1] = state;
            }
        }
    }
    Ok(rows)
}

/// The commits reachable from a revision, newest first: short id, author, date (UTC) and
/// subject; with `path`, only the commits that changed that file or folder (a merge counts
/// when the path differs from every parent).
#[tool(read_only, idempotent, group = "git")]
pub fn git_log(
    /// The revision to start from: a branch, tag, commit id or expression such as `HEAD~3`.
    #[arg(default = "HEAD".to_owned())]
    revision: String,
    /// Only commits that changed this file or folder (relative to the workspace root); `.` for
    /// all.
    #[arg(default = ".".to_owned())]
    path: String,
    /// The first commit to show, counted from 0, newest first (for the next page).
    #[arg(default = 0)]
    offset: usize,
    /// Most commits to show (1 to 200).
    #[arg(default = 50)]
    limit: usize,
    context: &ToolContext,
) -> ToolResult {
    if let Err(result) = check_range("limit", limit, 1, PAGE_LIMIT) {
        return result;
    }
    settle(log_in(context, &revision, &path, offset, limit))
}

/// The id of what `path` names in a commit's tree, or `None` when the commit has no such path.
fn entry_at(
    objects: &Objects<'_>,
    commit: ObjectId,
    path: &Path,
) -> Result<Option<ObjectId>, ToolResult> {
    use gix::objs::FindExt as _;
    let mut buffer = Vec::new();
    let tree = objects
        .find_commit(&commit, &mut buffer)
        .map_err(|error| objects.failure("a commit cannot be read", error))?
        .tree();
    Ok(lookup(objects, &tree, path)?.map(|entry| entry.oid))
}

/// The entry `path` names in a tree, or `None` when there is none.
fn lookup(
    objects: &Objects<'_>,
    tree: &gix::hash::oid,
    path: &Path,
) -> Result<Option<gix::objs::tree::Entry>, ToolResult> {
    use gix::objs::FindExt as _;
    if tree.is_empty_tree() {
        return Ok(None);
    }
    let unreadable = |error: gix::Error| objects.failure("a tree cannot be read", error);
    let (mut tree_buffer, mut lookup_buffer) = (Vec::new(), Vec::new());
    objects
        .find_tree_iter(tree, &mut tree_buffer)
        .map_err(unreadable)?
        .lookup_entry_by_path(objects, &mut lookup_buffer, path)
        .map_err(unreadable)
}

fn log_in(
    context: &ToolContext,
    revision: &str,
    path: &str,
    offset: usize,
    limit: usize,
) -> Result<ToolResult, ToolResult> {
    let filter = path_filter(path)?;
    let Opened { repo, .. } = open(context)?;
    let objects = Objects::new(&repo, context);
    let start = commit_of(&repo, &objects, revision)?;
    let unreadable = |error: gix::Error| objects.failure("the history cannot be walked", error);
    let walk = gix::traverse::commit::Simple::new([start.id], &objects)
        .sorting(gix::traverse::commit::simple::Sorting::ByCommitTime(
            gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
        ))
        .map_err(unreadable)?;
    let mut listing = Listing::page(["commit", "author", "date", "subject"], offset, limit);
    let mut walked = 0;
    for info in walk {
        if walked == WALK_LIMIT {
            break;
        }
        walked += 1;
        let info = info.map_err(unreadable)?;
        if let Some(filter) = &filter {
            let here = entry_at(&objects, info.id, filter.as_path())?;
            let mut changed = here.is_some();
            for parent in &info.parent_ids {
                if entry_at(&objects, *parent, filter.as_path())? == here {
                    changed = false;
                }
            }
            if !changed {
                continue;
            }
        }
        let commit = repo.find_commit(info.id).map_err(unreadable)?;
        let (name, _, date) = author_and_date(&commit)?;
        let message = commit.message_raw_sloppy().to_str_lossy().into_owned();
        let subject = cut(message.lines().next().unwrap_or("").trim(), SUBJECT_LIMIT);
        listing
            .push(vec![short(&info.id), name, date, subject], |cells| {
                format!("- {} {} {}: {}", cells[0], cells[2], cells[1], cells[3])
            })
            .map_err(|error| table_error(&error))?;
    }
    let scope = match &filter {
        Some(filter) => format!(" that changed \"{}\"", filter.shown()),
        None => String::new(),
    };
    let stopped = if walked == WALK_LIMIT {
        format!(" (the walk stopped after {WALK_LIMIT} commits)")
    } else {
        String::new()
    };
    if listing.len() == 0 {
        return Ok(ToolResult::text(format!(
            "No commits reachable from \"{revision}\"{scope}{stopped}."
        )));
    }
    let head = format!(
        "{} reachable from \"{revision}\"{scope}, newest first{stopped}:",
        plural(listing.len(), "commit", "commits")
    );
    Ok(listing.finish(&head, "Git log"))
}

/// What a file is, as git records it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Executable,
    Link,
    Submodule,
}

impl Kind {
    fn of(kind: EntryKind) -> Option<Self> {
        match kind {
            EntryKind::Blob => Some(Self::File),
            EntryKind::BlobExecutable => Some(Self::Executable),
            EntryKind::Link => Some(Self::Link),
            EntryKind::Commit => Some(Self::Submodule),
            EntryKind::Tree => None,
        }
    }

    fn mode(self) -> &'static str {
        match self {
            Self::File => "100644",
            Self::Executable => "100755",
            Self::Link => "120000",
            Self::Submodule => "160000",
        }
    }
}

/// Where one side of a file's change is read from.
#[derive(Clone, PartialEq, Eq)]
enum Source {
    /// An object of the repository.
    Object(ObjectId),
    /// The file in the work tree.
    WorkTree,
}

/// One side of a change: what the file is and where its content is.
#[derive(Clone, PartialEq, Eq)]
struct Side {
    kind: Kind,
    source: Source,
}

/// One changed file.
struct FileChange {
    path: String,
    old: Option<Side>,
    new: Option<Side>,
}

/// A tree's entries as they are visited, up to [`ENTRY_LIMIT`] of them.
#[derive(Default)]
struct Bounded {
    recorder: gix::traverse::tree::Recorder,
    entries: usize,
}

impl Bounded {
    /// Counts an entry: whether the walk may go on.
    fn count(&mut self) -> bool {
        self.entries += 1;
        self.entries <= ENTRY_LIMIT
    }
}

impl gix::traverse::tree::Visit for Bounded {
    fn pop_back_tracked_path_and_set_current(&mut self) {
        self.recorder.pop_back_tracked_path_and_set_current();
    }

    fn pop_front_tracked_path_and_set_current(&mut self) {
        self.recorder.pop_front_tracked_path_and_set_current();
    }

    fn push_back_tracked_path_component(&mut self, component: &BStr) {
        self.recorder.push_back_tracked_path_component(component);
    }

    fn push_path_component(&mut self, component: &BStr) {
        self.recorder.push_path_component(component);
    }

    fn pop_path_component(&mut self) {
        self.recorder.pop_path_component();
    }

    fn visit_tree(
        &mut self,
        entry: &gix::objs::tree::EntryRef<'_>,
    ) -> gix::traverse::tree::visit::Action {
        if !self.count() {
            return std::ops::ControlFlow::Break(());
        }
        self.recorder.visit_tree(entry)
    }

    fn visit_nontree(
        &mut self,
        entry: &gix::objs::tree::EntryRef<'_>,
    ) -> gix::traverse::tree::visit::Action {
        if !self.count() {
            return std::ops::ControlFlow::Break(());
        }
        self.recorder.visit_nontree(entry)
    }
}

/// The files of a tree, path to side, below `filter`; a tree of more than [`ENTRY_LIMIT`]
/// files and folders (`what`'s) is refused.
fn tree_files(
    objects: &Objects<'_>,
    tree: &gix::hash::oid,
    filter: Option<&RelativePath>,
    what: &str,
) -> Result<BTreeMap<String, Side>, ToolResult> {
    use gix::objs::FindExt as _;
    if tree.is_empty_tree() {
        return Ok(BTreeMap::new());
    }
    let unreadable = |error: gix::Error| objects.failure("a tree cannot be read", error);
    let mut buffer = Vec::new();
    let root = objects
        .find_tree_iter(tree, &mut buffer)
        .map_err(unreadable)?;
    let mut visited = Bounded::default();
    let walked = gix::traverse::tree::breadthfirst(
        root,
        gix::traverse::tree::breadthfirst::State::default(),
        objects,
        &mut visited,
    );
    if visited.entries > ENTRY_LIMIT {
        return Err(refusal(format!(
            "Refused: the tree of {what} has more than {ENTRY_LIMIT} files and folders; the git tools read trees of at most that many. git_log still lists the commits."
        )));
    }
    walked.map_err(unreadable)?;
    Ok(visited
        .recorder
        .records
        .into_iter()
        .filter_map(|entry| {
            let kind = Kind::of(entry.mode.kind())?;
            let path = entry.filepath.to_str_lossy().into_owned();
            under(&path, filter).then_some((
                path,
                Side {
                    kind,
                    source: Source::Object(entry.oid),
                },
            ))
        })
        .collect())
}

/// The files of the index (unconflicted entries), path to side, below `filter`.
fn index_files(
    repo: &gix::Repository,
    filter: Option<&RelativePath>,
) -> Result<BTreeMap<String, Side>, ToolResult> {
    let index = bounded_index(repo)?;
    Ok(index
        .entries()
        .iter()
        .filter(|entry| entry.stage() == gix::index::entry::Stage::Unconflicted)
        .filter_map(|entry| {
            let kind = Kind::of(entry.mode.to_tree_entry_mode()?.kind())?;
            let path = entry.path(&index).to_str_lossy().into_owned();
            under(&path, filter).then_some((
                path,
                Side {
                    kind,
                    source: Source::Object(entry.id),
                },
            ))
        })
        .collect())
}

/// The changes from one map of files to another.
fn compare(old: &BTreeMap<String, Side>, new: &BTreeMap<String, Side>) -> Vec<FileChange> {
    let mut paths: Vec<&String> = old.keys().chain(new.keys()).collect();
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .filter_map(|path| {
            let (before, after) = (old.get(path), new.get(path));
            (before != after).then(|| FileChange {
                path: path.clone(),
                old: before.cloned(),
                new: after.cloned(),
            })
        })
        .collect()
}

/// The changes of the tree of `new` against `old` (the empty tree when `None`).
fn commit_changes(
    objects: &Objects<'_>,
    old: Option<&gix::Commit<'_>>,
    new: &gix::Commit<'_>,
    filter: Option<&RelativePath>,
) -> Result<Vec<FileChange>, ToolResult> {
    let files = |commit: &gix::Commit<'_>| {
        let tree = commit
            .tree_id()
            .map_err(|error| failed("a commit's tree cannot be read", error))?;
        tree_files(
            objects,
            &tree,
            filter,
            &format!("commit {}", short(&commit.id)),
        )
    };
    let before = match old {
        Some(commit) => files(commit)?,
        None => BTreeMap::new(),
    };
    let after = files(new)?;
    Ok(compare(&before, &after))
}

/// A commit by its id, refused when larger than a commit may be.
fn commit_by_id<'repo>(
    repo: &'repo gix::Repository,
    objects: &Objects<'_>,
    id: ObjectId,
) -> Result<gix::Commit<'repo>, ToolResult> {
    objects.fits(&id)?;
    repo.find_commit(id)
        .map_err(|error| objects.failure("a commit cannot be read", error))
}

/// The content of one side, or why it is not shown as text.
enum Content {
    Text(String),
    Binary,
    TooLarge(usize),
    Unreadable(String),
}

fn content_of(
    objects: &Objects<'_>,
    workspace: &Workspace,
    path: &str,
    side: Option<&Side>,
) -> Content {
    let Some(side) = side else {
        return Content::Text(String::new());
    };
    let bytes = match (&side.source, side.kind) {
        (Source::Object(id), Kind::Submodule) => format!("Subproject commit {id}\n").into_bytes(),
        (Source::Object(id), _) => match objects.header(id) {
            // Said to be too large from its header: a large blob is never decompressed.
            Ok(header) if header.size > BLOB_LIMIT as u64 => {
                return Content::TooLarge(usize::try_from(header.size).unwrap_or(usize::MAX));
            }
            Ok(_) => {
                use gix::objs::FindExt as _;
                let mut buffer = Vec::new();
                match objects.find_blob(id, &mut buffer) {
                    Ok(blob) => blob.data.to_vec(),
                    Err(error) => return Content::Unreadable(error.to_string()),
                }
            }
            Err(result) => return Content::Unreadable(result.content().to_owned()),
        },
        (Source::WorkTree, kind) => match read_work_tree(workspace, path, kind) {
            Ok(bytes) => bytes,
            Err(error) => return Content::Unreadable(error),
        },
    };
    if bytes.len() > BLOB_LIMIT {
        return Content::TooLarge(bytes.len());
    }
    if looks_binary(&bytes) {
        return Content::Binary;
    }
    match String::from_utf8(bytes) {
        Ok(text) => Content::Text(text),
        Err(_) => Content::Binary,
    }
}

/// A file of the work tree, read through the workspace (a link: its target).
fn read_work_tree(workspace: &Workspace, path: &str, kind: Kind) -> Result<Vec<u8>, String> {
    let relative = RelativePath::parse(path).map_err(|result| result.content().to_string())?;
    if kind == Kind::Link {
        return workspace
            .dir()
            .read_link_contents(relative.as_path())
            .map(|target| target.to_string_lossy().into_owned().into_bytes())
            .map_err(|error| error.to_string());
    }
    let file = workspace
        .open_file(&relative)
        .map_err(|result| result.content().to_string())?;
    let mut bytes = Vec::new();
    file.take(BLOB_LIMIT as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| error.to_string())?;
    Ok(bytes)
}

/// The kind of a file in the work tree, as git would record it.
fn work_tree_kind(workspace: &Workspace, path: &str, recorded: Kind) -> Kind {
    let Ok(relative) = RelativePath::parse(path) else {
        return recorded;
    };
    match workspace.dir().symlink_metadata(relative.as_path()) {
        Ok(metadata) if metadata.file_type().is_symlink() => Kind::Link,
        #[cfg(unix)]
        Ok(metadata) if metadata.is_file() => {
            use cap_std::fs::PermissionsExt as _;
            if metadata.permissions().mode() & 0o111 == 0 {
                Kind::File
            } else {
                Kind::Executable
            }
        }
        _ => recorded,
    }
}

/// Changed files rendered: the unified diff, the table of files and the totals.
struct Rendered {
    diff: String,
    table: Table,
    files: usize,
    added: usize,
    removed: usize,
    /// Per file, its line in the content summary and its diff section.
    sections: Vec<(String, String)>,
}

/// How a file changed: added, deleted, modified, mode changed (executable bit) or type changed
/// (file, link, submodule).
fn change_kind(change: &FileChange) -> &'static str {
    let plain = |kind: Kind| matches!(kind, Kind::File | Kind::Executable);
    match (&change.old, &change.new) {
        (None, _) => "added",
        (_, None) => "deleted",
        (Some(old), Some(new)) if old.kind == new.kind => "modified",
        (Some(old), Some(new)) if plain(old.kind) && plain(new.kind) => "mode changed",
        _ => "type changed",
    }
}

/// Appends the unified diff of two texts to `section`; the lines added and removed.
fn text_section(
    change: &FileChange,
    old: &str,
    new: &str,
    context_lines: usize,
    section: &mut String,
) -> (usize, usize) {
    if old == new {
        return (0, 0);
    }
    let path = &change.path;
    let label = |present: bool, side: &str| {
        if present {
            format!("{side}/{path}")
        } else {
            "/dev/null".to_owned()
        }
    };
    let (old_label, new_label) = (
        label(change.old.is_some(), "a"),
        label(change.new.is_some(), "b"),
    );
    let (_, unified) = line_diff(old, new, context_lines, (&old_label, &new_label));
    let (mut added, mut removed) = (0, 0);
    // After the two header lines, every `+` or `-` line is a line added or removed.
    for line in unified.lines().skip(2) {
        if line.starts_with('+') {
            added += 1;
        } else if line.starts_with('-') {
            removed += 1;
        }
    }
    section.push_str(&unified);
    if !section.ends_with('\n') {
        section.push('\n');
    }
    (added, removed)
}

fn render(
    objects: &Objects<'_>,
    workspace: &Workspace,
    changes: &[FileChange],
    context_lines: usize,
) -> Result<Rendered, ToolResult> {
    let mut rendered = Rendered {
        diff: String::new(),
        table: Table::new(["path", "change", "lines added", "lines removed"]),
        files: changes.len(),
        added: 0,
        removed: 0,
        sections: Vec::new(),
    };
    for change in changes.iter().take(FILE_LIMIT) {
        let path = &change.path;
        let kind = change_kind(change);
        let mut section = format!("diff --git a/{path} b/{path}\n");
        match (&change.old, &change.new) {
            (None, Some(new)) => {
                let _ = writeln!(section, "new file mode {}", new.kind.mode());
            }
            (Some(old), None) => {
                let _ = writeln!(section, "deleted file mode {}", old.kind.mode());
            }
            (Some(old), Some(new)) if old.kind != new.kind => {
                let _ = write!(
                    section,
                    "old mode {}\nnew mode {}\n",
                    old.kind.mode(),
                    new.kind.mode()
                );
            }
            _ => {}
        }
        let old = content_of(objects, workspace, path, change.old.as_ref());
        let new = content_of(objects, workspace, path, change.new.as_ref());
        let (added, removed) = match (old, new) {
            (Content::Text(old), Content::Text(new)) => {
                let (added, removed) =
                    text_section(change, &old, &new, context_lines, &mut section);
                (Some(added), Some(removed))
            }
            (Content::Unreadable(error), _) | (_, Content::Unreadable(error)) => {
                let _ = writeln!(section, "cannot be read: {error}");
                (None, None)
            }
            (Content::TooLarge(size), _) | (_, Content::TooLarge(size)) => {
                let _ = writeln!(
                    section,
                    "file too large to diff ({size} bytes; the limit is {BLOB_LIMIT})"
                );
                (None, None)
            }
            (Content::Binary, _) | (_, Content::Binary) => {
                section.push_str("binary file changed\n");
                (None, None)
            }
        };
        rendered.added += added.unwrap_or(0);
        rendered.removed += removed.unwrap_or(0);
        let count =
            |value: Option<usize>| value.map_or_else(String::new, |value| value.to_string());
        let summary = match (added, removed) {
            (Some(added), Some(removed)) => format!("- {path} ({kind}, +{added} -{removed})"),
            _ => format!("- {path} ({kind})"),
        };
        rendered
            .table
            .push_row(vec![
                path.clone(),
                kind.to_owned(),
                count(added),
                count(removed),
            ])
            .map_err(|error| table_error(&error))?;
        if rendered.diff.len() + section.len() <= ARTIFACT_DIFF_LIMIT {
            rendered.diff.push_str(&section);
        }
        rendered.sections.push((summary, section));
        // Stopped (the caller gave up, or the budget is spent): no half-made diff.
        if objects.stopped().is_some() {
            return Err(objects.failure("the diff cannot be made", "stopped"));
        }
    }
    Ok(rendered)
}

/// The content after a head: the files changed, then as much of the diff as fits.
fn diff_content(rendered: &Rendered, artifact: &str) -> String {
    let mut content = format!(
        "{} changed, {} added, {} removed:",
        plural(rendered.files, "file", "files"),
        plural(rendered.added, "line", "lines"),
        rendered.removed
    );
    for (summary, _) in &rendered.sections {
        let _ = write!(content, "\n{summary}");
    }
    if rendered.files > FILE_LIMIT {
        let _ = write!(
            content,
            "\n… and {} more files, not diffed (the limit is {FILE_LIMIT}).",
            rendered.files - FILE_LIMIT
        );
    }
    let mut shown = String::new();
    let mut left_out = Vec::new();
    for (summary, section) in &rendered.sections {
        if shown.len() + section.len() <= CONTENT_DIFF_LIMIT {
            shown.push_str(section);
        } else {
            left_out.push(summary.trim_start_matches("- ").to_owned());
        }
    }
    if !shown.is_empty() {
        let _ = write!(content, "\n\n{}", shown.trim_end_matches('\n'));
    }
    if !left_out.is_empty() {
        let _ = write!(
            content,
            "\n\n{} left out of this diff for its size (see the {artifact} artifact): {}.",
            plural(left_out.len(), "file", "files"),
            cut(&left_out.join(", "), 2_000)
        );
    }
    content
}

/// The result of a diff: `head`, the content, a text artifact of the diff and a table of files.
fn diff_result(head: &str, rendered: Rendered, label: &str) -> ToolResult {
    let text_label = format!("Diff of {label}");
    let content = format!("{head}\n{}", diff_content(&rendered, &text_label));
    let mut artifacts = Vec::new();
    if !rendered.diff.is_empty() {
        artifacts.push(ToolArtifact::text(text_label, rendered.diff));
    }
    artifacts.push(ToolArtifact::table(
        format!("Files changed in {label}"),
        rendered.table,
    ));
    ToolResult::text_with(content, artifacts)
}

/// One commit: its id, author, date (UTC) and full message, the files it changed and the unified
/// diff against its first parent (a root commit: against nothing). Binary files are said to
/// have changed; a large diff is cut in the content and whole in the text artifact.
#[tool(
    read_only,
    idempotent,
    group = "git",
    title = "Shows one commit with its diff"
)]
pub fn git_show(
    /// The commit: a branch, tag, commit id or expression such as `HEAD~1`.
    #[arg(default = "HEAD".to_owned())]
    revision: String,
    /// Unchanged lines shown around each change (0 to 20).
    #[arg(default = 3)]
    context_lines: usize,
    context: &ToolContext,
) -> ToolResult {
    if let Err(result) = check_range("context_lines", context_lines, 0, 20) {
        return result;
    }
    settle(show_in(context, &revision, context_lines))
}

fn show_in(
    context: &ToolContext,
    revision: &str,
    context_lines: usize,
) -> Result<ToolResult, ToolResult> {
    let Opened {
        repo, workspace, ..
    } = open(context)?;
    let objects = Objects::new(&repo, context);
    let commit = commit_of(&repo, &objects, revision)?;
    let parent = match commit.parent_ids().next() {
        Some(parent) => Some(commit_by_id(&repo, &objects, parent.detach())?),
        None => None,
    };
    let changes = commit_changes(&objects, parent.as_ref(), &commit, None)?;
    let rendered = render(&objects, &workspace, &changes, context_lines)?;
    let (name, email, date) = author_and_date(&commit)?;
    let message = commit.message_raw_sloppy().to_str_lossy().into_owned();
    let mut head = format!(
        "commit {}\nAuthor: {name} <{email}>\nDate:   {date} UTC\n",
        commit.id
    );
    if let Some(parent) = &parent {
        let _ = writeln!(head, "Parent: {}", parent.id);
    } else {
        head.push_str("(root commit: compared with nothing)\n");
    }
    head.push('\n');
    for line in message.trim_end().lines() {
        let _ = writeln!(head, "    {line}");
    }
    Ok(diff_result(
        &head,
        rendered,
        &format!("commit {}", short(&commit.id)),
    ))
}

/// The unified diff of two states, optionally limited to a file or folder: by default the work
/// tree against the index (unstaged changes); with `staged`, the index against HEAD; with
/// `from` (and `to`, default HEAD), one commit against another.
#[tool(read_only, idempotent, group = "git")]
pub fn git_diff(
    /// The older commit; empty to compare the work tree or the index.
    #[arg(default = String::new())]
    from: String,
    /// The newer commit, with `from` (empty is HEAD).
    #[arg(default = String::new())]
    to: String,
    /// Compare the index with HEAD (the staged changes) instead of the work tree with the index.
    #[arg(default = false)]
    staged: bool,
    /// Only this file or folder, relative to the workspace root; `.` for all.
    #[arg(default = ".".to_owned())]
    path: String,
    /// Unchanged lines shown around each change (0 to 20).
    #[arg(default = 3)]
    context_lines: usize,
    context: &ToolContext,
) -> ToolResult {
    if let Err(result) = check_range("context_lines", context_lines, 0, 20) {
        return result;
    }
    if from.is_empty() && !to.is_empty() {
        return ToolResult::error("Error: `to` needs `from`, the commit to compare it with.");
    }
    if staged && !from.is_empty() {
        return ToolResult::error(
            "Error: `staged` compares the index with HEAD; it does not take `from` or `to`.",
        );
    }
    on_large_stack(|| diff_in(context, &from, &to, staged, &path, context_lines))
}

/// The unstaged changes: tracked files whose work tree content or mode differs from the index.
fn unstaged_changes(
    repo: &gix::Repository,
    objects: &Objects<'_>,
    (workspace, root): (&Workspace, &Path),
    filter: Option<&RelativePath>,
) -> Result<Vec<FileChange>, ToolResult> {
    let unreadable = |error: gix::Error| failed("the work tree cannot be compared", error);
    check_status_inputs(repo, objects, root, false)?;
    let index = index_files(repo, filter)?;
    let items = repo
        .status(gix::progress::Discard)
        .map_err(unreadable)?
        .should_interrupt_owned(objects.context.cancel_flag())
        .untracked_files(gix::status::UntrackedFiles::None)
        .index_worktree_rewrites(None)
        .index_worktree_submodules(None)
        .into_index_worktree_iter(Vec::new())
        .map_err(unreadable)?;
    let mut changes = Vec::new();
    for item in items {
        use gix::status::index_worktree::iter::Summary;
        let item = item.map_err(unreadable)?;
        let path = item.rela_path().to_str_lossy().into_owned();
        let Some(old) = index.get(&path) else {
            continue;
        };
        let new = match item.summary() {
            Some(Summary::Removed) => None,
            Some(Summary::Modified | Summary::TypeChange) => Some(Side {
                kind: work_tree_kind(workspace, &path, old.kind),
                source: Source::WorkTree,
            }),
            _ => continue,
        };
        changes.push(FileChange {
            path,
            old: Some(old.clone()),
            new,
        });
    }
    if objects.context.is_cancelled() {
        return Err(cancelled());
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

fn diff_in(
    context: &ToolContext,
    from: &str,
    to: &str,
    staged: bool,
    path: &str,
    context_lines: usize,
) -> Result<ToolResult, ToolResult> {
    let filter = path_filter(path)?;
    let Opened {
        repo,
        workspace,
        root,
    } = open(context)?;
    let objects = Objects::new(&repo, context);
    let scope = match &filter {
        Some(filter) => format!(" in \"{}\"", filter.shown()),
        None => String::new(),
    };
    let (changes, head, label) = if !from.is_empty() {
        let to = if to.is_empty() { "HEAD" } else { to };
        let old = commit_of(&repo, &objects, from)?;
        let new = commit_of(&repo, &objects, to)?;
        let changes = commit_changes(&objects, Some(&old), &new, filter.as_ref())?;
        (
            changes,
            format!(
                "Changes from {from} ({}) to {to} ({}){scope}:",
                short(&old.id),
                short(&new.id)
            ),
            format!("{from}..{to}"),
        )
    } else if staged {
        let head_tree = repo
            .head_tree_id_or_empty()
            .map_err(|error| failed("HEAD cannot be read", error))?;
        let before = tree_files(&objects, &head_tree, filter.as_ref(), "HEAD")?;
        let after = index_files(&repo, filter.as_ref())?;
        (
            compare(&before, &after),
            format!("Staged changes (the index against HEAD){scope}:"),
            "the staged changes".to_owned(),
        )
    } else {
        (
            unstaged_changes(&repo, &objects, (&workspace, &root), filter.as_ref())?,
            format!("Unstaged changes (the work tree against the index){scope}:"),
            "the unstaged changes".to_owned(),
        )
    };
    if changes.is_empty() {
        return Ok(ToolResult::text(format!("{head} no differences.")));
    }
    let rendered = render(&objects, &workspace, &changes, context_lines)?;
    Ok(diff_result(&head, rendered, &label))
}

/// The refusal for a path that names no file in a revision.
fn not_a_file(path: &RelativePath, revision: &str) -> ToolResult {
    refusal(format!(
        "\"{}\" is not a file in {revision}; check the path, or give a revision that has it (git_log with this path lists them).",
        path.shown()
    ))
}

/// Who last changed each line of a file: per line its number, the commit (short id), the
/// commit's author and the text, as of a revision.
#[tool(read_only, idempotent, group = "git", task)]
pub fn git_blame(
    /// The file, relative to the workspace root.
    path: String,
    /// The revision whose version of the file is blamed.
    #[arg(default = "HEAD".to_owned())]
    revision: String,
    /// The first line to show, counted from 0 (for the next page).
    #[arg(default = 0)]
    offset: usize,
    /// Most lines to show (1 to 200).
    #[arg(default = 50)]
    limit: usize,
    context: &ToolContext,
) -> ToolResult {
    if let Err(result) = check_range("limit", limit, 1, PAGE_LIMIT) {
        return result;
    }
    settle(blame_in(context, &path, &revision, offset, limit))
}

fn blame_in(
    context: &ToolContext,
    path: &str,
    revision: &str,
    offset: usize,
    limit: usize,
) -> Result<ToolResult, ToolResult> {
    let path = RelativePath::parse(path)?;
    if path.is_root() {
        return Err(refusal(
            "Refused: blame needs a file, not the workspace root.",
        ));
    }
    let Opened { repo, .. } = open(context)?;
    // Each version of the file blame compares is read whole, and a commit's tree is compared
    // with its parent's until the file is found: reads are bounded so that neither a long
    // history nor a tree of billions of paths outgrows the call.
    let objects = Objects::new(&repo, context).reading_at_most(BLAME_READ_LIMIT);
    let commit = commit_of(&repo, &objects, revision)?;
    let not_a_file = || not_a_file(&path, revision);
    let tree = commit
        .tree_id()
        .map_err(|error| failed("the commit's tree cannot be read", error))?;
    let entry = lookup(&objects, &tree, path.as_path())?.ok_or_else(not_a_file)?;
    if !entry.mode.is_blob() {
        return Err(not_a_file());
    }
    let size = objects.header(&entry.oid)?.size;
    if size > BLOB_LIMIT as u64 {
        return Err(refusal(format!(
            "Refused: \"{}\" is {size} bytes in {revision}; blame reads files of at most {BLOB_LIMIT} bytes. git_log with this path shows who changed it.",
            path.shown()
        )));
    }
    let binary = {
        use gix::objs::FindExt as _;
        let mut buffer = Vec::new();
        let blob = objects
            .find_blob(&entry.oid, &mut buffer)
            .map_err(|error| objects.failure("the file cannot be read", error))?;
        looks_binary(blob.data)
    };
    if binary {
        return Err(refusal(format!(
            "\"{}\" is a binary file; blame reads text. git_log with this path shows who changed it.",
            path.shown()
        )));
    }
    let unreadable = |error: gix::Error| objects.failure("the blame cannot be computed", error);
    let mut resource_cache = repo
        .diff_resource_cache_for_tree_diff()
        .map_err(unreadable)?;
    let options = gix::blame::Options {
        diff_algorithm: repo.diff_algorithm().map_err(unreadable)?,
        ..gix::blame::Options::default()
    };
    let outcome = gix::blame::file(
        &objects,
        gix::blame::Start::Commit(commit.id),
        repo.commit_graph_if_enabled().map_err(unreadable)?,
        &mut resource_cache,
        BStr::new(path.shown().as_bytes()),
        options,
    )
    .map_err(unreadable)?;
    let mut authors: HashMap<ObjectId, String> = HashMap::new();
    let mut lines = Vec::new();
    for (entry, texts) in outcome.entries_with_lines() {
        let author = if let Some(author) = authors.get(&entry.commit_id) {
            author.clone()
        } else {
            let source = commit_by_id(&repo, &objects, entry.commit_id)?;
            let (name, _, _) = author_and_date(&source)?;
            authors.insert(entry.commit_id, name.clone());
            name
        };
        for (at, text) in texts.iter().enumerate() {
            let number = entry.start_in_blamed_file as usize + at + 1;
            let text = text.to_str_lossy();
            let text = text.trim_end_matches(['\n', '\r']);
            lines.push((
                number,
                short(&entry.commit_id),
                author.clone(),
                cut(text, BLAME_LINE_LIMIT),
            ));
        }
    }
    lines.sort_by_key(|line| line.0);
    if lines.is_empty() {
        return Ok(ToolResult::text(format!(
            "\"{}\" is empty in {revision}.",
            path.shown()
        )));
    }
    let head = format!(
        "Blame of \"{}\" at {revision} ({}), {}:",
        path.shown(),
        short(&commit.id),
        plural(lines.len(), "line", "lines")
    );
    let mut listing = Listing::page(["line", "commit", "author", "text"], offset, limit);
    for (number, id, author, text) in lines {
        listing
            .push(vec![number.to_string(), id, author, text], |cells| {
                format!("{:>5} {} {}: {}", cells[0], cells[1], cells[2], cells[3])
            })
            .map_err(|error| table_error(&error))?;
    }
    Ok(listing.finish(&head, "Git blame"))
}

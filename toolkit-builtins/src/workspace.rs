//! The workspace folder file tools are confined to, and the helpers every tool shares.
//!
//! Confinement is two layers. A model's path is first checked as text: a NUL byte, a `\`, an
//! absolute path (Unix or Windows) or any `..` component is refused before the file system is
//! touched. What is left is opened through a [`cap_std::fs::Dir`] on the root, which resolves
//! every component beneath that handle (with `openat2(RESOLVE_BENEATH)` where Linux has it), so a
//! symbolic link that points out of the root, absolutely or through `..`, cannot be followed.
//!
//! Walks (`tree`, `find_files`, `search_files`) descend through directory handles, each folder
//! opened from its parent's handle without following a link, so a folder swapped for a link
//! while a walk runs cannot lead it anywhere: it lists only what the handles it holds contain.
//! A walk keeps its place in a list on the heap, not on the stack, and goes at most
//! [`DEPTH_LIMIT`] levels down (each level holds one open handle): a chain of folders thousands
//! deep costs it neither stack nor descriptors, and the answer says what it did not enter.
//! Ignore files (`.gitignore`, `.ignore`) are read through the same handles, only when they are
//! regular files of at most [`IGNORE_FILE_LIMIT`] bytes. Every file is opened as a regular file
//! or refused: a FIFO, a device or a socket is never read (opening does not wait for a writer).

#![cfg_attr(
    not(all(
        feature = "data",
        feature = "files",
        feature = "system",
        feature = "writers"
    )),
    allow(dead_code)
)]

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use toolkit::{ToolContext, ToolResult};

use crate::resources::{NO_WORKSPACE, WorkspaceRoot};
use crate::shared::{cancelled, plural, refusal};

/// Longest path accepted, in bytes.
const PATH_LIMIT: usize = 4_096;

/// Largest ignore file read, in bytes; a larger one (or one that is not a regular file) is
/// skipped as if absent.
pub(crate) const IGNORE_FILE_LIMIT: u64 = 1024 * 1024;

/// Deepest a walk goes below the folder it starts from: folders at this depth are listed, not
/// entered. Each level holds one open directory handle, so this also bounds the descriptors a
/// walk holds.
pub(crate) const DEPTH_LIMIT: usize = 64;

/// Most bytes of one line the line readers keep; the rest of a longer line is read past and
/// counted, never held.
pub(crate) const LINE_BYTES: usize = 64 * 1024;

/// The workspace root of a run, opened as a capability.
pub(crate) struct Workspace {
    dir: Dir,
    /// Raised when the call's caller stops waiting: walks and reads stop.
    cancel: Arc<AtomicBool>,
}

/// One entry a walk met, below the folder it started from.
pub(crate) struct Walked<'walk> {
    /// The path relative to the root.
    pub(crate) relative: PathBuf,
    /// The handle of the folder the walk listed it in.
    pub(crate) folder: &'walk Dir,
    /// `folder`, `file`, `symlink` or `other`, as listed (links are never followed).
    pub(crate) kind: &'static str,
    /// A file's size, as listed.
    pub(crate) size: Option<u64>,
    /// Levels below the start: 1 for its own entries.
    pub(crate) depth: usize,
}

impl Walked<'_> {
    /// Opens the entry as a file through the handle of its folder, without following a link
    /// (the path from the root may be longer than the system takes).
    pub(crate) fn open(&self) -> io::Result<cap_std::fs::File> {
        let name = self.relative.file_name().unwrap_or_default();
        let mut options = OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            use cap_std::fs::OpenOptionsExt as _;
            options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW);
        }
        self.folder.open_with(name, &options)
    }
}

/// What a walk left out because of [`DEPTH_LIMIT`].
#[derive(Debug, Default)]
pub(crate) struct WalkEnd {
    /// Folders at the limit the walk listed but did not enter.
    pub(crate) not_entered: usize,
}

impl WalkEnd {
    /// The note an answer ends with when the walk left folders out: empty when it did not.
    pub(crate) fn note(&self, start: &str) -> String {
        if self.not_entered == 0 {
            return String::new();
        }
        format!(
            "\n… {} {DEPTH_LIMIT} levels below \"{start}\" {} not entered: walks go no deeper.",
            plural(self.not_entered, "folder", "folders"),
            if self.not_entered == 1 { "was" } else { "were" }
        )
    }
}

/// The ignore rules of the folders from the root down to one being walked, innermost last.
type Rules = Vec<Gitignore>;

/// A folder a walk is in: its handle, its path from the root, its level below the start and
/// the entries it has yet to visit.
struct Frame {
    folder: Dir,
    at: PathBuf,
    level: usize,
    entries: std::vec::IntoIter<cap_std::fs::DirEntry>,
}

impl Frame {
    /// The folder with its entries listed by name; one that cannot be listed has none.
    fn listing(folder: Dir, at: PathBuf, level: usize) -> Self {
        let mut entries: Vec<_> = folder
            .entries()
            .map(|entries| entries.filter_map(Result::ok).collect())
            .unwrap_or_default();
        entries.sort_by_key(cap_std::fs::DirEntry::file_name);
        Self {
            folder,
            at,
            level,
            entries: entries.into_iter(),
        }
    }
}

/// A path the model gave, checked as text: relative, no `..`, `/`-separated, `.` parts dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RelativePath {
    path: PathBuf,
    shown: String,
}

impl RelativePath {
    /// Checks a model's path. A refusal sets the error flag and says how to give the path.
    pub(crate) fn parse(raw: &str) -> Result<Self, ToolResult> {
        if raw.contains('\0') {
            return Err(refusal(format!(
                "Refused: the path \"{}\" contains a NUL byte; give the path without it.",
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
                        "Refused: the path \"{raw}\" contains `..`; give a path inside the workspace, relative to its root (for example \"src/main.rs\")."
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
        let mut workspace = Self::open_root(root.path())?;
        workspace.cancel = context.cancel_flag();
        Ok(workspace)
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
        Ok(Self {
            dir,
            cancel: Arc::default(),
        })
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
            return Err(not_a_folder(path));
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

    /// Opens a regular file for reading; refused when missing, outside or not a regular file.
    pub(crate) fn open_file(&self, path: &RelativePath) -> Result<CallFile, ToolResult> {
        let file =
            open_reading(&self.dir, path.as_path()).map_err(|error| io_refusal(path, &error))?;
        let metadata = file.metadata().map_err(|error| io_refusal(path, &error))?;
        if metadata.is_dir() {
            return Err(is_a_folder(path));
        }
        if !metadata.is_file() {
            return Err(not_regular(path));
        }
        Ok(CallFile {
            file,
            cancel: Arc::clone(&self.cancel),
        })
    }

    /// The text of a file of at most `limit` bytes.
    pub(crate) fn read_text(&self, path: &RelativePath, limit: u64) -> Result<String, ToolResult> {
        let file = self.open_file(path)?;
        let too_large = || {
            ToolResult::error(format!(
                "Error: \"{}\" is larger than {limit} bytes.",
                path.shown()
            ))
        };
        // Known too large without reading it; the read below still stops past the limit, for a
        // file that grows meanwhile.
        if file.metadata().is_ok_and(|metadata| metadata.len() > limit) {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| io_refusal(path, &error))?;
        if bytes.len() as u64 > limit {
            return Err(too_large());
        }
        String::from_utf8(bytes).map_err(|_| not_utf8(path))
    }

    /// Walks the folder `start` (a real folder path relative to the root, from
    /// [`real_folder`](Self::real_folder)), at most `depth` levels below it, and gives `visit`
    /// each entry, parents before their entries, entries by name; `visit` may stop the walk.
    ///
    /// It descends from the root through directory handles, never following a link, so the
    /// `.gitignore` and `.ignore` files of the root and of every folder on the way apply (a
    /// deeper one wins); it shows dot files and skips `.git`. It keeps its place on the heap
    /// and enters no folder [`DEPTH_LIMIT`] levels below `start`: the [`WalkEnd`] counts those.
    pub(crate) fn walk(
        &self,
        start: &Path,
        depth: Option<usize>,
        mut visit: impl FnMut(Walked<'_>) -> ControlFlow<()>,
    ) -> Result<WalkEnd, ToolResult> {
        let unreadable = |error: &io::Error| {
            ToolResult::error(format!("Error: cannot walk \"{}\": {error}.", shown(start)))
        };
        let mut here = self.dir.try_clone().map_err(|error| unreadable(&error))?;
        let mut rules = Rules::new();
        let mut at = PathBuf::new();
        rules.push(ignore_rules(&here, &at));
        for part in start.components() {
            at.push(part);
            here = open_folder(&here, Path::new(part.as_os_str()))
                .map_err(|error| unreadable(&error))?;
            rules.push(ignore_rules(&here, &at));
        }
        let mut end = WalkEnd::default();
        // The folders from the start down to the one being listed, innermost last; `rules`
        // holds one more set for each folder above the start.
        let mut stack = vec![Frame::listing(here, at, 1)];
        while let Some(frame) = stack.last_mut() {
            if self.cancel.load(Ordering::Relaxed) {
                return Err(cancelled());
            }
            let Some(entry) = frame.entries.next() else {
                stack.pop();
                rules.pop();
                continue;
            };
            let name = entry.file_name();
            if name == ".git" {
                continue;
            }
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let relative = frame.at.join(&name);
            let is_dir = file_type.is_dir();
            if is_ignored(&rules, &relative, is_dir) {
                continue;
            }
            let kind = if file_type.is_symlink() {
                "symlink"
            } else if is_dir {
                "folder"
            } else if file_type.is_file() {
                "file"
            } else {
                "other"
            };
            let size = (kind == "file")
                .then(|| entry.metadata().ok().map(|metadata| metadata.len()))
                .flatten();
            let level = frame.level;
            let walked = visit(Walked {
                relative: relative.clone(),
                folder: &frame.folder,
                kind,
                size,
                depth: level,
            });
            if walked.is_break() {
                break;
            }
            if !is_dir || depth.is_some_and(|depth| level >= depth) {
                continue;
            }
            if level >= DEPTH_LIMIT {
                end.not_entered += 1;
                continue;
            }
            // Opened by name from this handle, without following a link: a folder swapped
            // for a link since it was listed does not open.
            let Ok(sub) = open_folder(&frame.folder, Path::new(&name)) else {
                continue;
            };
            rules.push(ignore_rules(&sub, &relative));
            stack.push(Frame::listing(sub, relative, level + 1));
        }
        Ok(end)
    }
}

/// Whether the innermost rule that says anything about `relative` ignores it.
fn is_ignored(rules: &Rules, relative: &Path, is_dir: bool) -> bool {
    for rule in rules.iter().rev() {
        let matched = rule.matched(relative, is_dir);
        if matched.is_ignore() {
            return true;
        }
        if matched.is_whitelist() {
            return false;
        }
    }
    false
}

/// The rules of a folder's `.gitignore` then `.ignore` (which wins), read through its handle.
fn ignore_rules(folder: &Dir, at: &Path) -> Gitignore {
    let mut builder = GitignoreBuilder::new(at);
    for name in [".gitignore", ".ignore"] {
        let Some(text) = read_ignore_file(folder, name) else {
            continue;
        };
        for line in text.lines() {
            // A line that is not a valid pattern is skipped, as git does.
            let _ = builder.add_line(None, line);
        }
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// An ignore file's text, when it is a regular file of at most [`IGNORE_FILE_LIMIT`] bytes.
fn read_ignore_file(folder: &Dir, name: &str) -> Option<String> {
    let file = open_reading(folder, Path::new(name)).ok()?;
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || metadata.len() > IGNORE_FILE_LIMIT {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(IGNORE_FILE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > IGNORE_FILE_LIMIT {
        return None;
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Opens a path beneath `dir` for reading without waiting: a FIFO with no writer opens at once
/// (and is then refused as not a regular file) instead of blocking the call.
pub(crate) fn open_reading(dir: &Dir, path: &Path) -> io::Result<cap_std::fs::File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    dir.open_with(path, &options)
}

/// A workspace file read for a call: a read fails once the call's caller stops waiting, so
/// that reading a file of any size (a sparse file of a hundred gigabytes) ends with the call.
pub(crate) struct CallFile {
    file: cap_std::fs::File,
    cancel: Arc<AtomicBool>,
}

impl CallFile {
    pub(crate) fn metadata(&self) -> io::Result<cap_std::fs::Metadata> {
        self.file.metadata()
    }
}

impl Read for CallFile {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        if self.cancel.load(Ordering::Relaxed) {
            // Not `Interrupted`, which readers retry.
            return Err(io::Error::other("the call was cancelled"));
        }
        self.file.read(buffer)
    }
}

impl Seek for CallFile {
    fn seek(&mut self, position: SeekFrom) -> io::Result<u64> {
        self.file.seek(position)
    }
}

/// Reads a file line by line within a byte budget, whatever its shape: it keeps at most
/// [`LINE_BYTES`] of each line and reads past the rest of a longer line in chunks, counting it,
/// so a file of one line of gigabytes costs what a short one does.
pub(crate) struct LineReader<R> {
    reader: BufReader<R>,
    skipped: Vec<u8>,
}

/// One line a [`LineReader`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line {
    /// The line's length in bytes, its `\n` not counted.
    pub(crate) length: u64,
    /// Whether only its first bytes were kept.
    pub(crate) cut: bool,
}

/// Bytes read at a time past the kept part of a long line.
const SKIP_CHUNK: u64 = 64 * 1024;

impl<R: Read> LineReader<R> {
    pub(crate) fn new(reader: R) -> Self {
        Self {
            reader: BufReader::with_capacity(64 * 1024, reader),
            skipped: Vec::new(),
        }
    }

    /// The first bytes of what is left, without consuming them.
    pub(crate) fn head(&mut self) -> io::Result<&[u8]> {
        self.reader.fill_buf()
    }

    /// Every byte left, when there are at most `limit` of them; `None` past it.
    pub(crate) fn rest(&mut self, limit: usize) -> io::Result<Option<Vec<u8>>> {
        let mut bytes = Vec::new();
        (&mut self.reader)
            .take(limit as u64 + 1)
            .read_to_end(&mut bytes)?;
        Ok((bytes.len() <= limit).then_some(bytes))
    }

    /// Reads the next line into `line` (cleared first): the whole line with its `\n`, or, for
    /// a line longer than [`LINE_BYTES`], its first bytes up to a character boundary. `None`
    /// at the end.
    pub(crate) fn read_line(&mut self, line: &mut Vec<u8>) -> io::Result<Option<Line>> {
        line.clear();
        let keep = LINE_BYTES as u64;
        let read = (&mut self.reader).take(keep + 1).read_until(b'\n', line)?;
        if read == 0 {
            return Ok(None);
        }
        if line.last() == Some(&b'\n') {
            return Ok(Some(Line {
                length: read as u64 - 1,
                cut: false,
            }));
        }
        if (read as u64) <= keep {
            // The last line, without a `\n`.
            return Ok(Some(Line {
                length: read as u64,
                cut: false,
            }));
        }
        let mut length = read as u64;
        loop {
            self.skipped.clear();
            let read = (&mut self.reader)
                .take(SKIP_CHUNK)
                .read_until(b'\n', &mut self.skipped)?;
            if self.skipped.last() == Some(&b'\n') {
                length += read as u64 - 1;
                break;
            }
            length += read as u64;
            if (read as u64) < SKIP_CHUNK {
                break;
            }
        }
        line.truncate(LINE_BYTES);
        drop_partial_character(line);
        Ok(Some(Line {
            length,
            cut: length > line.len() as u64,
        }))
    }
}

/// Drops the bytes of a UTF-8 character cut short at the end of `bytes`.
fn drop_partial_character(bytes: &mut Vec<u8>) {
    // A character is at most four bytes: its start is among the last four.
    for back in 1..=bytes.len().min(4) {
        let at = bytes.len() - back;
        let byte = bytes[at];
        if byte & 0b1100_0000 == 0b1000_0000 {
            continue;
        }
        let width = match byte {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        if width > back {
            bytes.truncate(at);
        }
        return;
    }
}

/// The note an answer ends with for the lines (1-based numbers, and lengths in bytes) a
/// [`LineReader`] cut: empty when it cut none.
pub(crate) fn cut_lines_note(cut: &[(usize, u64)]) -> String {
    match cut {
        [] => String::new(),
        [(number, length)] => format!(
            "\n… line {number} is {length} bytes long; only its first {LINE_BYTES} bytes were read."
        ),
        [rest @ .., (last, _)] => {
            let rest: Vec<String> = rest.iter().map(|(number, _)| number.to_string()).collect();
            format!(
                "\n… lines {} and {last} are longer than {LINE_BYTES} bytes; only the first {LINE_BYTES} bytes of each were read.",
                rest.join(", ")
            )
        }
    }
}

/// Opens the folder `name` of `dir` as a handle, refusing a link.
pub(crate) fn open_folder(dir: &Dir, name: &Path) -> io::Result<Dir> {
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt as _;
        let mut options = OpenOptions::new();
        options
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_DIRECTORY | libc::O_NONBLOCK);
        let folder = dir.open_with(name, &options)?;
        Ok(Dir::from_std_file(folder.into_std()))
    }
    #[cfg(not(unix))]
    {
        dir.open_dir(name)
    }
}

/// The refusal for a path that is not a folder where a folder is wanted.
pub(crate) fn not_a_folder(path: &RelativePath) -> ToolResult {
    refusal(format!(
        "\"{}\" is not a folder; give the path of a folder (file_info says what this one is).",
        path.shown()
    ))
}

/// The refusal for a folder where a file is wanted.
pub(crate) fn is_a_folder(path: &RelativePath) -> ToolResult {
    refusal(format!(
        "\"{}\" is a folder, not a file; list_directory shows the files in it.",
        path.shown()
    ))
}

/// The refusal for a file that is not UTF-8 text where text is wanted.
pub(crate) fn not_utf8(path: &RelativePath) -> ToolResult {
    refusal(format!(
        "\"{}\" is not UTF-8 text; give a UTF-8 text file (file_info describes any file).",
        path.shown()
    ))
}

/// The refusal for a path that is not a regular file.
pub(crate) fn not_regular(path: &RelativePath) -> ToolResult {
    refusal(format!(
        "Refused: \"{}\" is not a regular file (a FIFO, a device or a socket); only regular files are read or written.",
        path.shown()
    ))
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

/// The result for an I/O failure on a model's path: a missing, escaping or forbidden path is a
/// refusal naming the fix; anything else is an error. Both set the error flag.
pub(crate) fn io_refusal(path: &RelativePath, error: &io::Error) -> ToolResult {
    match error.kind() {
        io::ErrorKind::NotFound => refusal(format!(
            "No file or folder at \"{}\" in the workspace; list_directory shows what is there.",
            path.shown()
        )),
        // cap-std reports an escape as a `PermissionDenied` of its own making; the operating
        // system's own denials carry an OS error code instead.
        io::ErrorKind::PermissionDenied if error.raw_os_error().is_none() => refusal(format!(
            "Refused: the path \"{}\" leads outside the workspace (through a link); give a path that stays inside it.",
            path.shown()
        )),
        io::ErrorKind::PermissionDenied => refusal(format!(
            "Refused: \"{}\" is not readable; its permissions do not allow it (file_info shows them).",
            path.shown()
        )),
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

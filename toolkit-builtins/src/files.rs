//! Tools over the workspace folder, confined to it (see the `workspace` module).

use std::fmt::Write as _;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use regex::RegexBuilder;
use sha2::{Digest, Sha256, Sha512};
use toolkit::limits::MEDIA_BUDGET;
use toolkit::result::{Media, MediaType};
use toolkit::{ToolContext, ToolResult, tool};

use crate::shared::{
    Listing, PAGE_LIMIT, check_range, cut, filtered_lines, hex, looks_binary, plural, refusal,
    settle, table_error,
};
use crate::text::HashAlgorithm;
use crate::workspace::{
    CallFile, LineReader, RelativePath, Walked, Workspace, cut_lines_note, io_refusal,
    not_a_folder, shown, timestamp,
};

/// Entries `list_directory` reports; a folder with more says so.
const DIRECTORY_LIMIT: usize = 1_000;
/// Entries listed in the content of `list_directory`.
/// Longest line `read_file` shows, in characters.
const LINE_LIMIT: usize = 1_000;
/// Most lines `read_file` shows.
const READ_LINES_LIMIT: usize = 200;
/// Largest file `search_files` reads and `file_info` counts lines of, in bytes.
const SEARCH_FILE_LIMIT: u64 = 2 * 1024 * 1024;
/// Entries a walk visits before it stops.
const WALK_LIMIT: usize = 100_000;
/// Matches of `search_files` listed in the content.
const MATCHES_IN_CONTENT: usize = 20;
/// Longest matching line `search_files` reports, in characters.
const MATCH_LINE_LIMIT: usize = 200;
/// Entries `tree` draws.
const TREE_LIMIT: usize = 500;
/// Most results `find_files` reports.
const FIND_LIMIT: usize = 500;
/// Results of `find_files` listed in the content.
const FIND_IN_CONTENT: usize = 50;
/// Longest glob or query accepted, in bytes.
const PATTERN_LIMIT: usize = 500;

/// The sample workspace that ships with this crate (`builtins/sample/workspace`: a README, a CSV,
/// a JSON file, a log with levels, e-mail addresses and fake secrets, nested notes and a
/// `.gitignore`), for the playground and examples. The path is the crate's source folder at build
/// time.
///
/// ```
/// assert!(toolkit_builtins::files::sample_workspace().join("README.md").is_file());
/// ```
pub fn sample_workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/sample/workspace"))
}

/// What a directory entry is, without following links.
fn kind_of(file_type: Option<cap_std::fs::FileType>) -> &'static str {
    match file_type {
        Some(kind) if kind.is_symlink() => "symlink",
        Some(kind) if kind.is_dir() => "folder",
        Some(kind) if kind.is_file() => "file",
        Some(_) => "other",
        None => "unknown",
    }
}

/// Lists a folder of the workspace: each entry's name, type (file, folder, symlink), size in
/// bytes and modification time (UTC). Links are listed, not followed.
#[tool(read_only, idempotent, group = "files")]
pub fn list_directory(
    /// The folder, relative to the workspace root (`.` is the root).
    #[arg(default = ".".to_owned())]
    path: String,
    /// The first entry to show, counted from 0 in name order (for the next page).
    #[arg(default = 0)]
    offset: usize,
    /// Most entries to show (1 to 200).
    #[arg(default = 50)]
    limit: usize,
    context: &ToolContext,
) -> ToolResult {
    if let Err(result) = check_range("limit", limit, 1, PAGE_LIMIT) {
        return result;
    }
    settle(list_directory_in(context, &path, offset, limit))
}

fn list_directory_in(
    context: &ToolContext,
    path: &str,
    offset: usize,
    limit: usize,
) -> Result<ToolResult, ToolResult> {
    let workspace = Workspace::open(context)?;
    let path = RelativePath::parse(path)?;
    let folder = if path.is_root() {
        workspace
            .dir()
            .try_clone()
            .map_err(|error| io_refusal(&path, &error))?
    } else {
        workspace
            .dir()
            .open_dir(path.as_path())
            .map_err(|error| match error.raw_os_error() {
                Some(code) if code == not_a_directory_code() => not_a_folder(&path),
                _ => io_refusal(&path, &error),
            })?
    };
    let mut entries = Vec::new();
    for entry in folder
        .entries()
        .map_err(|error| io_refusal(&path, &error))?
    {
        let entry = entry.map_err(|error| io_refusal(&path, &error))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = kind_of(entry.file_type().ok());
        // `DirEntry::metadata` does not follow a link: a link's size is its own.
        let metadata = entry.metadata().ok();
        let size = match (&metadata, kind) {
            (Some(metadata), "file") => metadata.len().to_string(),
            _ => String::new(),
        };
        let modified = metadata
            .map(|metadata| timestamp(metadata.modified()))
            .unwrap_or_default();
        entries.push([name, kind.to_owned(), size, modified]);
    }
    if entries.is_empty() {
        return Ok(ToolResult::text(format!(
            "The folder \"{}\" is empty.",
            path.shown()
        )));
    }
    entries.sort_by(|a, b| a[0].cmp(&b[0]));
    let total = entries.len();
    let mut listing = Listing::page(["name", "type", "size", "modified"], offset, limit);
    for entry in entries.into_iter().take(DIRECTORY_LIMIT) {
        listing
            .push(entry.to_vec(), |cells| match cells[1].as_str() {
                "folder" => format!("- {}/ (folder)", cells[0]),
                "file" => format!("- {} (file, {})", cells[0], byte_count(&cells[2])),
                other => format!("- {} ({other})", cells[0]),
            })
            .map_err(|error| table_error(&error))?;
    }
    let head = if total > DIRECTORY_LIMIT {
        format!(
            "{total} entries in \"{}\"; the first {DIRECTORY_LIMIT} by name:",
            path.shown()
        )
    } else {
        format!(
            "{} in \"{}\":",
            plural(total, "entry", "entries"),
            path.shown()
        )
    };
    Ok(listing.finish(&head, "Directory listing"))
}

/// A size cell as words: `1 byte`, `12 bytes`.
fn byte_count(size: &str) -> String {
    if size == "1" {
        "1 byte".to_owned()
    } else {
        format!("{size} bytes")
    }
}

/// The `errno` of "not a directory" on this platform.
fn not_a_directory_code() -> i32 {
    if cfg!(windows) { 267 } else { 20 }
}

/// The images `read_file` shows the model, known by their first bytes.
const IMAGES: [MediaType; 4] = [
    MediaType::Png,
    MediaType::Jpeg,
    MediaType::Gif,
    MediaType::Webp,
];

/// An image file for the model to see, whole, when it is within what a result may show it.
fn read_image(
    path: &RelativePath,
    image: MediaType,
    reader: &mut LineReader<CallFile>,
) -> Result<ToolResult, ToolResult> {
    let bytes = reader
        .rest(MEDIA_BUDGET)
        .map_err(|error| io_refusal(path, &error))?
        .ok_or_else(|| {
            refusal(format!(
                "\"{}\" is an image ({}) larger than the {MEDIA_BUDGET} bytes a tool result may \
                 show the model; file_info describes it.",
                path.shown(),
                image.mime_type()
            ))
        })?;
    Ok(ToolResult::text(format!(
        "\"{}\" is an image ({}, {}):",
        path.shown(),
        image.mime_type(),
        plural(bytes.len(), "byte", "bytes")
    ))
    .with_media(Media::new(image.mime_type(), bytes)))
}

/// Reads lines of a text file in the workspace, numbered from 1: `lines` lines (1 to 200) from
/// `from_line`. Says how many lines the file has, so the next call can ask for the rest.
/// An image file (PNG, JPEG, GIF, WebP) is shown to you as the image, whole.
#[tool(read_only, idempotent, group = "files")]
pub fn read_file(
    /// The file, relative to the workspace root.
    path: String,
    /// The first line to show (1 is the first line of the file).
    #[arg(default = 1)]
    from_line: usize,
    /// How many lines to show (1 to 200).
    #[arg(default = 60)]
    lines: usize,
    context: &ToolContext,
) -> ToolResult {
    if from_line == 0 {
        return ToolResult::error("Error: from_line must be 1 or more, not 0.");
    }
    if let Err(result) = check_range("lines", lines, 1, READ_LINES_LIMIT) {
        return result;
    }
    let workspace = match Workspace::open(context) {
        Ok(workspace) => workspace,
        Err(result) => return result,
    };
    settle(read_file_in(&workspace, &path, from_line, lines))
}

fn read_file_in(
    workspace: &Workspace,
    path: &str,
    from_line: usize,
    lines: usize,
) -> Result<ToolResult, ToolResult> {
    let path = RelativePath::parse(path)?;
    let file = workspace.open_file(&path)?;
    let mut reader = LineReader::new(file);
    let head = reader.head().map_err(|error| io_refusal(&path, &error))?;
    if let Some(image) = IMAGES.into_iter().find(|image| image.check(head).is_ok()) {
        return read_image(&path, image, &mut reader);
    }
    if looks_binary(head) {
        return Err(refusal(format!(
            "\"{}\" looks like a binary file; read_file shows text only, and images (PNG, JPEG, \
             GIF, WebP) to the model (file_info and file_hash describe any file).",
            path.shown()
        )));
    }
    let last = from_line.saturating_add(lines - 1);
    let mut shown_lines = String::new();
    // The same lines for people, whole: the content cuts long lines, the artifact does not
    // (beyond what the reader keeps of a line).
    let mut raw_lines = String::new();
    let mut total = 0_usize;
    let mut cut_lines = Vec::new();
    let mut buffer = Vec::new();
    while let Some(read) = reader
        .read_line(&mut buffer)
        .map_err(|error| io_refusal(&path, &error))?
    {
        total += 1;
        if (from_line..=last).contains(&total) {
            let line = String::from_utf8_lossy(&buffer);
            let line = line.trim_end_matches(['\n', '\r']);
            let _ = write!(shown_lines, "\n{total}: {}", cut(line, LINE_LIMIT));
            if !raw_lines.is_empty() {
                raw_lines.push('\n');
            }
            raw_lines.push_str(line);
            if read.cut {
                cut_lines.push((total, read.length));
            }
        }
    }
    if total == 0 {
        return Ok(ToolResult::text(format!("\"{}\" is empty.", path.shown())));
    }
    if from_line > total {
        return Err(refusal(format!(
            "\"{}\" has {}; from_line {from_line} is past the end. Give a from_line from 1 to {total}.",
            path.shown(),
            plural(total, "line", "lines")
        )));
    }
    let window = format!(
        "\"{}\", lines {from_line}-{}",
        path.shown(),
        last.min(total)
    );
    Ok(ToolResult::text_with(
        format!(
            "{window} of {total}:{shown_lines}{}",
            cut_lines_note(&cut_lines)
        ),
        [toolkit::ToolArtifact::text(window, raw_lines)],
    ))
}

/// Describes one file or folder of the workspace: type, size, modification time, permissions,
/// the target of a link, and the line count of a text file.
#[tool(read_only, idempotent, group = "files")]
pub fn file_info(
    /// The file or folder, relative to the workspace root.
    path: String,
    context: &ToolContext,
) -> ToolResult {
    settle(file_info_in(context, &path))
}

fn file_info_in(context: &ToolContext, path: &str) -> Result<ToolResult, ToolResult> {
    let workspace = Workspace::open(context)?;
    let path = RelativePath::parse(path)?;
    // Followed first, so a link whose target lies outside is refused like any other way out.
    let metadata = workspace
        .dir()
        .metadata(path.as_path())
        .map_err(|error| io_refusal(&path, &error))?;
    let is_link = !path.is_root()
        && workspace
            .dir()
            .symlink_metadata(path.as_path())
            .is_ok_and(|link| link.is_symlink());
    let kind = if metadata.is_dir() {
        "folder"
    } else if metadata.is_file() {
        "file"
    } else {
        "other"
    };
    let mut rows: Vec<(&str, String)> =
        vec![("path", path.shown().to_owned()), ("type", kind.to_owned())];
    if is_link {
        let target = workspace
            .dir()
            .read_link(path.as_path())
            .map_or_else(|_| String::new(), |target| shown(&target));
        rows.push(("link to", target));
    }
    if metadata.is_file() {
        rows.push(("size", format!("{} bytes", metadata.len())));
    }
    rows.push(("modified", timestamp(metadata.modified())));
    rows.push(("permissions", permissions(&metadata)));
    if metadata.is_file() {
        rows.push(("lines", line_count(&workspace, &path, metadata.len())));
    }
    let summary = rows
        .iter()
        .map(|(field, value)| format!("{field}: {value}"))
        .collect::<Vec<_>>()
        .join("\n");
    let table = toolkit::Table::from_rows(
        ["field", "value"],
        rows.into_iter()
            .map(|(field, value)| [field.to_owned(), value]),
    )
    .map_err(|error| table_error(&error))?;
    Ok(ToolResult::text_with(
        summary,
        [toolkit::ToolArtifact::table("File information", table)],
    ))
}

#[cfg(unix)]
fn permissions(metadata: &cap_std::fs::Metadata) -> String {
    use cap_std::fs::PermissionsExt as _;
    format!("{:o}", metadata.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
fn permissions(metadata: &cap_std::fs::Metadata) -> String {
    if metadata.permissions().readonly() {
        "read-only".to_owned()
    } else {
        "read-write".to_owned()
    }
}

/// The line count of a text file, or why there is none.
fn line_count(workspace: &Workspace, path: &RelativePath, size: u64) -> String {
    if size > SEARCH_FILE_LIMIT {
        return "not counted (over 2 MiB)".to_owned();
    }
    let Ok(file) = workspace.open_file(path) else {
        return "not readable".to_owned();
    };
    let mut bytes = Vec::new();
    if file
        .take(SEARCH_FILE_LIMIT)
        .read_to_end(&mut bytes)
        .is_err()
    {
        return "not readable".to_owned();
    }
    if looks_binary(&bytes) {
        return "binary".to_owned();
    }
    #[allow(clippy::naive_bytecount)] // at most 2 MiB, not worth a crate
    let newlines = bytes.iter().filter(|byte| **byte == b'\n').count();
    let unterminated = usize::from(bytes.last().is_some_and(|byte| *byte != b'\n'));
    (newlines + unterminated).to_string()
}

/// Compiles a glob; `None` names the problem.
fn glob(pattern: &str) -> Result<GlobMatcher, ToolResult> {
    if pattern.is_empty() {
        return Err(ToolResult::error("Error: the glob must not be empty."));
    }
    if pattern.len() > PATTERN_LIMIT {
        return Err(ToolResult::error(format!(
            "Error: the glob is {} bytes long; the limit is {PATTERN_LIMIT}.",
            pattern.len()
        )));
    }
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|error| ToolResult::error(format!("Error: invalid glob \"{pattern}\": {error}.")))
}

/// Whether a walked path matches: a glob with a `/` is matched against the path below the
/// start folder, one without against the file name.
fn glob_matches(matcher: &GlobMatcher, pattern: &str, below_start: &Path) -> bool {
    if pattern.contains('/') {
        matcher.is_match(below_start)
    } else {
        below_start
            .file_name()
            .is_some_and(|name| matcher.is_match(name))
    }
}

/// Finds files and folders whose name matches a glob (`*.csv`, `report-??.txt`), or whose path
/// below `path` matches a glob with a `/` (`data/**/*.json`). Honours `.gitignore`; links are
/// listed, not followed.
#[tool(
    read_only,
    idempotent,
    group = "files",
    title = "Finds files and folders by a glob"
)]
pub fn find_files(
    /// The glob.
    pattern: String,
    /// The folder to search, relative to the workspace root.
    #[arg(default = ".".to_owned())]
    path: String,
    /// Most results to collect (1 to 500); the model is shown 50 of them from `offset`.
    #[arg(default = 100)]
    max_results: usize,
    /// The first result to show, counted from 0 (for the next page).
    #[arg(default = 0)]
    offset: usize,
    context: &ToolContext,
) -> ToolResult {
    if let Err(result) = check_range("max_results", max_results, 1, FIND_LIMIT) {
        return result;
    }
    let matcher = match glob(&pattern) {
        Ok(matcher) => matcher,
        Err(result) => return result,
    };
    let workspace = match Workspace::open(context) {
        Ok(workspace) => workspace,
        Err(result) => return result,
    };
    settle(find_files_in(
        &workspace,
        &matcher,
        &pattern,
        &path,
        (max_results, offset),
    ))
}

fn find_files_in(
    workspace: &Workspace,
    matcher: &GlobMatcher,
    pattern: &str,
    path: &str,
    (max_results, offset): (usize, usize),
) -> Result<ToolResult, ToolResult> {
    let path = RelativePath::parse(path)?;
    let start = workspace.real_folder(&path)?;
    let mut listing = Listing::page(["path", "type", "size"], offset, FIND_IN_CONTENT);
    let mut failed = None;
    let mut walked = 0;
    let end = workspace.walk(&start, None, |entry| {
        walked += 1;
        if walked > WALK_LIMIT {
            return ControlFlow::Break(());
        }
        let below_start = entry
            .relative
            .strip_prefix(&start)
            .unwrap_or(&entry.relative);
        if !glob_matches(matcher, pattern, below_start) {
            return ControlFlow::Continue(());
        }
        let size = entry.size.map(|size| size.to_string()).unwrap_or_default();
        let pushed = listing.push(
            vec![shown(&entry.relative), entry.kind.to_owned(), size],
            |cells| match cells[1].as_str() {
                "file" => format!("- {} ({})", cells[0], byte_count(&cells[2])),
                other => format!("- {} ({other})", cells[0]),
            },
        );
        if let Err(error) = pushed {
            failed = Some(table_error(&error));
            return ControlFlow::Break(());
        }
        // `max_results` more than the rows skipped before `offset`.
        if listing.len() == offset.saturating_add(max_results) {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    })?;
    if let Some(failed) = failed {
        return Err(failed);
    }
    let note = end.note(path.shown());
    if listing.len() == 0 {
        return Ok(ToolResult::text(format!(
            "Nothing matches \"{pattern}\" in \"{}\".{note}",
            path.shown()
        )));
    }
    let found = listing.len();
    let limited = if found == offset.saturating_add(max_results) {
        " (the limit)"
    } else {
        ""
    };
    let head = format!(
        "{}{limited} for \"{pattern}\" in \"{}\":",
        plural(found, "match", "matches"),
        path.shown()
    );
    Ok(listing.finish_noted(&head, &note, "Files found"))
}

/// Searches the text files under a folder for a literal string or a regular expression (Rust
/// `regex` syntax) and lists the matching lines. Honours `.gitignore`; skips binary files, files
/// over 2 MiB and links.
#[tool(
    read_only,
    idempotent,
    group = "files",
    title = "Searches text files for a string or a regular expression"
)]
#[allow(clippy::too_many_arguments)]
pub fn search_files(
    /// What to look for.
    query: String,
    /// Treat `query` as a regular expression rather than a literal string.
    #[arg(default = false)]
    regex: bool,
    /// Match case-insensitively.
    #[arg(default = false)]
    case_insensitive: bool,
    /// The folder to search, relative to the workspace root.
    #[arg(default = ".".to_owned())]
    path: String,
    /// Only search files whose name matches this glob (`*.rs`), or whose path below `path`
    /// does if it has a `/`.
    glob: Option<String>,
    /// Most matching lines to collect (1 to 100); the model is shown 20 of them from `offset`.
    #[arg(default = 30)]
    max_results: usize,
    /// The first matching line to show, counted from 0 (for the next page).
    #[arg(default = 0)]
    offset: usize,
    context: &ToolContext,
) -> ToolResult {
    if query.is_empty() {
        return ToolResult::error("Error: query must not be empty.");
    }
    if query.len() > PATTERN_LIMIT {
        return ToolResult::error(format!(
            "Error: the query is {} bytes long; the limit is {PATTERN_LIMIT}.",
            query.len()
        ));
    }
    if let Err(result) = check_range("max_results", max_results, 1, 100) {
        return result;
    }
    let pattern = if regex {
        query.clone()
    } else {
        regex::escape(&query)
    };
    let matcher = match RegexBuilder::new(&pattern)
        .case_insensitive(case_insensitive)
        .size_limit(1 << 20)
        .build()
    {
        Ok(matcher) => matcher,
        Err(error) => return ToolResult::error(format!("Error: invalid pattern: {error}")),
    };
    let file_filter = match glob.as_deref().map(self::glob).transpose() {
        Ok(filter) => filter.map(|matcher| (matcher, glob.unwrap_or_default())),
        Err(result) => return result,
    };
    let workspace = match Workspace::open(context) {
        Ok(workspace) => workspace,
        Err(result) => return result,
    };
    let search = Search {
        query,
        matcher,
        file_filter,
        max_results,
        offset,
    };
    settle(search.run(&workspace, &path, context))
}

struct Search {
    query: String,
    matcher: regex::Regex,
    file_filter: Option<(GlobMatcher, String)>,
    max_results: usize,
    offset: usize,
}

impl Search {
    /// The matches below `path`. Each line is matched and shown as the run's content filter
    /// passes its whole file ([`filtered_lines`]; people see the file's line): a pattern probing
    /// a masked secret a character at a time learns nothing from which lines match, and a line
    /// picked alone shows nothing the file around it would have masked.
    fn run(
        &self,
        workspace: &Workspace,
        path: &str,
        tools_see: &ToolContext,
    ) -> Result<ToolResult, ToolResult> {
        let path = RelativePath::parse(path)?;
        let start = workspace.real_folder(&path)?;
        let mut listing = Listing::page(["path", "line", "text"], self.offset, MATCHES_IN_CONTENT);
        let mut files_with_matches = 0;
        let mut failed = None;
        let mut walked = 0;
        let end = workspace.walk(&start, None, |entry| {
            walked += 1;
            if walked > WALK_LIMIT {
                return ControlFlow::Break(());
            }
            if entry.kind != "file" {
                return ControlFlow::Continue(());
            }
            let below_start = entry
                .relative
                .strip_prefix(&start)
                .unwrap_or(&entry.relative);
            if let Some((filter, pattern)) = &self.file_filter
                && !glob_matches(filter, pattern, below_start)
            {
                return ControlFlow::Continue(());
            }
            let Some(text) = searchable_text(&entry) else {
                return ControlFlow::Continue(());
            };
            let shown_path = shown(&entry.relative);
            let seen = filtered_lines(tools_see, &text);
            let mut matched_here = false;
            for (index, line) in text.lines().enumerate() {
                let line_seen = seen
                    .as_ref()
                    .and_then(|lines| lines.get(index))
                    .map_or(line, String::as_str);
                if !self.matcher.is_match(line_seen) {
                    continue;
                }
                if !matched_here {
                    matched_here = true;
                    files_with_matches += 1;
                }
                let cells = vec![
                    shown_path.clone(),
                    (index + 1).to_string(),
                    cut(line.trim(), MATCH_LINE_LIMIT),
                ];
                let pushed = listing.push(cells, |cells| {
                    format!(
                        "{}:{}: {}",
                        cells[0],
                        cells[1],
                        cut(line_seen.trim(), MATCH_LINE_LIMIT)
                    )
                });
                if let Err(error) = pushed {
                    failed = Some(table_error(&error));
                    return ControlFlow::Break(());
                }
                if listing.len() == self.offset.saturating_add(self.max_results) {
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        })?;
        if let Some(failed) = failed {
            return Err(failed);
        }
        let note = end.note(path.shown());
        if listing.len() == 0 {
            return Ok(ToolResult::text(format!(
                "No match for \"{}\" in \"{}\".{note}",
                self.query,
                path.shown()
            )));
        }
        let found = listing.len();
        let limited = if found == self.offset.saturating_add(self.max_results) {
            " (the limit)"
        } else {
            ""
        };
        let head = format!(
            "{}{limited} for \"{}\" in {}:",
            plural(found, "match", "matches"),
            self.query,
            plural(files_with_matches, "file", "files")
        );
        Ok(listing.finish_noted(&head, &note, "Matches"))
    }
}

/// The text of a walked file, opened through its folder's handle; `None` for files too large,
/// binary, not UTF-8 or not readable (a link among them).
fn searchable_text(entry: &Walked<'_>) -> Option<String> {
    let file = entry.open().ok()?;
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || metadata.len() > SEARCH_FILE_LIMIT {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(SEARCH_FILE_LIMIT).read_to_end(&mut bytes).ok()?;
    if looks_binary(&bytes) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// Draws the folders and files under a folder as an indented tree, `depth` levels deep (1 to
/// 5). Honours `.gitignore`; links are shown, not followed.
#[tool(read_only, idempotent, group = "files")]
pub fn tree(
    /// The folder at the top, relative to the workspace root.
    #[arg(default = ".".to_owned())]
    path: String,
    /// How many levels to show (1 to 5).
    #[arg(default = 3)]
    depth: usize,
    context: &ToolContext,
) -> ToolResult {
    if let Err(result) = check_range("depth", depth, 1, 5) {
        return result;
    }
    let workspace = match Workspace::open(context) {
        Ok(workspace) => workspace,
        Err(result) => return result,
    };
    settle(tree_in(&workspace, &path, depth))
}

fn tree_in(workspace: &Workspace, path: &str, depth: usize) -> Result<ToolResult, ToolResult> {
    let path = RelativePath::parse(path)?;
    let start = workspace.real_folder(&path)?;
    let mut drawing = format!("{}/", path.shown());
    let mut table = toolkit::Table::new(["path", "type", "size"]);
    let (mut folders, mut files, mut others, mut total) = (0, 0, 0, 0);
    let mut failed = None;
    let end = workspace.walk(&start, Some(depth), |entry| {
        total += 1;
        if total > WALK_LIMIT {
            return ControlFlow::Break(());
        }
        if total > TREE_LIMIT {
            return ControlFlow::Continue(());
        }
        let name = entry
            .relative
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        drawing.push('\n');
        drawing.push_str(&"  ".repeat(entry.depth));
        drawing.push_str(&name);
        match entry.kind {
            "folder" => {
                folders += 1;
                drawing.push('/');
            }
            "file" => files += 1,
            other => {
                others += 1;
                let _ = write!(drawing, " ({other})");
            }
        }
        let size = entry.size.map(|size| size.to_string()).unwrap_or_default();
        let pushed = table.push_row([shown(&entry.relative), entry.kind.to_owned(), size]);
        if let Err(error) = pushed {
            failed = Some(table_error(&error));
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    })?;
    if let Some(failed) = failed {
        return Err(failed);
    }
    let total = total.min(WALK_LIMIT);
    let mut summary = format!(
        "\n{}, {}",
        plural(folders, "folder", "folders"),
        plural(files, "file", "files")
    );
    if others > 0 {
        let _ = write!(summary, ", {}", plural(others, "other", "others"));
    }
    if total > TREE_LIMIT {
        let _ = write!(
            summary,
            "; {} more not shown (the tree stops at {TREE_LIMIT}).",
            total - TREE_LIMIT
        );
    } else {
        summary.push('.');
    }
    summary.push_str(&end.note(path.shown()));
    Ok(ToolResult::text_with(
        format!("{drawing}{summary}"),
        [toolkit::ToolArtifact::table("Tree", table)],
    ))
}

/// Computes the hex digest of a file in the workspace.
#[tool(read_only, idempotent, group = "files")]
pub fn file_hash(
    /// The file, relative to the workspace root.
    path: String,
    /// The digest algorithm.
    #[arg(default = HashAlgorithm::Sha256)]
    algorithm: HashAlgorithm,
    context: &ToolContext,
) -> ToolResult {
    let workspace = match Workspace::open(context) {
        Ok(workspace) => workspace,
        Err(result) => return result,
    };
    settle(file_hash_in(&workspace, &path, algorithm))
}

fn file_hash_in(
    workspace: &Workspace,
    path: &str,
    algorithm: HashAlgorithm,
) -> Result<ToolResult, ToolResult> {
    let path = RelativePath::parse(path)?;
    let mut file = workspace.open_file(&path)?;
    let (name, digest, size) = match algorithm {
        HashAlgorithm::Sha256 => {
            let mut hasher = Sha256::new();
            let size =
                std::io::copy(&mut file, &mut hasher).map_err(|error| io_refusal(&path, &error))?;
            ("sha256", hex(&hasher.finalize()), size)
        }
        HashAlgorithm::Sha512 => {
            let mut hasher = Sha512::new();
            let size =
                std::io::copy(&mut file, &mut hasher).map_err(|error| io_refusal(&path, &error))?;
            ("sha512", hex(&hasher.finalize()), size)
        }
    };
    Ok(ToolResult::text(format!(
        "{name}:{digest} \"{}\" ({size} bytes)",
        path.shown()
    )))
}

/// Most files `read_files` reads in one call.
const READ_FILES_LIMIT: usize = 10;

/// Bytes of content `read_files` gives before it leaves the remaining files for another call
/// (the seam would otherwise cut the last ones off unseen).
const READ_FILES_BUDGET: usize = 40_000;

/// Reads the first lines of several text files of the workspace at once (1 to 10), each as
/// `read_file` shows it. A file that cannot be read says why and the others are still read;
/// files past the content budget are named, to read in another call.
#[tool(
    read_only,
    idempotent,
    group = "files",
    title = "Reads the first lines of several text files"
)]
pub fn read_files(
    /// The files, relative to the workspace root (1 to 10).
    paths: Vec<String>,
    /// How many lines to show of each, from its first (1 to 200).
    #[arg(default = 60)]
    lines: usize,
    context: &ToolContext,
) -> ToolResult {
    if paths.is_empty() || paths.len() > READ_FILES_LIMIT {
        return ToolResult::error(format!(
            "Error: give 1 to {READ_FILES_LIMIT} paths, not {}.",
            paths.len()
        ));
    }
    if let Err(result) = check_range("lines", lines, 1, READ_LINES_LIMIT) {
        return result;
    }
    let workspace = match Workspace::open(context) {
        Ok(workspace) => workspace,
        Err(result) => return result,
    };
    let mut answer = String::new();
    let mut artifacts = Vec::new();
    let mut read = 0_usize;
    for (index, path) in paths.iter().enumerate() {
        let result = match read_file_in(&workspace, path, 1, lines) {
            Ok(result) => {
                read += 1;
                result
            }
            Err(result) => result,
        };
        if !answer.is_empty() && answer.len() + result.content().len() > READ_FILES_BUDGET {
            let rest: Vec<String> = paths[index..]
                .iter()
                .map(|path| format!("{path:?}"))
                .collect();
            let _ = write!(
                answer,
                "\n\n… not read here, to keep this answer whole: {}. Read {} in another call.",
                rest.join(", "),
                if rest.len() == 1 { "it" } else { "them" }
            );
            break;
        }
        if !answer.is_empty() {
            answer.push_str("\n\n");
        }
        answer.push_str(result.content());
        artifacts.extend(result.artifacts().iter().cloned());
    }
    // A refusal only when no file could be read: each file's refusal is in it, with its fix.
    if read == 0 {
        return refusal(answer);
    }
    ToolResult::text_with(answer, artifacts)
}

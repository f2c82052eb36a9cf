//! Helpers the groups of tools share: results, listings, ranges, numbers, blocking work. A build
//! with only some groups leaves some of them unused.
#![cfg_attr(
    not(all(
        feature = "data",
        feature = "files",
        feature = "network",
        feature = "records",
        feature = "system",
        feature = "utility",
        feature = "writers"
    )),
    allow(dead_code)
)]

use std::fmt::Write as _;

use toolkit::{Table, ToolArtifact, ToolResult, result::TableError};

/// The result either way: `Err` carries a refusal or an error made early.
pub(crate) fn settle(outcome: Result<ToolResult, ToolResult>) -> ToolResult {
    outcome.unwrap_or_else(|result| result)
}

/// What a call answers when it stopped because its caller stopped waiting (nobody reads it:
/// the seam has already answered that the call failed).
#[cfg(any(feature = "git", feature = "workspace"))]
pub(crate) fn cancelled() -> ToolResult {
    ToolResult::error("Error: the call was cancelled before it finished.")
}

/// A refusal: the call could not do what it asked (a path refused, nothing there, not readable,
/// an argument out of range). It sets the error flag, and its text names the fix in words the
/// model can act on. An answer that did what was asked, even one that found nothing (an empty
/// folder, no match, no differences), is a plain text result, never a refusal.
pub(crate) fn refusal(message: impl Into<String>) -> ToolResult {
    ToolResult::error(message)
}

/// Rows for a table artifact and lines for the content, written from the same cells in one
/// pass: the first `in_content` rows become content lines, every row goes to the table.
pub(crate) struct Listing {
    table: Table,
    lines: String,
    rows: usize,
    offset: usize,
    in_content: usize,
    /// Whether the tool takes `offset` and `limit`, so that the content can say how to page.
    paged: bool,
}

/// Most rows one page of a listing shows the model.
pub(crate) const PAGE_LIMIT: usize = 200;

impl Listing {
    /// An empty listing with these columns, showing up to `in_content` rows in the content.
    pub(crate) fn new<C: Into<String>>(
        columns: impl IntoIterator<Item = C>,
        in_content: usize,
    ) -> Self {
        Self {
            paged: false,
            ..Self::page(columns, 0, in_content)
        }
    }

    /// An empty listing whose content shows `limit` rows from row `offset` (0-based); the table
    /// for people holds every row.
    pub(crate) fn page<C: Into<String>>(
        columns: impl IntoIterator<Item = C>,
        offset: usize,
        limit: usize,
    ) -> Self {
        Self {
            table: Table::new(columns),
            lines: String::new(),
            rows: 0,
            offset,
            in_content: limit,
            paged: true,
        }
    }

    /// Adds a row; `line` renders its content line from the same cells.
    pub(crate) fn push(
        &mut self,
        cells: Vec<String>,
        line: impl FnOnce(&[String]) -> String,
    ) -> Result<(), TableError> {
        if (self.offset..self.offset.saturating_add(self.in_content)).contains(&self.rows) {
            let _ = write!(self.lines, "\n{}", line(&cells));
        }
        self.rows += 1;
        self.table.push_row(cells)
    }

    /// Rows so far.
    pub(crate) fn len(&self) -> usize {
        self.rows
    }

    /// The result: `head`, the content lines, how to get the rows after them (the model reads
    /// only the content), and the table labelled `label`.
    pub(crate) fn finish(self, head: &str, label: &str) -> ToolResult {
        self.finish_noted(head, "", label)
    }

    /// The result as [`finish`](Self::finish) makes it, its content ending with `note`.
    pub(crate) fn finish_noted(self, head: &str, note: &str, label: &str) -> ToolResult {
        if !self.paged {
            let more = if self.rows > self.in_content {
                format!("\n… {} more in the artifact.", self.rows - self.in_content)
            } else {
                String::new()
            };
            return ToolResult::text_with(
                format!("{head}{}{more}{note}", self.lines),
                [ToolArtifact::table(label, self.table)],
            );
        }
        let end = self.offset.saturating_add(self.in_content).min(self.rows);
        let tail = if self.offset >= self.rows {
            format!(
                "\nNothing from offset {}: there {}.",
                self.offset,
                if self.rows == 1 {
                    "is 1 row".to_owned()
                } else {
                    format!("are {} rows", self.rows)
                }
            )
        } else {
            let shown = if self.offset > 0 || end < self.rows {
                format!("\n(rows {} to {end} of {})", self.offset + 1, self.rows)
            } else {
                String::new()
            };
            let more = if end < self.rows {
                format!(
                    "\n… {} more: call again with offset {end} for the next page.",
                    self.rows - end
                )
            } else {
                String::new()
            };
            format!("{shown}{}{more}", self.lines)
        };
        ToolResult::text_with(
            format!("{head}{tail}{note}"),
            [ToolArtifact::table(label, self.table)],
        )
    }
}

/// A table-width mismatch, which only a bug here can cause, as an error result.
/// Lays out a source twice when the run's content filter masks part of it: `lay_out` of the
/// `masked` source gives the content (what the model reads), `lay_out` of the `source` itself the
/// artifacts (what people see). A layout can part a name from its value (a CSV cell beside its
/// column, a column's minimum, a JSON value without its key), where the filter, reading the
/// content, could no longer tell a secret; it reads the source instead, where each value still
/// stands beside its name. `masked` is `None` when the filter changed nothing: one layout then.
pub(crate) fn shown_and_kept<S: ?Sized>(
    source: &S,
    masked: Option<&S>,
    lay_out: impl Fn(&S) -> Result<ToolResult, ToolResult>,
) -> Result<ToolResult, ToolResult> {
    let Some(masked) = masked else {
        return lay_out(source);
    };
    let shown = lay_out(masked)?;
    if shown.is_error() {
        return Ok(shown);
    }
    Ok(match lay_out(source) {
        Ok(kept) if !kept.is_error() => {
            ToolResult::text_with(shown.content(), kept.artifacts().to_vec())
        }
        _ => shown,
    })
}

/// Lines of `text` that [`filtered_lines`] pairs with a masked region of more or fewer lines
/// are looked for this far ahead.
#[cfg(feature = "files")]
const SYNC_WINDOW: usize = 64;

/// One line for each line of `text`, drawn from `text` as the run's content filter passes it
/// whole, or `None` when the filter changes nothing. A tool that shows lines picked from a text
/// (the matches of a search) shows these: a line alone can no longer say that it is the body of
/// a private key or the value of the name on the line before. Each line comes from the filtered
/// text, never from `text`: a masked region as long as the lines it replaced is shown line by
/// line, one of another length on its first line (the others empty).
#[cfg(feature = "files")]
pub(crate) fn filtered_lines(context: &toolkit::ToolContext, text: &str) -> Option<Vec<String>> {
    match context.filter_content(text) {
        std::borrow::Cow::Owned(filtered) => Some(aligned_lines(text, &filtered)),
        std::borrow::Cow::Borrowed(_) => None,
    }
}

/// One line for each line of `text`, drawn from `filtered` (`text` with regions replaced), as
/// [`filtered_lines`] says.
#[cfg(feature = "files")]
fn aligned_lines(text: &str, filtered: &str) -> Vec<String> {
    let old: Vec<&str> = text.lines().collect();
    let new: Vec<&str> = filtered.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(old.len());
    let (mut i, mut j) = (0, 0);
    while i < old.len() {
        if new.get(j) == Some(&old[i]) || old.len() - i == new.len().saturating_sub(j) {
            out.push(
                new.get(j)
                    .map_or_else(String::new, |line| (*line).to_owned()),
            );
            i += 1;
            j += 1;
            continue;
        }
        // The next line both texts have again, nearest first.
        let sync = (1..=2 * SYNC_WINDOW).find_map(|distance| {
            (0..=distance).find_map(|skip_old| {
                let skip_new = distance - skip_old;
                let (a, b) = (i + skip_old, j + skip_new);
                (a < old.len() && b < new.len() && old[a] == new[b]).then_some((skip_old, skip_new))
            })
        });
        let (skip_old, skip_new) = sync.unwrap_or((old.len() - i, new.len().saturating_sub(j)));
        let region = &new[j.min(new.len())..(j + skip_new).min(new.len())];
        if skip_old == skip_new {
            out.extend(region.iter().map(|line| (*line).to_owned()));
        } else if skip_old > 0 {
            out.push(region.join(" "));
            out.extend((1..skip_old).map(|_| String::new()));
        }
        i += skip_old;
        j += skip_new;
    }
    out
}

/// A value the run's filter masks beside a name that says secret, and leaves alone beside any
/// other: it has no shape of a known key.
const COLUMN_PROBE: &str = "Pr0be-C0lumn-V4lue";

/// The name a secret column's cells are written beside when its own name is no plain name (a
/// CSV read from a file that is not one can take any line for its header).
const STAND_IN_NAME: &str = "password";

/// Whether the run's content filter takes the values of a column (a CSV's, a table's) called
/// `name` for secrets (it masks a value written `name=value`), and if so the name to write its
/// cells beside for [`column_cell`]: `name`, or [`STAND_IN_NAME`] when the filter changes `name`
/// itself. A table shows a value on its row, lines away from the header that names it, where no
/// filter could tell it is a secret.
pub(crate) fn secret_column(context: &toolkit::ToolContext, name: &str) -> Option<String> {
    let written = format!("{name}={COLUMN_PROBE}");
    let masked = context.filter_content(&written);
    if masked.contains(COLUMN_PROBE) {
        return None;
    }
    Some(if masked.starts_with(&written[..=name.len()]) {
        name.to_owned()
    } else {
        STAND_IN_NAME.to_owned()
    })
}

/// A cell of a secret column as the run's content filter passes it: alone first (a cell may
/// hold secrets of its own, `API_KEY = …`, that a name before it would hide), then written
/// `name=cell`, `name` as [`secret_column`] gave it (the filter's answer whole when it changed
/// the name too).
pub(crate) fn column_cell(context: &toolkit::ToolContext, name: &str, cell: &str) -> String {
    let alone = context.filter_content(cell);
    let written = format!("{name}={alone}");
    match context.filter_content(&written) {
        std::borrow::Cow::Borrowed(_) => alone.into_owned(),
        std::borrow::Cow::Owned(masked) => masked
            .strip_prefix(&written[..=name.len()])
            .map_or_else(|| masked.clone(), str::to_owned),
    }
}

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

/// A number for people: ten significant digits, no trailing zeros, scientific when very large
/// or very small.
pub(crate) fn number(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "infinity" } else { "-infinity" }.to_owned();
    }
    if value == 0.0 {
        return "0".to_owned();
    }
    let magnitude = value.abs().log10().floor();
    if !(-6.0..15.0).contains(&magnitude) {
        return format!("{value:e}");
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // within -6..15
    let decimals = (9.0 - magnitude).max(0.0) as usize;
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// How long a line diff may search for the smallest diff before it settles for a larger one.
#[cfg(any(feature = "data", feature = "git", feature = "writers"))]
const DIFF_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// The line diff of two texts: `"R line(s) removed, A added"` and the unified diff with
/// `context` unchanged lines around each change, under these header labels.
#[cfg(any(feature = "data", feature = "git", feature = "writers"))]
pub(crate) fn line_diff(
    old: &str,
    new: &str,
    context: usize,
    labels: (&str, &str),
) -> (String, String) {
    let diff = similar::TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new);
    let (mut removed, mut added) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    let counts = format!(
        "{} removed, {added} added",
        plural(removed, "line", "lines")
    );
    let unified = diff
        .unified_diff()
        .context_radius(context)
        .header(labels.0, labels.1)
        .to_string();
    (counts, unified)
}

#[cfg(all(test, feature = "files"))]
mod tests {
    use super::aligned_lines;

    #[test]
    fn masks_within_lines_keep_each_line_in_place() {
        assert_eq!(
            aligned_lines("a\nDB_PASS=x\nb", "a\nDB_PASS=[M]\nb"),
            ["a", "DB_PASS=[M]", "b"]
        );
    }

    #[test]
    fn a_mask_across_lines_shows_on_its_first_line_and_empties_the_others() {
        let text = "before\n-----BEGIN KEY-----\nbody1\nbody2\n-----END KEY-----\nafter";
        assert_eq!(
            aligned_lines(text, "before\n[M]\nafter"),
            ["before", "[M]", "", "", "", "after"]
        );
        // Two regions, and one at the end.
        assert_eq!(
            aligned_lines("a\nk1\nk2\nb\nk3\nk4", "a\n[M]\nb\n[M]"),
            ["a", "[M]", "", "b", "[M]", ""]
        );
    }

    #[test]
    fn no_line_comes_from_the_unfiltered_text() {
        // Lines the filter removed are never shown, whatever the alignment finds.
        let text = "x\nsecret1\nx\nsecret2\nx";
        let out = aligned_lines(text, "x\n[M]\nx");
        assert_eq!(out.len(), 5);
        assert!(out.iter().all(|line| !line.contains("secret")), "{out:?}");
    }
}

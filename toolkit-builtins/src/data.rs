//! Tools that look into data the model passes in.

use regex::RegexBuilder;
use toolkit::{ToolResult, tool};

use crate::shared::{Listing, line_diff, plural, table_error};

/// Longest pattern accepted, in bytes.
const PATTERN_LIMIT: usize = 1_000;
/// Most matches reported.
const MATCH_LIMIT: usize = 1_000;
/// Matches shown to the model per page; the artifact holds them all.
const MATCHES_IN_CONTENT: usize = 20;
/// Compiled-program size limit, so a pattern cannot exhaust memory.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Tests a regular expression (Rust `regex` syntax, linear time) against a text and lists the
/// matches with their byte offsets and capture groups.
#[tool(
    read_only,
    idempotent,
    group = "data",
    title = "Tests a regular expression against a text"
)]
pub fn regex_test(
    /// The pattern.
    pattern: String,
    /// The text to search.
    text: String,
    /// Match case-insensitively.
    #[arg(default = false)]
    case_insensitive: bool,
    /// Most matches to collect from `offset` on (1 to 1000); the model is shown 20 of them.
    #[arg(default = 100)]
    max_matches: usize,
    /// The first match to show, counted from 0 (for the next page).
    #[arg(default = 0)]
    offset: usize,
) -> ToolResult {
    if pattern.len() > PATTERN_LIMIT {
        return ToolResult::error(format!(
            "Error: the pattern is {} bytes long; the limit is {PATTERN_LIMIT}.",
            pattern.len()
        ));
    }
    if !(1..=MATCH_LIMIT).contains(&max_matches) {
        return ToolResult::error(format!(
            "Error: max_matches must be between 1 and {MATCH_LIMIT}, not {max_matches}."
        ));
    }
    let regex = match RegexBuilder::new(&pattern)
        .case_insensitive(case_insensitive)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
    {
        Ok(regex) => regex,
        Err(error) => return ToolResult::error(format!("Error: invalid pattern: {error}")),
    };

    let group_names: Vec<String> = regex
        .capture_names()
        .enumerate()
        .skip(1)
        .map(|(index, name)| name.map_or_else(|| format!("group {index}"), str::to_owned))
        .collect();
    let mut columns = vec![
        "#".to_owned(),
        "start".to_owned(),
        "end".to_owned(),
        "match".to_owned(),
    ];
    columns.extend(group_names.iter().cloned());
    let mut listing = Listing::page(columns, offset, MATCHES_IN_CONTENT);
    let collect = offset.saturating_add(max_matches);
    for captures in regex.captures_iter(&text).take(collect) {
        let Some(whole) = captures.get(0) else {
            continue;
        };
        let mut row = vec![
            (listing.len() + 1).to_string(),
            whole.start().to_string(),
            whole.end().to_string(),
            whole.as_str().to_owned(),
        ];
        row.extend((1..=group_names.len()).map(|group| {
            captures
                .get(group)
                .map_or_else(String::new, |m| m.as_str().to_owned())
        }));
        let pushed = listing.push(row, |cells| {
            format!("{}. {}..{} {:?}", cells[0], cells[1], cells[2], cells[3])
        });
        if let Err(error) = pushed {
            return table_error(&error);
        }
    }
    let found = listing.len();
    if found == 0 {
        return ToolResult::text(format!(
            "No match for /{pattern}/ in {} bytes of text.",
            text.len()
        ));
    }
    let limited = if found == collect { " (the limit)" } else { "" };
    let head = format!(
        "{}{limited} of /{pattern}/:",
        plural(found, "match", "matches")
    );
    listing.finish(&head, "Matches")
}

/// Largest text `diff_text` compares, in bytes, each side.
const DIFF_LIMIT: usize = 1_000_000;
/// Compares two texts line by line and shows the difference as a unified diff (`-` removed,
/// `+` added, `@@` hunk headers), with `context_lines` unchanged lines around each change.
#[tool(
    read_only,
    idempotent,
    group = "data",
    title = "Compares two texts as a unified diff"
)]
pub fn diff_text(
    /// The original text.
    old: String,
    /// The changed text.
    new: String,
    /// Unchanged lines shown around each change (0 to 20).
    #[arg(default = 3)]
    context_lines: usize,
    /// The name of the original in the diff header.
    #[arg(default = "old".to_owned())]
    old_label: String,
    /// The name of the changed text in the diff header.
    #[arg(default = "new".to_owned())]
    new_label: String,
) -> ToolResult {
    if let Err(result) = crate::shared::check_range("context_lines", context_lines, 0, 20) {
        return result;
    }
    for (name, text) in [("old", &old), ("new", &new)] {
        if text.len() > DIFF_LIMIT {
            return ToolResult::error(format!(
                "Error: {name} is {} bytes long; the limit is {DIFF_LIMIT}.",
                text.len()
            ));
        }
    }
    if old == new {
        return ToolResult::text("The texts are identical.");
    }
    let (counts, unified) = line_diff(&old, &new, context_lines, (&old_label, &new_label));
    ToolResult::text(format!("{counts}:\n{}", unified.trim_end_matches('\n')))
}

//! Values under a header that names them: the rows of a CSV (or of a table laid out as text)
//! whose header line names a column as secret (`user,password`, `| name | api_token |`). No
//! rule that reads one line can tell `alice,hunter2` holds a password; this pass reads each row
//! beside the header above it. A line under a header-shaped line of as many cells is a row,
//! never a header: under `name,value`, `DB_PASS,hunter22` is a row (whose value the
//! `delimited_cells` rule masks).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{Masking, SECRET_MASK, is_secret_field, is_secret_value, regex};

/// What a tool may put before a row's cells: a diff's sign, a line number (`12: `), a blame's
/// columns (`  12 3f9a1c0e Ada Lovelace: `).
static PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"\A(?:[ \t]*[0-9]+:[ \t]|[ \t]*[0-9]+[ \t]+[0-9a-f]{6,40}[ \t][^:\r\n]{1,80}:[ \t]|[+-])?",
    )
});

/// A word a secret column's name holds: the sieve of every header (the exact judgement is
/// [`is_secret_field`]'s).
static STEM: LazyLock<Regex> = LazyLock::new(|| regex(concat!("(?i)", secret_stem!())));

/// The delimiters a header may use.
const DELIMITERS: [u8; 4] = [b',', b';', b'\t', b'|'];

/// Longest name of a column.
const NAME_LIMIT: usize = 64;

/// A header seen: its delimiter, how many cells its rows have, and the secret columns' names
/// by index.
struct Header {
    delimiter: u8,
    width: usize,
    secret: Vec<Option<String>>,
}

/// The cells of `line` (the part after its prefix), split at `delimiter` outside double quotes;
/// a table's outer `|` are not cells.
fn cells(line: &str, delimiter: u8) -> Vec<Range<usize>> {
    let (mut start, mut end) = (0, line.len());
    if delimiter == b'|' {
        let trimmed_start = line.len() - line.trim_start().len();
        if line[trimmed_start..].starts_with('|') {
            start = trimmed_start + 1;
        }
        let trimmed_end = line.trim_end().len();
        if trimmed_end > start && line[..trimmed_end].ends_with('|') {
            end = trimmed_end - 1;
        }
    }
    let mut out = Vec::new();
    let mut quoted = false;
    let mut from = start;
    for (offset, byte) in line.as_bytes()[start..end].iter().enumerate() {
        if *byte == b'"' {
            quoted = !quoted;
        } else if *byte == delimiter && !quoted {
            out.push(from..start + offset);
            from = start + offset + 1;
        }
    }
    out.push(from..end);
    out
}

/// A cell's text without surrounding spaces and quotes, and its range in the line.
fn bare(line: &str, cell: Range<usize>) -> (&str, Range<usize>) {
    let text = &line[cell.clone()];
    let leading = text.len() - text.trim_start().len();
    let trimmed = text.trim();
    let range = cell.start + leading..cell.start + leading + trimmed.len();
    let unquoted = trimmed
        .strip_prefix('"')
        .and_then(|inner| inner.strip_suffix('"'))
        .unwrap_or(trimmed);
    (unquoted, range)
}

/// The cells of `line` split at `delimiter`, when each is a name (a header's shape).
fn names(line: &str, delimiter: u8) -> Option<Vec<&str>> {
    let names: Vec<&str> = cells(line, delimiter)
        .into_iter()
        .map(|cell| bare(line, cell).0)
        .collect();
    names
        .iter()
        .all(|name| {
            name.len() <= NAME_LIMIT
                && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        })
        .then_some(names)
}

/// The header `line` (after its prefix) is, if it is one: two cells or more, each a name, one
/// of them a secret's, and not a row under a header-shaped line before it (`previous`), as
/// `DB_PASS,hunter22` is under `name,value`. A comma or a semicolon followed by a space parts
/// prose, not columns.
fn header(line: &str, previous: &str) -> Option<Header> {
    for delimiter in DELIMITERS {
        if !line.as_bytes().contains(&delimiter) {
            continue;
        }
        let cells = cells(line, delimiter);
        let spaced = matches!(delimiter, b',' | b';')
            && cells[1..]
                .iter()
                .any(|cell| line[cell.clone()].starts_with(' '));
        if cells.len() < 2 || spaced {
            continue;
        }
        let Some(own) = names(line, delimiter) else {
            continue;
        };
        if names(previous, delimiter).is_some_and(|above| above.len() == cells.len()) {
            continue;
        }
        let secret: Vec<Option<String>> = own
            .iter()
            .map(|name| is_secret_field(name, "=").then(|| (*name).to_owned()))
            .collect();
        if secret.iter().any(Option::is_some) {
            return Some(Header {
                delimiter,
                width: cells.len(),
                secret,
            });
        }
    }
    None
}

/// `text` with each cell under a secret column masked, or `None` when there is none. A header
/// holds for the lines after it that have as many cells, up to the first that has not.
pub(super) fn mask_columns(text: &str) -> Option<String> {
    if !STEM.is_match(text) {
        return None;
    }
    let mut masking = Masking::new(text);
    let mut current: Option<Header> = None;
    let mut previous = "";
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        let prefix = PREFIX.find(line).map_or(0, |found| found.end());
        let cells_part = &line[prefix..];
        let found = if STEM.is_match(cells_part) {
            header(cells_part, previous)
        } else {
            None
        };
        previous = cells_part;
        if let Some(found) = found {
            current = Some(found);
            continue;
        }
        let Some(header) = &current else {
            continue;
        };
        let cells = cells(cells_part, header.delimiter);
        if cells.len() != header.width {
            current = None;
            continue;
        }
        for (cell, name) in cells.into_iter().zip(&header.secret) {
            let Some(name) = name else { continue };
            let (value, range) = bare(cells_part, cell);
            // A Markdown table's rule under its header (`|---|:---:|`) is no value.
            let rule = !value.is_empty() && value.bytes().all(|b| matches!(b, b'-' | b':'));
            let raw = &cells_part[range.clone()];
            if !rule && value != SECRET_MASK && is_secret_value(raw, None, name) {
                let offset = start + prefix;
                masking.mask(offset + range.start..offset + range.end);
            }
        }
    }
    masking.finish()
}

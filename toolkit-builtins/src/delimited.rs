//! Tools over CSV (and other delimited) data, from a workspace file or passed in.

use std::collections::HashSet;
use std::fmt::Write as _;

use toolkit::{ToolContext, ToolResult, tool};

use std::borrow::Cow;

use crate::shared::{
    Listing, check_range, column_cell, cut, number, plural, secret_column, settle, shown_and_kept,
    table_error,
};
use crate::workspace::source_text;

/// Largest CSV read, in bytes.
const CSV_LIMIT: u64 = 20 * 1024 * 1024;
/// Longest cell in the content, in characters.
const CONTENT_CELL_LIMIT: usize = 100;
/// Longest cell in a table, in characters.
const CELL_LIMIT: usize = 1_000;
/// Distinct values counted per column before the count says "at least".
const DISTINCT_LIMIT: usize = 100_000;
/// Distinct values `csv_stats` keeps across all columns: each column's share counts its values
/// exactly, beyond it says "N+".
const DISTINCT_BUDGET: usize = 200_000;
/// Most columns a CSV may have.
pub const COLUMN_LIMIT: usize = 1_000;

fn delimiter_byte(delimiter: &str) -> Result<u8, ToolResult> {
    match delimiter {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        other if other.len() == 1 && other.is_ascii() => Ok(other.as_bytes()[0]),
        other => Err(ToolResult::error(format!(
            "Error: delimiter must be one ASCII character (or \"tab\"), not \"{other}\"."
        ))),
    }
}

/// What reading a CSV found: where it came from, its header, how many records and how many of
/// them had another width than the header.
struct Parsed {
    label: String,
    header: Vec<String>,
    total: usize,
    ragged: usize,
}

/// Reads the CSV a tool was given (a workspace file or text) and lays it out with `lay_out`
/// (given its label and text), as [`shown_and_kept`] says: the content from the text as the run's
/// content filter passes it (each cell of a column whose name says secret masked as
/// [`column_cell`] says, then the whole text filtered), the artifacts from the text itself.
fn lay_out_csv(
    context: &ToolContext,
    path: Option<&str>,
    text: Option<String>,
    delimiter: &str,
    lay_out: impl Fn(&str, &str) -> Result<ToolResult, ToolResult>,
) -> Result<ToolResult, ToolResult> {
    let (label, text) = source_text(context, path, text, CSV_LIMIT)?;
    let by_column = delimiter_byte(delimiter)
        .ok()
        .and_then(|delimiter| mask_secret_columns(context, &text, delimiter));
    let source = by_column.as_deref().unwrap_or(&text);
    let filtered = match context.filter_content(source) {
        Cow::Owned(masked) => Some(masked),
        Cow::Borrowed(_) => None,
    };
    let masked = filtered.or(by_column);
    shown_and_kept(text.as_str(), masked.as_deref(), |text| {
        lay_out(&label, text)
    })
}

/// `text` (CSV) with each cell of a column whose name says secret ([`secret_column`]) as the
/// run's filter passes it; `None` when no column's name says secret, or the CSV cannot be read
/// (the layout then says why).
fn mask_secret_columns(context: &ToolContext, text: &str, delimiter: u8) -> Option<String> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .has_headers(false)
        .from_reader(text.as_bytes());
    let mut records = reader.records();
    let header = records.next()?.ok()?;
    let names: Vec<String> = header.iter().map(|name| name.trim().to_owned()).collect();
    let secret: Vec<Option<String>> = names
        .iter()
        .map(|name| secret_column(context, name))
        .collect();
    if secret.iter().all(Option::is_none) {
        return None;
    }
    let mut writer = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .from_writer(Vec::with_capacity(text.len()));
    writer.write_record(&header).ok()?;
    for record in records {
        let record = record.ok()?;
        let cells = record
            .iter()
            .enumerate()
            .map(|(index, cell)| match secret.get(index) {
                Some(Some(name)) => column_cell(context, name, cell),
                _ => cell.to_owned(),
            });
        writer.write_record(cells.collect::<Vec<_>>()).ok()?;
    }
    String::from_utf8(writer.into_inner().ok()?).ok()
}

/// Reads CSV data record by record, giving each to `record` (as wide as the header, padded or
/// cut); no record is kept here, so memory does not grow with the data.
fn parse(
    label: &str,
    text: &str,
    delimiter: &str,
    mut record: impl FnMut(Vec<String>) -> Result<(), ToolResult>,
) -> Result<Parsed, ToolResult> {
    let delimiter = delimiter_byte(delimiter)?;
    let label = label.to_owned();
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .has_headers(true)
        .from_reader(text.as_bytes());
    let names = reader
        .headers()
        .map_err(|error| csv_error(&label, &error))?;
    if names.len() > COLUMN_LIMIT {
        return Err(ToolResult::error(format!(
            "Error: {label} has {} columns; the limit is {COLUMN_LIMIT}.",
            names.len()
        )));
    }
    let header: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let name = name.trim();
            if name.is_empty() {
                format!("column {}", index + 1)
            } else {
                name.to_owned()
            }
        })
        .collect();
    if header.is_empty() {
        return Err(ToolResult::text(format!("{label} has no header row.")));
    }
    let mut total = 0;
    let mut ragged = 0;
    let mut row = csv::StringRecord::new();
    while reader
        .read_record(&mut row)
        .map_err(|error| csv_error(&label, &error))?
    {
        total += 1;
        if row.len() != header.len() {
            ragged += 1;
        }
        let mut cells: Vec<String> = row.iter().take(header.len()).map(str::to_owned).collect();
        cells.resize(header.len(), String::new());
        record(cells)?;
    }
    Ok(Parsed {
        label,
        header,
        total,
        ragged,
    })
}

fn csv_error(label: &str, error: &csv::Error) -> ToolResult {
    let line = error
        .position()
        .map(|position| format!(" at line {}", position.line()))
        .unwrap_or_default();
    ToolResult::error(format!("Error: {label} is not valid CSV{line}: {error}."))
}

fn ragged_note(ragged: usize) -> String {
    if ragged == 0 {
        String::new()
    } else {
        format!(
            " ({} with another number of cells than the header, padded or cut)",
            plural(ragged, "row", "rows")
        )
    }
}

/// Shows the header and the first rows of CSV data (a workspace file or text), and how many
/// rows and columns it has. The rows come as a table too.
#[tool(
    read_only,
    idempotent,
    group = "data",
    title = "Shows the header and first rows of CSV data"
)]
pub fn csv_preview(
    /// A CSV file in the workspace (give this or `text`).
    path: Option<String>,
    /// The CSV itself (give this or `path`).
    text: Option<String>,
    /// How many rows to show (1 to 100).
    #[arg(default = 10)]
    rows: usize,
    /// The delimiter: one ASCII character, or `tab`.
    #[arg(default = ",".to_owned())]
    delimiter: String,
    context: &ToolContext,
) -> ToolResult {
    if let Err(result) = check_range("rows", rows, 1, 100) {
        return result;
    }
    settle(lay_out_csv(
        context,
        path.as_deref(),
        text,
        &delimiter,
        |label, text| csv_preview_in(label, text, rows, &delimiter),
    ))
}

fn csv_preview_in(
    label: &str,
    text: &str,
    rows: usize,
    delimiter: &str,
) -> Result<ToolResult, ToolResult> {
    let mut records = Vec::with_capacity(rows);
    let parsed = parse(label, text, delimiter, |record| {
        if records.len() < rows {
            records.push(record);
        }
        Ok(())
    })?;
    let total = parsed.total;
    let head = format!(
        "{}: {} ({}), {}{}",
        parsed.label,
        plural(parsed.header.len(), "column", "columns"),
        parsed.header.join(", "),
        plural(total, "row", "rows"),
        ragged_note(parsed.ragged)
    );
    if records.is_empty() {
        return Ok(ToolResult::text(format!("{head}.")));
    }
    let shown = records.len();
    let head = if shown == total {
        format!("{head}:")
    } else {
        format!("{head}; the first {shown}:")
    };
    let mut listing = Listing::new(parsed.header, rows);
    for record in records {
        let cells = record.iter().map(|cell| cut(cell, CELL_LIMIT)).collect();
        listing
            .push(cells, |cells| {
                cells
                    .iter()
                    .map(|cell| cut(cell, CONTENT_CELL_LIMIT))
                    .collect::<Vec<_>>()
                    .join(" | ")
            })
            .map_err(|error| table_error(&error))?;
    }
    Ok(listing.finish(&head, "Rows"))
}

/// What the values of a column are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Empty,
    Integer,
    Number,
    Boolean,
    Text,
}

/// Statistics of one column.
#[derive(Default)]
struct Column {
    values: usize,
    empty: usize,
    distinct: HashSet<String>,
    /// Distinct values counted exactly; past it, "N+".
    distinct_limit: usize,
    all_integer: bool,
    all_number: bool,
    all_boolean: bool,
    sum: f64,
    numeric_min: Option<f64>,
    numeric_max: Option<f64>,
    /// While every value is a whole number: the least and greatest exactly (an `f64` holds
    /// whole numbers exactly only up to 2^53, and ids are often longer).
    integer_min: Option<i64>,
    integer_max: Option<i64>,
    text_min: Option<String>,
    text_max: Option<String>,
}

impl Column {
    fn new(distinct_limit: usize) -> Self {
        Self {
            distinct_limit,
            all_integer: true,
            all_number: true,
            all_boolean: true,
            ..Self::default()
        }
    }

    fn observe(&mut self, cell: &str) {
        let cell = cell.trim();
        if cell.is_empty() {
            self.empty += 1;
            return;
        }
        self.values += 1;
        if self.distinct.len() < self.distinct_limit {
            self.distinct.insert(cell.to_owned());
        }
        match cell.parse::<i64>() {
            Ok(value) if self.all_integer => {
                self.integer_min = Some(self.integer_min.map_or(value, |min| min.min(value)));
                self.integer_max = Some(self.integer_max.map_or(value, |max| max.max(value)));
            }
            Ok(_) => {}
            Err(_) => self.all_integer = false,
        }
        self.all_boolean &= cell.eq_ignore_ascii_case("true") || cell.eq_ignore_ascii_case("false");
        match cell.parse::<f64>() {
            Ok(value) if value.is_finite() => {
                self.sum += value;
                self.numeric_min = Some(self.numeric_min.map_or(value, |min| min.min(value)));
                self.numeric_max = Some(self.numeric_max.map_or(value, |max| max.max(value)));
            }
            _ => self.all_number = false,
        }
        if self.text_min.as_deref().is_none_or(|min| cell < min) {
            self.text_min = Some(cell.to_owned());
        }
        if self.text_max.as_deref().is_none_or(|max| cell > max) {
            self.text_max = Some(cell.to_owned());
        }
    }

    fn kind(&self) -> Kind {
        if self.values == 0 {
            Kind::Empty
        } else if self.all_integer {
            Kind::Integer
        } else if self.all_number {
            Kind::Number
        } else if self.all_boolean {
            Kind::Boolean
        } else {
            Kind::Text
        }
    }

    /// type, values, empty, distinct, min, max, mean.
    fn cells(&self) -> [String; 7] {
        let kind = self.kind();
        let numeric = matches!(kind, Kind::Integer | Kind::Number);
        let (min, max, mean) = if numeric {
            #[allow(clippy::cast_precision_loss)] // a mean of at most millions of values
            let mean = self.sum / self.values as f64;
            let (min, max) = if kind == Kind::Integer {
                (
                    self.integer_min.map(|min| min.to_string()),
                    self.integer_max.map(|max| max.to_string()),
                )
            } else {
                (self.numeric_min.map(number), self.numeric_max.map(number))
            };
            (
                min.unwrap_or_default(),
                max.unwrap_or_default(),
                number(mean),
            )
        } else {
            (
                self.text_min
                    .as_deref()
                    .map(|text| cut(text, 60))
                    .unwrap_or_default(),
                self.text_max
                    .as_deref()
                    .map(|text| cut(text, 60))
                    .unwrap_or_default(),
                String::new(),
            )
        };
        let distinct = if self.distinct.len() >= self.distinct_limit {
            format!("{}+", self.distinct_limit)
        } else {
            self.distinct.len().to_string()
        };
        let kind = match kind {
            Kind::Empty => "empty",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
            Kind::Text => "text",
        };
        [
            kind.to_owned(),
            self.values.to_string(),
            self.empty.to_string(),
            distinct,
            min,
            max,
            mean,
        ]
    }
}

/// Describes each column of CSV data (a workspace file or text): its type (integer, number,
/// boolean, text, empty), how many values and empty cells it has, how many distinct values,
/// its minimum and maximum, and the mean of a numeric column.
#[tool(read_only, idempotent, group = "data")]
pub fn csv_stats(
    /// A CSV file in the workspace (give this or `text`).
    path: Option<String>,
    /// The CSV itself (give this or `path`).
    text: Option<String>,
    /// The delimiter: one ASCII character, or `tab`.
    #[arg(default = ",".to_owned())]
    delimiter: String,
    context: &ToolContext,
) -> ToolResult {
    settle(lay_out_csv(
        context,
        path.as_deref(),
        text,
        &delimiter,
        |label, text| csv_stats_in(label, text, &delimiter),
    ))
}

fn csv_stats_in(label: &str, text: &str, delimiter: &str) -> Result<ToolResult, ToolResult> {
    // Each column's share of the budget of distinct values.
    let columns_for = |width: usize| -> Vec<Column> {
        let share = (DISTINCT_BUDGET / width.max(1)).clamp(100, DISTINCT_LIMIT);
        (0..width).map(|_| Column::new(share)).collect()
    };
    let mut columns: Vec<Column> = Vec::new();
    let parsed = parse(label, text, delimiter, |record| {
        if columns.is_empty() {
            columns = columns_for(record.len());
        }
        for (column, cell) in columns.iter_mut().zip(&record) {
            column.observe(cell);
        }
        Ok(())
    })?;
    if columns.is_empty() {
        columns = columns_for(parsed.header.len());
    }
    let total = parsed.total;
    let mut listing = Listing::new(
        [
            "column", "type", "values", "empty", "distinct", "min", "max", "mean",
        ],
        usize::MAX,
    );
    for (name, column) in parsed.header.iter().zip(&columns) {
        let mut cells = vec![name.clone()];
        cells.extend(column.cells());
        listing
            .push(cells, |cells| {
                let mut line = format!(
                    "- {}: {}, {} values, {} empty, {} distinct",
                    cells[0], cells[1], cells[2], cells[3], cells[4]
                );
                if !cells[5].is_empty() {
                    let _ = write!(line, ", min {}, max {}", cells[5], cells[6]);
                }
                if !cells[7].is_empty() {
                    let _ = write!(line, ", mean {}", cells[7]);
                }
                line
            })
            .map_err(|error| table_error(&error))?;
    }
    let head = format!(
        "{}: {}, {}{}:",
        parsed.label,
        plural(total, "row", "rows"),
        plural(parsed.header.len(), "column", "columns"),
        ragged_note(parsed.ragged)
    );
    Ok(listing.finish(&head, "Column statistics"))
}

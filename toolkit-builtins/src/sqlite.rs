//! What the records tools and the record writers share: opening the run's database, looking
//! names up in its schema, filters, the text of a cell, and rows shown both as content and as a
//! table artifact. A build with only the readers or only the writers leaves some of it unused.

#![cfg_attr(not(all(feature = "records", feature = "writers")), allow(dead_code))]

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rusqlite::limits::Limit;
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, ErrorCode, OpenFlags};
use schemars::JsonSchema;
use serde::Deserialize;
use toolkit::{Table, ToolArtifact, ToolContext, ToolResult, result::Cell};

use crate::resources::{Database, NO_DATABASE};
use crate::shared::{column_cell, plural, refusal, secret_column};

/// Most `where_equals` filters one call takes.
pub const MAX_FILTERS: usize = 5;
/// Characters a cell keeps in the content; a longer one is cut there and ends in `…` (people's
/// table keeps it whole).
pub const CELL_CHARS: usize = 300;
/// Rows the content shows at most; the artifact holds them all.
pub const CONTENT_ROWS: usize = 20;
/// Bytes of rows the content shows at most (the first row is always shown).
pub const CONTENT_ROW_BYTES: usize = 4_000;
/// How long one call may spend in SQLite unless the context says otherwise.
pub const DEFAULT_QUERY_TIME: Duration = Duration::from_secs(5);

/// How long one call of a records tool may spend in SQLite before it is interrupted. Put one in
/// the context ([`ToolContext::with_extension`]) to change [`DEFAULT_QUERY_TIME`].
///
/// [`ToolContext::with_extension`]: toolkit::ToolContext::with_extension
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(
    clippy::exhaustive_structs,
    reason = "a newtype the caller builds: its one field is all it is"
)]
pub struct QueryTimeLimit(pub Duration);

/// A value to compare with or to store: a boolean, a number or a text.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Scalar {
    /// `true` or `false` (stored as 1 or 0).
    Boolean(bool),
    /// A whole number.
    Integer(i64),
    /// A number with a fraction.
    Real(f64),
    /// A text (`"true"` and `"false"` also name booleans in a BOOLEAN column).
    Text(String),
}

/// A column and a value: a filter (`column = value`; a null value matches NULL) or, for the
/// writers, a value to store.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ColumnValue {
    /// The column's name.
    pub column: String,
    /// The value; null for SQL NULL.
    pub value: Option<Scalar>,
}

/// Largest string or blob SQLite may build on a tool's connection, in bytes.
const VALUE_BYTES_LIMIT: i32 = 10_000_000;
/// Characters of a name or value echoed back in a message.
const ECHO_CHARS: usize = 64;
/// Names listed when a table or column does not exist.
const NAMES_LISTED: usize = 50;

/// Why a tool stopped early: a refusal naming the fix or a failure; both are error results.
#[derive(Debug)]
pub(crate) enum Stop {
    /// A refusal: the call could not do what it asked, and the text says how to ask instead.
    Refuse(String),
    /// A failure.
    Fail(String),
}

impl From<rusqlite::Error> for Stop {
    fn from(error: rusqlite::Error) -> Self {
        if error.sqlite_error_code() == Some(ErrorCode::OperationInterrupted) {
            return Self::Fail(
                "Error: the database took too long to answer and the query was stopped.".to_owned(),
            );
        }
        Self::Fail(format!("Error: SQLite: {error}"))
    }
}

/// The result of a tool body that may stop early.
pub(crate) fn answer(body: impl FnOnce() -> Result<ToolResult, Stop>) -> ToolResult {
    match body() {
        Ok(result) => result,
        Err(Stop::Refuse(text)) => refusal(text),
        Err(Stop::Fail(message)) => ToolResult::error(message),
    }
}

/// How a tool's connection may touch the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    ReadOnly,
    ReadWrite,
}

/// Opens the context's database (never creating it) with the call's time limit.
pub(crate) fn open(context: &ToolContext, access: Access) -> Result<Connection, Stop> {
    let Some(database) = context.extension::<Database>() else {
        return Err(Stop::Fail(NO_DATABASE.to_owned()));
    };
    let path = database.path();
    let flags = match access {
        Access::ReadOnly => OpenFlags::SQLITE_OPEN_READ_ONLY,
        Access::ReadWrite => OpenFlags::SQLITE_OPEN_READ_WRITE,
    } | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    // SQLite's message names the path, which is the operator's business, not the model's.
    let mut connection = Connection::open_with_flags(path, flags).map_err(|error| {
        let reason = match error.sqlite_error_code() {
            Some(ErrorCode::CannotOpen) => "the file does not exist or cannot be opened",
            Some(ErrorCode::NotADatabase) => "the file is not a database",
            Some(ErrorCode::PermissionDenied | ErrorCode::ReadOnly) => "permission denied",
            _ => "SQLite cannot open it",
        };
        Stop::Fail(format!("Error: cannot open the database: {reason}."))
    })?;
    guard(&mut connection, context)?;
    match access {
        Access::ReadOnly => connection.execute_batch("PRAGMA query_only = ON;")?,
        Access::ReadWrite => connection.execute_batch("PRAGMA foreign_keys = ON;")?,
    }
    check_schema_text(&connection)?;
    Ok(connection)
}

/// Primary-key order for a table (rowid when it has no declared key); a view's own order.
pub(crate) fn order_by(object: &Object, columns: &[ColumnInfo]) -> String {
    if object.kind == Kind::View {
        return String::new();
    }
    let mut key: Vec<&ColumnInfo> = columns
        .iter()
        .filter(|column| column.primary_key > 0)
        .collect();
    if key.is_empty() {
        return " ORDER BY rowid".to_owned();
    }
    key.sort_by_key(|column| column.primary_key);
    format!(" ORDER BY {}", column_list(&key))
}

pub(crate) fn column_list(columns: &[&ColumnInfo]) -> String {
    columns
        .iter()
        .map(|column| quote_identifier(&column.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Largest database [`masked_copy`] copies, in bytes.
pub(crate) const MASKED_COPY_LIMIT: i64 = 64 * 1024 * 1024;

/// The database of `source` as the run's content filter passes it, in memory and read-only, for
/// a tool that answers questions about values (SQL, a search, a filter) in a run that filters
/// content: SQL over the real values would let `hex(password)`, `substr(password, 1, 3)` or a
/// count of `password LIKE 'a%'` show what the filter hides, in a form no filter can tell.
///
/// Each table's rows are copied in primary-key order (rowid order without one), each text
/// masked as the content shows it: beside its column's name when that says secret
/// ([`column_cell`]), and within its row laid out as the content lays it out (`a | b | c`), where a
/// name in one cell says what the next holds. Views are made again over the copy; indexes,
/// keys and constraints are not copied (a query's answer is the same, its speed may not be).
pub(crate) fn masked_copy(source: &Connection, context: &ToolContext) -> Result<Connection, Stop> {
    let pages: i64 = source.query_row("PRAGMA page_count", [], |row| row.get(0))?;
    let page_size: i64 = source.query_row("PRAGMA page_size", [], |row| row.get(0))?;
    let size = pages.saturating_mul(page_size);
    if size > MASKED_COPY_LIMIT {
        return Err(Stop::Fail(format!(
            "Error: this run masks secrets, so this tool reads a masked copy of the database, and the database is {} MB, more than the {} MB such a copy may take. Read it with read_records, or have the operator run without the content filter.",
            size / (1024 * 1024),
            MASKED_COPY_LIMIT / (1024 * 1024)
        )));
    }
    let mut copy = Connection::open_in_memory()?;
    guard(&mut copy, context)?;
    let transaction = copy.transaction()?;
    for object in objects(source)? {
        if object.kind == Kind::View {
            continue;
        }
        copy_table(source, &transaction, context, &object)?;
    }
    let mut views = source.prepare(
        "SELECT sql FROM sqlite_schema WHERE type = 'view' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )?;
    let mut rows = views.query([])?;
    while let Some(row) = rows.next()? {
        // A view the copy cannot hold (over a table function, say) is left out.
        let _ = transaction.execute_batch(&text_of(row.get_ref(0)?));
    }
    transaction.commit()?;
    copy.execute_batch("PRAGMA query_only = ON;")?;
    Ok(copy)
}

/// Copies one table into `copy`, its texts masked as [`masked_copy`] says.
fn copy_table(
    source: &Connection,
    copy: &Connection,
    context: &ToolContext,
    object: &Object,
) -> Result<(), Stop> {
    let columns = table_columns(source, &object.name)?;
    let declared: Vec<String> = columns
        .iter()
        .map(|column| {
            format!(
                "{} {}",
                quote_identifier(&column.name),
                column.declared_type
            )
        })
        .collect();
    copy.execute_batch(&format!(
        "CREATE TABLE {} ({});",
        quote_identifier(&object.name),
        declared.join(", ")
    ))?;
    let secret: Vec<Option<String>> = columns
        .iter()
        .map(|column| secret_column(context, &column.name))
        .collect();
    let all: Vec<&ColumnInfo> = columns.iter().collect();
    let mut select = source.prepare(&format!(
        "SELECT {} FROM {}{}",
        column_list(&all),
        quote_identifier(&object.name),
        order_by(object, &columns)
    ))?;
    let marks: Vec<String> = (1..=columns.len()).map(|n| format!("?{n}")).collect();
    let mut insert = copy.prepare(&format!(
        "INSERT INTO {} VALUES ({})",
        quote_identifier(&object.name),
        marks.join(", ")
    ))?;
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        let mut values: Vec<Value> = (0..columns.len())
            .map(|index| row.get::<_, Value>(index))
            .collect::<Result<_, _>>()?;
        mask_row(context, &mut values, &secret);
        insert.execute(rusqlite::params_from_iter(values.iter()))?;
    }
    Ok(())
}

/// The texts of a row as the content shows them through the run's filter: each of a secret
/// column beside its name, then the row laid out as `a | b | c` and filtered whole (a cell
/// naming the next one's secret); where the filtered row no longer splits into as many cells,
/// each text is filtered alone.
fn mask_row(context: &ToolContext, values: &mut [Value], secret: &[Option<String>]) {
    for (value, name) in values.iter_mut().zip(secret) {
        if let (Value::Text(text), Some(name)) = (&*value, name) {
            *value = Value::Text(column_cell(context, name, text));
        }
    }
    let shown: Vec<String> = values.iter().map(value_text).collect();
    let line = shown.join(" | ");
    let Cow::Owned(masked) = context.filter_content(&line) else {
        return;
    };
    let parts: Vec<&str> = masked.split(" | ").collect();
    for (index, value) in values.iter_mut().enumerate() {
        let Value::Text(text) = &*value else { continue };
        let masked_text = if parts.len() == shown.len() {
            parts[index].to_owned()
        } else {
            context.filter_content(text).into_owned()
        };
        if masked_text != *text {
            *value = Value::Text(masked_text);
        }
    }
}

/// A value as a row of the content writes it.
fn value_text(value: &Value) -> String {
    match value {
        Value::Null => "NULL".to_owned(),
        Value::Integer(number) => number.to_string(),
        Value::Real(number) => real_text(*number),
        Value::Text(text) => text.clone(),
        Value::Blob(bytes) => format!("<blob of {} bytes>", bytes.len()),
    }
}

/// The call's time limit (and its cancellation), and the limits every connection of a tool has.
fn guard(connection: &mut Connection, context: &ToolContext) -> Result<(), Stop> {
    let limit = context
        .extension::<QueryTimeLimit>()
        .map_or(DEFAULT_QUERY_TIME, |limit| limit.0);
    let deadline = Instant::now() + limit;
    // Also interrupted once the caller stops waiting (the call's own timeout, if sooner).
    let cancel = context.cancel_flag();
    connection.progress_handler(
        1_000,
        Some(move || Instant::now() >= deadline || cancel.load(Ordering::Relaxed)),
    )?;
    connection.set_limit(Limit::SQLITE_LIMIT_LENGTH, VALUE_BYTES_LIMIT)?;
    connection.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
    connection.execute_batch("PRAGMA trusted_schema = OFF;")?;
    Ok(())
}

/// rusqlite panics on column names and declared types that are not UTF-8; they come from the
/// schema, so a schema that is not UTF-8 is refused up front.
fn check_schema_text(connection: &Connection) -> Result<(), Stop> {
    let mut statement = connection.prepare("SELECT name, tbl_name, sql FROM sqlite_schema")?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        for index in 0..3 {
            if let ValueRef::Text(bytes) = row.get_ref(index)?
                && std::str::from_utf8(bytes).is_err()
            {
                return Err(Stop::Fail(
                    "Error: the database schema is not valid UTF-8.".to_owned(),
                ));
            }
        }
    }
    Ok(())
}

/// A table or a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Table,
    View,
}

impl Kind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Table => "table",
            Self::View => "view",
        }
    }

    pub(crate) fn title(self) -> &'static str {
        match self {
            Self::Table => "Table",
            Self::View => "View",
        }
    }
}

/// A table or view of the schema.
#[derive(Debug, Clone)]
pub(crate) struct Object {
    pub(crate) name: String,
    pub(crate) kind: Kind,
}

/// The tables and views of the database, by name, without SQLite's own.
pub(crate) fn objects(connection: &Connection) -> Result<Vec<Object>, Stop> {
    let mut statement = connection.prepare(
        "SELECT name, type FROM sqlite_schema \
         WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
         ORDER BY name",
    )?;
    let mut rows = statement.query([])?;
    let mut objects = Vec::new();
    while let Some(row) = rows.next()? {
        let kind = if text_of(row.get_ref(1)?) == "view" {
            Kind::View
        } else {
            Kind::Table
        };
        objects.push(Object {
            name: text_of(row.get_ref(0)?),
            kind,
        });
    }
    Ok(objects)
}

/// The object of this name: exactly, else the one that matches ignoring ASCII case.
pub(crate) fn find_object<'a>(objects: &'a [Object], name: &str) -> Result<&'a Object, Stop> {
    if let Some(object) = objects.iter().find(|object| object.name == name) {
        return Ok(object);
    }
    let mut folded = objects
        .iter()
        .filter(|object| object.name.eq_ignore_ascii_case(name));
    if let (Some(object), None) = (folded.next(), folded.next()) {
        return Ok(object);
    }
    Err(Stop::Refuse(if objects.is_empty() {
        format!(
            "Table {} does not exist; the database has no tables.",
            quoted(name)
        )
    } else {
        format!(
            "Table {} does not exist. Tables: {}.",
            quoted(name),
            name_list(objects.iter().map(|object| object.name.as_str()))
        )
    }))
}

/// A column as `pragma table_info` describes it.
#[derive(Debug, Clone)]
pub(crate) struct ColumnInfo {
    pub(crate) name: String,
    pub(crate) declared_type: String,
    pub(crate) not_null: bool,
    pub(crate) default: Option<String>,
    /// 0, or the column's 1-based place in the primary key.
    pub(crate) primary_key: i64,
}

impl ColumnInfo {
    pub(crate) fn is_boolean(&self) -> bool {
        is_boolean_type(&self.declared_type)
    }

    pub(crate) fn summary(&self) -> String {
        let mut summary = self.name.clone();
        for part in [
            (!self.declared_type.is_empty()).then_some(self.declared_type.as_str()),
            self.not_null.then_some("NOT NULL"),
        ]
        .into_iter()
        .flatten()
        {
            summary.push(' ');
            summary.push_str(part);
        }
        if let Some(default) = &self.default {
            let _ = write!(summary, " DEFAULT {default}");
        }
        summary
    }
}

/// The columns of a table or view (whose name is known to exist).
pub(crate) fn table_columns(connection: &Connection, table: &str) -> Result<Vec<ColumnInfo>, Stop> {
    let mut statement = connection.prepare(
        "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1) ORDER BY cid",
    )?;
    let mut rows = statement.query([table])?;
    let mut columns = Vec::new();
    while let Some(row) = rows.next()? {
        let default = match row.get_ref(3)? {
            ValueRef::Null => None,
            value => Some(text_of(value)),
        };
        columns.push(ColumnInfo {
            name: text_of(row.get_ref(0)?),
            declared_type: text_of(row.get_ref(1)?),
            not_null: integer_of(row.get_ref(2)?) != 0,
            default,
            primary_key: integer_of(row.get_ref(4)?),
        });
    }
    Ok(columns)
}

/// The column of this name: exactly, else the one that matches ignoring ASCII case.
pub(crate) fn find_column<'a>(
    columns: &'a [ColumnInfo],
    table: &str,
    name: &str,
) -> Result<&'a ColumnInfo, Stop> {
    if let Some(column) = columns.iter().find(|column| column.name == name) {
        return Ok(column);
    }
    let mut folded = columns
        .iter()
        .filter(|column| column.name.eq_ignore_ascii_case(name));
    if let (Some(column), None) = (folded.next(), folded.next()) {
        return Ok(column);
    }
    Err(Stop::Refuse(format!(
        "Column {} does not exist in {}. Columns: {}.",
        quoted(name),
        quoted(table),
        name_list(columns.iter().map(|column| column.name.as_str()))
    )))
}

/// A `WHERE` clause over validated columns, its parameters and how it reads in a message.
pub(crate) struct Filter {
    /// Empty, or ` WHERE ...`.
    pub(crate) sql: String,
    pub(crate) parameters: Vec<Value>,
    /// Empty, or ` where a = "x" and b is null`.
    pub(crate) description: String,
}

impl Filter {
    /// All of `filters` must hold; each column must exist.
    pub(crate) fn new(
        columns: &[ColumnInfo],
        table: &str,
        filters: &[ColumnValue],
    ) -> Result<Self, Stop> {
        let mut conditions = Vec::with_capacity(filters.len());
        let mut described = Vec::with_capacity(filters.len());
        let mut parameters = Vec::with_capacity(filters.len());
        for filter in filters {
            let column = find_column(columns, table, &filter.column)?;
            let name = quote_identifier(&column.name);
            match &filter.value {
                None => {
                    conditions.push(format!("{name} IS NULL"));
                    described.push(format!("{} is null", column.name));
                }
                Some(value) => {
                    parameters.push(bind_value(Some(value), column.is_boolean()));
                    conditions.push(format!("{name} = ?{}", parameters.len()));
                    described.push(format!("{} = {}", column.name, describe_value(value)));
                }
            }
        }
        if conditions.is_empty() {
            return Ok(Self {
                sql: String::new(),
                parameters,
                description: String::new(),
            });
        }
        Ok(Self {
            sql: format!(" WHERE {}", conditions.join(" AND ")),
            parameters,
            description: format!(" where {}", described.join(" and ")),
        })
    }
}

pub(crate) fn check_filter_count(filters: &[ColumnValue]) -> Result<(), Stop> {
    if filters.len() > MAX_FILTERS {
        return Err(Stop::Fail(format!(
            "Error: where_equals takes at most {MAX_FILTERS} filters, not {}.",
            filters.len()
        )));
    }
    Ok(())
}

/// The SQL value for a model's value; in a BOOLEAN column `"true"` and `"false"` are 1 and 0.
pub(crate) fn bind_value(value: Option<&Scalar>, boolean_column: bool) -> Value {
    match value {
        None => Value::Null,
        Some(Scalar::Boolean(value)) => Value::Integer(i64::from(*value)),
        Some(Scalar::Integer(value)) => Value::Integer(*value),
        Some(Scalar::Real(value)) => Value::Real(*value),
        Some(Scalar::Text(text)) if boolean_column && text.eq_ignore_ascii_case("true") => {
            Value::Integer(1)
        }
        Some(Scalar::Text(text)) if boolean_column && text.eq_ignore_ascii_case("false") => {
            Value::Integer(0)
        }
        Some(Scalar::Text(text)) => Value::Text(text.clone()),
    }
}

/// A value as a message shows it.
pub(crate) fn describe_value(value: &Scalar) -> String {
    match value {
        Scalar::Boolean(value) => value.to_string(),
        Scalar::Integer(value) => value.to_string(),
        Scalar::Real(value) => real_text(*value),
        Scalar::Text(text) => quoted(text),
    }
}

/// One value as people's table holds it: NULL is [`Cell::Null`], 0 and 1 in a BOOLEAN column are
/// `false` and `true`, and a text is whole (the content shows it through [`content_cell`]).
pub(crate) fn cell(value: ValueRef<'_>, boolean: bool) -> Cell {
    Cell::Text(match value {
        ValueRef::Null => return Cell::Null,
        ValueRef::Integer(0) if boolean => "false".to_owned(),
        ValueRef::Integer(1) if boolean => "true".to_owned(),
        ValueRef::Integer(value) => value.to_string(),
        ValueRef::Real(value) => real_text(value),
        ValueRef::Text(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        ValueRef::Blob(bytes) => format!("<blob of {} bytes>", bytes.len()),
    })
}

/// A cell as the model's content shows it, on one line: NULL is `NULL`, whitespace runs become
/// one space, a text is cut at [`CELL_CHARS`] characters ending in `…`, and a text that would
/// read as NULL (or starts with `"`) is written as a JSON string (`Cell`'s `Display`). A text
/// goes through the run's content filter first: on one line, a tab between a name and its value
/// (`API_TOKEN<tab>…`) would be a space the filter no longer reads as a cell's end.
pub(crate) fn content_cell(cell: &Cell, context: &ToolContext) -> String {
    match cell {
        Cell::Text(text) => Cell::Text(tidy(&context.filter_content(text))).to_string(),
        _ => cell.to_string(),
    }
}

/// Whitespace collapsed and trimmed, cut at [`CELL_CHARS`] characters with `…`.
pub(crate) fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(CELL_CHARS * 4 + 3));
    let mut chars = 0;
    for word in text.split_whitespace() {
        if chars > 0 {
            if chars == CELL_CHARS {
                out.push('…');
                return out;
            }
            out.push(' ');
            chars += 1;
        }
        for character in word.chars() {
            if chars == CELL_CHARS {
                // Cut between words: no space before the ellipsis.
                if out.ends_with(' ') {
                    out.pop();
                }
                out.push('…');
                return out;
            }
            out.push(character);
            chars += 1;
        }
    }
    out
}

/// A real always with its fraction (`10.0`, not `10`), so it reads as a real.
fn real_text(value: f64) -> String {
    let mut text = value.to_string();
    if value.is_finite() && !text.contains(['.', 'e', 'E']) {
        text.push_str(".0");
    }
    text
}

/// Whether a declared type names booleans.
pub(crate) fn is_boolean_type(declared: &str) -> bool {
    let declared = declared.trim();
    declared.eq_ignore_ascii_case("BOOLEAN") || declared.eq_ignore_ascii_case("BOOL")
}

/// An identifier quoted for SQL. Only names read from the schema are quoted.
pub(crate) fn quote_identifier(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A name or value for a message: in double quotes with control characters escaped, and cut
/// at [`ECHO_CHARS`] characters.
pub(crate) fn quoted(text: &str) -> String {
    let cut: String = text.chars().take(ECHO_CHARS).collect();
    let mut out = format!("{cut:?}");
    if cut.len() < text.len() {
        out.push('…');
    }
    out
}

/// Names joined with commas, at most [`NAMES_LISTED`] of them.
pub(crate) fn name_list<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let count = names.len();
    let mut listed: Vec<&str> = names.take(NAMES_LISTED).collect();
    if count > NAMES_LISTED {
        listed.push("…");
        return format!("{} ({count} in all)", listed.join(", "));
    }
    listed.join(", ")
}

pub(crate) fn text_of(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::Null => String::new(),
        ValueRef::Integer(value) => value.to_string(),
        ValueRef::Real(value) => real_text(value),
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
            String::from_utf8_lossy(bytes).into_owned()
        }
    }
}

pub(crate) fn integer_of(value: ValueRef<'_>) -> i64 {
    match value {
        ValueRef::Integer(value) => value,
        _ => 0,
    }
}

/// Rows for the content and the artifact, each cell computed once: the content shows the first
/// [`CONTENT_ROWS`] rows within [`CONTENT_ROW_BYTES`] as `a | b | c` lines, the artifact all.
pub(crate) struct Records {
    table: Table,
    /// The header line.
    lines: String,
    /// The rows the content shows, laid out by [`finish`](Self::finish) through the run's
    /// filter.
    shown_rows: Vec<Vec<Cell>>,
    /// Bytes the content's lines take, as the rows read before the filter.
    width: usize,
    rows: usize,
    shown: usize,
}

impl Records {
    pub(crate) fn new<C: Into<String>>(columns: impl IntoIterator<Item = C>) -> Self {
        let columns: Vec<String> = columns.into_iter().map(Into::into).collect();
        let lines = columns.join(" | ");
        Self {
            table: Table::new(columns),
            width: lines.len(),
            lines,
            shown_rows: Vec::new(),
            rows: 0,
            shown: 0,
        }
    }

    pub(crate) fn push<V: Into<Cell>>(
        &mut self,
        row: impl IntoIterator<Item = V>,
    ) -> Result<(), Stop> {
        let row: Vec<Cell> = row.into_iter().map(Into::into).collect();
        if self.shown == self.rows && self.shown < CONTENT_ROWS {
            let width = 1
                + row
                    .iter()
                    .map(|cell| match cell {
                        Cell::Text(text) => Cell::Text(tidy(text)).to_string().len(),
                        _ => cell.to_string().len(),
                    })
                    .sum::<usize>()
                + 3 * row.len().saturating_sub(1);
            if self.shown == 0 || self.width + width <= CONTENT_ROW_BYTES {
                self.width += width;
                self.shown_rows.push(row.clone());
                self.shown += 1;
            }
        }
        self.table
            .push_row(row)
            .map_err(|error| Stop::Fail(format!("Error: {error}")))?;
        self.rows += 1;
        Ok(())
    }

    pub(crate) fn len(&self) -> usize {
        self.rows
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Rows the content shows.
    pub(crate) fn shown(&self) -> usize {
        self.shown
    }

    /// The summary, the rows shown, a line for those not shown (saying where they are only
    /// when people see the table) and the tool's own hint.
    pub(crate) fn finish(
        self,
        context: &ToolContext,
        summary: String,
        tail: Option<String>,
        label: &str,
    ) -> ToolResult {
        let mut text = summary;
        text.push('\n');
        text.push_str(&self.lines);
        // A column whose name says secret: each of its texts filtered beside that name.
        let secret: Vec<Option<String>> = self
            .table
            .columns()
            .iter()
            .map(|name| secret_column(context, name))
            .collect();
        for row in &self.shown_rows {
            let cells: Vec<String> = row
                .iter()
                .zip(&secret)
                .map(|(cell, secret)| match (cell, secret) {
                    (Cell::Text(text), Some(name)) => {
                        content_cell(&Cell::Text(column_cell(context, name, text)), context)
                    }
                    _ => content_cell(cell, context),
                })
                .collect();
            text.push('\n');
            text.push_str(&cells.join(" | "));
        }
        let hidden = self.rows - self.shown;
        if hidden > 0 {
            let rows = plural(hidden, "more row", "more rows");
            let _ = if context.artifacts_shown() {
                write!(
                    text,
                    "\n… {rows} not shown here; the user sees every row in a table."
                )
            } else {
                write!(
                    text,
                    "\n… {rows} not shown here, and this connection shows no tables."
                )
            };
        }
        if let Some(tail) = tail {
            text.push('\n');
            text.push_str(&tail);
        }
        ToolResult::text_with(text, [ToolArtifact::table(label, self.table)])
    }
}

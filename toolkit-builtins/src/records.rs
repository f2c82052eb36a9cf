//! Tools that read the run's SQLite database: its tables, their schemas and their records.
//!
//! The database is the run's [`Database`](crate::Database), a typed extension of its context. Every tool
//! here opens it read-only three times over: the connection is opened with
//! `SQLITE_OPEN_READ_ONLY`, `PRAGMA query_only` is on, and no database can be attached. Table and
//! column names from the model are looked up in the real schema before they are quoted into SQL;
//! values are always bound as parameters. [`query_sql`] runs the model's own SQL, and SQLite
//! itself decides whether it is one read-only `SELECT`: an authorizer denies every action but
//! reading, the prepared statement must be read-only, and nothing may follow it.
//!
//! A name that does not exist is a refusal that lists the names there are; a missing database or
//! an SQLite failure is an error. Both set the error flag; a query that matched nothing is a
//! plain answer. Every tool whose answer is records returns a short text
//! (a summary and the first rows) and the full rows as a table artifact built from the same cells.

use std::sync::{Arc, Mutex};

use rusqlite::fallible_iterator::FallibleIterator as _;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Batch, Connection, ErrorCode, Statement, params_from_iter};
use toolkit::{ToolContext, ToolResult, tool};

use crate::shared::plural;
use crate::sqlite::{
    Access, ColumnInfo, Filter, Kind, Object, Records, Stop, answer, cell, check_filter_count,
    column_list, describe_value, find_column, find_object, integer_of, is_boolean_type,
    masked_copy, name_list, objects, open, order_by, quote_identifier, quoted, table_columns,
    text_of, tidy,
};
pub use crate::sqlite::{
    CELL_CHARS, CONTENT_ROW_BYTES, CONTENT_ROWS, ColumnValue, DEFAULT_QUERY_TIME, MAX_FILTERS,
    QueryTimeLimit, Scalar,
};

/// Most rows [`read_records`] and [`search_records`] return at once.
pub const MAX_LIMIT: usize = 50;
/// Largest `offset` [`read_records`] accepts.
pub const MAX_OFFSET: usize = 10_000;
/// Most rows [`query_sql`] returns.
pub const QUERY_ROW_LIMIT: usize = 200;
/// Longest SQL [`query_sql`] accepts, in bytes.
pub const QUERY_SQL_LIMIT: usize = 10_000;

/// Lists the tables and views of the database with their row counts.
#[tool(read_only, idempotent, group = "records")]
pub fn list_tables(context: &ToolContext) -> ToolResult {
    answer(|| {
        let connection = open_read_only(context)?;
        let objects = objects(&connection)?;
        if objects.is_empty() {
            return Ok(ToolResult::text("The database has no tables."));
        }
        let mut records = Records::new(["name", "type", "rows"]);
        for object in &objects {
            let rows = row_count(&connection, object)?;
            records.push(vec![
                object.name.clone(),
                object.kind.as_str().to_owned(),
                rows.to_string(),
            ])?;
        }
        let summary = format!("The database has {}:", kinds_summary(&objects));
        Ok(records.finish(context, summary, None, "Tables"))
    })
}

/// Shows the columns of a table or view: name, declared type, whether it may be null, its
/// default and whether it is part of the primary key; then its foreign keys and indexes.
#[tool(read_only, idempotent, group = "records")]
pub fn get_table_schema(
    /// The table or view.
    table: String,
    context: &ToolContext,
) -> ToolResult {
    answer(|| {
        let connection = open_read_only(context)?;
        let objects = objects(&connection)?;
        let object = find_object(&objects, &table)?;
        let columns = table_columns(&connection, &object.name)?;
        let mut records = Records::new(["name", "type", "not null", "default", "primary key"]);
        for column in &columns {
            records.push(vec![
                column.name.clone(),
                column.declared_type.clone(),
                yes_no(column.not_null).to_owned(),
                column.default.clone().unwrap_or_default(),
                yes_no(column.primary_key > 0).to_owned(),
            ])?;
        }
        let summary = format!(
            "{} {} has {}:",
            object.kind.title(),
            quoted(&object.name),
            plural(columns.len(), "column", "columns")
        );
        let mut tail = Vec::new();
        let foreign_keys = foreign_keys(&connection, &object.name)?;
        if !foreign_keys.is_empty() {
            tail.push(format!("Foreign keys: {}.", foreign_keys.join(", ")));
        }
        let indexes = indexes(&connection, &object.name)?;
        if !indexes.is_empty() {
            tail.push(format!("Indexes: {}.", indexes.join(", ")));
        }
        let tail = (!tail.is_empty()).then(|| tail.join("\n"));
        Ok(records.finish(
            context,
            summary,
            tail,
            &format!("Columns of {}", object.name),
        ))
    })
}

/// Reads records of a table or view, optionally only those whose columns equal given values,
/// only some columns, and a page at a time. Rows come in primary-key order.
#[tool(
    read_only,
    idempotent,
    group = "records",
    title = "Reads records of a table or view"
)]
pub fn read_records(
    /// The table or view.
    table: String,
    /// At most 5 filters, all of which must hold: the column equals the value (null: is NULL).
    where_equals: Option<Vec<ColumnValue>>,
    /// The columns to return, in this order; all columns when absent or empty.
    fields: Option<Vec<String>>,
    /// Most rows to return (1 to 50).
    #[arg(default = 20)]
    limit: usize,
    /// Rows to skip first (at most 10000).
    #[arg(default = 0)]
    offset: usize,
    context: &ToolContext,
) -> ToolResult {
    answer(|| {
        check_limit(limit)?;
        if offset > MAX_OFFSET {
            return Err(Stop::Fail(format!(
                "Error: offset must be at most {MAX_OFFSET}, not {offset}."
            )));
        }
        let filters = where_equals.unwrap_or_default();
        check_filter_count(&filters)?;
        let connection = open_values(context)?;
        let objects = objects(&connection)?;
        let object = find_object(&objects, &table)?;
        let columns = table_columns(&connection, &object.name)?;
        let selected = select_columns(&columns, &object.name, &fields.unwrap_or_default())?;
        let filter = Filter::new(&columns, &object.name, &filters)?;

        let total = count_where(&connection, object, &filter)?;
        let name = quoted(&object.name);
        if total == 0 {
            return Ok(ToolResult::text(format!(
                "No rows in {name}{}.",
                filter.description
            )));
        }
        if offset >= total {
            return Err(Stop::Refuse(format!(
                "No rows at offset {offset}: {name} has {}{}. Give an offset from 0 to {}.",
                plural(total, "row", "rows"),
                filter.description,
                total - 1
            )));
        }
        let sql = format!(
            "SELECT {} FROM {}{}{} LIMIT {limit} OFFSET {offset}",
            column_list(&selected),
            quote_identifier(&object.name),
            filter.sql,
            order_by(object, &columns),
        );
        let records = fetch(&connection, &sql, &filter.parameters, &selected, limit)?;
        let fetched = records.len();
        let summary = format!(
            "Rows {}-{} of {total} in {name}{}:",
            offset + 1,
            offset + fetched,
            filter.description
        );
        let tail = if records.shown() < fetched {
            Some(format!(
                "Use offset {} to read them.",
                offset + records.shown()
            ))
        } else if offset + fetched < total {
            Some(format!(
                "More rows follow: use offset {}.",
                offset + fetched
            ))
        } else {
            None
        };
        let label = format!(
            "{}, rows {}-{} of {total}",
            object.name,
            offset + 1,
            offset + fetched
        );
        Ok(records.finish(context, summary, tail, &label))
    })
}

/// Finds the records of a table or view any of whose text columns contains a text
/// (case-insensitive for ASCII letters; `%` and `_` are matched literally).
#[tool(
    read_only,
    idempotent,
    group = "records",
    title = "Finds the records of a table or view that contain a text"
)]
pub fn search_records(
    /// The table or view.
    table: String,
    /// The text to look for, 2 to 100 characters.
    query: String,
    /// Most rows to return (1 to 50).
    #[arg(default = 20)]
    limit: usize,
    context: &ToolContext,
) -> ToolResult {
    answer(|| {
        let query = query.trim();
        let length = query.chars().count();
        if !(2..=100).contains(&length) {
            return Err(Stop::Fail(format!(
                "Error: query must be 2 to 100 characters long, not {length}."
            )));
        }
        if query.contains('\0') {
            return Err(Stop::Fail(
                "Error: query cannot contain a NUL character (U+0000): SQLite would end the text there."
                    .to_owned(),
            ));
        }
        check_limit(limit)?;
        let connection = open_values(context)?;
        let objects = objects(&connection)?;
        let object = find_object(&objects, &table)?;
        let columns = table_columns(&connection, &object.name)?;
        let name = quoted(&object.name);
        let searched: Vec<&ColumnInfo> = columns
            .iter()
            .filter(|column| has_text_affinity(&column.declared_type))
            .collect();
        if searched.is_empty() {
            return Err(Stop::Refuse(format!(
                "{name} has no text columns to search. Its columns: {}. read_records with where_equals finds rows by their values.",
                name_list(columns.iter().map(|column| column.name.as_str()))
            )));
        }
        let condition = searched
            .iter()
            .map(|column| format!("{} LIKE ?1 ESCAPE '\\'", quote_identifier(&column.name)))
            .collect::<Vec<_>>()
            .join(" OR ");
        let filter = Filter {
            sql: format!(" WHERE ({condition})"),
            parameters: vec![Value::Text(format!("%{}%", escape_like(query)))],
            description: String::new(),
        };
        let searched_names = name_list(searched.iter().map(|column| column.name.as_str()));
        let total = count_where(&connection, object, &filter)?;
        if total == 0 {
            return Ok(ToolResult::text(format!(
                "No rows in {name} contain {} (searched {searched_names}).",
                quoted(query)
            )));
        }
        let all: Vec<&ColumnInfo> = columns.iter().collect();
        let sql = format!(
            "SELECT {} FROM {}{}{} LIMIT {limit}",
            column_list(&all),
            quote_identifier(&object.name),
            filter.sql,
            order_by(object, &columns),
        );
        let records = fetch(&connection, &sql, &filter.parameters, &all, limit)?;
        let fetched = records.len();
        let found = if fetched < total {
            format!("The first {fetched} of {total} rows in {name} that contain")
        } else if total == 1 {
            format!("1 row in {name} contains")
        } else {
            format!("{total} rows in {name} contain")
        };
        let summary = format!("{found} {} (searched {searched_names}):", quoted(query));
        let tail = (fetched < total).then(|| "Use a longer query to narrow the search.".to_owned());
        Ok(records.finish(
            context,
            summary,
            tail,
            &format!("{} matching {}", object.name, quoted(query)),
        ))
    })
}

/// Counts the records of a table or view, optionally only those whose columns equal given
/// values.
#[tool(read_only, idempotent, group = "records")]
pub fn count_records(
    /// The table or view.
    table: String,
    /// At most 5 filters, all of which must hold: the column equals the value (null: is NULL).
    where_equals: Option<Vec<ColumnValue>>,
    context: &ToolContext,
) -> ToolResult {
    answer(|| {
        let filters = where_equals.unwrap_or_default();
        check_filter_count(&filters)?;
        let connection = open_values(context)?;
        let objects = objects(&connection)?;
        let object = find_object(&objects, &table)?;
        let columns = table_columns(&connection, &object.name)?;
        let filter = Filter::new(&columns, &object.name, &filters)?;
        let total = count_where(&connection, object, &filter)?;
        Ok(ToolResult::text(format!(
            "{} has {}{}.",
            quoted(&object.name),
            plural(total, "row", "rows"),
            filter.description
        )))
    })
}

/// Runs one read-only SQL `SELECT` (SQLite dialect) and returns at most 200 rows. Anything that
/// would change the database, attach another, set a pragma or run more than one statement is
/// refused by SQLite itself.
#[tool(read_only, group = "records")]
pub fn query_sql(
    /// One `SELECT` statement (a `WITH` query and `VALUES` are fine too).
    sql: String,
    context: &ToolContext,
) -> ToolResult {
    answer(|| {
        if sql.trim().is_empty() {
            return Err(Stop::Fail("Error: sql is empty.".to_owned()));
        }
        if sql.len() > QUERY_SQL_LIMIT {
            return Err(Stop::Fail(format!(
                "Error: sql is {} bytes long; the limit is {QUERY_SQL_LIMIT}.",
                sql.len()
            )));
        }
        let mut connection = open_values(context)?;
        let denied = Arc::new(Mutex::new(None::<String>));
        let record = Arc::clone(&denied);
        connection.authorizer(Some(move |action: AuthContext<'_>| {
            authorize(&action, &record)
        }))?;
        let refuse_or_fail = |error: rusqlite::Error| {
            if error.sqlite_error_code() != Some(ErrorCode::AuthorizationForStatementDenied) {
                return Stop::from(error);
            }
            let what = denied.lock().ok().and_then(|mut denied| denied.take());
            Stop::Refuse(what.map_or_else(
                || NOT_A_SELECT.to_owned(),
                |what| format!("{NOT_A_SELECT_PREFIX}; this one would {what}."),
            ))
        };
        // A batch, not `prepare`, so that a second statement is told apart from a refused first.
        let mut batch = Batch::new(&connection, &sql);
        let statement = match batch.next() {
            Ok(Some(statement)) => statement,
            Ok(None) => return Err(Stop::Fail("Error: sql holds no statement.".to_owned())),
            Err(error) => return Err(refuse_or_fail(error)),
        };
        if !matches!(batch.next(), Ok(None)) {
            return Err(Stop::Refuse(
                "Refused: query_sql runs exactly one statement; this SQL has more than one. Send each statement in its own call."
                    .to_owned(),
            ));
        }
        if !statement.readonly() || statement.column_count() == 0 {
            return Err(Stop::Refuse(NOT_A_SELECT.to_owned()));
        }
        let mut names = Vec::with_capacity(statement.column_count());
        for index in 0..statement.column_count() {
            names.push(
                statement
                    .column_name(index)
                    .map_or_else(|_| format!("column {}", index + 1), tidy),
            );
        }
        let booleans: Vec<bool> = statement
            .columns()
            .map(|column| column.decl_type().is_some_and(is_boolean_type))
            .collect();
        let (records, more) = collect_rows(
            statement,
            names.clone(),
            &booleans,
            &[],
            QUERY_ROW_LIMIT,
            refuse_or_fail,
        )?;
        if records.is_empty() {
            return Ok(ToolResult::text(format!(
                "The query returned no rows (columns: {}).",
                names.join(", ")
            )));
        }
        let summary = if more {
            format!(
                "The query returned more than {QUERY_ROW_LIMIT} rows; the first {QUERY_ROW_LIMIT} are kept:"
            )
        } else {
            format!(
                "The query returned {}:",
                plural(records.len(), "row", "rows")
            )
        };
        let tail =
            more.then(|| "Add a WHERE, LIMIT or GROUP BY clause to see the rest.".to_owned());
        Ok(records.finish(context, summary, tail, "Query result"))
    })
}

/// Describes the whole database: every table and view with its row count, primary key,
/// columns, indexes and foreign keys.
#[tool(read_only, idempotent, group = "records")]
pub fn describe_database(context: &ToolContext) -> ToolResult {
    answer(|| {
        let connection = open_read_only(context)?;
        let objects = objects(&connection)?;
        if objects.is_empty() {
            return Ok(ToolResult::text("The database has no tables."));
        }
        let mut records = Records::new([
            "name",
            "type",
            "rows",
            "primary key",
            "columns",
            "indexes",
            "foreign keys",
        ]);
        for object in &objects {
            let columns = table_columns(&connection, &object.name)?;
            let mut key: Vec<&ColumnInfo> = columns
                .iter()
                .filter(|column| column.primary_key > 0)
                .collect();
            key.sort_by_key(|column| column.primary_key);
            records.push(vec![
                object.name.clone(),
                object.kind.as_str().to_owned(),
                row_count(&connection, object)?.to_string(),
                name_list(key.iter().map(|column| column.name.as_str())),
                columns
                    .iter()
                    .map(ColumnInfo::summary)
                    .collect::<Vec<_>>()
                    .join(", "),
                indexes(&connection, &object.name)?.join(", "),
                foreign_keys(&connection, &object.name)?.join(", "),
            ])?;
        }
        let summary = format!("The database has {}:", kinds_summary(&objects));
        Ok(records.finish(context, summary, None, "Database"))
    })
}

const NOT_A_SELECT_PREFIX: &str = "Refused: query_sql runs only read-only SELECT statements";
const NOT_A_SELECT: &str = "Refused: query_sql runs only read-only SELECT statements.";

fn open_read_only(context: &ToolContext) -> Result<Connection, Stop> {
    open(context, Access::ReadOnly)
}

/// The database for a tool that reads values: as it is, or, in a run that filters content, as
/// the filter passes it ([`masked_copy`]).
fn open_values(context: &ToolContext) -> Result<Connection, Stop> {
    let connection = open_read_only(context)?;
    if context.filters_content() {
        masked_copy(&connection, context)
    } else {
        Ok(connection)
    }
}

/// Pragmas [`query_sql`] may run: they only describe the schema.
const SCHEMA_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
];

/// Whether a table is SQLite's record of the schema.
fn is_schema_table(name: &str) -> bool {
    [
        "sqlite_master",
        "sqlite_schema",
        "sqlite_temp_master",
        "sqlite_temp_schema",
    ]
    .iter()
    .any(|schema| schema.eq_ignore_ascii_case(name))
}

/// Allows reading and nothing else; remembers what it denied first.
fn authorize(context: &AuthContext<'_>, denied: &Mutex<Option<String>>) -> Authorization {
    let what = match context.action {
        AuthAction::Select
        | AuthAction::Read { .. }
        | AuthAction::Function { .. }
        | AuthAction::Recursive => return Authorization::Allow,
        // The schema pragmas only read, as statements and as table-valued functions.
        AuthAction::Pragma { pragma_name, .. }
            if SCHEMA_PRAGMAS
                .iter()
                .any(|allowed| allowed.eq_ignore_ascii_case(pragma_name)) =>
        {
            return Authorization::Allow;
        }
        // Creating, altering or dropping anything first writes SQLite's own schema table.
        AuthAction::Insert { table_name } if is_schema_table(table_name) => {
            "create a schema object".to_owned()
        }
        AuthAction::Update { table_name, .. } if is_schema_table(table_name) => {
            "change the schema".to_owned()
        }
        AuthAction::Delete { table_name } if is_schema_table(table_name) => {
            "drop a schema object".to_owned()
        }
        AuthAction::Insert { table_name } => format!("insert into {}", quoted(table_name)),
        AuthAction::Update { table_name, .. } => format!("update {}", quoted(table_name)),
        AuthAction::Delete { table_name } => format!("delete from {}", quoted(table_name)),
        AuthAction::Attach { .. } => "attach a database".to_owned(),
        AuthAction::Detach { .. } => "detach a database".to_owned(),
        AuthAction::Pragma { pragma_name, .. } => format!("run PRAGMA {pragma_name}"),
        AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => {
            "control a transaction".to_owned()
        }
        AuthAction::CreateTable { .. }
        | AuthAction::CreateTempTable { .. }
        | AuthAction::CreateIndex { .. }
        | AuthAction::CreateTempIndex { .. }
        | AuthAction::CreateView { .. }
        | AuthAction::CreateTempView { .. }
        | AuthAction::CreateTrigger { .. }
        | AuthAction::CreateTempTrigger { .. }
        | AuthAction::CreateVtable { .. } => "create a schema object".to_owned(),
        AuthAction::DropTable { .. }
        | AuthAction::DropTempTable { .. }
        | AuthAction::DropIndex { .. }
        | AuthAction::DropTempIndex { .. }
        | AuthAction::DropView { .. }
        | AuthAction::DropTempView { .. }
        | AuthAction::DropTrigger { .. }
        | AuthAction::DropTempTrigger { .. }
        | AuthAction::DropVtable { .. } => "drop a schema object".to_owned(),
        AuthAction::AlterTable { .. } => "alter a table".to_owned(),
        AuthAction::Analyze { .. } => "analyze tables".to_owned(),
        AuthAction::Reindex { .. } => "rebuild indexes".to_owned(),
        _ => "change the database or the connection".to_owned(),
    };
    if let Ok(mut denied) = denied.lock()
        && denied.is_none()
    {
        *denied = Some(what);
    }
    Authorization::Deny
}

fn select_columns<'a>(
    columns: &'a [ColumnInfo],
    table: &str,
    fields: &[String],
) -> Result<Vec<&'a ColumnInfo>, Stop> {
    if fields.is_empty() {
        return Ok(columns.iter().collect());
    }
    fields
        .iter()
        .map(|field| find_column(columns, table, field))
        .collect()
}

fn check_limit(limit: usize) -> Result<(), Stop> {
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Stop::Fail(format!(
            "Error: limit must be between 1 and {MAX_LIMIT}, not {limit}."
        )));
    }
    Ok(())
}

fn count_where(connection: &Connection, object: &Object, filter: &Filter) -> Result<usize, Stop> {
    let sql = format!(
        "SELECT count(*) FROM {}{}",
        quote_identifier(&object.name),
        filter.sql
    );
    let count: i64 =
        connection.query_row(&sql, params_from_iter(filter.parameters.iter()), |row| {
            row.get(0)
        })?;
    Ok(usize::try_from(count).unwrap_or(0))
}

fn row_count(connection: &Connection, object: &Object) -> Result<usize, Stop> {
    let empty = Filter {
        sql: String::new(),
        parameters: Vec::new(),
        description: String::new(),
    };
    count_where(connection, object, &empty)
}

/// Runs a query over known columns and collects at most `limit` rows.
fn fetch(
    connection: &Connection,
    sql: &str,
    parameters: &[Value],
    columns: &[&ColumnInfo],
    limit: usize,
) -> Result<Records, Stop> {
    let statement = connection.prepare(sql)?;
    let names = columns.iter().map(|column| column.name.clone()).collect();
    let booleans: Vec<bool> = columns.iter().map(|column| column.is_boolean()).collect();
    let (records, _) = collect_rows(statement, names, &booleans, parameters, limit, Stop::from)?;
    Ok(records)
}

/// Steps a statement, turning each value into its cell once; says whether rows were left over.
fn collect_rows(
    mut statement: Statement<'_>,
    names: Vec<String>,
    booleans: &[bool],
    parameters: &[Value],
    limit: usize,
    on_error: impl Fn(rusqlite::Error) -> Stop,
) -> Result<(Records, bool), Stop> {
    let width = names.len();
    let mut records = Records::new(names);
    let mut rows = statement
        .query(params_from_iter(parameters.iter()))
        .map_err(&on_error)?;
    while let Some(row) = rows.next().map_err(&on_error)? {
        if records.len() == limit {
            return Ok((records, true));
        }
        let mut cells = Vec::with_capacity(width);
        for index in 0..width {
            let boolean = booleans.get(index).copied().unwrap_or(false);
            cells.push(cell(row.get_ref(index).map_err(&on_error)?, boolean));
        }
        records.push(cells)?;
    }
    Ok((records, false))
}

/// Whether a column declared so holds text (SQLite's affinity rules; no type holds anything).
fn has_text_affinity(declared: &str) -> bool {
    let upper = declared.to_ascii_uppercase();
    if upper.contains("INT") {
        return false;
    }
    upper.contains("CHAR")
        || upper.contains("CLOB")
        || upper.contains("TEXT")
        || upper.trim().is_empty()
}

/// A `LIKE` pattern's special characters escaped with `\`.
fn escape_like(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        if matches!(character, '\\' | '%' | '_') {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    escaped
}

fn kinds_summary(objects: &[Object]) -> String {
    let views = objects
        .iter()
        .filter(|object| object.kind == Kind::View)
        .count();
    let tables = plural(objects.len() - views, "table", "tables");
    if views == 0 {
        tables
    } else {
        format!("{tables} and {}", plural(views, "view", "views"))
    }
}

fn yes_no(value: bool) -> &'static str {
    if value { "yes" } else { "no" }
}

/// `customer_id -> customers(id)` for each foreign key of a table.
fn foreign_keys(connection: &Connection, table: &str) -> Result<Vec<String>, Stop> {
    let mut statement = connection.prepare(
        "SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
    )?;
    let mut rows = statement.query([table])?;
    let mut keys = Vec::new();
    while let Some(row) = rows.next()? {
        let target = text_of(row.get_ref(0)?);
        let from = text_of(row.get_ref(1)?);
        let to = text_of(row.get_ref(2)?);
        keys.push(if to.is_empty() {
            format!("{from} -> {target}")
        } else {
            format!("{from} -> {target}({to})")
        });
    }
    Ok(keys)
}

/// `name (a, b)` for each index of a table, `unique` marked.
fn indexes(connection: &Connection, table: &str) -> Result<Vec<String>, Stop> {
    let mut statement =
        connection.prepare("SELECT name, \"unique\" FROM pragma_index_list(?1) ORDER BY name")?;
    let mut rows = statement.query([table])?;
    let mut listed = Vec::new();
    while let Some(row) = rows.next()? {
        listed.push((text_of(row.get_ref(0)?), integer_of(row.get_ref(1)?) != 0));
    }
    drop(rows);
    let mut described = Vec::with_capacity(listed.len());
    let mut columns =
        connection.prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")?;
    for (name, unique) in listed {
        let mut rows = columns.query([&name])?;
        let mut parts = Vec::new();
        while let Some(row) = rows.next()? {
            parts.push(match row.get_ref(0)? {
                ValueRef::Null => "<expression>".to_owned(),
                value => text_of(value),
            });
        }
        let unique = if unique { "unique " } else { "" };
        described.push(format!("{name} {unique}({})", parts.join(", ")));
    }
    Ok(described)
}

/// Rows a change preview shows.
const PREVIEW_ROWS: usize = 10;

/// Shows the rows an `update_record` or `delete_record` call would touch, without changing
/// anything: how many rows its filters match and the first 10 of them (and, for an update, the
/// values it would set). An operator sees this before approving such a call.
#[tool(read_only, idempotent, group = "records")]
pub fn preview_record_change(
    /// The table.
    table: String,
    /// 1 to 5 filters, all of which must hold: the column equals the value (null: is NULL).
    where_equals: Vec<ColumnValue>,
    /// The new values of an update (absent for a delete).
    values: Option<Vec<ColumnValue>>,
    context: &ToolContext,
) -> ToolResult {
    answer(|| {
        check_filter_count(&where_equals)?;
        let connection = open_read_only(context)?;
        let objects = objects(&connection)?;
        let object = find_object(&objects, &table)?;
        let columns = table_columns(&connection, &object.name)?;
        let filter = Filter::new(&columns, &object.name, &where_equals)?;
        let name = quoted(&object.name);
        let total = count_where(&connection, object, &filter)?;
        if total == 0 {
            return Ok(ToolResult::text(format!(
                "No rows in {name}{}: the call would change nothing.",
                filter.description
            )));
        }
        let all: Vec<&ColumnInfo> = columns.iter().collect();
        let sql = format!(
            "SELECT {} FROM {}{}{} LIMIT {PREVIEW_ROWS}",
            column_list(&all),
            quote_identifier(&object.name),
            filter.sql,
            order_by(object, &columns),
        );
        let records = fetch(&connection, &sql, &filter.parameters, &all, PREVIEW_ROWS)?;
        let rows = plural(total, "row", "rows");
        let listed = if records.len() < total {
            format!("the first {}", records.len())
        } else {
            "all of them".to_owned()
        };
        let summary = match &values {
            Some(values) => format!(
                "The call would set {} in {rows} of {name}{}; {listed}:",
                assignments_text(values),
                filter.description
            ),
            None => format!(
                "The call would delete {rows} of {name}{}; {listed}:",
                filter.description
            ),
        };
        Ok(records.finish(
            context,
            summary,
            None,
            &format!("Rows of {} the call would change", object.name),
        ))
    })
}

/// `name = "Ada", email = null`: the values an update would set, as a message shows them.
fn assignments_text(values: &[ColumnValue]) -> String {
    values
        .iter()
        .map(|value| {
            let shown = value
                .value
                .as_ref()
                .map_or_else(|| "null".to_owned(), describe_value);
            format!("{} = {shown}", value.column)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

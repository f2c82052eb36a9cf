//! The records tools against real SQLite files: the sample database and small ones built here.
//! Every call goes through the seam; every table artifact is checked against the content and
//! against the database's own values.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use rusqlite::types::{Value, ValueRef};
use tempfile::TempDir;
use toolkit::{
    BoundedResult, Table, ToolContext, ToolLoopService,
    result::{ArtifactType, Cell},
};
use toolkit_builtins::records::QueryTimeLimit;
use toolkit_builtins::sample::create_sample_database;

const RECORD_TOOLS: [&str; 7] = [
    "list_tables",
    "get_table_schema",
    "read_records",
    "search_records",
    "count_records",
    "query_sql",
    "describe_database",
];

const CUSTOMER_COLUMNS: &str =
    "id | name | email | country | city | is_active | notes | created_at";

/// A database file in a folder of its own, removed with it.
struct Database {
    folder: TempDir,
    path: PathBuf,
}

fn sample() -> Database {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("sample.db");
    assert!(create_sample_database(&path).expect("the sample database"));
    Database { folder, path }
}

fn database(sql: &str) -> Database {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("test.db");
    let connection = Connection::open(&path).expect("a new database");
    connection.execute_batch(sql).expect("the test schema");
    drop(connection);
    Database { folder, path }
}

fn service() -> ToolLoopService {
    ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"))
}

async fn call_in(context: ToolContext, tool: &str, arguments: &str) -> BoundedResult {
    let service = service();
    let scope = service
        .scope_offering(context, service.registry().names())
        .unwrap();
    service.invoke(&scope, tool, arguments).await
}

async fn call(database: &Path, tool: &str, arguments: &str) -> BoundedResult {
    call_in(
        ToolContext::new().with_extension(toolkit_builtins::Database::new(database)),
        tool,
        arguments,
    )
    .await
}

fn content(result: &BoundedResult) -> &str {
    result.content()
}

/// A text answer: not an error, no artifact.
fn assert_text(result: &BoundedResult, expected: &str) {
    assert_eq!(content(result), expected);
    assert!(!result.is_error(), "{}", content(result));
    assert!(result.artifacts().is_empty());
}

fn assert_error(result: &BoundedResult, expected: &str) {
    assert_eq!(content(result), expected);
    assert!(result.is_error());
    assert!(result.artifacts().is_empty());
}

/// The one artifact of a records answer: a table with this label.
fn table<'a>(result: &'a BoundedResult, label: &str) -> &'a Table {
    assert!(!result.is_error(), "{}", content(result));
    let [artifact] = result.artifacts() else {
        panic!("one artifact, not {}", result.artifacts().len());
    };
    assert_eq!(artifact.kind(), ArtifactType::Table);
    assert_eq!(artifact.label(), label);
    artifact.as_table().expect("a table")
}

/// Every artifact cell is in the content or accounted for there: the line after the summary is
/// the columns joined by ` | `, each row the content shows is exactly the artifact's cells, as
/// [`reference_content`] writes them, joined the same way, in order, and the rows it does not show are counted by the line that says so.
/// Returns the rows shown.
fn assert_content_shows(result: &BoundedResult, label: &str) -> usize {
    let table = table(result, label);
    let mut lines = content(result).lines();
    lines.next().expect("a summary line");
    assert_eq!(lines.next(), Some(table.columns().join(" | ").as_str()));
    let mut shown = 0;
    for row in table.rows() {
        let written: Vec<String> = row.iter().map(reference_content).collect();
        for cell in &written {
            assert!(!cell.contains('\n'), "a cell is one line: {cell:?}");
        }
        if lines.clone().next() != Some(written.join(" | ").as_str()) {
            break;
        }
        lines.next();
        shown += 1;
    }
    let hidden = table.rows().len() - shown;
    if hidden > 0 {
        let rows = if hidden == 1 { "row" } else { "rows" };
        assert_eq!(
            lines.next(),
            Some(
                format!(
                    "… {hidden} more {rows} not shown here; the user sees every row in a table."
                )
                .as_str()
            )
        );
    }
    shown
}

/// The cell people's table should hold for a value, written out independently of the tools'
/// code: NULL is no value, 0/1 in a BOOLEAN column are words, a text is whole.
fn reference_cell(value: Value, boolean: bool) -> Cell {
    Cell::Text(match value {
        Value::Null => return Cell::Null,
        Value::Integer(1) if boolean => "true".to_owned(),
        Value::Integer(0) if boolean => "false".to_owned(),
        Value::Integer(value) => value.to_string(),
        Value::Real(value) => format!("{value:?}"),
        Value::Text(text) => text,
        Value::Blob(bytes) => format!("<blob of {} bytes>", bytes.len()),
    })
}

/// How the content should write a cell, independently of the tools' code: NULL is `NULL`,
/// whitespace runs become one space, a text longer than 300 characters keeps 300 (no trailing
/// space) and ends in `…`, and a text reading as NULL or starting with `"` is a JSON string.
fn reference_content(cell: &Cell) -> String {
    let Some(text) = cell.as_text() else {
        return "NULL".to_owned();
    };
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = if collapsed.chars().count() > 300 {
        let kept: String = collapsed.chars().take(300).collect();
        format!("{}…", kept.trim_end())
    } else {
        collapsed
    };
    if cut.eq_ignore_ascii_case("null") || cut.starts_with('"') {
        serde_json::to_string(&cut).expect("a string")
    } else {
        cut
    }
}

/// The artifact's rows are the rows `sql` reads from the database, each cell derived from the
/// database's value by [`reference_cell`].
fn assert_artifact_derives_from(table: &Table, database: &Path, sql: &str, booleans: &[&str]) {
    let connection = Connection::open(database).expect("the database");
    let mut statement = connection.prepare(sql).expect("the reference query");
    let names: Vec<String> = statement.column_names().map(str::to_owned).collect();
    assert_eq!(table.columns(), names.as_slice());
    let expected: Vec<Vec<Cell>> = statement
        .query_map([], |row| {
            (0..names.len())
                .map(|index| {
                    let value = match row.get_ref(index)? {
                        ValueRef::Null => Value::Null,
                        ValueRef::Integer(value) => Value::Integer(value),
                        ValueRef::Real(value) => Value::Real(value),
                        ValueRef::Text(bytes) => {
                            Value::Text(String::from_utf8_lossy(bytes).into_owned())
                        }
                        ValueRef::Blob(bytes) => Value::Blob(bytes.to_vec()),
                    };
                    Ok(reference_cell(
                        value,
                        booleans.contains(&names[index].as_str()),
                    ))
                })
                .collect()
        })
        .expect("the reference rows")
        .collect::<Result<_, _>>()
        .expect("readable rows");
    assert_eq!(table.rows(), expected.as_slice());
}

fn file_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("the database file")
}

fn folder_entries(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .expect("the folder")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

// --- registration and the database itself ---

#[test]
fn the_records_tools_are_read_only_tools_offered_by_default() {
    let registry = toolkit_builtins::registry().expect("no duplicate names");
    for name in RECORD_TOOLS {
        let spec = registry.get(name).expect("registered").spec();
        assert_eq!(spec.group(), "records", "{name}");
        let flags = spec.flags();
        assert!(flags.enabled_by_default(), "{name}");
        assert!(!flags.requires_approval(), "{name}");
        assert!(!flags.requires_admin(), "{name}");
        assert!(!flags.remote(), "{name}");
    }
}

#[tokio::test]
async fn every_records_tool_without_a_database_is_an_error() {
    for (tool, arguments) in [
        ("list_tables", "{}"),
        ("get_table_schema", r#"{"table": "customers"}"#),
        ("read_records", r#"{"table": "customers"}"#),
        (
            "search_records",
            r#"{"table": "customers", "query": "ada"}"#,
        ),
        ("count_records", r#"{"table": "customers"}"#),
        ("query_sql", r#"{"sql": "SELECT 1"}"#),
        ("describe_database", "{}"),
    ] {
        let result = call_in(ToolContext::new(), tool, arguments).await;
        assert_error(&result, "Error: no database is configured for this run.");
    }
}

#[tokio::test]
async fn a_missing_database_is_an_error_and_is_not_created() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("missing.db");
    for tool in ["list_tables", "describe_database"] {
        let result = call(&path, tool, "{}").await;
        assert!(result.is_error());
        assert_eq!(
            content(&result),
            "Error: cannot open the database: the file does not exist or cannot be opened."
        );
    }
    assert!(folder_entries(folder.path()).is_empty());
}

#[tokio::test]
async fn a_file_that_is_not_a_database_is_an_error() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("notes.db");
    std::fs::write(&path, "these are not the pages of a database\n".repeat(200))
        .expect("a text file");
    let before = file_bytes(&path);
    let result = call(&path, "list_tables", "{}").await;
    assert_error(&result, "Error: SQLite: file is not a database");
    assert_eq!(file_bytes(&path), before);
}

#[tokio::test]
async fn a_schema_that_is_not_utf8_is_an_error_not_a_panic() {
    let db = database(
        "CREATE TABLE t (name TEXT);
         INSERT INTO t VALUES ('x');
         PRAGMA writable_schema = ON;
         UPDATE sqlite_schema SET sql = CAST(X'435245415445205441424C452074202866FF2054455854293B' AS TEXT)
             WHERE name = 't';",
    );
    for (tool, arguments) in [
        ("list_tables", "{}"),
        ("read_records", r#"{"table": "t"}"#),
        ("query_sql", r#"{"sql": "SELECT * FROM t"}"#),
        ("describe_database", "{}"),
    ] {
        let result = call(&db.path, tool, arguments).await;
        assert_error(&result, "Error: the database schema is not valid UTF-8.");
    }
}

#[tokio::test]
async fn an_empty_database_has_no_tables() {
    let db = database("");
    assert_text(
        &call(&db.path, "list_tables", "{}").await,
        "The database has no tables.",
    );
    assert_text(
        &call(&db.path, "describe_database", "{}").await,
        "The database has no tables.",
    );
    assert_error(
        &call(&db.path, "read_records", r#"{"table": "customers"}"#).await,
        "Table \"customers\" does not exist; the database has no tables.",
    );
}

// --- list_tables ---

#[tokio::test]
async fn list_tables_counts_the_rows_of_every_table_and_view() {
    let db = sample();
    let result = call(&db.path, "list_tables", "{}").await;
    assert_eq!(
        content(&result),
        "The database has 4 tables and 1 view:\n\
         name | type | rows\n\
         customers | table | 12\n\
         order_items | table | 38\n\
         order_totals | view | 20\n\
         orders | table | 20\n\
         products | table | 10"
    );
    assert_eq!(assert_content_shows(&result, "Tables"), 5);
    assert_eq!(
        table(&result, "Tables").rows()[1],
        ["order_items", "table", "38"]
    );
}

#[tokio::test]
async fn list_tables_leaves_out_sqlite_s_own_tables() {
    let db = database(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT);
         INSERT INTO notes (body) VALUES ('one'), ('two');
         ANALYZE;",
    );
    let result = call(&db.path, "list_tables", "{}").await;
    assert_eq!(
        content(&result),
        "The database has 1 table:\nname | type | rows\nnotes | table | 2"
    );
    assert_eq!(assert_content_shows(&result, "Tables"), 1);
}

// --- get_table_schema ---

#[tokio::test]
async fn get_table_schema_lists_columns_then_foreign_keys_and_indexes() {
    let db = sample();
    let result = call(&db.path, "get_table_schema", r#"{"table": "orders"}"#).await;
    assert_eq!(
        content(&result),
        "Table \"orders\" has 6 columns:\n\
         name | type | not null | default | primary key\n\
         id | INTEGER | no |  | yes\n\
         customer_id | INTEGER | yes |  | no\n\
         ordered_at | TEXT | yes |  | no\n\
         status | TEXT | yes | 'pending' | no\n\
         shipped | BOOLEAN | yes | 0 | no\n\
         note | TEXT | no |  | no\n\
         Foreign keys: customer_id -> customers(id).\n\
         Indexes: idx_orders_customer (customer_id), idx_orders_status (status, ordered_at)."
    );
    assert_eq!(assert_content_shows(&result, "Columns of orders"), 6);
    assert_eq!(
        table(&result, "Columns of orders").rows()[3],
        ["status", "TEXT", "yes", "'pending'", "no"]
    );
}

#[tokio::test]
async fn get_table_schema_of_a_view_and_of_a_composite_key() {
    let db = sample();
    let result = call(&db.path, "get_table_schema", r#"{"table": "order_totals"}"#).await;
    assert_eq!(
        content(&result),
        "View \"order_totals\" has 4 columns:\n\
         name | type | not null | default | primary key\n\
         order_id | INTEGER | no |  | no\n\
         customer | TEXT | no |  | no\n\
         status | TEXT | no |  | no\n\
         total |  | no |  | no"
    );
    assert_eq!(assert_content_shows(&result, "Columns of order_totals"), 4);

    let result = call(&db.path, "get_table_schema", r#"{"table": "order_items"}"#).await;
    assert_eq!(
        content(&result),
        "Table \"order_items\" has 4 columns:\n\
         name | type | not null | default | primary key\n\
         order_id | INTEGER | yes |  | yes\n\
         product_id | INTEGER | yes |  | yes\n\
         quantity | INTEGER | yes |  | no\n\
         unit_price | REAL | yes |  | no\n\
         Foreign keys: product_id -> products(id), order_id -> orders(id).\n\
         Indexes: idx_order_items_product (product_id), \
         sqlite_autoindex_order_items_1 unique (order_id, product_id)."
    );
    assert_eq!(assert_content_shows(&result, "Columns of order_items"), 4);
}

#[tokio::test]
async fn an_unknown_table_is_a_refusal_that_lists_the_tables() {
    let db = sample();
    let expected = "Table \"shipments\" does not exist. \
                    Tables: customers, order_items, order_totals, orders, products.";
    for (tool, arguments) in [
        ("get_table_schema", r#"{"table": "shipments"}"#),
        ("read_records", r#"{"table": "shipments"}"#),
        (
            "search_records",
            r#"{"table": "shipments", "query": "ada"}"#,
        ),
        ("count_records", r#"{"table": "shipments"}"#),
    ] {
        assert_error(&call(&db.path, tool, arguments).await, expected);
    }
    // SQLite's own tables are not the model's to read this way; a hostile name is echoed inert.
    assert_error(
        &call(&db.path, "read_records", r#"{"table": "sqlite_schema"}"#).await,
        "Table \"sqlite_schema\" does not exist. \
         Tables: customers, order_items, order_totals, orders, products.",
    );
    assert_error(
        &call(
            &db.path,
            "count_records",
            r#"{"table": "x\"; DROP TABLE orders; --\n"}"#,
        )
        .await,
        "Table \"x\\\"; DROP TABLE orders; --\\n\" does not exist. \
         Tables: customers, order_items, order_totals, orders, products.",
    );
    assert_text(
        &call(&db.path, "count_records", r#"{"table": "orders"}"#).await,
        "\"orders\" has 20 rows.",
    );
}

#[tokio::test]
async fn table_and_column_names_match_ignoring_ascii_case() {
    let db = sample();
    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "CUSTOMERS", "fields": ["NAME"], "where_equals": [{"column": "Id", "value": 2}]}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        "Rows 1-1 of 1 in \"customers\" where id = 2:\nname\nJosé Álvarez"
    );
    assert_eq!(assert_content_shows(&result, "customers, rows 1-1 of 1"), 1);
}

// --- read_records ---

#[tokio::test]
async fn read_records_pages_in_primary_key_order() {
    let db = sample();
    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "customers", "limit": 3}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        format!(
            "Rows 1-3 of 12 in \"customers\":\n{CUSTOMER_COLUMNS}\n\
             1 | Ada Lovelace | ada@example.com | United Kingdom | London | true | Prefers e-mail. Pays on time. | 2024-01-15\n\
             2 | José Álvarez | jose.alvarez@example.es | Spain | Sevilla | true | NULL | 2024-02-03\n\
             3 | Zoë Müller | zoe@example.de | Germany | Köln | true | Asked for invoices in German. Ships to the office. | 2024-02-20\n\
             More rows follow: use offset 3."
        )
    );
    let label = "customers, rows 1-3 of 12";
    assert_eq!(assert_content_shows(&result, label), 3);
    assert_artifact_derives_from(
        table(&result, label),
        &db.path,
        "SELECT * FROM customers ORDER BY id LIMIT 3",
        &["is_active"],
    );

    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "customers", "limit": 5, "offset": 10}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        format!(
            "Rows 11-12 of 12 in \"customers\":\n{CUSTOMER_COLUMNS}\n\
             11 | Hiroshi Tanaka | hiroshi@example.jp | Japan | 東京 | true | NULL | 2024-07-14\n\
             12 | Ana Souza | ana.souza@example.br | Brazil | São Paulo | true | Wants 100% recycled packaging. | 2024-08-02"
        )
    );
    assert_eq!(
        assert_content_shows(&result, "customers, rows 11-12 of 12"),
        2
    );
}

#[tokio::test]
async fn read_records_defaults_to_20_rows() {
    let db = sample();
    let result = call(&db.path, "read_records", r#"{"table": "order_items"}"#).await;
    let label = "customers, rows 1-20 of 38".replace("customers", "order_items");
    assert_eq!(assert_content_shows(&result, &label), 20);
    assert!(
        content(&result).starts_with("Rows 1-20 of 38 in \"order_items\":\n"),
        "{}",
        content(&result)
    );
    assert!(content(&result).ends_with("\n11 | 10 | 4 | 25.0\nMore rows follow: use offset 20."));
    assert_artifact_derives_from(
        table(&result, &label),
        &db.path,
        "SELECT * FROM order_items ORDER BY order_id, product_id LIMIT 20",
        &[],
    );
}

#[tokio::test]
async fn read_records_up_to_50_rows_shows_20_and_puts_all_in_the_artifact() {
    let db = sample();
    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "order_items", "limit": 50}"#,
    )
    .await;
    let label = "order_items, rows 1-38 of 38";
    assert_eq!(assert_content_shows(&result, label), 20);
    assert!(content(&result).ends_with(
        "\n11 | 10 | 4 | 25.0\n\
         … 18 more rows not shown here; the user sees every row in a table.\n\
         Use offset 20 to read them."
    ));
    assert_eq!(table(&result, label).rows().len(), 38);
    assert_artifact_derives_from(
        table(&result, label),
        &db.path,
        "SELECT * FROM order_items ORDER BY order_id, product_id",
        &[],
    );
}

#[tokio::test]
async fn read_records_refuses_out_of_range_arguments() {
    let db = sample();
    for (arguments, expected) in [
        (
            r#"{"table": "customers", "limit": 0}"#,
            "Error: limit must be between 1 and 50, not 0.",
        ),
        (
            r#"{"table": "customers", "limit": 51}"#,
            "Error: limit must be between 1 and 50, not 51.",
        ),
        (
            r#"{"table": "customers", "offset": 10001}"#,
            "Error: offset must be at most 10000, not 10001.",
        ),
        (
            r#"{"table": "customers", "where_equals": [
                {"column": "id", "value": 1}, {"column": "id", "value": 1},
                {"column": "id", "value": 1}, {"column": "id", "value": 1},
                {"column": "id", "value": 1}, {"column": "id", "value": 1}]}"#,
            "Error: where_equals takes at most 5 filters, not 6.",
        ),
    ] {
        assert_error(&call(&db.path, "read_records", arguments).await, expected);
    }
    // Types the schema does not allow never reach the tool.
    for arguments in [
        r#"{"table": "customers", "limit": -1}"#,
        r#"{"table": "customers", "where_equals": [{"column": "id", "value": [1]}]}"#,
        r#"{"table": "customers", "where_equals": [{"column": "id", "valeu": 1}]}"#,
        r#"{"table": "customers", "fields": "name"}"#,
    ] {
        let result = call(&db.path, "read_records", arguments).await;
        assert!(result.is_error(), "{arguments}");
        assert!(
            content(&result).contains("\"read_records\""),
            "{}",
            content(&result)
        );
    }
    // The largest offset is allowed; past the rows, it is refused with the offsets there are.
    assert_error(
        &call(
            &db.path,
            "read_records",
            r#"{"table": "customers", "offset": 10000}"#,
        )
        .await,
        "No rows at offset 10000: \"customers\" has 12 rows. Give an offset from 0 to 11.",
    );
    // Five filters are allowed.
    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "customers", "fields": ["name"], "where_equals": [
            {"column": "id", "value": 1}, {"column": "country", "value": "United Kingdom"},
            {"column": "city", "value": "London"}, {"column": "is_active", "value": true},
            {"column": "name", "value": "Ada Lovelace"}]}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        "Rows 1-1 of 1 in \"customers\" where id = 1 and country = \"United Kingdom\" \
         and city = \"London\" and is_active = true and name = \"Ada Lovelace\":\nname\nAda Lovelace"
    );
}

#[tokio::test]
async fn read_records_filters_by_equality_null_and_boolean_words() {
    let db = sample();
    let inactive = "Rows 1-2 of 2 in \"customers\" where is_active = false:\nid | name\n\
                    5 | Søren Kierkegaard\n10 | Marie Curie";
    for value in ["false", r#""false""#, r#""FALSE""#, "0"] {
        let arguments = format!(
            r#"{{"table": "customers", "fields": ["id", "name"], "where_equals": [{{"column": "is_active", "value": {value}}}]}}"#
        );
        let result = call(&db.path, "read_records", &arguments).await;
        let expected = inactive.replace("= false", &format!("= {value}"));
        assert_eq!(content(&result), expected, "{value}");
        assert_eq!(assert_content_shows(&result, "customers, rows 1-2 of 2"), 2);
    }

    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "customers", "fields": ["id", "name", "email"], "where_equals": [{"column": "email", "value": null}]}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        "Rows 1-1 of 1 in \"customers\" where email is null:\nid | name | email\n\
         5 | Søren Kierkegaard | NULL"
    );

    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "customers", "fields": ["id", "name"], "where_equals": [{"column": "country", "value": "France"}, {"column": "is_active", "value": true}]}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        "Rows 1-1 of 1 in \"customers\" where country = \"France\" and is_active = true:\n\
         id | name\n6 | Amélie Poulain"
    );

    // A number given as text still matches an INTEGER column (SQLite's affinity), and a real
    // matches a REAL column.
    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "customers", "fields": ["name"], "where_equals": [{"column": "id", "value": "3"}]}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        "Rows 1-1 of 1 in \"customers\" where id = \"3\":\nname\nZoë Müller"
    );
    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "order_items", "fields": ["order_id", "product_id"], "where_equals": [{"column": "unit_price", "value": 9.99}, {"column": "quantity", "value": 1}]}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        "Rows 1-1 of 1 in \"order_items\" where unit_price = 9.99 and quantity = 1:\n\
         order_id | product_id\n4 | 4"
    );

    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "products", "fields": ["sku", "in_stock"], "where_equals": [{"column": "in_stock", "value": "false"}]}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        "Rows 1-2 of 2 in \"products\" where in_stock = \"false\":\nsku | in_stock\n\
         CB-005 | false\nLS-008 | false"
    );
    assert_artifact_derives_from(
        table(&result, "products, rows 1-2 of 2"),
        &db.path,
        "SELECT sku, in_stock FROM products WHERE in_stock = 0 ORDER BY id",
        &["in_stock"],
    );

    assert_text(
        &call(
            &db.path,
            "read_records",
            r#"{"table": "customers", "where_equals": [{"column": "country", "value": "Peru"}]}"#,
        )
        .await,
        "No rows in \"customers\" where country = \"Peru\".",
    );
    // A filter value is a bound parameter, never SQL.
    assert_text(
        &call(
            &db.path,
            "read_records",
            r#"{"table": "customers", "where_equals": [{"column": "name", "value": "x' OR '1'='1"}]}"#,
        )
        .await,
        "No rows in \"customers\" where name = \"x' OR '1'='1\".",
    );
}

#[tokio::test]
async fn read_records_returns_the_fields_asked_for_in_their_order() {
    let db = sample();
    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "products", "fields": ["price", "name", "in_stock"], "limit": 2, "offset": 2}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        "Rows 3-4 of 10 in \"products\":\nprice | name | in_stock\n\
         249.0 | 27\" monitor | true\n9.99 | USB-C cable, 2 m | true\n\
         More rows follow: use offset 4."
    );
    assert_artifact_derives_from(
        table(&result, "products, rows 3-4 of 10"),
        &db.path,
        "SELECT price, name, in_stock FROM products ORDER BY id LIMIT 2 OFFSET 2",
        &["in_stock"],
    );

    // An empty list means every column.
    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "customers", "fields": [], "limit": 1}"#,
    )
    .await;
    assert_eq!(
        table(&result, "customers, rows 1-1 of 12")
            .columns()
            .join(" | "),
        CUSTOMER_COLUMNS
    );

    let unknown = "Column \"phone\" does not exist in \"customers\". \
                   Columns: id, name, email, country, city, is_active, notes, created_at.";
    assert_error(
        &call(
            &db.path,
            "read_records",
            r#"{"table": "customers", "fields": ["name", "phone"]}"#,
        )
        .await,
        unknown,
    );
    assert_error(
        &call(
            &db.path,
            "read_records",
            r#"{"table": "customers", "where_equals": [{"column": "phone", "value": "123"}]}"#,
        )
        .await,
        unknown,
    );
}

/// Texts of 300 and 301 characters and of 100 words, for the cells tests.
fn long_texts() -> (String, String, String) {
    ("a".repeat(300), "é".repeat(301), "word ".repeat(100))
}

/// A table of NULLs, booleans, numbers, whitespace, long texts, blobs and texts that read as NULL.
fn cells_database() -> Database {
    let (exactly_300, accents_301, words) = long_texts();
    database(&format!(
        "CREATE TABLE cells (id INTEGER PRIMARY KEY, flag BOOLEAN, legacy bool, count INTEGER,
                             ratio REAL, body TEXT, data BLOB);
         INSERT INTO cells VALUES
             (1, 1, 0, 1, 10.0, '  two' || char(10) || char(9) || 'lines ' || char(13, 10) || ' here  ', X'00FF10'),
             (2, 0, 1, 0, 2.5, NULL, NULL),
             (3, NULL, 2, NULL, NULL, '', NULL),
             (4, 'yes', NULL, -7, -0.125, '{exactly_300}', NULL),
             (5, 1, 1, 1, 3.0, '{accents_301}', NULL),
             (6, 0, 0, 0, 0.0, '{words}', NULL),
             (7, 1, 1, 1, 1.5, CAST(X'FF41' AS TEXT), X''),
             (8, 1, 1, 1, 1.5, 'null', '\"quoted\"'),
             (9, 1, 1, 1, 1.5, 'NULL', 'Null');"
    ))
}

#[tokio::test]
async fn cells_hold_null_as_no_value_booleans_as_words_and_whole_texts() {
    let (exactly_300, accents_301, words) = long_texts();
    let db = cells_database();
    let result = call(&db.path, "read_records", r#"{"table": "cells"}"#).await;
    let label = "cells, rows 1-9 of 9";
    // People's table holds every value whole, and NULL (`None` here) as no value.
    let (y, n) = (Some("true"), Some("false"));
    let expected: [[Option<&str>; 7]; 9] = [
        [
            Some("1"),
            y,
            n,
            Some("1"),
            Some("10.0"),
            Some("  two\n\tlines \r\n here  "),
            Some("<blob of 3 bytes>"),
        ],
        [Some("2"), n, y, Some("0"), Some("2.5"), None, None],
        [Some("3"), None, Some("2"), None, None, Some(""), None],
        [
            Some("4"),
            Some("yes"),
            None,
            Some("-7"),
            Some("-0.125"),
            Some(&exactly_300),
            None,
        ],
        [
            Some("5"),
            y,
            y,
            Some("1"),
            Some("3.0"),
            Some(&accents_301),
            None,
        ],
        [Some("6"), n, n, Some("0"), Some("0.0"), Some(&words), None],
        [
            Some("7"),
            y,
            y,
            Some("1"),
            Some("1.5"),
            Some("\u{FFFD}A"),
            Some("<blob of 0 bytes>"),
        ],
        [
            Some("8"),
            y,
            y,
            Some("1"),
            Some("1.5"),
            Some("null"),
            Some("\"quoted\""),
        ],
        [
            Some("9"),
            y,
            y,
            Some("1"),
            Some("1.5"),
            Some("NULL"),
            Some("Null"),
        ],
    ];
    let expected: Vec<Vec<Cell>> = expected
        .iter()
        .map(|row| row.iter().map(|cell| Cell::from(*cell)).collect())
        .collect();
    assert_eq!(table(&result, label).rows(), expected.as_slice());
    assert_artifact_derives_from(
        table(&result, label),
        &db.path,
        "SELECT * FROM cells ORDER BY id",
        &["flag", "legacy"],
    );
}

#[tokio::test]
async fn the_content_writes_cells_on_one_line_cut_and_null_apart_from_texts() {
    let (exactly_300, _, _) = long_texts();
    let db = cells_database();
    let result = call(&db.path, "read_records", r#"{"table": "cells"}"#).await;
    assert_eq!(assert_content_shows(&result, "cells, rows 1-9 of 9"), 9);
    let cut_accents = format!("{}…", "é".repeat(300));
    let cut_words = format!("{}…", "word ".repeat(60).trim_end());
    assert_eq!(cut_words.chars().count(), 300);
    assert_eq!(
        content(&result),
        format!(
            "Rows 1-9 of 9 in \"cells\":\nid | flag | legacy | count | ratio | body | data\n\
             1 | true | false | 1 | 10.0 | two lines here | <blob of 3 bytes>\n\
             2 | false | true | 0 | 2.5 | NULL | NULL\n\
             3 | NULL | 2 | NULL | NULL |  | NULL\n\
             4 | yes | NULL | -7 | -0.125 | {exactly_300} | NULL\n\
             5 | true | true | 1 | 3.0 | {cut_accents} | NULL\n\
             6 | false | false | 0 | 0.0 | {cut_words} | NULL\n\
             7 | true | true | 1 | 1.5 | \u{FFFD}A | <blob of 0 bytes>\n\
             8 | true | true | 1 | 1.5 | \"null\" | \"\\\"quoted\\\"\"\n\
             9 | true | true | 1 | 1.5 | \"NULL\" | \"Null\""
        )
    );
}

#[tokio::test]
async fn the_content_shows_the_rows_that_fit_and_counts_the_rest() {
    // 30 rows of about 1 000 bytes: the content keeps the first rows within its byte budget.
    let db = database(
        "CREATE TABLE pages (id INTEGER PRIMARY KEY, a TEXT, b TEXT, c TEXT, d TEXT);
         WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 30)
         INSERT INTO pages SELECT x, printf('%.300c', 'a'), printf('%.300c', 'b'),
                                  printf('%.300c', 'c'), printf('%.100c', 'd') FROM n;",
    );
    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "pages", "limit": 30}"#,
    )
    .await;
    let label = "pages, rows 1-30 of 30";
    let shown = assert_content_shows(&result, label);
    assert_eq!(shown, 3);
    assert!(content(&result).ends_with(
        "… 27 more rows not shown here; the user sees every row in a table.\n\
         Use offset 3 to read them."
    ));
    assert_artifact_derives_from(
        table(&result, label),
        &db.path,
        "SELECT * FROM pages ORDER BY id",
        &[],
    );
}

#[tokio::test]
async fn where_no_one_sees_tables_the_content_does_not_say_they_do() {
    let db = database(
        "CREATE TABLE pages (id INTEGER PRIMARY KEY, a TEXT, b TEXT, c TEXT, d TEXT);
         WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 30)
         INSERT INTO pages SELECT x, printf('%.300c', 'a'), printf('%.300c', 'b'),
                                  printf('%.300c', 'c'), printf('%.100c', 'd') FROM n;",
    );
    let unseen = ToolContext::new()
        .with_extension(toolkit_builtins::Database::new(&db.path))
        .with_artifacts_shown(false);
    let result = call_in(unseen, "read_records", r#"{"table": "pages", "limit": 5}"#).await;
    assert!(
        content(&result).ends_with(
            "… 2 more rows not shown here, and this connection shows no tables.\n\
             Use offset 3 to read them."
        ),
        "{}",
        content(&result)
    );
    assert!(!content(&result).contains("the user sees"));
    // The same call where people see tables says so.
    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "pages", "limit": 5}"#,
    )
    .await;
    assert!(content(&result).ends_with(
        "… 2 more rows not shown here; the user sees every row in a table.\n\
         Use offset 3 to read them."
    ));
}

#[tokio::test]
async fn a_table_without_a_declared_key_reads_in_rowid_order_and_a_view_in_its_own() {
    let db = database(
        "CREATE TABLE log (line TEXT);
         INSERT INTO log VALUES ('first'), ('second'), ('third');
         CREATE VIEW recent AS SELECT line FROM log ORDER BY rowid DESC;",
    );
    let result = call(&db.path, "read_records", r#"{"table": "log"}"#).await;
    assert_eq!(
        content(&result),
        "Rows 1-3 of 3 in \"log\":\nline\nfirst\nsecond\nthird"
    );
    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "recent", "limit": 2}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        "Rows 1-2 of 3 in \"recent\":\nline\nthird\nsecond\nMore rows follow: use offset 2."
    );
    assert_eq!(assert_content_shows(&result, "recent, rows 1-2 of 3"), 2);
}

#[tokio::test]
async fn odd_identifiers_are_quoted_from_the_schema() {
    let db = database(
        r#"CREATE TABLE "order ""details""" ("the key" INTEGER PRIMARY KEY, "select" TEXT);
           INSERT INTO "order ""details""" VALUES (1, 'from'), (2, 'where');"#,
    );
    let result = call(
        &db.path,
        "read_records",
        r#"{"table": "order \"details\"", "fields": ["select"], "where_equals": [{"column": "the key", "value": 2}]}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        "Rows 1-1 of 1 in \"order \\\"details\\\"\" where the key = 2:\nselect\nwhere"
    );
    assert_eq!(
        assert_content_shows(&result, "order \"details\", rows 1-1 of 1"),
        1
    );
}

// --- search_records ---

#[tokio::test]
async fn search_records_matches_text_columns_with_like_characters_taken_literally() {
    let db = sample();
    let result = call(
        &db.path,
        "search_records",
        r#"{"table": "products", "query": "100%"}"#,
    )
    .await;
    // Unescaped, `100%` would also match "100 W" and "100 × 100".
    assert_eq!(
        content(&result),
        "1 row in \"products\" contains \"100%\" (searched sku, name, category, description):\n\
         id | sku | name | category | price | in_stock | description\n\
         9 | WC-009 | Webcam | peripherals | 45.0 | true | 1080p, privacy shutter, 100% plug_and_play."
    );
    let label = "products matching \"100%\"";
    assert_eq!(assert_content_shows(&result, label), 1);
    assert_artifact_derives_from(
        table(&result, label),
        &db.path,
        "SELECT * FROM products WHERE id = 9",
        &["in_stock"],
    );

    // Unescaped, `_` would match the "e-m" of "e-mail".
    assert_text(
        &call(
            &db.path,
            "search_records",
            r#"{"table": "customers", "query": "e_m"}"#,
        )
        .await,
        "No rows in \"customers\" contain \"e_m\" (searched name, email, country, city, notes, created_at).",
    );
    let result = call(
        &db.path,
        "search_records",
        r#"{"table": "products", "query": "plug_and"}"#,
    )
    .await;
    assert_eq!(
        table(&result, "products matching \"plug_and\"")
            .rows()
            .len(),
        1
    );

    // The escape character itself is literal too.
    assert_text(
        &call(
            &db.path,
            "search_records",
            r#"{"table": "customers", "query": "a\\%_"}"#,
        )
        .await,
        "No rows in \"customers\" contain \"a\\\\%_\" (searched name, email, country, city, notes, created_at).",
    );

    // ASCII letters match in any case.
    let result = call(
        &db.path,
        "search_records",
        r#"{"table": "customers", "query": "  LONDON "}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        format!(
            "1 row in \"customers\" contains \"LONDON\" (searched name, email, country, city, notes, created_at):\n\
             {CUSTOMER_COLUMNS}\n\
             1 | Ada Lovelace | ada@example.com | United Kingdom | London | true | Prefers e-mail. Pays on time. | 2024-01-15"
        )
    );
    assert_eq!(
        assert_content_shows(&result, "customers matching \"LONDON\""),
        1
    );
}

#[tokio::test]
async fn search_records_says_how_many_matched_when_it_returns_fewer() {
    let db = sample();
    let result = call(
        &db.path,
        "search_records",
        r#"{"table": "customers", "query": "an", "limit": 2}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        format!(
            "The first 2 of 7 rows in \"customers\" that contain \"an\" (searched name, email, country, city, notes, created_at):\n\
             {CUSTOMER_COLUMNS}\n\
             3 | Zoë Müller | zoe@example.de | Germany | Köln | true | Asked for invoices in German. Ships to the office. | 2024-02-20\n\
             6 | Amélie Poulain | amelie@example.fr | France | Paris | true | NULL | 2024-04-12\n\
             Use a longer query to narrow the search."
        )
    );
    let label = "customers matching \"an\"";
    assert_eq!(assert_content_shows(&result, label), 2);
    assert_artifact_derives_from(
        table(&result, label),
        &db.path,
        "SELECT * FROM customers WHERE id IN (3, 6) ORDER BY id",
        &["is_active"],
    );
    let connection = Connection::open(&db.path).expect("the database");
    let total: i64 = connection
        .query_row(
            "SELECT count(*) FROM customers WHERE name LIKE '%an%' OR email LIKE '%an%' \
             OR country LIKE '%an%' OR city LIKE '%an%' OR notes LIKE '%an%'",
            [],
            |row| row.get(0),
        )
        .expect("the reference count");
    assert_eq!(total, 7);
}

#[tokio::test]
async fn search_records_refuses_a_nul_which_would_cut_the_pattern_short() {
    let db = sample();
    // SQLite reads a pattern up to its first NUL: "gr\0zz" would match every "gr".
    let nothing = call(
        &db.path,
        "search_records",
        r#"{"table": "customers", "query": "grzz"}"#,
    )
    .await;
    assert!(content(&nothing).starts_with("No rows in \"customers\" contain \"grzz\""));
    assert_error(
        &call(
            &db.path,
            "search_records",
            r#"{"table": "customers", "query": "gr\u0000zz"}"#,
        )
        .await,
        "Error: query cannot contain a NUL character (U+0000): SQLite would end the text there.",
    );
}

#[tokio::test]
async fn search_records_searches_a_view_and_refuses_what_it_cannot_search() {
    let db = sample();
    let result = call(
        &db.path,
        "search_records",
        r#"{"table": "order_totals", "query": "grace"}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        "3 rows in \"order_totals\" contain \"grace\" (searched customer, status, total):\n\
         order_id | customer | status | total\n\
         6 | Grace Hopper | delivered | 269.9\n\
         7 | Grace Hopper | shipped | 374.8\n\
         14 | Grace Hopper | paid | 206.85"
    );
    assert_eq!(
        assert_content_shows(&result, "order_totals matching \"grace\""),
        3
    );

    assert_error(
        &call(
            &db.path,
            "search_records",
            r#"{"table": "order_items", "query": "10"}"#,
        )
        .await,
        "\"order_items\" has no text columns to search. \
         Its columns: order_id, product_id, quantity, unit_price. \
         read_records with where_equals finds rows by their values.",
    );
    for (query, length) in [("a", 1), ("  a  ", 1), ("", 0)] {
        let arguments = format!(r#"{{"table": "customers", "query": "{query}"}}"#);
        assert_error(
            &call(&db.path, "search_records", &arguments).await,
            &format!("Error: query must be 2 to 100 characters long, not {length}."),
        );
    }
    let arguments = format!(
        r#"{{"table": "customers", "query": "{}"}}"#,
        "é".repeat(101)
    );
    assert_error(
        &call(&db.path, "search_records", &arguments).await,
        "Error: query must be 2 to 100 characters long, not 101.",
    );
    let arguments = format!(
        r#"{{"table": "customers", "query": "{}"}}"#,
        "é".repeat(100)
    );
    assert!(
        !call(&db.path, "search_records", &arguments)
            .await
            .is_error()
    );
    assert_error(
        &call(
            &db.path,
            "search_records",
            r#"{"table": "customers", "query": "an", "limit": 51}"#,
        )
        .await,
        "Error: limit must be between 1 and 50, not 51.",
    );
}

// --- count_records ---

#[tokio::test]
async fn count_records_counts_all_rows_or_those_that_match() {
    let db = sample();
    for (arguments, expected) in [
        (r#"{"table": "orders"}"#, "\"orders\" has 20 rows."),
        (
            r#"{"table": "order_totals"}"#,
            "\"order_totals\" has 20 rows.",
        ),
        (
            r#"{"table": "orders", "where_equals": [{"column": "status", "value": "paid"}]}"#,
            "\"orders\" has 5 rows where status = \"paid\".",
        ),
        (
            r#"{"table": "orders", "where_equals": [{"column": "customer_id", "value": 7}, {"column": "shipped", "value": true}]}"#,
            "\"orders\" has 2 rows where customer_id = 7 and shipped = true.",
        ),
        (
            r#"{"table": "customers", "where_equals": [{"column": "email", "value": null}]}"#,
            "\"customers\" has 1 row where email is null.",
        ),
        (
            r#"{"table": "customers", "where_equals": [{"column": "country", "value": "Peru"}]}"#,
            "\"customers\" has 0 rows where country = \"Peru\".",
        ),
    ] {
        assert_text(&call(&db.path, "count_records", arguments).await, expected);
    }
    assert_error(
        &call(
            &db.path,
            "count_records",
            r#"{"table": "orders", "where_equals": [{"column": "state", "value": "paid"}]}"#,
        )
        .await,
        "Column \"state\" does not exist in \"orders\". \
         Columns: id, customer_id, ordered_at, status, shipped, note.",
    );
    let six = r#"{"table": "orders", "where_equals": [
        {"column": "id", "value": 1}, {"column": "id", "value": 1}, {"column": "id", "value": 1},
        {"column": "id", "value": 1}, {"column": "id", "value": 1}, {"column": "id", "value": 1}]}"#;
    assert_error(
        &call(&db.path, "count_records", six).await,
        "Error: where_equals takes at most 5 filters, not 6.",
    );
}

// --- query_sql ---

#[tokio::test]
async fn query_sql_returns_rows_with_the_same_cells_as_the_other_tools() {
    let db = sample();
    let sql = "SELECT c.name, o.id AS order_id, o.shipped, o.shipped + 0 AS shipped_number \
               FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.id = 7 ORDER BY o.id";
    let arguments = serde_json::json!({ "sql": sql }).to_string();
    let result = call(&db.path, "query_sql", &arguments).await;
    assert_eq!(
        content(&result),
        "The query returned 3 rows:\n\
         name | order_id | shipped | shipped_number\n\
         Grace Hopper | 6 | true | 1\n\
         Grace Hopper | 7 | true | 1\n\
         Grace Hopper | 14 | false | 0"
    );
    assert_eq!(assert_content_shows(&result, "Query result"), 3);
    assert_artifact_derives_from(table(&result, "Query result"), &db.path, sql, &["shipped"]);

    let result = call(
        &db.path,
        "query_sql",
        r#"{"sql": "SELECT id, description FROM products WHERE id IN (3, 7) ORDER BY id"}"#,
    )
    .await;
    let rows = table(&result, "Query result").rows();
    // People's table has the whole description; the content cuts it.
    let whole = rows[0][1].as_text().expect("a text");
    assert!(whole.starts_with("A 27-inch IPS panel at 2560 × 1440"));
    assert!(
        whole.ends_with(
            "within a ΔE of 2. Wall-mountable with a 100 × 100 VESA plate (not included)."
        )
    );
    assert_eq!(whole.chars().count(), 386);
    let head: String = whole.chars().take(300).collect();
    assert!(head.ends_with("so what you see on screen is what gets"));
    assert!(content(&result).contains(&format!("\n3 | {head}…\n")));
    assert_eq!(
        rows[1][1],
        "Closed-back headset\nwith a detachable microphone."
    );
    assert!(content(&result).ends_with("\n7 | Closed-back headset with a detachable microphone."));
    assert_eq!(assert_content_shows(&result, "Query result"), 2);

    assert_text(
        &call(
            &db.path,
            "query_sql",
            r#"{"sql": "SELECT name, email FROM customers WHERE id = 99"}"#,
        )
        .await,
        "The query returned no rows (columns: name, email).",
    );

    // A column named by its expression is a cell like any other: one line, cut at 300.
    let sql = format!(
        "SELECT 1 +\n    {}",
        "1 + ".repeat(200).trim_end_matches(" + ")
    );
    let arguments = serde_json::json!({ "sql": sql }).to_string();
    let result = call(&db.path, "query_sql", &arguments).await;
    let header = format!("{}…", "1 + ".repeat(75).trim_end());
    assert_eq!(table(&result, "Query result").columns(), [header.as_str()]);
    assert_eq!(
        content(&result),
        format!("The query returned 1 row:\n{header}\n201")
    );
}

#[tokio::test]
async fn query_sql_keeps_at_most_200_rows() {
    let db = sample();
    let sql = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 500) \
               SELECT x FROM n";
    let arguments = serde_json::json!({ "sql": sql }).to_string();
    let result = call(&db.path, "query_sql", &arguments).await;
    let rows = (1..=20)
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        content(&result),
        format!(
            "The query returned more than 200 rows; the first 200 are kept:\nx\n{rows}\n\
             … 180 more rows not shown here; the user sees every row in a table.\n\
             Add a WHERE, LIMIT or GROUP BY clause to see the rest."
        )
    );
    assert_eq!(assert_content_shows(&result, "Query result"), 20);
    assert_artifact_derives_from(
        table(&result, "Query result"),
        &db.path,
        &format!("{sql} LIMIT 200"),
        &[],
    );
}

/// Statements `query_sql` refuses, and what the refusal says each would have done.
const WOULD: &[(&str, &str)] = &[
    (
        "INSERT INTO customers (name, country, created_at) VALUES ('Eve', 'Nowhere', '2025-01-01')",
        "insert into \"customers\"",
    ),
    (
        "INSERT INTO customers (name, country, created_at) VALUES ('Eve', 'X', 'Y') RETURNING id",
        "insert into \"customers\"",
    ),
    (
        "REPLACE INTO products (id, sku, name, category, price) VALUES (1, 'a', 'b', 'c', 1)",
        "insert into \"products\"",
    ),
    ("UPDATE customers SET name = 'Eve'", "update \"customers\""),
    ("DELETE FROM orders", "delete from \"orders\""),
    (
        "WITH doomed AS (SELECT id FROM orders) DELETE FROM orders WHERE id IN (SELECT id FROM doomed)",
        "delete from \"orders\"",
    ),
    (
        "WITH eve AS (SELECT 'Eve', 'X', 'Y') \
         INSERT INTO customers (name, country, created_at) SELECT * FROM eve",
        "insert into \"customers\"",
    ),
    ("DROP TABLE orders", "drop a schema object"),
    ("DROP VIEW order_totals", "drop a schema object"),
    ("CREATE TABLE t (x)", "create a schema object"),
    ("CREATE TEMP TABLE t AS SELECT 1", "create a schema object"),
    ("CREATE INDEX i ON orders (note)", "create a schema object"),
    ("ALTER TABLE orders ADD COLUMN x", "alter a table"),
    ("DETACH DATABASE main", "detach a database"),
    ("PRAGMA user_version = 7", "run PRAGMA user_version"),
    ("PRAGMA journal_mode = WAL", "run PRAGMA journal_mode"),
    ("PRAGMA query_only = OFF", "run PRAGMA query_only"),
    ("PRAGMA writable_schema = ON", "run PRAGMA writable_schema"),
    ("BEGIN IMMEDIATE", "control a transaction"),
    ("SAVEPOINT s", "control a transaction"),
    ("REINDEX", "rebuild indexes"),
];

/// SQL with more than one statement, whatever the first.
const MORE_THAN_ONE: &[&str] = &[
    "SELECT 1; DELETE FROM orders",
    "SELECT 1; SELECT 2",
    "SELECT * FROM orders; DROP TABLE orders; --",
    "SELECT 1; this is not SQL",
];

#[tokio::test]
async fn query_sql_refuses_everything_but_one_read_only_select_and_changes_nothing() {
    let db = sample();
    let other = db.folder.path().join("other.db");
    let copy = db.folder.path().join("copy.db");
    let before = file_bytes(&db.path);
    let entries = folder_entries(db.folder.path());
    let only = "Refused: query_sql runs only read-only SELECT statements";
    let mut cases: Vec<(String, String)> = WOULD
        .iter()
        .map(|(sql, what)| ((*sql).to_owned(), format!("{only}; this one would {what}.")))
        .collect();
    cases.extend(MORE_THAN_ONE.iter().map(|sql| {
        (
            (*sql).to_owned(),
            "Refused: query_sql runs exactly one statement; this SQL has more than one. Send each statement in its own call."
                .to_owned(),
        )
    }));
    cases.push((
        format!("ATTACH DATABASE '{}' AS other", other.display()),
        format!("{only}; this one would attach a database."),
    ));
    cases.push(("VACUUM".to_owned(), format!("{only}.")));
    cases.push((
        format!("VACUUM INTO '{}'", copy.display()),
        format!("{only}."),
    ));
    for (sql, expected) in &cases {
        let arguments = serde_json::json!({ "sql": sql }).to_string();
        assert_error(&call(&db.path, "query_sql", &arguments).await, expected);
    }
    assert_eq!(file_bytes(&db.path), before);
    assert_eq!(folder_entries(db.folder.path()), entries);
    assert!(!other.exists() && !copy.exists());
    let connection = Connection::open(&db.path).expect("the database");
    let orders: i64 = connection
        .query_row("SELECT count(*) FROM orders", [], |row| row.get(0))
        .expect("orders");
    assert_eq!(orders, 20);
}

#[tokio::test]
async fn query_sql_allows_the_schema_pragmas_and_a_trailing_comment() {
    let db = sample();
    let result = call(
        &db.path,
        "query_sql",
        r#"{"sql": "PRAGMA table_info(order_items)"}"#,
    )
    .await;
    assert_eq!(
        content(&result),
        "The query returned 4 rows:\n\
         cid | name | type | notnull | dflt_value | pk\n\
         0 | order_id | INTEGER | 1 | NULL | 1\n\
         1 | product_id | INTEGER | 1 | NULL | 2\n\
         2 | quantity | INTEGER | 1 | NULL | 0\n\
         3 | unit_price | REAL | 1 | NULL | 0"
    );
    assert_eq!(assert_content_shows(&result, "Query result"), 4);
    let result = call(
        &db.path,
        "query_sql",
        r#"{"sql": "SELECT name FROM pragma_table_info('orders') WHERE pk = 1; -- the key"}"#,
    )
    .await;
    assert_eq!(content(&result), "The query returned 1 row:\nname\nid");
}

#[tokio::test]
async fn query_sql_reports_bad_sql_as_errors() {
    let db = sample();
    for (arguments, expected) in [
        (r#"{"sql": ""}"#, "Error: sql is empty.".to_owned()),
        (r#"{"sql": "  \n "}"#, "Error: sql is empty.".to_owned()),
        (
            r#"{"sql": "-- only a comment"}"#,
            "Error: sql holds no statement.".to_owned(),
        ),
        (
            r#"{"sql": "SELECT * FROM nowhere"}"#,
            "Error: SQLite: no such table: nowhere".to_owned(),
        ),
        (
            r#"{"sql": "SELEC 1"}"#,
            "Error: SQLite: near \"SELEC\": syntax error in SELEC 1 at offset 0".to_owned(),
        ),
    ] {
        assert_error(&call(&db.path, "query_sql", arguments).await, &expected);
    }
    let long = serde_json::json!({ "sql": format!("SELECT '{}'", "x".repeat(9_992)) }).to_string();
    assert_error(
        &call(&db.path, "query_sql", &long).await,
        "Error: sql is 10001 bytes long; the limit is 10000.",
    );
}

#[tokio::test]
async fn a_runaway_query_is_stopped_at_the_time_limit() {
    let db = sample();
    let context = ToolContext::new()
        .with_extension(toolkit_builtins::Database::new(&db.path))
        .with_extension(QueryTimeLimit(Duration::from_millis(200)));
    let started = Instant::now();
    let result = call_in(
        context,
        "query_sql",
        r#"{"sql": "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n"}"#,
    )
    .await;
    assert_error(
        &result,
        "Error: the database took too long to answer and the query was stopped.",
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

// --- describe_database ---

#[tokio::test]
async fn describe_database_shows_tables_columns_counts_indexes_and_keys() {
    let db = sample();
    let result = call(&db.path, "describe_database", "{}").await;
    assert_eq!(
        content(&result),
        "The database has 4 tables and 1 view:\n\
         name | type | rows | primary key | columns | indexes | foreign keys\n\
         customers | table | 12 | id | id INTEGER, name TEXT NOT NULL, email TEXT, country TEXT NOT NULL, \
         city TEXT, is_active BOOLEAN NOT NULL DEFAULT 1, notes TEXT, created_at TEXT NOT NULL | \
         sqlite_autoindex_customers_1 unique (email) | \n\
         order_items | table | 38 | order_id, product_id | order_id INTEGER NOT NULL, \
         product_id INTEGER NOT NULL, quantity INTEGER NOT NULL, unit_price REAL NOT NULL | \
         idx_order_items_product (product_id), sqlite_autoindex_order_items_1 unique (order_id, product_id) | \
         product_id -> products(id), order_id -> orders(id)\n\
         order_totals | view | 20 |  | order_id INTEGER, customer TEXT, status TEXT, total |  | \n\
         orders | table | 20 | id | id INTEGER, customer_id INTEGER NOT NULL, ordered_at TEXT NOT NULL, \
         status TEXT NOT NULL DEFAULT 'pending', shipped BOOLEAN NOT NULL DEFAULT 0, note TEXT | \
         idx_orders_customer (customer_id), idx_orders_status (status, ordered_at) | \
         customer_id -> customers(id)\n\
         products | table | 10 | id | id INTEGER, sku TEXT NOT NULL, name TEXT NOT NULL, \
         category TEXT NOT NULL, price REAL NOT NULL, in_stock BOOLEAN NOT NULL DEFAULT 1, \
         description TEXT | sqlite_autoindex_products_1 unique (sku) | "
    );
    assert_eq!(assert_content_shows(&result, "Database"), 5);
}

// --- read-only, all tools at once ---

#[tokio::test]
async fn no_records_tool_changes_the_database_file() {
    let db = sample();
    let before = file_bytes(&db.path);
    let entries = folder_entries(db.folder.path());
    for (tool, arguments) in [
        ("list_tables", "{}"),
        ("get_table_schema", r#"{"table": "orders"}"#),
        ("read_records", r#"{"table": "customers", "limit": 50}"#),
        (
            "search_records",
            r#"{"table": "products", "query": "cable"}"#,
        ),
        ("count_records", r#"{"table": "orders"}"#),
        ("query_sql", r#"{"sql": "SELECT * FROM order_totals"}"#),
        ("describe_database", "{}"),
    ] {
        let result = call(&db.path, tool, arguments).await;
        assert!(!result.is_error(), "{tool}: {}", content(&result));
    }
    assert_error(
        &call(&db.path, "query_sql", r#"{"sql": "DELETE FROM orders"}"#).await,
        "Refused: query_sql runs only read-only SELECT statements; this one would delete from \"orders\".",
    );
    assert_eq!(file_bytes(&db.path), before);
    assert_eq!(folder_entries(db.folder.path()), entries);
}

// --- the sample database ---

#[test]
fn the_sample_database_is_built_once_and_then_left_alone() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("data").join("shop.db");
    assert!(create_sample_database(&path).expect("created"));
    assert_eq!(folder_entries(&folder.path().join("data")), ["shop.db"]);
    let built = file_bytes(&path);
    assert!(!create_sample_database(&path).expect("already there"));
    assert_eq!(file_bytes(&path), built);

    let connection = Connection::open(&path).expect("the sample");
    for (table, rows) in [
        ("customers", 12),
        ("products", 10),
        ("orders", 20),
        ("order_items", 38),
        ("order_totals", 20),
    ] {
        let count: i64 = connection
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
                row.get(0)
            })
            .expect("a count");
        assert_eq!(count, rows, "{table}");
    }
    let check: String = connection
        .query_row("PRAGMA foreign_key_check", [], |row| row.get(0))
        .unwrap_or_else(|_| "no violations".to_owned());
    assert_eq!(check, "no violations");
}

#[test]
fn the_sample_database_never_replaces_an_existing_file() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("mine.db");
    std::fs::write(&path, "my own file").expect("a file");
    assert!(!create_sample_database(&path).expect("left alone"));
    assert_eq!(file_bytes(&path), b"my own file");
    assert_eq!(folder_entries(folder.path()), ["mine.db"]);
}

//! The record writers against a real copy of the sample database: their policy flags, what they
//! change when they run, what they refuse, and the preview an operator sees before approving an
//! update or a delete. Every call goes through the seam.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use tempfile::TempDir;
use toolkit::provider::ScriptedProvider;
use toolkit::{RunRequest, ToolContext, ToolLoopService, recording::Termination, run::Preview};

mod operator;
use toolkit_builtins::sample::create_sample_database;

const WRITERS: [&str; 3] = ["insert_record", "update_record", "delete_record"];

struct Database {
    _folder: TempDir,
    path: PathBuf,
}

fn sample() -> Database {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("sample.db");
    assert!(create_sample_database(&path).expect("the sample database"));
    Database {
        _folder: folder,
        path,
    }
}

fn service() -> ToolLoopService {
    ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"))
}

/// One call's outcome: content, error flag, artifacts.
type Outcome = (String, bool, Vec<toolkit::ToolArtifact>);

fn database_context(database: &Path) -> ToolContext {
    ToolContext::new().with_extension(toolkit_builtins::Database::new(database))
}

/// A call as a run makes it once the operator approved it.
async fn call(database: &Path, tool: &str, arguments: &str) -> Outcome {
    operator::approved_call(&service(), database_context(database), tool, arguments).await
}

fn content(result: &Outcome) -> &str {
    &result.0
}

fn assert_text(result: &Outcome, expected: &str) {
    assert_eq!(content(result), expected);
    assert!(!result.1);
    assert!(result.2.is_empty());
}

fn assert_error(result: &Outcome, expected: &str) {
    assert_eq!(content(result), expected);
    assert!(result.1);
    assert!(result.2.is_empty());
}

/// Rows of a query, each value as SQLite's own text (`NULL` for null).
fn rows(database: &Path, sql: &str) -> Vec<String> {
    let connection = Connection::open(database).expect("the database");
    let mut statement = connection.prepare(sql).expect("the query");
    let width = statement.column_count();
    statement
        .query_map([], |row| {
            (0..width)
                .map(|index| {
                    let value: rusqlite::types::Value = row.get(index)?;
                    Ok(match value {
                        rusqlite::types::Value::Null => "NULL".to_owned(),
                        rusqlite::types::Value::Integer(value) => value.to_string(),
                        rusqlite::types::Value::Real(value) => value.to_string(),
                        rusqlite::types::Value::Text(text) => text,
                        rusqlite::types::Value::Blob(bytes) => format!("{bytes:?}"),
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map(|cells| cells.join("|"))
        })
        .expect("the rows")
        .collect::<Result<_, _>>()
        .expect("readable rows")
}

fn count(database: &Path, table: &str) -> i64 {
    let connection = Connection::open(database).expect("the database");
    connection
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
            row.get(0)
        })
        .expect("a count")
}

fn file_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("the database file")
}

#[test]
fn the_writers_need_approval_and_are_not_offered_by_default() {
    let registry = toolkit_builtins::registry().expect("no duplicate names");
    for name in WRITERS {
        let spec = registry.get(name).expect("registered").spec();
        assert_eq!(spec.group(), "writers", "{name}");
        let flags = spec.flags();
        assert!(flags.requires_approval(), "{name}");
        assert!(!flags.enabled_by_default(), "{name}");
        assert!(!flags.requires_admin(), "{name}");
        assert!(!flags.remote(), "{name}");
    }
}

#[tokio::test]
async fn a_run_that_does_not_name_the_writers_cannot_call_them() {
    let db = sample();
    let before = file_bytes(&db.path);
    let service = service();
    let scope = service
        .scope(ToolContext::new().with_extension(toolkit_builtins::Database::new(&db.path)))
        .unwrap();
    let offered: Vec<&str> = scope.offered().collect();
    for (name, arguments) in [
        (
            "insert_record",
            r#"{"table": "customers", "values": [{"column": "name", "value": "Eve"}]}"#,
        ),
        (
            "update_record",
            r#"{"table": "customers", "where_equals": [{"column": "id", "value": 1}], "values": [{"column": "name", "value": "Eve"}]}"#,
        ),
        (
            "delete_record",
            r#"{"table": "order_items", "where_equals": [{"column": "order_id", "value": 1}]}"#,
        ),
    ] {
        assert!(!offered.contains(&name), "{name}");
        assert!(offered.contains(&"read_records"));
        let result = service.invoke(&scope, name, arguments).await;
        assert_eq!(
            result.content(),
            format!("Error: tool \"{name}\" not permitted")
        );
        assert!(result.is_error() && result.artifacts().is_empty());
    }
    assert_eq!(file_bytes(&db.path), before);
}

#[tokio::test]
async fn writers_without_a_database_are_errors_and_create_no_file() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let missing = folder.path().join("missing.db");
    let service = service();
    for context in [
        ToolContext::new(),
        ToolContext::new().with_extension(toolkit_builtins::Database::new(&missing)),
    ] {
        let expected = if context.extension::<toolkit_builtins::Database>().is_some() {
            "Error: cannot open the database: the file does not exist or cannot be opened."
        } else {
            "Error: no database is configured for this run."
        };
        for (tool, arguments) in [
            (
                "insert_record",
                r#"{"table": "orders", "values": [{"column": "id", "value": 1}]}"#,
            ),
            (
                "update_record",
                r#"{"table": "orders", "where_equals": [{"column": "id", "value": 1}], "values": [{"column": "note", "value": "x"}]}"#,
            ),
            (
                "delete_record",
                r#"{"table": "orders", "where_equals": [{"column": "id", "value": 1}]}"#,
            ),
        ] {
            let outcome = operator::approved_call(&service, context.clone(), tool, arguments).await;
            assert_error(&outcome, expected);
        }
    }
    assert!(!missing.exists());
}

// --- insert_record ---

#[tokio::test]
async fn insert_record_adds_one_row_with_bound_values_and_defaults() {
    let db = sample();
    let result = call(
        &db.path,
        "insert_record",
        r#"{"table": "customers", "values": [
            {"column": "name", "value": "Robert'); DROP TABLE customers; --"},
            {"column": "Country", "value": "Ísland"},
            {"column": "created_at", "value": "2025-01-01"},
            {"column": "notes", "value": null}]}"#,
    )
    .await;
    assert_text(
        &result,
        "Inserted 1 row into \"customers\" (rowid 13): \
         name = \"Robert'); DROP TABLE customers; --\", country = \"Ísland\", \
         created_at = \"2025-01-01\", notes = null.",
    );
    assert_eq!(
        rows(&db.path, "SELECT * FROM customers WHERE id = 13"),
        ["13|Robert'); DROP TABLE customers; --|NULL|Ísland|NULL|1|NULL|2025-01-01"]
    );
    assert_eq!(count(&db.path, "customers"), 13);

    // Boolean words and numbers land as SQLite stores them.
    let result = call(
        &db.path,
        "insert_record",
        r#"{"table": "products", "values": [
            {"column": "sku", "value": "ST-011"}, {"column": "name", "value": "Sticker"},
            {"column": "category", "value": "gifts"}, {"column": "price", "value": 1.5},
            {"column": "in_stock", "value": "false"}]}"#,
    )
    .await;
    assert_text(
        &result,
        "Inserted 1 row into \"products\" (rowid 11): sku = \"ST-011\", name = \"Sticker\", \
         category = \"gifts\", price = 1.5, in_stock = \"false\".",
    );
    assert_eq!(
        rows(&db.path, "SELECT * FROM products WHERE id = 11"),
        ["11|ST-011|Sticker|gifts|1.5|0|NULL"]
    );
    let read = call(
        &db.path,
        "read_records",
        r#"{"table": "products", "fields": ["sku", "in_stock"], "where_equals": [{"column": "id", "value": 11}]}"#,
    )
    .await;
    assert_eq!(
        content(&read),
        "Rows 1-1 of 1 in \"products\" where id = 11:\nsku | in_stock\nST-011 | false"
    );
}

#[tokio::test]
async fn insert_record_refuses_what_it_cannot_insert_and_changes_nothing() {
    let db = sample();
    let before = file_bytes(&db.path);
    for (arguments, expected) in [
        (
            r#"{"table": "shipments", "values": [{"column": "id", "value": 1}]}"#,
            "Table \"shipments\" does not exist. \
             Tables: customers, order_items, order_totals, orders, products.",
        ),
        (
            r#"{"table": "order_totals", "values": [{"column": "order_id", "value": 1}]}"#,
            "\"order_totals\" is a view; only tables can be changed. list_tables shows which are tables.",
        ),
        (
            r#"{"table": "customers", "values": [{"column": "phone", "value": "123"}]}"#,
            "Column \"phone\" does not exist in \"customers\". \
             Columns: id, name, email, country, city, is_active, notes, created_at.",
        ),
    ] {
        assert_error(&call(&db.path, "insert_record", arguments).await, expected);
    }
    for (arguments, expected) in [
        (
            r#"{"table": "customers", "values": []}"#,
            "Error: values must set at least one column.",
        ),
        (
            r#"{"table": "customers", "values": [{"column": "name", "value": "A"}, {"column": "NAME", "value": "B"}]}"#,
            "Error: values sets column \"name\" more than once.",
        ),
        (
            r#"{"table": "customers", "values": [{"column": "country", "value": "Peru"}]}"#,
            "Error: SQLite: NOT NULL constraint failed: customers.name",
        ),
        (
            r#"{"table": "orders", "values": [{"column": "customer_id", "value": 999}, {"column": "ordered_at", "value": "2025-01-01"}]}"#,
            "Error: SQLite: FOREIGN KEY constraint failed",
        ),
        (
            r#"{"table": "products", "values": [{"column": "sku", "value": "KB-001"}, {"column": "name", "value": "Copy"}, {"column": "category", "value": "x"}, {"column": "price", "value": 1}]}"#,
            "Error: SQLite: UNIQUE constraint failed: products.sku",
        ),
    ] {
        assert_error(&call(&db.path, "insert_record", arguments).await, expected);
    }
    let too_many: Vec<String> = (0..201)
        .map(|index| format!(r#"{{"column": "c{index}", "value": 1}}"#))
        .collect();
    let arguments = format!(
        r#"{{"table": "customers", "values": [{}]}}"#,
        too_many.join(", ")
    );
    assert_error(
        &call(&db.path, "insert_record", &arguments).await,
        "Error: values sets at most 200 columns, not 201.",
    );
    assert_eq!(file_bytes(&db.path), before);
}

// --- update_record ---

#[tokio::test]
async fn update_record_changes_only_the_rows_that_match() {
    let db = sample();
    let result = call(
        &db.path,
        "update_record",
        r#"{"table": "orders", "where_equals": [{"column": "id", "value": 4}],
            "values": [{"column": "status", "value": "shipped"}, {"column": "shipped", "value": true}]}"#,
    )
    .await;
    assert_text(
        &result,
        "Updated 1 row in \"orders\" where id = 4: status = \"shipped\", shipped = true.",
    );
    assert_eq!(
        rows(
            &db.path,
            "SELECT id, status, shipped FROM orders WHERE id IN (3, 4, 5) ORDER BY id"
        ),
        ["3|shipped|1", "4|shipped|1", "5|delivered|1"]
    );

    let result = call(
        &db.path,
        "update_record",
        r#"{"table": "customers", "where_equals": [{"column": "country", "value": "France"}],
            "values": [{"column": "city", "value": "Lyon"}, {"column": "notes", "value": null}]}"#,
    )
    .await;
    assert_text(
        &result,
        "Updated 2 rows in \"customers\" where country = \"France\": city = \"Lyon\", notes = null.",
    );
    assert_eq!(
        rows(
            &db.path,
            "SELECT id, city, notes FROM customers WHERE city = 'Lyon' ORDER BY id"
        ),
        ["6|Lyon|NULL", "10|Lyon|NULL"]
    );
    assert_eq!(
        rows(
            &db.path,
            "SELECT count(*) FROM customers WHERE city = 'Paris'"
        ),
        ["0"]
    );

    assert_text(
        &call(
            &db.path,
            "update_record",
            r#"{"table": "orders", "where_equals": [{"column": "id", "value": 99}], "values": [{"column": "status", "value": "paid"}]}"#,
        )
        .await,
        "No rows in \"orders\" where id = 99; nothing was updated.",
    );
}

#[tokio::test]
async fn update_record_refuses_without_a_filter_and_changes_nothing() {
    let db = sample();
    let before = file_bytes(&db.path);
    assert_error(
        &call(
            &db.path,
            "update_record",
            r#"{"table": "customers", "where_equals": [], "values": [{"column": "name", "value": "Eve"}]}"#,
        )
        .await,
        "Refused: update_record needs at least one filter in where_equals; it does not change every row.",
    );
    // The filter is a required argument: leaving it out never reaches the tool.
    let result = call(
        &db.path,
        "update_record",
        r#"{"table": "customers", "values": [{"column": "name", "value": "Eve"}]}"#,
    )
    .await;
    assert!(result.1);
    assert!(
        content(&result).contains("where_equals"),
        "{}",
        content(&result)
    );
    for (arguments, expected) in [
        (
            r#"{"table": "customers", "where_equals": [{"column": "id", "value": 1}], "values": []}"#,
            "Error: values must set at least one column.",
        ),
        (
            r#"{"table": "customers", "values": [{"column": "name", "value": "Eve"}], "where_equals": [
                {"column": "id", "value": 1}, {"column": "id", "value": 1}, {"column": "id", "value": 1},
                {"column": "id", "value": 1}, {"column": "id", "value": 1}, {"column": "id", "value": 1}]}"#,
            "Error: where_equals takes at most 5 filters, not 6.",
        ),
        (
            r#"{"table": "orders", "where_equals": [{"column": "id", "value": 1}], "values": [{"column": "status", "value": "lost"}]}"#,
            "Error: SQLite: CHECK constraint failed: status IN ('pending', 'paid', 'shipped', 'delivered', 'cancelled')",
        ),
    ] {
        assert_error(&call(&db.path, "update_record", arguments).await, expected);
    }
    assert_error(
        &call(
            &db.path,
            "update_record",
            r#"{"table": "order_totals", "where_equals": [{"column": "order_id", "value": 1}], "values": [{"column": "status", "value": "paid"}]}"#,
        )
        .await,
        "\"order_totals\" is a view; only tables can be changed. list_tables shows which are tables.",
    );
    assert_eq!(file_bytes(&db.path), before);
}

// --- delete_record ---

#[tokio::test]
async fn delete_record_deletes_only_the_rows_that_match() {
    let db = sample();
    let result = call(
        &db.path,
        "delete_record",
        r#"{"table": "order_items", "where_equals": [{"column": "order_id", "value": 1}, {"column": "product_id", "value": 2}]}"#,
    )
    .await;
    assert_text(
        &result,
        "Deleted 1 row from \"order_items\" where order_id = 1 and product_id = 2.",
    );
    assert_eq!(
        rows(&db.path, "SELECT * FROM order_items WHERE order_id = 1"),
        ["1|1|1|89.9"]
    );
    assert_eq!(count(&db.path, "order_items"), 37);

    // Foreign keys are enforced: an order's items go with it ...
    assert_text(
        &call(
            &db.path,
            "delete_record",
            r#"{"table": "orders", "where_equals": [{"column": "id", "value": 6}]}"#,
        )
        .await,
        "Deleted 1 row from \"orders\" where id = 6.",
    );
    assert_eq!(count(&db.path, "orders"), 19);
    assert_eq!(count(&db.path, "order_items"), 34);
    // ... and a customer with orders stays.
    assert_error(
        &call(
            &db.path,
            "delete_record",
            r#"{"table": "customers", "where_equals": [{"column": "id", "value": 1}]}"#,
        )
        .await,
        "Error: SQLite: FOREIGN KEY constraint failed",
    );
    assert_eq!(count(&db.path, "customers"), 12);

    assert_text(
        &call(
            &db.path,
            "delete_record",
            r#"{"table": "orders", "where_equals": [{"column": "note", "value": null}, {"column": "status", "value": "pending"}]}"#,
        )
        .await,
        "Deleted 3 rows from \"orders\" where note is null and status = \"pending\".",
    );
    assert_eq!(
        rows(
            &db.path,
            "SELECT count(*) FROM orders WHERE status = 'pending'"
        ),
        ["0"]
    );
    assert_text(
        &call(
            &db.path,
            "delete_record",
            r#"{"table": "orders", "where_equals": [{"column": "id", "value": 99}]}"#,
        )
        .await,
        "No rows in \"orders\" where id = 99; nothing was deleted.",
    );
}

#[tokio::test]
async fn delete_record_refuses_without_a_filter_and_changes_nothing() {
    let db = sample();
    let before = file_bytes(&db.path);
    for (arguments, expected) in [
        (
            r#"{"table": "order_items", "where_equals": []}"#,
            "Refused: delete_record needs at least one filter in where_equals; it does not delete every row.",
        ),
        (
            r#"{"table": "order_items", "where_equals": [{"column": "sku", "value": "KB-001"}]}"#,
            "Column \"sku\" does not exist in \"order_items\". \
             Columns: order_id, product_id, quantity, unit_price.",
        ),
        (
            r#"{"table": "order_totals", "where_equals": [{"column": "order_id", "value": 1}]}"#,
            "\"order_totals\" is a view; only tables can be changed. list_tables shows which are tables.",
        ),
        (
            r#"{"table": "sqlite_schema", "where_equals": [{"column": "name", "value": "orders"}]}"#,
            "Table \"sqlite_schema\" does not exist. \
             Tables: customers, order_items, order_totals, orders, products.",
        ),
    ] {
        assert_error(&call(&db.path, "delete_record", arguments).await, expected);
    }
    let result = call(&db.path, "delete_record", r#"{"table": "order_items"}"#).await;
    assert!(result.1);
    assert!(
        content(&result).contains("where_equals"),
        "{}",
        content(&result)
    );
    assert_eq!(file_bytes(&db.path), before);
}

// --- preview_record_change ---

/// What `preview_record_change` says, called as a run would (it needs no approval).
async fn preview(database: &Database, arguments: &str) -> String {
    let service = service();
    let scope = service
        .scope(database_context(&database.path))
        .expect("a scope");
    let result = service
        .invoke(&scope, "preview_record_change", arguments)
        .await;
    assert!(!result.is_error(), "{}", result.content());
    result.content().to_owned()
}

#[tokio::test]
async fn a_preview_counts_and_lists_the_rows_a_change_would_touch_and_changes_nothing() {
    let database = sample();
    let before = count(&database.path, "customers");
    assert_eq!(
        preview(
            &database,
            r#"{"table": "customers", "where_equals": [{"column": "country", "value": "Spain"}]}"#
        )
        .await,
        "The call would delete 1 row of \"customers\" where country = \"Spain\"; all of them:\n\
         id | name | email | country | city | is_active | notes | created_at\n\
         2 | José Álvarez | jose.alvarez@example.es | Spain | Sevilla | true | NULL | 2024-02-03"
    );
    assert_eq!(
        preview(
            &database,
            r#"{"table": "customers", "where_equals": [{"column": "id", "value": 2}], "values": [{"column": "city", "value": "Madrid"}, {"column": "notes", "value": null}]}"#
        )
        .await,
        "The call would set city = \"Madrid\", notes = null in 1 row of \"customers\" where id = 2; all of them:\n\
         id | name | email | country | city | is_active | notes | created_at\n\
         2 | José Álvarez | jose.alvarez@example.es | Spain | Sevilla | true | NULL | 2024-02-03"
    );
    assert_eq!(
        preview(
            &database,
            r#"{"table": "customers", "where_equals": [{"column": "country", "value": "Atlantis"}]}"#
        )
        .await,
        "No rows in \"customers\" where country = \"Atlantis\": the call would change nothing."
    );
    assert_eq!(count(&database.path, "customers"), before);
}

#[tokio::test]
async fn a_delete_waiting_for_approval_carries_its_preview() {
    let database = sample();
    let before = count(&database.path, "customers");
    let provider = ScriptedProvider::from_json(
        r#"{"turns": [
            {"tool_calls": [{"id": "d1", "name": "delete_record", "arguments": {"table": "customers", "where_equals": [{"column": "is_active", "value": false}]}}]},
            {"content": "done"}
        ]}"#,
    )
    .expect("a script");
    let service = service();
    let request = RunRequest::new("delete the inactive customers")
        .with_tools(["delete_record"])
        .with_context(database_context(&database.path));
    let result = service.run(&provider, request).await.expect("a run");
    assert_eq!(result.termination, Termination::Suspended);
    let suspension = result.suspension.expect("suspended");
    let [Preview { call_id, text, .. }] = suspension.previews.as_slice() else {
        panic!("one preview: {:?}", suspension.previews);
    };
    assert_eq!(call_id, "d1");
    assert_eq!(
        text,
        "The call would delete 2 rows of \"customers\" where is_active = false; all of them:\n\
         id | name | email | country | city | is_active | notes | created_at\n\
         5 | Søren Kierkegaard | NULL | Denmark | København | false | No e-mail on file; call before shipping. | 2024-03-30\n\
         10 | Marie Curie | marie@example.fr | France | Paris | false | Account closed at the customer's request. | 2024-06-25"
    );
    assert_eq!(
        count(&database.path, "customers"),
        before,
        "nothing was deleted"
    );
}

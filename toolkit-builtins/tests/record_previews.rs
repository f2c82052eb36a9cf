//! `preview_record_change`: what an update or delete would touch, shown to the operator before
//! approving, without changing anything.

use std::path::PathBuf;

use tempfile::TempDir;
use toolkit::provider::ScriptedProvider;
use toolkit::{Preview, RunRequest, Termination, ToolContext, ToolLoopService, ToolRegistry};
use toolkit_builtins as _;
use toolkit_builtins::sample::create_sample_database;

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

fn context(database: &Database) -> ToolContext {
    ToolContext::new().with_extension(toolkit_builtins::Database::new(&database.path))
}

fn service() -> ToolLoopService {
    ToolLoopService::new(ToolRegistry::linked().expect("no duplicate names"))
}

async fn preview(database: &Database, arguments: &str) -> String {
    let service = service();
    let scope = service.scope(context(database)).expect("a scope");
    let result = service
        .invoke(&scope, "preview_record_change", arguments)
        .await;
    assert!(!result.is_error(), "{}", result.content().as_str());
    result.content().as_str().to_owned()
}

fn customer_count(database: &Database) -> i64 {
    rusqlite::Connection::open(&database.path)
        .expect("the database")
        .query_row("SELECT count(*) FROM customers", [], |row| row.get(0))
        .expect("a count")
}

#[tokio::test]
async fn a_preview_counts_and_lists_the_rows_a_change_would_touch_and_changes_nothing() {
    let database = sample();
    let before = customer_count(&database);
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
    assert_eq!(customer_count(&database), before);
}

#[tokio::test]
async fn a_delete_waiting_for_approval_carries_its_preview() {
    let database = sample();
    let before = customer_count(&database);
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
        .with_context(context(&database));
    let result = service.run(&provider, request).await.expect("a run");
    assert_eq!(result.termination, Termination::Suspended);
    let suspension = result.suspension.expect("suspended");
    let [Preview { call_id, text }] = suspension.previews.as_slice() else {
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
    assert_eq!(customer_count(&database), before, "nothing was deleted");
}

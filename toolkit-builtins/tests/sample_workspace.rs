//! The sample workspace that ships for the playground works with the tools, and its log's
//! secrets never show.

use toolkit::{ToolContext, ToolLoopService};
use toolkit_builtins::files::sample_workspace;

async fn call(name: &str, arguments: &str) -> (String, bool, Vec<toolkit::ToolArtifact>) {
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"));
    let scope = service
        .scope_offering(
            ToolContext::new()
                .with_extension(toolkit_builtins::WorkspaceRoot::new(sample_workspace())),
            service.registry().names(),
        )
        .unwrap();
    let (content, is_error, artifacts) = service.invoke(&scope, name, arguments).await.into_parts();
    (content.as_str().to_owned(), is_error, artifacts)
}

#[tokio::test]
async fn the_sample_tree_lists_every_shipped_file() {
    let (content, is_error, _) = call("tree", "{}").await;
    assert!(!is_error);
    assert_eq!(
        content,
        "./\n  .gitignore\n  README.md\n  data/\n    cities.csv\n    inventory.json\n  logs/\n    app.log\n  notes/\n    archive/\n      2023-retro.txt\n    meeting.md\n    todo.txt\n4 folders, 8 files."
    );
}

#[tokio::test]
async fn the_sample_log_is_masked_everywhere() {
    let (content, is_error, artifacts) = call("fetch_logs", r#"{"path": "logs/app.log"}"#).await;
    assert!(!is_error);
    assert!(
        content.starts_with("Last 12 of 12 lines of \"logs/app.log\":\n1: "),
        "{content}"
    );
    let artifacts = serde_json::to_string(&artifacts).expect("serialise");
    for secret in [
        "ada@example.com",
        "grace@example.org",
        "hunter2",
        "changeme",
        "sk-test-FAKE",
        "eyJhbGciOiJIUzI1NiJ9",
    ] {
        assert!(!content.contains(secret), "content shows {secret}");
        assert!(!artifacts.contains(secret), "artifact shows {secret}");
    }
    let (errors, _, _) = call(
        "fetch_logs",
        r#"{"path": "logs/app.log", "level": "error"}"#,
    )
    .await;
    assert_eq!(
        errors,
        "Last 2 of 12 lines of \"logs/app.log\" at ERROR or above:\n\
         6: 2024-05-02 09:00:09 ERROR payment provider rejected key [REDACTED] for [EMAIL]\n\
         8: 2024-05-02 09:00:12 ERROR database connection failed: postgres://app:[REDACTED]@db.internal:5432/shop"
    );
}

#[tokio::test]
async fn the_sample_data_files_parse() {
    let (content, is_error, _) = call("csv_stats", r#"{"path": "data/cities.csv"}"#).await;
    assert!(!is_error, "{content}");
    assert!(
        content.starts_with("\"data/cities.csv\": 12 rows, 5 columns:\n- city: text, 12 values"),
        "{content}"
    );
    assert!(
        content.contains("- capital: boolean, 12 values, 0 empty, 2 distinct"),
        "{content}"
    );
    let (content, is_error, artifacts) = call(
        "json_query",
        r#"{"path": "data/inventory.json", "query": "items"}"#,
    )
    .await;
    assert!(!is_error, "{content}");
    assert!(content.starts_with("items in \"data/inventory.json\" is an array of 4 items:"));
    let table = artifacts[0].as_table().expect("a table");
    assert_eq!(
        table.columns(),
        ["name", "price", "sku", "stock", "tags", "discontinued"]
    );
    assert_eq!(table.rows().len(), 4);
}

//! The file writers against a real temporary workspace, through the seam.

mod workspace_fixture;

use serde_json::json;
use toolkit::{ToolContext, ToolLoopService};
use workspace_fixture::{Fixture, assert_escapes_refused};

#[test]
fn writers_need_approval_and_are_off_by_default() {
    let registry = toolkit_builtins::registry().expect("no duplicate names");
    for name in ["write_file", "append_file", "create_directory"] {
        let spec = registry.get(name).expect("registered").spec();
        assert_eq!(spec.group(), "writers", "{name}");
        assert!(spec.flags().requires_approval(), "{name}");
        assert!(!spec.flags().enabled_by_default(), "{name}");
    }
    let service = ToolLoopService::new(registry);
    let scope = service.scope(ToolContext::new().with_admin(true)).unwrap();
    let offered: Vec<&str> = scope.offered().collect();
    for name in ["write_file", "append_file", "create_directory"] {
        assert!(!offered.contains(&name), "{name}");
    }
}

#[tokio::test]
async fn write_file_creates_refuses_to_clobber_and_overwrites_when_asked() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call(
            "write_file",
            json!({"path": "data/new.txt", "content": "hello\n"}),
        )
        .await;
    assert_eq!(outcome.text(), "Wrote 6 bytes to \"data/new.txt\".");
    assert_eq!(
        std::fs::read_to_string(fixture.root.join("data/new.txt")).expect("read"),
        "hello\n"
    );
    let outcome = fixture
        .call(
            "write_file",
            json!({"path": "data/new.txt", "content": "again"}),
        )
        .await;
    assert_eq!(
        outcome.error(),
        "\"data/new.txt\" exists; pass overwrite: true to replace it."
    );
    let outcome = fixture
        .call(
            "write_file",
            json!({"path": "data/new.txt", "content": "again", "overwrite": true}),
        )
        .await;
    assert_eq!(outcome.text(), "Wrote 5 bytes to \"data/new.txt\".");
    assert_eq!(
        std::fs::read_to_string(fixture.root.join("data/new.txt")).expect("read"),
        "again"
    );
    let outcome = fixture
        .call(
            "write_file",
            json!({"path": "missing/new.txt", "content": "x"}),
        )
        .await;
    assert_eq!(
        outcome.error(),
        "The folder of \"missing/new.txt\" does not exist; create it with create_directory first."
    );
    let outcome = fixture
        .call("write_file", json!({"path": ".", "content": "x"}))
        .await;
    assert_eq!(
        outcome.error(),
        "Refused: give the path of a file, not the workspace folder."
    );
    let big = "x".repeat(1_000_001);
    let outcome = fixture
        .call("write_file", json!({"path": "big.txt", "content": big}))
        .await;
    assert_eq!(
        outcome.error(),
        "Error: the content is 1000001 bytes long; the limit is 1000000."
    );
    assert!(!fixture.root.join("big.txt").exists());
}

#[tokio::test]
async fn append_file_appends_and_creates() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call(
            "append_file",
            json!({"path": "notes.txt", "content": "zeta\n"}),
        )
        .await;
    assert_eq!(
        outcome.text(),
        "Appended 5 bytes to \"notes.txt\" (now 36 bytes)."
    );
    assert!(
        std::fs::read_to_string(fixture.root.join("notes.txt"))
            .expect("read")
            .ends_with("epsilon\nzeta\n")
    );
    let outcome = fixture
        .call(
            "append_file",
            json!({"path": "fresh.log", "content": "one"}),
        )
        .await;
    assert_eq!(
        outcome.text(),
        "Appended 3 bytes to \"fresh.log\" (now 3 bytes)."
    );
}

#[tokio::test]
async fn create_directory_creates_parents_and_reports_existing_ones() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call("create_directory", json!({"path": "a/b/c"}))
        .await;
    assert_eq!(outcome.text(), "Created the folder \"a/b/c\".");
    assert!(fixture.root.join("a/b/c").is_dir());
    let outcome = fixture
        .call("create_directory", json!({"path": "a/b"}))
        .await;
    assert_eq!(outcome.text(), "The folder \"a/b\" already exists.");
    let outcome = fixture
        .call("create_directory", json!({"path": "notes.txt"}))
        .await;
    assert_eq!(
        outcome.error(),
        "\"notes.txt\" exists and is not a folder; give the new folder another path."
    );
}

#[tokio::test]
async fn every_writer_refuses_every_escape_and_writes_nothing_outside() {
    let fixture = Fixture::new();
    assert_escapes_refused(
        &fixture,
        "write_file",
        |path| json!({"path": path, "content": "pwned", "overwrite": true}),
    )
    .await;
    assert_escapes_refused(
        &fixture,
        "append_file",
        |path| json!({"path": path, "content": "pwned"}),
    )
    .await;
    assert_escapes_refused(&fixture, "create_directory", |path| json!({"path": path})).await;
    for (path, content) in [
        ("outside_link/new.txt", "pwned"),
        ("outside_link/secret.txt", "pwned"),
    ] {
        let outcome = fixture
            .call(
                "write_file",
                json!({"path": path, "content": content, "overwrite": true}),
            )
            .await;
        assert!(
            outcome.error().starts_with("Refused: "),
            "{path}: {}",
            outcome.content
        );
    }
    let outcome = fixture
        .call("create_directory", json!({"path": "outside_link/made"}))
        .await;
    assert!(
        outcome.error().starts_with("Refused: "),
        "{}",
        outcome.content
    );
    assert_eq!(
        std::fs::read_to_string(fixture.outside.join("secret.txt")).expect("read"),
        "TOP SECRET needle\n"
    );
    let outside: Vec<_> = std::fs::read_dir(&fixture.outside)
        .expect("list")
        .map(|entry| entry.expect("entry").file_name())
        .collect();
    assert_eq!(outside, vec![std::ffi::OsString::from("secret.txt")]);
}

#[tokio::test]
async fn writers_without_a_workspace_are_errors() {
    let fixture = Fixture::new();
    for (tool, arguments) in [
        ("write_file", json!({"path": "x.txt", "content": "x"})),
        ("append_file", json!({"path": "x.txt", "content": "x"})),
        ("create_directory", json!({"path": "x"})),
        ("delete_path", json!({"path": "x"})),
        ("move_path", json!({"from": "x", "to": "y"})),
        ("copy_path", json!({"from": "x", "to": "y"})),
        (
            "edit_file",
            json!({"path": "x", "edits": [{"old_text": "a", "new_text": "b"}]}),
        ),
    ] {
        let outcome = fixture.call_without_workspace(tool, arguments).await;
        assert_eq!(
            outcome.error(),
            "Error: no workspace folder is configured for this run.",
            "{tool}"
        );
    }
}

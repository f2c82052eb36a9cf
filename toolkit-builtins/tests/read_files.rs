//! `read_files` against a real temporary workspace, through the seam: several files at once,
//! each as `read_file` shows it, failures said per file, nothing cut off unseen.

mod workspace_fixture;

use serde_json::json;
use toolkit_builtins as _;
use workspace_fixture::{Fixture, escape_corpus};

#[tokio::test]
async fn several_files_are_read_each_as_read_file_shows_it() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call(
            "read_files",
            json!({"paths": ["README.md", "notes.txt", "missing.txt", "nested"], "lines": 2}),
        )
        .await;
    assert_eq!(
        outcome.content,
        "\"README.md\", lines 1-2 of 2:\n1: # Sample\n2: A small workspace.\n\n\
         \"notes.txt\", lines 1-2 of 5:\n1: alpha\n2: beta\n\n\
         No file or folder at \"missing.txt\" in the workspace; list_directory shows what is there.\n\n\
         \"nested\" is a folder, not a file; list_directory shows the files in it."
    );
    assert!(!outcome.is_error);
    let labels: Vec<&str> = outcome
        .artifacts
        .iter()
        .map(toolkit::ToolArtifact::label)
        .collect();
    assert_eq!(
        labels,
        ["\"README.md\", lines 1-2", "\"notes.txt\", lines 1-2"]
    );
    assert_eq!(outcome.artifacts[1].as_text(), Some("alpha\nbeta"));
}

#[tokio::test]
async fn files_past_the_budget_are_named_for_another_call_not_cut_off() {
    let fixture = Fixture::new();
    let long = format!("{}\n", "x".repeat(900)).repeat(30);
    for name in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(fixture.root.join(name), &long).expect("write");
    }
    let outcome = fixture
        .call(
            "read_files",
            json!({"paths": ["a.txt", "b.txt", "c.txt", "notes.txt"], "lines": 20}),
        )
        .await;
    // About 18 000 bytes a file: two fit the 40 000-byte budget, the third would not.
    assert!(
        outcome
            .content
            .starts_with("\"a.txt\", lines 1-20 of 30:\n1: xxx")
    );
    assert!(
        outcome
            .content
            .contains("\n\n\"b.txt\", lines 1-20 of 30:\n")
    );
    assert!(outcome.content.ends_with(
        "\n\n… not read here, to keep this answer whole: \"c.txt\", \"notes.txt\". Read them in another call."
    ));
    assert!(outcome.content.len() < 50_000);
    assert_eq!(outcome.artifacts.len(), 2);
}

#[tokio::test]
async fn read_files_refuses_escapes_per_file_and_bad_counts() {
    let fixture = Fixture::new();
    for (path, refusal) in escape_corpus() {
        let outcome = fixture
            .call(
                "read_files",
                json!({"paths": [path, "notes.txt"], "lines": 1}),
            )
            .await;
        assert_eq!(
            outcome.content,
            format!("{refusal}\n\n\"notes.txt\", lines 1-1 of 5:\n1: alpha"),
            "{path}"
        );
        assert!(!outcome.content.contains("TOP SECRET"));
        assert!(!outcome.is_error, "{path}");
    }
    // Nothing read at all: a refusal, each file's with its fix.
    let outcome = fixture
        .call("read_files", json!({"paths": ["../", "missing.txt"]}))
        .await;
    assert_eq!(
        outcome.error(),
        "Refused: the path \"../\" contains `..`; give a path inside the workspace, relative to its root (for example \"src/main.rs\").\n\n\
         No file or folder at \"missing.txt\" in the workspace; list_directory shows what is there."
    );
    let outcome = fixture.call("read_files", json!({"paths": []})).await;
    assert_eq!(outcome.error(), "Error: give 1 to 10 paths, not 0.");
    let eleven: Vec<String> = (0..11).map(|index| format!("f{index}.txt")).collect();
    let outcome = fixture.call("read_files", json!({"paths": eleven})).await;
    assert_eq!(outcome.error(), "Error: give 1 to 10 paths, not 11.");
}

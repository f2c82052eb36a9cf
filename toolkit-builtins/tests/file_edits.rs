//! `edit_file` against a real temporary workspace, through the seam: exact-once replacements in
//! order, the diff as content and artifact, dry runs, and what an adversary would try.

mod workspace_fixture;

use std::fs;

use serde_json::json;
use toolkit_builtins as _;
use workspace_fixture::{Fixture, assert_escapes_refused};

fn read(fixture: &Fixture, path: &str) -> String {
    fs::read_to_string(fixture.root.join(path)).expect("read")
}

#[tokio::test]
async fn edits_apply_in_order_and_the_diff_is_the_content_and_an_artifact() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call(
            "edit_file",
            json!({"path": "notes.txt", "edits": [
                {"old_text": "beta\n", "new_text": "BETA\nbeta two\n"},
                {"old_text": "BETA", "new_text": "Beta"},
                {"old_text": "epsilon\n", "new_text": ""}
            ]}),
        )
        .await;
    let diff = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,5 +1,5 @@\n alpha\n-beta\n+Beta\n+beta two\n gamma\n delta\n-epsilon\n";
    assert_eq!(
        outcome.content,
        format!(
            "\"notes.txt\" changed: 3 edits, 2 lines removed, 2 added:\n{}",
            diff.trim_end()
        )
    );
    assert!(!outcome.is_error);
    assert_eq!(outcome.artifacts.len(), 1);
    assert_eq!(outcome.artifacts[0].label(), "Diff of notes.txt");
    assert_eq!(outcome.artifacts[0].as_text(), Some(diff));
    assert_eq!(
        read(&fixture, "notes.txt"),
        "alpha\nBeta\nbeta two\ngamma\ndelta\n"
    );
}

#[tokio::test]
async fn a_dry_run_shows_the_diff_and_writes_nothing() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call(
            "edit_file",
            json!({"path": "notes.txt", "dry_run": true, "edits": [{"old_text": "gamma", "new_text": "GAMMA"}]}),
        )
        .await;
    assert!(outcome.content.starts_with(
        "\"notes.txt\" would change (dry run, nothing written): 1 edit, 1 line removed, 1 added:\n--- a/notes.txt\n"
    ));
    assert_eq!(
        read(&fixture, "notes.txt"),
        "alpha\nbeta\ngamma\ndelta\nepsilon\n"
    );
}

#[tokio::test]
async fn an_old_text_must_occur_exactly_once_and_a_refused_edit_writes_nothing() {
    let fixture = Fixture::new();
    let before = read(&fixture, "notes.txt");
    for (edits, expected) in [
        (
            json!([{"old_text": "zeta", "new_text": "x"}]),
            "Edit 1: old_text does not occur in \"notes.txt\"; nothing was written. Read the file again (read_file) and copy old_text exactly from it.",
        ),
        (
            json!([{"old_text": "a\n", "new_text": "x"}]),
            "Edit 1: old_text occurs 4 times in \"notes.txt\"; include more of the text around it so that it occurs once. Nothing was written.",
        ),
        (
            // The first edit applies in memory; the second no longer finds its text.
            json!([{"old_text": "alpha", "new_text": "ALPHA"}, {"old_text": "alpha", "new_text": "x"}]),
            "Edit 2: old_text does not occur in \"notes.txt\" after the edits before it; nothing was written. Read the file again (read_file) and copy old_text exactly from it.",
        ),
        (
            json!([{"old_text": "", "new_text": "x"}]),
            "Edit 1: old_text is empty; give the exact text to replace.",
        ),
    ] {
        let outcome = fixture
            .call("edit_file", json!({"path": "notes.txt", "edits": edits}))
            .await;
        assert_eq!(outcome.error(), expected);
    }
    assert_eq!(read(&fixture, "notes.txt"), before);
    // Overlapping occurrences are two places, not one.
    fs::write(fixture.root.join("a.txt"), "aaa").expect("write");
    let outcome = fixture
        .call(
            "edit_file",
            json!({"path": "a.txt", "edits": [{"old_text": "aa", "new_text": "b"}]}),
        )
        .await;
    assert_eq!(
        outcome.error(),
        "Edit 1: old_text occurs 2 times in \"a.txt\"; include more of the text around it so that it occurs once. Nothing was written."
    );
    let outcome = fixture
        .call("edit_file", json!({"path": "notes.txt", "edits": []}))
        .await;
    assert_eq!(outcome.error(), "Error: give 1 to 50 edits, not 0.");
}

#[tokio::test]
async fn edit_file_refuses_escapes_links_out_hard_links_and_what_is_not_text() {
    let fixture = Fixture::new();
    assert_escapes_refused(
        &fixture,
        "edit_file",
        |path| json!({"path": path, "edits": [{"old_text": "TOP SECRET", "new_text": "pwned"}]}),
    )
    .await;
    #[cfg(unix)]
    {
        fs::hard_link(
            fixture.outside.join("secret.txt"),
            fixture.root.join("linked.txt"),
        )
        .expect("a hard link");
        let outcome = fixture
            .call(
                "edit_file",
                json!({"path": "linked.txt", "edits": [{"old_text": "TOP", "new_text": "pwned"}]}),
            )
            .await;
        assert_eq!(
            outcome.error(),
            "Refused: \"linked.txt\" has 2 hard links, so writing it could change a file outside the workspace; it was not written. Write to a new path instead."
        );
    }
    assert_eq!(
        fs::read_to_string(fixture.outside.join("secret.txt")).expect("read"),
        "TOP SECRET needle\n"
    );
    fs::write(fixture.root.join("binary.bin"), [0xff, 0xfe, 0x00]).expect("write");
    let outcome = fixture
        .call(
            "edit_file",
            json!({"path": "binary.bin", "edits": [{"old_text": "x", "new_text": "y"}]}),
        )
        .await;
    assert_eq!(
        outcome.error(),
        "\"binary.bin\" is not UTF-8 text; give a UTF-8 text file (file_info describes any file)."
    );
    let outcome = fixture
        .call(
            "edit_file",
            json!({"path": "nested", "edits": [{"old_text": "x", "new_text": "y"}]}),
        )
        .await;
    assert_eq!(
        outcome.error(),
        "\"nested\" is a folder, not a file; list_directory shows the files in it."
    );
}

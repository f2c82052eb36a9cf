//! A model with approved writes must not reach a `.git` folder: what it could put there
//! (`.git/config`, `.git/hooks/*`, `.git/info/attributes`) would make the git tools run
//! commands. Every writer, on either side of a move or a copy, and the preview of an edit,
//! refuses such a path with one exact answer before touching anything: written in any case, in
//! a nested repository, the folder itself, as other file systems read `.git`, and through links.
#![cfg(unix)]

mod workspace_fixture;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use serde_json::{Value, json};
use toolkit_builtins::file_writers::GIT_FOLDER_REFUSAL;
use workspace_fixture::Fixture;

/// The workspace with a repository's `.git` folder and a nested repository's.
fn fixture() -> Fixture {
    let fixture = Fixture::new();
    for (path, text) in [
        (".git/config", "[core]\n\tbare = false\n"),
        (".git/HEAD", "ref: refs/heads/main\n"),
        (".git/info/exclude", "# nothing\n"),
        ("sub/.git/config", "[core]\n\tbare = false\n"),
        ("sub/.git/hooks/x", "#!/bin/sh\n"),
    ] {
        let path = fixture.root.join(path);
        fs::create_dir_all(path.parent().expect("a folder")).expect("folders");
        fs::write(path, text).expect("a file");
    }
    fs::create_dir_all(fixture.root.join(".git/hooks")).expect("hooks");
    fixture
}

/// Every path below `root` with its content (`None` for a folder, the target for a link).
fn snapshot(root: &Path) -> BTreeMap<String, Option<String>> {
    let mut found = BTreeMap::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).expect("list") {
            let path = entry.expect("an entry").path();
            let name = path
                .strip_prefix(root)
                .expect("below the root")
                .display()
                .to_string();
            let kind = fs::symlink_metadata(&path).expect("metadata");
            if kind.is_symlink() {
                let target = fs::read_link(&path).expect("a target");
                found.insert(name, Some(format!("-> {}", target.display())));
            } else if kind.is_dir() {
                found.insert(name, None);
                folders.push(path);
            } else {
                found.insert(name, Some(fs::read_to_string(&path).expect("a text")));
            }
        }
    }
    found
}

fn refused(path: &str) -> String {
    format!("Refused: \"{path}\" {GIT_FOLDER_REFUSAL}")
}

/// Each writer's call on `path`, the side of a move or a copy it takes, with what the call
/// should answer (every one is refused).
fn calls(path: &str) -> Vec<(&'static str, Value)> {
    let edits = json!([{"old_text": "bare", "new_text": "hooksPath"}]);
    vec![
        (
            "write_file",
            json!({"path": path, "content": "[core]\n\thooksPath = /tmp\n", "overwrite": true}),
        ),
        (
            "write_file",
            json!({"path": path, "content": "[core]\n\thooksPath = /tmp\n"}),
        ),
        (
            "append_file",
            json!({"path": path, "content": "\thooksPath = /tmp\n"}),
        ),
        ("edit_file", json!({"path": path, "edits": edits})),
        (
            "edit_file",
            json!({"path": path, "edits": edits, "dry_run": true}),
        ),
        ("preview_edit", json!({"path": path, "edits": edits})),
        ("create_directory", json!({"path": path})),
        ("delete_path", json!({"path": path})),
        ("delete_path", json!({"path": path, "recursive": true})),
        ("copy_path", json!({"from": path, "to": "copied.txt"})),
        (
            "copy_path",
            json!({"from": "notes.txt", "to": path, "overwrite": true}),
        ),
        ("move_path", json!({"from": path, "to": "moved"})),
        (
            "move_path",
            json!({"from": "notes.txt", "to": path, "overwrite": true}),
        ),
    ]
}

async fn assert_all_refused(fixture: &Fixture, path: &str, shown: &str) {
    let before = snapshot(&fixture.root);
    for (tool, arguments) in calls(path) {
        let outcome = fixture.call(tool, arguments.clone()).await;
        assert_eq!(
            (outcome.error(), outcome.artifacts.len()),
            (refused(shown).as_str(), 0),
            "{tool} {arguments}"
        );
    }
    assert_eq!(snapshot(&fixture.root), before, "{path}");
}

#[tokio::test]
async fn every_writer_refuses_a_path_in_a_git_folder_and_touches_nothing() {
    let fixture = fixture();
    for (path, shown) in [
        (".git/config", ".git/config"),
        (".GIT/config", ".GIT/config"),
        ("sub/.git/hooks/x", "sub/.git/hooks/x"),
        (".git", ".git"),
        ("./.git//info/attributes", ".git/info/attributes"),
        (".git/hooks/pre-commit", ".git/hooks/pre-commit"),
        ("sub/.Git", "sub/.Git"),
    ] {
        assert_all_refused(&fixture, path, shown).await;
    }
}

#[tokio::test]
async fn names_other_file_systems_read_as_git_are_refused_too() {
    let fixture = fixture();
    // NTFS drops trailing dots and spaces and a `:stream`, and knows `.git` as `GIT~1`; HFS+
    // ignores zero-width characters. git refuses each of these names; so do the writers.
    for name in [
        ".git.",
        ".git ",
        ".git. .",
        ".git::$INDEX_ALLOCATION",
        "GIT~1",
        "git~1",
        ".g\u{200c}it",
        "\u{feff}.GIT",
    ] {
        let path = format!("{name}/config");
        assert_all_refused(&fixture, &path, &path).await;
    }
    // Names that only look alike are ordinary files.
    for name in [".gitmodules", ".github", "git", ".git2", "x.git", "git~2"] {
        let outcome = fixture
            .call(
                "write_file",
                json!({"path": format!("{name}-file"), "content": "ok"}),
            )
            .await;
        assert_eq!(
            outcome.text(),
            format!("Wrote 2 bytes to \"{name}-file\"."),
            "{name}"
        );
        let outcome = fixture
            .call("create_directory", json!({"path": format!("{name}/inner")}))
            .await;
        assert_eq!(
            outcome.text(),
            format!("Created the folder \"{name}/inner\"."),
            "{name}"
        );
    }
}

#[tokio::test]
async fn links_into_a_git_folder_are_not_written_through() {
    let fixture = fixture();
    let root = &fixture.root;
    symlink(".git/config", root.join("cfg")).expect("a link to a file in .git");
    symlink(".git", root.join("gitlink")).expect("a link to .git");
    symlink("sub/../.git/hooks", root.join("hooks")).expect("a link through ..");
    symlink("gitlink/hooks/pre-commit", root.join("dangling")).expect("a dangling link");
    symlink("cfg", root.join("cfg2")).expect("a link to a link");
    fs::create_dir_all(root.join("plain")).expect("a folder");
    symlink("../gitlink", root.join("plain/up")).expect("a link up and in");
    for path in [
        "gitlink/config",
        "gitlink/hooks/pre-commit",
        "hooks/pre-commit",
        "plain/up/config",
        "gitlink/info/attributes",
    ] {
        assert_all_refused(&fixture, path, path).await;
    }
    // A last link is followed by what writes a file (or makes a folder), so those refuse it;
    // moving, replacing or deleting a link acts on the link itself, never on what it points to.
    let before = snapshot(root);
    for path in ["cfg", "cfg2", "dangling", "gitlink"] {
        for (tool, arguments) in calls(path) {
            if matches!(tool, "delete_path" | "move_path") {
                continue;
            }
            let outcome = fixture.call(tool, arguments.clone()).await;
            assert_eq!(outcome.error(), refused(path), "{tool} {arguments}");
        }
    }
    assert_eq!(snapshot(root), before);
    let outcome = fixture
        .call("move_path", json!({"from": "cfg", "to": "moved-link"}))
        .await;
    assert_eq!(outcome.text(), "Moved \"cfg\" to \"moved-link\".");
    let outcome = fixture
        .call(
            "move_path",
            json!({"from": "notes.txt", "to": "gitlink", "overwrite": true}),
        )
        .await;
    assert_eq!(outcome.text(), "Moved \"notes.txt\" to \"gitlink\".");
    assert!(
        fs::symlink_metadata(root.join("gitlink"))
            .expect("gitlink")
            .is_file()
    );
    let outcome = fixture
        .call("delete_path", json!({"path": "dangling"}))
        .await;
    assert_eq!(
        outcome.text(),
        "Deleted the link \"dangling\"; what it pointed to is untouched."
    );
    assert_eq!(
        fs::read_to_string(root.join(".git/config")).expect("config"),
        "[core]\n\tbare = false\n"
    );
    assert!(!root.join(".git/hooks/pre-commit").exists());
}

#[tokio::test]
async fn ordinary_writes_beside_a_git_folder_are_unchanged() {
    let fixture = fixture();
    let outcome = fixture
        .call(
            "write_file",
            json!({"path": "sub/notes.txt", "content": "kept"}),
        )
        .await;
    assert_eq!(outcome.text(), "Wrote 4 bytes to \"sub/notes.txt\".");
    let outcome = fixture
        .call(
            "move_path",
            json!({"from": "sub/notes.txt", "to": "sub/moved.txt"}),
        )
        .await;
    assert_eq!(
        outcome.text(),
        "Moved \"sub/notes.txt\" to \"sub/moved.txt\"."
    );
    // A folder holding a nested repository is the workspace's to move or delete whole.
    let outcome = fixture
        .call("move_path", json!({"from": "sub", "to": "vendored"}))
        .await;
    assert_eq!(outcome.text(), "Moved \"sub\" to \"vendored\".");
    let outcome = fixture
        .call(
            "delete_path",
            json!({"path": "vendored", "recursive": true}),
        )
        .await;
    assert_eq!(
        outcome.text(),
        "Deleted the folder \"vendored\" and everything in it."
    );
}

#[tokio::test]
async fn a_hard_link_to_a_file_in_a_git_folder_is_not_written_through() {
    let fixture = fixture();
    let root = &fixture.root;
    fs::hard_link(root.join(".git/config"), root.join("hl")).expect("a hard link");
    let before = snapshot(root);
    let edits = json!([{"old_text": "bare", "new_text": "hooksPath"}]);
    for (tool, arguments) in [
        (
            "write_file",
            json!({"path": "hl", "content": "x", "overwrite": true}),
        ),
        ("append_file", json!({"path": "hl", "content": "x"})),
        ("edit_file", json!({"path": "hl", "edits": edits})),
        (
            "copy_path",
            json!({"from": "notes.txt", "to": "hl", "overwrite": true}),
        ),
    ] {
        let outcome = fixture.call(tool, arguments).await;
        assert_eq!(
            outcome.error(),
            "Refused: \"hl\" has 2 hard links, so writing it could change a file outside the workspace; it was not written. Write to a new path instead.",
            "{tool}"
        );
    }
    assert_eq!(snapshot(root), before);
}

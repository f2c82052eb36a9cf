//! A workspace holding a chain of folders 3 000 levels deep (made one level at a time through
//! directory handles: its absolute paths are far past `PATH_MAX`). Every tool that walks or
//! lists folders answers exactly, through the seam, on a worker thread's stack: walks keep
//! their place on the heap, enter nothing more than 64 levels below where they start and say
//! so; a recursive delete of such a folder is refused before anything is deleted.
#![cfg(unix)]

mod workspace_fixture;

use std::fmt::Write as _;

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use serde_json::json;
use toolkit_builtins as _;
use workspace_fixture::Fixture;

/// Levels of the deep chain.
const LEVELS: usize = 3_000;
/// How deep a walk goes (the crate's `DEPTH_LIMIT`).
const WALK_DEPTH: usize = 64;

/// `name/d/d/…`, with `levels` folders named `d`.
fn chain_path(name: &str, levels: usize) -> String {
    let mut path = name.to_owned();
    for _ in 0..levels {
        path.push_str("/d");
    }
    path
}

fn root_dir(fixture: &Fixture) -> Dir {
    Dir::open_ambient_dir(&fixture.root, ambient_authority()).expect("the root")
}

/// Makes `name` and `levels` folders named `d` in a chain below it, each from its parent's
/// handle; `files` puts a file (name, text) into the folder that many levels down.
fn make_chain(fixture: &Fixture, name: &str, levels: usize, files: &[(usize, &str, &str)]) {
    let root = root_dir(fixture);
    root.create_dir(name).expect("the chain's top");
    let mut here = root.open_dir(name).expect("open the top");
    for level in 0..=levels {
        for (at, file, text) in files {
            if *at == level {
                here.write(file, text).expect("a file in the chain");
            }
        }
        if level == levels {
            break;
        }
        here.create_dir("d").expect("a level");
        here = here.open_dir("d").expect("open a level");
    }
}

/// How many folders named `d` the chain below `name` still has, counted through handles.
fn chain_levels(fixture: &Fixture, name: &str) -> usize {
    let mut here = root_dir(fixture).open_dir(name).expect("the chain's top");
    let mut levels = 0;
    while let Ok(below) = here.open_dir("d") {
        here = below;
        levels += 1;
    }
    levels
}

/// Deletes the chain below `name` without recursion (the test's temporary folder is deleted
/// recursively by `tempfile`): the folder below the top moves up in its place, level by level.
fn unchain(fixture: &Fixture, name: &str) {
    let root = root_dir(fixture);
    loop {
        let top = root.open_dir(name).expect("the chain's top");
        for entry in top.entries().expect("list the top") {
            let entry = entry.expect("an entry");
            if !entry.file_type().expect("its type").is_dir() {
                top.remove_file(entry.file_name()).expect("remove a file");
            }
        }
        if !top.exists("d") {
            root.remove_dir(name).expect("remove the top");
            return;
        }
        root.rename(format!("{name}/d"), &root, "unchained")
            .expect("move the level up");
        root.remove_dir(name).expect("remove the emptied top");
        root.rename("unchained", &root, name)
            .expect("the level takes its place");
    }
}

fn not_entered(start: &str) -> String {
    format!(
        "\n… 1 folder {WALK_DEPTH} levels below \"{start}\" was not entered: walks go no deeper."
    )
}

#[tokio::test]
async fn walks_of_a_chain_3000_folders_deep_answer_exactly_and_say_where_they_stopped() {
    let fixture = Fixture::new();
    // A file the walks reach (64 levels below "chain") and one they do not (3 001 levels).
    make_chain(
        &fixture,
        "chain",
        LEVELS,
        &[
            (63, "f.txt", "needle\n"),
            (LEVELS, "bottom.txt", "needle\n"),
        ],
    );
    assert_eq!(chain_levels(&fixture, "chain"), LEVELS);
    let reached = format!("{}/f.txt", chain_path("chain", 63));

    let found = fixture
        .call("find_files", json!({"pattern": "*.txt", "path": "chain"}))
        .await;
    assert_eq!(
        found.ok(),
        format!(
            "1 match for \"*.txt\" in \"chain\":\n- {reached} (7 bytes){}",
            not_entered("chain")
        )
    );

    // Every folder the walk met, 64 of them, 50 in the content and all in the table.
    let folders = fixture
        .call("find_files", json!({"pattern": "d", "path": "chain"}))
        .await;
    let mut expected = "64 matches for \"d\" in \"chain\":\n(rows 1 to 50 of 64)".to_owned();
    for level in 1..=50 {
        let _ = write!(expected, "\n- {} (folder)", chain_path("chain", level));
    }
    expected.push_str("\n… 14 more: call again with offset 50 for the next page.");
    expected.push_str(&not_entered("chain"));
    assert_eq!(folders.ok(), expected);
    let (_, rows) = folders.table();
    assert_eq!(rows.len(), WALK_DEPTH);
    assert_eq!(rows[63][0], chain_path("chain", WALK_DEPTH));

    // From the root the chain starts a level lower: the file is past the depth.
    let from_root = fixture
        .call("find_files", json!({"pattern": "f.txt"}))
        .await;
    assert_eq!(
        from_root.text(),
        format!("Nothing matches \"f.txt\" in \".\".{}", not_entered("."))
    );

    let search = fixture
        .call("search_files", json!({"query": "needle", "path": "chain"}))
        .await;
    assert_eq!(
        search.ok(),
        format!(
            "1 match for \"needle\" in 1 file:\n{reached}:1: needle{}",
            not_entered("chain")
        )
    );
    let search = fixture
        .call("search_files", json!({"query": "bottom", "path": "chain"}))
        .await;
    assert_eq!(
        search.text(),
        format!(
            "No match for \"bottom\" in \"chain\".{}",
            not_entered("chain")
        )
    );

    // `tree` goes at most 5 levels down: exactly as in any other tree, from the top or deep.
    let tree = fixture
        .call("tree", json!({"path": "chain", "depth": 5}))
        .await;
    assert_eq!(
        tree.ok(),
        "chain/\n  d/\n    d/\n      d/\n        d/\n          d/\n5 folders, 0 files."
    );
    let deep = chain_path("chain", 60);
    let tree = fixture
        .call("tree", json!({"path": deep, "depth": 5}))
        .await;
    assert_eq!(
        tree.ok(),
        format!(
            "{deep}/\n  d/\n    d/\n      d/\n        d/\n          d/\n        f.txt\n5 folders, 1 file."
        )
    );

    // A listing 1 000 levels down (a path of 2 006 bytes, opened beneath the root).
    let deep = chain_path("chain", 1_000);
    let listing = fixture.call("list_directory", json!({"path": deep})).await;
    assert_eq!(
        listing.ok(),
        format!("1 entry in \"{deep}\":\n- d/ (folder)")
    );

    // From the root the rest of the workspace is found as ever, and the note says where the
    // chain beside it was cut.
    let found = fixture
        .call("find_files", json!({"pattern": "needle.txt"}))
        .await;
    assert_eq!(
        found.ok(),
        format!(
            "1 match for \"needle.txt\" in \".\":\n- nested/deep/needle.txt (36 bytes){}",
            not_entered(".")
        )
    );
    unchain(&fixture, "chain");
}

#[tokio::test]
async fn a_walk_of_an_ordinary_tree_has_no_note() {
    let fixture = Fixture::new();
    // 63 levels below "edge": the walk enters every folder of it.
    make_chain(&fixture, "edge", 63, &[(63, "last.txt", "needle\n")]);
    let found = fixture
        .call("find_files", json!({"pattern": "*.txt", "path": "edge"}))
        .await;
    assert_eq!(
        found.ok(),
        format!(
            "1 match for \"*.txt\" in \"edge\":\n- {}/last.txt (7 bytes)",
            chain_path("edge", 63)
        )
    );
    let search = fixture
        .call("search_files", json!({"query": "needle", "path": "edge"}))
        .await;
    assert_eq!(
        search.ok(),
        format!(
            "1 match for \"needle\" in 1 file:\n{}/last.txt:1: needle",
            chain_path("edge", 63)
        )
    );
}

#[tokio::test]
async fn a_recursive_delete_refuses_a_folder_deeper_than_64_levels_and_deletes_nothing() {
    let fixture = Fixture::new();
    make_chain(&fixture, "chain", LEVELS, &[(10, "f.txt", "x")]);
    let outcome = fixture
        .call("delete_path", json!({"path": "chain", "recursive": true}))
        .await;
    assert_eq!(
        outcome.error(),
        "Refused: \"chain\" holds entries more than 64 levels below it; delete_path deletes folders at most 64 levels deep, and nothing was deleted. Delete its deepest folders first."
    );
    assert_eq!(chain_levels(&fixture, "chain"), LEVELS);
    assert!(root_dir(&fixture).exists(format!("{}/f.txt", chain_path("chain", 10))));
    unchain(&fixture, "chain");

    // The edge: an entry 65 levels down is refused, one 64 levels down is deleted with the rest.
    make_chain(&fixture, "over", 64, &[(64, "f.txt", "x")]);
    let outcome = fixture
        .call("delete_path", json!({"path": "over", "recursive": true}))
        .await;
    assert_eq!(
        outcome.error(),
        "Refused: \"over\" holds entries more than 64 levels below it; delete_path deletes folders at most 64 levels deep, and nothing was deleted. Delete its deepest folders first."
    );
    assert_eq!(chain_levels(&fixture, "over"), 64);
    make_chain(&fixture, "within", 64, &[(63, "f.txt", "x")]);
    let outcome = fixture
        .call("delete_path", json!({"path": "within", "recursive": true}))
        .await;
    assert_eq!(
        outcome.text(),
        "Deleted the folder \"within\" and everything in it."
    );
    assert!(!fixture.root.join("within").exists());
    unchain(&fixture, "over");
}

/// gix walks a work tree recursively, a frame per level: the git tools give it a stack of its
/// own, so a chain of untracked folders as deep as paths go is an error, not a crash.
#[tokio::test]
async fn git_status_beside_a_chain_3000_folders_deep_answers_and_the_process_lives() {
    let fixture = Fixture::new();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .current_dir(&fixture.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args(["-c", "user.name=Ada", "-c", "user.email=ada@example.com"])
            .args(args)
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "README.md"]);
    git(&["commit", "-q", "-m", "First"]);
    make_chain(&fixture, "chain", LEVELS, &[(LEVELS, "bottom.txt", "x\n")]);
    for (tool, arguments) in [("git_status", json!({})), ("git_diff", json!({}))] {
        let outcome = fixture.call(tool, arguments).await;
        assert!(
            !outcome.content.contains("failed"),
            "{tool}: {}",
            outcome.content
        );
    }
    let status = fixture.call("git_status", json!({})).await;
    assert!(
        status
            .content
            .starts_with("Error: the status cannot be computed: "),
        "{}",
        status.content
    );
    unchain(&fixture, "chain");
}

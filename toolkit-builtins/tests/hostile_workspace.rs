//! A workspace built by an attacker: FIFOs where files should be, ignore files that are links or
//! FIFOs, hard links to files outside, folders swapped for links while a walk runs, and inputs
//! crafted to make the data tools' work explode. Every case ends with an exact answer, at once,
//! and nothing outside the root is read, named or written.
#![cfg(unix)]

mod workspace_fixture;

use std::ffi::CString;
use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;
use workspace_fixture::Fixture;

/// Makes a FIFO at `path`.
fn fifo(path: &Path) {
    let name = CString::new(path.as_os_str().as_encoded_bytes()).expect("no NUL");
    // A test of the tools, not of libc: mkfifo(3) through std's process, no unsafe code.
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {name:?}");
}

const NOT_REGULAR: &str =
    "is not a regular file (a FIFO, a device or a socket); only regular files are read or written.";

#[tokio::test]
async fn fifos_are_refused_at_once_by_every_tool_that_reads_a_file() {
    let fixture = Fixture::new();
    fifo(&fixture.root.join("pipe"));
    for (tool, arguments) in [
        ("read_file", json!({"path": "pipe"})),
        ("file_hash", json!({"path": "pipe"})),
        ("csv_preview", json!({"path": "pipe"})),
        ("csv_stats", json!({"path": "pipe"})),
        ("json_query", json!({"query": "$", "path": "pipe"})),
        ("json_infer_schema", json!({"path": "pipe"})),
    ] {
        let outcome = fixture.call(tool, arguments).await;
        assert_eq!(
            outcome.error(),
            format!("Refused: \"pipe\" {NOT_REGULAR}"),
            "{tool}"
        );
    }
    // Walks list it as what it is and search skips it, without opening it for good.
    let tree = fixture.call("tree", json!({"path": "."})).await;
    assert!(
        tree.content.contains("\n  pipe (other)"),
        "{}",
        tree.content
    );
    let search = fixture
        .call("search_files", json!({"query": "needle"}))
        .await;
    assert!(
        search.content.contains("nested/deep/needle.txt:1"),
        "{}",
        search.content
    );
    // Writers too: no reader is waiting on the other end.
    for (tool, arguments) in [
        (
            "write_file",
            json!({"path": "pipe", "content": "x", "overwrite": true}),
        ),
        ("append_file", json!({"path": "pipe", "content": "x"})),
    ] {
        let outcome = fixture.call(tool, arguments).await;
        assert_eq!(
            outcome.error(),
            format!("Refused: \"pipe\" {NOT_REGULAR}"),
            "{tool}"
        );
    }
}

#[tokio::test]
async fn ignore_files_that_are_links_out_or_fifos_are_not_read() {
    let fixture = Fixture::new();
    // An outside file that would hide every file, and a FIFO as an ignore file below.
    fs::write(fixture.outside.join("rules"), "*\n").expect("outside rules");
    fs::remove_file(fixture.root.join(".gitignore")).expect("the fixture's .gitignore");
    std::os::unix::fs::symlink(
        fixture.outside.join("rules"),
        fixture.root.join(".gitignore"),
    )
    .expect("a link out");
    std::os::unix::fs::symlink("/dev/zero", fixture.root.join(".ignore")).expect("a device link");
    fifo(&fixture.root.join("nested").join(".gitignore"));
    let tree = fixture.call("tree", json!({"path": ".", "depth": 3})).await;
    let drawing = &tree.content;
    // Nothing hidden: the link's rules were not read, and neither were the FIFO's.
    for name in ["notes.txt", "ignored.txt", "needle.txt"] {
        assert!(drawing.contains(name), "{name} missing: {drawing}");
    }
    let found = fixture
        .call("find_files", json!({"pattern": "**/*.txt"}))
        .await;
    assert!(
        found.content.contains("nested/deep/needle.txt"),
        "{}",
        found.content
    );
}

#[tokio::test]
async fn writers_refuse_a_file_with_another_hard_link_and_leave_it_unchanged() {
    let fixture = Fixture::new();
    let outside = fixture.outside.join("secret.txt");
    fs::hard_link(&outside, fixture.root.join("linked.txt")).expect("a hard link");
    for (tool, arguments) in [
        (
            "write_file",
            json!({"path": "linked.txt", "content": "owned", "overwrite": true}),
        ),
        (
            "append_file",
            json!({"path": "linked.txt", "content": "owned"}),
        ),
    ] {
        let outcome = fixture.call(tool, arguments).await;
        assert_eq!(
            outcome.error(),
            "Refused: \"linked.txt\" has 2 hard links, so writing it could change a file outside the workspace; it was not written. Write to a new path instead.",
            "{tool}"
        );
    }
    assert_eq!(
        fs::read_to_string(&outside).expect("outside"),
        "TOP SECRET needle\n"
    );
}

#[test]
fn a_folder_swapped_for_a_link_out_during_walks_never_shows_an_outside_name() {
    let fixture = Fixture::new();
    // Outside: a name and a size no inside entry has.
    let outside = fixture.outside.join("far");
    fs::create_dir_all(&outside).expect("outside folder");
    fs::write(outside.join("OUTSIDE-NAME-7c1e.txt"), "x".repeat(31_337)).expect("outside file");
    let inside = fixture.root.join("swap");
    fs::create_dir_all(&inside).expect("inside folder");
    fs::write(inside.join("inside.txt"), "in").expect("inside file");
    let parked = fixture.root.join("parked");

    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, inside, parked, outside) = (
            Arc::clone(&stop),
            inside.clone(),
            parked.clone(),
            outside.clone(),
        );
        std::thread::spawn(move || {
            let mut swaps = 0_u64;
            while !stop.load(Ordering::Relaxed) {
                // The folder becomes a link out, then a folder again.
                if fs::rename(&inside, &parked).is_ok() {
                    let _ = std::os::unix::fs::symlink(&outside, &inside);
                    std::thread::yield_now();
                    let _ = fs::remove_file(&inside);
                    let _ = fs::rename(&parked, &inside);
                    swaps += 1;
                }
            }
            swaps
        })
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut leaks = 0;
    let walks = 1_000;
    for walk in 0..walks {
        let (tool, arguments) = match walk % 3 {
            0 => ("tree", json!({"path": ".", "depth": 3})),
            1 => ("find_files", json!({"pattern": "**/*"})),
            _ => ("search_files", json!({"query": "x"})),
        };
        let outcome = runtime.block_on(fixture.call(tool, arguments));
        let shown = format!("{} {:?}", outcome.content, outcome.artifacts);
        if shown.contains("OUTSIDE-NAME") || shown.contains("31337") {
            leaks += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().expect("the swapper ends");
    assert!(swaps > 100, "the folder was swapped only {swaps} times");
    assert_eq!(
        leaks, 0,
        "{leaks} of {walks} walks showed an outside name or size"
    );
}

//! Files of a shape that would make a reader allocate without bound: 10 KB of text followed by a
//! line of 3 GiB without a newline (a sparse file: no disk used). Every tool that reads lines
//! or whole files answers exactly, within a byte budget.
//!
//! The readers run in a child process, this same test binary re-executed under `ulimit -v`
//! (1 GiB of address space), so a reader that tried to hold the line fails there, alone, and the
//! test with it; nothing in this process ever allocates for the file.
#![cfg(target_os = "linux")]

mod workspace_fixture;

use std::fs;
use std::os::unix::fs::{FileExt as _, PermissionsExt as _};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use serde_json::json;
use toolkit::ToolContext;
use toolkit_builtins as _;
use workspace_fixture::{Fixture, MODIFIED};

/// Set in the child: the readers run only under the memory limit.
const CHILD: &str = "TOOLKIT_LONG_LINES_CHILD";
/// The child's address space, in KiB: a third of the line.
const ADDRESS_SPACE_KIB: u64 = 1024 * 1024;
/// The size of the sparse files.
const SIZE: u64 = 3 * 1024 * 1024 * 1024;
/// The 2024-01-02T03:04:05Z of the fixture's files.
const MODIFIED_UNIX: u64 = 1_704_164_645;

#[test]
fn readers_of_a_3_gib_line_stay_within_a_memory_limit() {
    let binary = std::env::current_exe().expect("this test binary");
    let started = Instant::now();
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(&binary)
        .args([
            "--exact",
            "every_reader_answers_a_3_gib_line_exactly",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .expect("the child runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("test result: ok. 1 passed"),
        "the readers failed under a {ADDRESS_SPACE_KIB} KiB limit ({}):\n{stdout}\n{stderr}",
        output.status
    );
    for line in stdout.lines() {
        if let Some(at) = line.find("measured:") {
            println!("{}", &line[at..]);
        }
    }
    println!("measured: the child took {:.1?}", started.elapsed());
}

/// Writes `path` as `text`, then makes it `SIZE` bytes long (zeros the file system does not
/// store) and writes each `(offset, bytes)`; the fixture's modification time and mode.
fn sparse(path: &Path, text: &str, writes: &[(u64, &[u8])]) {
    fs::write(path, text).expect("the text");
    let file = fs::File::options()
        .write(true)
        .open(path)
        .expect("open to grow");
    file.set_len(SIZE).expect("grow without writing");
    for (offset, bytes) in writes {
        file.write_all_at(bytes, *offset)
            .expect("write at an offset");
    }
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(MODIFIED_UNIX))
        .expect("the modification time");
    fs::set_permissions(path, fs::Permissions::from_mode(0o644)).expect("the mode");
}

/// Line `number` of the text before the long line: 100 bytes with its newline.
fn text_line(number: usize) -> String {
    let filler = "the quick brown fox jumps over the lazy dog ".repeat(3);
    format!("{number:03} {}", &filler[..95])
}

fn peak_resident_kib() -> u64 {
    let status = fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// `big.txt`: 100 lines of text, then `tail ` and zeros to 3 GiB without a newline; `big.log`:
/// the same, but its last 8 MiB are a cut line, a line of 99 979 zeros and an error.
fn make_files(fixture: &Fixture) {
    let mut text = String::new();
    for number in 1..=100 {
        text.push_str(&text_line(number));
        text.push('\n');
    }
    assert_eq!(text.len(), 10_000);
    text.push_str("tail ");
    sparse(&fixture.root.join("big.txt"), &text, &[]);
    let error = b"\nfinal ERROR reached\n";
    sparse(
        &fixture.root.join("big.log"),
        &text,
        &[(SIZE - 100_001, b"\n"), (SIZE - error.len() as u64, error)],
    );
}

#[tokio::test]
async fn every_reader_answers_a_3_gib_line_exactly() {
    // Run by the test above, under the memory limit; alone it does nothing.
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let fixture = Fixture::new();
    make_files(&fixture);
    let long_line = SIZE - 10_000;
    let mut timings = Vec::new();
    let mut timed = async |tool: &str, arguments: serde_json::Value| {
        let started = Instant::now();
        let outcome = fixture.call(tool, arguments).await;
        timings.push(format!("{tool} {:.1?}", started.elapsed()));
        outcome
    };

    let read = timed(
        "read_file",
        json!({"path": "big.txt", "from_line": 100, "lines": 2}),
    )
    .await;
    assert_eq!(
        read.ok(),
        format!(
            "\"big.txt\", lines 100-101 of 101:\n100: {}\n101: tail {}…\n… line 101 is {long_line} bytes long; only its first 65536 bytes were read.",
            text_line(100),
            "\0".repeat(995)
        )
    );
    let read = timed(
        "read_files",
        json!({"paths": ["big.txt", "notes.txt"], "lines": 1}),
    )
    .await;
    assert_eq!(
        read.ok(),
        format!(
            "\"big.txt\", lines 1-1 of 101:\n1: {}\n\n\"notes.txt\", lines 1-1 of 5:\n1: alpha",
            text_line(1)
        )
    );
    let info = timed("file_info", json!({"path": "big.txt"})).await;
    assert_eq!(
        info.ok(),
        format!(
            "path: big.txt\ntype: file\nsize: {SIZE} bytes\nmodified: {MODIFIED}\npermissions: 644\nlines: not counted (over 2 MiB)"
        )
    );
    let search = timed("search_files", json!({"query": "quick brown"})).await;
    assert_eq!(search.text(), "No match for \"quick brown\" in \".\".");
    let logs = timed("fetch_logs", json!({"path": "big.txt"})).await;
    assert_eq!(
        logs.error(),
        "The last 8388608 bytes of \"big.txt\" hold no whole line (its last line is at least that long); fetch_logs reads only the end of a log. read_file reads it from its first line."
    );
    let logs = timed("fetch_logs", json!({"path": "big.log", "level": "error"})).await;
    assert_eq!(
        logs.ok(),
        "Last 1 of the last 2 lines of \"big.log\" at ERROR or above:\n2: final ERROR reached\n… 1 line is longer than 65536 bytes; only its first 65536 bytes were read."
    );
    for (tool, arguments, limit) in [
        (
            "json_query",
            json!({"query": "$", "path": "big.txt"}),
            5_242_880,
        ),
        ("json_infer_schema", json!({"path": "big.txt"}), 5_242_880),
        ("csv_preview", json!({"path": "big.txt"}), 20_971_520),
        ("csv_stats", json!({"path": "big.txt"}), 20_971_520),
    ] {
        let outcome = timed(tool, arguments).await;
        assert_eq!(
            outcome.error(),
            format!("Error: \"big.txt\" is larger than {limit} bytes."),
            "{tool}"
        );
    }
    let edit = timed(
        "edit_file",
        json!({"path": "big.txt", "edits": [{"old_text": "tail", "new_text": "head"}]}),
    )
    .await;
    assert_eq!(
        edit.error(),
        "Error: \"big.txt\" is larger than 1000000 bytes; edit_file edits smaller files."
    );
    let copy = timed("copy_path", json!({"from": "big.txt", "to": "copy.txt"})).await;
    assert_eq!(
        copy.error(),
        format!("Error: \"big.txt\" is {SIZE} bytes; the limit is 100000000.")
    );

    // What people get of the long line: its first 65 536 bytes (the seam would cut this
    // artifact further; the tool itself gives no more).
    let context = ToolContext::new()
        .with_extension(toolkit_builtins::WorkspaceRoot::new(fixture.root.clone()));
    let direct = toolkit_builtins::files::read_file("big.txt".to_owned(), 101, 1, &context);
    assert_eq!(
        direct.artifacts()[0].as_text(),
        Some(format!("tail {}", "\0".repeat(65_531)).as_str())
    );

    let peak = peak_resident_kib();
    println!("measured: {}", timings.join(", "));
    println!("measured: peak resident memory {peak} KiB");
    assert!(peak < 256 * 1024, "peak resident memory {peak} KiB");
}

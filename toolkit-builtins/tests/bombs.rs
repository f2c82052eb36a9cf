//! Bombs: inputs made so that a call outlives its timeout or exhausts the process (a tree of a
//! billion paths in a few kilobytes of objects, a gigabyte blob, tag soups that nest a hundred
//! thousand deep). Each runs in a child process (this test binary again, under `ulimit -v` so
//! that a failure cannot take the machine down), which reports how long the call took, the
//! process's peak memory and the CPU time it spent after the answer. Every bomb must end within
//! its timeout, under the memory ceiling, with no work left running.
//!
//! `cargo test -p toolkit-builtins --test bombs -- --nocapture` prints each bomb's figures.

mod git_fixture;
mod http_reply;

use std::fmt::Write as _;
use std::fs;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use git_fixture::{ADA, commit, git};
use http_reply::reply;
use serde_json::{Value, json};
use toolkit::{ToolContext, ToolLoopService};
use toolkit_builtins::network::NetworkPolicy;
use toolkit_builtins::{Database, WorkspaceRoot};

/// The per-call timeout the bombs run under.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The most memory a bomb's whole process may have held at once, in KiB.
const CEILING_KIB: u64 = 256 * 1024;
/// The address space a child may take (`ulimit -v`, KiB): past it, allocations fail and the
/// child dies instead of the machine.
const ADDRESS_SPACE_KIB: u64 = 3 * 1024 * 1024;
/// How long a child watches itself after the answer.
const WATCH: Duration = Duration::from_secs(1);
/// The most CPU time a child may spend while it watches (idle threads, the watch itself).
const IDLE_CPU: Duration = Duration::from_millis(100);

/// The environment variables that make this binary a child running one bomb.
const BOMB: &str = "TOOLKIT_BOMB";
const BOMB_DIR: &str = "TOOLKIT_BOMB_DIR";

/// Where a bomb is planted.
#[derive(Clone, Copy)]
enum Place {
    /// The workspace: a folder of the prepared folder.
    Workspace(&'static str),
    /// A page the child serves on loopback, for `fetch_page`.
    Page(fn() -> String),
    /// The sample database.
    Database,
}

/// One bomb: where it is planted, the call that sets it off, and the answers that end it well.
struct Bomb {
    name: &'static str,
    place: Place,
    tool: &'static str,
    arguments: fn() -> Value,
    /// The call's timeout.
    timeout: Duration,
    /// The answer's first line must start with one of these (`PAGE` stands for the page's URL).
    answers: &'static [&'static str],
}

const TIMED_OUT: &str = "Error: tool \"";
const TOO_MANY: &str = "Error: the HTML of PAGE has more than 100000 elements, texts and comments, too many to lay out as text; fetch it with raw set to true.";
const TOO_DEEP: &str = "Error: the HTML of PAGE nests elements more than 1000 deep, too deep to lay out as text; fetch it with raw set to true.";
const TREE_REFUSED: &str = "Refused: the tree of ";

#[expect(clippy::too_many_lines, reason = "a table of bombs, one entry each")]
fn bombs() -> Vec<Bomb> {
    vec![
        Bomb {
            name: "tree bomb: git_show of the commit adding it",
            place: Place::Workspace("tree-bomb"),
            tool: "git_show",
            arguments: || json!({"revision": "HEAD~1"}),
            timeout: TIMEOUT,
            answers: &[TREE_REFUSED],
        },
        Bomb {
            name: "tree bomb: git_diff --staged",
            place: Place::Workspace("tree-bomb"),
            tool: "git_diff",
            arguments: || json!({"staged": true}),
            timeout: TIMEOUT,
            answers: &[
                "Refused: the tree of HEAD has more than 200000 files and folders; the git tools read trees of at most that many. git_log still lists the commits.",
            ],
        },
        Bomb {
            name: "tree bomb: git_diff from the commit before it",
            place: Place::Workspace("tree-bomb"),
            tool: "git_diff",
            arguments: || json!({"from": "HEAD~2"}),
            timeout: TIMEOUT,
            answers: &[TREE_REFUSED],
        },
        Bomb {
            name: "tree bomb: git_status",
            place: Place::Workspace("tree-bomb"),
            tool: "git_status",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &[
                "Refused: the tree of HEAD has more than 200000 files and folders; the git tools read trees of at most that many. git_log still lists the commits.",
            ],
        },
        Bomb {
            name: "tree bomb: git_blame across it",
            place: Place::Workspace("tree-bomb"),
            tool: "git_blame",
            arguments: || json!({"path": DEEP_FILE}),
            timeout: TIMEOUT,
            answers: &[
                "Refused: this needs more than 100000 reads of the repository's objects; the git tools stop there. Narrow the call to a path or a more recent revision.",
                TIMED_OUT,
            ],
        },
        Bomb {
            name: "tree bomb: git_blame across it, cut at 1 s",
            place: Place::Workspace("tree-bomb"),
            tool: "git_blame",
            arguments: || json!({"path": DEEP_FILE}),
            timeout: Duration::from_secs(1),
            answers: &["Error: tool \"git_blame\" failed."],
        },
        Bomb {
            name: "tree bomb: git_log of a file beside it",
            place: Place::Workspace("tree-bomb"),
            tool: "git_log",
            arguments: || json!({"path": "README.md"}),
            timeout: TIMEOUT,
            answers: &["2 commits reachable from \"HEAD\" that changed \"README.md\""],
        },
        Bomb {
            name: "1 GiB zero blob: git_show",
            place: Place::Workspace("zero-blob"),
            tool: "git_show",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &["commit "],
        },
        Bomb {
            name: "1 GiB zero blob: git_blame",
            place: Place::Workspace("zero-blob"),
            tool: "git_blame",
            arguments: || json!({"path": "big.bin"}),
            timeout: TIMEOUT,
            answers: &[
                "Refused: \"big.bin\" is 1073741824 bytes in HEAD; blame reads files of at most 1048576 bytes. git_log with this path shows who changed it.",
            ],
        },
        Bomb {
            name: "1 GiB zero blob: git_diff from the commit before it",
            place: Place::Workspace("zero-blob"),
            tool: "git_diff",
            arguments: || json!({"from": "HEAD~1"}),
            timeout: TIMEOUT,
            answers: &["Changes from HEAD~1"],
        },
        Bomb {
            name: "1 GiB work tree file: git_status",
            place: Place::Workspace("zero-blob"),
            tool: "git_status",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &[
                "Refused: \"big.bin\" in the work tree is 1073741824 bytes; the git tools compare files of at most 67108864 bytes. git_log, git_show and git_diff between commits still work.",
            ],
        },
        Bomb {
            name: "1 GiB work tree file: git_diff",
            place: Place::Workspace("zero-blob"),
            tool: "git_diff",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &[
                "Refused: \"big.bin\" in the work tree is 1073741824 bytes; the git tools compare files of at most 67108864 bytes. git_log, git_show and git_diff between commits still work.",
            ],
        },
        Bomb {
            name: "<div/> x 100 000: fetch_page",
            place: Place::Page(|| "<div/>".repeat(100_000)),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &[TOO_DEEP],
        },
        Bomb {
            name: "<div></x> x 100 000: fetch_page",
            place: Place::Page(|| "<div></x>".repeat(100_000)),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &[TOO_DEEP],
        },
        Bomb {
            name: "<b></x> x 100 000: fetch_page",
            place: Place::Page(|| "<b></x>".repeat(100_000)),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &[TOO_DEEP],
        },
        Bomb {
            name: "</i> in a script, <i> x 100 000: fetch_page",
            place: Place::Page(|| "<script></i></script><i>".repeat(100_000)),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &[TOO_DEEP],
        },
        Bomb {
            name: "tables nested 240 deep: fetch_page",
            place: Place::Page(|| {
                format!(
                    "{}cell{}",
                    "<table><tr><td>".repeat(240),
                    "</td></tr></table>".repeat(240)
                )
            }),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &["GET PAGE -> 200 OK", TIMED_OUT],
        },
        Bomb {
            name: "2 MB of one-letter paragraphs: fetch_page",
            place: Place::Page(|| "<p>a</p>".repeat(260_000)),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &[TOO_MANY],
        },
        Bomb {
            name: "2 MB of one-letter table cells: fetch_page",
            place: Place::Page(|| {
                format!(
                    "<table>{}</table>",
                    "<tr><td>a</td><td>b</td></tr>".repeat(70_000)
                )
            }),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &[TOO_MANY],
        },
        Bomb {
            name: "99 000 nodes of paragraphs: fetch_page",
            place: Place::Page(|| "<p>word word word word</p>".repeat(49_500)),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &["GET PAGE -> 200 OK"],
        },
        Bomb {
            name: "99 000 nodes of one-letter paragraphs: fetch_page",
            place: Place::Page(|| "<p>a</p>".repeat(49_500)),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &["GET PAGE -> 200 OK"],
        },
        Bomb {
            name: "99 000 nodes of inline elements: fetch_page",
            place: Place::Page(|| "<i>a</i>".repeat(49_500)),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &["GET PAGE -> 200 OK"],
        },
        Bomb {
            name: "99 000 nodes of table: fetch_page",
            place: Place::Page(|| {
                format!(
                    "<table>{}</table>",
                    "<tr><td>a</td><td>b</td></tr>".repeat(19_800)
                )
            }),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &["GET PAGE -> 200 OK"],
        },
        Bomb {
            name: "99 000 nodes of links: fetch_page",
            place: Place::Page(|| "<a href=\"/x\">y</a>".repeat(49_500)),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: TIMEOUT,
            answers: &["GET PAGE -> 200 OK"],
        },
        Bomb {
            name: "99 000 nodes of links, cut at 300 ms: fetch_page",
            place: Place::Page(|| "<a href=\"/x\">y</a>".repeat(49_500)),
            tool: "fetch_page",
            arguments: || json!({}),
            timeout: Duration::from_millis(300),
            answers: &["Error: tool \"fetch_page\" failed."],
        },
        Bomb {
            name: "a query that never ends, cut at 300 ms: query_sql",
            place: Place::Database,
            tool: "query_sql",
            arguments: || json!({"sql": "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n"}),
            timeout: Duration::from_millis(300),
            answers: &["Error: tool \"query_sql\" failed."],
        },
        Bomb {
            name: "10 KB then a 3 GiB line: read_file",
            place: Place::Workspace("big-files"),
            tool: "read_file",
            arguments: || json!({"path": "long-line.txt"}),
            timeout: Duration::from_secs(30),
            answers: &["\"long-line.txt\", lines 1-"],
        },
        Bomb {
            name: "100 GiB sparse file, cut at 1 s: read_file",
            place: Place::Workspace("big-files"),
            tool: "read_file",
            arguments: || json!({"path": "huge.txt"}),
            timeout: Duration::from_secs(1),
            answers: &["Error: tool \"read_file\" failed."],
        },
        Bomb {
            name: "100 GiB sparse file, cut at 1 s: file_hash",
            place: Place::Workspace("big-files"),
            tool: "file_hash",
            arguments: || json!({"path": "huge.txt"}),
            timeout: Duration::from_secs(1),
            answers: &["Error: tool \"file_hash\" failed."],
        },
    ]
}

/// What a child reports of its bomb.
#[derive(Debug)]
struct Report {
    name: &'static str,
    answer: String,
    elapsed: Duration,
    peak_kib: u64,
    cpu_after: Duration,
}

#[test]
fn every_bomb_ends_within_its_timeout_under_the_memory_ceiling_with_no_work_left() {
    if std::env::var_os(BOMB).is_some() {
        return;
    }
    let folder = tempfile::tempdir().expect("a temporary folder");
    plant_tree_bomb(&folder.path().join("tree-bomb"));
    plant_zero_blob(&folder.path().join("zero-blob"));
    plant_big_files(&folder.path().join("big-files"));
    assert!(
        toolkit_builtins::sample::create_sample_database(&folder.path().join("sample.db"))
            .expect("the sample database")
    );
    let reports: Vec<Report> = bombs()
        .iter()
        .map(|bomb| set_off(bomb, folder.path()))
        .collect();
    println!(
        "{:<48} {:>9} {:>10} {:>14}  answer",
        "bomb", "time", "peak", "CPU after"
    );
    for report in &reports {
        println!(
            "{:<48} {:>7.2} s {:>6} MiB {:>11} ms  {}",
            report.name,
            report.elapsed.as_secs_f64(),
            report.peak_kib / 1024,
            report.cpu_after.as_millis(),
            report.answer.chars().take(90).collect::<String>()
        );
    }
    for (bomb, report) in bombs().iter().zip(&reports) {
        assert!(
            bomb.answers
                .iter()
                .any(|answer| report.answer.starts_with(answer)),
            "{}: {}",
            bomb.name,
            report.answer
        );
        // Within its own timeout (with a second for the answer to come back): the 3 GiB line
        // is given 30 s to be read to its end, and takes about 9 to 12 s in a debug build on
        // two cores.
        assert!(
            report.elapsed <= bomb.timeout + Duration::from_secs(1),
            "{report:?}"
        );
        assert!(report.peak_kib <= CEILING_KIB, "{report:?}");
        assert!(report.cpu_after <= IDLE_CPU, "{report:?}");
    }
}

/// Runs one bomb in a child process and reads its report.
fn set_off(bomb: &Bomb, folder: &Path) -> Report {
    let binary = std::env::current_exe().expect("this test binary");
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(binary)
        .args([
            "--exact",
            "bomb_child",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(BOMB, bomb.name)
        .env(BOMB_DIR, folder)
        .stdin(Stdio::null())
        .output()
        .expect("the child runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find_map(|line| line.split_once("BOMB-REPORT ").map(|(_, report)| report))
        .unwrap_or_else(|| {
            panic!(
                "{}: no report ({}):\n{stdout}\n{}",
                bomb.name,
                output.status,
                String::from_utf8_lossy(&output.stderr)
            )
        });
    let report: Value = serde_json::from_str(line).expect("a JSON report");
    let number = |key: &str| report[key].as_u64().expect("a number");
    Report {
        name: bomb.name,
        answer: report["answer"].as_str().expect("the answer").to_owned(),
        elapsed: Duration::from_millis(number("elapsed_ms")),
        peak_kib: number("peak_kib"),
        cpu_after: Duration::from_millis(number("cpu_after_ms")),
    }
}

/// The child's side: sets off the bomb named in the environment and reports on it.
#[test]
fn bomb_child() {
    let Some(name) = std::env::var_os(BOMB) else {
        return;
    };
    let folder = PathBuf::from(std::env::var_os(BOMB_DIR).expect("the prepared folder"));
    let bombs = bombs();
    let bomb = bombs
        .iter()
        .find(|bomb| *bomb.name == *name)
        .expect("a known bomb");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"));
    let mut context = ToolContext::new();
    let mut arguments = (bomb.arguments)();
    let mut url = None;
    match bomb.place {
        Place::Workspace(workspace) => {
            context = context.with_extension(WorkspaceRoot::new(folder.join(workspace)));
        }
        Place::Page(page) => {
            let served = serve(page());
            arguments["url"] = Value::String(served.clone());
            url = Some(served);
            context = context.with_extension(NetworkPolicy::allowing(["127.0.0.1"]));
        }
        Place::Database => {
            context = context.with_extension(Database::new(folder.join("sample.db")));
        }
    }
    let scope = service
        .scope_offering(context, [bomb.tool])
        .expect("the tool")
        .with_timeout(bomb.timeout);
    let started = Instant::now();
    let result = runtime.block_on(service.invoke(&scope, bomb.tool, &arguments.to_string()));
    let elapsed = started.elapsed();
    let cpu_at_answer = cpu_time();
    std::thread::sleep(WATCH);
    let cpu_after = cpu_time().saturating_sub(cpu_at_answer);
    let mut answer = result.content().lines().next().unwrap_or("").to_owned();
    if let Some(url) = url {
        answer = answer.replace(&url, "PAGE");
    }
    println!(
        "BOMB-REPORT {}",
        json!({
            "answer": answer,
            "elapsed_ms": u64::try_from(elapsed.as_millis()).expect("milliseconds"),
            "peak_kib": peak_kib(),
            "cpu_after_ms": u64::try_from(cpu_after.as_millis()).expect("milliseconds"),
        })
    );
}

/// The CPU time this process has used, user and system.
fn cpu_time() -> Duration {
    let stat = fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // The fields after the command name (in parentheses, which may hold spaces).
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .expect("a command name")
        .1
        .split_whitespace()
        .collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    // Linux counts in USER_HZ, 100 a second on every architecture it runs on.
    Duration::from_millis(ticks * 10)
}

/// This process's peak resident memory, in KiB.
fn peak_kib() -> u64 {
    fs::read_to_string("/proc/self/status")
        .expect("/proc/self/status")
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// Serves `page` as HTML at `/bomb` on loopback, to every request; its URL.
fn serve(page: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!(
        "http://127.0.0.1:{}/bomb",
        listener.local_addr().expect("an address").port()
    );
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0_u8; 4096];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(&reply(
                "200 OK",
                &[("Content-Type", "text/html")],
                page.as_bytes(),
            ));
        }
    });
    url
}

/// Runs git with `input` on its standard input; its output, trimmed.
fn git_with_input(dir: &Path, args: &[&str], input: &[u8]) -> String {
    let mut child = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Ada Lovelace")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada Lovelace")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .env("GIT_AUTHOR_DATE", "2024-01-02T10:00:00Z")
        .env("GIT_COMMITTER_DATE", "2024-01-02T10:00:00Z")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("git runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("input");
    let output = child.wait_with_output().expect("git ends");
    assert!(output.status.success(), "git {args:?}");
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .trim()
        .to_owned()
}

/// A file ten folders deep, which a comparison of two trees reaches only after the levels of
/// the tree bomb above it (they are compared breadth first).
const DEEP_FILE: &str = "z/1/2/3/4/5/6/7/8/9/deep.txt";

/// A repository whose history adds a tree of 10^9 paths made of ten objects: a blob, then
/// nine levels of trees each naming the level below ten times. Commits: a README and a deep
/// file, then the bomb beside them with the deep file changed, then a change to the README;
/// the index holds the first commit's tree.
fn plant_tree_bomb(root: &Path) {
    fs::create_dir_all(root).expect("the root");
    git(root, &["init", "-q"]);
    git_fixture::write(root, "README.md", b"one\n");
    git_fixture::write(root, DEEP_FILE, b"deep\n");
    git(root, &["add", "."]);
    commit(root, "2024-01-01T10:00:00Z", ADA, "First");
    let first = git(root, &["rev-parse", "HEAD"]);
    git_fixture::write(root, DEEP_FILE, b"deep\ndeeper\n");
    git(root, &["add", "."]);
    let deep = git(root, &["write-tree"]);
    let z = git(root, &["rev-parse", &format!("{deep}:z")]);
    let mut id = git_with_input(root, &["hash-object", "-w", "--stdin"], b"x\n");
    let mut mode_kind = "100644 blob";
    for _ in 0..9 {
        let listing = (0..10).fold(String::new(), |mut listing, n| {
            let _ = writeln!(listing, "{mode_kind} {id}\tn{n}");
            listing
        });
        id = git_with_input(root, &["mktree"], listing.as_bytes());
        mode_kind = "040000 tree";
    }
    let readme = git(root, &["rev-parse", "HEAD:README.md"]);
    let top = git_with_input(
        root,
        &["mktree"],
        format!("100644 blob {readme}\tREADME.md\n040000 tree {id}\tbomb\n040000 tree {z}\tz\n")
            .as_bytes(),
    );
    let second = git_with_input(
        root,
        &["commit-tree", &top, "-p", &first, "-m", "Bomb"],
        b"",
    );
    git(root, &["update-ref", "refs/heads/main", &second]);
    git_fixture::write(root, "README.md", b"one\ntwo\n");
    let readme = git(root, &["hash-object", "-w", "README.md"]);
    let top = git_with_input(
        root,
        &["mktree"],
        format!("100644 blob {readme}\tREADME.md\n040000 tree {id}\tbomb\n040000 tree {z}\tz\n")
            .as_bytes(),
    );
    let third = git_with_input(
        root,
        &["commit-tree", &top, "-p", &second, "-m", "Two"],
        b"",
    );
    git(root, &["update-ref", "refs/heads/main", &third]);
    git(root, &["read-tree", &first]);
}

/// A repository whose second commit adds a gigabyte of zeros (a blob of about a megabyte
/// compressed), and whose work tree holds that file (sparse) with a new modification time, so
/// that comparing it with the index means reading it whole.
fn plant_zero_blob(root: &Path) {
    fs::create_dir_all(root).expect("the root");
    git(root, &["init", "-q"]);
    git_fixture::write(root, "README.md", b"one\n");
    git(root, &["add", "."]);
    commit(root, "2024-01-01T10:00:00Z", ADA, "First");
    let big = root.join("big.bin");
    fs::File::create(&big)
        .and_then(|file| file.set_len(1 << 30))
        .expect("a sparse gigabyte");
    git(root, &["add", "big.bin"]);
    commit(root, "2024-01-02T10:00:00Z", ADA, "Zeros");
    let later = std::time::SystemTime::now() + Duration::from_hours(1);
    fs::File::options()
        .write(true)
        .open(&big)
        .and_then(|file| file.set_modified(later))
        .expect("a new modification time");
}

/// A workspace of sparse files (no disk used): 10 KB of lines then a line of 3 GiB without an
/// end, and 10 KB of lines then zeros up to 100 GiB.
fn plant_big_files(root: &Path) {
    fs::create_dir_all(root).expect("the root");
    let long = root.join("long-line.txt");
    fs::write(&long, "a short line of text\n".repeat(500)).expect("10 KB of lines");
    fs::File::options()
        .write(true)
        .open(&long)
        .and_then(|file| file.set_len(10_500 + (3 << 30)))
        .expect("a sparse 3 GiB line");
    let huge = root.join("huge.txt");
    fs::write(&huge, "a short line of text\n".repeat(500)).expect("10 KB of lines");
    fs::File::options()
        .write(true)
        .open(&huge)
        .and_then(|file| file.set_len(100 << 30))
        .expect("a sparse 100 GiB file");
}

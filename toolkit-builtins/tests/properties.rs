//! Every builtin in the registry, called through the seam with arguments generated from its own
//! schema and biased toward hostile content ([`support::arguments::hostile_values`]): no call
//! may panic, abort the process or outlive its timeout.
//!
//! The tools work on a copy of the sample workspace made a git repository (two commits and
//! changes not yet committed), a copy of the sample database and, for the network tools, a
//! local HTTP server that the run's policy allow-lists; every URL that would leave the machine
//! is pointed at that server first, so nothing reaches the real network. Two phases:
//!
//! - each tool alone: readers share one copy and must leave it as they found it; a writer
//!   (which needs an operator's approval) runs once approved, in a loop, on a copy of its own
//!   for each case, so that it really writes, and every case stands on its own;
//! - a shared session: rounds of one case of every tool, in registry order, on one copy that
//!   the writers change as they go, so that readers meet what writers made (odd names, deep
//!   folders, hostile rows, a changed repository) and writers meet each other's work.
//!
//! The cases run in a child process (this test binary again, running only
//! [`cases_run_in_a_child_process`]), so that a case that aborts the process (a stack overflow)
//! or never returns is reported with its tool and arguments, and the cases after it still run:
//! the parent starts a new child after it.
//!
//! Deterministic: each tool's cases come from a `ChaCha` RNG seeded with the tool's name, so a
//! failure reproduces, and a tool added later changes no other tool's cases. Knobs for a
//! search of one's own (the defaults are what CI runs):
//!
//! - `TOOLKIT_PROPERTIES_TOOLS=calculate,tree`: only these tools;
//! - `TOOLKIT_PROPERTIES_SCALE=8`: eight times the cases and session rounds;
//! - `TOOLKIT_PROPERTIES_SEED=anything`: other cases (mixed into each tool's seed).
//!
//! `cargo test -p toolkit-builtins --test properties -- --nocapture` prints the cases per tool.

mod git_fixture;
mod http_reply;
mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write as _};
use std::net::{IpAddr, Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use http_reply::reply;
use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Value, json};
use tempfile::TempDir;
use toolkit::{RunOptions, Tool, ToolContext, ToolLoopService, ToolRegistry, ToolSpec};
use toolkit_builtins::network::{NetworkPolicy, non_public};
use toolkit_builtins::{DATABASE_TOOLS, Database, WORKSPACE_TOOLS, WorkspaceRoot};

/// Each call's timeout.
const TIMEOUT: Duration = Duration::from_secs(10);
/// How much longer than its timeout a call may take to come back (a loop's own steps, a busy
/// machine).
const GRACE: Duration = Duration::from_secs(2);
/// How long the child may say nothing before the case it runs counts as never returning.
const WATCHDOG: Duration = Duration::from_secs(45);
/// Rounds of the shared session: one case of every tool each.
const SESSION_ROUNDS: u32 = 48;

/// Set in the child's environment: that it is the child.
const CHILD: &str = "TOOLKIT_PROPERTIES_CHILD";
/// Set in the child's environment: the first case whose outcome it reports (it runs the
/// shared session's earlier cases again, unreported).
const RESUME: &str = "TOOLKIT_PROPERTIES_RESUME";
/// Set in the child's environment: cases, comma-separated, never to run again (each ended an
/// earlier child).
const SKIP: &str = "TOOLKIT_PROPERTIES_SKIP";
/// Set in the child's environment: `tool:index` pairs, comma-separated, of tools that ended a
/// child in the shared session; their session cases from that index on are left out (else
/// each round would end a child again, and each new child replays the session).
const LEAVE_OUT: &str = "TOOLKIT_PROPERTIES_LEAVE_OUT";
/// Set in the child's environment: the folder its copies go in (removed by the parent, so
/// that a child that ended leaves nothing behind).
const FOLDER: &str = "TOOLKIT_PROPERTIES_FOLDER";
/// Tool names, comma-separated: only their cases run.
const ONLY: &str = "TOOLKIT_PROPERTIES_TOOLS";
/// A whole number the case counts and session rounds are multiplied by (default 1).
const SCALE: &str = "TOOLKIT_PROPERTIES_SCALE";
/// Text mixed into every tool's seed (default none).
const SEED: &str = "TOOLKIT_PROPERTIES_SEED";

/// What the child prints, one JSON object a line after the mark.
const CASE: &str = "@@properties-case ";
const DONE: &str = "@@properties-done ";
const CHANGED: &str = "@@properties-changed ";
const FINISHED: &str = "@@properties-finished";

/// How many cases a tool gets alone: tools that work only on their arguments are cheap and
/// get many; those that walk a workspace, read a database or repository or reach the local
/// server get fewer; writers (a run, and fresh copies, per case) and the host's status
/// (a process list takes a CPU sample) fewer still.
fn cases_for(spec: &ToolSpec) -> u32 {
    let name = spec.name();
    let flags = spec.flags();
    if flags.requires_approval() {
        64
    } else if WORKSPACE_TOOLS.contains(&name) || DATABASE_TOOLS.contains(&name) || flags.remote() {
        192
    } else if spec.group() == "system" {
        64
    } else {
        768
    }
}

fn registry() -> ToolRegistry {
    toolkit_builtins::registry().expect("no duplicate names")
}

/// The tools whose cases run: every registered one, or those `TOOLKIT_PROPERTIES_TOOLS` names.
fn chosen(registry: &ToolRegistry) -> Vec<&dyn Tool> {
    let only: Option<BTreeSet<String>> = std::env::var(ONLY)
        .ok()
        .map(|names| names.split(',').map(str::to_owned).collect());
    for name in only.iter().flatten() {
        assert!(
            registry.get(name).is_some(),
            "{ONLY} names no tool {name:?}"
        );
    }
    registry
        .iter()
        .filter(|tool| {
            only.as_ref()
                .is_none_or(|only| only.contains(tool.spec().name()))
        })
        .collect()
}

/// One generated call.
struct Case {
    index: usize,
    tool: String,
    arguments: Value,
    /// In the shared session (else on the tool's own copies).
    shared: bool,
}

/// A 32-byte seed from a tool's name (FNV-1a, stretched), so each tool's cases are its own.
fn seed(name: &str) -> [u8; 32] {
    let mut seed = [0_u8; 32];
    for (lane, chunk) in seed.chunks_mut(8).enumerate() {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325 ^ lane as u64;
        for byte in name.bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        chunk.copy_from_slice(&hash.to_le_bytes());
    }
    seed
}

/// Every case of the chosen tools, numbered: each tool's own in registry order, then the
/// shared session's rounds.
fn plan(tools: &[&dyn Tool]) -> Vec<Case> {
    let scale: u32 = std::env::var(SCALE)
        .ok()
        .and_then(|scale| scale.parse().ok())
        .unwrap_or(1);
    let salt = std::env::var(SEED).unwrap_or_default();
    let generator = |spec: &ToolSpec, phase: &str| {
        let runner = TestRunner::new_with_rng(
            Config::default(),
            TestRng::from_seed(
                RngAlgorithm::ChaCha,
                &seed(&format!("{}{phase}{salt}", spec.name())),
            ),
        );
        (
            support::arguments::hostile_values(spec.input_schema()),
            runner,
        )
    };
    let draw = |(strategy, runner): &mut (BoxedStrategy<Value>, TestRunner)| {
        strategy.new_tree(runner).expect("a value tree").current()
    };
    let mut cases = Vec::new();
    for tool in tools {
        let spec = tool.spec();
        let mut own = generator(spec, "");
        for _ in 0..cases_for(spec) * scale {
            cases.push(Case {
                index: cases.len(),
                tool: spec.name().to_owned(),
                arguments: draw(&mut own),
                shared: false,
            });
        }
    }
    let mut session: Vec<_> = tools
        .iter()
        .map(|tool| generator(tool.spec(), " in the session"))
        .collect();
    for _ in 0..SESSION_ROUNDS * scale {
        for (tool, generator) in tools.iter().zip(&mut session) {
            cases.push(Case {
                index: cases.len(),
                tool: tool.spec().name().to_owned(),
                arguments: draw(generator),
                shared: true,
            });
        }
    }
    cases
}

// ---------------------------------------------------------------------------------------------
// The parent: runs the child, restarts it after a case that ended it, reports.
// ---------------------------------------------------------------------------------------------

/// One case the child began.
struct Begun {
    index: usize,
    tool: String,
    arguments: String,
    shared: bool,
}

/// One case the child finished.
struct Done {
    tool: String,
    shared: bool,
    decoded: bool,
    is_error: bool,
    elapsed: Duration,
}

/// A case that broke a rule, or a tool that changed what it only reads.
struct Failure {
    tool: String,
    index: Option<usize>,
    shared: bool,
    arguments: String,
    symptom: String,
}

/// What the parent has learnt from its children so far, and where the next child starts.
#[derive(Default)]
struct Progress {
    done: BTreeMap<usize, Done>,
    failures: Vec<Failure>,
    /// Cases that ended a child: never run again.
    ended: BTreeSet<usize>,
    /// Tools that ended a child in the shared session, and at which case.
    left_out: BTreeMap<String, usize>,
    /// The first case the next child reports.
    resume: usize,
}

/// How one child process ended: after its last case, or during a case (it ended, or said
/// nothing for too long and was killed), with what it wrote to stderr since.
enum Ended {
    Finished,
    During {
        case: Begun,
        how: String,
        last_words: String,
    },
}

#[test]
fn every_builtin_survives_generated_arguments() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let registry = registry();
    let tools = chosen(&registry);
    assert!(!tools.is_empty(), "no tool chosen");
    let started = Instant::now();
    let folder = tempfile::tempdir().expect("a temporary folder");
    let mut progress = Progress::default();
    while let Ended::During {
        case,
        how,
        last_words,
    } = run_child(&mut progress, folder.path())
    {
        progress.ended.insert(case.index);
        if case.shared {
            progress
                .left_out
                .entry(case.tool.clone())
                .or_insert(case.index);
        }
        progress.resume = case.index + 1;
        progress.failures.push(Failure {
            tool: case.tool,
            index: Some(case.index),
            shared: case.shared,
            arguments: case.arguments,
            symptom: format!("{how}; the child's last words: {last_words}"),
        });
    }
    remove_tree(folder.path());
    report(&tools, &progress, started.elapsed());
}

/// Starts a child that runs the cases from `progress.resume` on, leaving out those that
/// ended earlier children.
fn spawn_child(progress: &Progress, folder: &Path) -> std::process::Child {
    let list = |items: Vec<String>| items.join(",");
    Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "cases_run_in_a_child_process",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env(RESUME, progress.resume.to_string())
        .env(
            SKIP,
            list(progress.ended.iter().map(ToString::to_string).collect()),
        )
        .env(
            LEAVE_OUT,
            list(
                progress
                    .left_out
                    .iter()
                    .map(|(tool, index)| format!("{tool}:{index}"))
                    .collect(),
            ),
        )
        .env(FOLDER, folder)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the child process starts")
}

/// Runs one child from `progress.resume`, recording what it reports, until it ends.
fn run_child(progress: &mut Progress, folder: &Path) -> Ended {
    let mut child = spawn_child(progress, folder);
    let lines = read_lines(child.stdout.take().expect("piped stdout"));
    let stderr = keep_tail(child.stderr.take().expect("piped stderr"));
    let mut begun: Option<Begun> = None;
    let how = loop {
        match lines.recv_timeout(WATCHDOG) {
            Ok(line) => {
                if let Some(case) = marked(&line, CASE) {
                    let case: Value = serde_json::from_str(case).expect("a case line");
                    begun = Some(Begun {
                        index: usize_of(&case["index"]),
                        tool: text_of(&case["tool"]),
                        arguments: text_of(&case["arguments"]),
                        shared: case["shared"] == true,
                    });
                } else if let Some(result) = marked(&line, DONE) {
                    let result: Value = serde_json::from_str(result).expect("a done line");
                    progress.record(begun.take().expect("a case before its result"), &result);
                } else if let Some(changed) = marked(&line, CHANGED) {
                    let changed: Value = serde_json::from_str(changed).expect("a changed line");
                    progress.failures.push(Failure {
                        tool: text_of(&changed["tool"]),
                        index: None,
                        shared: false,
                        arguments: String::new(),
                        symptom: format!(
                            "a tool that only reads changed the workspace or database it read: {}",
                            changed["paths"]
                        ),
                    });
                } else if marked(&line, FINISHED).is_some() {
                    let status = child.wait().expect("the child's status");
                    assert!(
                        status.success(),
                        "the child finished its cases but exited with {status}: {}",
                        stderr.lock().unwrap_or_else(PoisonError::into_inner)
                    );
                    return Ended::Finished;
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                // Our own child, by its handle.
                let _ = child.kill();
                let _ = child.wait();
                break format!(
                    "never returned: the child said nothing for {WATCHDOG:?}, and was killed"
                );
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = child.wait().expect("the child's status");
                break format!("ended the process ({status})");
            }
        }
    };
    let tail = stderr
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let Some(case) = begun else {
        panic!("the child process {how} outside any case; its stderr:\n{tail}");
    };
    // What the child wrote since it began the case.
    let since = tail
        .rfind(CASE)
        .and_then(|start| tail[start..].split_once('\n'))
        .map_or(tail.as_str(), |(_, rest)| rest);
    let last_words = since
        .lines()
        .filter(|line| !line.is_empty())
        .take(6)
        .collect::<Vec<_>>()
        .join(" / ");
    Ended::During {
        case,
        how,
        last_words,
    }
}

impl Progress {
    /// Records a case the child finished, and what was wrong with it if anything.
    fn record(&mut self, case: Begun, result: &Value) {
        assert_eq!(usize_of(&result["index"]), case.index);
        if let Some(symptom) = symptom(&case.tool, result) {
            self.failures.push(Failure {
                tool: case.tool.clone(),
                index: Some(case.index),
                shared: case.shared,
                arguments: case.arguments,
                symptom,
            });
        }
        self.done.insert(
            case.index,
            Done {
                tool: case.tool,
                shared: case.shared,
                decoded: result["decoded"] == true,
                is_error: result["is_error"] == true,
                elapsed: Duration::from_micros(result["micros"].as_u64().unwrap_or(0)),
            },
        );
    }
}

/// The lines of the child's stdout, as they come.
fn read_lines(stdout: std::process::ChildStdout) -> mpsc::Receiver<String> {
    let (lines, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// The last part (at least 16 KB) of what the child writes to stderr, as it comes.
fn keep_tail(mut stderr: std::process::ChildStderr) -> Arc<Mutex<String>> {
    let tail = Arc::new(Mutex::new(String::new()));
    let kept = Arc::clone(&tail);
    std::thread::spawn(move || {
        let mut buffer = [0_u8; 4096];
        while let Ok(read @ 1..) = stderr.read(&mut buffer) {
            let mut text = kept.lock().unwrap_or_else(PoisonError::into_inner);
            text.push_str(&String::from_utf8_lossy(&buffer[..read]));
            if text.len() > 64 * 1024 {
                let cut = text.ceil_char_boundary(text.len() - 16 * 1024);
                text.replace_range(..cut, "…");
            }
        }
    });
    tail
}

/// What follows `mark` in a line of the child's (libtest may have begun the line with the
/// test's name).
fn marked<'a>(line: &'a str, mark: &str) -> Option<&'a str> {
    line.find(mark).map(|start| &line[start + mark.len()..])
}

fn usize_of(value: &Value) -> usize {
    value
        .as_u64()
        .and_then(|index| usize::try_from(index).ok())
        .expect("an index")
}

fn text_of(value: &Value) -> String {
    value.as_str().expect("a string").to_owned()
}

/// What was wrong with one finished case, if anything.
fn symptom(tool: &str, result: &Value) -> Option<String> {
    let content = result["content"].as_str().unwrap_or_default();
    let elapsed = Duration::from_micros(result["micros"].as_u64().unwrap_or(0));
    let panics: Vec<&str> = result["panics"]
        .as_array()
        .map(|panics| panics.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let failed = content == failed(tool);
    let mut symptoms = Vec::new();
    if failed && !panics.is_empty() {
        symptoms.push(format!("panicked: {}", panics.join(" | ")));
    } else if failed && elapsed >= TIMEOUT {
        symptoms.push(format!("timed out ({elapsed:.1?})"));
    } else if failed {
        symptoms.push("failed, with no panic seen and before the timeout".to_owned());
    } else if !panics.is_empty() {
        symptoms.push(format!(
            "panicked inside the tool, which still answered: {}",
            panics.join(" | ")
        ));
    }
    if elapsed > TIMEOUT + GRACE {
        symptoms.push(format!(
            "came back after {elapsed:.1?}, past the {TIMEOUT:?} timeout"
        ));
    }
    (!symptoms.is_empty()).then(|| symptoms.join("; "))
}

/// What the seam answers for a call that panicked or timed out.
fn failed(tool: &str) -> String {
    format!("Error: tool \"{tool}\" failed.")
}

/// Prints the count per tool and every failure, then asserts there are none and that every
/// chosen tool ran at least one case that reached it.
fn report(tools: &[&dyn Tool], progress: &Progress, elapsed: Duration) {
    #[derive(Default)]
    struct Count {
        cases: usize,
        shared: usize,
        decoded: usize,
        errors: usize,
        failures: usize,
        time: Duration,
    }
    let mut counts: BTreeMap<&str, Count> = tools
        .iter()
        .map(|tool| (tool.spec().name(), Count::default()))
        .collect();
    for case in progress.done.values() {
        let count = counts.entry(&case.tool).or_default();
        count.cases += 1;
        count.shared += usize::from(case.shared);
        count.decoded += usize::from(case.decoded);
        count.errors += usize::from(case.decoded && case.is_error);
        count.time += case.elapsed;
    }
    for failure in &progress.failures {
        counts.entry(&failure.tool).or_default().failures += 1;
    }
    println!(
        "{:<24} {:>6} {:>6} {:>6} {:>6} {:>6} {:>9}",
        "tool", "cases", "shared", "ran", "errors", "failed", "time"
    );
    for (name, count) in &counts {
        println!(
            "{name:<24} {:>6} {:>6} {:>6} {:>6} {:>6} {:>9.2?}",
            count.cases, count.shared, count.decoded, count.errors, count.failures, count.time
        );
    }
    let cases: usize = counts.values().map(|count| count.cases).sum();
    if let Ok(seed) = std::env::var(SEED) {
        println!("seed: {seed:?}");
    }
    println!(
        "{} tools, {cases} cases finished and {} that ended the child, in {elapsed:.1?} \
         (cases: generated arguments; shared: of those, in the shared session; ran: decoded, so \
         the tool ran; errors: of those, answers flagged as errors)",
        counts.len(),
        progress.ended.len()
    );
    for (tool, index) in &progress.left_out {
        println!(
            "{tool} ended the process in the shared session at case {index}; its later \
             session cases were left out"
        );
    }
    let mut listed = String::new();
    for failure in &progress.failures {
        let _ = writeln!(
            listed,
            "- {} (case {}{}): {}\n  arguments: {}",
            failure.tool,
            failure
                .index
                .map_or_else(|| "-".to_owned(), |index| index.to_string()),
            if failure.shared {
                ", in the shared session after the cases before it"
            } else {
                ""
            },
            failure.symptom,
            shortened(&failure.arguments)
        );
    }
    let idle: Vec<&str> = counts
        .iter()
        .filter(|(_, count)| count.decoded == 0)
        .map(|(name, _)| *name)
        .collect();
    assert!(
        progress.failures.is_empty() && idle.is_empty(),
        "{} failures:\n{listed}{}",
        progress.failures.len(),
        if idle.is_empty() {
            String::new()
        } else {
            format!("tools no generated case reached (none decoded): {idle:?}")
        }
    );
}

/// `text`, cut to about 600 bytes with its length said.
fn shortened(text: &str) -> String {
    if text.len() <= 600 {
        return text.to_owned();
    }
    let cut = text.floor_char_boundary(600);
    format!("{}… ({} bytes)", &text[..cut], text.len())
}

// ---------------------------------------------------------------------------------------------
// The child: the resources, the local server, the calls.
// ---------------------------------------------------------------------------------------------

/// Panics seen since last asked, each with where it happened.
static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn take_panics() -> Vec<String> {
    std::mem::take(&mut *PANICS.lock().unwrap_or_else(PoisonError::into_inner))
}

/// Runs the cases when started by [`every_builtin_survives_generated_arguments`] as its child;
/// otherwise does nothing.
#[tokio::test]
async fn cases_run_in_a_child_process() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        eprintln!("{message}");
        PANICS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(message);
    }));
    let resume: usize = std::env::var(RESUME)
        .ok()
        .and_then(|resume| resume.parse().ok())
        .unwrap_or(0);
    let skip: BTreeSet<usize> = std::env::var(SKIP)
        .unwrap_or_default()
        .split(',')
        .filter_map(|index| index.parse().ok())
        .collect();
    let left_out: Vec<(String, usize)> = std::env::var(LEAVE_OUT)
        .unwrap_or_default()
        .split(',')
        .filter_map(|pair| {
            let (tool, index) = pair.rsplit_once(':')?;
            Some((tool.to_owned(), index.parse().ok()?))
        })
        .collect();
    let world = World::new();
    let registry = registry();
    let tools = chosen(&registry);
    let mut cases = plan(&tools);
    for case in &mut cases {
        let remote = registry
            .get(&case.tool)
            .is_some_and(|tool| tool.spec().flags().remote());
        if remote {
            keep_off_the_network(&mut case.arguments, world.port, case.index);
        }
    }
    let mut before: Option<(String, BTreeMap<PathBuf, u64>)> = None;
    let runs = |case: &&Case| {
        !skip.contains(&case.index)
            && !left_out
                .iter()
                .any(|(tool, from)| case.shared && *tool == case.tool && case.index >= *from)
    };
    for case in cases.iter().filter(runs) {
        let tool = registry.get(&case.tool).expect("registered");
        let spec = tool.spec();
        let arguments = case.arguments.to_string();
        if case.index < resume {
            // A case an earlier child ran: the shared session's are run again, unreported, so
            // that the session is as it was.
            if case.shared {
                world.call(spec, &arguments, case).await;
            }
            continue;
        }
        let reads_only = !spec.flags().requires_approval() && !case.shared;
        if before.as_ref().is_none_or(|(name, _)| *name != case.tool) {
            if let Some((name, fingerprint)) = before.take() {
                world.check_unchanged(&name, &fingerprint);
            }
            if reads_only {
                before = Some((case.tool.clone(), world.fingerprint()));
            }
        }
        eprintln!("{CASE}{}", case.index);
        println!(
            "{CASE}{}",
            json!({
                "index": case.index,
                "tool": case.tool,
                "arguments": arguments,
                "shared": case.shared,
            })
        );
        take_panics();
        let started = Instant::now();
        let (content, is_error) = world.call(spec, &arguments, case).await;
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        let decoded = tool.check_arguments(&arguments).is_ok();
        let head: String = content.chars().take(200).collect();
        println!(
            "{DONE}{}",
            json!({
                "index": case.index,
                "decoded": decoded,
                "is_error": is_error,
                "micros": micros,
                "content": if content == failed(&case.tool) { content } else { head },
                "panics": take_panics(),
            })
        );
    }
    if let Some((name, fingerprint)) = before.take() {
        world.check_unchanged(&name, &fingerprint);
    }
    world.remove();
    println!("{FINISHED}");
}

/// The copies the tools work on, the local server and the service.
struct World {
    temp: TempDir,
    workspace: PathBuf,
    database: PathBuf,
    scratch: PathBuf,
    session: PathBuf,
    port: u16,
    service: ToolLoopService,
}

impl World {
    fn new() -> Self {
        let folder = std::env::var_os(FOLDER).map_or_else(std::env::temp_dir, PathBuf::from);
        let temp = tempfile::tempdir_in(folder).expect("a temporary folder");
        let workspace = temp.path().join("workspace");
        copy_tree(toolkit_builtins::files::sample_workspace(), &workspace);
        make_repository(&workspace);
        let database = temp.path().join("database/sample.db");
        assert!(
            toolkit_builtins::sample::create_sample_database(&database)
                .expect("the sample database")
        );
        let scratch = temp.path().join("scratch");
        std::fs::create_dir(&scratch).expect("the scratch folder");
        let session = temp.path().join("session");
        copy_tree(&workspace, &session.join("workspace"));
        copy_tree(
            database.parent().expect("a folder"),
            &session.join("database"),
        );
        Self {
            workspace,
            database,
            scratch,
            session,
            port: serve(),
            service: ToolLoopService::new(registry()),
            temp,
        }
    }

    /// Removes the copies, whatever the writers made of them.
    fn remove(self) {
        remove_tree(self.temp.path());
    }

    /// What the tools see: the workspace and database, a policy allowing the local server
    /// only, admin rights for a tool that requires them.
    fn context(spec: &ToolSpec, workspace: &Path, database: &Path) -> ToolContext {
        ToolContext::new()
            .with_admin(spec.flags().requires_admin())
            .with_extension(WorkspaceRoot::new(workspace))
            .with_extension(Database::new(database))
            .with_extension(NetworkPolicy::allowing([Ipv4Addr::LOCALHOST.to_string()]))
    }

    /// One call through the seam: content and error flag. A writer runs as an operator
    /// approves it: alone, on fresh copies of the workspace and database of its own; in the
    /// session, on the session's.
    async fn call(&self, spec: &ToolSpec, arguments: &str, case: &Case) -> (String, bool) {
        let (workspace, database) = if case.shared {
            (
                self.session.join("workspace"),
                self.session.join("database/sample.db"),
            )
        } else {
            (self.workspace.clone(), self.database.clone())
        };
        if spec.flags().requires_approval() {
            let folder = self.scratch.join(format!("case-{}", case.index));
            let (workspace, database) = if case.shared {
                (workspace, database)
            } else {
                copy_tree(&workspace, &folder.join("workspace"));
                copy_tree(
                    database.parent().expect("a folder"),
                    &folder.join("database"),
                );
                (folder.join("workspace"), folder.join("database/sample.db"))
            };
            let (content, is_error, _) =
                git_fixture::workspace_fixture::operator::approved_call_with(
                    &self.service,
                    RunOptions::default().with_tool_timeout(TIMEOUT),
                    Self::context(spec, &workspace, &database),
                    spec.name(),
                    arguments,
                )
                .await;
            if !case.shared {
                remove_tree(&folder);
            }
            return (content, is_error);
        }
        let scope = self
            .service
            .scope_offering(Self::context(spec, &workspace, &database), [spec.name()])
            .expect("the tool offered")
            .with_timeout(TIMEOUT)
            .with_remote_budget(u32::MAX);
        let result = self.service.invoke(&scope, spec.name(), arguments).await;
        let (content, is_error, _) = result.into_parts();
        (content.as_str().to_owned(), is_error)
    }

    /// Each file and folder of the shared workspace and database folder, with a hash of what a
    /// file holds.
    fn fingerprint(&self) -> BTreeMap<PathBuf, u64> {
        let mut prints = BTreeMap::new();
        fingerprint_into(&self.workspace, &self.workspace, &mut prints);
        let folder = self.database.parent().expect("a folder");
        fingerprint_into(folder, folder, &mut prints);
        prints
    }

    /// Says (to the parent) what `tool` changed since `before`.
    fn check_unchanged(&self, tool: &str, before: &BTreeMap<PathBuf, u64>) {
        let after = self.fingerprint();
        let changed: Vec<String> = before
            .keys()
            .chain(after.keys())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter(|path| before.get(*path) != after.get(*path))
            .map(|path| path.display().to_string())
            .collect();
        if !changed.is_empty() {
            println!("{CHANGED}{}", json!({"tool": tool, "paths": changed}));
        }
    }
}

fn fingerprint_into(root: &Path, dir: &Path, prints: &mut BTreeMap<PathBuf, u64>) {
    use std::hash::{Hash, Hasher};
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let relative = path.strip_prefix(root).unwrap_or(&path).to_owned();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => {
                "folder".hash(&mut hasher);
                prints.insert(relative, hasher.finish());
                fingerprint_into(root, &path, prints);
            }
            Ok(kind) if kind.is_file() => {
                std::fs::read(&path).unwrap_or_default().hash(&mut hasher);
                prints.insert(relative, hasher.finish());
            }
            _ => {
                "other".hash(&mut hasher);
                prints.insert(relative, hasher.finish());
            }
        }
    }
}

/// Copies a folder of plain files and folders.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("a folder to copy") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a copy");
        }
    }
}

/// Removes a case's copies, whatever a writer made of them (folders nested thousands deep
/// included), on a thread with a stack deep enough for that.
fn remove_tree(folder: &Path) {
    let folder = folder.to_owned();
    std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(move || {
            let _ = std::fs::remove_dir_all(&folder);
        })
        .expect("a thread")
        .join()
        .expect("the removal");
}

/// Makes `root` a git repository: the sample committed, then the notes changed and
/// committed, then a change, a staged file and an untracked file left uncommitted.
fn make_repository(root: &Path) {
    use git_fixture::git_at;
    git_at(root, "2024-01-01T10:00:00Z", &["init", "-q"]);
    git_at(root, "2024-01-01T10:00:00Z", &["add", "."]);
    git_at(
        root,
        "2024-01-01T10:00:00Z",
        &["commit", "-q", "-m", "Add the sample\n\nWith a body."],
    );
    let todo = root.join("notes/todo.txt");
    let mut notes = std::fs::read_to_string(&todo).expect("the todo list");
    notes.push_str("- café ☕ with 🦀\n");
    std::fs::write(&todo, notes).expect("write");
    std::fs::write(root.join("notes/ideas.md"), "# Ideas\né\n").expect("write");
    git_at(root, "2024-01-02T11:30:00Z", &["add", "."]);
    git_at(
        root,
        "2024-01-02T11:30:00Z",
        &["commit", "-q", "-m", "Update the notes"],
    );
    std::fs::write(root.join("README.md"), "# Changed\n").expect("write");
    std::fs::write(root.join("staged.txt"), "staged\n").expect("write");
    git_at(root, "2024-01-03T12:45:00Z", &["add", "staged.txt"]);
    std::fs::write(root.join("untracked.txt"), "untracked\n").expect("write");
}

// ---------------------------------------------------------------------------------------------
// The network: a local server, and URLs kept on it.
// ---------------------------------------------------------------------------------------------

/// What the local server answers, by the first segment of the path.
const ROUTES: &[&str] = &[
    "text", "page", "deep", "nested", "big", "latin1", "json", "image", "moved", "loop",
    "metadata", "ftp", "empty", "missing", "error", "weird", "badutf8", "short", "header", "gzip",
];

/// Points every http(s) URL in a network tool's arguments that could leave the machine (a
/// name, a public address, any port of 127.0.0.1) at the local server, keeping its path, and
/// picking a route by the case. URLs that do not parse, other schemes and non-public
/// addresses other than 127.0.0.1 stay as they are: the tools refuse them without connecting.
fn keep_off_the_network(value: &mut Value, port: u16, index: usize) {
    match value {
        Value::String(text) => {
            let Ok(url) = url::Url::parse(text) else {
                return;
            };
            if !matches!(url.scheme(), "http" | "https") {
                return;
            }
            let address = match url.host() {
                Some(url::Host::Ipv4(address)) => Some(IpAddr::V4(address)),
                Some(url::Host::Ipv6(address)) => Some(IpAddr::V6(address)),
                _ => None,
            };
            let refused_offline = address.is_some_and(|address| {
                address != IpAddr::V4(Ipv4Addr::LOCALHOST) && non_public(address).is_some()
            });
            if refused_offline {
                return;
            }
            let route = ROUTES[index % ROUTES.len()];
            let mut rest = url.path().to_owned();
            if let Some(query) = url.query() {
                rest = format!("{rest}?{query}");
            }
            if let Some(fragment) = url.fragment() {
                rest = format!("{rest}#{fragment}");
            }
            *text = format!("{}://127.0.0.1:{port}/{route}{rest}", url.scheme());
        }
        Value::Array(items) => {
            for item in items {
                keep_off_the_network(item, port, index);
            }
        }
        Value::Object(fields) => {
            for field in fields.values_mut() {
                keep_off_the_network(field, port, index);
            }
        }
        _ => {}
    }
}

/// Starts the local server on 127.0.0.1 for the rest of the process; its port.
fn serve() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
    let port = listener.local_addr().expect("an address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream, port));
        }
    });
    port
}

fn answer(mut stream: TcpStream, port: u16) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut request = Vec::new();
    let mut buffer = [0_u8; 4096];
    while !request.windows(4).any(|window| window == b"\r\n\r\n") && request.len() < 65_536 {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            // A TLS handshake (an https URL): this server speaks plain HTTP only.
            Ok(_) if buffer[0] == 0x16 && request.is_empty() => return,
            Ok(read) => request.extend_from_slice(&buffer[..read]),
        }
    }
    let request = String::from_utf8_lossy(&request);
    let path = request.split(' ').nth(1).unwrap_or("/");
    let route = path.trim_start_matches('/').split(['/', '?', '#']).next();
    let _ = stream.write_all(&respond(route.unwrap_or_default(), port));
}

fn respond(route: &str, port: u16) -> Vec<u8> {
    let typed = |kind: &str, body: &[u8]| reply("200 OK", &[("Content-Type", kind)], body);
    let redirect = |to: &str| reply("302 Found", &[("Location", to)], b"");
    match route {
        "text" => reply(
            "200 OK",
            &[("Content-Type", "text/plain"), ("X-Api-Key", "s3cr3t-value")],
            "hello é 🦀\n".repeat(50).as_bytes(),
        ),
        "page" => typed(
            "text/html; charset=utf-8",
            b"<!DOCTYPE html><html><head><title>T\xc3\xa9</title><script>alert(1)</script></head>\
              <body><h1>Version 2</h1><p>Faster <b>and</b> <a href=\"/page\">safer</a>.</p>\
              <table><tr><td>a</td><td>\xf0\x9f\xa6\x80</td></tr></table></body></html>",
        ),
        "deep" => typed(
            "text/html",
            format!("{}deep{}", "<div>".repeat(100_000), "</div>".repeat(100_000)).as_bytes(),
        ),
        "nested" => typed(
            "text/html",
            format!(
                "{}{}deep{}",
                "<p>para<br><img src=x>".repeat(2_000),
                "<div><span>".repeat(400),
                "</span></div>".repeat(400)
            )
            .as_bytes(),
        ),
        "big" => typed("text/plain", &vec![b'x'; 3 * 1024 * 1024]),
        "latin1" => typed("text/plain; charset=ISO-8859-1", b"caf\xe9 cr\xe8me"),
        "json" => typed("application/json", br#"{"a": [1, "\u00e9"]}"#),
        "image" => typed("image/png", b"\x89PNG\r\n\x1a\n"),
        "moved" => redirect(&format!("http://127.0.0.1:{port}/page")),
        "loop" => redirect("/loop"),
        "metadata" => redirect("http://169.254.169.254/latest/meta-data/"),
        "ftp" => redirect("ftp://127.0.0.1/file"),
        "empty" => typed("text/html", b""),
        "error" => reply("500 Internal Server Error", &[], b"oops"),
        "weird" => b"HTTP/1.1 299 Weird \xff\r\nContent-Type: text/plain; charset=\"\r\nConnection: close\r\n\r\nweird"
            .to_vec(),
        "badutf8" => typed("text/html; charset=utf-8", b"<p>\xff\xfe\xc3(</p>"),
        "short" => b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\nConnection: close\r\n\r\nonly this"
            .to_vec(),
        "header" => reply(
            "200 OK",
            &[("X-Long", &"v".repeat(60_000)), ("Content-Type", "text/plain")],
            b"long header",
        ),
        "gzip" => reply(
            "200 OK",
            &[("Content-Type", "text/html"), ("Content-Encoding", "gzip")],
            b"not gzip at all",
        ),
        _ => reply("404 Not Found", &[], b""),
    }
}

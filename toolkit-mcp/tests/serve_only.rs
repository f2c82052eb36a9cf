//! A crate that only serves tools over MCP (`default-features = false, features = ["server"]`)
//! builds no MCP client, no HTTP client and nothing in C: its dependency tree, as cargo resolves
//! it, has none of the crates that bring them.

use std::collections::BTreeSet;
use std::process::Command;

/// The crates toolkit-mcp's build depends on (normal and build dependencies) with `features`.
fn tree(features: &[&str]) -> BTreeSet<String> {
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "-p",
            "toolkit-mcp",
            "-e",
            "normal,build",
            "--prefix",
            "none",
        ])
        .args(["--no-default-features", "--features", &features.join(",")]);
    let output = command.output().expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .filter_map(|line| line.split(' ').next())
        .map(str::to_owned)
        .collect()
}

/// What a server alone must not build: an HTTP client, TLS in C or assembly, a C build step.
const CLIENT_AND_C: [&str; 6] = [
    "reqwest",
    "aws-lc-sys",
    "ring",
    "cc",
    "cmake",
    "openssl-sys",
];

#[test]
fn the_server_alone_builds_no_client_and_no_c() {
    let server = tree(&["server"]);
    let present: Vec<&str> = CLIENT_AND_C
        .into_iter()
        .filter(|name| server.contains(*name))
        .collect();
    assert!(present.is_empty(), "the server alone builds {present:?}");
    assert!(server.contains("axum") && server.contains("rmcp"));
    // The check can fail: with the client, an HTTP client and a C build step come in.
    let both = tree(&["server", "client"]);
    assert!(both.contains("reqwest") && both.contains("cc"), "{both:?}");
}

//! A crate that only serves tools over MCP (`default-features = false, features = ["server"]`)
//! builds no MCP client, no HTTP client and nothing in C: its dependency tree, as cargo resolves
//! it, has none of the crates that bring them.

use std::collections::BTreeSet;

/// The crates toolkit-mcp's build depends on (normal and build dependencies) with `features`.
fn tree(features: &[&str]) -> BTreeSet<String> {
    toolkit_testing::tree::crates("toolkit-mcp", "normal,build", features)
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

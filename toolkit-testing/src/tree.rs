//! The crates cargo resolves for a workspace package with chosen features: for tests that hold
//! what a package's users build to a bound.

use std::collections::BTreeSet;
use std::process::Command;

/// The unique crate names `cargo tree -p package -e edges` lists with the default features off
/// and only `features` on, read offline from the lockfile (the package itself included).
pub fn crates(package: &str, edges: &str, features: &[&str]) -> BTreeSet<String> {
    let output = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "-p",
            package,
            "-e",
            edges,
            "--prefix",
            "none",
        ])
        .args(["--no-default-features", "--features", &features.join(",")])
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect()
}

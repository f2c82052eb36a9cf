//! The official MCP Inspector's CLI (`--method tools/list --strict`) against the shipped binary:
//! the listed schemas draw no portability finding, with the record tools listed and without. A
//! server whose schema has a nullable type array draws the Inspector's warning, so the check is
//! live. `scripts/test` installs the Inspector with npm into `target/mcp-inspector`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use toolkit::{ToolContext, ToolLoopService};
use toolkit_builtins::{DATABASE_TOOLS, WorkspaceRoot};
use toolkit_testing::mcp::temp_path;

/// The Inspector's version `scripts/test` installs.
const VERSION: &str = "2.12.0";

/// The Inspector's launcher, when npm installed it and Node.js runs it (in the full tier only).
fn inspector() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let package = root.join("target/mcp-inspector/node_modules/@modelcontextprotocol/inspector");
    let launcher = package.join("clients/launcher/build/index.js");
    let usable = || {
        launcher.is_file()
            && Command::new("node")
                .arg("--version")
                .output()
                .is_ok_and(|output| output.status.success())
    };
    toolkit_testing::npm::installed("the MCP Inspector", &package, VERSION, usable)
        .then_some(launcher.clone())
}

/// The Inspector's exit code, the tools it listed and what it reported on stderr.
fn strict_listing(launcher: &Path, server: &[&str]) -> (Option<i32>, Vec<String>, String) {
    let output = Command::new("node")
        .arg(launcher)
        .arg("--cli")
        .args(server)
        .args(["--method", "tools/list", "--strict"])
        .output()
        .expect("node runs");
    let listed: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{error}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let names = listed["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name").to_owned())
        .collect();
    (
        output.status.code(),
        names,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The tools the binary lists: those a single call may use, the record tools only with a
/// database.
fn expected(with_database: bool) -> Vec<String> {
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicates"));
    let context = ToolContext::new().with_extension(WorkspaceRoot::new(
        toolkit_builtins::files::sample_workspace(),
    ));
    let scope = service.scope(context).unwrap();
    scope
        .offered()
        .filter(|name| {
            let tool = service.registry().get(name).expect("registered");
            !tool.spec().flags().requires_approval()
                && (with_database || !DATABASE_TOOLS.contains(name))
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_listed_schemas_pass_the_inspectors_strict_check() {
    let Some(launcher) = inspector() else {
        return;
    };
    // The control: a type array is the finding the Inspector warns about.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nullable_server.py");
    let (code, names, findings) =
        strict_listing(&launcher, &["python3", fixture.to_str().expect("UTF-8")]);
    assert_eq!(code, Some(0), "{findings}");
    assert_eq!(names, ["t"]);
    assert!(
        findings.contains("Warning: tool \"t\"\n  Path: inputSchema.properties.n\n"),
        "{findings}"
    );
    assert!(
        findings.contains("0 errors, 1 warning across 1 tool."),
        "{findings}"
    );

    let binary = env!("CARGO_BIN_EXE_toolkit-mcp");
    let (code, names, findings) = strict_listing(&launcher, &[binary]);
    assert_eq!((code, findings.as_str()), (Some(0), ""));
    assert_eq!(names, expected(false));

    let database = temp_path("inspector-shop.db");
    let _ = std::fs::remove_file(&database);
    toolkit_builtins::sample::create_sample_database(&database).expect("the sample database");
    let path = database.to_str().expect("UTF-8 path");
    let (code, names, findings) = strict_listing(&launcher, &[binary, "--database", path]);
    let _ = std::fs::remove_file(&database);
    assert_eq!((code, findings.as_str()), (Some(0), ""));
    assert_eq!(names, expected(true));
}

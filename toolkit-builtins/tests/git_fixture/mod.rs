//! Repositories made with the `git` command line, with fixed names and dates, and the git tools
//! called through the seam as a model would call them.

#![allow(dead_code)] // each test crate uses a part

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use tempfile::TempDir;
use toolkit::{ToolContext, ToolLoopService};
use toolkit_builtins::WorkspaceRoot;

#[path = "../workspace_fixture/mod.rs"]
pub mod workspace_fixture;

pub use workspace_fixture::Outcome;
#[allow(unused_imports, reason = "each test crate uses a part")]
pub use workspace_fixture::operator::approved_call;

pub const TOOLS: [&str; 5] = ["git_status", "git_log", "git_show", "git_diff", "git_blame"];

pub const ADA: &str = "Ada Lovelace <ada@example.com>";
pub const GRACE: &str = "Grace Hopper <grace@example.com>";

/// Runs git in `dir` with a fixed identity and date, no user or system configuration; its
/// standard output, trimmed.
pub fn git_at(dir: &Path, date: &str, args: &[&str]) -> String {
    let output = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .args([
            "-c",
            "user.name=Ada Lovelace",
            "-c",
            "user.email=ada@example.com",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.autocrlf=false",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .trim()
        .to_owned()
}

pub fn git(dir: &Path, args: &[&str]) -> String {
    git_at(dir, "2024-01-01T00:00:00Z", args)
}

pub fn write(dir: &Path, relative: &str, content: &[u8]) {
    let path = dir.join(relative);
    fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
    fs::write(path, content).expect("write");
}

pub fn commit(dir: &Path, date: &str, author: &str, message: &str) {
    git_at(
        dir,
        date,
        &["commit", "-q", "--author", author, "-m", message],
    );
}

pub async fn call_in(
    service: &ToolLoopService,
    root: Option<&Path>,
    name: &str,
    arguments: &Value,
) -> Outcome {
    let mut seen = ToolContext::new();
    if let Some(root) = root {
        seen = seen.with_extension(WorkspaceRoot::new(root));
    }
    let scope = service
        .scope_offering(seen, service.registry().names())
        .unwrap();
    Outcome::of(service.invoke(&scope, name, &arguments.to_string()).await)
}

/// Arguments every tool accepts: a path for `git_blame`, nothing for the others.
pub fn arguments(name: &str) -> Value {
    if name == "git_blame" {
        json!({"path": "README.md"})
    } else {
        json!({})
    }
}

/// A repository outside the workspace, with a secret commit, and a workspace beside it.
pub fn outside_repository() -> (TempDir, PathBuf, PathBuf) {
    let temp = tempfile::tempdir().expect("a temporary folder");
    let outside = temp.path().join("outside");
    fs::create_dir_all(&outside).expect("outside");
    git(&outside, &["init", "-q"]);
    write(&outside, "secret.txt", b"TOP SECRET\n");
    git(&outside, &["add", "."]);
    commit(&outside, "2024-01-01T10:00:00Z", ADA, "Secret");
    let root = temp.path().join("workspace");
    fs::create_dir_all(&root).expect("the root");
    (temp, outside, root)
}

//! Hostile repositories: a configuration that names commands, attributes that ask for them, hooks,
//! and git folders that borrow another repository's objects or hold what a read would block on.
//! The git tools run none of those commands and read nothing from elsewhere; the same repository
//! under the `git` command line does run them, so the plants are real.

mod git_fixture;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use git_fixture::{
    ADA, TOOLS, approved_call, arguments, call_in, commit, git, outside_repository, write,
};
use serde_json::{Value, json};
use toolkit::ToolContext;
use toolkit::ToolLoopService;
use toolkit_builtins::WorkspaceRoot;
use toolkit_builtins::file_writers::GIT_FOLDER_REFUSAL;

/// Every configuration key that names a program, each set to a script that logs its key.
const PROGRAM_KEYS: &[&str] = &[
    "filter.evil.clean",
    "filter.evil.smudge",
    "filter.evil.process",
    "diff.evil.textconv",
    "diff.evil.command",
    "merge.evil.driver",
    "diff.external",
    "core.fsmonitor",
    "core.sshCommand",
    "core.askPass",
    "core.editor",
    "core.pager",
    "core.gitProxy",
    "credential.helper",
    "gpg.program",
    "gpg.ssh.program",
    "sequence.editor",
    "pager.log",
    "pager.show",
    "pager.diff",
    "pager.blame",
    "pager.status",
    "uploadpack.packObjectsHook",
    "alias.status",
];

/// Hooks a git command may run, each the logging script.
const HOOKS: &[&str] = &[
    "post-index-change",
    "pre-commit",
    "post-checkout",
    "reference-transaction",
    "fsmonitor-watchman",
    "pre-auto-gc",
];

/// A logging script at `dir/evil.sh`: it appends its first argument to `dir/ran.log` and
/// passes its input through, as a filter would.
fn evil_script(dir: &Path) -> PathBuf {
    let script = dir.join("evil.sh");
    let log = dir.join("ran.log");
    fs::write(
        &script,
        format!("#!/bin/sh\necho \"$1\" >> '{}'\ncat\n", log.display()),
    )
    .expect("the script");
    make_executable(&script);
    script
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("executable");
}

/// What the script logged: the keys whose command ran.
fn ran(dir: &Path) -> Vec<String> {
    fs::read_to_string(dir.join("ran.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A repository with two commits whose configuration sets every key of [`PROGRAM_KEYS`] to
/// the logging script, directly and through an included file; whose attributes (in
/// `.gitattributes` and in `.git/info/attributes`) give every file the `evil` filter, diff and
/// merge drivers; whose hooks (in `.git/hooks` and in a `core.hooksPath` folder) are the script;
/// and whose work tree has changed, staged and unstaged, so that comparing it reads files.
fn hostile_repository(root: &Path, script: &Path) {
    git(root, &["init", "-q"]);
    write(root, "README.md", b"# Demo\nfirst\n");
    write(root, "src/lib.rs", b"pub fn f() {}\n");
    git(root, &["add", "."]);
    commit(root, "2024-01-01T10:00:00Z", ADA, "First");
    write(root, "README.md", b"# Demo\nsecond\n");
    git(root, &["add", "."]);
    commit(root, "2024-01-02T10:00:00Z", ADA, "Second");
    // Work in progress: a staged change, an unstaged change of the same size (so that only
    // reading the file tells), and a new file. Staged before the plants: git would run them.
    write(root, "src/lib.rs", b"pub fn g() {}\n");
    git(root, &["add", "src/lib.rs"]);
    write(root, "README.md", b"# Demo\nthird\n");
    write(root, "notes.txt", b"new\n");
    let command = |key: &str| format!("{} {key}", script.display());
    for key in PROGRAM_KEYS {
        git(root, &["config", key, &command(key)]);
    }
    git(root, &["config", "filter.evil.required", "true"]);
    // The same keys again in a file the configuration includes.
    let elsewhere = script.parent().expect("the script's folder");
    let included = elsewhere.join("included.config");
    let mut section = String::from("[filter \"evil\"]\n");
    for side in ["clean", "smudge", "process"] {
        let _ = writeln!(
            section,
            "\t{side} = {}",
            command(&format!("include.{side}"))
        );
    }
    fs::write(&included, section).expect("the included file");
    git(
        root,
        &["config", "include.path", included.to_str().expect("UTF-8")],
    );
    let hooks_path = elsewhere.join("hooks-elsewhere");
    fs::create_dir_all(&hooks_path).expect("a hooks folder");
    git(
        root,
        &[
            "config",
            "core.hooksPath",
            hooks_path.to_str().expect("UTF-8"),
        ],
    );
    for hook in HOOKS {
        for folder in [root.join(".git/hooks"), hooks_path.clone()] {
            let path = folder.join(hook);
            fs::write(
                &path,
                format!("#!/bin/sh\n{}\n", command(&format!("hook.{hook}"))),
            )
            .expect("a hook");
            make_executable(&path);
        }
    }
    let attributes = b"* filter=evil diff=evil merge=evil\n";
    write(root, ".gitattributes", attributes);
    write(root, ".git/info/attributes", attributes);
}

/// A temporary folder holding the logging script and, in `workspace`, the hostile repository.
fn hostile_workspace() -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().expect("a temporary folder");
    let script = evil_script(temp.path());
    let root = temp.path().join("workspace");
    fs::create_dir_all(&root).expect("the root");
    hostile_repository(&root, &script);
    (temp, root)
}

/// Every call a model could make of the git tools on that repository.
fn calls() -> Vec<(&'static str, Value)> {
    let mut calls: Vec<(&'static str, Value)> =
        TOOLS.iter().map(|name| (*name, arguments(name))).collect();
    calls.extend([
        ("git_diff", json!({"staged": true})),
        ("git_diff", json!({"from": "HEAD~1"})),
        ("git_diff", json!({"path": "README.md"})),
        ("git_log", json!({"path": "README.md"})),
        ("git_show", json!({"revision": "HEAD~1"})),
        ("git_blame", json!({"path": "src/lib.rs"})),
    ]);
    calls
}

#[cfg(unix)]
#[tokio::test]
async fn no_command_a_repository_names_runs_whatever_its_configuration_says() {
    let (temp, root) = hostile_workspace();
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"));
    for round in 0..2 {
        for (name, arguments) in calls() {
            let outcome = call_in(&service, Some(&root), name, &arguments).await;
            assert!(
                !outcome.content.contains("failed"),
                "{name} {arguments}: {}",
                outcome.content
            );
        }
        // The second round finds the index racy-clean files and stat data written by git.
        if round == 0 {
            std::thread::sleep(std::time::Duration::from_millis(1100));
            write(&root, "README.md", b"# Demo\nfifth\n");
        }
    }
    assert_eq!(ran(temp.path()), Vec::<String>::new(), "a command ran");

    // The same repository under the git command line runs them (and fails on what they
    // answer, which does not matter here): the plants are real. Each step takes away what
    // stopped git before the next plant.
    let unchecked = |args: &[&str]| {
        let _ = std::process::Command::new("git")
            .current_dir(&root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args(args)
            .output()
            .expect("git runs");
    };
    unchecked(&["status"]);
    unchecked(&["config", "--unset", "include.path"]);
    unchecked(&["config", "--unset", "filter.evil.process"]);
    unchecked(&["status"]);
    unchecked(&["diff"]);
    unchecked(&["config", "--unset", "diff.evil.command"]);
    unchecked(&["log", "-p", "-1"]);
    // git may also run the smudge filter and the index hook, depending on what it refreshes.
    let logged = ran(temp.path());
    for key in [
        "core.fsmonitor",
        "diff.evil.command",
        "diff.evil.textconv",
        "filter.evil.clean",
        "include.process",
    ] {
        assert!(
            logged.iter().any(|line| line == key),
            "git ran no {key}: {logged:?}"
        );
    }
}

/// The same with the script planted by a model's approved writes would be refused by the
/// writers (see `file_writers.rs`); here the repository's own files carry it. Attributes alone,
/// which a writer may create, name drivers that no configuration can define for these tools.
#[cfg(unix)]
#[tokio::test]
async fn attributes_naming_a_driver_run_nothing_and_the_answers_stay_those_of_git() {
    let (_temp, root) = hostile_workspace();
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"));
    let status = call_in(&service, Some(&root), "git_status", &json!({})).await;
    assert_eq!(
        status.content,
        "4 changed paths on branch main:\n\
         - .gitattributes (unstaged: untracked)\n\
         - README.md (unstaged: modified)\n\
         - notes.txt (unstaged: untracked)\n\
         - src/lib.rs (staged: modified)",
    );
}

/// A model with approved writes tries the reproduction: a filter in the repository's
/// configuration (appended, or written whole), attributes naming it (in the git folder and in
/// the work tree), a changed file; then every git tool. The writers refuse every path into
/// `.git`; the attributes they may write name a driver nothing defines; nothing runs. The same
/// filter given to git runs, so the plant is real.
#[cfg(unix)]
#[tokio::test]
async fn approved_writes_cannot_plant_a_command_for_the_git_tools() {
    let temp = tempfile::tempdir().expect("a temporary folder");
    let script = evil_script(temp.path());
    let root = temp.path().join("workspace");
    fs::create_dir_all(&root).expect("the root");
    git(&root, &["init", "-q"]);
    write(&root, "README.md", b"# Demo\n");
    git(&root, &["add", "."]);
    commit(&root, "2024-01-01T10:00:00Z", ADA, "First");
    let config_before = fs::read(root.join(".git/config")).expect("the configuration");
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"));
    let writer = ToolContext::new().with_extension(WorkspaceRoot::new(&root));
    let filter = format!("[filter \"evil\"]\n\tclean = {} clean\n", script.display());
    let into_git_folder = [
        (
            "append_file",
            json!({"path": ".git/config", "content": filter}),
        ),
        (
            "write_file",
            json!({"path": ".git/config", "content": filter, "overwrite": true}),
        ),
        (
            "write_file",
            json!({"path": ".git/info/attributes", "content": "* filter=evil\n", "overwrite": true}),
        ),
        (
            "write_file",
            json!({"path": ".GIT/config", "content": filter, "overwrite": true}),
        ),
    ];
    for (tool, arguments) in into_git_folder {
        let path = arguments["path"].as_str().expect("a path").to_owned();
        let (content, is_error, _) =
            approved_call(&service, writer.clone(), tool, &arguments.to_string()).await;
        assert_eq!(
            (content, is_error),
            (format!("Refused: \"{path}\" {GIT_FOLDER_REFUSAL}"), true),
            "{tool} {path}"
        );
    }
    assert_eq!(
        fs::read(root.join(".git/config")).expect("the configuration"),
        config_before
    );
    for (tool, arguments) in [
        (
            "write_file",
            json!({"path": ".gitattributes", "content": "* filter=evil diff=evil\n"}),
        ),
        // The same size: git reads the file to compare it, through the filter.
        (
            "write_file",
            json!({"path": "README.md", "content": "# Dem0\n", "overwrite": true}),
        ),
    ] {
        let (content, is_error, _) =
            approved_call(&service, writer.clone(), tool, &arguments.to_string()).await;
        assert!(!is_error, "{tool}: {content}");
    }
    for (name, arguments) in calls() {
        call_in(&service, Some(&root), name, &arguments).await;
    }
    assert_eq!(ran(temp.path()), Vec::<String>::new(), "a command ran");
    // git, given the filter the model tried to configure, runs it on the same work tree.
    let _ = std::process::Command::new("git")
        .current_dir(&root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args([
            "-c",
            &format!("filter.evil.clean={} clean", script.display()),
            "status",
        ])
        .output()
        .expect("git runs");
    let logged = ran(temp.path());
    assert!(
        !logged.is_empty() && logged.iter().all(|line| line == "clean"),
        "under git: {logged:?}"
    );
}

/// A workspace repository whose git folder holds something other than plain files and folders.
type Plant = fn(&Path, &Path);

#[cfg(unix)]
#[tokio::test]
async fn a_git_folder_with_a_link_a_fifo_or_a_socket_anywhere_is_refused() {
    use std::os::unix::fs::symlink;
    let cases: [(&str, Plant, &str); 7] = [
        (
            "a pack folder borrowed from another repository",
            |root, outside| {
                let pack = root.join(".git/objects/pack");
                fs::remove_dir_all(&pack).expect("no pack folder");
                symlink(outside.join(".git/objects/pack"), pack).expect("a link");
            },
            "Refused: `.git/objects/pack` in the repository is a symbolic link; the git tools read only a git folder of plain files and folders. Read the work tree with the file tools (read_file, search_files) instead.",
        ),
        (
            "a loose object folder borrowed from another repository",
            |root, outside| {
                let name = first_loose_folder(outside);
                let here = root.join(".git/objects").join(&name);
                let _ = fs::remove_dir_all(&here);
                symlink(outside.join(".git/objects").join(&name), here).expect("a link");
            },
            "Refused: `.git/objects/LOOSE` in the repository is a symbolic link; the git tools read only a git folder of plain files and folders. Read the work tree with the file tools (read_file, search_files) instead.",
        ),
        (
            "exclude rules read from elsewhere",
            |root, outside| {
                let exclude = root.join(".git/info/exclude");
                let _ = fs::remove_file(&exclude);
                symlink(outside.join("secret.txt"), exclude).expect("a link");
            },
            "Refused: `.git/info/exclude` in the repository is a symbolic link; the git tools read only a git folder of plain files and folders. Read the work tree with the file tools (read_file, search_files) instead.",
        ),
        (
            "a branch that is a link",
            |root, _| {
                symlink(
                    root.join(".git/refs/heads/main"),
                    root.join(".git/refs/heads/other"),
                )
                .expect("a link");
            },
            "Refused: `.git/refs/heads/other` in the repository is a symbolic link; the git tools read only a git folder of plain files and folders. Read the work tree with the file tools (read_file, search_files) instead.",
        ),
        (
            "a link inside the git folder to a file inside it",
            |root, _| {
                symlink(root.join(".git/HEAD"), root.join(".git/info/attributes")).expect("a link");
            },
            "Refused: `.git/info/attributes` in the repository is a symbolic link; the git tools read only a git folder of plain files and folders. Read the work tree with the file tools (read_file, search_files) instead.",
        ),
        (
            "a FIFO a read would wait on forever",
            |root, _| {
                let exclude = root.join(".git/info/exclude");
                let _ = fs::remove_file(&exclude);
                let made = std::process::Command::new("mkfifo")
                    .arg(&exclude)
                    .status()
                    .expect("mkfifo runs");
                assert!(made.success());
            },
            "Refused: `.git/info/exclude` in the repository is a FIFO; the git tools read only a git folder of plain files and folders. Read the work tree with the file tools (read_file, search_files) instead.",
        ),
        (
            "a socket",
            |root, _| {
                let listener = std::os::unix::net::UnixListener::bind(root.join(".git/sock"))
                    .expect("a socket");
                drop(listener);
            },
            "Refused: `.git/sock` in the repository is a socket; the git tools read only a git folder of plain files and folders. Read the work tree with the file tools (read_file, search_files) instead.",
        ),
    ];
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"));
    for (what, plant, expected) in cases {
        let (_temp, outside, root) = outside_repository();
        git(&root, &["init", "-q"]);
        write(&root, "README.md", b"# Mine\n");
        git(&root, &["add", "."]);
        commit(&root, "2024-01-01T10:00:00Z", ADA, "Mine");
        git(&root, &["gc", "-q"]);
        git(&outside, &["gc", "-q"]);
        // A loose object too, in a folder of its own.
        write(&outside, "loose.txt", b"LOOSE SECRET\n");
        git(&outside, &["add", "."]);
        commit(&outside, "2024-01-02T10:00:00Z", ADA, "Loose");
        plant(&root, &outside);
        let expected = expected.replace("LOOSE", &first_loose_folder(&outside));
        for name in TOOLS {
            let outcome = call_in(&service, Some(&root), name, &arguments(name)).await;
            assert_eq!(outcome.error(), expected, "{what}: {name}");
            assert!(!outcome.content.contains("SECRET"), "{what}: {name}");
        }
    }
}

/// The name of the first folder of loose objects of a repository (`objects/xx`).
fn first_loose_folder(repository: &Path) -> String {
    let mut names: Vec<String> = fs::read_dir(repository.join(".git/objects"))
        .expect("objects")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.len() == 2)
        .collect();
    names.sort();
    names.first().cloned().expect("a loose object")
}

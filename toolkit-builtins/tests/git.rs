//! The read-only git tools against repositories made here with the `git` command line, with
//! fixed names and dates, called through the seam as a model would call them.

mod git_fixture;

use std::fs;
use std::path::{Path, PathBuf};

use git_fixture::{
    ADA, GRACE, Outcome, TOOLS, arguments, call_in, commit, git, outside_repository, write,
};
use serde_json::{Value, json};
use tempfile::TempDir;
use toolkit::ToolLoopService;
use toolkit_builtins::git::{GIT_FILE, GIT_LINK, GIT_OUTSIDE, NOT_A_REPOSITORY};

/// A workspace holding a repository with three commits:
///
/// 1. 2024-01-01 10:00, Ada, "Add readme" (+ body): `.gitignore`, `README.md`, `src/main.rs`;
/// 2. 2024-01-02 11:30, Grace, "Greet the world": `src/main.rs` changed, binary `logo.bin`;
/// 3. 2024-01-03 12:45, Ada, "Update readme": `README.md` changed.
struct Repo {
    _temp: TempDir,
    root: PathBuf,
    service: ToolLoopService,
}

impl Repo {
    fn new() -> Self {
        let temp = tempfile::tempdir().expect("a temporary folder");
        let root = temp.path().join("workspace");
        fs::create_dir_all(&root).expect("the root");
        git(&root, &["init", "-q"]);
        write(&root, ".gitignore", b"*.log\n");
        write(&root, "README.md", b"# Demo\n");
        write(&root, "src/main.rs", b"fn main() {}\n");
        git(&root, &["add", "."]);
        commit(
            &root,
            "2024-01-01T10:00:00Z",
            ADA,
            "Add readme\n\nThe first commit.",
        );
        write(
            &root,
            "src/main.rs",
            b"fn main() {\n    println!(\"hi\");\n}\n",
        );
        write(&root, "logo.bin", &[0, 1, 2, 3]);
        git(&root, &["add", "."]);
        commit(&root, "2024-01-02T11:30:00Z", GRACE, "Greet the world");
        write(&root, "README.md", b"# Demo\nA demo.\n");
        git(&root, &["add", "."]);
        commit(&root, "2024-01-03T12:45:00Z", ADA, "Update readme");
        Self {
            _temp: temp,
            root,
            service: ToolLoopService::new(
                toolkit_builtins::registry().expect("no duplicate names"),
            ),
        }
    }

    /// The repository with work in progress: a staged new file, a file changed and staged then
    /// changed again, an unstaged change, a deleted file, an untracked and an ignored file.
    fn with_changes() -> Self {
        let repo = Self::new();
        let root = &repo.root;
        write(root, "staged.txt", b"staged\n");
        write(
            root,
            "src/main.rs",
            b"fn main() {\n    println!(\"hello\");\n}\n",
        );
        git(root, &["add", "staged.txt", "src/main.rs"]);
        write(
            root,
            "src/main.rs",
            b"fn main() {\n    println!(\"hello, world\");\n}\n",
        );
        write(root, "README.md", b"# Demo\nA demo.\nMore.\n");
        fs::remove_file(root.join("logo.bin")).expect("remove");
        write(root, "notes.txt", b"untracked\n");
        write(root, "debug.log", b"ignored\n");
        repo
    }

    fn id(&self, revision: &str) -> String {
        git(&self.root, &["rev-parse", revision])
    }

    /// The fixture's three commits, oldest first, as the tools print them (short ids).
    fn commits(&self) -> [String; 3] {
        ["HEAD~2", "HEAD~1", "HEAD"].map(|revision| self.id(revision)[..12].to_owned())
    }

    async fn call(&self, name: &str, arguments: Value) -> Outcome {
        call_in(&self.service, Some(&self.root), name, &arguments).await
    }
}

fn rows(rows: &[&[&str]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|row| row.iter().map(|cell| (*cell).to_owned()).collect())
        .collect()
}

fn columns(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

#[test]
fn they_are_in_the_git_group_and_need_no_approval() {
    let registry = toolkit_builtins::registry().expect("no duplicate names");
    for name in TOOLS {
        let spec = registry.get(name).expect("registered").spec();
        assert_eq!(spec.group(), "git", "{name}");
        assert!(!spec.flags().requires_approval(), "{name}");
        assert!(
            toolkit_builtins::WORKSPACE_TOOLS.contains(&name),
            "{name} needs the workspace"
        );
    }
}

#[tokio::test]
async fn status_lists_staged_unstaged_and_untracked_paths_but_not_ignored_ones() {
    let repo = Repo::with_changes();
    let index = fs::read(repo.root.join(".git/index")).expect("the index");
    let outcome = repo.call("git_status", json!({})).await;
    assert_eq!(
        outcome.ok(),
        "5 changed paths on branch main:\n\
         - README.md (unstaged: modified)\n\
         - logo.bin (unstaged: deleted)\n\
         - notes.txt (unstaged: untracked)\n\
         - src/main.rs (staged: modified, unstaged: modified)\n\
         - staged.txt (staged: added)"
    );
    assert_eq!(
        outcome.table_labelled("Git status"),
        (
            columns(&["path", "staged", "unstaged"]),
            rows(&[
                &["README.md", "", "modified"],
                &["logo.bin", "", "deleted"],
                &["notes.txt", "", "untracked"],
                &["src/main.rs", "modified", "modified"],
                &["staged.txt", "added", ""],
            ])
        )
    );

    let outcome = repo
        .call("git_status", json!({"offset": 3, "limit": 1}))
        .await;
    assert_eq!(
        outcome.ok(),
        "5 changed paths on branch main:\n\
         (rows 4 to 4 of 5)\n\
         - src/main.rs (staged: modified, unstaged: modified)\n\
         … 1 more: call again with offset 4 for the next page."
    );
    // Read-only: the index is as git left it.
    assert_eq!(
        fs::read(repo.root.join(".git/index")).expect("the index"),
        index
    );

    let clean = Repo::new();
    let outcome = clean.call("git_status", json!({})).await;
    assert_eq!(outcome.text(), "The work tree is clean (on branch main).");

    let outcome = clean.call("git_status", json!({"limit": 0})).await;
    assert_eq!(
        outcome.error(),
        "Error: limit must be between 1 and 200, not 0."
    );
}

#[tokio::test]
async fn log_lists_commits_newest_first_with_paging_and_a_path_filter() {
    let repo = Repo::new();
    let [c1, c2, c3] = repo.commits();
    let outcome = repo.call("git_log", json!({})).await;
    assert_eq!(
        outcome.ok(),
        format!(
            "3 commits reachable from \"HEAD\", newest first:\n\
             - {c3} 2024-01-03 12:45 Ada Lovelace: Update readme\n\
             - {c2} 2024-01-02 11:30 Grace Hopper: Greet the world\n\
             - {c1} 2024-01-01 10:00 Ada Lovelace: Add readme"
        )
    );
    assert_eq!(
        outcome.table_labelled("Git log"),
        (
            columns(&["commit", "author", "date", "subject"]),
            rows(&[
                &[&c3, "Ada Lovelace", "2024-01-03 12:45", "Update readme"],
                &[&c2, "Grace Hopper", "2024-01-02 11:30", "Greet the world"],
                &[&c1, "Ada Lovelace", "2024-01-01 10:00", "Add readme"],
            ])
        )
    );

    let outcome = repo.call("git_log", json!({"offset": 1, "limit": 1})).await;
    assert_eq!(
        outcome.ok(),
        format!(
            "3 commits reachable from \"HEAD\", newest first:\n\
             (rows 2 to 2 of 3)\n\
             - {c2} 2024-01-02 11:30 Grace Hopper: Greet the world\n\
             … 1 more: call again with offset 2 for the next page."
        )
    );

    let outcome = repo.call("git_log", json!({"path": "src"})).await;
    assert_eq!(
        outcome.ok(),
        format!(
            "2 commits reachable from \"HEAD\" that changed \"src\", newest first:\n\
             - {c2} 2024-01-02 11:30 Grace Hopper: Greet the world\n\
             - {c1} 2024-01-01 10:00 Ada Lovelace: Add readme"
        )
    );
    let outcome = repo
        .call(
            "git_log",
            json!({"path": "README.md", "revision": "HEAD~1"}),
        )
        .await;
    assert_eq!(
        outcome.ok(),
        format!(
            "1 commit reachable from \"HEAD~1\" that changed \"README.md\", newest first:\n\
             - {c1} 2024-01-01 10:00 Ada Lovelace: Add readme"
        )
    );
    let outcome = repo.call("git_log", json!({"path": "missing.txt"})).await;
    assert_eq!(
        outcome.text(),
        "No commits reachable from \"HEAD\" that changed \"missing.txt\"."
    );
}

#[tokio::test]
async fn show_gives_a_root_commit_against_nothing() {
    let repo = Repo::new();
    let id = repo.id("HEAD~2");
    let short = &id[..12];
    let outcome = repo.call("git_show", json!({"revision": "HEAD~2"})).await;
    let diff = "diff --git a/.gitignore b/.gitignore\n\
                new file mode 100644\n\
                --- /dev/null\n\
                +++ b/.gitignore\n\
                @@ -0,0 +1 @@\n\
                +*.log\n\
                diff --git a/README.md b/README.md\n\
                new file mode 100644\n\
                --- /dev/null\n\
                +++ b/README.md\n\
                @@ -0,0 +1 @@\n\
                +# Demo\n\
                diff --git a/src/main.rs b/src/main.rs\n\
                new file mode 100644\n\
                --- /dev/null\n\
                +++ b/src/main.rs\n\
                @@ -0,0 +1 @@\n\
                +fn main() {}\n";
    assert_eq!(
        outcome.ok(),
        format!(
            "commit {id}\n\
             Author: Ada Lovelace <ada@example.com>\n\
             Date:   2024-01-01 10:00 UTC\n\
             (root commit: compared with nothing)\n\
             \n    Add readme\n    \n    The first commit.\n\
             \n3 files changed, 3 lines added, 0 removed:\n\
             - .gitignore (added, +1 -0)\n\
             - README.md (added, +1 -0)\n\
             - src/main.rs (added, +1 -0)\n\
             \n{}",
            diff.trim_end()
        )
    );
    assert_eq!(
        outcome.text_labelled(&format!("Diff of commit {short}")),
        diff
    );
    assert_eq!(
        outcome.table_labelled(&format!("Files changed in commit {short}")),
        (
            columns(&["path", "change", "lines added", "lines removed"]),
            rows(&[
                &[".gitignore", "added", "1", "0"],
                &["README.md", "added", "1", "0"],
                &["src/main.rs", "added", "1", "0"],
            ])
        )
    );
}

#[tokio::test]
async fn show_gives_a_later_commit_against_its_parent_with_binary_files_named() {
    let repo = Repo::new();
    let id = repo.id("HEAD~1");
    let parent = repo.id("HEAD~2");
    let short = &id[..12];
    let outcome = repo.call("git_show", json!({"revision": short})).await;
    let diff = "diff --git a/logo.bin b/logo.bin\n\
                new file mode 100644\n\
                binary file changed\n\
                diff --git a/src/main.rs b/src/main.rs\n\
                --- a/src/main.rs\n\
                +++ b/src/main.rs\n\
                @@ -1 +1,3 @@\n\
                -fn main() {}\n\
                +fn main() {\n\
                +    println!(\"hi\");\n\
                +}\n";
    assert_eq!(
        outcome.ok(),
        format!(
            "commit {id}\n\
             Author: Grace Hopper <grace@example.com>\n\
             Date:   2024-01-02 11:30 UTC\n\
             Parent: {parent}\n\
             \n    Greet the world\n\
             \n2 files changed, 3 lines added, 1 removed:\n\
             - logo.bin (added)\n\
             - src/main.rs (modified, +3 -1)\n\
             \n{}",
            diff.trim_end()
        )
    );
    assert_eq!(
        outcome.text_labelled(&format!("Diff of commit {short}")),
        diff
    );
    assert_eq!(
        outcome
            .table_labelled(&format!("Files changed in commit {short}"))
            .1,
        rows(&[
            &["logo.bin", "added", "", ""],
            &["src/main.rs", "modified", "3", "1"],
        ])
    );
}

#[tokio::test]
async fn diff_compares_the_work_tree_with_the_index_by_default() {
    let repo = Repo::with_changes();

    let outcome = repo.call("git_diff", json!({})).await;
    let unstaged = "diff --git a/README.md b/README.md\n\
                    --- a/README.md\n\
                    +++ b/README.md\n\
                    @@ -1,2 +1,3 @@\n \
                    # Demo\n \
                    A demo.\n\
                    +More.\n\
                    diff --git a/logo.bin b/logo.bin\n\
                    deleted file mode 100644\n\
                    binary file changed\n\
                    diff --git a/src/main.rs b/src/main.rs\n\
                    --- a/src/main.rs\n\
                    +++ b/src/main.rs\n\
                    @@ -1,3 +1,3 @@\n \
                    fn main() {\n\
                    -    println!(\"hello\");\n\
                    +    println!(\"hello, world\");\n \
                    }\n";
    assert_eq!(
        outcome.ok(),
        format!(
            "Unstaged changes (the work tree against the index):\n\
             3 files changed, 2 lines added, 1 removed:\n\
             - README.md (modified, +1 -0)\n\
             - logo.bin (deleted)\n\
             - src/main.rs (modified, +1 -1)\n\
             \n{}",
            unstaged.trim_end()
        )
    );
    assert_eq!(
        outcome.text_labelled("Diff of the unstaged changes"),
        unstaged
    );

    let outcome = repo.call("git_diff", json!({"path": "src"})).await;
    assert_eq!(
        outcome.ok(),
        "Unstaged changes (the work tree against the index) in \"src\":\n\
         1 file changed, 1 line added, 1 removed:\n\
         - src/main.rs (modified, +1 -1)\n\
         \n\
         diff --git a/src/main.rs b/src/main.rs\n\
         --- a/src/main.rs\n\
         +++ b/src/main.rs\n\
         @@ -1,3 +1,3 @@\n \
         fn main() {\n\
         -    println!(\"hello\");\n\
         +    println!(\"hello, world\");\n \
         }"
    );
}

#[tokio::test]
async fn diff_with_staged_compares_the_index_with_head() {
    let repo = Repo::with_changes();
    let outcome = repo.call("git_diff", json!({"staged": true})).await;
    assert_eq!(
        outcome.ok(),
        "Staged changes (the index against HEAD):\n\
         2 files changed, 2 lines added, 1 removed:\n\
         - src/main.rs (modified, +1 -1)\n\
         - staged.txt (added, +1 -0)\n\
         \n\
         diff --git a/src/main.rs b/src/main.rs\n\
         --- a/src/main.rs\n\
         +++ b/src/main.rs\n\
         @@ -1,3 +1,3 @@\n \
         fn main() {\n\
         -    println!(\"hi\");\n\
         +    println!(\"hello\");\n \
         }\n\
         diff --git a/staged.txt b/staged.txt\n\
         new file mode 100644\n\
         --- /dev/null\n\
         +++ b/staged.txt\n\
         @@ -0,0 +1 @@\n\
         +staged"
    );
    assert_eq!(
        outcome
            .table_labelled("Files changed in the staged changes")
            .1,
        rows(&[
            &["src/main.rs", "modified", "1", "1"],
            &["staged.txt", "added", "1", "0"],
        ])
    );
    let outcome = repo
        .call("git_diff", json!({"staged": true, "path": "docs"}))
        .await;
    assert_eq!(
        outcome.text(),
        "Staged changes (the index against HEAD) in \"docs\": no differences."
    );
}

#[tokio::test]
async fn diff_from_to_compares_two_commits() {
    let repo = Repo::with_changes();
    let [c1, _, c3] = repo.commits();
    let outcome = repo
        .call(
            "git_diff",
            json!({"from": "HEAD~2", "to": "main", "path": "README.md", "context_lines": 0}),
        )
        .await;
    assert_eq!(
        outcome.ok(),
        format!(
            "Changes from HEAD~2 ({c1}) to main ({c3}) in \"README.md\":\n\
             1 file changed, 1 line added, 0 removed:\n\
             - README.md (modified, +1 -0)\n\
             \n\
             diff --git a/README.md b/README.md\n\
             --- a/README.md\n\
             +++ b/README.md\n\
             @@ -1,0 +2 @@\n\
             +A demo."
        )
    );
    assert_eq!(
        outcome.table_labelled("Files changed in HEAD~2..main").1,
        rows(&[&["README.md", "modified", "1", "0"]])
    );

    let outcome = repo.call("git_diff", json!({"to": "HEAD"})).await;
    assert_eq!(
        outcome.error(),
        "Error: `to` needs `from`, the commit to compare it with."
    );
    let outcome = repo
        .call("git_diff", json!({"from": "HEAD~1", "staged": true}))
        .await;
    assert_eq!(
        outcome.error(),
        "Error: `staged` compares the index with HEAD; it does not take `from` or `to`."
    );
}

#[tokio::test]
async fn blame_names_the_commit_and_author_of_each_line() {
    let repo = Repo::new();
    let [c1, c2, c3] = repo.commits();
    let outcome = repo.call("git_blame", json!({"path": "README.md"})).await;
    assert_eq!(
        outcome.ok(),
        format!(
            "Blame of \"README.md\" at HEAD ({c3}), 2 lines:\n    \
             1 {c1} Ada Lovelace: # Demo\n    \
             2 {c3} Ada Lovelace: A demo."
        )
    );
    assert_eq!(
        outcome.table_labelled("Git blame"),
        (
            columns(&["line", "commit", "author", "text"]),
            rows(&[
                &["1", &c1, "Ada Lovelace", "# Demo"],
                &["2", &c3, "Ada Lovelace", "A demo."],
            ])
        )
    );
    let outcome = repo
        .call(
            "git_blame",
            json!({"path": "src/main.rs", "offset": 1, "limit": 1}),
        )
        .await;
    assert_eq!(
        outcome.ok(),
        format!(
            "Blame of \"src/main.rs\" at HEAD ({c3}), 3 lines:\n\
             (rows 2 to 2 of 3)\n    \
             2 {c2} Grace Hopper:     println!(\"hi\");\n\
             … 1 more: call again with offset 2 for the next page."
        )
    );
    let outcome = repo
        .call(
            "git_blame",
            json!({"path": "README.md", "revision": "HEAD~2"}),
        )
        .await;
    assert_eq!(
        outcome.table_labelled("Git blame").1,
        rows(&[&["1", &c1, "Ada Lovelace", "# Demo"]])
    );
    let outcome = repo.call("git_blame", json!({"path": "logo.bin"})).await;
    assert_eq!(
        outcome.error(),
        "\"logo.bin\" is a binary file; blame reads text. git_log with this path shows who changed it."
    );
    let outcome = repo.call("git_blame", json!({"path": "src"})).await;
    assert_eq!(
        outcome.error(),
        "\"src\" is not a file in HEAD; check the path, or give a revision that has it (git_log with this path lists them)."
    );
    let outcome = repo.call("git_blame", json!({"path": "missing.txt"})).await;
    assert_eq!(
        outcome.error(),
        "\"missing.txt\" is not a file in HEAD; check the path, or give a revision that has it (git_log with this path lists them)."
    );
}

#[tokio::test]
async fn a_workspace_that_is_not_a_repository_is_refused() {
    let temp = tempfile::tempdir().expect("a temporary folder");
    write(temp.path(), "README.md", b"# Not a repository\n");
    // A repository above the workspace is not the workspace's.
    git(temp.path(), &["init", "-q"]);
    let root = temp.path().join("workspace");
    write(&root, "notes.txt", b"notes\n");
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"));
    for name in TOOLS {
        let outcome = call_in(&service, Some(&root), name, &arguments(name)).await;
        assert_eq!(outcome.error(), NOT_A_REPOSITORY, "{name}");
        let outcome = call_in(&service, None, name, &arguments(name)).await;
        assert_eq!(outcome.content, toolkit_builtins::NO_WORKSPACE, "{name}");
    }
    assert_eq!(
        NOT_A_REPOSITORY,
        "Refused: the workspace is not a git repository (there is no `.git` folder in its root). Read the work tree with the file tools (read_file, search_files) instead."
    );
}

#[tokio::test]
async fn a_git_file_pointing_outside_is_refused() {
    let (_temp, outside, root) = outside_repository();
    fs::write(
        root.join(".git"),
        format!("gitdir: {}\n", outside.join(".git").display()),
    )
    .expect("a .git file");
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"));
    for name in TOOLS {
        let outcome = call_in(&service, Some(&root), name, &arguments(name)).await;
        assert_eq!(outcome.error(), GIT_FILE, "{name}");
    }
    assert_eq!(
        GIT_FILE,
        "Refused: `.git` in the workspace root is a file pointing to a repository elsewhere; only a `.git` folder directly in the workspace is read. Read the work tree with the file tools (read_file, search_files) instead."
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_git_link_to_a_repository_outside_is_refused() {
    let (_temp, outside, root) = outside_repository();
    std::os::unix::fs::symlink(outside.join(".git"), root.join(".git")).expect("a link");
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"));
    for name in TOOLS {
        let outcome = call_in(&service, Some(&root), name, &arguments(name)).await;
        assert_eq!(outcome.error(), GIT_LINK, "{name}");
        assert!(!outcome.content.contains("Secret"));
    }
    assert_eq!(
        GIT_LINK,
        "Refused: `.git` in the workspace root is a symbolic link; only a `.git` folder directly in the workspace is read. Read the work tree with the file tools (read_file, search_files) instead."
    );
}

#[tokio::test]
async fn bad_revisions_and_paths_are_refused() {
    let repo = Repo::new();
    for (name, arguments) in [
        ("git_log", json!({"revision": "nope"})),
        ("git_show", json!({"revision": "nope"})),
        ("git_diff", json!({"from": "nope"})),
        (
            "git_blame",
            json!({"path": "README.md", "revision": "nope"}),
        ),
    ] {
        let outcome = repo.call(name, arguments).await;
        assert_eq!(
            outcome.error(),
            "Error: the revision \"nope\" does not exist in the repository.",
            "{name}"
        );
    }
    let outcome = repo
        .call("git_show", json!({"revision": "HEAD:README.md"}))
        .await;
    assert_eq!(
        outcome.error(),
        "Error: the revision \"HEAD:README.md\" is not a commit."
    );
    let dotdot = "Refused: the path \"../outside\" contains `..`; give a path inside the workspace, relative to its root (for example \"src/main.rs\").";
    for name in ["git_log", "git_diff", "git_blame"] {
        let outcome = repo.call(name, json!({"path": "../outside"})).await;
        assert_eq!(outcome.error(), dotdot, "{name}");
    }
    let outcome = repo.call("git_blame", json!({"path": "/etc/passwd"})).await;
    assert_eq!(
        outcome.error(),
        "Refused: the path \"/etc/passwd\" is absolute; give a path relative to the workspace."
    );
}

#[tokio::test]
async fn a_tracked_file_swapped_for_a_link_to_an_outside_file_shows_none_of_its_bytes() {
    let repo = Repo::new();
    let outside = tempfile::tempdir().expect("a temporary folder");
    let secret = outside.path().join("secret.txt");
    fs::write(&secret, "OUTSIDE-CANARY\n").expect("write");
    fs::remove_file(repo.root.join("README.md")).expect("remove");
    std::os::unix::fs::symlink(&secret, repo.root.join("README.md")).expect("a link");
    for (name, arguments) in [
        ("git_status", json!({})),
        ("git_diff", json!({})),
        ("git_diff", json!({"path": "README.md"})),
        ("git_blame", json!({"path": "README.md"})),
    ] {
        let outcome = repo.call(name, arguments.clone()).await;
        let everything = format!("{outcome:?}");
        assert!(
            !everything.contains("OUTSIDE-CANARY"),
            "{name} {arguments}: {everything}"
        );
    }
}

/// How a repository is made to reach out, given its root and the outside repository's.
type ReachOut = fn(&Path, &Path);

/// A repository in the workspace that reaches outside it another way: objects borrowed from an
/// outside repository (alternates), a linked work tree's `commondir`, its objects folder a link
/// out, or its configuration naming an excludes or attributes file elsewhere.
#[cfg(unix)]
#[tokio::test]
async fn a_repository_that_reaches_outside_is_refused_whichever_way() {
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"));
    let setups: [(&str, ReachOut); 5] = [
        ("alternates", |root, outside| {
            write(
                root,
                ".git/objects/info/alternates",
                format!("{}\n", outside.join(".git/objects").display()).as_bytes(),
            );
        }),
        ("commondir", |root, outside| {
            write(
                root,
                ".git/commondir",
                format!("{}\n", outside.join(".git").display()).as_bytes(),
            );
        }),
        ("objects link", |root, outside| {
            fs::rename(root.join(".git/objects"), root.join(".git/objects-aside")).expect("aside");
            std::os::unix::fs::symlink(outside.join(".git/objects"), root.join(".git/objects"))
                .expect("a link");
        }),
        ("excludesFile", |root, outside| {
            git(
                root,
                &[
                    "config",
                    "core.excludesFile",
                    outside.join("secret.txt").to_str().expect("UTF-8"),
                ],
            );
        }),
        ("attributesFile", |root, outside| {
            git(
                root,
                &[
                    "config",
                    "core.attributesFile",
                    outside.join("secret.txt").to_str().expect("UTF-8"),
                ],
            );
        }),
    ];
    for (what, setup) in setups {
        let (_temp, outside, root) = outside_repository();
        git(&root, &["init", "-q"]);
        write(&root, "README.md", b"# Mine\n");
        git(&root, &["add", "."]);
        commit(&root, "2024-01-01T10:00:00Z", ADA, "Mine");
        setup(&root, &outside);
        for name in TOOLS {
            let outcome = call_in(&service, Some(&root), name, &arguments(name)).await;
            let expected = match what {
                "excludesFile" | "attributesFile" => format!(
                    "Refused: the repository's configuration sets `core.{what}`, a file these tools do not read. Read the work tree with the file tools (read_file, search_files) instead."
                ),
                _ => GIT_OUTSIDE.to_owned(),
            };
            assert_eq!(outcome.error(), expected, "{what}: {name}");
            assert!(!outcome.content.contains("SECRET"), "{what}: {name}");
        }
    }
}

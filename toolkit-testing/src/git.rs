//! Repositories made for tests and benches with the `git` command.

use std::path::Path;
use std::process::{Command, Stdio};

/// Runs git in `dir` with no user or system configuration, `input` on its stdin.
///
/// # Panics
/// When git cannot run or fails.
pub fn git(dir: &Path, args: &[&str], input: Option<&[u8]>) {
    let mut child = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["-c", "init.defaultBranch=main"])
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .spawn()
        .expect("git runs");
    if let Some(input) = input {
        let mut stdin = child.stdin.take().expect("piped");
        std::io::Write::write_all(&mut stdin, input).expect("git reads its input");
    }
    assert!(child.wait().expect("git ends").success(), "git {args:?}");
}

/// A repository in `dir` whose `big.txt` (`lines` lines) was changed by `commits` commits, each
/// changing another line (made with `git fast-import`), so that a blame of it walks the whole
/// history.
///
/// # Panics
/// When git fails, or `commits` is not less than `lines`.
pub fn long_history(dir: &Path, lines: usize, commits: usize) {
    assert!(commits < lines, "each commit changes another line");
    git(dir, &["init", "-q"], None);
    let mut text: Vec<String> = (0..lines).map(|line| format!("line {line}")).collect();
    let mut stream = Vec::new();
    for commit in 0..=commits {
        if commit > 0 {
            // 7 and `lines` share no factor in the tests' sizes: a different line each time.
            let line = commit * 7 % lines;
            text[line] = format!("line {line} changed by commit {commit}");
        }
        let content = text.join("\n") + "\n";
        let message = format!("commit {commit}\n");
        stream.extend_from_slice(
            format!(
                "commit refs/heads/main\ncommitter Ada <ada@example.com> {} +0000\ndata {}\n{message}",
                1_700_000_000 + commit,
                message.len()
            )
            .as_bytes(),
        );
        stream.extend_from_slice(
            format!("M 100644 inline big.txt\ndata {}\n", content.len()).as_bytes(),
        );
        stream.extend_from_slice(content.as_bytes());
        stream.push(b'\n');
    }
    git(dir, &["fast-import", "--quiet"], Some(&stream));
    git(dir, &["reset", "-q", "--hard", "main"], None);
}

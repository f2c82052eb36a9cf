//! Checks the conformance suite itself, so a proof cannot rot into one that fails for the wrong
//! reason: every compile-fail case states its guarantee, names a passing control that uses all of
//! its imports, has a snapshot, and its snapshot holds exactly one error, the one the case expects
//! (never an unresolved name, located in the case itself and, where the case names them, on the
//! offending tokens).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The fewest compile-fail cases the suite may have (the egress, approval and macro guarantees
/// the guides list need more than this).
const MIN_FAIL_CASES: usize = 14;

/// Cases of `#[tool]` misuse are named `tool-attr-*`; each must say where its error points.
const TOOL_ATTR_PREFIX: &str = "tool-attr-";

/// The fewest cases of `#[tool]` misuse (every misuse is a compile error, spanned on its tokens).
const MIN_TOOL_ATTR_CASES: usize = 16;

/// Errors that mean a case did not get as far as its guarantee: a name or path did not resolve.
const UNRESOLVED: [&str; 8] = [
    "E0405", // cannot find trait
    "E0412", // cannot find type
    "E0422", // cannot find struct, variant or union type
    "E0425", // cannot find value or function
    "E0432", // unresolved import
    "E0433", // failed to resolve a path
    "E0463", // cannot find crate
    "E0531", // cannot find tuple struct or variant in a pattern
];

fn ui_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ui")
        .join(kind)
}

/// The names (without extension) of the files in `dir` ending in `.ext`, sorted.
fn stems(dir: &Path, ext: &str) -> BTreeSet<String> {
    fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("cannot list {}: {error}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|found| found == ext))
        .map(|path| {
            path.file_stem()
                .and_then(|stem| stem.to_str())
                .expect("a UTF-8 file name")
                .to_owned()
        })
        .collect()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

/// The leading `//` comment lines of a file, without the `//`.
fn header(source: &str) -> Vec<&str> {
    source
        .lines()
        .map_while(|line| line.strip_prefix("//"))
        .map(str::trim)
        .collect()
}

/// The value of the `// key: value` header line, if any.
fn header_value<'a>(source: &'a str, key: &str) -> Option<&'a str> {
    header(source)
        .into_iter()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix(':'))
        .map(str::trim)
}

/// Every path a file imports, one per item: `use a::{B, C};` gives `a::B` and `a::C`.
fn imports(source: &str) -> BTreeSet<String> {
    let mut statements = Vec::new();
    let mut open: Option<String> = None;
    for line in source.lines() {
        let line = line.trim();
        let statement = match open.take() {
            Some(mut statement) => {
                statement.push(' ');
                statement.push_str(line);
                statement
            }
            None if line.starts_with("use ") => line["use ".len()..].to_owned(),
            None => continue,
        };
        match statement.split_once(';') {
            Some((statement, _)) => statements.push(statement.to_owned()),
            None => open = Some(statement),
        }
    }
    let mut paths = BTreeSet::new();
    for statement in statements {
        let statement = statement.split_whitespace().collect::<Vec<_>>().join(" ");
        match statement.split_once("::{") {
            Some((prefix, list)) => {
                let list = list.strip_suffix('}').expect("a `use` list ends with `}`");
                assert!(
                    !list.contains('{'),
                    "keep `use` lines one level deep so the suite can compare them: {statement}"
                );
                for item in list
                    .split(',')
                    .map(str::trim)
                    .filter(|item| !item.is_empty())
                {
                    paths.insert(format!("{prefix}::{item}"));
                }
            }
            None => {
                paths.insert(statement);
            }
        }
    }
    paths
}

/// The first `error` line of a snapshot and the location line that follows it.
fn first_error(stderr: &str) -> Option<(&str, Option<&str>)> {
    let mut lines = stderr.lines();
    let error = lines.by_ref().find(|line| line.starts_with("error"))?;
    let location = lines
        .take_while(|line| !line.starts_with("error"))
        .find_map(|line| line.trim_start().strip_prefix("--> "));
    Some((error, location))
}

/// Whether a header's `expect` value is an error code (`E0277`) rather than the start of the
/// message of an error without one (a macro's `compile_error!`).
fn is_error_code(expect: &str) -> bool {
    expect.len() == 5
        && expect.starts_with('E')
        && expect[1..].bytes().all(|byte| byte.is_ascii_digit())
}

/// The source text under the first error's primary `^^^` marker, when the span is on one line.
fn first_error_span(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let start = lines.iter().position(|line| line.starts_with("error"))?;
    let location = lines[start..]
        .iter()
        .find_map(|line| line.trim_start().strip_prefix("--> "))?;
    let line_number = location.rsplit(':').nth(1)?;
    let source_index = (start..lines.len()).find(|&index| {
        lines[index]
            .trim_start()
            .strip_prefix(line_number)
            .is_some_and(|rest| rest.starts_with(" |"))
    })?;
    let after_bar = |line: &str| -> Option<Vec<char>> {
        line.split_once('|').map(|(_, rest)| rest.chars().collect())
    };
    let source = after_bar(lines[source_index])?;
    let marker = after_bar(lines.get(source_index + 1)?)?;
    let first = marker.iter().position(|&c| c == '^')?;
    let length = marker[first..].iter().take_while(|&&c| c == '^').count();
    Some(source.get(first..first + length)?.iter().collect())
}

/// Fails with every problem found, one per line, rather than stopping at the first.
fn assert_no_problems(check: &str, problems: &[String]) {
    assert!(problems.is_empty(), "{check}:\n  {}", problems.join("\n  "));
}

#[test]
fn every_case_has_a_snapshot_and_every_snapshot_a_case() {
    let fail = ui_dir("fail");
    let cases = stems(&fail, "rs");
    let snapshots = stems(&fail, "stderr");
    let mut problems: Vec<String> = cases
        .difference(&snapshots)
        .map(|case| format!("fail/{case}.rs has no .stderr beside it"))
        .chain(
            snapshots
                .difference(&cases)
                .map(|case| format!("fail/{case}.stderr has no .rs beside it")),
        )
        .collect();
    problems.extend(
        stems(&ui_dir("pass"), "stderr")
            .into_iter()
            .map(|control| format!("pass/{control}.stderr: pass controls have no snapshots")),
    );
    assert_no_problems("snapshots and cases do not pair up", &problems);
}

#[test]
fn there_are_enough_cases() {
    let cases = stems(&ui_dir("fail"), "rs");
    let count = cases.len();
    assert!(
        count >= MIN_FAIL_CASES,
        "{count} compile-fail cases, at least {MIN_FAIL_CASES} expected"
    );
    let tool_attr = cases
        .iter()
        .filter(|case| case.starts_with(TOOL_ATTR_PREFIX))
        .count();
    assert!(
        tool_attr >= MIN_TOOL_ATTR_CASES,
        "{tool_attr} cases of #[tool] misuse, at least {MIN_TOOL_ATTR_CASES} expected"
    );
}

#[test]
fn every_case_says_what_it_proves_and_ends_with_an_empty_main() {
    let fail = ui_dir("fail");
    let mut problems = Vec::new();
    for case in stems(&fail, "rs") {
        let source = read(&fail.join(format!("{case}.rs")));
        let first = source.lines().next().unwrap_or_default();
        let proves = first.strip_prefix("// proves: ").unwrap_or_default();
        if proves.len() < 20 {
            problems.push(format!(
                "{case}.rs: the first line must be `// proves: <the guarantee>`, found {first:?}"
            ));
        }
        if header_value(&source, "expect").is_none() {
            problems.push(format!(
                "{case}.rs: the header needs `// expect: <error code or start of the message>`"
            ));
        }
        if case.starts_with(TOOL_ATTR_PREFIX) && header_value(&source, "span").is_none() {
            problems.push(format!(
                "{case}.rs: a #[tool] misuse names the offending tokens: `// span: <tokens>`"
            ));
        }
        let last = source.lines().rev().find(|line| !line.trim().is_empty());
        if last != Some("fn main() {}") {
            problems.push(format!(
                "{case}.rs must end with `fn main() {{}}`, it ends with {last:?}"
            ));
        }
    }
    assert_no_problems("cases without their header or `fn main() {}`", &problems);
}

#[test]
fn every_case_has_a_control_with_all_its_imports() {
    let fail = ui_dir("fail");
    let pass = ui_dir("pass");
    let mut problems = Vec::new();
    let mut used_controls = BTreeSet::new();
    for case in stems(&fail, "rs") {
        let source = read(&fail.join(format!("{case}.rs")));
        let Some(control) = header_value(&source, "control")
            .and_then(|control| control.strip_prefix("pass/"))
            .and_then(|control| control.strip_suffix(".rs"))
        else {
            problems.push(format!(
                "{case}.rs: the header needs `// control: pass/<name>.rs`"
            ));
            continue;
        };
        used_controls.insert(control.to_owned());
        let control_path = pass.join(format!("{control}.rs"));
        if !control_path.is_file() {
            problems.push(format!(
                "{case}.rs names a missing control pass/{control}.rs"
            ));
            continue;
        }
        let control_imports = imports(&read(&control_path));
        let missing: Vec<_> = imports(&source)
            .into_iter()
            .filter(|import| !control_imports.contains(import))
            .collect();
        if !missing.is_empty() {
            problems.push(format!(
                "{case}.rs imports {missing:?}, which its control pass/{control}.rs does not"
            ));
        }
    }
    for control in stems(&pass, "rs") {
        if !used_controls.contains(&control) {
            problems.push(format!("pass/{control}.rs is no fail case's control"));
        }
        if !read(&pass.join(format!("{control}.rs"))).starts_with("// control for ") {
            problems.push(format!(
                "pass/{control}.rs must open with `// control for <cases>: <what it shows>`"
            ));
        }
    }
    assert_no_problems("cases and controls do not match", &problems);
}

#[test]
fn every_snapshot_fails_first_for_the_intended_reason() {
    let fail = ui_dir("fail");
    let mut problems = Vec::new();
    for case in stems(&fail, "rs") {
        let source = read(&fail.join(format!("{case}.rs")));
        let stderr_path = fail.join(format!("{case}.stderr"));
        // A missing header or snapshot is reported by the tests above.
        let Some(expect) = header_value(&source, "expect") else {
            continue;
        };
        if !stderr_path.is_file() {
            continue;
        }
        let stderr = read(&stderr_path);
        let Some((error, location)) = first_error(&stderr) else {
            problems.push(format!("{case}.stderr has no error"));
            continue;
        };
        let errors = stderr
            .lines()
            .filter(|line| line.starts_with("error"))
            .count();
        if errors != 1 {
            problems.push(format!(
                "{case}.stderr: {errors} errors; one mistake must give one error"
            ));
        }
        let code = error
            .strip_prefix("error[")
            .and_then(|rest| rest.split_once(']'))
            .map(|(code, _)| code);
        match code {
            None if !is_error_code(expect) => {
                if !error
                    .strip_prefix("error: ")
                    .is_some_and(|message| message.starts_with(expect))
                {
                    problems.push(format!(
                        "{case}.stderr: the first error does not start as the header expects ({expect:?}): {error}"
                    ));
                }
            }
            None => problems.push(format!(
                "{case}.stderr: the first error has no code, the header expects {expect}: {error}"
            )),
            Some(code) if !is_error_code(expect) => problems.push(format!(
                "{case}.stderr: the first error is {code}, the header expects a message without a code: {error}"
            )),
            // An unresolved name is what a typo in a `use` line gives; it is the guarantee only
            // where the case expects it and pins it to the tokens at fault.
            Some(code)
                if UNRESOLVED.contains(&code)
                    && (code != expect || header_value(&source, "span").is_none()) =>
            {
                problems.push(format!(
                    "{case}.stderr: the first error is an unresolved name, not the guarantee: {error}"
                ));
            }
            Some(code) if code != expect => problems.push(format!(
                "{case}.stderr: the first error is {code}, the header expects {expect}: {error}"
            )),
            Some(_) => {}
        }
        let location = location.unwrap_or_default();
        if !location.starts_with(&format!("tests/ui/fail/{case}.rs:")) {
            problems.push(format!(
                "{case}.stderr: the first error must point into the case, it points to {location:?}"
            ));
        }
        if let Some(span) = header_value(&source, "span") {
            let found = first_error_span(&stderr);
            if found.as_deref() != Some(span) {
                problems.push(format!(
                    "{case}.stderr: the first error must point at {span:?}, it points at {found:?}"
                ));
            }
        }
    }
    assert_no_problems("snapshots that fail for another reason", &problems);
}

#[test]
fn no_snapshot_depends_on_the_standard_library_sources() {
    // These machines have no rust-src: a note that points into std prints its snippet only where
    // rust-src is installed, so such a snapshot would differ from machine to machine.
    let fail = ui_dir("fail");
    let problems: Vec<String> = stems(&fail, "stderr")
        .into_iter()
        .filter(|case| read(&fail.join(format!("{case}.stderr"))).contains("$RUST/"))
        .map(|case| format!("{case}.stderr points into std; find an error that lands in our code"))
        .collect();
    assert_no_problems("snapshots that differ by machine", &problems);
}

#[test]
fn the_span_under_the_marker_is_read() {
    let stderr = "error: bad\n --> tests/ui/fail/x.rs:9:24\n  |\n9 | pub fn whoami(context: ToolContext) {\n  |                        ^^^^^^^^^^^ here\n";
    assert_eq!(first_error_span(stderr).as_deref(), Some("ToolContext"));
    let wide = "error[E0277]: bad\n  --> tests/ui/fail/x.rs:20:12\n   |\n20 |     point: Point,\n   |            ^^^^^ unsatisfied\n";
    assert_eq!(first_error_span(wide).as_deref(), Some("Point"));
    assert!(is_error_code("E0277") && !is_error_code("a #[tool] function"));
}

#[test]
fn imports_are_read_per_item() {
    let source =
        "// x\nuse std::time::Instant;\n\nuse toolkit::{\n    A, B,\n    c,\n};\nfn main() {}\n";
    let expected: BTreeSet<String> = [
        "std::time::Instant",
        "toolkit::A",
        "toolkit::B",
        "toolkit::c",
    ]
    .map(String::from)
    .into();
    assert_eq!(imports(source), expected);
}

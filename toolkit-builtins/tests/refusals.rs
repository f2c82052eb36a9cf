//! One rule for every builtin's refusals (issue 47): a call that could not do what it asked (a
//! path refused, nothing there, not a folder, admin-only, not a repository, an argument out of
//! range) sets the error flag, and its text names the fix the model can make; an answer that
//! did what was asked, even one that found nothing, is a plain text. A walk across the groups,
//! each answer pinned whole.

mod git_fixture;

use std::fs;

use git_fixture::git;
use git_fixture::workspace_fixture::Fixture;
use serde_json::json;
use toolkit_builtins::Database;

#[tokio::test]
#[expect(clippy::too_many_lines, reason = "a table of refusals, one entry each")]
async fn every_refusal_sets_the_error_flag_and_names_the_fix() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let database = folder.path().join("sample.db");
    assert!(
        toolkit_builtins::sample::create_sample_database(&database).expect("the sample database")
    );
    let fixture = Fixture::with_context(|context| context.with_extension(Database::new(&database)));
    // A repository that borrows its objects from outside the workspace.
    let borrowing = Fixture::new();
    git(&borrowing.root, &["init", "-q"]);
    fs::write(
        borrowing.root.join(".git/objects/info/alternates"),
        format!("{}\n", borrowing.outside.display()),
    )
    .expect("alternates");

    let cases = [
        // Files: paths refused as written, then what is not there or not a folder.
        (
            &fixture,
            "read_file",
            json!({"path": "../outside/secret.txt"}),
            "Refused: the path \"../outside/secret.txt\" contains `..`; give a path inside the workspace, relative to its root (for example \"src/main.rs\").",
        ),
        (
            &fixture,
            "read_file",
            json!({"path": "/etc/passwd"}),
            "Refused: the path \"/etc/passwd\" is absolute; give a path relative to the workspace.",
        ),
        (
            &fixture,
            "read_file",
            json!({"path": "notes.txt\0"}),
            "Refused: the path \"notes.txt\\0\" contains a NUL byte; give the path without it.",
        ),
        (
            &fixture,
            "read_file",
            json!({"path": "missing.txt"}),
            "No file or folder at \"missing.txt\" in the workspace; list_directory shows what is there.",
        ),
        (
            &fixture,
            "read_file",
            json!({"path": "nested"}),
            "\"nested\" is a folder, not a file; list_directory shows the files in it.",
        ),
        (
            &fixture,
            "list_directory",
            json!({"path": "notes.txt"}),
            "\"notes.txt\" is not a folder; give the path of a folder (file_info says what this one is).",
        ),
        (
            &fixture,
            "read_file",
            json!({"path": "notes.txt", "from_line": 9}),
            "\"notes.txt\" has 5 lines; from_line 9 is past the end. Give a from_line from 1 to 5.",
        ),
        // Git: no repository, and one that reaches outside.
        (
            &fixture,
            "git_status",
            json!({}),
            "Refused: the workspace is not a git repository (there is no `.git` folder in its root). Read the work tree with the file tools (read_file, search_files) instead.",
        ),
        (
            &borrowing,
            "git_log",
            json!({}),
            "Refused: the repository's git folder or work tree lies outside the workspace, or it borrows objects from elsewhere. Read the work tree with the file tools (read_file, search_files) instead.",
        ),
        // Records: a statement query_sql does not run, an offset past the rows.
        (
            &fixture,
            "query_sql",
            json!({"sql": "DELETE FROM orders"}),
            "Refused: query_sql runs only read-only SELECT statements; this one would delete from \"orders\".",
        ),
        (
            &fixture,
            "read_records",
            json!({"table": "customers", "offset": 50}),
            "No rows at offset 50: \"customers\" has 12 rows. Give an offset from 0 to 11.",
        ),
        // System: admin-only tools called by a user.
        (
            &fixture,
            "get_env_raw",
            json!({"name": "HOME"}),
            "Refused: get_env_raw is for admin callers only. get_env shows the variables with secrets masked.",
        ),
        (
            &fixture,
            "list_processes",
            json!({}),
            "Refused: list_processes is for admin callers only. system_status reports the host's load and memory.",
        ),
        // Writers and data.
        (
            &fixture,
            "write_file",
            json!({"path": "notes.txt", "content": "x"}),
            "\"notes.txt\" exists; pass overwrite: true to replace it.",
        ),
        (
            &fixture,
            "json_query",
            json!({"path": "data/config.json", "query": "owner"}),
            "Nothing at owner in \"data/config.json\": $ has no key \"owner\". json_infer_schema shows the document's shape.",
        ),
        // Network: an address the tools do not reach.
        (
            &fixture,
            "probe_url",
            json!({"url": "http://127.0.0.1/"}),
            "Refused: 127.0.0.1 is a loopback address; probe_url reaches public addresses only, unless the run allow-lists the host.",
        ),
    ];
    for (fixture, tool, arguments, expected) in cases {
        let outcome = fixture.call(tool, arguments.clone()).await;
        assert_eq!(
            (outcome.content.as_str(), outcome.is_error),
            (expected, true),
            "{tool} {arguments}"
        );
        assert!(outcome.artifacts.is_empty(), "{tool} {arguments}");
    }
    // A link that leads out of the workspace.
    if cfg!(unix) {
        assert_eq!(
            fixture
                .call("read_file", json!({"path": "leak.txt"}))
                .await
                .error(),
            "Refused: the path \"leak.txt\" leads outside the workspace (through a link); give a path that stays inside it."
        );
    }
}

#[tokio::test]
async fn an_answer_that_found_nothing_is_a_plain_text_not_a_refusal() {
    let fixture = Fixture::new();
    fs::write(fixture.root.join("blank.txt"), "").expect("an empty file");
    for (tool, arguments, expected) in [
        (
            "list_directory",
            json!({"path": "empty"}),
            "The folder \"empty\" is empty.",
        ),
        (
            "read_file",
            json!({"path": "blank.txt"}),
            "\"blank.txt\" is empty.",
        ),
        (
            "find_files",
            json!({"pattern": "*.xml"}),
            "Nothing matches \"*.xml\" in \".\".",
        ),
        (
            "search_files",
            json!({"query": "no such words"}),
            "No match for \"no such words\" in \".\".",
        ),
        (
            "fetch_logs",
            json!({"path": "logs/app.log", "contains": "no such words"}),
            "None of 5 lines of \"logs/app.log\" containing \"no such words\".",
        ),
        (
            "get_env",
            json!({"name": "TOOLKIT_SURELY_UNSET_1"}),
            "The variable \"TOOLKIT_SURELY_UNSET_1\" is not set.",
        ),
        (
            "create_directory",
            json!({"path": "empty"}),
            "The folder \"empty\" already exists.",
        ),
    ] {
        assert_eq!(
            fixture.call(tool, arguments.clone()).await.text(),
            expected,
            "{tool} {arguments}"
        );
    }
}

#[tokio::test]
async fn a_value_the_filter_hides_is_said_to_be_hidden_not_missing() {
    let fixture = Fixture::new();
    let filtered = fixture
        .service
        .scope_offering(fixture.scope.context().clone(), ["json_query"])
        .unwrap()
        .with_content_filter(std::sync::Arc::new(toolkit::seam::SecretFilter));
    let document = r#"{"keys": {"AKIAIOSFODNN7EXAMPLQ": "in use"}}"#;
    let ask = |query: &str| json!({"text": document, "query": query}).to_string();
    let hidden = fixture
        .service
        .invoke(&filtered, "json_query", &ask("keys.AKIAIOSFODNN7EXAMPLQ"))
        .await;
    // The key is a secret's shape: the filter masks it in the answer too.
    assert_eq!(
        (hidden.content(), hidden.is_error()),
        (
            "keys.[REDACTED] in the text is hidden by the run's content filter.",
            false
        )
    );
    // What is missing from the document itself is still a refusal.
    let missing = fixture
        .service
        .invoke(&filtered, "json_query", &ask("keys.other"))
        .await;
    assert_eq!(
        (missing.content(), missing.is_error()),
        (
            "Nothing at keys.other in the text: keys has no key \"other\". json_infer_schema shows the document's shape.",
            true
        )
    );
}

//! The system group: environment, host status, processes, logs and time, through the seam.

mod workspace_fixture;

use std::process::Command;

use serde_json::json;
use toolkit::{ToolContext, ToolLoopService};
use workspace_fixture::{Fixture, assert_escapes_refused};

fn strings<const N: usize>(cells: [&str; N]) -> Vec<String> {
    cells.iter().map(|cell| (*cell).to_owned()).collect()
}

/// Variables the child test process gets, with what `get_env` must show for each.
const CHILD_VARIABLES: &[(&str, &str, &str)] = &[
    ("BUILTINS_GET_ENV_API_KEY", "plainvalue", "[REDACTED]"),
    (
        "BUILTINS_GET_ENV_DATABASE_URL",
        "postgres://ada:hunter2@db.example/app",
        "postgres://ada:[REDACTED]@db.example/app",
    ),
    ("BUILTINS_GET_ENV_GREETING", "hello world", "hello world"),
    ("BUILTINS_GET_ENV_OWNER", "ada@example.com", "[EMAIL]"),
    (
        "BUILTINS_GET_ENV_VALUE",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "[REDACTED]",
    ),
];
const CHILD_MARKER: &str = "BUILTINS_GET_ENV_CHILD";

/// Runs `test` again in a child process whose environment has [`CHILD_VARIABLES`] (setting
/// variables in this process would need `unsafe`); true in the child, where the checks run.
fn in_child_with_variables(test: &str) -> bool {
    if std::env::var_os(CHILD_MARKER).is_some() {
        return true;
    }
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command
        .args([test, "--exact", "--test-threads=1"])
        .env(CHILD_MARKER, "1");
    for (name, value, _) in CHILD_VARIABLES {
        command.env(name, value);
    }
    let output = command.output().expect("run the child");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    false
}

#[tokio::test]
async fn get_env_redacts_secrets_in_content_and_artifact() {
    if !in_child_with_variables("get_env_redacts_secrets_in_content_and_artifact") {
        return;
    }
    let fixture = Fixture::new();
    let outcome = fixture
        .call("get_env", json!({"prefix": "BUILTINS_GET_ENV_"}))
        .await;
    // The marker variable is there too, and is not a secret.
    let mut rows: Vec<Vec<String>> = CHILD_VARIABLES
        .iter()
        .map(|(name, _, shown)| strings([name, shown]))
        .collect();
    rows.insert(1, strings([CHILD_MARKER, "1"]));
    let mut expected = "6 variables starting with \"BUILTINS_GET_ENV_\" (4 redacted):".to_owned();
    for row in &rows {
        expected.push('\n');
        expected.push_str(&row.join("="));
    }
    assert_eq!(outcome.content, expected);
    assert_eq!(outcome.label(), "Environment");
    assert_eq!(outcome.table(), (strings(["name", "value"]), rows.clone()));
    let artifact = serde_json::to_string(&outcome.artifacts).expect("serialise");
    for (_, secret) in [
        ("", "plainvalue"),
        ("", "hunter2"),
        ("", "ada@example.com"),
        ("", "ghp_abcdefghij"),
    ] {
        assert!(!outcome.content.contains(secret), "content shows {secret}");
        assert!(!artifact.contains(secret), "artifact shows {secret}");
    }
    // Paged: two at a time, from the third.
    let page = fixture
        .call(
            "get_env",
            json!({"prefix": "BUILTINS_GET_ENV_", "offset": 2, "limit": 2}),
        )
        .await;
    let mut expected =
        "6 variables starting with \"BUILTINS_GET_ENV_\" (4 redacted):\n(rows 3 to 4 of 6)"
            .to_owned();
    for row in &rows[2..4] {
        expected.push('\n');
        expected.push_str(&row.join("="));
    }
    expected.push_str("\n… 2 more: call again with offset 4 for the next page.");
    assert_eq!(page.content, expected);
    assert_eq!(
        fixture.call("get_env", json!({"limit": 201})).await.content,
        "Error: limit must be between 1 and 200, not 201."
    );
    let one = fixture
        .call("get_env", json!({"name": "BUILTINS_GET_ENV_API_KEY"}))
        .await;
    assert_eq!(
        one.content,
        "1 variable named \"BUILTINS_GET_ENV_API_KEY\" (1 redacted):\nBUILTINS_GET_ENV_API_KEY=[REDACTED]"
    );
    assert_eq!(
        one.table().1,
        vec![strings(["BUILTINS_GET_ENV_API_KEY", "[REDACTED]"])]
    );

    // The raw value is for admins, and only when the run offers the tool.
    let admin = Fixture::with_context(|context| context.with_admin(true));
    assert_eq!(
        admin
            .call("get_env_raw", json!({"name": "BUILTINS_GET_ENV_API_KEY"}))
            .await
            .text(),
        "BUILTINS_GET_ENV_API_KEY=plainvalue"
    );
    assert_eq!(
        fixture
            .call("get_env_raw", json!({"name": "BUILTINS_GET_ENV_API_KEY"}))
            .await
            .error(),
        "Refused: get_env_raw is for admin callers only. get_env shows the variables with secrets masked."
    );
}

#[tokio::test]
async fn get_env_says_when_nothing_matches() {
    let fixture = Fixture::new();
    assert_eq!(
        fixture
            .call("get_env", json!({"name": "TOOLKIT_SURELY_UNSET_1"}))
            .await
            .text(),
        "The variable \"TOOLKIT_SURELY_UNSET_1\" is not set."
    );
    assert_eq!(
        fixture
            .call("get_env", json!({"prefix": "TOOLKIT_SURELY_UNSET_"}))
            .await
            .text(),
        "No variable's name starts with \"TOOLKIT_SURELY_UNSET_\"."
    );
    // A listing that found nothing is an answer; the one value asked for, missing, is refused.
    let admin = Fixture::with_context(|context| context.with_admin(true));
    assert_eq!(
        admin
            .call("get_env_raw", json!({"name": "TOOLKIT_SURELY_UNSET_1"}))
            .await
            .error(),
        "The variable \"TOOLKIT_SURELY_UNSET_1\" is not set; get_env lists the variables that are set."
    );
}

#[test]
fn admin_tools_are_offered_to_admins_only_and_get_env_raw_to_nobody_by_default() {
    let registry = toolkit_builtins::registry().expect("no duplicate names");
    let raw = registry
        .get("get_env_raw")
        .expect("registered")
        .spec()
        .flags();
    assert!(raw.requires_admin() && !raw.enabled_by_default());
    let processes = registry
        .get("list_processes")
        .expect("registered")
        .spec()
        .flags();
    assert!(processes.requires_admin() && processes.enabled_by_default());
    let service = ToolLoopService::new(registry);
    let user: Vec<String> = service
        .scope(ToolContext::new())
        .unwrap()
        .offered()
        .map(str::to_owned)
        .collect();
    let admin: Vec<String> = service
        .scope(ToolContext::new().with_admin(true))
        .unwrap()
        .offered()
        .map(str::to_owned)
        .collect();
    assert!(
        !user
            .iter()
            .any(|name| name == "list_processes" || name == "get_env_raw")
    );
    assert!(admin.iter().any(|name| name == "list_processes"));
    assert!(!admin.iter().any(|name| name == "get_env_raw"));
    assert!(user.iter().any(|name| name == "get_env"));
}

#[tokio::test]
async fn a_default_user_scope_does_not_run_admin_tools() {
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("no duplicate names"));
    let scope = service.scope(ToolContext::new()).unwrap();
    let result = service.invoke(&scope, "list_processes", "{}").await;
    assert_eq!(
        result.content(),
        "Error: tool \"list_processes\" not permitted"
    );
    let result = service
        .invoke(&scope, "get_env_raw", r#"{"name": "HOME"}"#)
        .await;
    assert_eq!(
        result.content(),
        "Error: tool \"get_env_raw\" not permitted"
    );
}

#[tokio::test]
async fn system_status_reports_the_host_in_content_and_table() {
    let fixture = Fixture::new();
    let outcome = fixture.call("system_status", json!({})).await;
    let (columns, rows) = outcome.table();
    assert_eq!(columns, strings(["field", "value"]));
    let fields: Vec<&str> = rows.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(
        fields,
        [
            "os",
            "kernel",
            "architecture",
            "host",
            "uptime",
            "cpus",
            "memory",
            "swap",
            "load average",
            "workspace disk"
        ]
    );
    let lines: Vec<String> = rows
        .iter()
        .map(|row| format!("{}: {}", row[0], row[1]))
        .collect();
    assert_eq!(outcome.content, lines.join("\n"));
    assert_eq!(rows[2][1], std::env::consts::ARCH);
    let logical = std::thread::available_parallelism().map_or(0, usize::from);
    assert!(rows[5][1].contains(" logical, "), "{}", rows[5][1]);
    assert!(
        rows[5][1]
            .split(' ')
            .next()
            .and_then(|n| n.parse::<usize>().ok())
            .is_some_and(|n| n >= logical)
    );
    assert!(rows[6][1].contains(" used of "), "{}", rows[6][1]);
    assert!(rows[9][1].contains(" free of "), "{}", rows[9][1]);
}

#[tokio::test]
async fn list_processes_finds_this_process_for_an_admin() {
    let fixture = Fixture::with_context(|context| context.with_admin(true));
    let pid = std::process::id().to_string();
    let outcome = fixture
        .call("list_processes", json!({"sort_by": "pid", "limit": 200}))
        .await;
    let (columns, rows) = outcome.table();
    assert_eq!(
        columns,
        strings(["pid", "name", "memory", "cpu %", "status"])
    );
    let pids: Vec<u32> = rows
        .iter()
        .map(|row| row[0].parse().expect("a pid"))
        .collect();
    assert!(
        pids.windows(2).all(|pair| pair[0] < pair[1]),
        "sorted by pid"
    );
    assert!(
        outcome.content.starts_with(&format!("{} of ", rows.len())),
        "{}",
        outcome.content
    );
    let first = &rows[0];
    assert!(outcome.content.contains(&format!(
        "\n{} {} {} {}% {}",
        first[0], first[1], first[2], first[3], first[4]
    )));
    // Filtering by this process's name finds it, however many processes the host has. The
    // kernel keeps the first 15 bytes of an executable's name.
    let exe = std::env::current_exe().expect("the test's executable");
    let file_name = exe.file_name().expect("a file name").to_string_lossy();
    let name: String = file_name.chars().take(15).collect();
    let outcome = fixture
        .call(
            "list_processes",
            json!({"name_contains": name.to_uppercase()}),
        )
        .await;
    assert!(outcome.table().1.iter().any(|row| row[0] == pid));
    assert_eq!(
        fixture
            .call("list_processes", json!({"limit": 201}))
            .await
            .error(),
        "Error: limit must be between 1 and 200, not 201."
    );
    assert_eq!(
        fixture
            .call(
                "list_processes",
                json!({"name_contains": "no-such-process-name-x"})
            )
            .await
            .text(),
        "No process's name contains \"no-such-process-name-x\"."
    );
    // Offered to a non-admin by hand, it still refuses.
    let user = Fixture::new();
    assert_eq!(
        user.call("list_processes", json!({})).await.error(),
        "Refused: list_processes is for admin callers only. system_status reports the host's load and memory."
    );
}

#[tokio::test]
async fn fetch_logs_filters_by_level_and_masks_in_content_and_table() {
    let fixture = Fixture::new();
    let outcome = fixture
        .call(
            "fetch_logs",
            json!({"path": "logs/app.log", "level": "warn"}),
        )
        .await;
    let rows = vec![
        strings([
            "3",
            "WARN",
            "2024-01-02 03:00:02 WARN slow response token=[REDACTED]",
        ]),
        strings([
            "4",
            "ERROR",
            "2024-01-02 03:00:03 ERROR failed to reach db password=[REDACTED]",
        ]),
    ];
    assert_eq!(
        outcome.content,
        format!(
            "Last 2 of 5 lines of \"logs/app.log\" at WARN or above:\n3: {}\n4: {}",
            rows[0][2], rows[1][2]
        )
    );
    assert_eq!(outcome.label(), "Log lines");
    assert_eq!(outcome.table(), (strings(["line", "level", "text"]), rows));

    let outcome = fixture
        .call("fetch_logs", json!({"path": "logs/app.log", "lines": 2}))
        .await;
    assert_eq!(
        outcome.content,
        "Last 2 of 5 lines of \"logs/app.log\":\n4: 2024-01-02 03:00:03 ERROR failed to reach db password=[REDACTED]\n5: 2024-01-02 03:00:04 INFO done"
    );
    let outcome = fixture
        .call(
            "fetch_logs",
            json!({"path": "logs/app.log", "contains": "STARTED"}),
        )
        .await;
    assert_eq!(
        outcome.content,
        "Last 1 of 5 lines of \"logs/app.log\" containing \"started\":\n1: 2024-01-02 03:00:00 INFO started by [EMAIL]"
    );
    assert_eq!(
        outcome.table().1,
        vec![strings([
            "1",
            "INFO",
            "2024-01-02 03:00:00 INFO started by [EMAIL]"
        ])]
    );
    // Matching happens after masking, so a secret cannot be probed for.
    assert_eq!(
        fixture
            .call(
                "fetch_logs",
                json!({"path": "logs/app.log", "contains": "hunter2"})
            )
            .await
            .text(),
        "None of 5 lines of \"logs/app.log\" containing \"hunter2\"."
    );
    let everything = fixture
        .call("fetch_logs", json!({"path": "logs/app.log"}))
        .await;
    let artifact = serde_json::to_string(&everything.artifacts).expect("serialise");
    for secret in ["hunter2", "abcd1234efgh5678ijkl", "ada@example.com"] {
        assert!(
            !everything.content.contains(secret) && !artifact.contains(secret),
            "{secret}"
        );
    }
}

#[tokio::test]
async fn fetch_logs_validates_and_refuses_escapes() {
    let fixture = Fixture::new();
    assert_eq!(
        fixture
            .call("fetch_logs", json!({"path": "logs/app.log", "lines": 501}))
            .await
            .error(),
        "Error: lines must be between 1 and 500, not 501."
    );
    let invalid = fixture
        .call(
            "fetch_logs",
            json!({"path": "logs/app.log", "level": "loud"}),
        )
        .await;
    assert!(
        invalid.error().starts_with(
            "Error: invalid arguments for tool \"fetch_logs\" at \"level\": unknown variant `loud`"
        ),
        "{}",
        invalid.content
    );
    assert_escapes_refused(&fixture, "fetch_logs", |path| json!({"path": path})).await;
    assert_eq!(
        fixture
            .call_without_workspace("fetch_logs", json!({"path": "logs/app.log"}))
            .await
            .error(),
        "Error: no workspace folder is configured for this run."
    );
}

#[tokio::test]
async fn current_time_shows_an_instant_in_a_zone() {
    let fixture = Fixture::new();
    let call = |arguments| fixture.call("current_time", arguments);
    assert_eq!(
        call(json!({"zone": "Europe/Paris", "at": "2024-03-10T11:00:00Z"}))
            .await
            .text(),
        "2024-03-10T12:00:00+01:00[Europe/Paris] (Sunday, UTC+01, CET, Unix time 1710068400)"
    );
    assert_eq!(
        call(json!({"zone": "America/New_York", "at": "1720612800"}))
            .await
            .text(),
        "2024-07-10T08:00:00-04:00[America/New_York] (Wednesday, UTC-04, EDT, Unix time 1720612800)"
    );
    let now = call(json!({})).await;
    assert!(now.text().contains("+00:00[UTC] ("), "{}", now.content);
    assert_eq!(
        call(json!({"zone": "Mars/Olympus"})).await.error(),
        "Error: unknown time zone \"Mars/Olympus\"; use an IANA name such as \"Europe/Paris\" or \"UTC\"."
    );
    assert_eq!(
        call(json!({"at": "yesterday"})).await.error(),
        "Error: cannot read \"yesterday\" as an instant; give RFC 3339 such as \"2024-03-10T11:00:00Z\" or Unix seconds."
    );
}

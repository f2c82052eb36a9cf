//! The seam's checks, in order, with their exact strings; and that nothing runs that should not.

use std::borrow::Cow;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolkit::bound::TRUNCATION_MARKER;
use toolkit::limits::CONTENT_LIMIT;
use toolkit::{
    ChatMessage, RunScope, Table, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry,
    ToolResult, tool, wire::MessageError,
};

static ECHO_RUNS: AtomicUsize = AtomicUsize::new(0);
/// The keys `remote_lookup` ran for: tests running at once use distinct keys, so each counts
/// its own runs.
static LOOKED_UP: Mutex<Vec<String>> = Mutex::new(Vec::new());
static HIDDEN_RUNS: AtomicUsize = AtomicUsize::new(0);
static TYPED_RUNS: AtomicUsize = AtomicUsize::new(0);
static COUNTED_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Counts its runs (one test calls it, so the count is that test's).
#[tool(inline)]
fn counted() -> String {
    COUNTED_RUNS.fetch_add(1, Ordering::SeqCst);
    "counted".to_owned()
}

/// Repeats a text.
#[tool]
fn echo(
    /// What to repeat.
    text: String,
) -> String {
    ECHO_RUNS.fetch_add(1, Ordering::SeqCst);
    text
}

/// Reaches outside (pretends to).
#[tool(remote)]
fn remote_lookup(
    /// What to look up.
    key: String,
) -> String {
    LOOKED_UP
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(key.clone());
    format!("looked up {key}")
}

/// Not offered unless asked for.
#[tool(enabled_by_default = false)]
fn hidden() -> String {
    HIDDEN_RUNS.fetch_add(1, Ordering::SeqCst);
    "ran".to_owned()
}

/// Only for admins.
#[tool(requires_admin)]
fn admin_only() -> String {
    "admin".to_owned()
}

/// Takes typed, nested arguments.
#[tool]
fn typed(
    /// A count.
    count: u32,
    /// Some filters.
    filters: Vec<Filter>,
) -> String {
    TYPED_RUNS.fetch_add(1, Ordering::SeqCst);
    let pairs: Vec<String> = filters
        .iter()
        .map(|filter| format!("{}={}", filter.field, filter.value))
        .collect();
    format!("{count} {}{}", filters.len(), pairs.join(","))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Filter {
    field: String,
    value: String,
}

/// Always panics.
#[tool]
fn panics() -> String {
    panic!("secret panic detail");
}

/// Panics after waiting.
#[tool]
async fn panics_later() -> String {
    tokio::task::yield_now().await;
    panic!("secret async panic detail");
}

/// Waits an hour.
#[tool]
async fn sleeps() -> String {
    tokio::time::sleep(Duration::from_hours(1)).await;
    "woke".to_owned()
}

/// Returns content of a given size in bytes, made of a repeated character.
#[tool]
fn sized(
    /// Bytes of content.
    bytes: usize,
    /// The character to repeat (its UTF-8 length must divide `bytes`).
    character: char,
) -> String {
    character.to_string().repeat(bytes / character.len_utf8())
}

/// Returns bytes that are not UTF-8.
#[tool]
fn not_utf8() -> ToolResult {
    ToolResult::text_lossy(b"ok \xff\xfe end")
}

/// Returns a table of that many rows.
#[tool]
fn rows(
    /// How many rows.
    count: usize,
) -> ToolResult {
    let table = Table::from_rows(
        ["id", "name"],
        (0..count).map(|id| [id.to_string(), format!("name-{id:05}")]),
    )
    .expect("two cells per row");
    ToolResult::text_with(
        format!("{count} rows"),
        [ToolArtifact::table("Rows", table)],
    )
}

/// Fails the Rust way.
#[tool]
fn fails() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("disk on fire"))
}

/// Reads the context.
#[tool]
fn whoami(context: &ToolContext) -> String {
    format!("admin={}", context.is_admin())
}

/// Works until its caller stops waiting, then says so on `STOPPED`.
#[tool]
fn works_until_cancelled(context: &ToolContext) -> String {
    let mut rounds = 0_u64;
    while !context.is_cancelled() {
        rounds += 1;
        std::thread::sleep(Duration::from_millis(1));
    }
    *STOPPED.lock().unwrap() = Some(rounds);
    "stopped".to_owned()
}

/// How many rounds `works_until_cancelled` worked, once it stopped.
static STOPPED: Mutex<Option<u64>> = Mutex::new(None);

/// Gives the part of a text from a character on, as the run's filter passes the whole text.
#[tool]
fn slice_of(text: String, from: usize, context: &ToolContext) -> String {
    context.filter_content(&text).chars().skip(from).collect()
}

fn service() -> ToolLoopService {
    ToolLoopService::new(ToolRegistry::linked().expect("no duplicate names"))
}

async fn call(
    service: &ToolLoopService,
    scope: &RunScope,
    name: &str,
    args: &str,
) -> (String, bool) {
    let result = service.invoke(scope, name, args).await;
    (result.content().to_owned(), result.is_error())
}

#[tokio::test]
async fn unknown_tool_is_named_and_nothing_runs() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    let (content, is_error) = call(&service, &scope, "ech0", r#"{"text":"x"}"#).await;
    assert_eq!(content, "Error: unknown tool \"ech0\"");
    assert!(is_error);
}

#[test]
fn the_seam_runs_nothing_until_polled_and_gives_its_result_once() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    // A future made and dropped unpolled runs nothing, checks included.
    drop(service.invoke(&scope, "counted", "{}"));
    assert_eq!(COUNTED_RUNS.load(Ordering::SeqCst), 0);

    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let mut future = std::pin::pin!(service.invoke(&scope, "counted", "{}"));
    let std::task::Poll::Ready(result) = future.as_mut().poll(&mut cx) else {
        panic!("an inline tool's call is ready at its first poll");
    };
    assert_eq!(result.content(), "counted");
    assert_eq!(COUNTED_RUNS.load(Ordering::SeqCst), 1);
    // Polled again, it does not run the tool a second time: it panics, as futures may.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = future.as_mut().poll(&mut cx);
    }))
    .expect_err("a finished call is not polled twice");
    assert_eq!(COUNTED_RUNS.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn unknown_names_are_cut_and_escaped_when_echoed() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    let name = format!("bad\nname\u{1b}{}", "x".repeat(100));
    let (content, _) = call(&service, &scope, &name, "{}").await;
    let echoed = format!("bad\\nname\\u{{1b}}{}", "x".repeat(64 - 9));
    assert_eq!(content, format!("Error: unknown tool \"{echoed}\""));
}

#[tokio::test]
async fn registered_but_not_offered_is_not_permitted_and_does_not_run() {
    let service = service();
    let before = HIDDEN_RUNS.load(Ordering::SeqCst);
    let scope = service.scope(ToolContext::new()).unwrap();
    let (content, is_error) = call(&service, &scope, "hidden", "{}").await;
    assert_eq!(content, "Error: tool \"hidden\" not permitted");
    assert!(is_error);
    assert_eq!(HIDDEN_RUNS.load(Ordering::SeqCst), before);

    let scope = service
        .scope_offering(ToolContext::new(), ["hidden"])
        .unwrap();
    assert_eq!(
        call(&service, &scope, "hidden", "{}").await,
        ("ran".to_owned(), false)
    );
    assert_eq!(
        call(&service, &scope, "echo", r#"{"text":"x"}"#).await.0,
        "Error: tool \"echo\" not permitted"
    );
}

#[tokio::test]
async fn admin_tools_are_offered_by_default_only_to_admins() {
    let service = service();
    let user = service.scope(ToolContext::new()).unwrap();
    assert_eq!(
        call(&service, &user, "admin_only", "{}").await.0,
        "Error: tool \"admin_only\" not permitted"
    );
    let admin = service.scope(ToolContext::new().with_admin(true)).unwrap();
    assert_eq!(
        call(&service, &admin, "admin_only", "{}").await,
        ("admin".to_owned(), false)
    );
    assert_eq!(call(&service, &admin, "whoami", "{}").await.0, "admin=true");
}

#[tokio::test]
async fn offering_an_unregistered_name_is_an_error() {
    let service = service();
    let error = service
        .scope_offering(ToolContext::new(), ["echo", "nope"])
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot offer tool \"nope\": no tool of that name is registered"
    );
}

#[tokio::test]
async fn remote_budget_is_charged_after_the_name_checks_and_stops_at_its_limit() {
    let service = service();
    let scope = service
        .scope(ToolContext::new())
        .unwrap()
        .with_remote_budget(2);
    let runs_of = |key: &str| {
        LOOKED_UP
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|looked| *looked == key)
            .count()
    };

    // Unknown and not-offered calls are not charged.
    call(&service, &scope, "remote_lookupp", "{}").await;
    assert_eq!(scope.remote_calls_used(), 0);
    // A bad-argument call is charged: the checks before the budget passed.
    let (content, _) = call(&service, &scope, "remote_lookup", r#"{"key": 1}"#).await;
    assert!(
        content.starts_with("Error: invalid arguments for tool \"remote_lookup\""),
        "{content}"
    );
    assert_eq!(scope.remote_calls_used(), 1);
    assert_eq!(
        call(&service, &scope, "remote_lookup", r#"{"key":"budget-a"}"#)
            .await
            .0,
        "looked up budget-a"
    );
    assert_eq!(scope.remote_calls_used(), 2);

    let (content, is_error) =
        call(&service, &scope, "remote_lookup", r#"{"key":"budget-b"}"#).await;
    assert_eq!(
        content,
        "Error: this run has used its budget of 2 calls to external tools; \"remote_lookup\" was not called."
    );
    assert!(is_error);
    assert_eq!((runs_of("budget-a"), runs_of("budget-b")), (1, 0));
    // Local tools are not limited by it.
    assert_eq!(
        call(&service, &scope, "echo", r#"{"text":"local"}"#)
            .await
            .0,
        "local"
    );
}

#[tokio::test]
async fn default_remote_budget_is_twenty_calls() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    for index in 0..20 {
        let (content, is_error) = call(
            &service,
            &scope,
            "remote_lookup",
            &format!(r#"{{"key":"{index}"}}"#),
        )
        .await;
        assert!(!is_error, "call {index}: {content}");
    }
    assert_eq!(
        call(&service, &scope, "remote_lookup", r#"{"key":"x"}"#)
            .await
            .0,
        "Error: this run has used its budget of 20 calls to external tools; \"remote_lookup\" was not called."
    );
}

#[tokio::test]
async fn bad_arguments_name_the_tool_the_path_and_the_expectation_and_the_body_does_not_run() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    let before = TYPED_RUNS.load(Ordering::SeqCst);
    // Arrays 100 000 deep: cut short (not valid JSON), and closed (an array, not an object).
    let deep = "[".repeat(100_000);
    let closed = format!("{deep}{}", "]".repeat(100_000));
    let cases = [
        (
            r#"{"count": "3", "filters": []}"#,
            "Error: invalid arguments for tool \"typed\" at \"count\": invalid type: string \"3\", expected u32.",
        ),
        (
            r#"{"count": 3, "filters": [{"field": "a", "value": 1}]}"#,
            "Error: invalid arguments for tool \"typed\" at \"filters[0].value\": invalid type: integer `1`, expected a string.",
        ),
        (
            r#"{"count": 3}"#,
            "Error: invalid arguments for tool \"typed\": missing field `filters`.",
        ),
        (
            r#"{"count": 3, "filters": [], "extra": true}"#,
            "Error: invalid arguments for tool \"typed\" at \"extra\": unknown field `extra`, expected `count` or `filters`.",
        ),
        (
            "[3, []]",
            "Error: invalid arguments for tool \"typed\": invalid type: array, expected an object of named arguments.",
        ),
        (
            " \t\r\n[3, []]",
            "Error: invalid arguments for tool \"typed\": invalid type: array, expected an object of named arguments.",
        ),
        (
            "\n-1",
            "Error: invalid arguments for tool \"typed\": invalid type: number, expected an object of named arguments.",
        ),
        (
            r#"{"count": 3, "filters": [] "#,
            "Error: invalid arguments for tool \"typed\": the arguments are not valid JSON: EOF while parsing an object at line 1 column 27.",
        ),
        (
            r#""text""#,
            "Error: invalid arguments for tool \"typed\": invalid type: string, expected an object of named arguments.",
        ),
        (
            "null",
            "Error: invalid arguments for tool \"typed\": invalid type: null, expected an object of named arguments.",
        ),
        // Text that only starts like a value is not valid JSON, not a value of the wrong type.
        (
            "not json",
            "Error: invalid arguments for tool \"typed\": the arguments are not valid JSON: expected ident at line 1 column 2.",
        ),
        (
            "[3, []",
            "Error: invalid arguments for tool \"typed\": the arguments are not valid JSON: EOF while parsing a list at line 1 column 6.",
        ),
        (
            "\"open",
            "Error: invalid arguments for tool \"typed\": the arguments are not valid JSON: EOF while parsing a string at line 1 column 5.",
        ),
        (
            "-x",
            "Error: invalid arguments for tool \"typed\": the arguments are not valid JSON: invalid number at line 1 column 2.",
        ),
        (
            deep.as_str(),
            "Error: invalid arguments for tool \"typed\": the arguments are not valid JSON: EOF while parsing a list at line 1 column 100000.",
        ),
        (
            closed.as_str(),
            "Error: invalid arguments for tool \"typed\": invalid type: array, expected an object of named arguments.",
        ),
        (
            "true false",
            "Error: invalid arguments for tool \"typed\": the arguments are not valid JSON: trailing characters at line 1 column 6.",
        ),
        (
            r#"{"count": 3, "filters": []} x"#,
            "Error: invalid arguments for tool \"typed\": the arguments are not valid JSON: trailing characters at line 1 column 29.",
        ),
        (
            r#"{"count": -1, "filters": []}"#,
            "Error: invalid arguments for tool \"typed\" at \"count\": invalid value: integer `-1`, expected u32.",
        ),
    ];
    for (arguments, expected) in cases {
        let (content, is_error) = call(&service, &scope, "typed", arguments).await;
        assert_eq!(content, expected, "arguments {arguments}");
        assert!(is_error);
    }
    assert_eq!(TYPED_RUNS.load(Ordering::SeqCst), before);
    assert_eq!(
        call(&service, &scope, "typed", r#"{"count": 3, "filters": []}"#)
            .await
            .0,
        "3 0"
    );
}

#[tokio::test]
async fn empty_arguments_count_as_an_empty_object() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    assert_eq!(
        call(&service, &scope, "whoami", "").await,
        ("admin=false".to_owned(), false)
    );
    for blank in ["  ", " \t\r\n"] {
        assert_eq!(
            call(&service, &scope, "whoami", blank).await,
            ("admin=false".to_owned(), false)
        );
    }
    // Only JSON's whitespace is blank: anything else is text the decoder reads (and refuses).
    let (content, is_error) = call(&service, &scope, "whoami", "\u{a0}").await;
    assert!(is_error);
    assert_eq!(
        content,
        "Error: invalid arguments for tool \"whoami\": the arguments are not valid JSON: expected value at line 1 column 1."
    );
}

#[tokio::test]
async fn a_panicking_tool_fails_without_its_message_on_the_wire() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    for name in ["panics", "panics_later"] {
        let (content, is_error) = call(&service, &scope, name, "{}").await;
        assert_eq!(content, format!("Error: tool \"{name}\" failed."));
        assert!(is_error);
        assert!(!content.contains("secret"));
    }
}

#[tokio::test(start_paused = true)]
async fn a_tool_past_its_timeout_fails() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    let started = tokio::time::Instant::now();
    let result = service.invoke(&scope, "sleeps", "{}").await;
    assert_eq!(result.content(), "Error: tool \"sleeps\" failed.");
    assert!(result.is_error());
    assert_eq!(started.elapsed(), Duration::from_secs(30));

    let scope = service
        .scope(ToolContext::new())
        .unwrap()
        .with_timeout(Duration::from_millis(250));
    let started = tokio::time::Instant::now();
    assert_eq!(
        call(&service, &scope, "sleeps", "{}").await.0,
        "Error: tool \"sleeps\" failed."
    );
    assert_eq!(started.elapsed(), Duration::from_millis(250));
}

#[tokio::test]
async fn a_blocking_tool_is_told_to_stop_when_its_timeout_passes() {
    let service = service();
    let scope = service
        .scope(ToolContext::new())
        .unwrap()
        .with_timeout(Duration::from_millis(200));
    assert_eq!(
        call(&service, &scope, "works_until_cancelled", "{}").await,
        (
            "Error: tool \"works_until_cancelled\" failed.".to_owned(),
            true
        )
    );
    // The worker saw the flag and stopped: no work goes on after the answer.
    let mut rounds = None;
    for _ in 0..1_000 {
        rounds = *STOPPED.lock().unwrap();
        if rounds.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(rounds.expect("the tool stopped") > 0);
    // A context outside a call is never cancelled.
    assert!(!ToolContext::new().is_cancelled());
    assert!(!ToolContext::new().cancel_flag().load(Ordering::Relaxed));
}

/// Masks every digit.
struct NoDigits;

impl toolkit::seam::ContentFilter for NoDigits {
    fn filter<'a>(&self, content: &'a str) -> Cow<'a, str> {
        if content.contains(|c: char| c.is_ascii_digit()) {
            Cow::Owned(content.replace(|c: char| c.is_ascii_digit(), "#"))
        } else {
            Cow::Borrowed(content)
        }
    }
}

#[tokio::test]
async fn a_tool_filters_a_whole_text_as_the_run_does_before_it_cuts_it() {
    let service = service();
    let arguments = r#"{"text": "pin 1234 ok", "from": 4}"#;
    let unfiltered = service.scope(ToolContext::new()).unwrap();
    assert_eq!(
        call(&service, &unfiltered, "slice_of", arguments).await.0,
        "1234 ok"
    );
    let filtered = service
        .scope(ToolContext::new())
        .unwrap()
        .with_content_filter(Arc::new(NoDigits));
    assert_eq!(
        call(&service, &filtered, "slice_of", arguments).await.0,
        "#### ok"
    );
    assert_eq!(
        filtered.context().filter_content("a1").as_ref(),
        "a#",
        "the scope's context carries its filter"
    );
    let unset = filtered.without_content_filter();
    assert_eq!(unset.context().filter_content("a1").as_ref(), "a1");
}

#[tokio::test]
async fn display_errors_become_error_results() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    assert_eq!(
        call(&service, &scope, "fails", "{}").await,
        ("disk on fire".to_owned(), true)
    );
}

#[tokio::test]
async fn content_of_exactly_the_limit_passes_unchanged() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    let (content, _) = call(
        &service,
        &scope,
        "sized",
        r#"{"bytes": 50000, "character": "a"}"#,
    )
    .await;
    assert_eq!(content, "a".repeat(CONTENT_LIMIT));
}

#[tokio::test]
async fn one_byte_over_gives_exactly_the_limit_ending_in_the_marker() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    let (content, is_error) = call(
        &service,
        &scope,
        "sized",
        r#"{"bytes": 50001, "character": "a"}"#,
    )
    .await;
    assert!(!is_error);
    assert_eq!(content.len(), 50_000);
    assert_eq!(TRUNCATION_MARKER.len(), 42);
    assert_eq!(
        content,
        format!(
            "{}\n…[tool result truncated at 50000 bytes]",
            "a".repeat(49_958)
        )
    );
}

#[tokio::test]
async fn a_cut_inside_a_multibyte_character_never_splits_it() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    // 49 958 is not a multiple of 4: the cut falls inside a 4-byte character.
    let (content, _) = call(
        &service,
        &scope,
        "sized",
        r#"{"bytes": 60000, "character": "🦀"}"#,
    )
    .await;
    let head = content
        .strip_suffix(TRUNCATION_MARKER)
        .expect("marker at the end");
    assert_eq!(head, "🦀".repeat(49_958 / 4));
    assert_eq!(content.len(), 49_956 + 42);
    // 3-byte characters: 49 958 = 3 * 16 652 + 2.
    let (content, _) = call(
        &service,
        &scope,
        "sized",
        r#"{"bytes": 60000, "character": "€"}"#,
    )
    .await;
    assert_eq!(
        content.strip_suffix(TRUNCATION_MARKER),
        Some("€".repeat(16_652).as_str())
    );
}

#[tokio::test]
async fn invalid_utf8_becomes_replacement_characters() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    assert_eq!(
        call(&service, &scope, "not_utf8", "{}").await.0,
        "ok \u{FFFD}\u{FFFD} end"
    );
}

#[tokio::test]
async fn a_table_of_ten_thousand_rows_is_cut_to_the_rows_that_fit() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    let result = service.invoke(&scope, "rows", r#"{"count": 10000}"#).await;
    assert_eq!(result.content(), "10000 rows");
    let artifacts = result.artifacts();
    assert_eq!(artifacts.len(), 2);
    let table = artifacts[0].as_table().expect("the table comes first");
    let kept = table.rows().len();
    assert!(kept > 100 && kept < 10_000, "kept {kept}");
    // Kept rows are the leading rows, unchanged.
    for (id, row) in table.rows().iter().enumerate() {
        assert_eq!(row, &[id.to_string(), format!("name-{id:05}")]);
    }
    assert_eq!(artifacts[1].label(), "Artifacts omitted");
    assert_eq!(
        artifacts[1].as_text().unwrap(),
        format!(
            "Artifact \"Rows\" (table) was cut to its first {kept} of 10000 rows ({} rows omitted). \
             Artifacts are limited to 50000 bytes of serialised JSON per tool result.",
            10_000 - kept
        )
    );
    let serialised = serde_json::to_vec(artifacts).unwrap();
    assert!(serialised.len() <= 50_000);
    // The next row would not have fitted beside the marker.
    assert!(serialised.len() + format!(",[\"{kept}\",\"name-{kept:05}\"]").len() > 50_000 - 1024);
}

#[tokio::test]
async fn wire_strings_from_the_seam_make_tool_result_messages() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    let result = service.invoke(&scope, "echo", r#"{"text":"hello"}"#).await;
    let message = ChatMessage::tool_result("call_1", result.wire().clone()).unwrap();
    assert_eq!(
        serde_json::to_string(&message).unwrap(),
        r#"{"role":"tool_result","call_id":"call_1","content":"hello"}"#
    );
    let (wire, _, _) = result.into_parts();
    assert_eq!(
        ChatMessage::tool_result("", wire),
        Err(MessageError::EmptyCallId)
    );
}

#[tokio::test]
async fn a_scope_of_another_service_offers_nothing() {
    let first = service();
    let second = service();
    let foreign = second.scope(ToolContext::new()).unwrap();
    assert_eq!(
        call(&first, &foreign, "echo", r#"{"text":"x"}"#).await.0,
        "Error: tool \"echo\" not permitted"
    );
}

#[test]
fn debug_of_a_result_shows_artifact_and_media_metadata_never_data() {
    let table = Table::from_rows(["secret column"], [["secret cell"]]).unwrap();
    let result = ToolResult::text_with(
        "visible",
        [
            ToolArtifact::table("Label", table),
            ToolArtifact::text("Notes", "secret text"),
        ],
    )
    .with_media(toolkit::result::Media::new("text/plain", "secret file"));
    let debug = format!("{result:?}");
    assert_eq!(
        debug,
        r#"ToolResult { content: "visible", is_error: false, media: [Media { mime_type: "text/plain", bytes: 11, name: None }], artifacts: [ToolArtifact { label: "Label", type: "table", bytes: 94, .. }, ToolArtifact { label: "Notes", type: "text", bytes: 61, .. }] }"#
    );
    assert!(!debug.contains("secret"));
}

struct Impostor(toolkit::ToolSpec);

impl toolkit::Tool for Impostor {
    fn spec(&self) -> &toolkit::ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        _context: &'a ToolContext,
        _permit: &toolkit::spec::ExecutePermit,
    ) -> toolkit::spec::ToolFuture<'a> {
        toolkit::spec::ToolFuture::Ready(Ok(ToolResult::text("impostor")))
    }
}

#[test]
fn a_duplicate_name_is_an_error_naming_both_places() {
    let mut registry = ToolRegistry::linked().unwrap();
    let line = line!() + 1;
    let spec = toolkit::ToolSpec::new("echo", "Another echo.", serde_json::json!({}));
    let error = registry.register(Impostor(spec)).unwrap_err();
    // `#[tool]` stands on the line above `fn echo(`: its 1-based number is that 0-based index.
    let echo_line = include_str!("seam.rs")
        .lines()
        .position(|line| line.starts_with("fn echo("))
        .unwrap();
    assert_eq!(
        error.to_string(),
        format!(
            "two tools are named \"echo\": one defined at seam (toolkit/tests/seam.rs:{echo_line}), the other at toolkit/tests/seam.rs:{line}"
        )
    );
    let fresh = toolkit::ToolSpec::new(
        "echo_two",
        "A new one.",
        serde_json::json!({"type": "object"}),
    );
    registry.register(Impostor(fresh)).unwrap();
    assert!(registry.get("echo_two").is_some());
}

#[test]
fn a_result_reads_back_what_it_was_made_of() {
    let shown = ToolResult::text_with("two", [ToolArtifact::text("A", "a")]);
    assert_eq!(
        (shown.content(), shown.is_error(), shown.artifacts().len()),
        ("two", false, 1)
    );
    let failed = ToolResult::error("Error: no");
    assert_eq!(
        (
            failed.content(),
            failed.is_error(),
            failed.artifacts().len()
        ),
        ("Error: no", true, 0)
    );
    assert_eq!(ToolResult::text_lossy(b"a\xffb").content(), "a\u{FFFD}b");
}

#[tokio::test]
async fn a_wire_string_reads_as_its_text_and_carries_the_error_flag() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    let said = service
        .invoke(&scope, "echo", r#"{"text":"hi \"you\""}"#)
        .await;
    let wire = said.wire();
    assert!(!wire.is_error());
    assert_eq!(&**wire, "hi \"you\"");
    assert_eq!(AsRef::<str>::as_ref(wire), "hi \"you\"");
    assert_eq!(format!("{wire:?}"), r#""hi \"you\"""#);
    let failed = service.invoke(&scope, "nope", "{}").await;
    assert!(failed.wire().is_error());
    assert_eq!(&**failed.wire(), "Error: unknown tool \"nope\"");
}

#[tokio::test]
async fn arguments_of_exactly_the_limit_are_decoded_and_one_byte_more_is_refused() {
    let service = service();
    let scope = service.scope(ToolContext::new()).unwrap();
    let frame = r#"{"text":""}"#.len();
    let exact = format!(
        r#"{{"text":"{}"}}"#,
        "a".repeat(toolkit::limits::ARGUMENT_LIMIT - frame)
    );
    assert_eq!(exact.len(), 1_048_576);
    let decoded = service.invoke(&scope, "echo", &exact).await;
    assert!(!decoded.is_error());
    assert_eq!(decoded.content().len(), CONTENT_LIMIT);
    let over = format!(
        r#"{{"text":"{}"}}"#,
        "a".repeat(toolkit::limits::ARGUMENT_LIMIT - frame + 1)
    );
    assert_eq!(
        call(&service, &scope, "echo", &over).await,
        (
            "Error: invalid arguments for tool \"echo\": 1048577 bytes of arguments; the limit is 1048576.".to_owned(),
            true
        )
    );
}

#[test]
fn debug_of_a_scope_and_a_service_names_what_they_hold() {
    let mut registry = ToolRegistry::new();
    registry
        .register(Impostor(toolkit::ToolSpec::new(
            "only",
            "The only tool.",
            serde_json::json!({"type": "object"}),
        )))
        .unwrap();
    let service = ToolLoopService::new(registry);
    let scope = service
        .scope(ToolContext::new().with_admin(true))
        .unwrap()
        .with_remote_budget(3)
        .with_timeout(Duration::from_secs(2));
    assert_eq!(
        format!("{scope:?}"),
        r#"RunScope { offered: ["only"], remote_budget: 3, remote_used: 0, timeout: 2s, cancelled: false, context: ToolContext { admin: true, artifacts_unseen: false, extensions: [], filtered: false, reported: false, .. }, .. }"#
    );
    assert!(scope.context().is_admin());
    assert_eq!(
        format!("{service:?}"),
        r#"ToolLoopService { seam: Seam { registry: ["only"], filtered: false }, recorder: Recorder { sinks: 0, subscribers: 0, .. }, policies: [], .. }"#
    );
}

//! Every tool runs under its limits: a plain `fn` tool runs on a worker thread, so the per-tool
//! timeout stops the wait however long it blocks; `#[tool(inline)]` runs on the caller's thread.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use toolkit::{ToolContext, ToolLoopService, ToolRegistry, spec::Execution, tool};

/// Opens when the test says so.
static GATE: (Mutex<bool>, Condvar) = (Mutex::new(false), Condvar::new());

/// Blocks until the gate opens.
#[tool]
fn blocks() -> String {
    let (open, opened) = &GATE;
    let mut open = open.lock().unwrap();
    while !*open {
        open = opened.wait(open).unwrap();
    }
    "let through".to_owned()
}

/// Says which thread it runs on.
#[tool]
fn where_blocking() -> String {
    std::thread::current()
        .name()
        .unwrap_or("unnamed")
        .to_owned()
}

/// Says which thread it runs on, inline.
#[tool(inline)]
fn where_inline() -> String {
    std::thread::current()
        .name()
        .unwrap_or("unnamed")
        .to_owned()
}

/// Says which thread it runs on, async.
#[tool]
async fn where_async() -> String {
    tokio::task::yield_now().await;
    std::thread::current()
        .name()
        .unwrap_or("unnamed")
        .to_owned()
}

fn service() -> ToolLoopService {
    ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"))
}

#[tokio::test]
async fn a_blocking_tool_past_its_timeout_fails_while_it_still_blocks() {
    let service = service();
    let scope = service
        .scope(ToolContext::new())
        .unwrap()
        .with_timeout(Duration::from_millis(100));
    let result = service.invoke(&scope, "blocks", "{}").await;
    assert_eq!(result.content(), "Error: tool \"blocks\" failed.");
    assert!(result.is_error());
    // The tool is still blocked on its worker; let it end.
    *GATE.0.lock().unwrap() = true;
    GATE.1.notify_all();
}

#[tokio::test]
async fn each_tool_runs_where_its_execution_says() {
    let service = service();
    let registry = service.registry();
    let execution = |name: &str| registry.get(name).unwrap().spec().execution();
    assert_eq!(execution("where_blocking"), Execution::Blocking);
    assert_eq!(execution("where_inline"), Execution::Inline);
    assert_eq!(execution("where_async"), Execution::Async);

    let scope = service.scope(ToolContext::new()).unwrap();
    let here = std::thread::current()
        .name()
        .unwrap_or("unnamed")
        .to_owned();
    for (name, thread) in [
        ("where_blocking", "toolkit-worker"),
        ("where_inline", here.as_str()),
        ("where_async", here.as_str()),
    ] {
        let result = service.invoke(&scope, name, "{}").await;
        assert_eq!(result.content(), thread, "{name}");
    }
}

/// Returns words, a key, and more words; shows the same key to people.
#[tool]
fn leaks(
    /// Bytes of words before the key (even).
    before: usize,
    /// Bytes of words after the key (even).
    after: usize,
) -> toolkit::ToolResult {
    let key = "sk-proj-Abcdefghijklmnopqrstuvwx0123456789";
    toolkit::ToolResult::text_with(
        format!("{}{key}{}", "w ".repeat(before / 2), " x".repeat(after / 2)),
        [toolkit::ToolArtifact::text("Key", key)],
    )
}

#[tokio::test]
async fn a_content_filter_masks_the_wire_string_and_leaves_artifacts_alone() {
    let service = service();
    let plain = service.scope(ToolContext::new()).unwrap();
    let filtered = service
        .scope(ToolContext::new())
        .unwrap()
        .with_content_filter(std::sync::Arc::new(toolkit::seam::SecretFilter));
    let short = r#"{"before": 0, "after": 4}"#;
    let unfiltered = service.invoke(&plain, "leaks", short).await;
    assert_eq!(
        unfiltered.content(),
        "sk-proj-Abcdefghijklmnopqrstuvwx0123456789 x x"
    );
    let masked = service.invoke(&filtered, "leaks", short).await;
    assert_eq!(masked.content(), "[REDACTED] x x");
    assert_eq!(
        masked.artifacts()[0].as_text(),
        Some("sk-proj-Abcdefghijklmnopqrstuvwx0123456789")
    );
    // A key across the cut: unfiltered, its head (too short to look like a key) would reach the
    // wire; filtered, it is masked whole before the cut.
    let across = r#"{"before": 49940, "after": 1000}"#;
    let unfiltered = service.invoke(&plain, "leaks", across).await;
    assert!(
        unfiltered
            .content()
            .contains("w sk-proj-Abcdefghij\n…[tool result")
    );
    let masked = service.invoke(&filtered, "leaks", across).await;
    let content = masked.content();
    assert_eq!(content.len(), 50_000);
    assert!(content.contains("w [REDACTED] x x"));
    assert!(!content.contains("sk-"));
    // Far past the window the filter sees, the content is still cut and marked.
    let far = service
        .invoke(&filtered, "leaks", r#"{"before": 200000, "after": 0}"#)
        .await;
    assert_eq!(far.content().len(), 50_000);
    assert!(far.content().ends_with(toolkit::bound::TRUNCATION_MARKER));
}

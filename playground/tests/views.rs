//! The inspector's views in a real headless Chromium, as people use them: approvals given in the
//! page, forms filled without writing JSON, tables sorted, copied and exported, runs read with
//! their id, usage and timeline, the history searched and paged, dark mode, 600 px wide, and the
//! keyboard. Each view's screenshot goes to target/playground-screenshots/.

mod common;

use common::{
    Browser, Playground, browser, start_playground, start_playground_with,
    start_playground_with_policy,
};
use serde_json::{Value, json};
use toolkit::{Table, ToolArtifact, ToolResult, result::Cell, tool};
use toolkit_audit::Privacy;
use toolkit_builtins::policies::WritesUnder; // and links the builtin tools

/// A table whose values and title would reorder the page if they were not isolated.
#[tool(group = "test")]
fn bidi_table() -> ToolResult {
    let table = Table::from_rows(
        ["\u{202e}name", "n"],
        [["\u{202e}abc", "10"], ["b\u{2067}", "9"], ["c", "100"]],
    )
    .expect("two columns");
    ToolResult::text_with(
        "three rows",
        [
            ToolArtifact::table("\u{202e}reversed label", table),
            ToolArtifact::text("lines", "first\nsecond\n\u{202e}third\n"),
        ],
    )
}

/// A table with no value in one cell, the text "null" in another and an empty text in a third.
#[tool(group = "test")]
fn null_table() -> ToolResult {
    let table = Table::from_rows(
        ["name", "note"],
        [
            [Cell::from("a"), Cell::Null],
            [Cell::from("b"), Cell::from("null")],
            [Cell::from("c"), Cell::from("")],
        ],
    )
    .expect("two columns");
    ToolResult::text_with("three rows", [ToolArtifact::table("notes", table)])
}

async fn wait_done(browser: &Browser) -> Value {
    browser
        .wait_for(
            "the run to end",
            "const s = document.getElementById('status'); return s.dataset.done === 'true' && s.textContent;",
            json!([]),
        )
        .await
}

/// The preview in the second approval panel, once the run waits again.
async fn second_preview(browser: &Browser) -> Value {
    browser
        .wait_for(
            "the second approval box",
            "const boxes = document.querySelectorAll('[data-testid=approval]'); return boxes.length === 2 && boxes[1].querySelector('[data-testid=pending-preview]').textContent;",
            json!([]),
        )
        .await
}

/// Aborts the run from its second approval panel.
async fn abort_second(browser: &Browser) {
    browser
        .execute(
            "document.querySelectorAll('[data-testid=approval]')[1].querySelector('[data-testid=abort]').click(); return true;",
            json!([]),
        )
        .await;
}

/// Waits until the page shows a suspended run's approval panel.
async fn wait_for_approval(browser: &Browser) {
    browser
        .wait_for(
            "the approval box",
            "return document.querySelector('[data-testid=approval]') !== null;",
            json!([]),
        )
        .await;
}

async fn run_tool(browser: &Browser) {
    browser.click("[data-testid=run-tool]").await;
    browser
        .wait_for(
            "the call",
            "const t = document.getElementById('status').textContent; return (t === 'done' || t.startsWith('failed')) && t;",
            json!([]),
        )
        .await;
}

const WRITER_SCRIPT: &str = r#"{"turns": [
  {"content": "I write two notes.", "tool_calls": [
    {"id": "w1", "name": "write_file", "arguments": {"path": "notes/approved.txt", "content": "yes"}},
    {"id": "w2", "name": "write_file", "arguments": {"path": "notes/denied.txt", "content": "no"}}
  ]},
  {"content": "One note written, one refused."}
]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approvals_are_given_in_the_page_and_the_run_resumes_live() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground_with(true, Privacy::Full).await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    // One call of a writer is not possible: the page says why and how.
    browser.click("[data-testid='tool-write_file']").await;
    let blocked = browser
        .execute(
            "const b = document.getElementById('tool-blocked'); return [b.hidden, b.textContent, document.getElementById('run-tool').disabled];",
            json!([]),
        )
        .await;
    assert_eq!(
        blocked,
        json!([
            false,
            "write_file changes files or records, so each call waits for your approval: ask for it in a loop (below); the loop stops and shows the call for you to approve or deny.",
            true
        ])
    );

    browser.fill("#script", WRITER_SCRIPT).await;
    browser.click("[data-testid=run-loop]").await;
    wait_for_approval(&browser).await;
    let pending = browser
        .execute(
            "return Array.from(document.querySelectorAll('[data-testid=approval] .pending-call')).map((row) => [row.dataset.testid, row.querySelector('[data-testid=pending-arguments]').textContent]);",
            json!([]),
        )
        .await;
    assert_eq!(
        pending,
        json!([
            [
                "pending-w1",
                r#"{"content":"yes","path":"notes/approved.txt"}"#
            ],
            [
                "pending-w2",
                r#"{"content":"no","path":"notes/denied.txt"}"#
            ],
        ])
    );
    let workspace = playground.folder.path().join("workspace/notes");
    assert!(!workspace.join("approved.txt").exists());
    browser.click("[data-testid=approve-w1]").await;
    browser.click("[data-testid=deny-w2]").await;
    browser.screenshot("approval.png").await;
    browser.click("[data-testid=resume]").await;
    let status = wait_done(&browser).await;
    assert_eq!(status, json!("done: answered"));
    let steps = browser
        .execute(
            // The two calls run at once: sorted, as either may finish first.
            "const steps = Array.from(document.querySelectorAll('#steps > li[data-testid=step]')).map((s) => [s.dataset.kind, (s.querySelector('[data-testid=wire]') || {}).textContent || null]); \
             return steps.slice(0, 4).concat(steps.slice(4, 6).sort(), steps.slice(6));",
            json!([]),
        )
        .await;
    assert_eq!(
        steps,
        json!([
            ["request", null],
            ["llm", null],
            ["suspended", null],
            ["resumed", null],
            [
                "tool",
                "Error: tool \"write_file\" was denied by the operator."
            ],
            ["tool", "Wrote 3 bytes to \"notes/approved.txt\"."],
            ["llm", null],
        ])
    );
    assert_eq!(
        std::fs::read_to_string(workspace.join("approved.txt")).expect("written"),
        "yes"
    );
    assert!(!workspace.join("denied.txt").exists());
    // The decided box cannot be sent twice.
    let sent = browser
        .execute(
            "const box = document.querySelector('[data-testid=approval]'); return [box.dataset.sent, document.querySelector('[data-testid=resume]').disabled];",
            json!([]),
        )
        .await;
    assert_eq!(sent, json!(["true", true]));
    let runs = playground.audit.runs(5).expect("runs");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].termination.as_deref(), Some("answered"));
    browser.screenshot("approval-resumed.png").await;
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

/// The adversary's turn: an append and a delete of the README that share one id.
const SHARED_ID_SCRIPT: &str = r#"{"turns": [
  {"tool_calls": [
    {"id": "w1", "name": "append_file", "arguments": {"path": "notes/log.txt", "content": "kept\n"}},
    {"id": "w1", "name": "delete_path", "arguments": {"path": "README.md"}}
  ]},
  {"content": "Done."}
]}"#;

/// Two writer calls that share the model's id are two rows in the page (`w1` and the run's own
/// `toolkit_1_1`): approving the first and denying the second runs the append only (before, the
/// page keyed both by `w1`, and the denied delete ran).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approving_one_of_two_calls_that_share_an_id_in_the_page_runs_that_one_only() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground_with(true, Privacy::Full).await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    browser.fill("#script", SHARED_ID_SCRIPT).await;
    browser.click("[data-testid=run-loop]").await;
    wait_for_approval(&browser).await;
    let pending = browser
        .execute(
            "return Array.from(document.querySelectorAll('[data-testid=approval] .pending-call')).map((row) => row.dataset.testid);",
            json!([]),
        )
        .await;
    assert_eq!(pending, json!(["pending-w1", "pending-toolkit_1_1"]));
    browser.click("[data-testid=approve-w1]").await;
    browser.click("[data-testid=deny-toolkit_1_1]").await;
    browser.click("[data-testid=resume]").await;
    assert_eq!(wait_done(&browser).await, json!("done: answered"));
    let workspace = playground.folder.path().join("workspace");
    assert!(
        workspace.join("README.md").exists(),
        "the README was deleted"
    );
    assert!(
        std::fs::read_to_string(workspace.join("notes/log.txt"))
            .expect("the appended file")
            .ends_with("kept\n")
    );
    let wires = browser
        .execute(
            "return Array.from(document.querySelectorAll('#steps > li[data-kind=tool] [data-testid=wire]')).map((w) => w.textContent).sort();",
            json!([]),
        )
        .await;
    assert_eq!(
        wires,
        json!([
            "Appended 5 bytes to \"notes/log.txt\" (now 5 bytes).",
            "Error: tool \"delete_path\" was denied by the operator."
        ])
    );
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

const EDIT_SCRIPT: &str = r#"{"turns": [
  {"content": "I tick one item off.", "tool_calls": [
    {"id": "e1", "name": "edit_file", "arguments": {"path": "notes/todo.txt", "edits": [
      {"old_text": "- restock standing mats at the north site\n", "new_text": "- [x] restock standing mats at the north site\n"}
    ]}}
  ]},
  {"content": "Ticked off."}
]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_waiting_for_approval_shows_its_diff_and_is_written_only_once_approved() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground_with(true, Privacy::Full).await;
    let todo = playground.folder.path().join("workspace/notes/todo.txt");
    let before = std::fs::read_to_string(&todo).expect("the sample todo list");
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    browser.fill("#script", EDIT_SCRIPT).await;
    browser.click("[data-testid=run-loop]").await;
    let preview = browser
        .wait_for(
            "the preview",
            "const p = document.querySelector('[data-testid=pending-e1] [data-testid=pending-preview]'); return p && p.textContent;",
            json!([]),
        )
        .await;
    assert_eq!(
        preview,
        json!(
            "\"notes/todo.txt\" would change (dry run, nothing written): 1 edit, 1 line removed, 1 added:\n\
             --- a/notes/todo.txt\n+++ b/notes/todo.txt\n@@ -1,3 +1,3 @@\n\
             -- restock standing mats at the north site\n\
             +- [x] restock standing mats at the north site\n \
             - ask Linus about the slow inventory query\n \
             - replace the default config password"
        )
    );
    assert_eq!(std::fs::read_to_string(&todo).expect("read"), before);
    browser.screenshot("approval-preview.png").await;
    browser.click("[data-testid=approve-e1]").await;
    browser.click("[data-testid=resume]").await;
    wait_done(&browser).await;
    assert!(
        std::fs::read_to_string(&todo)
            .expect("read")
            .starts_with("- [x] restock standing mats at the north site\n")
    );
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_writers_the_loop_does_not_offer_them_and_the_page_says_how() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    let info = browser.text("#writers-info").await;
    assert_eq!(
        info,
        json!(
            "Tools that change files or records are not offered (start with --writers to offer them; each call then waits for your approval)."
        )
    );
    browser.fill("#script", WRITER_SCRIPT).await;
    browser.click("[data-testid=run-loop]").await;
    assert_eq!(wait_done(&browser).await, json!("done: answered"));
    let wires = browser
        .execute(
            "return Array.from(document.querySelectorAll('[data-testid=wire]')).map((w) => w.textContent);",
            json!([]),
        )
        .await;
    assert_eq!(
        wires,
        json!([
            "Error: tool \"write_file\" not permitted",
            "Error: tool \"write_file\" not permitted"
        ])
    );
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forms_take_enums_as_selects_text_on_several_lines_and_required_fields_first() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    browser.click("[data-testid='tool-base64']").await;
    let form = browser
        .execute(
            r"return {
                order: Array.from(document.querySelectorAll('#arg-form > .field')).map((f) => f.dataset.path),
                kinds: Array.from(document.querySelectorAll('#arg-form > .field')).map((f) => f.querySelector('[data-testid^=field-]').tagName),
                modes: Array.from(document.querySelectorAll('[data-testid=field-mode] option')).map((o) => o.textContent),
                defaults: document.querySelector('[data-testid=default-mode]').textContent,
              };",
            json!([]),
        )
        .await;
    assert_eq!(
        form,
        json!({
            "order": ["text", "alphabet", "mode"],
            "kinds": ["TEXTAREA", "SELECT", "SELECT"],
            "modes": ["(not set)", "encode — Text to Base64.", "decode — Base64 to text."],
            "defaults": "default: \"encode\"",
        })
    );
    // An empty required field is not sent: the form says so and nothing runs.
    run_tool_expecting_error(&browser, "Arguments: text: required").await;
    assert_eq!(playground.audit.runs(5).expect("runs").len(), 0);

    browser
        .fill("[data-testid=field-text]", "aGkKdGhlcmU=")
        .await;
    browser.fill("[data-testid=field-mode]", "1").await;
    browser.screenshot("form.png").await;
    run_tool(&browser).await;
    let wire = browser.text("[data-testid=wire]").await;
    assert_eq!(wire, json!("hi\nthere"));

    // The raw JSON mode shows what the form holds, and the form takes back what it says.
    browser.click("#raw-mode").await;
    let raw = browser
        .execute(
            "return JSON.parse(document.getElementById('raw-args').value);",
            json!([]),
        )
        .await;
    assert_eq!(raw, json!({"text": "aGkKdGhlcmU=", "mode": "decode"}));
    browser
        .fill(
            "#raw-args",
            r#"{"text": "line one\nline two", "mode": "encode"}"#,
        )
        .await;
    browser.click("input[name=arg-mode][value=form]").await;
    let back = browser
        .execute(
            "return [document.querySelector('[data-testid=field-text]').value, document.querySelector('[data-testid=field-mode]').selectedOptions[0].textContent];",
            json!([]),
        )
        .await;
    assert_eq!(
        back,
        json!(["line one\nline two", "encode — Text to Base64."])
    );

    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forms_have_switches_and_sub_forms_for_arrays_of_objects() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    browser.click("[data-testid='tool-regex_test']").await;
    let switch = browser
        .execute(
            "const s = document.querySelector('[data-testid=field-case_insensitive]'); return [s.type, s.getAttribute('role'), s.checked];",
            json!([]),
        )
        .await;
    assert_eq!(switch, json!(["checkbox", "switch", false]));
    browser.click("[data-testid='tool-count_records']").await;
    browser.fill("[data-testid=field-table]", "customers").await;
    browser.click("[data-testid=add-where_equals]").await;
    browser.click("[data-testid=add-where_equals]").await;
    browser.click("[data-testid='remove-where_equals.1']").await;
    browser
        .fill("[data-testid='field-where_equals.0.column']", "country")
        .await;
    browser
        .fill("[data-testid='field-where_equals.0.value']", "\"Spain\"")
        .await;
    browser.screenshot("form-nested.png").await;
    run_tool(&browser).await;
    let arguments = browser
        .execute(
            "return JSON.parse(document.querySelector('[data-testid=arguments]').textContent);",
            json!([]),
        )
        .await;
    assert_eq!(
        arguments,
        json!({"table": "customers", "where_equals": [{"column": "country", "value": "Spain"}]})
    );
    let wire = browser.text("[data-testid=wire]").await;
    assert_eq!(
        wire,
        json!("\"customers\" has 1 row where country = \"Spain\".")
    );
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

async fn run_tool_expecting_error(browser: &Browser, expected: &str) {
    browser.click("[data-testid=run-tool]").await;
    let error = browser.text("#arg-error").await;
    assert_eq!(error, json!(expected));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_sort_copy_and_export_and_values_stay_isolated() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser
        .open(&format!(
            "{}/?tool=bidi_table&run=1&tab=artifacts",
            playground.url
        ))
        .await;
    browser
        .wait_for(
            "the table",
            "return document.querySelector('[data-testid=artifact] table') !== null;",
            json!([]),
        )
        .await;
    let rows = "return Array.from(document.querySelectorAll('[data-testid=artifact] tbody tr')).map((r) => Array.from(r.children).map((c) => c.textContent));";
    // Numbers sort as numbers.
    browser.click("[data-testid=sort-1]").await;
    assert_eq!(
        browser.execute(rows, json!([])).await,
        json!([["b\u{2067}", "9"], ["\u{202e}abc", "10"], ["c", "100"]])
    );
    browser.click("[data-testid=sort-1]").await;
    assert_eq!(
        browser.execute(rows, json!([])).await,
        json!([["c", "100"], ["\u{202e}abc", "10"], ["b\u{2067}", "9"]])
    );
    let sorted = browser
        .execute(
            "return document.querySelectorAll('th')[1].getAttribute('aria-sort');",
            json!([]),
        )
        .await;
    assert_eq!(sorted, json!("descending"));
    browser.click("[data-testid=copy-table]").await;
    let copied = browser.execute("return window.__copied;", json!([])).await;
    assert_eq!(
        copied,
        json!("\u{202e}name\tn\nc\t100\n\u{202e}abc\t10\nb\u{2067}\t9")
    );
    browser.click("[data-testid=artifact] tbody tr td").await;
    browser.click("[data-testid=copy-cell]").await;
    assert_eq!(
        browser.execute("return window.__copied;", json!([])).await,
        json!("c")
    );
    browser.click("[data-testid=copy-row]").await;
    assert_eq!(
        browser.execute("return window.__copied;", json!([])).await,
        json!("c\t100")
    );
    browser.click("[data-testid=download-csv]").await;
    assert_eq!(
        browser
            .execute("return window.__downloaded;", json!([]))
            .await,
        json!("\u{202e}name,n\r\nc,100\r\n\u{202e}abc,10\r\nb\u{2067},9\r\n")
    );
    // Every value is its own bidi-isolated element; the page's labels stay in order.
    let isolated = browser
        .execute(
            r"const values = Array.from(document.querySelectorAll('[data-testid=artifact-label], [data-testid=artifact] td, [data-testid=artifact] th .value, .text-lines .content'));
              return values.map((v) => [v.dir, getComputedStyle(v).unicodeBidi]);",
            json!([]),
        )
        .await;
    let isolated = isolated.as_array().expect("values");
    assert_eq!(isolated.len(), 2 + 6 + 2 + 3);
    for value in isolated {
        assert!(
            value == &json!(["auto", "isolate"]) || value == &json!(["auto", "plaintext"]),
            "{value}"
        );
    }
    // Text artifacts come with line numbers.
    let lines = browser
        .execute(
            "return Array.from(document.querySelectorAll('.text-lines .line')).map((l) => [l.querySelector('.number').textContent, l.querySelector('.content').textContent]);",
            json!([]),
        )
        .await;
    assert_eq!(
        lines,
        json!([["1", "first"], ["2", "second"], ["3", "\u{202e}third"]])
    );
    browser.screenshot("table.png").await;
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn null_cells_are_marked_sort_first_and_export_as_empty_fields_here_and_in_the_history() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser
        .open(&format!(
            "{}/?tool=null_table&run=1&tab=artifacts",
            playground.url
        ))
        .await;
    let cells = "const table = document.querySelector('[data-testid=artifact] table'); \
                 return table && Array.from(table.querySelectorAll('tbody tr')).map((r) => Array.from(r.children).map((c) => [c.textContent, c.classList.contains('null')]));";
    let shown = browser.wait_for("the table", cells, json!([])).await;
    assert_eq!(
        shown,
        json!([
            [["a", false], ["NULL", true]],
            [["b", false], ["null", false]],
            [["c", false], ["", false]]
        ])
    );
    browser.click("[data-testid=sort-1]").await;
    assert_eq!(
        browser.execute(cells, json!([])).await,
        json!([
            [["a", false], ["NULL", true]],
            [["c", false], ["", false]],
            [["b", false], ["null", false]]
        ])
    );
    browser.click("[data-testid=download-csv]").await;
    assert_eq!(
        browser
            .execute("return window.__downloaded;", json!([]))
            .await,
        json!("name,note\r\na,\r\nc,\"\"\r\nb,null\r\n")
    );
    browser.click("[data-testid=copy-table]").await;
    assert_eq!(
        browser.execute("return window.__copied;", json!([])).await,
        json!("name\tnote\na\t\nc\t\nb\tnull")
    );
    browser.screenshot("table-null.png").await;

    // The audit copy keeps no value as no value: the history shows the same marked cell.
    browser.open(&format!("{}/runs", playground.url)).await;
    browser.click("#run-list button").await;
    let shown = browser
        .wait_for("the table in the history", cells, json!([]))
        .await;
    assert_eq!(
        shown,
        json!([
            [["a", false], ["NULL", true]],
            [["b", false], ["null", false]],
            [["c", false], ["", false]]
        ])
    );
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_shows_its_id_usage_timeline_requested_calls_and_its_answer_once() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    browser.click("[data-testid=run-loop]").await;
    assert_eq!(wait_done(&browser).await, json!("done: answered"));
    let runs = playground.audit.runs(1).expect("runs");
    let view = browser
        .execute(
            r"return {
                run: document.getElementById('run-id').textContent,
                usage: document.getElementById('usage').textContent,
                bars: document.querySelectorAll('[data-testid=timeline-bar]').length,
                notes: Array.from(document.querySelectorAll('#steps > li[data-kind=llm] [data-testid=step-note]')).map((n) => n.textContent),
                stops: Array.from(document.querySelectorAll('#steps > li[data-kind=llm] [data-testid=step-stop-reason]')).map((n) => n.textContent),
                calls: Array.from(document.querySelectorAll('[data-testid=requested-calls] li code:first-of-type')).map((c) => c.textContent),
                answers: document.querySelectorAll('#steps > li.answer').length,
                repeated: document.querySelectorAll('[data-testid=answer]').length,
              };",
            json!([]),
        )
        .await;
    assert_eq!(
        view,
        json!({
            "run": format!("run {}", runs[0].run_id),
            "usage": "· 737 in / 83 out tokens",
            "bars": 8,
            "stops": ["tool_calls", "tool_calls", "tool_calls", "finished"],
            "notes": [
                "1 tool call · 13 in / 12 out tokens",
                "2 tool calls · 68 in / 15 out tokens",
                "1 tool call · 308 in / 11 out tokens",
                "0 tool calls · 348 in / 45 out tokens",
            ],
            "calls": ["list_tables", "read_records", "query_sql", "text_stats"],
            "answers": 1,
            "repeated": 0,
        })
    );
    // Arrow keys move across a step's tabs; Ctrl+Enter runs the selected tool.
    let moved = browser
        .execute(
            r"const tabs = document.querySelector('#steps > li[data-kind=tool] [data-testid=tabs]');
              const result = tabs.querySelector('[data-testid=tab-result]');
              result.focus();
              result.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
              return [document.activeElement.dataset.testid, tabs.querySelector('[aria-selected=true]').dataset.testid];",
            json!([]),
        )
        .await;
    assert_eq!(moved, json!(["tab-artifacts", "tab-artifacts"]));
    browser.screenshot("run.png").await;
    browser.click("[data-testid='tool-uuid']").await;
    browser
        .execute(
            "document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', ctrlKey: true, bubbles: true}));",
            json!([]),
        )
        .await;
    browser
        .wait_for(
            "the shortcut's call",
            "return document.getElementById('status').textContent === 'done';",
            json!([]),
        )
        .await;
    assert_eq!(playground.audit.runs(5).expect("runs").len(), 2);
    browser.quit().await;
}

/// A turn that thought (in markup, to stay inert), was billed cache and reasoning tokens, and was
/// cut by its token limit.
const THINKING_SCRIPT: &str = r#"{"turns": [
  {"content": "Paris is the capital of", "stop_reason": "length",
   "thinking": "Weigh <b>both</b> cities first.",
   "usage": {"input_tokens": 2000, "output_tokens": 300, "cache_read_tokens": 1536,
             "cache_write_tokens": 400, "reasoning_tokens": 256}}
]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_shows_why_it_ended_what_it_was_billed_and_what_the_model_thought() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    browser.fill("#script", THINKING_SCRIPT).await;
    browser.click("[data-testid=run-loop]").await;
    assert_eq!(wait_done(&browser).await, json!("done: answered"));
    let read = r"const step = document.querySelector('#steps > li[data-kind=llm]');
        const one = (id) => { const node = step.querySelector('[data-testid=' + id + ']'); return node && node.textContent; };
        return {
          note: one('step-note'),
          stop: one('step-stop-reason'),
          stopped: step.classList.contains('stopped'),
          thinking: one('step-thinking'),
          markup: step.querySelectorAll('[data-testid=step-thinking] b').length,
          usage: (document.getElementById('usage') || {}).textContent,
        };";
    let view = browser.execute(read, json!([])).await;
    let note = "0 tool calls · 2000 in / 300 out tokens (1536 read from cache, 400 written to \
                cache, 256 reasoning)";
    assert_eq!(
        view,
        json!({
            "note": note,
            "stop": "length",
            "stopped": true,
            "thinking": "What the model thoughtWeigh <b>both</b> cities first.",
            "markup": 0,
            "usage": format!("· {}", &note["0 tool calls · ".len()..]),
        })
    );
    browser.screenshot("run-stopped-thinking.png").await;

    // The history shows the same, from the audit copy.
    browser.open(&format!("{}/runs", playground.url)).await;
    browser.click("#run-list button").await;
    let kept = browser
        .wait_for(
            "the model step in the history",
            r"const step = document.querySelector('#steps > li[data-kind=llm]');
              return step && [step.querySelector('[data-testid=step-stop-reason]').textContent,
                              step.querySelector('[data-testid=step-thinking] pre').textContent,
                              step.querySelector('[data-testid=step-note]').textContent];",
            json!([]),
        )
        .await;
    assert_eq!(
        kept,
        json!([
            "length",
            "Weigh <b>both</b> cities first.",
            "2000 in / 300 out tokens (1536 read from cache, 400 written to cache, 256 reasoning)"
        ])
    );
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

async fn invoke(playground: &Playground, name: &str, arguments: &str) {
    let response = playground
        .client()
        .post(format!("{}/api/invoke", playground.url))
        .json(&json!({"name": name, "arguments": arguments}))
        .send()
        .await
        .expect("invoke");
    assert_eq!(response.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_searches_pages_exports_and_compares() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    for index in 0..53 {
        invoke(
            &playground,
            "text_stats",
            &format!(r#"{{"text": "run {index}"}}"#),
        )
        .await;
    }
    invoke(&playground, "uuid", "{}").await;
    invoke(&playground, "list_tables", "{}").await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/runs", playground.url)).await;
    let page = "return [document.querySelectorAll('#run-list button').length, document.getElementById('run-total').textContent, document.getElementById('runs-position').textContent, document.getElementById('runs-previous').disabled, document.getElementById('runs-next').disabled];";
    assert_eq!(
        browser.execute(page, json!([])).await,
        json!([50, "(55)", "1–50 of 55", true, false])
    );
    browser.click("#runs-next").await;
    browser.wait_text("#runs-position", "51–55 of 55").await;
    assert_eq!(
        browser.execute(page, json!([])).await,
        json!([5, "(55)", "51–55 of 55", false, true])
    );
    browser.fill("#run-search", "UUID").await;
    browser.wait_text("#run-total", "(1)").await;
    browser.click("#run-list button").await;
    common::run_loaded(&browser).await;
    browser.click("#run-export").await;
    let exported = browser
        .execute("return JSON.parse(window.__downloaded);", json!([]))
        .await;
    assert_eq!(exported["run"]["title"], json!("uuid"));
    assert_eq!(exported["steps"][0]["name"], json!("uuid"));
    browser.fill("#run-search", "").await;
    browser.wait_text("#run-total", "(55)").await;
    let other = browser
        .execute(
            "return Array.from(document.querySelectorAll('#compare option')).find((o) => o.textContent.endsWith('list_tables')).value;",
            json!([]),
        )
        .await;
    browser
        .fill("#compare", other.as_str().expect("a run id"))
        .await;
    browser
        .wait_for(
            "the second run",
            "return !document.getElementById('steps-other').hidden && document.querySelectorAll('#steps-other [data-testid=step]').length === 1;",
            json!([]),
        )
        .await;
    let names = browser
        .execute(
            "return [document.querySelector('#steps [data-testid=step-name]').textContent, document.querySelector('#steps-other [data-testid=step-name]').textContent];",
            json!([]),
        )
        .await;
    assert_eq!(names, json!(["uuid", "list_tables"]));
    browser.screenshot("history-compare.png").await;
    browser.fill("#run-status", "unfinished").await;
    browser.wait_text("#run-total", "(0)").await;
    browser.wait_text("#run-list", "No run matches.").await;
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_metadata_the_history_shows_the_sizes_it_keeps() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground_with(false, Privacy::Metadata).await;
    invoke(&playground, "text_stats", r#"{"text": "one two"}"#).await;
    let run = playground.audit.runs(1).expect("runs").remove(0);
    let browser = Browser::start(&chromium, &driver).await;
    browser
        .open(&format!("{}/runs?run={}", playground.url, run.run_id))
        .await;
    common::run_loaded(&browser).await;
    let notes = browser
        .execute(
            r"const step = document.querySelector('#steps [data-testid=step]');
              step.querySelector('[data-testid=tab-artifacts]').click();
              return [document.getElementById('run-title').textContent,
                      Array.from(step.querySelectorAll('.panel .note')).map((n) => n.textContent)];",
            json!([]),
        )
        .await;
    assert_eq!(
        notes,
        json!([
            format!(
                "call {} · text_stats · answered · privacy metadata",
                run.run_id
            ),
            [
                "Arguments not kept at privacy metadata",
                "The wire string not kept at privacy metadata (59 bytes)",
                "1 artifact (table); their data is not kept at privacy metadata",
            ]
        ])
    );
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dark_mode_follows_the_system_and_600_pixels_need_no_sideways_scrolling() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser
        .cdp(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
        )
        .await;
    browser
        .open(&format!(
            "{}/?tool=list_tables&run=1&tab=artifacts",
            playground.url
        ))
        .await;
    browser
        .wait_for(
            "the call",
            "return document.getElementById('status').textContent === 'done';",
            json!([]),
        )
        .await;
    let colours = browser
        .execute(
            "return [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color];",
            json!([]),
        )
        .await;
    assert_eq!(colours, json!(["rgb(20, 23, 29)", "rgb(227, 230, 236)"]));
    browser.screenshot("inspector-dark.png").await;

    browser.resize(600, 900).await;
    let layout = browser
        .execute(
            r"const tools = document.getElementById('tools-panel').getBoundingClientRect();
              const work = document.getElementById('work').getBoundingClientRect();
              return [window.innerWidth <= 600, document.documentElement.scrollWidth <= window.innerWidth, tools.bottom <= work.top, work.width > 500];",
            json!([]),
        )
        .await;
    assert_eq!(layout, json!([true, true, true, true]));
    browser.screenshot("inspector-600px.png").await;
    browser.quit().await;
}

/// Four writer calls, one for each choice, then a second append that the approval for the run
/// answers.
const STEERED_SCRIPT: &str = r#"{"turns": [
  {"tool_calls": [
    {"id": "w1", "name": "write_file", "arguments": {"path": "notes/page-edit.txt", "content": "the model's text"}},
    {"id": "w2", "name": "delete_path", "arguments": {"path": "README.md"}},
    {"id": "w3", "name": "append_file", "arguments": {"path": "notes/log.txt", "content": "one\n"}},
    {"id": "w4", "name": "write_file", "arguments": {"path": "notes/page-approved.txt", "content": "yes"}}
  ]},
  {"tool_calls": [
    {"id": "w5", "name": "append_file", "arguments": {"path": "notes/log.txt", "content": "two\n"}}
  ]},
  {"content": "Done."}
]}"#;

/// The steps' kinds with, for tool steps, their wire string, and for decision steps, their
/// lines (tool steps of one turn sorted, as they run at once).
const STEPS: &str = "return Array.from(document.querySelectorAll('#steps > li[data-testid=step]')).map((s) => [s.dataset.kind, (s.querySelector('[data-testid=wire]') || s.querySelector('[data-testid=step-content]') || {}).textContent || null]);";

/// In `STEERED_SCRIPT`'s panel: edits `w1` (after a required field left empty is refused in
/// the row), denies `w2` with a reason, approves `w3` for the run and `w4` once.
async fn pick_every_choice(browser: &Browser) {
    // Edit: a form from write_file's schema, filled with the model's arguments.
    browser.click("[data-testid=edit-w1]").await;
    let filled = browser
        .execute(
            "const f = (p) => document.querySelector('[data-testid=\"field-edit-w1.' + p + '\"]').value; return [f('path'), f('content')];",
            json!([]),
        )
        .await;
    assert_eq!(filled, json!(["notes/page-edit.txt", "the model's text"]));
    // A required field left empty is said in the row, and nothing is sent.
    browser.fill("[data-testid='field-edit-w1.path']", "").await;
    browser.click("[data-testid=resume]").await;
    assert_eq!(
        browser.text("[data-testid=decision-error-w1]").await,
        json!("Arguments: edit-w1.path: required")
    );
    browser
        .fill("[data-testid='field-edit-w1.path']", "notes/page-edit.txt")
        .await;
    browser
        .fill(
            "[data-testid='field-edit-w1.content']",
            "the operator's text",
        )
        .await;
    browser.click("[data-testid=deny-w2]").await;
    browser
        .fill(
            "[data-testid=reason-w2]",
            "Keep the README: it is the front page.",
        )
        .await;
    browser.click("[data-testid=approve-for-run-w3]").await;
    browser.click("[data-testid=approve-w4]").await;
    let picked = browser
        .execute(
            "return Array.from(document.querySelectorAll('[data-testid=approval] .pending-call')).map((row) => row.dataset.decision);",
            json!([]),
        )
        .await;
    assert_eq!(
        picked,
        json!(["edit", "deny", "approve_for_run", "approve"])
    );
}

/// The audit copy has each decision of `STEERED_SCRIPT`'s run.
fn assert_decisions_kept(playground: &Playground) {
    let runs = playground.audit.runs(5).expect("runs");
    let (_, kept) = playground
        .audit
        .run(&runs[0].run_id)
        .expect("read")
        .expect("the run");
    let decisions: Vec<(String, Option<String>)> = kept
        .iter()
        .filter(|step| step.kind == "resumed" || step.kind == "decided")
        .map(|step| (step.kind.clone(), step.content.clone()))
        .collect();
    assert_eq!(
        decisions,
        [
            (
                "resumed".to_owned(),
                Some("edited write_file (operator, arguments of 62 bytes); denied delete_path (operator, a reason of 38 bytes); approved_for_run append_file (operator); approved write_file (operator)".to_owned())
            ),
            (
                "decided".to_owned(),
                Some("approved append_file (approved for the run)".to_owned())
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_choice_of_the_approval_panel_works_from_the_page() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground_with(true, Privacy::Full).await;
    let workspace = playground.folder.path().join("workspace");
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    browser.fill("#script", STEERED_SCRIPT).await;
    browser.click("[data-testid=run-loop]").await;
    wait_for_approval(&browser).await;
    pick_every_choice(&browser).await;
    // The whole panel: each call with its choice.
    browser
        .screenshot_of("[data-testid=approval]", "approval-choices.png")
        .await;
    assert!(!workspace.join("notes/page-edit.txt").exists());

    browser.click("[data-testid=resume]").await;
    assert_eq!(wait_done(&browser).await, json!("done: answered"));
    let steps = browser
        .execute(
            &format!("const steps = (() => {{ {STEPS} }})(); return steps.slice(0, 4).concat(steps.slice(4, 8).sort(), steps.slice(8));"),
            json!([]),
        )
        .await;
    assert_eq!(
        steps,
        json!([
            ["request", null],
            ["llm", null],
            ["suspended", null],
            [
                "resumed",
                "edited write_file (w1): {\"content\":\"the model's text\",\"path\":\"notes/page-edit.txt\"} → {\"content\":\"the operator's text\",\"path\":\"notes/page-edit.txt\"}\ndenied delete_path (w2): Keep the README: it is the front page.\napproved for run append_file (w3)\napproved write_file (w4)"
            ],
            [
                "tool",
                "Appended 4 bytes to \"notes/log.txt\" (now 4 bytes)."
            ],
            ["tool", "Keep the README: it is the front page."],
            ["tool", "Wrote 19 bytes to \"notes/page-edit.txt\"."],
            ["tool", "Wrote 3 bytes to \"notes/page-approved.txt\"."],
            ["llm", null],
            [
                "decided",
                "approved append_file (w5): its tool is approved for this run"
            ],
            [
                "tool",
                "Appended 4 bytes to \"notes/log.txt\" (now 8 bytes)."
            ],
            ["llm", "Done."],
        ])
    );
    assert_eq!(
        std::fs::read_to_string(workspace.join("notes/page-edit.txt")).expect("written"),
        "the operator's text"
    );
    assert!(workspace.join("README.md").exists());
    assert_eq!(
        std::fs::read_to_string(workspace.join("notes/log.txt")).expect("appended"),
        "one\ntwo\n"
    );
    assert_decisions_kept(&playground);
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_of_a_previewed_call_shows_the_new_diff_and_abort_stops_the_run() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground_with(true, Privacy::Full).await;
    let todo = playground.folder.path().join("workspace/notes/todo.txt");
    let before = std::fs::read_to_string(&todo).expect("the sample todo list");
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    browser.fill("#script", EDIT_SCRIPT).await;
    browser.click("[data-testid=run-loop]").await;
    browser
        .wait_for(
            "the preview",
            "return document.querySelector('[data-testid=pending-e1] [data-testid=pending-preview]') !== null;",
            json!([]),
        )
        .await;
    browser.click("[data-testid=edit-e1]").await;
    browser
        .fill(
            "[data-testid='field-edit-e1.edits.0.new_text']",
            "- [x] restock standing mats at the north site (done Friday)\n",
        )
        .await;
    browser.click("[data-testid=resume]").await;
    // The run waits again, with the preview of the edited call.
    let preview = second_preview(&browser).await;
    assert!(
        preview
            .as_str()
            .expect("a preview")
            .contains("\n+- [x] restock standing mats at the north site (done Friday)\n"),
        "{preview}"
    );
    assert_eq!(std::fs::read_to_string(&todo).expect("read"), before);
    browser
        .screenshot_of(
            "[data-testid=approval]:last-of-type",
            "approval-edit-preview.png",
        )
        .await;
    abort_second(&browser).await;
    assert_eq!(wait_done(&browser).await, json!("done: aborted"));
    let last = browser
        .execute(
            &format!("const steps = (() => {{ {STEPS} }})(); return steps[steps.length - 1];"),
            json!([]),
        )
        .await;
    assert_eq!(last, json!(["resumed", "aborted edit_file (e1)"]));
    assert_eq!(std::fs::read_to_string(&todo).expect("read"), before);
    let runs = playground.audit.runs(5).expect("runs");
    assert_eq!(runs[0].termination.as_deref(), Some("aborted"));
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

/// A write in the notes and one of the README.
const POLICY_SCRIPT: &str = r#"{"turns": [
  {"tool_calls": [
    {"id": "w1", "name": "write_file", "arguments": {"path": "notes/auto.txt", "content": "by rule"}},
    {"id": "w2", "name": "write_file", "arguments": {"path": "README.md", "content": "gone", "overwrite": true}}
  ]},
  {"content": "Done."}
]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_what_the_policy_approved_and_why() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground =
        start_playground_with_policy(WritesUnder::new(["notes"]).expect("a folder")).await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    assert_eq!(
        browser.text("#writers-info").await,
        json!(
            "Tools that change files or records are offered: the loop stops at each of their calls for your approval. Policy writes-under (--auto-approve): writes under notes/ run without a question."
        )
    );
    browser.fill("#script", POLICY_SCRIPT).await;
    browser.click("[data-testid=run-loop]").await;
    wait_for_approval(&browser).await;
    let steps = browser.execute(STEPS, json!([])).await;
    assert_eq!(
        steps,
        json!([
            ["request", null],
            ["llm", null],
            [
                "decided",
                "approved write_file (w1) by policy writes-under: write_file: notes/auto.txt is under notes/"
            ],
            ["tool", "Wrote 7 bytes to \"notes/auto.txt\"."],
            ["suspended", null],
        ])
    );
    let pending = browser
        .execute(
            "return Array.from(document.querySelectorAll('[data-testid=approval] .pending-call')).map((row) => row.dataset.testid);",
            json!([]),
        )
        .await;
    assert_eq!(pending, json!(["pending-w2"]));
    browser
        .screenshot_of("#output", "approval-policy.png")
        .await;
    browser.click("[data-testid=deny-w2]").await;
    browser.click("[data-testid=resume]").await;
    assert_eq!(wait_done(&browser).await, json!("done: answered"));
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

/// The attack on approvals by look-alike text: an edit that replaces `two` with `t`, a
/// right-to-left override and `ow`, which a browser draws exactly as `two`.
const BIDI_EDIT_SCRIPT: &str = r#"{"turns": [
  {"tool_calls": [{"id": "e1", "name": "edit_file", "arguments": {"path": "notes/plan.txt", "edits": [{"old_text": "two", "new_text": "t\u202eow"}]}}]},
  {"content": "Edited."}
]}"#;

/// The PNG (base64) of the text of line `line` of the `<pre>` matching `selector`, without its
/// first character (a diff's `-` or `+`): what a person sees of that line's words.
async fn line_pixels(browser: &Browser, selector: &str, line: usize) -> String {
    let rect = browser
        .execute(
            "const pre = document.querySelector(arguments[0]); \
             const text = pre.firstChild; \
             const lines = text.data.split('\\n'); \
             let start = 0; \
             for (let i = 0; i < arguments[1]; i += 1) start += lines[i].length + 1; \
             const range = document.createRange(); \
             range.setStart(text, start + 1); \
             range.setEnd(text, start + lines[arguments[1]].length); \
             const r = range.getBoundingClientRect(); \
             return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height, scale: 1};",
            json!([selector, line]),
        )
        .await;
    let shot = browser
        .cdp(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true, "clip": rect}),
        )
        .await;
    shot["data"].as_str().expect("base64 PNG").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_with_a_direction_override_shows_it_written_out_on_both_sides_of_its_diff() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground_with(true, Privacy::Full).await;
    let plan = playground.folder.path().join("workspace/notes/plan.txt");
    std::fs::write(&plan, "one\ntwo\n").expect("write");
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    browser.fill("#script", BIDI_EDIT_SCRIPT).await;
    browser.click("[data-testid=run-loop]").await;
    wait_for_approval(&browser).await;
    let shown = browser
        .execute(
            "const row = document.querySelector('[data-testid=pending-e1]'); \
             const text = (id) => row.querySelector('[data-testid=' + id + ']').textContent; \
             return [text('pending-warning'), text('pending-arguments'), text('pending-preview')];",
            json!([]),
        )
        .await;
    assert_eq!(shown[0], toolkit::approval::HIDDEN_WARNING);
    assert_eq!(
        shown[1],
        r#"{"edits":[{"new_text":"t⟨U+202E⟩ow","old_text":"two"}],"path":"notes/plan.txt"}"#
    );
    let preview = shown[2].as_str().expect("a preview");
    assert!(preview.ends_with("\n one\n-two\n+t⟨U+202E⟩ow"), "{preview}");
    assert!(!preview.contains('\u{202e}'));

    // The attack, drawn as the page drew it before: the raw text in a preview of the same
    // style, whose `two` line and whose line of `t`, the override and `ow` have the same pixels.
    browser
        .execute(
            "const raw = document.createElement('pre'); \
             raw.className = 'preview value'; raw.dir = 'auto'; raw.id = 'raw-attack'; \
             raw.textContent = '-two\\n+t\\u202eow'; \
             document.querySelector('[data-testid=pending-e1]').append(raw); return true;",
            json!([]),
        )
        .await;
    assert_eq!(
        line_pixels(&browser, "#raw-attack", 0).await,
        line_pixels(&browser, "#raw-attack", 1).await,
        "the override makes both lines look alike"
    );
    // As the page shows it now, the two sides of the diff differ to the eye.
    let lines = preview.lines().count();
    let preview_selector = "[data-testid=pending-e1] [data-testid=pending-preview]";
    assert_ne!(
        line_pixels(&browser, preview_selector, lines - 2).await,
        line_pixels(&browser, preview_selector, lines - 1).await,
    );
    browser
        .execute(
            "document.getElementById('raw-attack').remove(); return true;",
            json!([]),
        )
        .await;
    browser
        .screenshot_of("[data-testid=approval]", "approval-hidden-characters.png")
        .await;

    browser.click("[data-testid=deny-e1]").await;
    browser.click("[data-testid=resume]").await;
    wait_done(&browser).await;
    assert_eq!(std::fs::read_to_string(&plan).expect("read"), "one\ntwo\n");
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

/// An edit of `notes/plan.txt` that turns its `1` into a `2`.
const ONE_TO_TWO_SCRIPT: &str = r#"{"turns": [
  {"tool_calls": [{"id": "e1", "name": "edit_file", "arguments": {"path": "notes/plan.txt", "edits": [{"old_text": "1", "new_text": "2"}]}}]},
  {"content": "Edited."}
]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_in_the_page_runs_nothing_the_preview_did_not_show() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground_with(true, Privacy::Full).await;
    let plan = playground.folder.path().join("workspace/notes/plan.txt");
    std::fs::write(&plan, "x = 1\n").expect("write");
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    browser.fill("#script", ONE_TO_TWO_SCRIPT).await;
    browser.click("[data-testid=run-loop]").await;
    let shown = browser
        .wait_for(
            "the preview",
            "const p = document.querySelector('[data-testid=pending-e1] [data-testid=pending-preview]'); return p && p.textContent;",
            json!([]),
        )
        .await;
    assert!(
        shown
            .as_str()
            .is_some_and(|shown| shown.ends_with("\n-x = 1\n+x = 2")),
        "{shown}"
    );
    // Another writer changes the file while the page shows the call; you approve what you saw.
    std::fs::write(&plan, "allow_all = 1\n").expect("write");
    browser.click("[data-testid=approve-e1]").await;
    browser.click("[data-testid=resume]").await;
    let again = second_preview(&browser).await;
    assert!(
        again
            .as_str()
            .is_some_and(|again| again.ends_with("\n-allow_all = 1\n+allow_all = 2")),
        "{again}"
    );
    assert_eq!(
        std::fs::read_to_string(&plan).expect("read"),
        "allow_all = 1\n"
    );
    let decided = browser
        .execute(
            &format!("const steps = (() => {{ {STEPS} }})(); return steps.filter((step) => step[0] === 'decided');"),
            json!([]),
        )
        .await;
    assert_eq!(
        decided,
        json!([[
            "decided",
            "preview changed edit_file (e1): what it would do changed after it was shown, so it did not run and is asked again"
        ]])
    );
    abort_second(&browser).await;
    assert_eq!(wait_done(&browser).await, json!("done: aborted"));
    assert_eq!(
        std::fs::read_to_string(&plan).expect("read"),
        "allow_all = 1\n"
    );
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

/// A run whose model asks the person through `ask_user`.
const ASK_SCRIPT: &str = r#"{"turns": [
  {"content": "I need to know which table you mean.", "tool_calls": [
    {"id": "q1", "name": "ask_user", "arguments": {"question": "Which table: customers or orders? \u202eevil"}}
  ]},
  {"content": "Thanks."}
]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tools_question_suspends_the_loop_and_the_page_answers_it() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    browser.fill("#script", ASK_SCRIPT).await;
    browser.click("[data-testid=run-loop]").await;
    wait_for_approval(&browser).await;
    let asked = browser
        .execute(
            "const row = document.querySelector('[data-testid=pending-q1]'); \
             return [row.querySelector('[data-testid=question-text]').textContent, \
                     Array.from(row.querySelectorAll('[data-testid^=field-answer]')).map((field) => field.dataset.testid), \
                     row.querySelectorAll('[data-testid=approve-q1], [data-testid=edit-q1]').length];",
            json!([]),
        )
        .await;
    // The question as asked, its hidden override written out, its one field, and no approval
    // or edit: a question is answered or declined.
    assert_eq!(
        asked,
        json!([
            "Which table: customers or orders? ⟨U+202E⟩evil",
            ["field-answer-q1-answer.answer"],
            0
        ])
    );
    browser
        .fill("[data-testid='field-answer-q1-answer.answer']", "orders")
        .await;
    browser.click("[data-testid=answer-q1]").await;
    browser
        .screenshot_of("[data-testid=approval]", "loop-question-form.png")
        .await;
    browser.click("[data-testid=resume]").await;
    let status = wait_done(&browser).await;
    assert_eq!(status, json!("done: answered"));
    // The round that asked shows as what it asked; the model read the person's answer as the
    // call's result, from the round that had it.
    let kinds = browser
        .execute(
            "return Array.from(document.querySelectorAll('#steps > li[data-testid=step]')).map((step) => step.dataset.kind);",
            json!([]),
        )
        .await;
    assert_eq!(
        kinds,
        json!([
            "request",
            "llm",
            "asked",
            "suspended",
            "resumed",
            "tool",
            "llm"
        ])
    );
    let wires = browser
        .execute(
            "return Array.from(document.querySelectorAll('#steps > li[data-kind=tool] [data-testid=wire]')).map((wire) => wire.textContent);",
            json!([]),
        )
        .await;
    assert_eq!(wires, json!(["orders"]));
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

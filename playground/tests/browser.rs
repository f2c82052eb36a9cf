//! The inspector in a real headless Chromium: what it shows for builtin tools, that an XSS corpus
//! in every artifact field stays literal text and runs nothing, the unknown-type fallback, large
//! tables, the live loop and the runs history (which shows the calls `toolkit-mcp --playground`
//! serves from another process: toolkit-mcp-cli/tests/playground.rs). Screenshots go to
//! target/playground-screenshots/.

mod common;

use common::{Browser, HOSTILE_MEDIA, PNG, XSS, browser, start_playground};
use serde_json::{Value, json};
use toolkit::talk::LogLevel;
use toolkit::{Table, ToolArtifact, ToolContext, ToolLoopService, ToolResult, tool};

/// Returns the XSS corpus in every artifact field: a table whose columns are payloads, a table
/// whose cells are payloads, one text artifact per payload labelled with it, and all of them in
/// one text.
#[tool(group = "test")]
fn xss_corpus() -> ToolResult {
    let mut artifacts = Vec::new();
    let columns: Vec<String> = XSS
        .iter()
        .take(12)
        .map(|payload| (*payload).to_owned())
        .collect();
    let header_row: Vec<String> = (0..columns.len()).map(|index| index.to_string()).collect();
    if let Ok(table) = Table::from_rows(columns, [header_row]) {
        artifacts.push(ToolArtifact::table(XSS[0], table));
    }
    let rows = XSS
        .iter()
        .enumerate()
        .map(|(index, payload)| [index.to_string(), (*payload).to_owned()]);
    if let Ok(table) = Table::from_rows(["#", "<b>payload</b>"], rows) {
        artifacts.push(ToolArtifact::table(XSS[1], table));
    }
    for payload in XSS {
        artifacts.push(ToolArtifact::text(*payload, *payload));
    }
    artifacts.push(ToolArtifact::text("all", XSS.join("\n")));
    ToolResult::text_with(XSS.join("\n"), artifacts)
}

/// Eight silent samples as a WAV file (8 kHz, 8 bits, one channel).
fn wav() -> Vec<u8> {
    let samples = [0x80u8; 8];
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"RIFF");
    bytes.extend_from_slice(&(36 + 8u32).to_le_bytes());
    bytes.extend_from_slice(b"WAVEfmt ");
    bytes.extend_from_slice(&16u32.to_le_bytes());
    bytes.extend_from_slice(&[1, 0, 1, 0]); // PCM, one channel
    bytes.extend_from_slice(&8000u32.to_le_bytes()); // samples per second
    bytes.extend_from_slice(&8000u32.to_le_bytes()); // bytes per second
    bytes.extend_from_slice(&[1, 0, 8, 0]); // one byte a frame, 8 bits a sample
    bytes.extend_from_slice(b"data");
    bytes.extend_from_slice(&8u32.to_le_bytes());
    bytes.extend_from_slice(&samples);
    bytes
}

/// Media artifacts: an image, a sound, and media that must only ever be downloaded.
#[tool(group = "test")]
fn media_corpus() -> ToolResult {
    let mut artifacts = vec![
        ToolArtifact::media("pixels", "image/png", PNG),
        ToolArtifact::media("tone", "audio/wav", wav()),
    ];
    artifacts.extend(
        HOSTILE_MEDIA
            .iter()
            .map(|(label, mime, body)| ToolArtifact::media(*label, *mime, body)),
    );
    ToolResult::text_with("media for people", artifacts)
}

/// Shows the model a picture and a refused SVG, and people a picture of their own.
#[tool(group = "test")]
fn model_picture() -> ToolResult {
    ToolResult::text_with(
        "A red pixel:",
        [ToolArtifact::media("for people", "image/png", PNG)],
    )
    .with_media(toolkit::result::Media::png(toolkit_testing::media::PNG).named("red.png"))
    .with_media(toolkit::result::Media::new(
        "image/svg+xml",
        "<svg onload=\"window.__pwned=1\"/>",
    ))
}

/// A table of 3000 one-cell rows.
#[tool(group = "test")]
fn big_table() -> ToolResult {
    let rows = (1..=3000).map(|row| [format!("r{row}")]);
    match Table::from_rows(["row"], rows) {
        Ok(table) => ToolResult::text_with("3000 rows", [ToolArtifact::table("Big", table)]),
        Err(error) => ToolResult::error(error.to_string()),
    }
}

/// Counts to six slowly, reporting each step and logging two lines, one of them hostile markup
/// with a right-to-left override.
#[tool(group = "test")]
fn counts_slowly(context: &ToolContext) -> String {
    context.log(LogLevel::Info, "counting to six");
    for step in 0..=6 {
        context.progress(step, Some(6), &format!("counted {step}"));
        if step == 3 {
            context.log(
                LogLevel::Warning,
                "<img src=x onerror=window.__pwned=1> \u{202e}halfway",
            );
        }
        if step < 6 {
            std::thread::sleep(std::time::Duration::from_millis(400));
        }
    }
    "counted to six".to_owned()
}

/// Reads every visible text of the current step: tab names, wire string, artifact labels,
/// table columns and cells, texts.
const READ_STEP: &str = r"
const step = document.querySelector('[data-testid=step]');
if (!step) return null;
const all = (selector, root) => Array.from((root || step).querySelectorAll(selector));
return {
  tabs: all('[data-testid=tabs] button').map((b) => b.textContent),
  wire: (step.querySelector('[data-testid=wire]') || {}).textContent,
  arguments: (step.querySelector('[data-testid=arguments]') || {}).textContent,
  labels: all('[data-testid=artifact-label]').map((n) => n.textContent),
  kinds: all('[data-testid=artifact]').map((n) => n.dataset.kind),
  tables: all('[data-testid=artifact] table').map((t) => ({
    columns: Array.from(t.querySelectorAll('th')).map((c) => c.textContent),
    rows: Array.from(t.querySelectorAll('tbody tr')).map((r) => Array.from(r.querySelectorAll('td')).map((c) => c.textContent)),
  })),
  // A text's lines as shown (the line numbers beside them are not part of it).
  texts: all('[data-testid=artifact-text]').map((n) =>
    Array.from(n.querySelectorAll('.line .content')).map((line) => line.textContent).join('\n') +
    (n.dataset.trailingNewline === 'true' ? '\n' : '')),
  json: all('[data-testid=artifact-json]').map((n) => n.textContent),
  positions: all('[data-testid=page-position]').map((n) => n.textContent),
};
";

async fn seam(name: &str, arguments: &str, context: ToolContext) -> (String, Vec<ToolArtifact>) {
    let service = ToolLoopService::new(toolkit_builtins::registry().expect("registry"));
    let scope = service.scope(context).unwrap();
    let result = service.invoke(&scope, name, arguments).await;
    (result.content().to_owned(), result.artifacts().to_vec())
}

/// Runs `name` with raw JSON `arguments` in the inspector and returns what the step shows.
async fn run_raw(browser: &Browser, name: &str, arguments: &str) -> Value {
    browser.click(&format!("[data-testid='tool-{name}']")).await;
    browser.click("#raw-mode").await;
    browser
        .execute(
            "document.getElementById('raw-args').value = arguments[0];",
            json!([arguments]),
        )
        .await;
    browser.click("[data-testid=run-tool]").await;
    browser
        .wait_for(
            "the step",
            "return document.getElementById('status').textContent === 'done';",
            json!([]),
        )
        .await;
    browser
        .execute("const tab = document.querySelector('[data-testid=step] [data-testid=tab-artifacts]'); if (tab) tab.click();", json!([]))
        .await;
    browser.execute(READ_STEP, json!([])).await
}

fn context(playground: &common::Playground) -> ToolContext {
    ToolContext::new()
        .with_extension(toolkit_builtins::WorkspaceRoot::new(
            toolkit_builtins::files::sample_workspace(),
        ))
        .with_extension(toolkit_builtins::Database::new(
            playground.folder.path().join("sample.db"),
        ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builtin_shows_wire_string_and_exact_table_cells_and_no_artifacts_tab_without_artifacts() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;

    let arguments = r#"{"table": "customers", "limit": 3, "fields": ["id", "name", "email"]}"#;
    let shown = run_raw(&browser, "read_records", arguments).await;
    let (wire, artifacts) = seam("read_records", arguments, context(&playground)).await;
    assert_eq!(shown["wire"], json!(wire));
    assert_eq!(
        shown["tabs"],
        json!(["Arguments", "Result", "Artifacts (1)"])
    );
    assert_eq!(shown["labels"], json!([artifacts[0].label()]));
    assert_eq!(shown["labels"], json!(["customers, rows 1-3 of 12"]));
    assert_eq!(
        shown["tables"],
        json!([{
            "columns": ["id", "name", "email"],
            "rows": [
                ["1", "Ada Lovelace", "ada@example.com"],
                ["2", "José Álvarez", "jose.alvarez@example.es"],
                ["3", "Zoë Müller", "zoe@example.de"],
            ],
        }])
    );
    browser.screenshot("inspector-table-artifact.png").await;

    // A tool without artifacts, through the generated form: no Artifacts tab at all.
    browser.click("[data-testid='tool-hash_text']").await;
    browser.click("input[name=arg-mode][value=form]").await;
    browser
        .execute(
            "document.querySelector('[data-testid=field-text]').value = arguments[0];",
            json!(["to be or not"]),
        )
        .await;
    browser.click("[data-testid=run-tool]").await;
    browser
        .wait_for(
            "the step",
            "return document.getElementById('status').textContent === 'done';",
            json!([]),
        )
        .await;
    let shown = browser.execute(READ_STEP, json!([])).await;
    let (wire, artifacts) = seam(
        "hash_text",
        r#"{"text": "to be or not"}"#,
        context(&playground),
    )
    .await;
    assert!(artifacts.is_empty());
    assert_eq!(shown["tabs"], json!(["Arguments", "Result"]));
    assert_eq!(shown["wire"], json!(wire));
    assert_eq!(shown["labels"], json!([]));
    browser.screenshot("inspector-no-artifacts.png").await;
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xss_corpus_in_labels_columns_cells_and_texts_renders_as_literal_text() {
    assert!(XSS.len() >= 40, "the corpus has {} payloads", XSS.len());
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    let shown = run_raw(&browser, "xss_corpus", "{}").await;

    let corpus: Vec<String> = XSS.iter().map(|payload| (*payload).to_owned()).collect();
    assert_eq!(shown["wire"], json!(XSS.join("\n")));
    let mut labels = vec![XSS[0].to_owned(), XSS[1].to_owned()];
    labels.extend(corpus.iter().cloned());
    labels.push("all".to_owned());
    assert_eq!(shown["labels"], json!(labels));
    assert_eq!(shown["tables"][0]["columns"], json!(corpus[..12]));
    assert_eq!(
        shown["tables"][1]["columns"],
        json!(["#", "<b>payload</b>"])
    );
    let cells: Vec<Value> = shown["tables"][1]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| row[1].clone())
        .collect();
    assert_eq!(
        cells,
        corpus
            .iter()
            .map(|payload| json!(payload))
            .collect::<Vec<_>>()
    );
    let mut texts = corpus.clone();
    texts.push(XSS.join("\n"));
    assert_eq!(shown["texts"], json!(texts));

    // Nothing ran, nothing was parsed into elements, nothing complained.
    let verdict = browser
        .execute(
            r"const step = document.querySelector('[data-testid=step]');
            const injected = step.querySelectorAll('script, img, svg, iframe, object, embed, a, math, video, audio, source, input, textarea, form, details, marquee, style, link, meta, base, noscript, template, x, b, body, animate');
            return {pwned: typeof window.__pwned, injected: injected.length, scripts: document.scripts.length, base: document.baseURI === location.href};",
            json!([]),
        )
        .await;
    assert_eq!(
        verdict,
        json!({"pwned": "undefined", "injected": 0, "scripts": 2, "base": true})
    );
    browser.screenshot("inspector-xss-corpus.png").await;
    // Clicking through every tab and pager does not run anything either.
    browser
        .execute(
            "for (const b of document.querySelectorAll('[data-testid=step] button')) b.click();",
            json!([]),
        )
        .await;
    let pwned = browser
        .execute("return typeof window.__pwned;", json!([]))
        .await;
    assert_eq!(pwned, json!("undefined"));
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn media_shows_plays_or_downloads_and_hostile_types_only_download() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    let shown = run_raw(&browser, "media_corpus", "{}").await;
    assert_eq!(
        shown["labels"],
        json!(["pixels", "tone", "vector", "page", "breakout"])
    );
    assert_eq!(
        shown["kinds"],
        json!(["media", "media", "media", "media", "media"])
    );
    let media = browser
        .wait_for(
            "the image to load",
            r"const step = document.querySelector('[data-testid=step]');
            const images = Array.from(step.querySelectorAll('img'));
            if (!images.every((image) => image.complete)) return null;
            return {
              info: Array.from(step.querySelectorAll('[data-testid=media-info]')).map((n) => n.textContent),
              images: images.map((image) => [image.alt, image.naturalWidth, image.naturalHeight]),
              audio: Array.from(step.querySelectorAll('audio')).map((audio) => audio.src.slice(0, 22)),
              downloads: step.querySelectorAll('[data-testid=download-media]').length,
            };",
            json!([]),
        )
        .await;
    assert_eq!(
        media,
        json!({
            "info": [
                "image/png, 70 bytes", "audio/wav, 52 bytes", "image/svg+xml, 105 bytes",
                "text/html, 33 bytes", "application/octet-stream, 36 bytes",
            ],
            "images": [["pixels", 2, 1]],
            "audio": ["data:audio/wav;base64,"],
            "downloads": 5,
        })
    );
    browser.click("[data-testid=download-media]").await;
    let downloaded = browser
        .execute("return window.__downloaded;", json!([]))
        .await;
    assert_eq!(
        downloaded,
        "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg=="
    );
    let pwned = browser
        .execute("return typeof window.__pwned;", json!([]))
        .await;
    assert_eq!(pwned, json!("undefined"));
    browser.screenshot("inspector-media.png").await;
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_result_tab_shows_the_media_the_model_saw_apart_from_the_artifacts() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    run_raw(&browser, "model_picture", "{}").await;
    browser
        .execute(
            "document.querySelector('[data-testid=step] [data-testid=tab-result]').click();",
            json!([]),
        )
        .await;
    let result = browser
        .wait_for(
            "the model's image to load",
            r"const panel = document.querySelector('[data-testid=step] [data-testid=panel-result]');
            const images = Array.from(panel.querySelectorAll('img'));
            if (images.length === 0 || !images.every((image) => image.complete)) return null;
            return {
              wire: panel.querySelector('[data-testid=wire]').textContent,
              labels: Array.from(panel.querySelectorAll('[data-testid=artifact-label]')).map((n) => n.textContent),
              info: Array.from(panel.querySelectorAll('[data-testid=media-info]')).map((n) => n.textContent),
              images: images.map((image) => [image.alt, image.naturalWidth, image.naturalHeight]),
            };",
            json!([]),
        )
        .await;
    assert_eq!(
        result,
        json!({
            "wire": "A red pixel:\n[media 2 (image/svg+xml, 32 bytes) was not shown: it was refused: SVG is a document that can run script, not an image a model is shown]",
            "labels": ["red.png"],
            "info": ["image/png, 69 bytes"],
            "images": [["red.png", 1, 1]],
        })
    );
    browser.screenshot("inspector-result-media.png").await;
    // The Artifacts tab holds the people's picture and the refused SVG, as a download only.
    browser
        .execute(
            "document.querySelector('[data-testid=step] [data-testid=tab-artifacts]').click();",
            json!([]),
        )
        .await;
    let artifacts = browser
        .execute(
            r"const panel = document.querySelector('[data-testid=step] [data-testid=panel-artifacts]');
            return {
              labels: Array.from(panel.querySelectorAll('[data-testid=artifact-label]')).map((n) => n.textContent),
              images: panel.querySelectorAll('img').length,
              svg: panel.querySelectorAll('svg').length,
              pwned: typeof window.__pwned,
            };",
            json!([]),
        )
        .await;
    assert_eq!(
        artifacts,
        json!({
            "labels": ["for people", "Not shown to the model: media 2 (refused)"],
            "images": 1,
            "svg": 0,
            "pwned": "undefined",
        })
    );
    // The runs history shows the same from the audit copy (kept at `full`)...
    assert_eq!(
        history_result_media(&browser, &playground).await,
        json!({"images": [["red.png", 1, 1]], "not_kept": []})
    );
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;

    // ...and at `metadata`, says that the bytes were not kept.
    let playground = common::start_playground_with(false, toolkit_audit::Privacy::Metadata).await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    run_raw(&browser, "model_picture", "{}").await;
    assert_eq!(
        history_result_media(&browser, &playground).await,
        json!({"images": [], "not_kept": ["red.png (image/png) not kept at privacy metadata (69 bytes)"]})
    );
    browser.quit().await;
}

/// The Result tab of the latest run's tool step in the runs history: its images and its notes
/// of media whose bytes were not kept.
async fn history_result_media(browser: &Browser, playground: &common::Playground) -> Value {
    let runs = playground.audit.runs(1).expect("runs");
    browser
        .goto(&format!("{}/runs?run={}", playground.url, runs[0].run_id))
        .await;
    common::run_loaded(browser).await;
    browser
        .click("#steps > li[data-kind=tool] [data-testid=tab-result]")
        .await;
    browser
        .wait_for(
            "its images to load",
            r"const panel = document.querySelector('#steps > li[data-kind=tool] [data-testid=panel-result]');
            const images = Array.from(panel.querySelectorAll('img'));
            if (!images.every((image) => image.complete)) return null;
            return {
              images: images.map((image) => [image.alt, image.naturalWidth, image.naturalHeight]),
              not_kept: Array.from(panel.querySelectorAll('[data-testid=media-not-kept]')).map((n) => n.textContent),
            };",
            json!([]),
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_tables_are_paginated() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    let shown = run_raw(&browser, "big_table", "{}").await;
    assert_eq!(shown["positions"], json!(["rows 1–100 of 3000"]));
    let rows = shown["tables"][0]["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 100);
    assert_eq!(rows[0], json!(["r1"]));
    assert_eq!(rows[99], json!(["r100"]));
    browser.click("[data-testid=step] .pager .next").await;
    let shown = browser.execute(READ_STEP, json!([])).await;
    assert_eq!(shown["positions"], json!(["rows 101–200 of 3000"]));
    assert_eq!(shown["tables"][0]["rows"][0], json!(["r101"]));
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_call_shows_its_progress_bar_and_log_lines_as_inert_text() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    let script = r#"{"turns": [
        {"tool_calls": [{"id": "count_1", "name": "counts_slowly", "arguments": {}}]},
        {"content": "Counted."}
    ]}"#;
    browser
        .execute(
            "document.getElementById('script').value = arguments[0];",
            json!([script]),
        )
        .await;
    browser.click("[data-testid=run-loop]").await;
    let read = r"const step = Array.from(document.querySelectorAll('li.step.pending'))
            .find((node) => node.dataset.callId === 'count_1');
        if (!step) return null;
        const bar = step.querySelector('[data-testid=call-progress] progress');
        return {
          value: bar ? bar.value : null,
          max: bar ? bar.max : null,
          text: (step.querySelector('[data-testid=call-progress-text]') || {}).textContent || null,
          lines: Array.from(step.querySelectorAll('[data-testid=call-log] li')).map((line) => [
            line.querySelector('.log-level').textContent,
            line.querySelector('.log-message').textContent,
            line.className,
          ]),
          markup: step.querySelectorAll('[data-testid=call-log] img').length,
        };";
    let shown = browser
        .wait_for(
            "the call to pass its fourth step",
            &format!(
                "const shown = (() => {{ {read} }})(); return shown && shown.value >= 4 ? shown : null;"
            ),
            json!([]),
        )
        .await;
    browser.screenshot("loop-call-progress.png").await;
    assert_eq!(shown["max"], json!(6));
    let value = shown["value"].as_f64().expect("a number");
    assert!((4.0..=6.0).contains(&value), "{shown}");
    assert_eq!(
        shown["text"],
        json!(format!("{value} of 6 · counted {value}"))
    );
    assert_eq!(
        shown["lines"],
        json!([
            ["info", "counting to six", "log-line log-info"],
            [
                "warning",
                "<img src=x onerror=window.__pwned=1> \u{202e}halfway",
                "log-line log-warning"
            ],
        ])
    );
    assert_eq!(shown["markup"], json!(0));
    browser
        .wait_for(
            "the loop to finish",
            "return document.getElementById('status').dataset.done === 'true';",
            json!([]),
        )
        .await;
    // The finished step replaced the running one, and what it reported with it.
    let after = browser
        .execute(
            "return [document.querySelectorAll('[data-testid=call-progress], [data-testid=call-log]').length, window.__pwned === undefined];",
            json!([]),
        )
        .await;
    assert_eq!(after, json!([0, true]));
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripted_loop_streams_every_step_and_lands_in_the_runs_history() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    browser.open(&format!("{}/", playground.url)).await;
    browser.click("[data-testid=run-loop]").await;
    browser
        .wait_for(
            "the loop to finish",
            "return document.getElementById('status').dataset.done === 'true';",
            json!([]),
        )
        .await;
    let steps = browser
        .execute(
            r"return Array.from(document.querySelectorAll('#steps > li[data-testid=step]')).map((s) => ({
                kind: s.dataset.kind,
                name: (s.querySelector('[data-testid=step-name]') || {}).textContent || null,
                timed: /ms$/.test(s.querySelector('[data-testid=step-duration]').textContent),
                tabs: Array.from(s.querySelectorAll('[data-testid=tabs] button')).map((b) => b.textContent),
            }));",
            json!([]),
        )
        .await;
    let tool = |name: &str, tabs: &[&str]| json!({"kind": "tool", "name": name, "timed": true, "tabs": tabs});
    let llm = json!({"kind": "llm", "name": null, "timed": true, "tabs": []});
    let all = ["Arguments", "Result", "Artifacts (1)"];
    assert_eq!(
        steps,
        json!([
            {"kind": "request", "name": null, "timed": false, "tabs": []},
            llm, tool("list_tables", &all),
            llm, tool("read_records", &all), tool("query_sql", &all),
            llm, tool("text_stats", &all),
            llm,
        ])
    );
    let status = browser.text("#status").await;
    assert_eq!(status, json!("done: answered"));
    browser.screenshot("inspector-scripted-loop.png").await;

    let runs = playground.audit.runs(10).expect("runs");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].steps, 9);
    assert_eq!(runs[0].termination.as_deref(), Some("answered"));
    browser
        .goto(&format!("{}/runs?run={}", playground.url, runs[0].run_id))
        .await;
    common::run_loaded(&browser).await;
    let kinds = browser
        .execute("return Array.from(document.querySelectorAll('#steps > li')).map((s) => s.dataset.kind);", json!([]))
        .await;
    assert_eq!(
        kinds,
        json!([
            "request", "llm", "tool", "llm", "tool", "tool", "llm", "tool", "llm"
        ])
    );
    browser
        .click("#steps > li[data-kind=tool] [data-testid=tab-artifacts]")
        .await;
    browser.screenshot("runs-history.png").await;
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_artifact_types_and_wrong_shapes_render_as_json_text() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    // An audit row from elsewhere (another version, another writer): types this page does not
    // know, and known types of the wrong shape.
    let odd = json!([
        {"type": "chart", "label": "<b>chart</b>", "data": {"points": [1, 2], "title": "<img src=x onerror=window.__pwned=1>"}},
        {"type": "table", "label": "ragged", "data": {"columns": ["a"], "rows": [["1", "2"]]}},
        {"type": "text", "label": "not text", "data": {"text": 7}},
        "<script>window.__pwned=1</script>",
    ]);
    // Written as another writer would: straight into the audit file.
    let connection =
        rusqlite::Connection::open(playground.folder.path().join("audit.sqlite3")).expect("open");
    connection
        .execute(
            "INSERT INTO runs (run_id, kind, title, started_at, privacy) \
             VALUES ('imported-1', 'call', 'imported', '2026-01-01T00:00:00.000Z', 'full')",
            [],
        )
        .expect("run");
    connection
        .execute(
            "INSERT INTO steps (run_id, idx, kind, name, duration_ms, is_error, arguments, content, \
             content_bytes, artifact_count, artifact_types, artifacts, finished_at) VALUES \
             ('imported-1', 0, 'tool', 'imported', 3.0, 0, '{}', 'wire', 4, 4, '[]', ?1, \
             '2026-01-01T00:00:00.000Z')",
            [odd.to_string()],
        )
        .expect("step");

    let browser = Browser::start(&chromium, &driver).await;
    browser
        .goto(&format!("{}/runs?run=imported-1", playground.url))
        .await;
    common::run_loaded(&browser).await;
    browser.click("[data-testid=tab-artifacts]").await;
    let shown = browser.execute(READ_STEP, json!([])).await;
    assert_eq!(
        shown["tabs"],
        json!(["Arguments", "Result", "Artifacts (4)"])
    );
    assert_eq!(shown["kinds"], json!(["json", "json", "json", "json"]));
    let expected: Vec<String> = odd
        .as_array()
        .expect("list")
        .iter()
        .map(|artifact| serde_json::to_string_pretty(artifact).expect("pretty"))
        .collect();
    assert_eq!(shown["json"], json!(expected));
    assert_eq!(
        shown["labels"],
        json!(["<b>chart</b>", "ragged", "not text", "(no label)"])
    );
    let pwned = browser
        .execute("return typeof window.__pwned;", json!([]))
        .await;
    assert_eq!(pwned, json!("undefined"));
    browser
        .screenshot("runs-unknown-artifact-fallback.png")
        .await;
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deep_link_selects_runs_and_opens_a_tab() {
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let playground = start_playground().await;
    let browser = Browser::start(&chromium, &driver).await;
    let arguments = r#"{"sql": "SELECT id, sku FROM products ORDER BY id LIMIT 2"}"#;
    let encoded: String = arguments
        .bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() {
                char::from(byte).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect();
    browser
        .goto(&format!(
            "{}/?tool=query_sql&args={encoded}&run=1&tab=artifacts",
            playground.url
        ))
        .await;
    browser
        .wait_for(
            "the step",
            "return document.getElementById('status').textContent === 'done';",
            json!([]),
        )
        .await;
    let shown = browser.execute(READ_STEP, json!([])).await;
    let open = browser
        .execute(
            "return document.querySelector('[data-testid=panel-artifacts]').hidden;",
            json!([]),
        )
        .await;
    assert_eq!(open, json!(false));
    assert_eq!(
        shown["arguments"],
        json!("{\n  \"sql\": \"SELECT id, sku FROM products ORDER BY id LIMIT 2\"\n}")
    );
    assert_eq!(
        shown["tables"],
        json!([{"columns": ["id", "sku"], "rows": [["1", "KB-001"], ["2", "MS-002"]]}])
    );
    browser.screenshot("inspector-deep-link.png").await;
    assert_eq!(browser.console().await, Vec::<Value>::new());
    browser.quit().await;
}

/// `playground serve` asking a live model on `wire` at `base_url`, its audit copy at `audit`
/// (privacy `full`): the child, and its address.
fn serve_live(
    data: &std::path::Path,
    audit: &std::path::Path,
    wire: &str,
    base_url: &str,
) -> (std::process::Child, String) {
    use std::io::BufRead as _;
    let port = common::free_port();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_playground"))
        .args(["serve", "--port", &port.to_string(), "--privacy", "full"])
        .arg("--audit")
        .arg(audit)
        .args([
            "--provider",
            wire,
            "--base-url",
            base_url,
            "--model",
            "test-model",
        ])
        .env("XDG_DATA_HOME", data)
        .env("ANTHROPIC_API_KEY", "test-key-anthropic")
        .env("GEMINI_API_KEY", "test-key-gemini")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .expect("serves");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("the first line");
    assert!(first.starts_with("Tool Playground: open "), "{first}");
    // Read on, so that the server's later lines do not meet a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    (child, format!("http://127.0.0.1:{port}"))
}

/// The page's live loop on each wire, from a local server that streams the wire's events 64
/// bytes at a time, 10 ms apart: the model's text grows in its step while the step is
/// still pending, the call shows as it is assembled, and the run ends as a run of whole
/// answers does (the stream switch off), step for step in the audit copy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_loop_streams_the_models_text_into_its_step_on_every_wire() {
    use toolkit_testing::streams::{Call, Turn, Wire};
    let Some((chromium, driver)) = browser() else {
        return;
    };
    let browser = Browser::start(&chromium, &driver).await;
    let first = Turn::calls(
        "I will list the tables of the sample shop first, then count what each holds — ✓.",
        vec![Call::new("call_1", "list_tables", &json!({}))],
    );
    let second = Turn::text("The shop has 3 tables: customers, orders and products.");
    for (wire, name) in [
        (Wire::OpenAiChat, "openai-chat"),
        (Wire::OpenAiResponses, "openai-responses"),
        (Wire::Anthropic, "anthropic"),
        (Wire::Gemini, "gemini"),
    ] {
        live_loop_on(&browser, wire, name, &first, &second).await;
    }
    browser.quit().await;
}

/// A step as the audit copy keeps it: kind, tool, content, arguments.
type KeptStep = (String, Option<String>, Option<String>, Option<String>);

/// The steps of the two runs the audit copy at `audit` keeps, the later run's first.
fn kept_runs(audit: &std::path::Path) -> [Vec<KeptStep>; 2] {
    use toolkit_audit::{Privacy, SqliteAudit};
    let kept = SqliteAudit::open(audit, Privacy::Full).expect("the audit copy");
    let runs = kept.runs(10).expect("runs");
    assert_eq!(runs.len(), 2);
    [0, 1].map(|at| {
        let (_, steps) = kept.run(&runs[at].run_id).expect("read").expect("kept");
        steps
            .into_iter()
            .map(|step| (step.kind, step.name, step.content, step.arguments))
            .collect()
    })
}

/// The page's live loop on `wire` (`name` to `--provider`), streamed and then whole, the model
/// answering `first` then `second`.
async fn live_loop_on(
    browser: &Browser,
    wire: toolkit_testing::streams::Wire,
    name: &str,
    first: &toolkit_testing::streams::Turn,
    second: &toolkit_testing::streams::Turn,
) {
    use std::time::Duration;
    use toolkit_testing::http::{Reply, Server};
    use toolkit_testing::streams::Wire;
    let pause = Duration::from_millis(10);
    let server = Server::start_replies(vec![
        Reply::paced(&first.streamed(wire, 2), 64, pause),
        Reply::stream(&second.streamed(wire, 2), 64),
        Reply::Json((200, Vec::new(), first.whole(wire))),
        Reply::Json((200, Vec::new(), second.whole(wire))),
    ])
    .await;
    let base_url = match wire {
        Wire::OpenAiChat | Wire::OpenAiResponses => format!("{}/v1", server.url),
        _ => server.url.clone(),
    };
    let data = tempfile::tempdir().expect("temp dir");
    let audit = data.path().join("audit.sqlite3");
    let (mut child, url) = serve_live(data.path(), &audit, name, &base_url);
    browser.open(&format!("{url}/")).await;
    browser.click("#live-mode").await;
    // Everything the pending step shows while the answer streams, as it changes.
    browser
        .execute(
            "window.__seen = { texts: [], calls: [] };
             new MutationObserver(() => {
               const text = document.querySelector('li.step.pending [data-testid=streaming-text]');
               if (text) window.__seen.texts.push(text.textContent);
               for (const call of document.querySelectorAll('li.step.pending [data-testid=streaming-call]')) {
                 window.__seen.calls.push(call.textContent);
               }
             }).observe(document.getElementById('steps'), { childList: true, subtree: true, characterData: true });",
            json!([]),
        )
        .await;
    browser.click("[data-testid=run-loop]").await;
    // Mid-answer: the pending step shows part of the text, not yet all of it.
    let partial = browser
        .wait_for(
            "the first answer half streamed",
            "const text = document.querySelector('li.step.pending [data-testid=streaming-text]');
             return text && text.textContent.length > 20 && text.textContent.length < 60
                 ? text.textContent : null;",
            json!([]),
        )
        .await;
    let partial = partial.as_str().expect("text").to_owned();
    assert!(first.text.starts_with(&partial), "{name}: {partial:?}");
    if wire == Wire::OpenAiChat {
        browser.screenshot("inspector-streaming-step.png").await;
    }
    browser
        .wait_for(
            "the loop to finish",
            "return document.getElementById('status').dataset.done === 'true';",
            json!([]),
        )
        .await;
    assert_eq!(
        browser.text("#status").await,
        json!("done: answered"),
        "{name}"
    );
    let answer = browser
        .execute(
            "const llm = document.querySelectorAll('#steps > li[data-kind=llm]');
             return llm[llm.length - 1].textContent;",
            json!([]),
        )
        .await;
    assert!(
        answer.as_str().expect("text").contains(&second.text),
        "{name}: {answer}"
    );
    // The same loop with the switch off: whole answers, the same steps kept.
    browser.click("[data-testid=stream-answers]").await;
    browser.click("[data-testid=run-loop]").await;
    browser
        .wait_for(
            "the whole loop to finish",
            "return document.getElementById('status').dataset.done === 'true';",
            json!([]),
        )
        .await;
    assert_eq!(
        browser.text("#status").await,
        json!("done: answered"),
        "{name}"
    );
    let _ = child.kill();
    let _ = child.wait();
    let [streamed, whole] = kept_runs(&audit);
    assert_eq!(streamed, whole, "{name}");
    assert_eq!(streamed.len(), 4, "{name}");
    let lines: Vec<String> = server
        .requests()
        .iter()
        .map(|request| request.head.lines().next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(lines.len(), 4, "{name}");
    assert_eq!(browser.console().await, Vec::<Value>::new());
}

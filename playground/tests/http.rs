//! The server over HTTP: the strict CSP on every response, the embedded assets, the API.

mod common;

use serde_json::{Value, json};
use toolkit_builtins as _;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_response_carries_the_strict_csp() {
    let playground = common::start_playground().await;
    let client = playground.client();
    let gets = [
        "/",
        "/runs",
        "/app.js",
        "/style.css",
        "/favicon.svg",
        "/api/tools",
        "/api/config",
        "/api/runs",
        "/api/runs/none",
        "/missing",
    ];
    for path in gets {
        let response = client
            .get(format!("{}{path}", playground.url))
            .send()
            .await
            .expect("answer");
        let csp = response
            .headers()
            .get("content-security-policy")
            .map(|value| value.to_str().unwrap_or_default().to_owned());
        assert_eq!(
            csp.as_deref(),
            Some(playground::server::CONTENT_SECURITY_POLICY),
            "{path}"
        );
        assert_eq!(
            response
                .headers()
                .get("x-content-type-options")
                .map(reqwest::header::HeaderValue::as_bytes),
            Some(&b"nosniff"[..]),
            "{path}"
        );
    }
    let bad = client
        .post(format!("{}/api/invoke", playground.url))
        .header("content-type", "application/json")
        .body("{nope")
        .send()
        .await
        .expect("answer");
    assert_eq!(bad.status(), 400);
    assert!(bad.headers().contains_key("content-security-policy"));
    // A body that does not say it is JSON is refused too (a form post from another page is not).
    let plain = client
        .post(format!("{}/api/invoke", playground.url))
        .header("content-type", "text/plain")
        .body(r#"{"name": "uuid"}"#)
        .send()
        .await
        .expect("answer");
    assert_eq!(plain.status(), 403);
    assert_eq!(
        plain.json::<Value>().await.expect("json"),
        json!({"error": "refused: a request that changes something must be application/json"})
    );
    assert!(
        playground::server::CONTENT_SECURITY_POLICY
            .starts_with("default-src 'self'; script-src 'self';")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_has_no_inline_script_and_never_parses_markup() {
    let html = include_str!("../assets/index.html");
    let runs = include_str!("../assets/runs.html");
    let script = include_str!("../assets/app.js");
    for page in [html, runs] {
        assert_eq!(page.matches("<script").count(), 1);
        assert!(page.contains("<script src=\"/app.js\" defer></script>"));
        let handler = page.split(" on").skip(1).find(|rest| {
            let name_len = rest.bytes().take_while(u8::is_ascii_lowercase).count();
            name_len > 0 && rest.as_bytes().get(name_len) == Some(&b'=')
        });
        assert_eq!(handler, None, "no inline handlers");
    }
    for forbidden in [
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
        "new Function",
        "setTimeout('",
    ] {
        assert!(!script.contains(forbidden), "{forbidden}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripted_loop_streams_ndjson_events() {
    let playground = common::start_playground().await;
    let client = playground.client();
    let script = r#"{"turns": [{"tool_calls": [{"name": "text_stats", "arguments": {"text": "a b"}}]}, {"content": "two words"}]}"#;
    let body = client
        .post(format!("{}/api/run", playground.url))
        .json(&json!({"mode": "scripted", "script": script, "question": "count"}))
        .send()
        .await
        .expect("answer")
        .text()
        .await
        .expect("body");
    let events: Vec<Value> = body
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON per line"))
        .collect();
    let names: Vec<&str> = events
        .iter()
        .map(|event| event["event"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        names,
        [
            "run_started",
            "step_started",
            "step_finished",
            "step_started",
            "step_finished",
            "step_started",
            "tool_invoked",
            "step_started",
            "step_finished",
            "done"
        ]
    );
    assert_eq!(
        events[6]["invocation"]["content"],
        json!("lines: 1, words: 2, characters: 3, bytes: 3, blank lines: 0")
    );
    assert_eq!(events[9]["content"], json!("two words"));
    let bad = client
        .post(format!("{}/api/run", playground.url))
        .json(&json!({"mode": "scripted", "script": "{}"}))
        .send()
        .await
        .expect("answer");
    assert_eq!(bad.status(), 400);
    let live = client
        .post(format!("{}/api/run", playground.url))
        .json(&json!({"mode": "live"}))
        .send()
        .await
        .expect("answer");
    assert_eq!(
        live.json::<Value>().await.expect("json"),
        json!({"error": "no live model: start the playground with --base-url URL [--model NAME]"})
    );
}

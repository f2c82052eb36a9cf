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
        "/artifacts.js",
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

/// The step the page renders for one call, from a playground keeping an audit copy or not.
async fn invoked(playground: &common::Playground) -> Value {
    let response = playground
        .client()
        .post(format!("{}/api/invoke", playground.url))
        .json(&json!({"name": "text_stats", "arguments": r#"{"text": "one two"}"#}))
        .send()
        .await
        .expect("answer");
    assert_eq!(response.status(), 200);
    response.json().await.expect("json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_is_answered_alike_whether_an_audit_copy_records_it_or_not() {
    let audited = common::start_playground().await;
    let unaudited = common::start_playground_unaudited().await;
    let mut recorded = invoked(&audited).await;
    let mut unrecorded = invoked(&unaudited).await;
    assert_eq!(audited.audit.runs(5).expect("runs").len(), 1);
    assert_eq!(unaudited.audit.runs(5).expect("runs").len(), 0);
    // Both timed (by the recorder, or by the handler when nothing records).
    for reply in [&mut recorded, &mut unrecorded] {
        let duration = reply["invocation"]
            .as_object_mut()
            .expect("an invocation")
            .remove("duration")
            .expect("a duration");
        assert!(duration.as_f64().is_some_and(|ms| ms >= 0.0), "{duration}");
    }
    assert_eq!(recorded, unrecorded);
    assert_eq!(recorded["index"], 0);
    assert_eq!(recorded["invocation"]["call_id"], "call_1");
    assert_eq!(recorded["invocation"]["name"], "text_stats");
    assert_eq!(recorded["invocation"]["is_error"], false);
    assert_eq!(
        recorded["invocation"]["artifacts"][0]["type"], "table",
        "{recorded}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_has_no_inline_script_and_never_parses_markup() {
    let html = include_str!("../assets/index.html");
    let runs = include_str!("../assets/runs.html");
    let scripts = [
        include_str!("../assets/app.js"),
        toolkit_mcp::views::RENDERER_JS,
    ];
    for page in [html, runs] {
        assert_eq!(page.matches("<script").count(), 2);
        assert!(page.contains(
            "<script src=\"/artifacts.js\" defer></script>\n<script src=\"/app.js\" defer></script>"
        ));
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
        for script in scripts {
            assert!(!script.contains(forbidden), "{forbidden}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripted_loop_streams_ndjson_events() {
    let playground = common::start_playground().await;
    let client = playground.client();
    let script = r#"{"turns": [{"tool_calls": [{"name": "text_stats", "arguments": {"text": "a b"}}]}, {"content": "two words"}]}"#;
    let run = |stream: bool| {
        let client = &client;
        let url = format!("{}/api/run", playground.url);
        async move {
            let body = client
                .post(url)
                .json(&json!({"mode": "scripted", "script": script, "question": "count", "stream": stream}))
                .send()
                .await
                .expect("answer")
                .text()
                .await
                .expect("body");
            body.lines()
                .map(|line| serde_json::from_str(line).expect("one JSON per line"))
                .collect::<Vec<Value>>()
        }
    };
    let names = |events: &[Value]| -> Vec<String> {
        events
            .iter()
            .map(|event| event["event"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    // Streamed (the default): each model step's answer as it came, before the step.
    let events = run(true).await;
    assert_eq!(
        names(&events),
        [
            "run_started",
            "step_started",
            "step_finished",
            "step_started",
            // The call started, its arguments, the usage, why the turn stopped.
            "model_delta",
            "model_delta",
            "model_delta",
            "model_delta",
            "step_finished",
            "step_started",
            "tool_invoked",
            "step_started",
            "model_delta",
            "model_delta",
            "model_delta",
            "step_finished",
            "done"
        ]
    );
    for (at, delta) in [
        (
            4,
            json!({"type": "call_started", "index": 0, "id": "call_0_0", "name": "text_stats"}),
        ),
        (7, json!({"type": "stop", "reason": "tool_calls"})),
        (12, json!({"type": "text", "text": "two words"})),
        (14, json!({"type": "stop", "reason": "finished"})),
    ] {
        assert_eq!(events[at]["delta"], delta);
    }
    assert_eq!(
        events[10]["invocation"]["content"],
        json!("lines: 1, words: 2, characters: 3, bytes: 3, blank lines: 0")
    );
    assert_eq!(events[16]["content"], json!("two words"));
    // Whole answers: no delta.
    let events = run(false).await;
    assert_eq!(
        names(&events),
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
        json!({"error": "no live model: start the playground with --provider NAME or --base-url URL [--model NAME]"})
    );
}

/// The lines of an NDJSON answer.
async fn events(response: reqwest::Response) -> Vec<Value> {
    response
        .text()
        .await
        .expect("body")
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON per line"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_token_sent_again_tampered_or_with_forged_decisions_runs_nothing_more() {
    let playground = common::start_playground_with(true, toolkit_audit::Privacy::Full).await;
    let client = playground.client();
    let script = r#"{"turns": [
        {"tool_calls": [{"id": "w1", "name": "append_file", "arguments": {"path": "notes/once.txt", "content": "x"}}]},
        {"content": "appended"}
    ]}"#;
    let post = |path: &'static str, body: Value| {
        client
            .post(format!("{}{path}", playground.url))
            .json(&body)
            .send()
    };
    let started = events(
        post("/api/run", json!({"script": script}))
            .await
            .expect("run"),
    )
    .await;
    let suspended = started
        .iter()
        .find(|event| event["event"] == "suspended")
        .expect("a suspension notice");
    assert_eq!(suspended["pending"][0]["id"], "w1");
    let token = suspended["token"].as_str().expect("a token").to_owned();
    let resume = |token: String, decisions: Value| {
        post(
            "/api/resume",
            json!({"token": token, "decisions": decisions, "script": script}),
        )
    };
    let file = playground.folder.path().join("workspace/notes/once.txt");

    // Tampered (one character of the payload changed): refused before anything runs.
    let mut tampered: Vec<char> = token.chars().collect();
    tampered[10] = if tampered[10] == 'A' { 'B' } else { 'A' };
    let refused = resume(
        tampered.into_iter().collect(),
        json!([{"call_id": "w1", "choice": "approve"}]),
    )
    .await
    .expect("answer");
    assert_eq!(refused.status(), 400);
    assert_eq!(
        refused.json::<Value>().await.expect("json"),
        json!({"error": "the token's seal does not verify: it was altered or sealed by another service"})
    );
    // A decision on a call that is not pending: refused, the token not spent.
    let forged = events(
        resume(
            token.clone(),
            json!([{"call_id": "w2", "choice": "approve"}]),
        )
        .await
        .expect("answer"),
    )
    .await;
    assert_eq!(
        forged[0],
        json!({"event": "error", "message": "no pending call has the id \"w2\""})
    );
    assert!(!file.exists());
    // An abort with decisions: refused before anything runs.
    let body = json!({"token": token, "decisions": [{"call_id": "w1", "choice": "approve"}], "abort": true});
    let refused = post("/api/resume", body).await.expect("answer");
    assert_eq!(refused.status(), 400);
    assert_eq!(
        refused.json::<Value>().await.expect("json"),
        json!({"error": "an abort takes no decisions: nothing pending runs"})
    );
    assert!(!file.exists());

    let resumed = events(
        resume(
            token.clone(),
            json!([{"call_id": "w1", "choice": "approve"}]),
        )
        .await
        .expect("answer"),
    )
    .await;
    assert_eq!(resumed.last().expect("events")["termination"], "answered");
    // Sent again, as a replayed request would be: already used, and the file has one line.
    let replayed = events(
        resume(token, json!([{"call_id": "w1", "choice": "approve"}]))
            .await
            .expect("answer"),
    )
    .await;
    assert_eq!(
        replayed,
        [
            json!({"event": "error", "message": "the token was already used: a suspended run resumes once"}),
            json!({"event": "not_started"}),
        ]
    );
    assert_eq!(std::fs::read_to_string(&file).expect("appended"), "x");
}

/// A script whose model appends `x` to `notes/NAME`, and the token of its run, suspended on
/// that call.
async fn suspended_append(playground: &common::Playground, name: &str) -> (String, String) {
    let script = json!({"turns": [
        {"tool_calls": [{"id": "w1", "name": "append_file", "arguments": {"path": format!("notes/{name}"), "content": "x"}}]},
        {"content": "appended"}
    ]})
    .to_string();
    let started = events(
        post(playground, "/api/run", json!({"script": script}))
            .await
            .expect("run"),
    )
    .await;
    let token = started
        .iter()
        .find(|event| event["event"] == "suspended")
        .and_then(|event| event["token"].as_str())
        .expect("a token")
        .to_owned();
    (script, token)
}

/// The events of the run of `token` resumed with an approval of its call `w1`.
async fn approve_w1(playground: &common::Playground, script: &str, token: &str) -> Vec<Value> {
    let body = json!({"token": token, "decisions": [{"call_id": "w1", "choice": "approve"}], "script": script});
    events(post(playground, "/api/resume", body).await.expect("answer")).await
}

/// `body` posted to the playground's `path`.
async fn post(
    playground: &common::Playground,
    path: &str,
    body: Value,
) -> reqwest::Result<reqwest::Response> {
    playground
        .client()
        .post(format!("{}{path}", playground.url))
        .json(&body)
        .send()
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abort_ends_the_run_and_spends_the_token() {
    let playground = common::start_playground_with(true, toolkit_audit::Privacy::Full).await;
    let (script, token) = suspended_append(&playground, "never.txt").await;
    let post = |path: &'static str, body: Value| post(&playground, path, body);
    let aborted = events(
        post(
            "/api/resume",
            json!({"token": token, "abort": true, "script": script}),
        )
        .await
        .expect("answer"),
    )
    .await;
    let resumed = aborted
        .iter()
        .find(|event| event["event"] == "step_finished")
        .expect("the resumed step");
    assert_eq!(
        resumed["step"],
        json!({"kind": "resumed", "decisions": [
            {"call_id": "w1", "tool": "append_file", "by": "operator", "decision": "aborted"}
        ]})
    );
    assert_eq!(aborted.last().expect("events")["termination"], "aborted");
    let again = approve_w1(&playground, &script, &token).await;
    assert_eq!(
        again[0],
        json!({"event": "error", "message": "the token was already used: a suspended run resumes once"})
    );
    assert!(
        !playground
            .folder
            .path()
            .join("workspace/notes/never.txt")
            .exists()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decision_spelt_otherwise_than_documented_decides_nothing_and_says_why() {
    let playground = common::start_playground_with(true, toolkit_audit::Privacy::Full).await;
    let (script, token) = suspended_append(&playground, "spelt.txt").await;
    let post = |path: &'static str, body: Value| post(&playground, path, body);
    let file = playground.folder.path().join("workspace/notes/spelt.txt");
    // No choice, a choice by number or in another case, an unknown field: refused before
    // anything runs, each with its exact error, the token left unspent.
    let decided = |decision: Value| json!({"token": token, "decisions": [decision]});
    let cases = [
        (
            decided(json!({"call_id": "w1", "approved": true})),
            "invalid request: Failed to deserialize the JSON body into the target type: \
             decisions[0].approved: unknown field `approved`, expected one of `call_id`, \
             `choice`, `reason`, `arguments`, `answers` at line 1 column 25",
        ),
        (
            decided(json!({"call_id": "w1"})),
            "invalid request: Failed to deserialize the JSON body into the target type: \
             decisions[0]: missing field `choice` at line 1 column 30",
        ),
        (
            decided(json!({"call_id": "w1", "choice": 1})),
            "invalid request: Failed to deserialize the JSON body into the target type: \
             decisions[0].choice: invalid type: integer `1`, expected a string at line 1 column \
             40",
        ),
        (
            decided(json!({"call_id": "w1", "choice": "Approve"})),
            "invalid request: Failed to deserialize the JSON body into the target type: \
             decisions[0]: unknown choice `Approve`, expected one of `approve`, \
             `approve_for_run`, `deny`, `edit`, `answer` at line 1 column 50",
        ),
    ];
    for (body, error) in cases {
        let refused = post("/api/resume", body.clone()).await.expect("answer");
        assert_eq!(refused.status(), 400, "{body}");
        assert_eq!(
            refused.json::<Value>().await.expect("json"),
            json!({"error": error}),
            "{body}"
        );
    }
    assert!(!file.exists());
    let resumed = approve_w1(&playground, &script, &token).await;
    assert_eq!(resumed.last().expect("events")["termination"], "answered");
    assert_eq!(std::fs::read_to_string(&file).expect("appended"), "x");
}

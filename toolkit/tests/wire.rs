//! The wire test: real HTTP to a local server that speaks each provider's format and records
//! every request byte. Artifacts hold canary strings; no canary byte may reach the wire.

use std::time::Duration;

use proptest::prelude::*;
use serde_json::{Value, json};
use toolkit::provider::{
    AnthropicProvider, GeminiProvider, HttpOptions, OpenAiProvider, OpenAiResponsesProvider,
    Provider,
};
use toolkit::recording::Subscription;
use toolkit::talk::{CallReport, LogLevel};
use toolkit::{
    RunEvent, RunOptions, RunRequest, Table, ToolArtifact, ToolContext, ToolLoopService,
    ToolRegistry, ToolResult, recording::Termination, tool,
};
use toolkit_testing::http::{Reply, Server};
use toolkit_testing::streams::{Call, Turn, Wire};

const KEY_VARIABLE: &str = "TOOLKIT_TEST_PROVIDER_KEY";

/// Canaries in every place an artifact has text: labels, columns, cells, texts; ASCII and not.
const CANARIES: [&str; 6] = [
    "CANARY-LABEL-7f3a",
    "CANARY-COLUMN-91bc",
    "CANARY-CELL-e4d2",
    "CANARY-TEXT-55aa",
    "КАНАРЕЙКА-ячейка-ß∂ƒ",
    "カナリア-テキスト-🐤",
];

/// The canary hidden in a media artifact's bytes: on a wire it would be the base64 of
/// [`canary_png`], which must never appear.
const MEDIA_CANARY: &str = "CANARY-MEDIA-3b9e";

fn canary_png() -> Vec<u8> {
    toolkit_testing::media::png_with(MEDIA_CANARY)
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Returns a count and a picture for the model, and canaries for people (a picture too).
#[tool]
fn canary_table(
    /// Rows in the artifact.
    rows: usize,
) -> ToolResult {
    let table = Table::from_rows(
        ["id", CANARIES[1], "КАНАРЕЙКА-ячейка-ß∂ƒ"],
        (0..rows).map(|row| {
            [
                row.to_string(),
                CANARIES[2].to_owned(),
                CANARIES[4].to_owned(),
            ]
        }),
    )
    .unwrap();
    ToolResult::text_with(
        format!("table of {rows} rows ready"),
        [
            ToolArtifact::table(CANARIES[0], table),
            ToolArtifact::media("picture", "image/png", canary_png()),
        ],
    )
    .with_media(toolkit::result::Media::png(toolkit_testing::media::PNG))
}

/// Canaries a running tool reports (progress, a log line): for people watching, never the model.
const REPORTED: [&str; 2] = ["CANARY-PROGRESS-0c1d", "CANARY-LOG-カナリア-77e0"];

/// Returns a note for the model, and canary text for people.
#[tool]
fn canary_text(
    /// Bytes of artifact text.
    bytes: usize,
    context: &ToolContext,
) -> ToolResult {
    context.progress(1, Some(1), REPORTED[0]);
    context.log(LogLevel::Warning, REPORTED[1]);
    let text = format!("{} {} ", CANARIES[3], CANARIES[5]).repeat(bytes / 40 + 1);
    ToolResult::text_with(
        format!("note of {bytes} bytes written"),
        [ToolArtifact::text(format!("{} label", CANARIES[5]), text)],
    )
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

#[test]
fn http_options_are_the_defaults_with_what_each_builder_changes() {
    let fields = |options: &HttpOptions| {
        (
            options.timeout,
            options.max_retries,
            options.initial_backoff,
            options.max_backoff,
            options.max_response_bytes,
        )
    };
    assert_eq!(
        fields(&HttpOptions::default()),
        (
            Duration::from_mins(2),
            3,
            Duration::from_millis(500),
            Duration::from_secs(30),
            16 * 1024 * 1024
        )
    );
    let options = HttpOptions::default()
        .with_timeout(Duration::from_secs(7))
        .with_max_retries(1)
        .with_initial_backoff(Duration::from_millis(20))
        .with_max_backoff(Duration::from_secs(2))
        .with_max_response_bytes(1024);
    assert_eq!(
        fields(&options),
        (
            Duration::from_secs(7),
            1,
            Duration::from_millis(20),
            Duration::from_secs(2),
            1024
        )
    );
}

fn options() -> HttpOptions {
    HttpOptions::default()
        .with_timeout(Duration::from_secs(10))
        .with_initial_backoff(Duration::from_millis(10))
}

fn openai_turn(
    calls: &[(&str, &str, Value)],
    content: Option<&str>,
) -> (u16, Vec<(&'static str, String)>, Value) {
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}})
        })
        .collect();
    let mut message = json!({"role": "assistant", "content": content});
    if !tool_calls.is_empty() {
        message["tool_calls"] = Value::Array(tool_calls);
    }
    (
        200,
        Vec::new(),
        json!({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 11, "completion_tokens": 7}}),
    )
}

fn anthropic_turn(
    calls: &[(&str, &str, Value)],
    content: Option<&str>,
) -> (u16, Vec<(&'static str, String)>, Value) {
    let mut blocks: Vec<Value> = content
        .map(|text| json!({"type": "text", "text": text}))
        .into_iter()
        .collect();
    for (id, name, input) in calls {
        blocks.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
    }
    (
        200,
        Vec::new(),
        json!({"content": blocks, "stop_reason": "end_turn", "usage": {"input_tokens": 13, "output_tokens": 5}}),
    )
}

/// A wire, and whether its answers stream.
#[derive(Clone, Copy, Debug)]
struct Adapter {
    wire: Wire,
    streamed: bool,
}

impl Adapter {
    /// Every wire, whole and streamed.
    fn all() -> impl Iterator<Item = Adapter> {
        Wire::ALL.into_iter().flat_map(|wire| {
            [false, true]
                .into_iter()
                .map(move |streamed| Adapter { wire, streamed })
        })
    }

    const OPENAI: Adapter = Adapter {
        wire: Wire::OpenAiChat,
        streamed: false,
    };
    const ANTHROPIC: Adapter = Adapter {
        wire: Wire::Anthropic,
        streamed: false,
    };
}

fn provider(adapter: Adapter, url: &str) -> Box<dyn Provider> {
    match adapter.wire {
        Wire::OpenAiChat => Box::new(
            OpenAiProvider::from_env_var(
                KEY_VARIABLE,
                &format!("{url}/v1"),
                "test-model",
                options(),
            )
            .unwrap(),
        ),
        Wire::OpenAiResponses => Box::new(
            OpenAiResponsesProvider::from_env_var(
                KEY_VARIABLE,
                &format!("{url}/v1"),
                "test-model",
                options(),
            )
            .unwrap(),
        ),
        Wire::Anthropic => Box::new(
            AnthropicProvider::from_env_var(KEY_VARIABLE, url, "test-model", options()).unwrap(),
        ),
        Wire::Gemini => Box::new(
            GeminiProvider::from_env_var(KEY_VARIABLE, url, "test-model", options()).unwrap(),
        ),
    }
}

/// The server's answer of `turn` on the adapter's wire: whole JSON, or its events cut into
/// pieces of 7 bytes.
fn reply(adapter: Adapter, turn: &Turn) -> Reply {
    if adapter.streamed {
        Reply::stream(&turn.streamed(adapter.wire, 3), 7)
    } else {
        Reply::Json((200, Vec::new(), turn.whole(adapter.wire)))
    }
}

fn turn(calls: &[(&str, &str, Value)], content: Option<&str>) -> Turn {
    Turn::calls(
        content.unwrap_or_default(),
        calls
            .iter()
            .map(|(id, name, arguments)| Call::new(id, name, arguments))
            .collect(),
    )
}

/// Runs the calls over real HTTP and checks every recorded byte.
async fn run_and_check(adapter: Adapter, calls: Vec<(String, &'static str, Value)>) {
    let borrowed: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(id, name, args)| (id.as_str(), *name, args.clone()))
        .collect();
    let server = Server::start_replies(vec![
        reply(adapter, &turn(&borrowed, None)),
        reply(adapter, &Turn::text("all done")),
    ])
    .await;
    let provider = provider(adapter, &server.url);
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let mut events = service.subscribe();
    let result = service
        .run(
            provider.as_ref(),
            RunRequest::new("make artifacts")
                .with_tools(["canary_table", "canary_text"])
                .with_options(RunOptions::default().with_streaming(adapter.streamed)),
        )
        .await
        .unwrap();
    assert_eq!(
        result.termination,
        Termination::Answered,
        "{}",
        result.content
    );
    assert_eq!(result.content, "all done");

    let wire = server.all_bytes();
    assert_eq!(server.requests().len(), 2);
    // Each tool's content is on the wire, as the provider's JSON carries it (a wire may add
    // lines about the media after it, so its closing quote is not looked for).
    for invocation in result.trace.invocations() {
        let encoded = serde_json::to_string(invocation.content()).unwrap();
        let opened = encoded.strip_suffix('"').expect("a JSON string");
        assert!(
            contains(&wire, opened.as_bytes()),
            "missing content {encoded}"
        );
    }
    // The picture for the model is on the wire once per request after each call that made it
    // (whole on each: a wire carries it in a JSON string, where base64 needs no escape)...
    let calls_made = calls
        .iter()
        .filter(|(_, name, _)| *name == "canary_table")
        .count();
    let later = &server.requests()[1].body;
    let shown = base64(toolkit_testing::media::PNG);
    assert_eq!(
        String::from_utf8_lossy(later).matches(&shown).count(),
        calls_made,
        "{adapter:?}"
    );
    // ...and the media artifact's bytes are on no wire, in no form.
    let hidden = base64(&canary_png());
    assert!(
        !contains(&wire, hidden.as_bytes()),
        "the media artifact on the wire"
    );
    assert!(!contains(&wire, MEDIA_CANARY.as_bytes()));
    // No canary byte anywhere on the wire, in the messages, or in the final content...
    let messages = serde_json::to_string(&result.messages).unwrap();
    assert!(!messages.contains(&hidden) && !messages.contains(&shown));
    for canary in CANARIES {
        assert!(!contains(&wire, canary.as_bytes()), "{canary} on the wire");
        let escaped = serde_json::to_string(canary).unwrap();
        assert!(
            !contains(&wire, escaped.trim_matches('"').as_bytes()),
            "{canary} escaped on the wire"
        );
        assert!(!messages.contains(canary));
        assert!(!result.content.contains(canary));
    }
    // ...while the trace holds every canary that was produced.
    let trace = serde_json::to_string(&result.trace).unwrap();
    for (_, name, arguments) in &calls {
        let produced: &[&str] = match *name {
            // A table of no rows has no cells to carry the cell canary.
            "canary_table" if arguments["rows"] == 0 => &CANARIES[..2],
            "canary_table" => &CANARIES[..3],
            _ => &CANARIES[3..4],
        };
        for canary in produced {
            assert!(trace.contains(canary), "{canary} missing from the trace");
        }
    }
    reports_reached_subscribers_only(
        &mut events,
        &calls,
        &wire,
        &[&messages, &result.content, &trace],
    );
    // The key went in a header and nowhere else it could be seen.
    let key = std::env::var(KEY_VARIABLE).unwrap();
    let first = &server.requests()[0];
    assert!(first.head.contains(&key));
    assert!(!trace.contains(&key) && !messages.contains(&key));
}

/// What the tools reported while they ran reached the subscriber, once per call that ran the
/// reporting tool, and nothing else: not the wire, nor any of `elsewhere` (the messages, the
/// content, the trace).
fn reports_reached_subscribers_only(
    events: &mut Subscription,
    calls: &[(String, &'static str, Value)],
    wire: &[u8],
    elsewhere: &[&str],
) {
    let mut reported = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let RunEvent::ToolReport {
            call_id, report, ..
        } = &*event
        {
            reported.push((call_id.clone(), report.clone()));
        }
    }
    let texts: Vec<&str> = calls
        .iter()
        .filter(|(_, name, _)| *name == "canary_text")
        .map(|(id, _, _)| id.as_str())
        .collect();
    for id in &texts {
        let of_call: Vec<&CallReport> = reported
            .iter()
            .filter(|(call_id, _)| call_id == id)
            .map(|(_, report)| report)
            .collect();
        let text = serde_json::to_string(&of_call).unwrap();
        assert_eq!(
            text,
            format!(
                r#"[{{"kind":"progress","done":1,"total":1,"message":"{}"}},{{"kind":"log","level":"warning","message":"{}"}}]"#,
                REPORTED[0], REPORTED[1]
            ),
            "the reports of call {id}"
        );
    }
    assert_eq!(reported.len(), 2 * texts.len());
    for canary in REPORTED {
        assert!(!contains(wire, canary.as_bytes()), "{canary} on the wire");
        let escaped = serde_json::to_string(canary).unwrap();
        assert!(!contains(wire, escaped.trim_matches('"').as_bytes()));
        for text in elsewhere {
            assert!(
                !text.contains(canary),
                "{canary} reached a message or the trace"
            );
        }
    }
}

#[tokio::test]
async fn no_artifact_byte_reaches_any_wire_whole_or_streamed() {
    for adapter in Adapter::all() {
        let calls = vec![
            ("c1".to_owned(), "canary_table", json!({"rows": 20})),
            ("c2".to_owned(), "canary_text", json!({"bytes": 500})),
            ("t1".to_owned(), "canary_text", json!({"bytes": 70_000})),
            ("t2".to_owned(), "canary_table", json!({"rows": 5_000})),
        ];
        run_and_check(adapter, calls).await;
    }
}

#[tokio::test]
async fn the_openai_wire_carries_tool_role_messages_with_string_content() {
    let server = Server::start(vec![
        openai_turn(
            &[("call_9", "canary_table", json!({"rows": 1}))],
            Some("checking"),
        ),
        openai_turn(&[], Some("fine")),
    ])
    .await;
    let provider = provider(Adapter::OPENAI, &server.url);
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    service
        .run(
            provider.as_ref(),
            RunRequest::new("go")
                .with_system("sys")
                .with_tools(["canary_table"]),
        )
        .await
        .unwrap();
    let requests = server.requests();
    assert!(
        requests[0]
            .head
            .starts_with("POST /v1/chat/completions HTTP/1.1")
    );
    let second: Value = serde_json::from_slice(&requests[1].body).unwrap();
    assert_eq!(second["model"], "test-model");
    assert_eq!(
        second["messages"],
        json!([
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "checking", "tool_calls": [
                {"id": "call_9", "type": "function", "function": {"name": "canary_table", "arguments": "{\"rows\":1}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_9",
             "content": "table of 1 rows ready\n[media-1.png (image/png, 69 bytes) follows in the next user message]"},
            // The tool's picture for the model follows in a user message; its artifacts (a table
            // and a picture) go nowhere near the wire.
            {"role": "user", "content": [
                {"type": "text", "text": "[media-1.png from the result of call call_9]"},
                {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", base64(toolkit_testing::media::PNG))}},
            ]},
        ])
    );
    // Every request declares the tool exactly as the spec exports it (serialised once, reused).
    let spec = service.registry().get("canary_table").unwrap().spec();
    for request in &requests {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        assert_eq!(
            body["tools"],
            json!([spec.openai().expect("a short description")])
        );
    }
}

#[tokio::test]
async fn the_anthropic_wire_carries_tool_use_and_tool_result_blocks() {
    let server = Server::start(vec![
        anthropic_turn(
            &[
                ("tu_1", "canary_text", json!({"bytes": 10})),
                ("tu_2", "nope", json!({})),
            ],
            None,
        ),
        anthropic_turn(&[], Some("fine")),
    ])
    .await;
    let provider = provider(Adapter::ANTHROPIC, &server.url);
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    service
        .run(
            provider.as_ref(),
            RunRequest::new("go")
                .with_system("sys")
                .with_tools(["canary_text"]),
        )
        .await
        .unwrap();
    let requests = server.requests();
    assert!(requests[0].head.starts_with("POST /v1/messages HTTP/1.1"));
    assert!(
        requests[0]
            .head
            .to_lowercase()
            .contains("anthropic-version: 2023-06-01")
    );
    let second: Value = serde_json::from_slice(&requests[1].body).unwrap();
    assert_eq!(second["system"], "sys");
    assert_eq!(
        second["messages"],
        json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "tu_1", "name": "canary_text", "input": {"bytes": 10}},
                {"type": "tool_use", "id": "tu_2", "name": "nope", "input": {}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "tu_1", "content": "note of 10 bytes written", "is_error": false},
                {"type": "tool_result", "tool_use_id": "tu_2", "content": "Error: unknown tool \"nope\"", "is_error": true}
            ]}
        ])
    );
    let spec = service.registry().get("canary_text").unwrap().spec();
    for request in &requests {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        assert_eq!(body["tools"], json!([spec.anthropic()]));
    }
}

#[tokio::test]
async fn busy_and_failing_servers_are_retried_honouring_retry_after() {
    let server = Server::start(vec![
        (
            429,
            vec![("retry-after", "0".to_owned())],
            json!({"error": "slow down"}),
        ),
        (503, Vec::new(), json!({"error": "busy"})),
        openai_turn(&[], Some("third time")),
    ])
    .await;
    let provider = provider(Adapter::OPENAI, &server.url);
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let result = service
        .run(provider.as_ref(), RunRequest::new("x"))
        .await
        .unwrap();
    assert_eq!(result.content, "third time");
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_retry_after_longer_than_a_duration_holds_waits_max_backoff_and_never_panics() {
    // Past about 1.8e19 seconds a `Duration` cannot hold the wait: a client error carrying it
    // still ends the run with the error, and a busy answer is retried after `max_backoff`.
    let server = Server::start(vec![
        (
            429,
            vec![("retry-after", "1e20".to_owned())],
            json!({"error": "slow down"}),
        ),
        openai_turn(&[], Some("after the wait")),
        (
            400,
            vec![("retry-after", "99999999999999999999".to_owned())],
            json!({"error": "bad request"}),
        ),
    ])
    .await;
    let provider = OpenAiProvider::from_env_var(
        KEY_VARIABLE,
        &format!("{}/v1", server.url),
        "test-model",
        options().with_max_backoff(Duration::from_millis(30)),
    )
    .unwrap();
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let result = service.run(&provider, RunRequest::new("x")).await.unwrap();
    assert_eq!(result.content, "after the wait");
    let result = service.run(&provider, RunRequest::new("x")).await.unwrap();
    assert_eq!(result.termination, Termination::ProviderError);
    assert_eq!(
        result.content,
        "the provider answered HTTP 400: {\"error\":\"bad request\"}"
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_client_error_is_not_retried_and_ends_the_run() {
    let server = Server::start(vec![(401, Vec::new(), json!({"error": "bad key"}))]).await;
    let provider = provider(Adapter::OPENAI, &server.url);
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let result = service
        .run(provider.as_ref(), RunRequest::new("x"))
        .await
        .unwrap();
    assert_eq!(result.termination, Termination::ProviderError);
    assert_eq!(
        result.content,
        "the provider answered HTTP 401: {\"error\":\"bad key\"}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_key_echoed_in_an_error_body_is_masked() {
    let key = std::env::var(KEY_VARIABLE).unwrap();
    let server = Server::start(vec![(
        401,
        Vec::new(),
        json!({"error": format!("invalid key {key}")}),
    )])
    .await;
    let provider = provider(Adapter::ANTHROPIC, &server.url);
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let result = service
        .run(provider.as_ref(), RunRequest::new("x"))
        .await
        .unwrap();
    assert_eq!(
        result.content,
        "the provider answered HTTP 401: {\"error\":\"invalid key [REDACTED]\"}"
    );
    assert!(!serde_json::to_string(&result.trace).unwrap().contains(&key));
}

#[tokio::test]
async fn an_answer_without_choices_ends_the_run_cleanly() {
    let server = Server::start(vec![(200, Vec::new(), json!({"choices": []}))]).await;
    let provider = provider(Adapter::OPENAI, &server.url);
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let result = service
        .run(provider.as_ref(), RunRequest::new("x"))
        .await
        .unwrap();
    assert_eq!(result.termination, Termination::ProviderError);
    assert_eq!(
        result.content,
        "the provider's answer is unusable: the answer has no choices"
    );
    assert_eq!(result.trace.steps().len(), 2);
}

/// A server that answers one request with `body` as it is, bytes that need not be UTF-8.
async fn answering_bytes(body: Vec<u8>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut request = vec![0; 64 * 1024];
        let _ = stream.read(&mut request).await.unwrap();
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(&body).await.unwrap();
    });
    url
}

/// One loop whose OpenAI server answers with `body` as it is.
async fn run_answered_with(body: Vec<u8>) -> toolkit::ToolLoopResult {
    let url = answering_bytes(body).await;
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    service
        .run(
            provider(Adapter::OPENAI, &url).as_ref(),
            RunRequest::new("x"),
        )
        .await
        .unwrap()
}

#[tokio::test]
async fn an_answer_that_is_not_utf8_is_refused_where_it_goes_wrong_and_other_text_reads_whole() {
    let mut body = br#"{"choices": [{"message": {"content": "caf"#.to_vec();
    body.push(0xe9); // Latin-1's é: not UTF-8
    body.extend_from_slice(br#""}}]}"#);
    let refused = run_answered_with(body).await;
    assert_eq!(refused.termination, Termination::ProviderError);
    assert_eq!(
        refused.content,
        "the provider's answer is unusable: the body is not the expected JSON: invalid unicode code point at line 1 column 42"
    );

    let text = r#"{"choices": [{"message": {"content": "café \u00e9 ✓ 𝄞"}}]}"#;
    let read = run_answered_with(text.as_bytes().to_vec()).await;
    assert_eq!(read.termination, Termination::Answered);
    assert_eq!(read.content, "café é ✓ 𝄞");
}

/// Runs one loop whose provider allows answers of at most `cap` bytes.
async fn run_capped(url: &str, cap: usize) -> toolkit::ToolLoopResult {
    let provider = OpenAiProvider::from_env_var(
        KEY_VARIABLE,
        &format!("{url}/v1"),
        "test-model",
        options().with_max_response_bytes(cap).with_max_retries(0),
    )
    .unwrap();
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    service.run(&provider, RunRequest::new("x")).await.unwrap()
}

#[tokio::test]
async fn an_answer_past_the_size_cap_is_refused_whether_its_length_is_declared_or_not() {
    // Declared: the answer's length says it is one byte too many.
    let (status, headers, body) = openai_turn(&[], Some("all done"));
    let length = body.to_string().len();
    let server = Server::start(vec![(status, headers.clone(), body.clone())]).await;
    let refused = run_capped(&server.url, length - 1).await;
    assert_eq!(refused.termination, Termination::ProviderError);
    assert_eq!(
        refused.content,
        format!(
            "the provider's answer is unusable: the answer is larger than {} bytes",
            length - 1
        )
    );
    // Exactly the cap passes.
    let server = Server::start(vec![(status, headers, body)]).await;
    assert_eq!(run_capped(&server.url, length).await.content, "all done");

    // Undeclared: a chunked answer that never ends is cut off once past the cap, and the
    // server sees the client stop reading.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let sent = tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut request = vec![0; 64 * 1024];
        let _ = stream.read(&mut request).await.unwrap();
        stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n")
            .await
            .unwrap();
        let chunk = format!("{:x}\r\n{}\r\n", 64 * 1024, " ".repeat(64 * 1024));
        let mut sent = 0usize;
        while stream.write_all(chunk.as_bytes()).await.is_ok() {
            sent += 64 * 1024;
            assert!(sent < 64 * 1024 * 1024, "the client read on past its cap");
        }
        sent
    });
    let refused = run_capped(&url, 1024 * 1024).await;
    assert_eq!(
        refused.content,
        "the provider's answer is unusable: the answer is larger than 1048576 bytes"
    );
    let sent = sent.await.unwrap();
    assert!(
        sent < 16 * 1024 * 1024,
        "{sent} bytes sent before the client hung up"
    );
}

#[test]
fn a_base_url_that_is_not_an_http_url_is_refused_when_the_provider_is_made() {
    for (base_url, expected) in [
        (
            "localhost:11434/v1",
            "the provider is not configured: the base URL must be http or https, not localhost",
        ),
        (
            "not a url",
            "the provider is not configured: the base URL is not a URL: relative URL without a base",
        ),
        (
            "ftp://example.com/v1",
            "the provider is not configured: the base URL must be http or https, not ftp",
        ),
    ] {
        let error = OpenAiProvider::from_env_var(KEY_VARIABLE, base_url, "m", options())
            .map(|_| ())
            .unwrap_err();
        assert_eq!(error.to_string(), expected, "{base_url}");
        let error = AnthropicProvider::from_env_var(KEY_VARIABLE, base_url, "m", options())
            .map(|_| ())
            .unwrap_err();
        assert_eq!(error.to_string(), expected, "{base_url}");
    }
    // Trailing slashes are dropped before the path is added.
    let provider =
        OpenAiProvider::from_env_var(KEY_VARIABLE, "http://127.0.0.1:9/v1//", "m", options())
            .unwrap();
    assert!(format!("{provider:?}").contains("http://127.0.0.1:9/v1/chat/completions"));
}

fn call_strategy() -> impl Strategy<Value = (&'static str, Value)> {
    prop_oneof![
        (0usize..3000).prop_map(|rows| ("canary_table", json!({"rows": rows}))),
        (0usize..120_000).prop_map(|bytes| ("canary_text", json!({"bytes": bytes}))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn no_canary_reaches_any_wire_whatever_the_calls(
        calls in prop::collection::vec(call_strategy(), 1..5),
        wire in prop::sample::select(Wire::ALL.to_vec()),
        streamed in any::<bool>(),
    ) {
        let adapter = Adapter { wire, streamed };
        let calls: Vec<(String, &'static str, Value)> = calls
            .into_iter()
            .enumerate()
            .map(|(index, (name, args))| (format!("id_{index}"), name, args))
            .collect();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(run_and_check(adapter, calls));
    }
}

/// What the model thought reaches the trace and never a request body, on a wire that shows it
/// and does not take it back (Chat's `reasoning_content`) and on one that takes it back with its
/// turn (Anthropic's signed thinking blocks, sent back exactly, and only to Anthropic).
#[tokio::test]
async fn what_the_model_thought_reaches_the_trace_and_goes_back_only_where_its_wire_asks() {
    const THOUGHT: &str = "THOUGHT-CANARY-3e9a";
    let mut chat_call = openai_turn(&[("c1", "canary_text", json!({"bytes": 10}))], None);
    chat_call.2["choices"][0]["message"]["reasoning_content"] = json!(THOUGHT);
    let chat = Server::start(vec![chat_call, openai_turn(&[], Some("done"))]).await;
    let mut anthropic_call =
        anthropic_turn(&[("toolu_1", "canary_text", json!({"bytes": 10}))], None);
    let blocks = anthropic_call.2["content"].as_array_mut().unwrap();
    blocks.insert(
        0,
        json!({"type": "thinking", "thinking": THOUGHT, "signature": "SIG-5f2"}),
    );
    let anthropic = Server::start(vec![anthropic_call, anthropic_turn(&[], Some("done"))]).await;
    for (adapter, server) in [(Adapter::OPENAI, &chat), (Adapter::ANTHROPIC, &anthropic)] {
        let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
        let result = service
            .run(
                provider(adapter, &server.url).as_ref(),
                RunRequest::new("x"),
            )
            .await
            .unwrap();
        assert_eq!(result.content, "done");
        let trace = serde_json::to_value(&result.trace).unwrap();
        assert_eq!(trace["steps"][1]["thinking"], THOUGHT, "{adapter:?}");
        let second = &server.requests()[1].body;
        // The tool's content and artifacts never carry it either.
        for invocation in result.trace.invocations() {
            assert!(!invocation.content().contains(THOUGHT));
            assert!(
                !serde_json::to_string(invocation.artifacts())
                    .unwrap()
                    .contains(THOUGHT)
            );
        }
        match adapter.wire {
            Wire::Anthropic => {
                let body: Value = serde_json::from_slice(second).unwrap();
                assert_eq!(
                    body["messages"][1]["content"][0],
                    json!({"type": "thinking", "thinking": THOUGHT, "signature": "SIG-5f2"})
                );
            }
            _ => assert!(!contains(second, THOUGHT.as_bytes()), "{adapter:?}"),
        }
    }
}

//! One loop iteration with one tool call: over the scripted path (framework only), and over
//! real HTTP to a local OpenAI-format server, beside the same two POSTs sent raw, so that the
//! framework's own time per tool call is the difference.

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::Duration;

use common::Server;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolkit::provider::{
    HttpOptions, OpenAiProvider, Provider, ProviderError, ProviderFuture, ProviderRequest,
    ProviderResponse,
};
use toolkit::{
    ChatMessage, RunRequest, Termination, ToolCall, ToolLoopService, ToolRegistry, Usage, tool,
};

/// Adds two integers (tiny: on the caller's thread, so the loop's own work is what is timed; a
/// plain `fn` adds a worker thread's hand-off, timed in the seam bench).
#[tool(inline)]
fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

/// Asks for `add` once, then answers: the same two turns as the HTTP server plays.
struct TwoTurns;

impl Provider for TwoTurns {
    fn name(&self) -> &'static str {
        "two-turns"
    }

    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> ProviderFuture<'a> {
        let answered = matches!(request.messages.last(), Some(ChatMessage::ToolResult(_)));
        let response = if answered {
            ProviderResponse::new("5", Vec::new(), Usage::default())
        } else {
            let call = ToolCall::new("call_1", "add", r#"{"a":2,"b":3}"#);
            ProviderResponse::new("", vec![call], Usage::default())
        };
        Box::pin(async move { Ok::<_, ProviderError>(response) })
    }
}

fn answer(body: &[u8]) -> common::Response {
    let text = String::from_utf8_lossy(body);
    let message = if text.contains(r#""role":"tool""#) {
        json!({"role": "assistant", "content": "5"})
    } else {
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{\"a\":2,\"b\":3}"}}
        ]})
    };
    (
        200,
        Vec::new(),
        json!({"choices": [{"message": message}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}),
    )
}

fn one_iteration(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("loop");
    group.measurement_time(Duration::from_secs(5));

    let scripted = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    group.bench_function("scripted_one_tool_call", |b| {
        b.iter(|| {
            let result = runtime
                .block_on(scripted.run(&TwoTurns, RunRequest::new("2+3?").with_tools(["add"])))
                .expect("runs");
            assert_eq!(result.termination, Termination::Answered);
            black_box(result)
        });
    });

    let server = runtime.block_on(Server::start_with(|body| Some(answer(body)), Vec::new()));
    let provider = OpenAiProvider::from_env_var(
        "TOOLKIT_BENCH_NO_KEY",
        &format!("{}/v1", server.url),
        "bench",
        HttpOptions::default(),
    )
    .expect("provider");
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    let check = runtime
        .block_on(service.run(&provider, RunRequest::new("2+3?").with_tools(["add"])))
        .expect("runs");
    assert_eq!(check.content, "5");
    group.bench_function("http_one_tool_call", |b| {
        b.iter(|| {
            black_box(
                runtime
                    .block_on(service.run(&provider, RunRequest::new("2+3?").with_tools(["add"])))
                    .expect("runs"),
            )
        });
    });

    // The same two request bodies, posted without the framework.
    let bodies: Vec<Vec<u8>> = server
        .requests()
        .into_iter()
        .rev()
        .take(2)
        .rev()
        .map(|request| request.body)
        .collect();
    let client = reqwest::Client::new();
    let url = format!("{}/v1/chat/completions", server.url);
    group.bench_function("http_two_raw_posts", |b| {
        b.iter(|| {
            runtime.block_on(async {
                for body in &bodies {
                    let response = client
                        .post(&url)
                        .header("content-type", "application/json")
                        .body(body.clone())
                        .send()
                        .await
                        .expect("sent");
                    black_box(response.bytes().await.expect("body"));
                }
            });
        });
    });
    group.finish();
}

criterion_group!(benches, one_iteration);
criterion_main!(benches);

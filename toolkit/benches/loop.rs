//! One loop iteration with one tool call: over the scripted path (framework only), and over
//! real HTTP to a local OpenAI-format server, beside the same two POSTs sent raw, so that the
//! framework's own time per tool call is the difference. After criterion's group, the HTTP
//! iteration and the raw posts are timed again in paired rounds (see `support/paired.rs`) and
//! their ratio printed with the issue's goal and the load average.

use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use serde_json::json;
use toolkit::provider::{
    HttpOptions, OpenAiProvider, Provider, ProviderError, ProviderFuture, ProviderRequest,
    ProviderResponse,
};
use toolkit::{
    ChatMessage, RunRequest, ToolCall, ToolLoopService, ToolRegistry, provider::Usage,
    recording::Termination, tool,
};
use toolkit_testing::http::Server;
use toolkit_testing::paired::{Paired, load_average, verdict, wanted};

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

fn answer(body: &[u8]) -> toolkit_testing::http::Response {
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

/// One HTTP iteration through the loop, and the same two bodies posted raw, against one local
/// server.
struct Http {
    runtime: tokio::runtime::Runtime,
    service: ToolLoopService,
    provider: OpenAiProvider,
    server: Server,
    client: reqwest::Client,
    url: String,
    bodies: Vec<Vec<u8>>,
}

impl Http {
    fn new(runtime: tokio::runtime::Runtime) -> Self {
        let server = runtime.block_on(Server::start_with(|body| Some(answer(body)), Vec::new()));
        let provider = OpenAiProvider::from_env_var(
            "TOOLKIT_BENCH_NO_KEY",
            &format!("{}/v1", server.url),
            "bench",
            HttpOptions::default(),
        )
        .expect("provider");
        let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
        let mut http = Self {
            runtime,
            service,
            provider,
            url: format!("{}/v1/chat/completions", server.url),
            server,
            client: reqwest::Client::new(),
            bodies: Vec::new(),
        };
        let check = http.iteration();
        assert_eq!(check.content, "5");
        // The same two request bodies, to post without the framework.
        http.bodies = http
            .server
            .requests()
            .into_iter()
            .rev()
            .take(2)
            .rev()
            .map(|request| request.body)
            .collect();
        http
    }

    fn iteration(&self) -> toolkit::ToolLoopResult {
        self.runtime
            .block_on(
                self.service
                    .run(&self.provider, RunRequest::new("2+3?").with_tools(["add"])),
            )
            .expect("runs")
    }

    fn raw_posts(&self) {
        self.runtime.block_on(async {
            for body in &self.bodies {
                let response = self
                    .client
                    .post(&self.url)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await
                    .expect("sent");
                black_box(response.bytes().await.expect("body"));
            }
        });
    }
}

fn one_iteration(c: &mut Criterion, http: &Http) {
    let mut group = c.benchmark_group("loop");
    group.measurement_time(Duration::from_secs(5));

    let scripted = ToolLoopService::new(ToolRegistry::linked().expect("no duplicates"));
    group.bench_function("scripted_one_tool_call", |b| {
        b.iter(|| {
            let result = http
                .runtime
                .block_on(scripted.run(&TwoTurns, RunRequest::new("2+3?").with_tools(["add"])))
                .expect("runs");
            assert_eq!(result.termination, Termination::Answered);
            black_box(result)
        });
    });
    group.bench_function("http_one_tool_call", |b| {
        b.iter(|| black_box(http.iteration()));
    });
    group.bench_function("http_two_raw_posts", |b| b.iter(|| http.raw_posts()));
    group.finish();
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let http = Http::new(runtime);
    let mut criterion = Criterion::default().configure_from_args();
    one_iteration(&mut criterion, &http);
    criterion.final_summary();
    if wanted("http_ratios") {
        let timings = Paired::new()
            .path("http_one_tool_call", || drop(black_box(http.iteration())))
            .path("http_two_raw_posts", || http.raw_posts())
            .run(200);
        let ratio = timings.ratio("http_one_tool_call", "http_two_raw_posts");
        println!(
            "\nloop over HTTP, paired over {} rounds (load average: {})",
            timings.rounds(),
            load_average()
        );
        println!(
            "  http_one_tool_call / http_two_raw_posts: {ratio:.2}  {:.1} us / {:.1} us  (goal <= 1.15: {})",
            timings.median("http_one_tool_call") / 1e3,
            timings.median("http_two_raw_posts") / 1e3,
            verdict(ratio <= 1.15)
        );
    }
}

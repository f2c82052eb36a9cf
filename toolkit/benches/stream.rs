//! Streaming through the loop over real HTTP to a local server writing OpenAI Chat Completions
//! server-sent events, beside the same requests read raw with reqwest:
//!
//! - time to the first text delta: the loop (run started, the first `ModelDelta` with text
//!   reaches a subscriber) against a raw POST read until the first text's bytes arrive, from
//!   a server that sends that text's event alone and the rest a millisecond later (as a
//!   model's first token comes: a loop given the whole answer at once would go on through the
//!   turn before a subscriber on its thread is woken), and against the same POST parsed as a
//!   hand-written client would (events by `eventsource-stream`, their data by `serde_json`);
//! - one whole streamed iteration (two provider calls and a tool call) against the same two
//!   POSTs read to their end, and against the same POSTs parsed as a hand-written client
//!   would (events by `eventsource-stream`, their data by `serde_json`);
//! - the cost of one delta as the answer grows: 1 KB against 1 MB of streamed text, through
//!   the provider's stream and the assembler, and through the assembler alone.
//!
//! Criterion times each path; then the comparisons run again in paired rounds (see
//! `toolkit_testing::paired`) and their ratios are printed with the issue's goals and the load
//! average.

use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use futures_util::StreamExt;
use serde_json::json;
use toolkit::provider::{
    Assembler, Delta, HttpOptions, OpenAiProvider, Provider, ProviderRequest, ProviderResponse,
    Usage,
};
use toolkit::recording::RunEvent;
use toolkit::{ChatMessage, RunRequest, ToolLoopService, ToolRegistry, tool};
use toolkit_testing::http::{Reply, Server};
use toolkit_testing::paired::{Paired, load_average, verdict, wanted};
use toolkit_testing::streams::{Call, Turn, Wire};

/// Adds two integers (inline: the loop's own work is what is timed).
#[tool(inline)]
fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

/// The first text the model streams: its first piece is what the raw reader looks for.
const FIRST_TEXT: &str =
    "Adding them: two plus three, as asked, with the add tool, which is exact.";

/// The streamed answer to `body`: text and a call of `add`, or, once a tool result is in the
/// conversation, the answer. When `paced`, the event of the first text comes alone, the rest
/// a millisecond later, as a model's first token does.
fn answer(body: &[u8], paced: bool) -> Reply {
    let answered = String::from_utf8_lossy(body).contains(r#""role":"tool""#);
    let turn = if answered {
        Turn::text("2 + 3 = 5.")
    } else {
        Turn::calls(
            FIRST_TEXT,
            vec![Call::new("call_1", "add", &json!({"a": 2, "b": 3}))],
        )
    };
    let bytes = turn.streamed(Wire::OpenAiChat, 4);
    if !paced {
        return Reply::stream(&bytes, 64 * 1024);
    }
    let first = format!(r#""content":"{}""#, &FIRST_TEXT[..4]);
    let text = find(&bytes, first.as_bytes()).expect("the first text");
    let end = text + find(&bytes[text..], b"\n\n").expect("its event's end") + 2;
    Reply::Stream {
        pieces: vec![bytes[..end].to_vec(), bytes[end..].to_vec()],
        cut: false,
        pause: Duration::from_millis(1),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// A streamed text answer of `bytes` bytes in pieces of four.
fn long_answer(bytes: usize) -> Vec<u8> {
    Turn::text(&"abcd".repeat(bytes / 4)).streamed(Wire::OpenAiChat, 4)
}

fn request() -> RunRequest {
    RunRequest::new("2+3?").with_tools(["add"])
}

struct Bench {
    runtime: tokio::runtime::Runtime,
    service: ToolLoopService,
    provider: OpenAiProvider,
    /// A provider whose server sends the first text's event alone, then pauses.
    paced: (OpenAiProvider, Server),
    client: reqwest::Client,
    url: String,
    /// The loop's two request bodies, to post raw.
    bodies: Vec<Vec<u8>>,
    /// Providers whose server streams a text answer of 1 KB and 1 MB.
    long: [(OpenAiProvider, Server); 2],
    server: Server,
}

impl Bench {
    fn new() -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let server = runtime.block_on(Server::serve(|body| Some(answer(body, false)), Vec::new()));
        let paced = runtime.block_on(Server::serve(|body| Some(answer(body, true)), Vec::new()));
        // A megabyte of text in pieces of four is some 40 MB of events: room for it.
        let provider = |url: &str| {
            OpenAiProvider::from_env_var(
                "TOOLKIT_BENCH_NO_KEY",
                &format!("{url}/v1"),
                "bench",
                HttpOptions::default().with_max_response_bytes(128 * 1024 * 1024),
            )
            .expect("provider")
        };
        let long = [1024, 1024 * 1024].map(|bytes| {
            let body = long_answer(bytes);
            let server = runtime.block_on(Server::serve(
                move |_| Some(Reply::stream(&body, 64 * 1024)),
                Vec::new(),
            ));
            (provider(&server.url), server)
        });
        let mut bench = Self {
            provider: provider(&server.url),
            paced: (provider(&paced.url), paced),
            url: format!("{}/v1/chat/completions", server.url),
            runtime,
            service: ToolLoopService::new(ToolRegistry::linked().expect("no duplicates")),
            client: reqwest::Client::new(),
            bodies: Vec::new(),
            long,
            server,
        };
        let check = bench.iteration();
        assert_eq!(check.content, "2 + 3 = 5.");
        bench.bodies = bench
            .server
            .requests()
            .into_iter()
            .rev()
            .take(2)
            .rev()
            .map(|request| request.body)
            .collect();
        assert!(bench.first_delta().starts_with("Addi"));
        bench
    }

    /// One streamed iteration through the loop: two provider calls, one tool call.
    fn iteration(&self) -> toolkit::ToolLoopResult {
        self.runtime
            .block_on(self.service.run(&self.provider, request()))
            .expect("runs")
    }

    /// The loop started, until a subscriber has its first text delta (the run is then
    /// dropped, its connection closed), from the server that sends that text's event alone.
    fn first_delta(&self) -> String {
        self.runtime.block_on(async {
            let mut events = self.service.subscribe();
            let run = self.service.run(&self.paced.0, request());
            tokio::pin!(run);
            loop {
                tokio::select! {
                    biased;
                    event = events.recv() => {
                        if let RunEvent::ModelDelta { delta: Delta::Text { text }, .. } =
                            &*event.expect("an event")
                        {
                            return text.clone();
                        }
                    }
                    _ = &mut run => panic!("the run ended before its first text"),
                }
            }
        })
    }

    fn post(&self, url: &str, body: &[u8]) -> reqwest::Response {
        self.runtime.block_on(async {
            self.client
                .post(url)
                .header("content-type", "application/json")
                .body(body.to_vec())
                .send()
                .await
                .expect("sent")
        })
    }

    /// The first request posted raw to the same server, read until the first text piece's
    /// bytes arrive.
    fn raw_first_delta(&self) {
        let url = format!("{}/v1/chat/completions", self.paced.1.url);
        let mut response = self.post(&url, &self.bodies[0]);
        let wanted = format!(r#""content":"{}""#, &FIRST_TEXT[..4]);
        self.runtime.block_on(async {
            let mut read = Vec::new();
            while let Some(chunk) = response.chunk().await.expect("a chunk") {
                read.extend_from_slice(&chunk);
                if read
                    .windows(wanted.len())
                    .any(|window| window == wanted.as_bytes())
                {
                    return;
                }
            }
            panic!("no first text in the raw stream");
        });
    }

    /// Both requests posted raw, each read to its end.
    fn raw_posts(&self) {
        for body in &self.bodies {
            let response = self.post(&self.url, body);
            self.runtime
                .block_on(async { black_box(response.bytes().await.expect("body")) });
        }
    }

    /// The first request posted raw to the same server and read as a hand-written client
    /// would (see [`parsed`]), until an event carries text.
    fn raw_parsed_first_delta(&self) {
        let url = format!("{}/v1/chat/completions", self.paced.1.url);
        let response = self.post(&url, &self.bodies[0]);
        self.runtime.block_on(parsed(response, |event| {
            event["choices"][0]["delta"]["content"]
                .as_str()
                .is_some_and(|text| !text.is_empty())
        }));
    }

    /// Both requests posted raw and read as a hand-written client would, to `[DONE]`.
    fn raw_parsed_posts(&self) {
        for body in &self.bodies {
            let response = self.post(&self.url, body);
            self.runtime.block_on(parsed(response, |_| false));
        }
    }

    /// The long answer `which` streamed through the provider into an assembler: its deltas.
    fn assemble_streamed(&self, which: usize) -> usize {
        let messages = [ChatMessage::user("write")];
        let provider = &self.long[which].0;
        self.runtime.block_on(async {
            let mut deltas = provider.stream(ProviderRequest::new(&messages, &[]));
            let mut assembler = Assembler::new();
            let mut count = 0;
            while let Some(delta) = deltas.next().await {
                assembler.push(&delta.expect("a delta")).expect("in order");
                count += 1;
            }
            black_box(assembler.finish());
            count
        })
    }
}

/// Reads `response` as a hand-written client would: each chunk through `eventsource-stream`, each
/// event's data through `serde_json`, until `[DONE]` or an event `enough` says is.
async fn parsed(response: reqwest::Response, enough: impl Fn(&serde_json::Value) -> bool) {
    let chunks = futures_util::stream::unfold(response, |mut response| async move {
        let chunk = response.chunk().await.expect("a chunk")?;
        Some((Ok::<_, std::io::Error>(chunk), response))
    });
    let mut events = std::pin::pin!(eventsource_stream::EventStream::new(chunks));
    while let Some(event) = events.next().await {
        let data = event.expect("an event").data;
        if data == "[DONE]" {
            return;
        }
        let event: serde_json::Value = serde_json::from_str(&data).expect("JSON");
        if enough(&event) {
            return;
        }
    }
    panic!("the stream ended before [DONE]");
}

/// `count` text deltas of four bytes, then usage.
fn text_deltas(count: usize) -> Vec<Delta> {
    let mut deltas: Vec<Delta> = ProviderResponse::new("abcd", Vec::new(), Usage::default())
        .into_deltas()
        .into_iter()
        .take(1)
        .cycle()
        .take(count)
        .collect();
    deltas.extend(
        ProviderResponse::new("", Vec::new(), Usage::new(1, 1))
            .into_deltas()
            .into_iter()
            .last(),
    );
    deltas
}

fn assemble(deltas: &[Delta]) {
    let mut assembler = Assembler::new();
    for delta in deltas {
        assembler.push(delta).expect("in order");
    }
    black_box(assembler.finish());
}

fn main() {
    let bench = Bench::new();
    let small_deltas = text_deltas(256);
    let large_deltas = text_deltas(256 * 1024);
    let small_count_streamed = bench.assemble_streamed(0);
    let large_count_streamed = bench.assemble_streamed(1);

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("stream");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("loop_first_delta", |b| {
        b.iter(|| black_box(bench.first_delta()));
    });
    group.bench_function("raw_first_delta", |b| b.iter(|| bench.raw_first_delta()));
    group.bench_function("loop_streamed_iteration", |b| {
        b.iter(|| black_box(bench.iteration()));
    });
    group.bench_function("raw_streamed_posts", |b| b.iter(|| bench.raw_posts()));
    group.bench_function("assemble_1k", |b| b.iter(|| assemble(&small_deltas)));
    group.bench_function("assemble_1m", |b| b.iter(|| assemble(&large_deltas)));
    group.finish();
    criterion.final_summary();

    if wanted("stream_ratios") {
        println!(
            "\nstreaming over HTTP, paired (load average: {})",
            load_average()
        );
        let timings = Paired::new()
            .path("loop_first_delta", || drop(black_box(bench.first_delta())))
            .path("raw_first_delta", || bench.raw_first_delta())
            .path("raw_parsed_first_delta", || bench.raw_parsed_first_delta())
            .run(200);
        let ratio = timings.ratio("loop_first_delta", "raw_first_delta");
        println!(
            "  first text delta, loop / raw: {ratio:.3}  {:.1} us / {:.1} us over {} rounds  (goal <= 1.05: {})",
            timings.median("loop_first_delta") / 1e3,
            timings.median("raw_first_delta") / 1e3,
            timings.rounds(),
            verdict(ratio <= 1.05)
        );
        println!(
            "  first text delta, loop / raw parsed by hand (eventsource-stream, serde_json): {:.3}  ({:.1} us)",
            timings.ratio("loop_first_delta", "raw_parsed_first_delta"),
            timings.median("raw_parsed_first_delta") / 1e3,
        );
        let timings = Paired::new()
            .path("loop_streamed_iteration", || {
                drop(black_box(bench.iteration()));
            })
            .path("raw_streamed_posts", || bench.raw_posts())
            .path("raw_parsed_posts", || bench.raw_parsed_posts())
            .run(200);
        let ratio = timings.ratio("loop_streamed_iteration", "raw_streamed_posts");
        println!(
            "  whole streamed iteration, loop / raw: {ratio:.3}  {:.1} us / {:.1} us over {} rounds  (goal <= 1.15: {})",
            timings.median("loop_streamed_iteration") / 1e3,
            timings.median("raw_streamed_posts") / 1e3,
            timings.rounds(),
            verdict(ratio <= 1.15)
        );
        println!(
            "  whole streamed iteration, loop / raw parsed by hand (eventsource-stream, serde_json): {:.3}  ({:.1} us)",
            timings.ratio("loop_streamed_iteration", "raw_parsed_posts"),
            timings.median("raw_parsed_posts") / 1e3,
        );
        let timings = Paired::new()
            .path("streamed_1k", || {
                black_box(bench.assemble_streamed(0));
            })
            .path("streamed_1m", || {
                black_box(bench.assemble_streamed(1));
            })
            .path("assemble_1k", || assemble(&small_deltas))
            .path("assemble_1m", || assemble(&large_deltas))
            .run(40);
        #[allow(clippy::cast_precision_loss)]
        let per = |name: &str, count: usize| timings.median(name) / count as f64;
        for (what, small, large, small_count, large_count) in [
            (
                "over HTTP, provider stream and assembler",
                "streamed_1k",
                "streamed_1m",
                small_count_streamed,
                large_count_streamed,
            ),
            (
                "assembler alone",
                "assemble_1k",
                "assemble_1m",
                small_deltas.len(),
                large_deltas.len(),
            ),
        ] {
            let (small_ns, large_ns) = (per(small, small_count), per(large, large_count));
            println!(
                "  per delta {what}: 1 KB {small_ns:.1} ns ({small_count} deltas), 1 MB {large_ns:.1} ns ({large_count} deltas), 1 MB / 1 KB {:.2}",
                large_ns / small_ns
            );
        }
    }
}

//! Load on an MCP server's streamable HTTP endpoint: C clients call the tool `hash_text` in a
//! loop, each call with a text of its own, and check every reply against its SHA-256; prints one
//! JSON line (calls/s, p50 and p99 latency, failed and wrong calls, the first error).
//!
//! `cargo bench -p toolkit-mcp-cli --bench mcp_load -- --url URL --clients C --seconds S
//! --warmup W --protocol 2026-07-28|2025-11-25`
//!
//! Each client is a tokio task with a keep-alive connection of its own, as a connected host has.
//! Over 2026-07-28 a call is one POST that says all it needs (headers and `_meta`); over
//! 2025-11-25 a client opens a session first and ends it (DELETE) at the end. `calls_per_s`
//! counts right answers sent in the window (the warmup's are not counted); `results` counts every
//! tool result the server gave, warmup included: what its audit copy must hold.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const USAGE: &str = "usage: mcp_load --url URL [--clients C] [--seconds S] [--warmup W] [--protocol 2026-07-28|2025-11-25]";

struct Options {
    url: String,
    clients: usize,
    seconds: u64,
    warmup: u64,
    /// `2026-07-28` (stateless) or `2025-11-25` (a session per client).
    protocol: String,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        url: String::new(),
        clients: 1,
        seconds: 10,
        warmup: 2,
        protocol: "2026-07-28".to_owned(),
    };
    let mut arguments = std::env::args().skip(1).filter(|flag| flag != "--bench"); // cargo's
    while let Some(flag) = arguments.next() {
        let value = arguments.next().ok_or(format!("{flag} needs a value"))?;
        let number = value
            .parse::<u64>()
            .map_err(|_| format!("{flag}: not a number"));
        match flag.as_str() {
            "--url" => options.url = value,
            "--clients" => options.clients = usize::try_from(number?.max(1)).unwrap_or(1),
            "--seconds" => options.seconds = number?.max(1),
            "--warmup" => options.warmup = number?,
            "--protocol" if ["2026-07-28", "2025-11-25"].contains(&value.as_str()) => {
                options.protocol = value;
            }
            _ => return Err(format!("unknown or bad argument {flag} {value}")),
        }
    }
    if options.url.is_empty() {
        return Err("--url is needed".to_owned());
    }
    Ok(options)
}

/// How a call went wrong. A wrong digest and an `isError` reply are still tool results.
enum Miss {
    Wrong(String),
    ToolError(String),
    Failed(String),
}

/// One MCP client: its connection pool, and its session over 2025-11-25.
struct Client {
    http: reqwest::Client,
    options: Arc<Options>,
    session: Option<String>,
    next_id: u64,
}

impl Client {
    /// A client; over 2025-11-25 with its session opened.
    async fn open(options: Arc<Options>) -> Result<Self, String> {
        let http = reqwest::Client::builder().pool_max_idle_per_host(1);
        let http = http.timeout(Duration::from_mins(1)).build();
        let http = http.map_err(|error| format!("{error:?}"))?;
        let mut client = Client {
            http,
            options,
            session: None,
            next_id: 1,
        };
        if client.options.protocol == "2025-11-25" {
            let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "mcp_load", "version": "1"}}});
            let (status, session, body) = client.post(&initialize).await?;
            if status != 200 || answer(&body, 0).is_none_or(|reply| reply.get("result").is_none()) {
                return Err(format!("initialize: HTTP {status}: {}", clip(&body)));
            }
            client.session = session;
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            let (status, _, body) = client.post(&initialized).await?;
            if !(200..300).contains(&status) {
                return Err(format!("initialized: HTTP {status}: {}", clip(&body)));
            }
        }
        Ok(client)
    }

    /// POSTs one message with the headers of the revision: the status, the session id the server
    /// gave, the body.
    async fn post(&self, message: &Value) -> Result<(u16, Option<String>, String), String> {
        let options = &self.options;
        let mut request = (self.http.post(&options.url))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.to_string());
        if message["method"] != "initialize" {
            request = request.header("mcp-protocol-version", &options.protocol);
        }
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        if options.protocol == "2026-07-28" {
            request = request.header("mcp-method", message["method"].as_str().unwrap_or(""));
            if let Some(name) = message["params"]["name"].as_str() {
                request = request.header("mcp-name", name);
            }
        }
        let failed = |error: reqwest::Error| format!("{error:?}");
        let response = request.send().await.map_err(failed)?;
        let status = response.status().as_u16();
        let session = response.headers().get("mcp-session-id");
        let session = session
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let body = response.text().await.map_err(failed)?;
        Ok((status, session, body))
    }

    /// Calls `hash_text` on `text` and checks the reply.
    async fn call(&mut self, text: &str) -> Result<(), Miss> {
        let id = self.next_id;
        self.next_id += 1;
        let mut params = json!({"name": "hash_text", "arguments": {"text": text}});
        if self.options.protocol == "2026-07-28" {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "mcp_load", "version": "1"},
            });
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let (status, _, body) = self.post(&message).await.map_err(Miss::Failed)?;
        let Some(reply) = answer(&body, id).filter(|_| status == 200) else {
            return Err(Miss::Failed(format!("HTTP {status}: {}", clip(&body))));
        };
        let Some(result) = reply.get("result") else {
            return Err(Miss::Failed(format!("JSON-RPC error: {}", reply["error"])));
        };
        let blocks = result["content"].as_array().into_iter().flatten();
        let said: String = blocks.filter_map(|block| block["text"].as_str()).collect();
        let expected = format!("sha256:{:x}", Sha256::digest(text.as_bytes()));
        if result["isError"] == true {
            Err(Miss::ToolError(format!("isError: {}", clip(&said))))
        } else if said == expected {
            Ok(())
        } else {
            Err(Miss::Wrong(format!("{text:?} answered {:?}", clip(&said))))
        }
    }
}

/// The JSON-RPC message with this id in a body: plain JSON, or the `data:` of an SSE event.
fn answer(body: &str, id: u64) -> Option<Value> {
    let is_it = |message: &Value| message["id"] == id;
    if let Ok(message) = serde_json::from_str::<Value>(body) {
        return is_it(&message).then_some(message);
    }
    let data = body.lines().filter_map(|line| line.strip_prefix("data:"));
    data.filter_map(|data| serde_json::from_str(data.trim()).ok())
        .find(is_it)
}

fn clip(text: &str) -> String {
    text.chars().take(300).collect()
}

/// What clients saw in the measured window (and `results`, from the warmup on). A client that
/// cannot open its session counts one failed call.
#[derive(Default)]
struct Tally {
    calls: u64,
    latencies_ms: Vec<f64>,
    failed: u64,
    wrong: u64,
    results: u64,
    first_error: Option<String>,
}

/// Client `index`: calls until `end`, counting those sent at `from` or later.
async fn run_client(index: usize, options: Arc<Options>, from: Instant, end: Instant) -> Tally {
    let mut tally = Tally::default();
    let mut client = match Client::open(Arc::clone(&options)).await {
        Ok(client) => client,
        Err(error) => {
            (tally.calls, tally.failed, tally.first_error) = (1, 1, Some(error));
            return tally;
        }
    };
    for n in 0_u64.. {
        if Instant::now() >= end {
            break;
        }
        let text = format!("{index}-{n}");
        let sent = Instant::now();
        let outcome = client.call(&text).await;
        tally.results += u64::from(!matches!(outcome, Err(Miss::Failed(_))));
        if sent >= from {
            tally.calls += 1;
            tally.latencies_ms.push(sent.elapsed().as_secs_f64() * 1e3);
            let error = match outcome {
                Ok(()) => continue,
                Err(Miss::Wrong(error)) => {
                    tally.wrong += 1;
                    format!("wrong: {error}")
                }
                Err(Miss::ToolError(error) | Miss::Failed(error)) => {
                    tally.failed += 1;
                    error
                }
            };
            tally.first_error.get_or_insert(error);
        }
    }
    // The session ends, as a host's does.
    if let Some(session) = &client.session {
        let delete = client
            .http
            .delete(&options.url)
            .header("mcp-session-id", session);
        let _ = delete
            .header("mcp-protocol-version", &options.protocol)
            .send()
            .await;
    }
    tally
}

/// The `percent`th percentile (nearest rank) of sorted values.
fn percentile(sorted: &[f64], percent: usize) -> f64 {
    let rank = (sorted.len() * percent).div_ceil(100).max(1);
    sorted.get(rank - 1).copied().unwrap_or(0.0)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => Arc::new(options),
        Err(error) => {
            eprintln!("mcp_load: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let counted_from = Instant::now() + Duration::from_secs(options.warmup);
    let end = counted_from + Duration::from_secs(options.seconds);
    let tasks: Vec<_> = (0..options.clients)
        .map(|index| tokio::spawn(run_client(index, Arc::clone(&options), counted_from, end)))
        .collect();
    let (mut tallies, mut latencies) = (Vec::new(), Vec::new());
    for task in tasks {
        let tally = task.await.expect("a client does not panic");
        latencies.extend_from_slice(&tally.latencies_ms);
        tallies.push(tally);
    }
    // Calls sent in the window, over the window: those still running at its end are counted.
    let window = Duration::from_secs(options.seconds).as_secs_f64();
    let sum = |count: fn(&Tally) -> u64| tallies.iter().map(count).sum::<u64>();
    let (calls, failed, wrong) = (sum(|t| t.calls), sum(|t| t.failed), sum(|t| t.wrong));
    latencies.sort_by(f64::total_cmp);
    let right = u32::try_from(calls - failed - wrong).unwrap_or(u32::MAX);
    let round = |value: f64| (value * 1000.0).round() / 1000.0;
    let line = json!({
        "url": options.url,
        "protocol": options.protocol,
        "clients": options.clients,
        "seconds": options.seconds,
        "calls": calls,
        "failed": failed,
        "wrong": wrong,
        "calls_per_s": round(f64::from(right) / window),
        "p50_ms": round(percentile(&latencies, 50)),
        "p99_ms": round(percentile(&latencies, 99)),
        "results": sum(|t| t.results),
        "first_error": tallies.iter().find_map(|t| t.first_error.clone()),
    });
    println!("{line}");
    ExitCode::SUCCESS
}

//! Building one provider request body that offers every builtin enabled by default: each tool's
//! declaration is serialised once and copied as bytes into every request. Beside it, the same
//! declarations serialised anew for each request (what every request cost before).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde::Serialize;
use toolkit::provider::{AnthropicProvider, HttpOptions, OpenAiProvider, ProviderRequest};
use toolkit::{ChatMessage, ToolSpec};

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: &'a [serde_json::Value],
    tools: &'a [serde_json::Value],
}

fn request_body(c: &mut Criterion) {
    let registry = toolkit_builtins::registry().expect("no duplicates");
    let specs: Vec<&ToolSpec> = registry
        .specs()
        .filter(|spec| spec.flags().enabled_by_default())
        .collect();
    let messages = [
        ChatMessage::system("You answer with the tools offered."),
        ChatMessage::user("How many rows does the orders table have?"),
    ];
    let request = ProviderRequest::new(&messages, &specs);
    // No request is sent: only the bytes are built (no key needed).
    let openai = OpenAiProvider::from_env_var(
        "TOOLKIT_BENCH_NO_KEY",
        "http://127.0.0.1:9/v1",
        "bench",
        HttpOptions::default(),
    )
    .expect("provider");
    let body = openai.request_body(&request).expect("serialises");
    eprintln!(
        "{} tools offered, OpenAI body of {} bytes",
        specs.len(),
        body.len()
    );

    let mut group = c.benchmark_group("request_body");
    group.bench_function("openai", |b| {
        b.iter(|| {
            black_box(
                openai
                    .request_body(black_box(&request))
                    .expect("serialises"),
            )
        });
    });
    // The provider wants a key to exist; nothing is sent, so any variable that is set will do.
    let anthropic = AnthropicProvider::from_env_var(
        "PATH",
        "http://127.0.0.1:9",
        "bench",
        HttpOptions::default(),
    )
    .expect("PATH is set");
    group.bench_function("anthropic", |b| {
        b.iter(|| {
            black_box(
                anthropic
                    .request_body(black_box(&request))
                    .expect("serialises"),
            )
        });
    });
    let declarations: Vec<serde_json::Value> = specs
        .iter()
        .map(|spec| spec.openai().expect("a short description"))
        .collect();
    let message_values: Vec<serde_json::Value> = vec![
        serde_json::json!({"role": "system", "content": "You answer with the tools offered."}),
        serde_json::json!({"role": "user", "content": "How many rows does the orders table have?"}),
    ];
    group.bench_function("openai_declarations_serialised_each_time", |b| {
        b.iter(|| {
            black_box(
                serde_json::to_vec(&Body {
                    model: "bench",
                    messages: &message_values,
                    tools: black_box(&declarations),
                })
                .expect("serialises"),
            )
        });
    });
    group.finish();
}

criterion_group!(benches, request_body);
criterion_main!(benches);

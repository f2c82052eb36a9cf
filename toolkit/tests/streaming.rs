//! The loop over each wire's real streaming format, from a local server that writes the wire's
//! server-sent events byte for byte in pieces the test chooses: the run streams, shows its
//! deltas to subscribers, runs the tools, and ends with the trace a run of whole answers gives.

use std::time::Duration;

use serde_json::{Value, json};
use toolkit::provider::{
    AnthropicProvider, Delta, GeminiProvider, HttpOptions, OpenAiProvider, OpenAiResponsesProvider,
    Provider,
};
use toolkit::recording::{RunEvent, StepKind, Termination};
use toolkit::{
    RunOptions, RunRequest, Table, ToolArtifact, ToolLoopResult, ToolLoopService, ToolRegistry,
    ToolResult, tool,
};
use toolkit_testing::http::{Reply, Server};
use toolkit_testing::streams::{Call, Turn, Wire};

const KEY_VARIABLE: &str = "TOOLKIT_TEST_PROVIDER_KEY";

/// Looks up a city's weather: a sentence for the model, a table for people.
#[tool]
fn weather(
    /// The city.
    city: String,
) -> ToolResult {
    let table = Table::from_rows(["hour", "°C"], [["12:00", "21"]]).expect("a valid table");
    ToolResult::text_with(
        format!("{city}: 21 °C"),
        [ToolArtifact::table("Readings", table)],
    )
}

fn provider(wire: Wire, url: &str) -> Box<dyn Provider> {
    let options = HttpOptions::default()
        .with_timeout(Duration::from_secs(10))
        .with_max_retries(0);
    match wire {
        Wire::OpenAiChat => Box::new(
            OpenAiProvider::from_env_var(KEY_VARIABLE, &format!("{url}/v1"), "test-model", options)
                .unwrap(),
        ),
        Wire::OpenAiResponses => Box::new(
            OpenAiResponsesProvider::from_env_var(
                KEY_VARIABLE,
                &format!("{url}/v1"),
                "test-model",
                options,
            )
            .unwrap(),
        ),
        Wire::Anthropic => Box::new(
            AnthropicProvider::from_env_var(KEY_VARIABLE, url, "test-model", options).unwrap(),
        ),
        Wire::Gemini => Box::new(
            GeminiProvider::from_env_var(KEY_VARIABLE, url, "test-model", options).unwrap(),
        ),
    }
}

/// The model's two turns: a sentence and two calls, then an answer.
fn turns() -> [Turn; 2] {
    let mut first = Turn::calls(
        "Let me look — ✓ 🐤",
        vec![
            Call::new("call_a", "weather", &json!({"city": "Zürich"})),
            Call::new("call_b", "weather", &json!({"city": "東京"})),
        ],
    );
    first.reasoning = true;
    [first, Turn::text("Zürich: 21 °C; 東京: 21 °C.")]
}

struct Ran {
    result: ToolLoopResult,
    /// The deltas subscribers saw, with their step.
    deltas: Vec<(usize, Delta)>,
    /// Each request's first line.
    request_lines: Vec<String>,
    /// Each request's body.
    bodies: Vec<Value>,
}

/// One run on `wire` whose server answers with `replies`, streaming as `stream` says.
async fn run(wire: Wire, replies: Vec<Reply>, stream: bool) -> Ran {
    let server = Server::start_replies(replies).await;
    let provider = provider(wire, &server.url);
    let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
    let mut events = service.subscribe();
    let result = service
        .run(
            provider.as_ref(),
            RunRequest::new("Weather?")
                .with_tools(["weather"])
                .with_options(RunOptions::default().with_streaming(stream)),
        )
        .await
        .unwrap();
    let mut deltas = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let RunEvent::ModelDelta { index, delta, .. } = event.as_ref() {
            deltas.push((*index, delta.clone()));
        }
    }
    let requests = server.requests();
    Ran {
        result,
        deltas,
        request_lines: requests
            .iter()
            .map(|request| request.head.lines().next().unwrap().to_owned())
            .collect(),
        bodies: requests
            .iter()
            .map(|request| serde_json::from_slice(&request.body).unwrap())
            .collect(),
    }
}

/// The index of a run's first model step.
fn first_model_step(result: &ToolLoopResult) -> usize {
    result
        .trace
        .steps()
        .iter()
        .position(|step| step.kind() == StepKind::Llm)
        .unwrap()
}

/// A trace as JSON without what differs from run to run: ids, times, durations.
fn comparable(result: &ToolLoopResult) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.retain(|key, _| {
                    !matches!(
                        key.as_str(),
                        "run_id" | "duration" | "started_at" | "ended_at"
                    )
                });
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut trace = serde_json::to_value(&result.trace).unwrap();
    strip(&mut trace);
    trace
}

#[tokio::test]
async fn every_wire_streams_into_the_same_run_a_whole_answer_gives() {
    for wire in Wire::ALL {
        let [first, second] = turns();
        let whole = run(
            wire,
            vec![
                Reply::Json((200, Vec::new(), first.whole(wire))),
                Reply::Json((200, Vec::new(), second.whole(wire))),
            ],
            false,
        )
        .await;
        let streamed = run(
            wire,
            vec![
                Reply::stream(&first.streamed(wire, 2), 5),
                Reply::stream(&second.streamed(wire, 3), 11),
            ],
            true,
        )
        .await;
        for ran in [&whole, &streamed] {
            assert_eq!(ran.result.termination, Termination::Answered, "{wire:?}");
            assert_eq!(ran.result.content, "Zürich: 21 °C; 東京: 21 °C.");
            assert_eq!(ran.result.trace.invocations().count(), 2);
        }
        assert_eq!(
            comparable(&streamed.result),
            comparable(&whole.result),
            "{wire:?}"
        );
        assert_eq!(streamed.result.messages, whole.result.messages, "{wire:?}");
        assert_eq!(streamed.result.usage, whole.result.usage);
        // What the second request sends back is the same: the turn, the results, and what
        // the wire carries between turns.
        assert_eq!(streamed.bodies[1]["messages"], whole.bodies[1]["messages"]);
        assert_eq!(streamed.bodies[1]["input"], whole.bodies[1]["input"]);
        assert_eq!(streamed.bodies[1]["contents"], whole.bodies[1]["contents"]);

        // Subscribers saw the text grow, piece by piece, and the calls start.
        assert!(whole.deltas.is_empty());
        let text_of = |step: usize| -> String {
            streamed
                .deltas
                .iter()
                .filter(|(index, _)| *index == step)
                .filter_map(|(_, delta)| match delta {
                    Delta::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect()
        };
        let first_step = first_model_step(&streamed.result);
        assert_eq!(text_of(first_step), "Let me look — ✓ 🐤", "{wire:?}");
        let pieces = streamed
            .deltas
            .iter()
            .filter(|(_, delta)| matches!(delta, Delta::Text { .. }))
            .count();
        assert!(pieces >= 9, "{wire:?}: the text came in {pieces} pieces");
        let started: Vec<&str> = streamed
            .deltas
            .iter()
            .filter_map(|(_, delta)| match delta {
                Delta::CallStarted { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(started, ["weather", "weather"]);
        let last_step = streamed.result.trace.steps().len() - 1;
        assert_eq!(text_of(last_step), "Zürich: 21 °C; 東京: 21 °C.");
        // No carried state is shown: it is the provider's, not the people's.
        assert!(
            !streamed
                .deltas
                .iter()
                .any(|(_, delta)| matches!(delta, Delta::Carried { .. }))
        );

        // Each wire asks to stream as it says to, and only when streaming.
        let (whole_line, streamed_line) = match wire {
            Wire::OpenAiChat => ("POST /v1/chat/completions", "POST /v1/chat/completions"),
            Wire::OpenAiResponses => ("POST /v1/responses", "POST /v1/responses"),
            Wire::Anthropic => ("POST /v1/messages", "POST /v1/messages"),
            Wire::Gemini => (
                "POST /v1beta/models/test-model:generateContent",
                "POST /v1beta/models/test-model:streamGenerateContent?alt=sse",
            ),
        };
        assert!(whole.request_lines[0].starts_with(&format!("{whole_line} ")));
        assert!(streamed.request_lines[0].starts_with(&format!("{streamed_line} ")));
        let stream_field = |ran: &Ran| ran.bodies[0].get("stream").cloned();
        assert_eq!(stream_field(&whole), None);
        let expected = (wire != Wire::Gemini).then_some(json!(true));
        assert_eq!(stream_field(&streamed), expected, "{wire:?}");
    }
}

#[tokio::test]
async fn a_server_that_answers_whole_when_asked_to_stream_is_read_whole() {
    for wire in Wire::ALL {
        let [first, second] = turns();
        let ran = run(
            wire,
            vec![
                Reply::Json((200, Vec::new(), first.whole(wire))),
                Reply::Json((200, Vec::new(), second.whole(wire))),
            ],
            true,
        )
        .await;
        assert_eq!(ran.result.termination, Termination::Answered, "{wire:?}");
        assert_eq!(ran.result.content, "Zürich: 21 °C; 東京: 21 °C.");
        // The whole answer is shown as the deltas it comes to: its text at once.
        assert!(
            ran.deltas
                .iter()
                .any(|(index, delta)| *index == first_model_step(&ran.result)
                    && matches!(delta, Delta::Text { text } if text == "Let me look — ✓ 🐤")),
            "{wire:?}"
        );
    }
}

#[tokio::test]
async fn a_stream_cut_mid_answer_ends_the_run_with_a_provider_error_and_keeps_every_finished_step()
{
    for wire in Wire::ALL {
        let [first, second] = turns();
        let body = second.streamed(wire, 2);
        let half = body.len() / 2;
        let ran = run(
            wire,
            vec![
                Reply::stream(&first.streamed(wire, 2), 5),
                Reply::Stream {
                    pieces: vec![body[..half].to_vec()],
                    cut: true,
                    pause: Duration::ZERO,
                },
            ],
            true,
        )
        .await;
        assert_eq!(
            ran.result.termination,
            Termination::ProviderError,
            "{wire:?}"
        );
        assert_eq!(
            ran.result.content,
            "cannot reach the provider: error decoding response body: request or response body \
             error: error reading a body from connection: unexpected EOF during chunk size line",
            "{wire:?}"
        );
        // The first model step and both tool calls are kept; the failed step says why.
        assert_eq!(ran.result.trace.invocations().count(), 2);
        let steps = serde_json::to_value(ran.result.trace.steps()).unwrap();
        let last = &steps[steps.as_array().unwrap().len() - 1];
        assert_eq!(last["kind"], "llm");
        assert_eq!(last["error"], json!(ran.result.content));
        // What streamed before the cut was shown, and is not in the step.
        assert_eq!(last["content"], "");
        let failed_step = ran.result.trace.steps().len() - 1;
        let shown: String = ran
            .deltas
            .iter()
            .filter(|(index, _)| *index == failed_step)
            .filter_map(|(_, delta)| match delta {
                Delta::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            !shown.is_empty() && "Zürich: 21 °C; 東京: 21 °C.".starts_with(&shown),
            "{wire:?}: {shown:?}"
        );
    }
}

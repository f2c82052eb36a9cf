//! What a turn says besides its text and calls, read alike streamed and whole on every wire:
//! why it stopped (each wire's own words, a refusal's text), the tokens billed (cache reads and
//! writes, reasoning), and what the model thought (Anthropic's thinking blocks going back with
//! their signatures). Shapes written from each provider's API reference.

use serde_json::{Value, json};
use toolkit_testing::streams::Wire;

use super::streaming_tests::{
    anthropic_answer_with, assembled, cut, named_events, whole as whole_turn,
};
use super::{ProviderRequest, ProviderResponse, StopReason, Usage};
use crate::wire::{ChatMessage, ToolCall};

/// What a turn holds, for the builders of each wire's two shapes.
#[derive(Default)]
struct Shape<'a> {
    thinking: &'a str,
    text: &'a str,
    refusal: &'a str,
    /// Id, tool and arguments' text of each call.
    calls: &'a [(&'a str, &'a str, &'a str)],
}

/// `text` in two pieces, cut at a character's edge.
fn halves(text: &str) -> [&str; 2] {
    let middle = text
        .char_indices()
        .nth(text.chars().count() / 2)
        .map_or(text.len(), |(at, _)| at);
    [&text[..middle], &text[middle..]]
}

/// Events as `data:` lines, each ended by `end` twice.
fn data_lines(events: &[Value], end: &str) -> String {
    use std::fmt::Write as _;
    events.iter().fold(String::new(), |mut stream, event| {
        write!(stream, "data: {event}{end}{end}").unwrap();
        stream
    })
}

fn stream_of(events: &[Value]) -> Vec<u8> {
    let mut stream = data_lines(events, "\n");
    stream.push_str("data: [DONE]\n\n");
    stream.into_bytes()
}

/// A Chat Completions answer, whole and streamed.
fn chat(shape: &Shape<'_>, finish: &str, usage: &Value) -> (Vec<u8>, Vec<u8>) {
    let calls: Vec<Value> = shape
        .calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    let mut message = json!({"role": "assistant",
        "content": (!shape.text.is_empty()).then_some(shape.text),
        "refusal": (!shape.refusal.is_empty()).then_some(shape.refusal)});
    if !shape.thinking.is_empty() {
        message["reasoning_content"] = json!(shape.thinking);
    }
    if !calls.is_empty() {
        message["tool_calls"] = json!(calls);
    }
    let whole = json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [
        {"index": 0, "message": message, "finish_reason": finish}], "usage": usage});
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for (field, text) in [
        ("reasoning_content", shape.thinking),
        ("content", shape.text),
        ("refusal", shape.refusal),
    ] {
        for piece in halves(text).into_iter().filter(|piece| !piece.is_empty()) {
            events.push(chunk(json!({ field: piece }), Value::Null));
        }
    }
    for (index, (id, name, arguments)) in shape.calls.iter().enumerate() {
        events.push(chunk(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                                   "function": {"name": name, "arguments": ""}}]}),
            Value::Null,
        ));
        for piece in halves(arguments) {
            events.push(chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                Value::Null,
            ));
        }
    }
    events.push(chunk(json!({}), json!(finish)));
    events.push(
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [],
                       "usage": usage}),
    );
    (whole.to_string().into_bytes(), stream_of(&events))
}

/// An Anthropic answer's content blocks.
fn anthropic_blocks(shape: &Shape<'_>) -> Vec<Value> {
    let mut blocks = Vec::new();
    if !shape.thinking.is_empty() {
        blocks.push(json!({"type": "thinking", "thinking": shape.thinking,
                           "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pk"}));
    }
    if !shape.text.is_empty() {
        blocks.push(json!({"type": "text", "text": shape.text}));
    }
    for (id, name, arguments) in shape.calls {
        let input: Value = serde_json::from_str(arguments).unwrap();
        blocks.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
    }
    blocks
}

/// A Responses answer, whole and streamed: `status`, and the reason of an incomplete one.
fn responses(
    shape: &Shape<'_>,
    status: &str,
    incomplete: Option<&str>,
    usage: &Value,
) -> (Vec<u8>, Vec<u8>) {
    let mut items = Vec::new();
    if !shape.thinking.is_empty() {
        items.push(json!({"type": "reasoning", "id": "rs_1",
            "summary": [{"type": "summary_text", "text": shape.thinking}]}));
    }
    let mut parts = Vec::new();
    if !shape.text.is_empty() {
        parts.push(json!({"type": "output_text", "text": shape.text, "annotations": []}));
    }
    if !shape.refusal.is_empty() {
        parts.push(json!({"type": "refusal", "refusal": shape.refusal}));
    }
    if !parts.is_empty() {
        items.push(
            json!({"type": "message", "id": "msg_1", "role": "assistant",
                          "status": status, "content": parts}),
        );
    }
    for (id, name, arguments) in shape.calls {
        items.push(
            json!({"type": "function_call", "id": format!("fc_{id}"), "call_id": id,
                          "name": name, "arguments": arguments, "status": status}),
        );
    }
    let response = json!({"id": "resp_1", "object": "response", "status": status,
        "incomplete_details": incomplete.map(|reason| json!({"reason": reason})),
        "output": items, "usage": usage});
    let mut events = vec![json!({"type": "response.created",
        "response": {"id": "resp_1", "status": "in_progress", "output": []}})];
    for (index, item) in items.iter().enumerate() {
        let mut added = item.clone();
        match item["type"].as_str().unwrap() {
            "reasoning" => added["summary"] = json!([]),
            "message" => added["content"] = json!([]),
            _ => added["arguments"] = json!(""),
        }
        events.push(
            json!({"type": "response.output_item.added", "output_index": index,
                           "item": added}),
        );
        match item["type"].as_str().unwrap() {
            "reasoning" => {
                for piece in halves(shape.thinking) {
                    events.push(json!({"type": "response.reasoning_summary_text.delta",
                        "output_index": index, "summary_index": 0, "delta": piece}));
                }
            }
            "message" => {
                for piece in halves(shape.text)
                    .into_iter()
                    .filter(|piece| !piece.is_empty())
                {
                    events.push(json!({"type": "response.output_text.delta",
                        "output_index": index, "content_index": 0, "delta": piece}));
                }
                for piece in halves(shape.refusal)
                    .into_iter()
                    .filter(|piece| !piece.is_empty())
                {
                    events.push(json!({"type": "response.refusal.delta",
                        "output_index": index, "content_index": 0, "delta": piece}));
                }
            }
            _ => {
                for piece in halves(item["arguments"].as_str().unwrap()) {
                    events.push(json!({"type": "response.function_call_arguments.delta",
                        "output_index": index, "delta": piece}));
                }
            }
        }
        events.push(
            json!({"type": "response.output_item.done", "output_index": index,
                           "item": item}),
        );
    }
    let end = if status == "incomplete" {
        "response.incomplete"
    } else {
        "response.completed"
    };
    events.push(json!({"type": end, "response": response}));
    (
        response.to_string().into_bytes(),
        named_events(&events).into_bytes(),
    )
}

/// A Gemini answer, whole and streamed (a chunk per part, the last with the finish reason and
/// the usage).
fn gemini(shape: &Shape<'_>, finish: &str, usage: &Value) -> (Vec<u8>, Vec<u8>) {
    let mut parts = Vec::new();
    if !shape.thinking.is_empty() {
        parts.push(json!({"text": shape.thinking, "thought": true}));
    }
    if !shape.text.is_empty() {
        parts.push(json!({"text": shape.text}));
    }
    for (id, name, arguments) in shape.calls {
        let args: Value = serde_json::from_str(arguments).unwrap();
        parts.push(json!({"functionCall": {"id": id, "name": name, "args": args}}));
    }
    let answer = |parts: Vec<Value>, finish: Option<&str>, usage: Option<&Value>| {
        let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
        if let Some(finish) = finish {
            candidate["finishReason"] = json!(finish);
        }
        let mut chunk = json!({"candidates": [candidate], "modelVersion": "gemini-2.5-flash"});
        if let Some(usage) = usage {
            chunk["usageMetadata"] = usage.clone();
        }
        chunk
    };
    let whole = answer(parts.clone(), Some(finish), Some(usage));
    let count = parts.len();
    let events: Vec<Value> = parts
        .into_iter()
        .enumerate()
        .map(|(index, part)| {
            let last = index + 1 == count;
            answer(vec![part], last.then_some(finish), last.then_some(usage))
        })
        .collect();
    let stream = data_lines(&events, "\r\n");
    (whole.to_string().into_bytes(), stream.into_bytes())
}

/// The turn of `whole` on `wire`, checked to be the turn of `stream` too, however cut.
fn read_both(wire: Wire, (whole, stream): (Vec<u8>, Vec<u8>)) -> ProviderResponse {
    let turn = whole_turn(wire, &whole).unwrap();
    for cuts in [vec![], (0..stream.len()).step_by(7).collect()] {
        assert_eq!(
            assembled(wire, cut(&stream, &cuts), usize::MAX).unwrap(),
            turn,
            "{wire:?}, streamed, cut at {cuts:?}"
        );
    }
    turn
}

const READ_FILE: [(&str, &str, &str); 1] = [("call_1", "read_file", r#"{"path":"a.txt"}"#)];

#[test]
fn each_wires_stop_words_are_read_alike_streamed_and_whole() {
    use StopReason::{ContentFilter, Finished, Length, Other, Refusal, ToolCalls};
    let text = Shape {
        text: "Paris is",
        ..Shape::default()
    };
    let calling = Shape {
        text: "Reading.",
        calls: &READ_FILE,
        ..Shape::default()
    };
    let chat_usage = json!({"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13});
    for (shape, word, expected) in [
        (&text, "stop", Finished),
        (&text, "length", Length),
        (&text, "content_filter", ContentFilter),
        (&calling, "tool_calls", ToolCalls),
        (&calling, "function_call", ToolCalls),
        // Servers that say only that they stopped while calling tools.
        (&calling, "stop", ToolCalls),
        (&calling, "length", Length),
        (
            &text,
            "insufficient_system_resource",
            Other("insufficient_system_resource".into()),
        ),
    ] {
        let turn = read_both(Wire::OpenAiChat, chat(shape, word, &chat_usage));
        assert_eq!(turn.stop_reason, expected, "chat {word}");
    }
    let anthropic_usage = json!({"input_tokens": 9, "output_tokens": 4});
    for (shape, word, expected) in [
        (&text, "end_turn", Finished),
        (&text, "stop_sequence", Finished),
        (&text, "max_tokens", Length),
        (&text, "model_context_window_exceeded", Length),
        (&text, "refusal", Refusal),
        (&text, "pause_turn", Other("pause_turn".into())),
        (&calling, "tool_use", ToolCalls),
    ] {
        let answer = anthropic_answer_with(&anthropic_blocks(shape), word, &anthropic_usage);
        let turn = read_both(Wire::Anthropic, answer);
        assert_eq!(turn.stop_reason, expected, "anthropic {word}");
    }
    let responses_usage = json!({"input_tokens": 9, "output_tokens": 4, "total_tokens": 13});
    for (shape, status, incomplete, expected) in [
        (&text, "completed", None, Finished),
        (&calling, "completed", None, ToolCalls),
        (&text, "incomplete", Some("max_output_tokens"), Length),
        (&calling, "incomplete", Some("max_output_tokens"), Length),
        (&text, "incomplete", Some("content_filter"), ContentFilter),
    ] {
        let turn = read_both(
            Wire::OpenAiResponses,
            responses(shape, status, incomplete, &responses_usage),
        );
        assert_eq!(
            turn.stop_reason, expected,
            "responses {status} {incomplete:?}"
        );
    }
    let gemini_usage = json!({"promptTokenCount": 9, "candidatesTokenCount": 4});
    for (shape, word, expected) in [
        (&text, "STOP", Finished),
        (&calling, "STOP", ToolCalls),
        (&text, "MAX_TOKENS", Length),
        (&text, "SAFETY", ContentFilter),
        (&text, "RECITATION", ContentFilter),
        (&text, "BLOCKLIST", ContentFilter),
        (&text, "PROHIBITED_CONTENT", ContentFilter),
        (&text, "SPII", ContentFilter),
        (
            &calling,
            "MALFORMED_FUNCTION_CALL",
            Other("MALFORMED_FUNCTION_CALL".into()),
        ),
    ] {
        let turn = read_both(Wire::Gemini, gemini(shape, word, &gemini_usage));
        assert_eq!(turn.stop_reason, expected, "gemini {word}");
    }
}

#[test]
fn a_call_cut_by_the_token_limit_is_kept_as_sent_and_says_length() {
    let cut_call = [(
        "call_1",
        "write_file",
        r#"{"path":"notes.md","content":"The fi"#,
    )];
    let shape = Shape {
        calls: &cut_call,
        ..Shape::default()
    };
    let usage = json!({"prompt_tokens": 9, "completion_tokens": 4});
    let turn = read_both(Wire::OpenAiChat, chat(&shape, "length", &usage));
    assert_eq!(turn.stop_reason, StopReason::Length);
    assert_eq!(
        turn.tool_calls,
        [ToolCall::new("call_1", "write_file", cut_call[0].2)]
    );
}

#[test]
fn a_refusal_is_the_turns_text_and_its_stop_reason_on_every_wire_that_refuses() {
    let refusal = "I'm sorry, I can't help with that.";
    let refused = Shape {
        refusal,
        ..Shape::default()
    };
    let chat_usage = json!({"prompt_tokens": 9, "completion_tokens": 4});
    let turn = read_both(Wire::OpenAiChat, chat(&refused, "stop", &chat_usage));
    assert_eq!(
        (turn.content.as_str(), turn.stop_reason),
        (refusal, StopReason::Refusal)
    );
    let responses_usage = json!({"input_tokens": 9, "output_tokens": 4});
    let turn = read_both(
        Wire::OpenAiResponses,
        responses(&refused, "completed", None, &responses_usage),
    );
    assert_eq!(
        (turn.content.as_str(), turn.stop_reason),
        (refusal, StopReason::Refusal)
    );
    // Anthropic says so in its stop reason; what text came is the turn's.
    let said = Shape {
        text: refusal,
        ..Shape::default()
    };
    let answer = anthropic_answer_with(
        &anthropic_blocks(&said),
        "refusal",
        &json!({"input_tokens": 9, "output_tokens": 4}),
    );
    let turn = read_both(Wire::Anthropic, answer);
    assert_eq!(
        (turn.content.as_str(), turn.stop_reason),
        (refusal, StopReason::Refusal)
    );
}

#[test]
fn usage_counts_cache_and_reasoning_tokens_on_every_wire_in_one_meaning() {
    let text = Shape {
        text: "Done.",
        ..Shape::default()
    };
    // 2 000 prompt tokens of which 1 536 cached; 300 answer tokens of which 256 reasoning.
    let chat_usage = json!({"prompt_tokens": 2000, "completion_tokens": 300, "total_tokens": 2300,
        "prompt_tokens_details": {"cached_tokens": 1536, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 256, "audio_tokens": 0,
            "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}});
    let billed = Usage::new(2000, 300)
        .with_cache(1536, 0)
        .with_reasoning(256);
    let turn = read_both(Wire::OpenAiChat, chat(&text, "stop", &chat_usage));
    assert_eq!(turn.usage, billed);
    let responses_usage = json!({"input_tokens": 2000, "output_tokens": 300,
        "total_tokens": 2300, "input_tokens_details": {"cached_tokens": 1536},
        "output_tokens_details": {"reasoning_tokens": 256}});
    let turn = read_both(
        Wire::OpenAiResponses,
        responses(&text, "completed", None, &responses_usage),
    );
    assert_eq!(turn.usage, billed);
    // Anthropic counts the cached prompt apart: 64 new, 1 536 read, 400 written.
    let anthropic_usage = json!({"input_tokens": 64, "output_tokens": 300,
        "cache_read_input_tokens": 1536, "cache_creation_input_tokens": 400});
    let answer = anthropic_answer_with(&anthropic_blocks(&text), "end_turn", &anthropic_usage);
    let turn = read_both(Wire::Anthropic, answer);
    assert_eq!(turn.usage, Usage::new(2000, 300).with_cache(1536, 400));
    // Gemini counts thinking apart from the answer and its own tool use's prompt apart.
    let gemini_usage = json!({"promptTokenCount": 1800, "toolUsePromptTokenCount": 200,
        "cachedContentTokenCount": 1536, "candidatesTokenCount": 44,
        "thoughtsTokenCount": 256, "totalTokenCount": 2300});
    let turn = read_both(Wire::Gemini, gemini(&text, "STOP", &gemini_usage));
    assert_eq!(turn.usage, billed);
    // A run adds every field.
    let mut total = billed;
    total.add(Usage::new(2000, 300).with_cache(1536, 400));
    assert_eq!(
        total,
        Usage::new(4000, 600)
            .with_cache(3072, 400)
            .with_reasoning(256)
    );
    // Zero counts are left out of the JSON, so traces of providers without them read as
    // before.
    assert_eq!(
        serde_json::to_value(Usage::new(3, 4)).unwrap(),
        json!({"input_tokens": 3, "output_tokens": 4})
    );
    assert_eq!(
        serde_json::to_value(billed).unwrap(),
        json!({"input_tokens": 2000, "output_tokens": 300, "cache_read_tokens": 1536,
               "reasoning_tokens": 256})
    );
}

#[test]
fn what_the_model_thought_is_read_on_every_wire_that_shows_it() {
    let shape = Shape {
        thinking: "The user wants the file; read it first.",
        text: "Reading.",
        calls: &READ_FILE,
        ..Shape::default()
    };
    let chat_usage = json!({"prompt_tokens": 9, "completion_tokens": 4});
    let turn = read_both(Wire::OpenAiChat, chat(&shape, "tool_calls", &chat_usage));
    assert_eq!(turn.thinking, shape.thinking);
    let responses_usage = json!({"input_tokens": 9, "output_tokens": 4});
    let turn = read_both(
        Wire::OpenAiResponses,
        responses(&shape, "completed", None, &responses_usage),
    );
    assert_eq!(turn.thinking, shape.thinking);
    let gemini_usage = json!({"promptTokenCount": 9, "candidatesTokenCount": 4});
    let turn = read_both(Wire::Gemini, gemini(&shape, "STOP", &gemini_usage));
    assert_eq!(turn.thinking, shape.thinking);
    let answer = anthropic_answer_with(
        &anthropic_blocks(&shape),
        "tool_use",
        &json!({"input_tokens": 9, "output_tokens": 4}),
    );
    let turn = read_both(Wire::Anthropic, answer);
    assert_eq!(turn.thinking, shape.thinking);
    // Thinking is never the turn's text.
    assert_eq!(turn.content, "Reading.");
}

#[test]
fn anthropic_thinking_blocks_go_back_with_their_turn_signatures_whole() {
    let mut blocks = vec![
        json!({"type": "thinking", "thinking": "First, the weather.",
               "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pk"}),
        json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}),
        json!({"type": "thinking", "thinking": "Then the city.", "signature": "Eu8BCkYICBgCKkA"}),
    ];
    blocks.extend(anthropic_blocks(&Shape {
        text: "Checking.",
        calls: &[("toolu_1", "get_weather", r#"{"city":"Paris"}"#)],
        ..Shape::default()
    }));
    let answer = anthropic_answer_with(
        &blocks,
        "tool_use",
        &json!({"input_tokens": 9, "output_tokens": 4}),
    );
    let turn = read_both(Wire::Anthropic, answer);
    assert_eq!(turn.thinking, "First, the weather.\nThen the city.");
    let carried = turn
        .carried
        .clone()
        .expect("the thinking blocks are carried");
    assert_eq!(carried.wire, "anthropic");
    let kept: Value = serde_json::from_str(&carried.json).unwrap();
    assert_eq!(kept, json!(blocks[..3]));

    // The next request sends them back first in the turn, as they came; the tool result after.
    let provider =
        super::AnthropicProvider::new("http://127.0.0.1:9", "m", super::HttpOptions::default())
            .unwrap()
            .with_thinking(2048)
            .unwrap();
    let result = ChatMessage::tool_result(
        "toolu_1",
        crate::wire::WireString::after_seam("18°C and sunny".to_owned(), false),
    )
    .unwrap();
    let messages = [
        ChatMessage::user("Weather in Paris?"),
        ChatMessage::assistant_carrying(
            turn.content.clone(),
            turn.tool_calls.clone(),
            turn.carried,
        ),
        result,
    ];
    let mut request = ProviderRequest::new(&messages, &[]);
    request.temperature = Some(0.2);
    let body: Value = serde_json::from_slice(&provider.request_body(&request).unwrap()).unwrap();
    let mut expected = blocks[..3].to_vec();
    expected.push(json!({"type": "text", "text": "Checking."}));
    expected.push(
        json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                         "input": {"city": "Paris"}}),
    );
    assert_eq!(body["messages"][1]["content"], json!(expected));
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert_eq!(body["max_tokens"], json!(2048 + 4096));
    // Anthropic takes no temperature with thinking.
    assert_eq!(body.get("temperature"), None);

    // Another wire never sends them.
    let openai =
        super::OpenAiProvider::new("http://127.0.0.1:9/v1", "m", super::HttpOptions::default())
            .unwrap();
    let sent = String::from_utf8(openai.request_body(&request).unwrap()).unwrap();
    assert!(
        !sent.contains("First, the weather") && !sent.contains("EqQBCgIY"),
        "{sent}"
    );

    // Without thinking on, no budget is asked for and the temperature goes as given.
    let plain =
        super::AnthropicProvider::new("http://127.0.0.1:9", "m", super::HttpOptions::default())
            .unwrap();
    let body: Value = serde_json::from_slice(&plain.request_body(&request).unwrap()).unwrap();
    assert_eq!(body.get("thinking"), None);
    assert_eq!(body["max_tokens"], json!(4096));
    assert_eq!(body["temperature"], json!(0.2));
}

#[test]
fn a_thinking_budget_under_anthropics_minimum_is_refused_when_the_provider_is_made() {
    let error =
        super::AnthropicProvider::new("http://127.0.0.1:9", "m", super::HttpOptions::default())
            .unwrap()
            .with_thinking(1023)
            .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the provider is not configured: a thinking budget of 1023 tokens is under Anthropic's \
         minimum of 1024"
    );
}

#[test]
fn a_stop_reason_serialises_as_its_name_and_reads_back() {
    for (reason, name) in [
        (StopReason::Finished, "finished"),
        (StopReason::ToolCalls, "tool_calls"),
        (StopReason::Length, "length"),
        (StopReason::Refusal, "refusal"),
        (StopReason::ContentFilter, "content_filter"),
        (StopReason::Other("pause_turn".into()), "pause_turn"),
    ] {
        assert_eq!(serde_json::to_value(&reason).unwrap(), json!(name));
        assert_eq!(
            serde_json::from_value::<StopReason>(json!(name)).unwrap(),
            reason
        );
        assert_eq!(reason.to_string(), name);
    }
}

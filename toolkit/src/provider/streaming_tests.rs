//! Every wire's streamed answer assembles to exactly the turn of the same answer whole, however
//! its bytes are cut: inside lines, inside characters, with any line end.

use bytes::Bytes;
use futures_util::{StreamExt, stream};
use proptest::prelude::*;
use serde_json::json;
use toolkit_testing::streams::{Call, REASONING_ITEM, TEXT_SIGNATURE, Turn, Wire, call_signature};

use super::sse::{Cut, decoded, events_of};
use super::stream::{Assembler, DeltaStream};
use super::{ProviderError, ProviderResponse, Usage, anthropic, gemini, openai, responses};
use crate::wire::{Carried, ToolCall};

/// The wires these tests read.
const WIRES: [Wire; 4] = Wire::ALL;

pub(super) fn whole(wire: Wire, bytes: &[u8]) -> Result<ProviderResponse, ProviderError> {
    match wire {
        Wire::OpenAiChat => openai::whole_answer(bytes),
        Wire::Anthropic => anthropic::whole_answer(bytes),
        Wire::OpenAiResponses => responses::whole_answer(bytes),
        Wire::Gemini => gemini::whole_answer(bytes),
    }
}

fn deltas(wire: Wire, chunks: Vec<Result<Bytes, Cut>>, max_line: usize) -> DeltaStream<'static> {
    let events = events_of(stream::iter(chunks), 16 * 1024 * 1024, max_line);
    match wire {
        Wire::OpenAiChat => decoded(events, openai::ChunkDecoder::default()),
        Wire::Anthropic => decoded(events, anthropic::EventDecoder::default()),
        Wire::OpenAiResponses => decoded(events, responses::EventDecoder::default()),
        Wire::Gemini => decoded(events, gemini::ChunkDecoder::default()),
    }
}

/// The turn a stream of these chunks assembles to.
pub(super) fn assembled(
    wire: Wire,
    chunks: Vec<Result<Bytes, Cut>>,
    max_line: usize,
) -> Result<ProviderResponse, ProviderError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut deltas = deltas(wire, chunks, max_line);
        let mut assembler = Assembler::new();
        while let Some(delta) = deltas.next().await {
            assembler.push(&delta?)?;
        }
        Ok(assembler.finish())
    })
}

/// `body` cut at these positions (taken modulo its length, in any order).
pub(super) fn cut(body: &[u8], cuts: &[usize]) -> Vec<Result<Bytes, Cut>> {
    let mut at: Vec<usize> = cuts.iter().map(|cut| cut % (body.len() + 1)).collect();
    at.extend([0, body.len()]);
    at.sort_unstable();
    at.dedup();
    at.windows(2)
        .map(|pair| Ok(Bytes::copy_from_slice(&body[pair[0]..pair[1]])))
        .collect()
}

/// The turn as the loop reads it from `wire`.
fn expected(wire: Wire, turn: &Turn) -> ProviderResponse {
    let calls = turn
        .calls
        .iter()
        .map(|call| {
            ToolCall::new(
                call.id.as_str(),
                call.name.as_str(),
                call.arguments.as_str(),
            )
        })
        .collect();
    let carried = match wire {
        // The item as the server wrote it (the fixture writes JSON with its keys sorted).
        Wire::OpenAiResponses if turn.reasoning => Some(Carried::new(
            "openai-responses",
            format!(
                "[{}]",
                serde_json::from_str::<serde_json::Value>(REASONING_ITEM).unwrap()
            ),
        )),
        // Gemini's state: the text's signature, then each call's, with whether its id is
        // Gemini's own.
        Wire::Gemini => {
            let calls: Vec<String> = (0..turn.calls.len())
                .map(|position| {
                    if turn.reasoning {
                        format!(
                            r#"{{"signature":"{}","id":true}}"#,
                            call_signature(position)
                        )
                    } else {
                        r#"{"id":true}"#.to_owned()
                    }
                })
                .collect();
            let mut fields = Vec::new();
            if turn.reasoning && !turn.text.is_empty() {
                fields.push(format!(r#""text":"{TEXT_SIGNATURE}""#));
            }
            if !calls.is_empty() {
                fields.push(format!(r#""calls":[{}]"#, calls.join(",")));
            }
            (!fields.is_empty())
                .then(|| Carried::new("gemini", format!("{{{}}}", fields.join(","))))
        }
        _ => None,
    };
    ProviderResponse::new(
        turn.text.clone(),
        calls,
        Usage::new(turn.usage.0, turn.usage.1),
    )
    .with_carried(carried)
}

fn text() -> impl Strategy<Value = String> {
    // Characters of one to four bytes, quotes, backslashes, line ends and what JSON escapes.
    proptest::collection::vec(
        prop_oneof![
            Just("a"),
            Just("Z"),
            Just(" "),
            Just("é"),
            Just("✓"),
            Just("日本"),
            Just("🐤"),
            Just("\""),
            Just("\\"),
            Just("\n"),
            Just("\r\n"),
            Just("\t"),
            Just("data: x"),
            Just("\u{2028}"),
            Just("[DONE]"),
        ],
        0..24,
    )
    .prop_map(|pieces| pieces.concat())
}

fn turn() -> impl Strategy<Value = Turn> {
    let call =
        (0..3usize, text(), any::<i32>(), any::<bool>()).prop_map(|(tool, path, n, flag)| {
            let name = ["read_file", "query_sql", "régler"][tool];
            Call::new(
                "",
                name,
                &json!({"path": path, "n": n, "flag": flag, "list": [1, {"k": "v"}]}),
            )
        });
    (
        text(),
        proptest::collection::vec(call, 0..4),
        0..100_000u64,
        0..100_000u64,
        any::<bool>(),
    )
        .prop_map(|(text, mut calls, input, output, reasoning)| {
            for (position, call) in calls.iter_mut().enumerate() {
                call.id = format!("call_{position}");
            }
            Turn {
                text,
                calls,
                usage: (input, output),
                reasoning,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn a_streamed_answer_cut_anywhere_assembles_to_the_whole_one(
        turn in turn(),
        wire in prop::sample::select(WIRES.to_vec()),
        piece in 1..6usize,
        cuts in proptest::collection::vec(any::<usize>(), 0..48),
        line_end in prop::sample::select(vec!["\n", "\r\n", "\r"]),
    ) {
        let whole_turn = whole(wire, turn.whole(wire).to_string().as_bytes()).unwrap();
        prop_assert_eq!(&whole_turn, &expected(wire, &turn));
        let body = String::from_utf8(turn.streamed(wire, piece)).unwrap().replace('\n', line_end);
        let streamed = assembled(wire, cut(body.as_bytes(), &cuts), usize::MAX).unwrap();
        prop_assert_eq!(streamed, whole_turn);
    }
}

fn sample() -> Turn {
    Turn::calls(
        "Reading ✓",
        vec![Call::new("call_0", "read_file", &json!({"path": "a.txt"}))],
    )
}

#[test]
fn a_stream_cut_before_its_end_is_an_error_on_every_wire() {
    for wire in WIRES {
        let body = sample().streamed(wire, 3);
        // Cut mid-answer, inside the last event, just before it, and after its data line
        // without the blank line that ends it.
        let last = body[..body.len() - 2]
            .iter()
            .rposition(|byte| *byte == b'\n')
            .unwrap();
        for end in [body.len() / 2, body.len() - 5, last + 1, body.len() - 1] {
            let error = assembled(wire, cut(&body[..end], &[]), usize::MAX).unwrap_err();
            assert_eq!(
                error.to_string(),
                "the provider's answer is unusable: the stream ended before the answer did \
                 (the connection was closed mid-answer)",
                "{wire:?} cut at {end}"
            );
        }
    }
}

#[test]
fn a_line_past_the_cap_ends_the_stream_whether_it_comes_whole_or_in_pieces() {
    for wire in WIRES {
        let body = sample().streamed(wire, 1000);
        let longest = String::from_utf8(body.clone())
            .unwrap()
            .lines()
            .map(str::len)
            .max()
            .unwrap();
        for cuts in [vec![], (0..body.len()).step_by(7).collect()] {
            let error = assembled(wire, cut(&body, &cuts), longest - 1).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!(
                    "the provider's answer is unusable: a line of the event stream is longer \
                     than {} bytes",
                    longest - 1
                )
            );
            assert_eq!(
                assembled(wire, cut(&body, &cuts), longest).unwrap(),
                expected(wire, &sample())
            );
        }
    }
}

#[test]
fn an_answer_past_the_size_cap_ends_the_stream() {
    let body = sample().streamed(Wire::OpenAiChat, 2);
    let events = events_of(
        stream::iter(cut(&body, &[10, 500])),
        body.len() - 1,
        usize::MAX,
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let errors: Vec<String> = runtime.block_on(
        decoded(events, openai::ChunkDecoder::default())
            .filter_map(|delta| async move { delta.err().map(|error| error.to_string()) })
            .collect(),
    );
    assert_eq!(
        errors,
        [format!(
            "the provider's answer is unusable: the answer is larger than {} bytes",
            body.len() - 1
        )]
    );
}

#[test]
fn a_chat_answer_of_several_choices_is_read_as_its_choice_0_streamed_and_whole() {
    // Chunks of `n: 2` interleave the two answers, in either order within a chunk.
    let streamed = "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"{\\\"\"}},{\"index\":0,\"delta\":{\"content\":\"Par\"}}]}\n\n\
                    data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"is\"}}]}\n\n\
                    data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"city\"}}]}\n\n\
                    data: [DONE]\n\n";
    let turn = assembled(Wire::OpenAiChat, cut(streamed.as_bytes(), &[]), usize::MAX).unwrap();
    assert_eq!(turn.content, "Paris");
    let answer = json!({"choices": [
        {"index": 1, "message": {"content": "{\"city"}},
        {"index": 0, "message": {"content": "Paris"}},
    ]});
    let turn = whole(Wire::OpenAiChat, answer.to_string().as_bytes()).unwrap();
    assert_eq!(turn.content, "Paris");
    // One answer without an index is answer 0.
    let single = json!({"choices": [{"message": {"content": "Paris"}}]});
    let turn = whole(Wire::OpenAiChat, single.to_string().as_bytes()).unwrap();
    assert_eq!(turn.content, "Paris");
}

#[test]
fn an_error_event_ends_the_stream_with_the_servers_message() {
    let openai = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n\
                  data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}\n\n";
    let anthropic = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n\
                     event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let responses = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"status\":\"in_progress\",\"output\":[]}}\n\n\
                     event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached\",\"param\":null}\n\n";
    let nested = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"too_many_requests\",\"message\":\"Too many\"}}\n\n";
    let failed = "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"The model failed\"},\"output\":[]}}\n\n";
    let gemini = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hi\"}]}}]}\r\n\r\n\
                  data: {\"error\":{\"code\":500,\"message\":\"Internal error\",\"status\":\"INTERNAL\"}}\r\n\r\n";
    let blocked = "data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}\r\n\r\n";
    for (wire, body, message) in [
        (Wire::OpenAiChat, openai, "The server had an error"),
        (Wire::Anthropic, anthropic, "Overloaded"),
        (Wire::OpenAiResponses, responses, "Rate limit reached"),
        (Wire::OpenAiResponses, nested, "Too many"),
        (Wire::OpenAiResponses, failed, "The model failed"),
        (Wire::Gemini, gemini, "Internal error"),
        (Wire::Gemini, blocked, "the prompt was blocked (\"SAFETY\")"),
    ] {
        let error = assembled(wire, cut(body.as_bytes(), &[]), usize::MAX).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("the provider stopped its answer with an error: {message}")
        );
    }
}

#[test]
fn an_event_whose_json_is_cut_ends_the_stream_naming_the_event() {
    for wire in WIRES {
        let body = String::from_utf8(sample().streamed(wire, 4)).unwrap();
        // The first data line loses its JSON's end; its event is still ended by a blank line.
        let data = body.find("data: ").unwrap();
        let end = data + body[data..].find('\n').unwrap();
        let truncated = format!("{}{}", &body[..end - 3], &body[end..]);
        let error = assembled(wire, cut(truncated.as_bytes(), &[]), usize::MAX).unwrap_err();
        let event = match wire {
            Wire::Anthropic => "message_start",
            Wire::OpenAiResponses => "response.created",
            Wire::OpenAiChat | Wire::Gemini => "message",
        };
        assert!(
            error.to_string().starts_with(&format!(
                "the provider's answer is unusable: the stream's {event} event is not the \
                 expected JSON: EOF while parsing"
            )),
            "{wire:?}: {error}"
        );
    }
}

#[test]
fn a_transport_failure_mid_stream_is_the_transport_error() {
    let body = sample().streamed(Wire::Anthropic, 3);
    let mut chunks = cut(&body[..body.len() / 2], &[]);
    chunks.push(Err(Cut::Transport(ProviderError::Transport {
        message: "connection reset".to_owned(),
        source: "connection reset".into(),
    })));
    let error = assembled(Wire::Anthropic, chunks, usize::MAX).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot reach the provider: connection reset"
    );
}

/// `body`'s events (its blank-line-separated blocks), each rewritten by `frame` from its lines
/// (`event:` and `data:` as the fixture writes them).
fn reframed(body: &[u8], frame: impl Fn(Vec<String>) -> Vec<String>) -> Vec<u8> {
    let text = String::from_utf8(body.to_vec()).unwrap();
    let mut out = String::new();
    for block in text.split("\n\n").filter(|block| !block.is_empty()) {
        for line in frame(block.lines().map(str::to_owned).collect()) {
            out.push_str(&line);
            out.push('\n');
        }
        out.push('\n');
    }
    out.into_bytes()
}

/// `body` written each way the server-sent events standard reads as the same events, with the
/// rule of its parsing algorithm that says so.
fn framings(body: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let before = |extra: &'static [&'static str]| {
        reframed(body, move |lines| {
            extra
                .iter()
                .map(|line| (*line).to_owned())
                .chain(lines)
                .collect()
        })
    };
    let each = |rewrite: fn(&str) -> Vec<String>| {
        reframed(body, move |lines| {
            lines.iter().flat_map(|line| rewrite(line)).collect()
        })
    };
    let mut bom = "\u{feff}".as_bytes().to_vec();
    bom.extend_from_slice(body);
    let keep_alives = String::from_utf8(body.to_vec())
        .unwrap()
        .replace("\n\n", "\n\ndata:\n\n: ping\n\n\n\n")
        .into_bytes();
    vec![
        (
            "a line that starts with a colon is a comment",
            before(&[": keep-alive"]),
        ),
        (
            "a line without a colon is a field named by the whole line, with no value",
            before(&["ping"]),
        ),
        (
            "a field of another name is ignored",
            before(&["x-request: 7", "Data: {}"]),
        ),
        (
            "a retry field that is not only digits is ignored",
            before(&["retry: soon", "retry: -5", "retry:"]),
        ),
        (
            "a retry field of digits sets the reconnection time",
            before(&["retry: 3000"]),
        ),
        (
            "an id field sets the last event id",
            before(&["id: 42", "id"]),
        ),
        (
            "an event field set twice keeps the last value",
            each(|line| {
                if line.starts_with("data") && !line.contains("[DONE]") {
                    vec!["event: first".to_owned(), line.to_owned()]
                } else {
                    vec![line.to_owned()]
                }
            }),
        ),
        (
            "one space after the colon is dropped, and only one",
            each(|line| {
                vec![
                    line.replacen("data: ", "data:", 1)
                        .replacen("event: ", "event:", 1),
                ]
            }),
        ),
        (
            "data lines are joined by line feeds",
            each(|line| match line.strip_prefix("data: {") {
                Some(rest) => vec!["data: {".to_owned(), format!("data: {rest}")],
                None => vec![line.to_owned()],
            }),
        ),
        ("a byte order mark at the start is dropped", bom),
        (
            "an empty line with nothing before it dispatches nothing",
            keep_alives,
        ),
        (
            "a value keeps what follows its one space",
            each(|line| vec![line.replacen("data: ", "data:  ", 1)]),
        ),
    ]
}

#[test]
fn every_framing_the_standard_reads_as_the_same_events_gives_the_same_turn_on_every_wire() {
    let mut refused = Vec::new();
    for wire in WIRES {
        let body = sample().streamed(wire, 3);
        for (rule, framed) in framings(&body) {
            for cuts in [vec![], (0..framed.len()).step_by(5).collect()] {
                match assembled(wire, cut(&framed, &cuts), usize::MAX) {
                    Ok(turn) if turn == expected(wire, &sample()) => {}
                    Ok(turn) => refused.push(format!("{wire:?}: {rule}: read as {turn:?}")),
                    Err(error) => refused.push(format!("{wire:?}: {rule}: {error}")),
                }
            }
        }
    }
    assert!(refused.is_empty(), "{refused:#?}");
}

#[test]
fn what_follows_an_answers_end_marker_is_never_read() {
    let ends = [
        (Wire::OpenAiChat, "data: [DONE]\n\n"),
        (
            Wire::Anthropic,
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        ),
        (Wire::OpenAiResponses, "\"type\":\"response.completed\""),
    ];
    for (wire, end) in ends {
        let body = sample().streamed(wire, 3);
        let end = String::from_utf8(body.clone()).unwrap().find(end).unwrap();
        let end = end
            + body[end..]
                .windows(2)
                .position(|pair| pair == b"\n\n")
                .unwrap()
            + 2;
        let longest = body[..end]
            .split(|byte| *byte == b'\n')
            .map(<[u8]>::len)
            .max()
            .unwrap();
        // Junk, bytes that are not UTF-8, a line past the line cap, bytes past the size cap.
        let long = vec![b'x'; longest + 1];
        let junk: [&[u8]; 4] = [
            b"data: {not json\n\n",
            b"\xff\xfe not UTF-8\n\n",
            &long,
            &[b'\n'; 4096],
        ];
        for junk in junk {
            let mut framed = body[..end].to_vec();
            framed.extend_from_slice(junk);
            for cuts in [vec![], vec![end], (0..framed.len()).step_by(5).collect()] {
                let events = events_of(stream::iter(cut(&framed, &cuts)), end + 100, longest);
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                let turn = runtime.block_on(async {
                    let mut deltas = match wire {
                        Wire::OpenAiChat => decoded(events, openai::ChunkDecoder::default()),
                        Wire::Anthropic => decoded(events, anthropic::EventDecoder::default()),
                        _ => decoded(events, responses::EventDecoder::default()),
                    };
                    let mut assembler = Assembler::new();
                    while let Some(delta) = deltas.next().await {
                        assembler.push(&delta?)?;
                    }
                    Ok::<_, ProviderError>(assembler.finish())
                });
                assert_eq!(
                    turn.unwrap(),
                    expected(wire, &sample()),
                    "{wire:?} followed by {:?}",
                    String::from_utf8_lossy(junk)
                );
            }
        }
    }
}

/// An Anthropic answer of these content blocks, whole and as the stream the API writes: text in
/// deltas (citations as `citations_delta`), a server tool's input in `input_json_delta`s as a
/// call's, a server tool's result whole in its start.
pub(super) fn anthropic_answer(blocks: &[serde_json::Value]) -> (Vec<u8>, Vec<u8>) {
    anthropic_answer_with(
        blocks,
        "end_turn",
        &json!({"input_tokens": 40, "output_tokens": 9,
                "server_tool_use": {"web_search_requests": 1}}),
    )
}

/// The same, stopped for `stop_reason`, with `usage` (its output count given at the end, the
/// rest at the start, as the API streams them).
pub(super) fn anthropic_answer_with(
    blocks: &[serde_json::Value],
    stop_reason: &str,
    usage: &serde_json::Value,
) -> (Vec<u8>, Vec<u8>) {
    let whole = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": blocks, "stop_reason": stop_reason, "usage": usage});
    let mut started = usage.clone();
    started["output_tokens"] = json!(1);
    let mut events = vec![json!({"type": "message_start", "message": {"id": "msg_1",
        "type": "message", "role": "assistant", "model": "m", "content": [],
        "usage": started}})];
    for (index, block) in blocks.iter().enumerate() {
        let kind = block["type"].as_str().unwrap();
        match kind {
            "text" => {
                events.push(json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "text", "text": ""}}));
                for citation in block["citations"].as_array().into_iter().flatten() {
                    events.push(json!({"type": "content_block_delta", "index": index,
                        "delta": {"type": "citations_delta", "citation": citation}}));
                }
                let text = block["text"].as_str().unwrap();
                let middle = text
                    .char_indices()
                    .nth(text.chars().count() / 2)
                    .map_or(0, |(at, _)| at);
                for piece in [&text[..middle], &text[middle..]] {
                    events.push(json!({"type": "content_block_delta", "index": index,
                        "delta": {"type": "text_delta", "text": piece}}));
                }
            }
            "thinking" => {
                events.push(json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""}}));
                let thinking = block["thinking"].as_str().unwrap();
                for piece in [
                    &thinking[..thinking.len() / 2],
                    &thinking[thinking.len() / 2..],
                ] {
                    events.push(json!({"type": "content_block_delta", "index": index,
                        "delta": {"type": "thinking_delta", "thinking": piece}}));
                }
                events.push(json!({"type": "content_block_delta", "index": index,
                    "delta": {"type": "signature_delta", "signature": block["signature"]}}));
            }
            "server_tool_use" | "mcp_tool_use" | "tool_use" => {
                let mut start = block.clone();
                start["input"] = json!({});
                events.push(json!({"type": "content_block_start", "index": index,
                    "content_block": start}));
                let input = block["input"].to_string();
                for piece in [&input[..input.len() / 2], &input[input.len() / 2..]] {
                    events.push(json!({"type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece}}));
                }
            }
            _ => events.push(json!({"type": "content_block_start", "index": index,
                "content_block": block})),
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.push(
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason},
        "usage": {"output_tokens": usage["output_tokens"]}}),
    );
    events.push(json!({"type": "message_stop"}));
    let stream = named_events(&events);
    (whole.to_string().into_bytes(), stream.into_bytes())
}

#[test]
fn anthropic_server_tool_blocks_are_skipped_alike_streamed_and_whole() {
    let weather = json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather",
        "input": {"city": "Paris"}});
    let answers = [
        // Web search: the search, its results, and text citing them.
        vec![
            json!({"type": "text", "text": "I'll search for when Claude Shannon was born."}),
            json!({"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
                "input": {"query": "claude shannon birth date"}}),
            json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [
                {"type": "web_search_result", "url": "https://en.wikipedia.org/wiki/Claude_Shannon",
                 "title": "Claude Shannon - Wikipedia", "encrypted_content": "EqgfCioIARgBIiQ3",
                 "page_age": "April 30, 2025"}]}),
            json!({"type": "text", "text": "Based on the search results, "}),
            json!({"type": "text", "text": "Claude Shannon was born on April 30, 1916",
                "citations": [{"type": "web_search_result_location",
                    "url": "https://en.wikipedia.org/wiki/Claude_Shannon",
                    "title": "Claude Shannon - Wikipedia", "encrypted_index": "Eo8BCioIAhgB",
                    "cited_text": "Claude Elwood Shannon (April 30, 1916 – February 24, 2001)"}]}),
        ],
        // Web fetch, its document whole in the result.
        vec![
            json!({"type": "server_tool_use", "id": "srvtoolu_02", "name": "web_fetch",
                "input": {"url": "https://example.com/article"}}),
            json!({"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_02", "content": {
                "type": "web_fetch_result", "url": "https://example.com/article",
                "content": {"type": "document", "source": {"type": "text",
                    "media_type": "text/plain", "data": "Full text"}, "title": "Article",
                    "citations": {"enabled": true}},
                "retrieved_at": "2025-08-25T10:30:00Z"}}),
            json!({"type": "text", "text": "The article says so."}),
            weather.clone(),
        ],
        // Code execution, then a call of ours.
        vec![
            json!({"type": "server_tool_use", "id": "srvtoolu_03", "name": "bash_code_execution",
                "input": {"command": "python -c 'print(2**10)'"}}),
            json!({"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_03",
                "content": {"type": "bash_code_execution_result", "stdout": "1024\n",
                    "stderr": "", "return_code": 0, "content": []}}),
            json!({"type": "text", "text": "2**10 is 1024."}),
            weather.clone(),
        ],
        // The MCP connector: a remote server's tool, its result's text blocks.
        vec![
            json!({"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "echo",
                "server_name": "example-mcp", "input": {"param1": "value1"}}),
            json!({"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": false,
                "content": [{"type": "text", "text": "value1"}]}),
            json!({"type": "text", "text": "It echoed value1."}),
        ],
    ];
    for blocks in answers {
        let (whole_bytes, stream) = anthropic_answer(&blocks);
        let whole_turn = whole(Wire::Anthropic, &whole_bytes).unwrap();
        let texts: Vec<&str> = blocks
            .iter()
            .filter(|block| block["type"] == "text")
            .map(|block| block["text"].as_str().unwrap())
            .collect();
        assert_eq!(whole_turn.content, texts.join("\n"));
        let ours: Vec<ToolCall> = blocks
            .iter()
            .filter(|block| block["type"] == "tool_use")
            .map(|_| ToolCall::new("toolu_1", "get_weather", r#"{"city":"Paris"}"#))
            .collect();
        assert_eq!(whole_turn.tool_calls, ours);
        for cuts in [vec![], (0..stream.len()).step_by(11).collect()] {
            assert_eq!(
                assembled(Wire::Anthropic, cut(&stream, &cuts), usize::MAX).unwrap(),
                whole_turn
            );
        }
    }
}

#[test]
fn anthropic_input_for_a_block_never_started_is_still_refused() {
    let stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n\
                  event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\n";
    assert_eq!(
        assembled(Wire::Anthropic, cut(stream.as_bytes(), &[]), usize::MAX)
            .unwrap_err()
            .to_string(),
        "the provider's answer is unusable: the stream sends input for block 3, which has not \
         started"
    );
}

#[test]
fn responses_items_the_loop_does_not_use_are_skipped_alike_streamed_and_whole() {
    let items = [
        json!({"type": "tool_search_call", "id": "ts_1", "call_id": null,
            "arguments": {"query": "weather tools"}, "status": "completed"}),
        json!({"type": "tool_search_output", "id": "tso_1", "call_id": null,
            "tools": [{"type": "function", "name": "get_weather"}], "status": "completed"}),
        json!({"type": "shell_call", "id": "sh_1", "call_id": "call_sh",
            "action": {"commands": ["ls -la"], "timeout_ms": 120_000}, "status": "completed"}),
        json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "Checking.", "annotations": []}]}),
        json!({"type": "function_call", "id": "fc_1", "call_id": "call_1",
            "name": "get_weather", "arguments": "{\"city\":\"Paris\"}", "status": "completed"}),
    ];
    let response = json!({"id": "resp_1", "object": "response", "status": "completed",
        "output": items, "usage": {"input_tokens": 30, "output_tokens": 12}});
    let whole_turn = whole(Wire::OpenAiResponses, response.to_string().as_bytes()).unwrap();
    assert_eq!(
        whole_turn,
        ProviderResponse::new(
            "Checking.",
            vec![ToolCall::new(
                "call_1",
                "get_weather",
                r#"{"city":"Paris"}"#
            )],
            Usage::new(30, 12)
        )
    );
    let mut events = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let mut added = item.clone();
        if item["type"] == "message" {
            added["content"] = json!([]);
        }
        if item["type"] == "function_call" {
            added["arguments"] = json!("");
        }
        events.push(
            json!({"type": "response.output_item.added", "output_index": index,
            "item": added}),
        );
        match item["type"].as_str().unwrap() {
            "shell_call" => events.push(json!({"type": "response.shell_call_command.delta",
                "output_index": index, "delta": {"commands": ["ls -la"]}})),
            "tool_search_call" => events
                .push(json!({"type": "response.tool_search_call.arguments.delta",
                "output_index": index, "call_id": null, "delta": {"query": "weather tools"}})),
            "message" => events.push(json!({"type": "response.output_text.delta",
                "output_index": index, "content_index": 0, "delta": "Checking."})),
            "function_call" => events
                .push(json!({"type": "response.function_call_arguments.delta",
                "output_index": index, "delta": "{\"city\":\"Paris\"}"})),
            _ => {}
        }
        events.push(
            json!({"type": "response.output_item.done", "output_index": index,
            "item": item}),
        );
    }
    events.push(json!({"type": "response.completed", "response": response}));
    let stream = named_events(&events);
    assert_eq!(
        assembled(
            Wire::OpenAiResponses,
            cut(stream.as_bytes(), &[]),
            usize::MAX
        )
        .unwrap(),
        whole_turn
    );
}

/// Events as a stream whose every event is named by its data's `type`.
pub(super) fn named_events(events: &[serde_json::Value]) -> String {
    use std::fmt::Write as _;
    events.iter().fold(String::new(), |mut stream, event| {
        let name = event["type"].as_str().unwrap();
        write!(stream, "event: {name}\ndata: {event}\n\n").unwrap();
        stream
    })
}

#[test]
fn chat_arguments_sent_as_an_object_read_as_its_json_text_streamed_and_whole() {
    let call = json!({"id": "c1", "type": "function",
        "function": {"name": "get_weather", "arguments": {"city": "Paris"}}});
    let answer = json!({"choices": [{"index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": null, "tool_calls": [call]}}]});
    let turn = whole(Wire::OpenAiChat, answer.to_string().as_bytes()).unwrap();
    assert_eq!(
        turn.tool_calls,
        [ToolCall::new("c1", "get_weather", r#"{"city":"Paris"}"#)]
    );
    let mut streamed_call = call.clone();
    streamed_call["index"] = json!(0);
    let stream = format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [streamed_call]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    );
    let streamed = assembled(Wire::OpenAiChat, cut(stream.as_bytes(), &[]), usize::MAX).unwrap();
    assert_eq!(streamed.tool_calls, turn.tool_calls);
    // `null` arguments are none at all.
    let mut empty = answer.clone();
    empty["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = json!(null);
    let turn = whole(Wire::OpenAiChat, empty.to_string().as_bytes()).unwrap();
    assert_eq!(turn.tool_calls, [ToolCall::new("c1", "get_weather", "")]);
}

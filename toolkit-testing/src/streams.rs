//! One model turn in each provider wire's two shapes: the whole answer (JSON) and the same
//! answer streamed (the exact server-sent events the wire's servers write), for tests that
//! check a streamed answer assembles to the whole one, and for servers that play either.

use std::fmt::Write as _;

use serde_json::{Value, json};

/// The wires a provider speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Chat Completions.
    OpenAiChat,
    /// Anthropic Messages.
    Anthropic,
    /// OpenAI Responses.
    OpenAiResponses,
    /// Gemini `generateContent`.
    Gemini,
}

impl Wire {
    /// Every wire.
    pub const ALL: [Wire; 4] = [
        Wire::OpenAiChat,
        Wire::Anthropic,
        Wire::OpenAiResponses,
        Wire::Gemini,
    ];
}

/// One call of a turn: its id, tool and arguments' JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// The id the provider gives it (Gemini's wire carries one too).
    pub id: String,
    /// The tool.
    pub name: String,
    /// The arguments as JSON text, compact as servers write it.
    pub arguments: String,
}

impl Call {
    /// A call of `name` with `arguments`, its id `id`.
    pub fn new(id: &str, name: &str, arguments: &Value) -> Self {
        Self {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments: arguments.to_string(),
        }
    }
}

/// One model turn: text, calls, token counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The text (may be empty).
    pub text: String,
    /// The calls, in order.
    pub calls: Vec<Call>,
    /// Prompt and answer tokens.
    pub usage: (u64, u64),
    /// Whether the model reasoned: Responses then sends a reasoning item first, and Gemini
    /// signs its text and each call (a thought signature on the part).
    pub reasoning: bool,
}

/// The reasoning item a Responses turn that reasoned begins with.
pub const REASONING_ITEM: &str =
    r#"{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA-opaque"}"#;

/// The thought signature of a Gemini turn's text.
pub const TEXT_SIGNATURE: &str = "c2lnLXRleHQ=";

/// The thought signature of a Gemini turn's call at `position`.
pub fn call_signature(position: usize) -> String {
    format!("c2lnLWNhbGw{position}")
}

impl Turn {
    /// A turn of only text.
    pub fn text(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            calls: Vec::new(),
            usage: (11, 7),
            reasoning: false,
        }
    }

    /// A turn of these calls, after `text`.
    pub fn calls(text: &str, calls: Vec<Call>) -> Self {
        Self {
            text: text.to_owned(),
            calls,
            usage: (13, 5),
            reasoning: false,
        }
    }

    /// The whole answer's JSON body on `wire`.
    pub fn whole(&self, wire: Wire) -> Value {
        let (input, output) = self.usage;
        match wire {
            Wire::OpenAiChat => {
                let mut message = json!({"role": "assistant", "content": self.content()});
                if !self.calls.is_empty() {
                    message["tool_calls"] = self
                        .calls
                        .iter()
                        .map(|call| {
                            json!({"id": call.id, "type": "function",
                                   "function": {"name": call.name, "arguments": call.arguments}})
                        })
                        .collect();
                }
                json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
                       "choices": [{"index": 0, "message": message, "finish_reason": self.finish()}],
                       "usage": {"prompt_tokens": input, "completion_tokens": output,
                                 "total_tokens": input + output}})
            }
            Wire::Anthropic => {
                let mut content: Vec<Value> = self
                    .content()
                    .map(|text| json!({"type": "text", "text": text}))
                    .into_iter()
                    .collect();
                for call in &self.calls {
                    content.push(json!({"type": "tool_use", "id": call.id, "name": call.name,
                                        "input": arguments(call)}));
                }
                json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "test-model",
                       "content": content, "stop_reason": self.anthropic_finish(), "stop_sequence": null,
                       "usage": {"input_tokens": input, "output_tokens": output}})
            }
            Wire::OpenAiResponses => json!({
                "id": "resp_1", "object": "response", "status": "completed", "model": "test-model",
                "output": self.responses_items(true),
                "usage": {"input_tokens": input, "output_tokens": output,
                          "total_tokens": input + output}
            }),
            Wire::Gemini => json!({
                "candidates": [{"content": {"role": "model", "parts": self.gemini_parts()},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": input, "candidatesTokenCount": output,
                                  "totalTokenCount": input + output},
                "modelVersion": "test-model"
            }),
        }
    }

    /// The same answer as the server-sent events `wire`'s servers write, its text and each
    /// call's arguments cut into pieces of at most `piece` characters (at least 1).
    pub fn streamed(&self, wire: Wire, piece: usize) -> Vec<u8> {
        let mut events = Events::default();
        match wire {
            Wire::OpenAiChat => self.chat_events(&mut events, piece),
            Wire::Anthropic => self.anthropic_events(&mut events, piece),
            Wire::OpenAiResponses => self.responses_events(&mut events, piece),
            Wire::Gemini => self.gemini_events(&mut events, piece),
        }
        events.bytes.into_bytes()
    }

    fn chat_events(&self, events: &mut Events, piece: usize) {
        let (input, output) = self.usage;
        let chunk = |delta: Value, finish: Value| {
            json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
                   "model": "test-model",
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        };
        events.data(&chunk(
            json!({"role": "assistant", "content": ""}),
            Value::Null,
        ));
        for text in pieces(&self.text, piece) {
            events.data(&chunk(json!({"content": text}), Value::Null));
        }
        for (index, call) in self.calls.iter().enumerate() {
            events.data(&chunk(
                json!({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                                       "function": {"name": call.name, "arguments": ""}}]}),
                Value::Null,
            ));
            for fragment in pieces(&call.arguments, piece) {
                events.data(&chunk(
                    json!({"tool_calls": [{"index": index,
                                           "function": {"arguments": fragment}}]}),
                    Value::Null,
                ));
            }
        }
        events.data(&chunk(json!({}), json!(self.finish())));
        events.data(
            &json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
                            "created": 1, "model": "test-model", "choices": [],
                            "usage": {"prompt_tokens": input, "completion_tokens": output,
                                      "total_tokens": input + output}}),
        );
        events.raw_data("[DONE]");
    }

    fn anthropic_events(&self, events: &mut Events, piece: usize) {
        let (input, output) = self.usage;
        events.named(
            "message_start",
            &json!({"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "content": [],
            "model": "test-model", "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input, "output_tokens": 1}}}),
        );
        let mut block = 0;
        if let Some(text) = self.content() {
            events.named(
                "content_block_start",
                &json!({"type": "content_block_start",
                "index": block, "content_block": {"type": "text", "text": ""}}),
            );
            events.named("ping", &json!({"type": "ping"}));
            for text in pieces(text, piece) {
                events.named(
                    "content_block_delta",
                    &json!({"type": "content_block_delta",
                    "index": block, "delta": {"type": "text_delta", "text": text}}),
                );
            }
            events.named(
                "content_block_stop",
                &json!({"type": "content_block_stop", "index": block}),
            );
            block += 1;
        }
        for call in &self.calls {
            events.named(
                "content_block_start",
                &json!({"type": "content_block_start",
                "index": block, "content_block": {"type": "tool_use", "id": call.id,
                                                  "name": call.name, "input": {}}}),
            );
            events.named(
                "content_block_delta",
                &json!({"type": "content_block_delta",
                "index": block, "delta": {"type": "input_json_delta", "partial_json": ""}}),
            );
            for fragment in pieces(&call.arguments, piece) {
                events.named(
                    "content_block_delta",
                    &json!({"type": "content_block_delta",
                    "index": block,
                    "delta": {"type": "input_json_delta", "partial_json": fragment}}),
                );
            }
            events.named(
                "content_block_stop",
                &json!({"type": "content_block_stop", "index": block}),
            );
            block += 1;
        }
        events.named(
            "message_delta",
            &json!({"type": "message_delta",
            "delta": {"stop_reason": self.anthropic_finish(), "stop_sequence": null},
            "usage": {"output_tokens": output}}),
        );
        events.named("message_stop", &json!({"type": "message_stop"}));
    }

    /// The text as a whole answer carries it: `None` when there is none.
    fn content(&self) -> Option<&str> {
        (!self.text.is_empty()).then_some(self.text.as_str())
    }

    /// Chat Completions' `finish_reason`.
    fn finish(&self) -> &'static str {
        if self.calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        }
    }

    /// Anthropic's `stop_reason`.
    fn anthropic_finish(&self) -> &'static str {
        if self.calls.is_empty() {
            "end_turn"
        } else {
            "tool_use"
        }
    }

    fn responses_items(&self, done: bool) -> Vec<Value> {
        let status = if done { "completed" } else { "in_progress" };
        let reasoning = self
            .reasoning
            .then(|| serde_json::from_str(REASONING_ITEM).expect("the item is JSON"));
        let mut items: Vec<Value> = reasoning.into_iter().collect();
        items.extend(self.content().map(|text| {
            json!({"type": "message", "id": "msg_1", "status": status, "role": "assistant",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
        }));
        for (position, call) in self.calls.iter().enumerate() {
            items.push(
                json!({"type": "function_call", "id": format!("fc_{position}"),
                              "call_id": call.id, "name": call.name,
                              "arguments": call.arguments, "status": status}),
            );
        }
        items
    }

    fn responses_events(&self, events: &mut Events, piece: usize) {
        let (input, output) = self.usage;
        let response = |status: &str, output_items: Vec<Value>, usage: Value| {
            json!({"id": "resp_1", "object": "response", "status": status, "model": "test-model",
                   "output": output_items, "usage": usage})
        };
        events.numbered(
            "response.created",
            json!({"response": response("in_progress", vec![], Value::Null)}),
        );
        events.numbered(
            "response.in_progress",
            json!({"response": response("in_progress", vec![], Value::Null)}),
        );
        let done_items = self.responses_items(true);
        let mut output_index = 0;
        if self.reasoning {
            events.numbered(
                "response.output_item.added",
                json!({"output_index": 0, "item": {"type": "reasoning", "id": "rs_1",
                                                   "summary": []}}),
            );
            events.numbered(
                "response.output_item.done",
                json!({"output_index": 0, "item": done_items[0]}),
            );
            output_index += 1;
        }
        if let Some(text) = self.content() {
            events.numbered(
                "response.output_item.added",
                json!({"output_index": output_index,
                "item": {"type": "message", "id": "msg_1", "status": "in_progress",
                         "role": "assistant", "content": []}}),
            );
            events.numbered(
                "response.content_part.added",
                json!({"item_id": "msg_1",
                "output_index": output_index, "content_index": 0,
                "part": {"type": "output_text", "text": "", "annotations": []}}),
            );
            for text in pieces(text, piece) {
                events.numbered(
                    "response.output_text.delta",
                    json!({"item_id": "msg_1",
                    "output_index": output_index, "content_index": 0, "delta": text,
                    "logprobs": []}),
                );
            }
            events.numbered(
                "response.output_text.done",
                json!({"item_id": "msg_1",
                "output_index": output_index, "content_index": 0, "text": text, "logprobs": []}),
            );
            events.numbered(
                "response.content_part.done",
                json!({"item_id": "msg_1",
                "output_index": output_index, "content_index": 0,
                "part": {"type": "output_text", "text": text, "annotations": []}}),
            );
            events.numbered(
                "response.output_item.done",
                json!({"output_index": output_index,
                "item": done_items[output_index]}),
            );
            output_index += 1;
        }
        for (position, call) in self.calls.iter().enumerate() {
            let item_id = format!("fc_{position}");
            events.numbered(
                "response.output_item.added",
                json!({"output_index": output_index,
                "item": {"type": "function_call", "id": item_id, "call_id": call.id,
                         "name": call.name, "arguments": "", "status": "in_progress"}}),
            );
            for fragment in pieces(&call.arguments, piece) {
                events.numbered(
                    "response.function_call_arguments.delta",
                    json!({"item_id": item_id,
                    "output_index": output_index, "delta": fragment}),
                );
            }
            events.numbered(
                "response.function_call_arguments.done",
                json!({"item_id": item_id,
                "output_index": output_index, "arguments": call.arguments}),
            );
            events.numbered(
                "response.output_item.done",
                json!({"output_index": output_index,
                "item": done_items[output_index]}),
            );
            output_index += 1;
        }
        events.numbered(
            "response.completed",
            json!({"response": response("completed", done_items,
            json!({"input_tokens": input, "output_tokens": output,
                   "total_tokens": input + output}))}),
        );
    }

    /// A Gemini turn's call parts, each signed when the model reasoned.
    fn gemini_calls(&self) -> Vec<Value> {
        self.calls
            .iter()
            .enumerate()
            .map(|(position, call)| {
                let mut part = json!({"functionCall": {"id": call.id, "name": call.name,
                                                       "args": arguments(call)}});
                if self.reasoning {
                    part["thoughtSignature"] = json!(call_signature(position));
                }
                part
            })
            .collect()
    }

    fn gemini_parts(&self) -> Vec<Value> {
        let mut parts: Vec<Value> = self
            .content()
            .map(|text| {
                let mut part = json!({"text": text});
                if self.reasoning {
                    part["thoughtSignature"] = json!(TEXT_SIGNATURE);
                }
                part
            })
            .into_iter()
            .collect();
        parts.extend(self.gemini_calls());
        parts
    }

    fn gemini_events(&self, events: &mut Events, piece: usize) {
        let (input, output) = self.usage;
        let chunk = |parts: Value, last: bool| {
            let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
            let mut chunk = json!({"modelVersion": "test-model",
                                   "usageMetadata": {"promptTokenCount": input,
                                                     "totalTokenCount": input}});
            if last {
                candidate["finishReason"] = json!("STOP");
                chunk["usageMetadata"] = json!({"promptTokenCount": input,
                    "candidatesTokenCount": output, "totalTokenCount": input + output});
            }
            chunk["candidates"] = json!([candidate]);
            chunk
        };
        for text in pieces(&self.text, piece) {
            events.data(&chunk(json!([{ "text": text }]), false));
        }
        // The text's signature comes alone on an empty part; each call comes whole. The last
        // chunk says why the answer finished.
        let mut last = Vec::new();
        if self.reasoning && !self.text.is_empty() {
            last.push(json!({"text": "", "thoughtSignature": TEXT_SIGNATURE}));
        }
        last.extend(self.gemini_calls());
        events.data(&chunk(Value::Array(last), true));
    }
}

/// A call's arguments as the JSON value whole answers carry (Anthropic's `input`, Gemini's
/// `args`).
fn arguments(call: &Call) -> Value {
    serde_json::from_str(&call.arguments).expect("a test call's arguments are JSON")
}

/// `text` cut into pieces of at most `size` characters (none for empty text).
fn pieces(text: &str, size: usize) -> Vec<String> {
    let characters: Vec<char> = text.chars().collect();
    characters
        .chunks(size.max(1))
        .map(|chunk| chunk.iter().collect())
        .collect()
}

/// Server-sent events being written.
#[derive(Default)]
struct Events {
    bytes: String,
    sequence: u64,
}

impl Events {
    fn data(&mut self, data: &Value) {
        self.raw_data(&data.to_string());
    }

    fn raw_data(&mut self, data: &str) {
        let _ = write!(self.bytes, "data: {data}\n\n");
    }

    fn named(&mut self, event: &str, data: &Value) {
        let _ = write!(self.bytes, "event: {event}\ndata: {data}\n\n");
    }

    /// A Responses event: its data says its type and its number in the stream.
    fn numbered(&mut self, event: &str, mut data: Value) {
        data["type"] = json!(event);
        data["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        self.named(event, &data);
    }
}

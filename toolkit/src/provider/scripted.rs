//! A provider that plays back a script of turns: deterministic, no network, no key.

use serde::Deserialize;

use super::{Provider, ProviderError, ProviderFuture, ProviderRequest, ProviderResponse};
use crate::provider::Usage;
use crate::wire::{ChatMessage, ToolCall};

/// Plays back a JSON script, one turn per provider call:
///
/// ```json
/// {"turns": [
///   {"tool_calls": [{"name": "regex_test", "arguments": {"pattern": "a+", "text": "caaat"}}]},
///   {"content": "The text has one run of a's."}
/// ]}
/// ```
///
/// The turn played is the number of assistant messages the request already holds: the first
/// call plays turn 0, and a run resumed from its token (in this process or another) goes on
/// with the turn after the one that stopped it. One provider can serve many runs at once.
///
/// A call's `id` defaults to `call_<turn>_<index>`; `arguments_raw` gives the arguments as raw
/// text instead (to play a model that sends malformed JSON). A turn's `stop_reason` (a
/// [`StopReason`](super::StopReason) name: `length`, `refusal`, `content_filter`, or any other
/// word) plays a turn that ended so; without one, the turn stopped for its calls or finished.
/// A turn's `thinking` plays what the model thought. Usage is counted as one token per four
/// bytes, so traces are reproducible, unless a turn gives its own `usage`
/// (`{"input_tokens": 2000, "output_tokens": 300, "cache_read_tokens": 1536}`).
#[derive(Debug)]
pub struct ScriptedProvider {
    turns: Vec<Turn>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Script {
    turns: Vec<Turn>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Turn {
    #[serde(default)]
    content: String,
    #[serde(default)]
    tool_calls: Vec<ScriptedCall>,
    #[serde(default)]
    stop_reason: Option<super::StopReason>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    thinking: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedCall {
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default)]
    arguments: Option<serde_json::Value>,
    #[serde(default)]
    arguments_raw: Option<String>,
}

/// A script that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid script at {path}: {message}")]
#[non_exhaustive]
pub struct ScriptError {
    /// Where in the script (`turns[1].tool_calls[0].name`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl ScriptedProvider {
    /// Reads a script from JSON text.
    pub fn from_json(text: &str) -> Result<Self, ScriptError> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let script: Script =
            serde_path_to_error::deserialize(&mut deserializer).map_err(|error| ScriptError {
                path: error.path().to_string(),
                message: error.inner().to_string(),
            })?;
        for (turn_index, turn) in script.turns.iter().enumerate() {
            for (call_index, call) in turn.tool_calls.iter().enumerate() {
                if call.arguments.is_some() && call.arguments_raw.is_some() {
                    return Err(ScriptError {
                        path: format!("turns[{turn_index}].tool_calls[{call_index}]"),
                        message: "give `arguments` or `arguments_raw`, not both".to_owned(),
                    });
                }
            }
        }
        Ok(Self {
            turns: script.turns,
        })
    }

    /// How many turns the script has.
    pub fn len(&self) -> usize {
        self.turns.len()
    }

    /// Whether the script has no turns.
    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }

    fn respond(&self, request: &ProviderRequest<'_>) -> Result<ProviderResponse, ProviderError> {
        let index = request
            .messages
            .iter()
            .filter(|message| matches!(message, ChatMessage::Assistant { .. }))
            .count();
        let turn = self
            .turns
            .get(index)
            .ok_or(ProviderError::ScriptEnded(self.turns.len()))?;
        let tool_calls = turn
            .tool_calls
            .iter()
            .enumerate()
            .map(|(call_index, call)| {
                let arguments = match (&call.arguments_raw, &call.arguments) {
                    (Some(raw), _) => raw.clone(),
                    (None, Some(value)) => value.to_string(),
                    (None, None) => "{}".to_owned(),
                };
                let id = call
                    .id
                    .clone()
                    .unwrap_or_else(|| format!("call_{index}_{call_index}"));
                ToolCall::new(id, call.name.clone(), arguments)
            })
            .collect();
        let input_bytes: usize = request.messages.iter().map(ChatMessage::text_len).sum();
        let usage = turn
            .usage
            .unwrap_or_else(|| Usage::new(tokens(input_bytes), tokens(turn.content.len())));
        let played = ProviderResponse::new(turn.content.clone(), tool_calls, usage)
            .with_thinking(turn.thinking.clone());
        Ok(played.stopped(turn.stop_reason.clone()))
    }
}

fn tokens(bytes: usize) -> u64 {
    u64::try_from(bytes.div_ceil(4)).unwrap_or(u64::MAX)
}

impl Provider for ScriptedProvider {
    fn name(&self) -> &'static str {
        "scripted"
    }

    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> ProviderFuture<'a> {
        let response = self.respond(&request);
        Box::pin(async move { response })
    }
}

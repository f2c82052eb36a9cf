//! Streamed answers: the typed deltas a provider yields as its answer arrives, and their
//! assembly into the one [`ProviderResponse`] a whole answer gives.

use std::pin::Pin;

use futures_util::{Stream, StreamExt, stream};
use serde::Serialize;

use super::{ProviderError, ProviderResponse, StopReason, Usage};
use crate::wire::{Carried, ToolCall};

/// One piece of a streamed answer, in the order the provider sent it.
///
/// Calls are numbered from 0 in the order they start, whatever the wire numbers them by (its
/// content blocks, its output items): a call's fragments name the call they extend.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Delta {
    /// More of the model's text.
    Text {
        /// The text that follows what came before.
        text: String,
    },
    /// A tool call begins.
    CallStarted {
        /// Its position among the turn's calls: 0 for the first.
        index: usize,
        /// The id the provider gave it (may be empty; the loop then gives it one).
        id: String,
        /// The tool asked for.
        name: String,
    },
    /// More of a call's arguments (JSON text, cut anywhere).
    Arguments {
        /// The call it extends.
        index: usize,
        /// The text that follows what came before.
        fragment: String,
    },
    /// More of what the model thinks before it answers, for people (see
    /// [`ProviderResponse::thinking`]).
    Thinking {
        /// The text that follows what came before.
        text: String,
    },
    /// The answer's token counts as far as known: each replaces the one before.
    Usage {
        /// The counts.
        usage: Usage,
    },
    /// Why the turn ended, as the provider said: the last one given holds.
    Stop {
        /// The reason.
        reason: StopReason,
    },
    /// What the provider needs back with the turn (see [`Carried`]): each replaces the one
    /// before. The loop does not show it to subscribers.
    Carried {
        /// The state.
        carried: Carried,
    },
}

/// The boxed stream of a provider's deltas (see [`Provider::stream`](super::Provider::stream)).
/// It ends after the answer's last delta; an error ends it.
pub type DeltaStream<'a> = Pin<Box<dyn Stream<Item = Result<Delta, ProviderError>> + Send + 'a>>;

/// Builds one turn from its deltas: the same [`ProviderResponse`] the whole answer gives.
/// Each delta costs the same whatever came before it (text is appended, a fragment goes to its
/// call by position).
#[derive(Debug, Default)]
pub struct Assembler {
    content: String,
    thinking: String,
    calls: Vec<ToolCall>,
    usage: Usage,
    stop: Option<StopReason>,
    carried: Option<Carried>,
}

impl Assembler {
    /// An assembler of no delta yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes the next delta. A call that starts out of order, or a fragment of a call that
    /// has not started, is a [`ProviderError::Malformed`].
    pub fn push(&mut self, delta: &Delta) -> Result<(), ProviderError> {
        match delta {
            Delta::Text { text } => self.content.push_str(text),
            Delta::CallStarted { index, id, name } => {
                if *index != self.calls.len() {
                    return Err(ProviderError::malformed(format!(
                        "the stream starts call {index} after {} calls",
                        self.calls.len()
                    )));
                }
                self.calls
                    .push(ToolCall::new(id.as_str(), name.as_str(), String::new()));
            }
            Delta::Arguments { index, fragment } => {
                let call = self.calls.get_mut(*index).ok_or_else(|| {
                    ProviderError::malformed(format!(
                        "the stream extends call {index}, which has not started"
                    ))
                })?;
                call.arguments.push_str(fragment);
            }
            Delta::Thinking { text } => self.thinking.push_str(text),
            Delta::Usage { usage } => self.usage = *usage,
            Delta::Stop { reason } => self.stop = Some(reason.clone()),
            Delta::Carried { carried } => self.carried = Some(carried.clone()),
        }
        Ok(())
    }

    /// The turn. A call's arguments are what the model sent, as in a whole answer: text
    /// that is not JSON goes to the seam, which tells the model so. An answer cut off before
    /// its end never gets here: its stream ends with an error.
    pub fn finish(self) -> ProviderResponse {
        ProviderResponse::new(self.content, self.calls, self.usage)
            .with_thinking(self.thinking)
            .with_carried(self.carried)
            .stopped(self.stop)
    }
}

impl ProviderResponse {
    /// The deltas that assemble into this turn: what the model thought, its text, each call's
    /// start and arguments, its usage and why it stopped. How a provider that cannot stream
    /// answers [`Provider::stream`](super::Provider::stream).
    pub fn into_deltas(self) -> Vec<Delta> {
        let mut deltas = Vec::with_capacity(4 + 2 * self.tool_calls.len());
        if !self.thinking.is_empty() {
            deltas.push(Delta::Thinking {
                text: self.thinking,
            });
        }
        if !self.content.is_empty() {
            deltas.push(Delta::Text { text: self.content });
        }
        for (index, call) in self.tool_calls.into_iter().enumerate() {
            deltas.push(Delta::CallStarted {
                index,
                id: call.id,
                name: call.name,
            });
            if !call.arguments.is_empty() {
                deltas.push(Delta::Arguments {
                    index,
                    fragment: call.arguments,
                });
            }
        }
        deltas.push(Delta::Usage { usage: self.usage });
        deltas.push(Delta::Stop {
            reason: self.stop_reason,
        });
        if let Some(carried) = self.carried {
            deltas.push(Delta::Carried { carried });
        }
        deltas
    }
}

/// The stream of a whole answer still to come: its deltas once it is there.
pub(crate) fn whole<'a>(
    answer: impl Future<Output = Result<ProviderResponse, ProviderError>> + Send + 'a,
) -> DeltaStream<'a> {
    Box::pin(stream::once(answer).flat_map(|answer| match answer {
        Ok(response) => stream::iter(response.into_deltas().into_iter().map(Ok)).left_stream(),
        Err(error) => stream::iter([Err(error)]).right_stream(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assembled(deltas: &[Delta]) -> Result<ProviderResponse, ProviderError> {
        let mut assembler = Assembler::new();
        for delta in deltas {
            assembler.push(delta)?;
        }
        Ok(assembler.finish())
    }

    #[test]
    fn a_turn_goes_through_its_deltas_and_back_unchanged() {
        let turn = ProviderResponse::new(
            "Looking ✓",
            vec![
                ToolCall::new("c1", "read_file", r#"{"path":"a.txt"}"#),
                ToolCall::new("", "list", ""),
            ],
            Usage::new(12, 7),
        );
        let deltas = turn.clone().into_deltas();
        assert_eq!(deltas.len(), 6);
        assert_eq!(assembled(&deltas).unwrap(), turn);
    }

    #[test]
    fn fragments_join_in_order_and_usage_is_the_last_given() {
        let deltas = [
            Delta::Text { text: "a".into() },
            Delta::Usage {
                usage: Usage::new(5, 0),
            },
            Delta::CallStarted {
                index: 0,
                id: "x".into(),
                name: "f".into(),
            },
            Delta::Text { text: "b".into() },
            Delta::Arguments {
                index: 0,
                fragment: "{\"n\":".into(),
            },
            Delta::CallStarted {
                index: 1,
                id: "y".into(),
                name: "g".into(),
            },
            Delta::Arguments {
                index: 0,
                fragment: "1}".into(),
            },
            Delta::Usage {
                usage: Usage::new(5, 9),
            },
        ];
        assert_eq!(
            assembled(&deltas).unwrap(),
            ProviderResponse::new(
                "ab",
                vec![
                    ToolCall::new("x", "f", "{\"n\":1}"),
                    ToolCall::new("y", "g", "")
                ],
                Usage::new(5, 9)
            )
        );
    }

    #[test]
    fn calls_out_of_order_are_refused_with_what_is_wrong_and_arguments_kept_as_sent() {
        let skipped = [Delta::CallStarted {
            index: 1,
            id: "x".into(),
            name: "f".into(),
        }];
        assert_eq!(
            assembled(&skipped).unwrap_err().to_string(),
            "the provider's answer is unusable: the stream starts call 1 after 0 calls"
        );
        let orphan = [Delta::Arguments {
            index: 0,
            fragment: "{}".into(),
        }];
        assert_eq!(
            assembled(&orphan).unwrap_err().to_string(),
            "the provider's answer is unusable: the stream extends call 0, which has not started"
        );
        // Arguments that are not JSON are the model's, as a whole answer would give them.
        let cut = [
            Delta::CallStarted {
                index: 0,
                id: "x".into(),
                name: "write_file".into(),
            },
            Delta::Arguments {
                index: 0,
                fragment: "{\"path\":\"a.t".into(),
            },
        ];
        assert_eq!(
            assembled(&cut).unwrap().tool_calls,
            [ToolCall::new("x", "write_file", "{\"path\":\"a.t")]
        );
    }

    #[test]
    fn deltas_serialise_tagged_by_their_type() {
        let text = serde_json::to_value(Delta::Text { text: "hi".into() }).unwrap();
        assert_eq!(text, serde_json::json!({"type": "text", "text": "hi"}));
        let started = serde_json::to_value(Delta::CallStarted {
            index: 0,
            id: "c".into(),
            name: "f".into(),
        })
        .unwrap();
        assert_eq!(
            started,
            serde_json::json!({"type": "call_started", "index": 0, "id": "c", "name": "f"})
        );
    }
}

//! Server-sent events from a streamed answer, under the caps on answers, and their reading
//! into [`Delta`]s by each wire's decoder.
//!
//! The event framing (fields, line ends of every kind, a byte order mark, characters cut
//! between chunks) is `sse-stream`'s; what is ours is the caps, counted on the bytes as they
//! arrive: the answer's size and each line's length, so that a server cannot make the reader
//! hold an unbounded line.

use std::collections::VecDeque;
use std::pin::Pin;

use bytes::Bytes;
use futures_util::{Stream, StreamExt, TryStreamExt, stream};
use sse_stream::{Sse, SseStream};

use super::stream::{Delta, DeltaStream, whole};
use super::{ProviderError, ProviderResponse};

/// What a request for a stream got back.
pub(crate) enum Answer {
    /// The server streams: its events, as they come.
    Events(Events),
    /// The server answered with one whole body.
    Whole(Bytes),
}

/// A streamed answer's events, as they come.
pub(crate) type Events = Pin<Box<dyn Stream<Item = Result<Sse, ProviderError>> + Send>>;

/// What a wire's decoder made of one event.
pub(crate) enum Read {
    /// More is to come.
    More,
    /// The answer is complete: nothing after this event is read.
    Complete,
}

/// Reads one wire's events into deltas. A decoder keeps what it needs between events (which
/// call a block is, the counts given so far) and says when the answer is complete: a stream
/// that ends before is an answer cut off.
pub(crate) trait Decoder: Send {
    /// Reads one event, pushing the deltas it carries onto `out`.
    fn event(&mut self, event: Sse, out: &mut VecDeque<Delta>) -> Result<Read, ProviderError>;

    /// Whether a stream that ends now ended with a complete answer (for a wire with no event
    /// of its own to say so). By default it did not: only [`Read::Complete`] says it did.
    fn ends_complete(&self) -> bool {
        false
    }
}

/// The deltas `decoder` reads from `events`. The stream ends at the answer's end; an error
/// (the server's, the connection's, an event the decoder cannot read, an answer cut off)
/// ends it.
pub(crate) fn decoded(events: Events, decoder: impl Decoder + 'static) -> DeltaStream<'static> {
    struct State<D> {
        events: Option<Events>,
        decoder: D,
        ready: VecDeque<Delta>,
    }
    let state = State {
        events: Some(events),
        decoder,
        ready: VecDeque::new(),
    };
    Box::pin(stream::unfold(state, |mut state| async move {
        loop {
            if let Some(delta) = state.ready.pop_front() {
                return Some((Ok(delta), state));
            }
            let events = state.events.as_mut()?;
            let read = match events.next().await {
                Some(Ok(event)) => state.decoder.event(event, &mut state.ready),
                Some(Err(error)) => Err(error),
                None if state.decoder.ends_complete() => Ok(Read::Complete),
                None => Err(ProviderError::malformed(
                    "the stream ended before the answer did (the connection was closed mid-answer)",
                )),
            };
            match read {
                Ok(Read::More) => {}
                // What is ready still goes out; then the stream ends.
                Ok(Read::Complete) => state.events = None,
                Err(error) => {
                    state.events = None;
                    state.ready.clear();
                    return Some((Err(error), state));
                }
            }
        }
    }))
}

/// The deltas of an answer asked for as a stream: read from its events by a new `D` when the
/// server streams, else the turn `whole_answer` reads from the one body it sent, as deltas.
pub(crate) fn streamed<'a, D: Decoder + Default + 'static>(
    answer: impl Future<Output = Result<Answer, ProviderError>> + Send + 'a,
    whole_answer: fn(&[u8]) -> Result<ProviderResponse, ProviderError>,
) -> DeltaStream<'a> {
    Box::pin(stream::once(answer).flat_map(move |answer| match answer {
        Ok(Answer::Events(events)) => decoded(events, D::default()),
        Ok(Answer::Whole(bytes)) => whole(async move { whole_answer(&bytes) }),
        Err(error) => whole(async move { Err(error) }),
    }))
}

/// The events of `response`'s body, its bytes counted against `max_bytes` in all and
/// `max_line` per line.
pub(crate) fn events(response: reqwest::Response, max_bytes: usize, max_line: usize) -> Events {
    let chunks = stream::try_unfold(response, |mut response| async move {
        let chunk = response
            .chunk()
            .await
            .map_err(|error| Cut::Transport(ProviderError::transport(error)))?;
        Ok(chunk.map(|chunk| (chunk, response)))
    });
    events_of(chunks, max_bytes, max_line)
}

/// The events of a body arriving as `chunks` (split anywhere), under the caps.
pub(crate) fn events_of(
    chunks: impl Stream<Item = Result<Bytes, Cut>> + Send + 'static,
    max_bytes: usize,
    max_line: usize,
) -> Events {
    let mut caps = Caps {
        max_bytes,
        max_line,
        total: 0,
        line: 0,
    };
    let capped = chunks.and_then(move |chunk| {
        let checked = caps.check(&chunk).map(|()| chunk);
        async move { checked }
    });
    Box::pin(
        SseStream::from_bytes_stream(capped).map_err(|error| match error {
            sse_stream::Error::Body(error) => match error.downcast::<Cut>() {
                Ok(cut) => (*cut).into_provider_error(),
                Err(other) => ProviderError::Transport {
                    message: other.to_string(),
                    source: other,
                },
            },
            framing => {
                ProviderError::malformed(format!("the event stream is not well formed: {framing}"))
            }
        }),
    )
}

/// Why the bytes of a stream stopped.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Cut {
    /// The connection failed.
    #[error("{0}")]
    Transport(ProviderError),
    /// The answer passed its size cap.
    #[error("the answer is larger than {0} bytes")]
    TooLarge(usize),
    /// A line passed its cap.
    #[error("a line of the event stream is longer than {0} bytes")]
    LineTooLong(usize),
}

impl Cut {
    fn into_provider_error(self) -> ProviderError {
        match self {
            Cut::Transport(error) => error,
            other => ProviderError::malformed(other.to_string()),
        }
    }
}

/// The caps, counted chunk by chunk.
struct Caps {
    max_bytes: usize,
    max_line: usize,
    total: usize,
    /// Bytes of the line not yet ended.
    line: usize,
}

impl Caps {
    fn check(&mut self, chunk: &[u8]) -> Result<(), Cut> {
        self.total = self.total.saturating_add(chunk.len());
        if self.total > self.max_bytes {
            return Err(Cut::TooLarge(self.max_bytes));
        }
        // The piece before the chunk's first line end goes on the line the last chunk left
        // open; each later one is a line of its own; what follows the last end stays open.
        let mut open = self.line;
        let mut start = 0;
        let mut longest = 0;
        for end in memchr::memchr2_iter(b'\n', b'\r', chunk) {
            longest = longest.max(open + (end - start));
            open = 0;
            start = end + 1;
        }
        self.line = open + (chunk.len() - start);
        longest = longest.max(self.line);
        if longest > self.max_line {
            return Err(Cut::LineTooLong(self.max_line));
        }
        Ok(())
    }
}

/// The data of an event as JSON of type `T`, or an error naming the event.
pub(crate) fn data<T: serde::de::DeserializeOwned>(event: &Sse) -> Result<T, ProviderError> {
    let data = event.data.as_deref().unwrap_or_default();
    serde_json::from_str(data).map_err(|error| ProviderError::Malformed {
        message: format!(
            "the stream's {} event is not the expected JSON: {error}",
            event.event.as_deref().unwrap_or("message")
        ),
        source: Some(error),
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Caps, Cut};

    #[test]
    fn an_answer_of_exactly_the_size_cap_passes_and_one_byte_more_does_not() {
        let mut caps = Caps {
            max_bytes: 10,
            max_line: usize::MAX,
            total: 0,
            line: 0,
        };
        assert!(caps.check(b"12345").is_ok());
        assert!(caps.check(b"67890").is_ok());
        assert!(matches!(caps.check(b"1"), Err(Cut::TooLarge(10))));
    }

    proptest! {
        /// However the bytes are cut, the caps refuse exactly the streams with a line (ended by
        /// `\n`, `\r`, or both) longer than the cap.
        #[test]
        fn the_line_cap_holds_however_the_bytes_are_cut(
            bytes in proptest::collection::vec(prop::sample::select(vec![b'a', b'\n', b'\r']), 0..200),
            cuts in proptest::collection::vec(0..200usize, 0..8),
            max_line in 0..40usize,
        ) {
            let longest = bytes
                .split(|byte| matches!(byte, b'\n' | b'\r'))
                .map(<[u8]>::len)
                .max()
                .unwrap_or(0);
            let mut cuts: Vec<usize> = cuts.into_iter().filter(|cut| *cut < bytes.len()).collect();
            cuts.sort_unstable();
            cuts.push(bytes.len());
            let mut caps = Caps { max_bytes: usize::MAX, max_line, total: 0, line: 0 };
            let mut start = 0;
            let mut refused = false;
            for end in cuts {
                if let Err(cut) = caps.check(&bytes[start..end]) {
                    prop_assert!(matches!(cut, Cut::LineTooLong(cap) if cap == max_line));
                    refused = true;
                    break;
                }
                start = end;
            }
            prop_assert_eq!(refused, longest > max_line);
        }
    }
}

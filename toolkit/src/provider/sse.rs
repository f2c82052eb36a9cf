//! Server-sent events from a streamed answer, under the caps on answers, and their reading
//! into [`Delta`]s by each wire's decoder.
//!
//! The event framing ([`super::framing`]) reads as the server-sent events standard says, under the
//! caps, counted on the bytes as they arrive: the answer's size and each line's length, so
//! that a server cannot make the reader hold an unbounded line. Events go to the decoder one by
//! one, so that what a server sends after an answer's end (junk, a line past a cap) is never
//! read once the answer is complete.

use std::collections::VecDeque;
use std::pin::Pin;

use bytes::Bytes;
use futures_util::{Stream, StreamExt, stream};

use super::framing::Framing;
pub(crate) use super::framing::{Cut, Sse};
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
                // `data:` with nothing after it, as some servers send to keep a connection.
                Some(Ok(event)) if event.data.trim().is_empty() => Ok(Read::More),
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
    struct State<C> {
        chunks: C,
        framing: Framing,
        /// The events of the last chunk not given out yet, then its error if it passed a cap.
        ready: VecDeque<Result<Sse, Cut>>,
    }
    let state = State {
        chunks: Box::pin(chunks),
        framing: Framing::new(max_bytes, max_line),
        ready: VecDeque::new(),
    };
    Box::pin(stream::unfold(state, |mut state| async move {
        loop {
            if let Some(event) = state.ready.pop_front() {
                return Some((event.map_err(Cut::into_provider_error), state));
            }
            match state.chunks.next().await? {
                Ok(chunk) => state.framing.read(&chunk, &mut state.ready),
                Err(cut) => state.ready.push_back(Err(cut)),
            }
        }
    }))
}

/// The data of an event as JSON of type `T`, or an error naming the event.
pub(crate) fn data<T: serde::de::DeserializeOwned>(event: &Sse) -> Result<T, ProviderError> {
    serde_json::from_str(&event.data).map_err(|error| ProviderError::Malformed {
        message: format!(
            "the stream's {} event is not the expected JSON: {error}",
            event.event
        ),
        source: Some(error),
    })
}

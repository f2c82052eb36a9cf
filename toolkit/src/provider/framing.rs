//! The framing of an event stream, read as the server-sent events standard's parsing algorithm
//! says (HTML, "Interpreting an event stream"), under the caps on answers.
//!
//! Our own rather than a library's: `sse-stream` refuses what the standard says to ignore (a
//! line without a colon, an unknown field, a `retry:` that is not a number, a field set twice),
//! and `eventsource-stream` panics on a byte order mark, never ends a stream's last line when
//! it ends with a carriage return, and takes a character cut between chunks at the end of a
//! cut-off answer for bytes that are not UTF-8. The tests walk the standard's rules one by
//! one and compare this reading with `eventsource-stream`'s on the streams it reads right.

use std::borrow::Cow;
use std::collections::VecDeque;

use super::ProviderError;

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
    pub(crate) fn into_provider_error(self) -> ProviderError {
        match self {
            Cut::Transport(error) => error,
            other => ProviderError::malformed(other.to_string()),
        }
    }
}

/// One event: its type (`message` when it names none) and its data, its `data` fields joined by
/// line feeds. An event without a `data` field is none: the standard drops it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sse {
    /// The event type.
    pub(crate) event: Cow<'static, str>,
    /// The data.
    pub(crate) data: String,
}

/// Reads bytes as they come into events. What a line holds is only looked at once the line has
/// ended, so a character cut between chunks is whole by then; bytes that are not UTF-8 read as
/// U+FFFD, as the standard decodes the stream.
pub(crate) struct Framing {
    max_bytes: usize,
    max_line: usize,
    /// Bytes read so far.
    total: usize,
    /// The line not yet ended.
    line: Vec<u8>,
    /// The last byte read ended a line with a carriage return: a line feed right after it
    /// belongs to the same line end.
    after_cr: bool,
    /// No line has ended yet: a byte order mark at the start of the first is dropped.
    first: bool,
    /// The event type buffer.
    event: String,
    /// The data buffer, once a `data` field has come since the last event.
    data: Option<String>,
    /// The caps were passed: nothing more is read.
    stopped: bool,
}

impl Framing {
    /// A reader of a stream of at most `max_bytes` bytes, whose lines are at most `max_line`
    /// bytes long (line end excluded).
    pub(crate) fn new(max_bytes: usize, max_line: usize) -> Self {
        Self {
            max_bytes,
            max_line,
            total: 0,
            line: Vec::new(),
            after_cr: false,
            first: true,
            event: String::new(),
            data: None,
            stopped: false,
        }
    }

    /// Reads `chunk`, pushing each event it completes onto `out` in order; then, when the
    /// chunk passes a cap, the cap's error (and nothing after it: every later chunk reads as
    /// nothing). Events completed before the cap was passed are all on `out` first.
    pub(crate) fn read(&mut self, chunk: &[u8], out: &mut VecDeque<Result<Sse, Cut>>) {
        if self.stopped {
            return;
        }
        let room = self.max_bytes - self.total;
        let (within, past) = if chunk.len() > room {
            (&chunk[..room], true)
        } else {
            (chunk, false)
        };
        self.total += within.len();
        let mut rest = within;
        // A line feed right after a carriage return ends no line of its own, however many
        // chunks (empty ones too) came between them.
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(end) = memchr::memchr2(b'\n', b'\r', rest) {
            if !self.extend(&rest[..end], out) {
                return;
            }
            self.end_line(out);
            if rest[end] == b'\r' {
                if rest.get(end + 1) == Some(&b'\n') {
                    rest = &rest[end + 2..];
                    continue;
                }
                if end + 1 == rest.len() {
                    self.after_cr = true;
                }
            }
            rest = &rest[end + 1..];
        }
        if !self.extend(rest, out) {
            return;
        }
        if past {
            self.stop(Cut::TooLarge(self.max_bytes), out);
        }
    }

    /// Adds `bytes` to the open line; false, with the cap's error on `out`, when the line
    /// passes its cap.
    fn extend(&mut self, bytes: &[u8], out: &mut VecDeque<Result<Sse, Cut>>) -> bool {
        if self.line.len() + bytes.len() > self.max_line {
            self.stop(Cut::LineTooLong(self.max_line), out);
            return false;
        }
        self.line.extend_from_slice(bytes);
        true
    }

    fn stop(&mut self, cut: Cut, out: &mut VecDeque<Result<Sse, Cut>>) {
        self.stopped = true;
        self.line = Vec::new();
        out.push_back(Err(cut));
    }

    /// Processes the line just ended, as the standard's algorithm does.
    fn end_line(&mut self, out: &mut VecDeque<Result<Sse, Cut>>) {
        let mut line = std::mem::take(&mut self.line);
        if std::mem::replace(&mut self.first, false) && line.starts_with(b"\xEF\xBB\xBF") {
            line.drain(..3);
        }
        if line.is_empty() {
            self.dispatch(out);
        } else if line[0] != b':' {
            let line = String::from_utf8_lossy(&line);
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (line.as_ref(), ""),
            };
            match field {
                "event" => value.clone_into(&mut self.event),
                "data" => {
                    // Sized for the line: an event of one data line is one allocation.
                    let data = self
                        .data
                        .get_or_insert_with(|| String::with_capacity(value.len() + 1));
                    data.push_str(value);
                    data.push('\n');
                }
                // `id` and `retry` serve reconnection, which a model's answer never does;
                // every other field is ignored.
                _ => {}
            }
        }
        // Keep the buffer's room for the next line.
        line.clear();
        self.line = line;
    }

    /// Dispatches the event whose fields came since the last one, if it has data.
    fn dispatch(&mut self, out: &mut VecDeque<Result<Sse, Cut>>) {
        let event = std::mem::take(&mut self.event);
        let Some(mut data) = self.data.take() else {
            return;
        };
        data.pop();
        out.push_back(Ok(Sse {
            event: if event.is_empty() {
                Cow::Borrowed("message")
            } else {
                Cow::Owned(event)
            },
            data,
        }));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use futures_util::{StreamExt, stream};
    use proptest::prelude::*;

    use super::Cut;
    use super::{Framing, Sse};

    /// The events of `stream` fed in these pieces, under these caps, with the error that ended
    /// them.
    fn framed(
        pieces: &[&[u8]],
        max_bytes: usize,
        max_line: usize,
    ) -> (Vec<(String, String)>, Option<String>) {
        let mut framing = Framing::new(max_bytes, max_line);
        let mut out = VecDeque::new();
        for piece in pieces {
            framing.read(piece, &mut out);
        }
        let mut events = Vec::new();
        for item in out {
            match item {
                Ok(Sse { event, data }) => events.push((event.into_owned(), data)),
                Err(cut) => return (events, Some(cut.to_string())),
            }
        }
        (events, None)
    }

    fn events(stream: &str) -> Vec<(String, String)> {
        let (events, error) = framed(&[stream.as_bytes()], usize::MAX, usize::MAX);
        assert_eq!(error, None);
        events
    }

    fn event(event: &str, data: &str) -> (String, String) {
        (event.to_owned(), data.to_owned())
    }

    #[test]
    fn the_standards_rules_line_by_line() {
        // Lines end with CRLF, LF or CR; an empty line dispatches.
        assert_eq!(
            events("data: a\r\n\r\ndata: b\n\ndata: c\r\rdata: d\r\n\n"),
            [
                event("message", "a"),
                event("message", "b"),
                event("message", "c"),
                event("message", "d")
            ]
        );
        // A line starting with a colon is a comment.
        assert_eq!(
            events(": hi\ndata: a\n: there\n\n"),
            [event("message", "a")]
        );
        // A line with a colon: the field before it, the value after it, one space dropped.
        assert_eq!(
            events("data:a\n\ndata:  b\n\ndata: c: d\n\n"),
            [
                event("message", "a"),
                event("message", " b"),
                event("message", "c: d"),
            ]
        );
        // A line without a colon is a field named by the whole line, with an empty value.
        assert_eq!(events("data\n\n"), [event("message", "")]);
        assert_eq!(events("event\ndata: a\n\n"), [event("message", "a")]);
        assert_eq!(events("ping\ndata: a\n\n"), [event("message", "a")]);
        // `event` sets the type buffer, the last one set winning.
        assert_eq!(events("event: a\nevent: b\ndata: x\n\n"), [event("b", "x")]);
        // `data` appends its value and a line feed; the last line feed goes at dispatch.
        assert_eq!(
            events("data: a\ndata\ndata: b\n\n"),
            [event("message", "a\n\nb")]
        );
        // `id` and `retry`, of any value, and every other field (names are case-sensitive)
        // are ignored.
        assert_eq!(
            events(
                "id: 1\nid\nretry: 10\nretry: soon\nretry:\nDATA: no\nfoo: bar\ndata : no\ndata: a\n\n"
            ),
            [event("message", "a")]
        );
        // An empty data buffer dispatches nothing, and the type buffer is reset all the same.
        assert_eq!(events("event: a\n\ndata: x\n\n"), [event("message", "x")]);
        assert_eq!(
            events("event: a\nid: 3\n\n\n\ndata: x\n\n"),
            [event("message", "x")]
        );
        // A byte order mark is dropped at the start of the stream only.
        assert_eq!(events("\u{feff}data: a\n\n"), [event("message", "a")]);
        assert_eq!(events("\u{feff}\u{feff}data: a\n\n"), []);
        assert_eq!(
            events("data: a\n\n\u{feff}data: b\n\n"),
            [event("message", "a")]
        );
        // At the end of the stream, an event not ended by an empty line is not dispatched.
        assert_eq!(events("data: a\n\ndata: b\n"), [event("message", "a")]);
        assert_eq!(events("data: a\r\r"), [event("message", "a")]);
        // Bytes that are not UTF-8 read as U+FFFD.
        let (got, _) = framed(&[b"data: a\xff\xfeb\n\n"], usize::MAX, usize::MAX);
        assert_eq!(got, [event("message", "a\u{fffd}\u{fffd}b")]);
    }

    #[test]
    fn a_cr_then_lf_after_an_empty_chunk_is_still_one_line_end() {
        let (got, error) = framed(
            &[&b"data: a\r"[..], b"", b"\ndata: b\n\n"],
            usize::MAX,
            usize::MAX,
        );
        assert_eq!(error, None);
        assert_eq!(got, [event("message", "a\nb")]);
    }

    #[test]
    fn a_cr_then_lf_in_the_next_chunk_is_one_line_end() {
        let (got, error) = framed(
            &[&b"data: a\r"[..], b"\n", b"\r", b"\ndata: b\r", b"\r"],
            usize::MAX,
            usize::MAX,
        );
        assert_eq!(error, None);
        assert_eq!(got, [event("message", "a"), event("message", "b")]);
    }

    #[test]
    fn a_character_or_a_byte_order_mark_cut_between_chunks_is_read_whole() {
        let stream = "\u{feff}data: caf\u{e9} \u{2713}\n\n".as_bytes();
        for cut in 0..stream.len() {
            let (got, _) = framed(&[&stream[..cut], &stream[cut..]], usize::MAX, usize::MAX);
            assert_eq!(
                got,
                [event("message", "caf\u{e9} \u{2713}")],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn the_caps_end_the_stream_after_every_event_before_them() {
        // The answer's size: bytes past it are never read.
        let (got, error) = framed(&[b"data: a\n\n", b"data: b\n\nxx"], 18, usize::MAX);
        assert_eq!(got, [event("message", "a"), event("message", "b")]);
        assert_eq!(error.as_deref(), Some("the answer is larger than 18 bytes"));
        let (got, error) = framed(&[b"data: a\n\ndata: b\n\n"], 18, usize::MAX);
        assert_eq!((got.len(), error), (2, None));
        // A line's length, its end not counted, whole or in pieces.
        let (got, error) = framed(&[b"data: a\n\ndata: bb\r\n"], usize::MAX, 7);
        assert_eq!(got, [event("message", "a")]);
        assert_eq!(
            error.as_deref(),
            Some("a line of the event stream is longer than 7 bytes")
        );
        let (_, error) = framed(&[&b"data"[..], b": b", b"b"], usize::MAX, 7);
        assert!(error.is_some());
        let (_, error) = framed(&[&b"data"[..], b": b\n"], usize::MAX, 7);
        assert_eq!(error, None);
        // After the error, nothing more is read.
        let mut framing = Framing::new(usize::MAX, 2);
        let mut out = VecDeque::new();
        framing.read(b"abc", &mut out);
        framing.read(b"\n\ndata: x\n\n", &mut out);
        assert!(matches!(
            out.iter().collect::<Vec<_>>()[..],
            [Err(Cut::LineTooLong(2))]
        ));
    }

    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(String::new()),
            Just(String::new()),
            "[a-z ]{0,6}".prop_map(|value| format!("data: {value}")),
            "[a-z:é✓ ]{0,6}".prop_map(|value| format!("data:{value}")),
            Just("data".to_owned()),
            "[a-z]{0,4}".prop_map(|value| format!("event: {value}")),
            Just("event".to_owned()),
            "[a-z ]{0,4}".prop_map(|value| format!(": {value}")),
            "[0-9a-z]{0,3}".prop_map(|value| format!("retry: {value}")),
            "[0-9]{0,3}".prop_map(|value| format!("id: {value}")),
            "[a-z]{1,5}(: [a-z]{0,3})?",
        ]
    }

    proptest! {
        /// However the bytes are cut, the line cap refuses exactly the streams with a line
        /// (ended by `\n`, `\r`, or both) longer than the cap.
        #[test]
        fn the_line_cap_holds_however_the_bytes_are_cut(
            bytes in proptest::collection::vec(prop::sample::select(vec![b'a', b'\n', b'\r']), 0..200),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
            max_line in 0..40usize,
        ) {
            let longest = bytes
                .split(|byte| matches!(byte, b'\n' | b'\r'))
                .map(<[u8]>::len)
                .max()
                .unwrap_or(0);
            let mut at: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
            at.extend([0, bytes.len()]);
            at.sort_unstable();
            at.dedup();
            let pieces: Vec<&[u8]> = at.windows(2).map(|pair| &bytes[pair[0]..pair[1]]).collect();
            let (_, error) = framed(&pieces, usize::MAX, max_line);
            let refused = format!("a line of the event stream is longer than {max_line} bytes");
            prop_assert_eq!(error, (longest > max_line).then_some(refused));
        }
    }

    proptest! {
        /// On streams `eventsource-stream` reads right (no byte order mark, line ends other
        /// than a lone carriage return, ended by an empty line), both read the same events,
        /// however the bytes are cut.
        #[test]
        fn it_reads_what_eventsource_stream_reads(
            lines in proptest::collection::vec(line(), 0..24),
            crlf in any::<bool>(),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
        ) {
            let end = if crlf { "\r\n" } else { "\n" };
            let mut stream = lines.join(end);
            stream.push_str(end);
            stream.push_str(end);
            let bytes = stream.as_bytes();
            let mut at: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
            at.extend([0, bytes.len()]);
            at.sort_unstable();
            at.dedup();
            let pieces: Vec<&[u8]> = at.windows(2).map(|pair| &bytes[pair[0]..pair[1]]).collect();
            let (ours, error) = framed(&pieces, usize::MAX, usize::MAX);
            prop_assert_eq!(error, None);
            let chunks: Vec<Result<Vec<u8>, std::convert::Infallible>> =
                pieces.iter().map(|piece| Ok(piece.to_vec())).collect();
            let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let theirs: Vec<(String, String)> = runtime.block_on(
                eventsource_stream::EventStream::new(stream::iter(chunks))
                    .map(|event| {
                        let event = event.unwrap();
                        (event.event, event.data)
                    })
                    .collect(),
            );
            prop_assert_eq!(ours, theirs);
        }
    }
}

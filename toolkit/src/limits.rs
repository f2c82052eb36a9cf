//! Every limit toolkit sets, with the reason for its value. A limit a scope, a run or a service
//! can change says so and names the method; the others hold for every call.
//!
//! ```
//! use toolkit::limits::{ARGUMENT_LIMIT, ARTIFACT_BUDGET, CONTENT_LIMIT, DEFAULT_TOOL_TIMEOUT};
//!
//! assert_eq!((CONTENT_LIMIT, ARTIFACT_BUDGET), (50_000, 50_000));
//! assert_eq!(ARGUMENT_LIMIT, 1024 * 1024);
//! assert_eq!(DEFAULT_TOOL_TIMEOUT.as_secs(), 30);
//! ```

use std::time::Duration;

/// The most bytes of content a result may carry to the provider; longer content keeps its head
/// and ends with [`TRUNCATION_MARKER`](crate::bound::TRUNCATION_MARKER).
///
/// Why 50 000: the bound of the decision toolkit implements (ADR-108's `capResult()`), about
/// 12 000 tokens: a long page of results fits, and one runaway tool cannot fill a model's
/// context or its bill.
pub const CONTENT_LIMIT: usize = 50_000;

/// The most bytes the compact JSON of a result's whole artifact list may take; what does not fit
/// is dropped whole and named in an `Artifacts omitted` text artifact.
///
/// Why 50 000: ADR-108 gives artifacts a budget of their own equal to the content's, so a tool
/// cannot grow one channel by starving the other, and what a person's view of one call holds
/// stays bounded whatever the tool does.
pub const ARTIFACT_BUDGET: usize = 50_000;

/// The most bytes of images, sounds and PDFs one result may show the model, together (before
/// base64); a part past it is not shown, whole, and the model reads a note that says so. Text
/// files (`text/plain`, `application/json`) count against [`CONTENT_LIMIT`] instead, together.
///
/// Why 3 932 160 (3.75 MiB): its base64 is exactly 5 MiB, the most the Anthropic API takes for
/// one image, so every part within the budget fits every wire toolkit speaks; and since a run
/// sends every earlier call's media again on each request, a handful of such calls stays under
/// Gemini's 20 MB of inline data per request.
pub const MEDIA_BUDGET: usize = 3_932_160;

/// The most media parts one result may show the model; later parts are not shown (each named in
/// a note, up to this many notes).
///
/// Why 16: more pictures than a model reads with care in one answer, and few enough that the
/// notes about the others stay short.
pub const MEDIA_PARTS: usize = 16;

/// The most bytes of base64 a result's media artifacts may take together, apart from
/// [`ARTIFACT_BUDGET`] (which counts everything else of the artifacts, their labels and types
/// included); a media artifact past it is dropped whole and named in the `Artifacts omitted`
/// artifact.
///
/// Why 16 MiB: a full-page screenshot of a large screen is a few MB as PNG (about 12 MiB of
/// base64 at 9 MB), and people see it whole; the event stream, the trace and the audit copy
/// still hold a bounded amount per call.
pub const MEDIA_ARTIFACT_BUDGET: usize = 16 * 1024 * 1024;

/// Names and labels echoed in messages (an unknown tool's name, an omitted artifact's label) are
/// cut to this many bytes.
///
/// Why 64: the longest valid tool name ([`TOOL_NAME_LIMIT`]): a real name is echoed whole, a
/// hostile one cannot grow the message.
pub const ECHO_LIMIT: usize = 64;

/// Room kept free for the `Artifacts omitted` marker, its separator included, when a list is
/// cut: what is kept of the artifacts fills at most `ARTIFACT_BUDGET - MARKER_RESERVE` bytes.
///
/// Why 1 024: the marker is built from a label cut to [`ECHO_LIMIT`] bytes and a few numbers;
/// a unit test of `bound.rs` measures the worst case, well under this.
pub const MARKER_RESERVE: usize = 1024;

/// Bytes past [`CONTENT_LIMIT`] a content filter sees, so that what straddles the cut is seen
/// whole; content longer than the limit and the margin is cut before it is filtered.
///
/// Why 16 KiB: the longest shape the secret mask matches whole, a PEM private key block, is about
/// 3.3 KB for a 4 096-bit RSA key; the margin holds it with room, and filtering costs at most
/// this much more than the limit, whatever a tool returns.
pub const FILTER_MARGIN: usize = 16 * 1024;

/// The largest arguments text a call may carry, in bytes; larger arguments are refused before
/// anything decodes them.
///
/// Why 1 MiB: about twenty times the most a result may carry back ([`CONTENT_LIMIT`]), far above what
/// a model writes for a call, and small enough that decoding it is cheap in time and memory.
pub const ARGUMENT_LIMIT: usize = 1024 * 1024;

/// How many calls to remote tools one run may make unless told otherwise
/// ([`RunScope::with_remote_budget`](crate::RunScope::with_remote_budget)).
///
/// Why 20: the default of the decision toolkit implements; a loop that keeps calling external
/// services stops there, and a real task rarely needs more.
pub const DEFAULT_REMOTE_BUDGET: u32 = 20;

/// How long one tool call may run unless told otherwise
/// ([`RunScope::with_timeout`](crate::RunScope::with_timeout)); past it the call ends as an error.
///
/// Why 30 s: the default of the decision toolkit implements; longer than any quick tool needs,
/// short enough that a model (and the person behind it) is not left waiting on a stuck one.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest tool name, in bytes.
///
/// Why 64: OpenAI's limit for function names, the strictest of the wires toolkit speaks; a
/// registry refuses a longer name, so a tool never fails on one wire only.
pub const TOOL_NAME_LIMIT: usize = 64;

/// The longest tool title, in characters (`#[tool(title = "..")]`,
/// [`ToolSpec::with_title`](crate::ToolSpec::with_title)); a title taken from a description's
/// first sentence is cut to it.
///
/// Why 100: a title is the label a host shows people in a list or an approval prompt, on one
/// line; MCP sets no limit, and a text longer than this is a description, which the model reads
/// whole anyway.
pub const TOOL_TITLE_LIMIT: usize = 100;

/// The longest function description OpenAI takes, in characters.
///
/// Why 1 024: OpenAI's API refuses a longer one (`string_above_max_length` on
/// `tools[i].function.description`); Anthropic and Gemini document no limit.
pub const OPENAI_DESCRIPTION_LIMIT: usize = 1024;

/// Provider calls one run may make unless told otherwise
/// ([`RunOptions::with_max_iterations`](crate::RunOptions::with_max_iterations)).
///
/// Why 5: enough for a model to call tools, read their answers and call again a few times; a
/// loop that keeps calling stops before it costs much.
#[cfg(feature = "loop")]
pub const DEFAULT_MAX_ITERATIONS: u32 = 5;

/// How long a suspended run's token opens unless told otherwise
/// ([`ToolLoopService::with_token_lifetime`](crate::ToolLoopService::with_token_lifetime)).
///
/// Why an hour: long enough for a person to read and decide, short enough that a leaked token
/// is soon worthless.
#[cfg(feature = "loop")]
pub const DEFAULT_TOKEN_LIFETIME: Duration = Duration::from_hours(1);

/// How many events a subscriber of a [`Recorder`](crate::Recorder) may fall behind before it
/// misses some (it is told how many).
///
/// Why 4 096: several whole runs of a streamed answer's deltas; a subscriber that falls further
/// behind is slow, and holding more would let it hold the recorder's memory.
#[cfg(feature = "loop")]
pub const EVENT_BUFFER: usize = 4096;

/// The most bytes of a message a running tool reports (a progress step's or a log line's);
/// past it, the message is cut on a character boundary and ends with `…`.
///
/// Why 4 KiB: a log line with a path, a query or a short stack fits; a tool that reports a
/// whole document is cut before it floods a client or the page.
pub const REPORT_LIMIT: usize = 4096;

/// The most log lines one call reports; one line more says that its later lines are dropped.
///
/// Why 1 000: far more than a person reads on a running call, few enough that a tool logging
/// in a tight loop cannot flood a client's connection or a subscriber's buffer.
pub const REPORT_LOG_LINES: usize = 1000;

/// The least time between two progress reports of one call that are both sent: a report that
/// comes sooner is dropped, unless it is the last step (its `done` reaches its `total`).
///
/// Why 20 ms: fifty updates a second draw a smooth bar; a tool reporting every item of a
/// million does not send a million notifications.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(20);

/// The most worker threads running tools at once; calls past it wait for one to finish.
///
/// Why 256: far above what two cores keep busy, so waiting happens only when tools block (on a
/// network or a lock); a bound, so that a flood of blocking calls cannot start a thread each.
pub(crate) const MAX_WORKERS: usize = 256;

/// How long an idle worker thread waits for work before it ends.
///
/// Why 10 s: a steady trickle of calls reuses its workers, and a burst's workers are gone soon
/// after it.
pub(crate) const WORKER_IDLE: Duration = Duration::from_secs(10);

/// The most tokens the Anthropic provider asks for per answer (the Messages API needs a value).
///
/// Why 4 096: the output limit of every current Claude model is at least this, so no model
/// refuses it; an answer that needs more ends with the provider's own stop reason.
#[cfg(feature = "anthropic")]
pub(crate) const ANTHROPIC_MAX_TOKENS: u32 = 4096;

//! # toolkit
//!
//! LLM tool calling where what a tool *shows* (tables, texts: artifacts) can never reach the model
//! provider, and the compiler proves it.
//!
//! A tool returns one [`ToolResult`]: a provider-facing string, an error flag and run-only
//! [`ToolArtifact`]s. Only the [`Seam`] runs tools; it checks each call, executes it, and bounds
//! both channels (50 000 bytes each) before anything leaves the process. The only thing a
//! tool-result message accepts is a [`WireString`], and only the seam makes one. Above it,
//! [`ToolLoopService`] runs the loop with a model, and its [`Recorder`] is the one place where
//! artifacts leave the seam: to the run's trace, the event stream and each [`Sink`].
//!
//! ```
//! use toolkit::{tool, ToolArtifact, ToolContext, ToolLoopService, ToolRegistry, ToolResult, Table};
//!
//! /// Splits a comma-separated line into cells.
//! #[tool]
//! fn split_line(
//!     /// The line to split.
//!     line: String,
//! ) -> ToolResult {
//!     let cells: Vec<&str> = line.split(',').map(str::trim).collect();
//!     let table = Table::from_rows(["cell"], cells.iter().map(|cell| [*cell])).expect("one column");
//!     ToolResult::text_with(format!("{} cells", cells.len()), [ToolArtifact::table("Cells", table)])
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let service = ToolLoopService::new(ToolRegistry::linked()?);
//! let scope = service.scope(ToolContext::new());
//! let result = service.invoke(&scope, "split_line", r#"{"line": "a, b, c"}"#).await;
//!
//! assert_eq!(result.content().as_str(), "3 cells"); // what the model sees
//! assert_eq!(result.artifacts()[0].as_table().unwrap().rows().len(), 3); // what people see
//! # Ok::<(), toolkit::RegistryError>(())
//! # }).unwrap();
//! ```
//!
//! Content cannot be forged into a tool-result message:
//!
//! ```compile_fail
//! let message = toolkit::ChatMessage::tool_result("call_1", String::from("forged"));
//! ```
//!
//! and a result has no way into a string that merges its artifacts:
//!
//! ```compile_fail
//! let wire: String = toolkit::ToolResult::text("hi").to_string();
//! ```
//!
//! ## Features
//!
//! | feature | default | what |
//! | --- | --- | --- |
//! | `loop` | yes | [`ToolLoopService`], the [`Recorder`] and [`Sink`]s, events, sealed suspension, the scripted provider |
//! | `openai` | yes | the OpenAI Chat Completions provider over HTTP (reqwest with rustls) |
//! | `anthropic` | yes | the Anthropic Messages provider over HTTP |
//! | `secrets` | yes | [`secrets`]: masking of secret-shaped strings and e-mail addresses |
//!
//! With `default-features = false` the crate is the seam, the registry, the result and wire
//! types and the `#[tool]` macro, and nothing else.

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

pub mod bound;
mod context;
mod declaration;
mod filter;
mod meter;
mod name;
mod registry;
mod result;
mod schema;
mod seam;
#[cfg(feature = "secrets")]
pub mod secrets;
mod tool;
mod wire;
mod workers;

#[cfg(feature = "loop")]
mod events;
#[cfg(feature = "loop")]
pub mod provider;
#[cfg(feature = "loop")]
mod recorder;
#[cfg(feature = "loop")]
mod replay;
#[cfg(feature = "loop")]
mod run;
#[cfg(feature = "loop")]
mod seal;
#[cfg(feature = "loop")]
mod service;
#[cfg(feature = "loop")]
mod trace;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use context::ToolContext;
pub use filter::ContentFilter;
#[cfg(feature = "secrets")]
pub use filter::SecretFilter;
pub use name::{InvalidToolName, TOOL_NAME_LIMIT, check_tool_name};
pub use registry::{DuplicateTool, RegistryError, ToolRegistry};
pub use result::{ArtifactType, Table, TableError, ToolArtifact, ToolResult};
pub use schema::SchemaError;
pub use seam::{
    ARGUMENT_LIMIT, Approval, BoundedResult, DEFAULT_REMOTE_BUDGET, DEFAULT_TOOL_TIMEOUT,
    NotRegistered, RunScope, Seam,
};
pub use tool::{
    ArgumentError, BoxToolFuture, ExecutePermit, Execution, Tool, ToolFlags, ToolFuture, ToolSpec,
};
pub use toolkit_macros::tool;
pub use wire::{ChatMessage, MessageError, ToolCall, ToolResultMessage, WireString};

#[cfg(feature = "loop")]
pub use events::{RunEvent, RunKind};
#[cfg(feature = "loop")]
pub use recorder::{Recorder, RunId, Sink, SinkError, SinkFuture, ToolInvocation};
#[cfg(feature = "loop")]
pub use replay::{MemoryReplayStore, ReplayError, ReplayFuture, ReplayStore};
#[cfg(feature = "loop")]
pub use run::{
    CancelSignal, DEFAULT_MAX_ITERATIONS, Decision, RunError, RunOptions, RunRequest, Suspension,
    ToolLoopResult,
};
#[cfg(feature = "loop")]
pub use seal::{Resumable, SealKey, SuspendedRunState, TokenError};
#[cfg(feature = "loop")]
pub use service::{DEFAULT_TOKEN_LIFETIME, ToolLoopService};
#[cfg(feature = "loop")]
pub use trace::{RunStep, RunTrace, StepKind, Termination, Usage};

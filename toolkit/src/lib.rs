//! # toolkit
//!
//! LLM tool calling where what a tool *shows* (tables, texts: artifacts) can never reach the model
//! provider, and the compiler proves it.
//!
//! A tool returns one [`ToolResult`]: a provider-facing string, an error flag and run-only
//! [`ToolArtifact`]s. Only [`ToolLoopService::invoke`] runs tools; it checks each call, executes
//! it, and bounds both channels (50 000 bytes each) before anything leaves the process. The only
//! thing a tool-result message accepts is a [`WireString`], and only `invoke` makes one.
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
//! # Ok::<(), toolkit::DuplicateTool>(())
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

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

pub mod bound;
mod events;
mod meter;
pub mod provider;
mod registry;
mod result;
mod run;
mod schema;
mod seal;
mod seam;
mod single;
mod tool;
mod trace;
mod wire;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use events::{EVENT_BUFFER, EventBus, RunEvent};
pub use meter::artifacts_len;
pub use registry::{DuplicateTool, ToolRegistry};
pub use result::{ArtifactType, Table, TableError, ToolArtifact, ToolResult};
pub use run::{
    CancelSignal, Decision, RunError, RunOptions, RunRequest, Suspension, ToolLoopResult,
};
pub use schema::SchemaError;
pub use seal::{Resumable, SealKey, SuspendedRunState, TokenError};
pub use seam::{
    ARGUMENT_LIMIT, BoundedResult, DEFAULT_REMOTE_BUDGET, DEFAULT_TOOL_TIMEOUT, NotRegistered,
    RunScope, ToolLoopService,
};
pub use tool::{
    ArgumentError, BoxToolFuture, ExecutePermit, Tool, ToolContext, ToolFlags, ToolFuture, ToolSpec,
};
pub use toolkit_macros::tool;
pub use trace::{RunStep, RunTrace, Termination, ToolInvocation, Usage};
pub use wire::{ChatMessage, MessageError, ToolCall, ToolResultMessage, WireString};

//! # toolkit
//!
//! LLM tool calling where what a tool *shows* (tables, texts: artifacts) can never reach the model
//! provider, and the compiler proves it.
//!
//! A tool returns one [`ToolResult`]: a provider-facing string (with, when the model is to see
//! them, [`Media`](result::Media): images, sounds, files), an error flag and run-only
//! [`ToolArtifact`]s. Only the [`Seam`] runs tools; it checks each call, executes it, and bounds
//! both channels (50 000 bytes each; media to budgets of its own) before anything leaves the
//! process. The only thing a tool-result message accepts is a [`WireString`], and only the seam
//! makes one, its checked media included. Above it,
//! [`ToolLoopService`] runs the loop with a model, and its [`Recorder`] is the one pipeline that
//! takes a call's artifacts to people: the run's trace, the event stream and each [`Sink`]. (Code
//! that calls the seam itself holds a call's bounded artifacts in its [`BoundedResult`]; nothing
//! there leads to the wire.)
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
//! let scope = service.scope(ToolContext::new())?;
//! let result = service.invoke(&scope, "split_line", r#"{"line": "a, b, c"}"#).await;
//!
//! assert_eq!(result.content(), "3 cells"); // what the model sees
//! assert_eq!(result.artifacts()[0].as_table().unwrap().rows().len(), 3); // what people see
//! # Ok::<(), Box<dyn std::error::Error>>(())
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
//! Each feature's cost is the number of crates `toolkit` then builds (`cargo tree -e normal`,
//! unique names, toolkit included) with `default-features = false` and that feature alone;
//! features share crates, so the costs do not add up.
//!
//! | feature | default | crates | what |
//! | --- | --- | --- | --- |
//! | (none) | | 38 | the seam, the registry, the result and wire types and the `#[tool]` macro |
//! | `constraints` | yes | 83 | checks what a `#[tool]`'s schema says beyond its argument types (ranges, lengths, patterns) with `jsonschema`; off, a registry refuses a tool whose schema says any of that ([`RegistryError::Unchecked`](registry::RegistryError::Unchecked)) |
//! | `loop` | yes | 57 | [`ToolLoopService`], the [`Recorder`] and [`Sink`]s, events, sealed suspension, the scripted provider |
//! | `openai` | yes | 121 | the OpenAI Chat Completions and Responses providers over HTTP (reqwest with rustls), streaming |
//! | `anthropic` | yes | 121 | the Anthropic Messages provider over HTTP, streaming |
//! | `gemini` | yes | 121 | the Gemini provider over HTTP, streaming |
//! | `http` | with any provider | 121 | what the HTTP providers share: retries, caps on answers, server-sent events |
//! | `secrets` | yes | 43 | [`secrets`] (the `toolkit-secrets` crate): masking of secret-shaped strings and e-mail addresses, and [`SecretFilter`](seam::SecretFilter) |
//! | `flat-decoder` | yes | 38 | a one-pass decoder for flat argument objects before `serde_json` (off: `serde_json` alone, the same values and errors) |
//!
//! All the default features together build 162 crates. `toolkit/tests/lean.rs` holds the bare
//! core to at most 40.

#![cfg_attr(docsrs, feature(doc_cfg))]
// Types whose fields or variants will grow say so: a new one is not a breaking change.
#![warn(clippy::exhaustive_structs, clippy::exhaustive_enums)]

mod ask;
pub mod bound;
mod causes;
mod context;
mod declaration;
mod decode;
mod filter;
pub mod guide;
mod hidden;
#[cfg(test)]
mod layout;
pub mod limits;
mod media;
mod meter;
mod name;
pub mod registry;
mod report;
pub mod result;
mod schema;
pub mod seam;
#[cfg(feature = "secrets")]
#[cfg_attr(docsrs, doc(cfg(feature = "secrets")))]
#[doc(inline)]
pub use toolkit_secrets as secrets;
#[doc = include_str!("../docs/agreement.md")]
pub mod spec;
pub mod talk;
#[cfg(test)]
mod testing;
pub mod wire;
mod workers;

#[cfg(feature = "loop")]
#[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
pub mod approval;
#[cfg(feature = "loop")]
#[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
pub mod provider;
#[cfg(feature = "loop")]
#[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
pub mod question;
#[cfg(feature = "loop")]
#[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
pub mod recording;
#[cfg(feature = "loop")]
mod replay;
#[cfg(feature = "loop")]
mod request;
#[cfg(feature = "loop")]
mod resumable;
#[cfg(feature = "loop")]
#[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
pub mod run;
#[cfg(feature = "loop")]
#[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
pub mod seal;
#[cfg(feature = "loop")]
mod service;
#[cfg(feature = "loop")]
#[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
pub mod shared;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use causes::with_causes;
pub use context::ToolContext;
pub use registry::ToolRegistry;
pub use result::{Table, ToolArtifact, ToolResult};
pub use seam::{BoundedResult, RunScope, Seam};
pub use spec::{Tool, ToolSpec};
pub use wire::{ChatMessage, ToolCall, WireString};

#[cfg(feature = "loop")]
#[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
pub use recording::{Recorder, RunEvent, Sink};
#[cfg(feature = "loop")]
#[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
pub use run::{RunError, RunOptions, RunRequest, ToolLoopResult};
#[cfg(feature = "loop")]
#[cfg_attr(docsrs, doc(cfg(feature = "loop")))]
pub use service::ToolLoopService;

/// Makes a documented function a tool, registered when the program links it.
///
/// ```
/// use toolkit::{ToolContext, ToolLoopService, ToolRegistry, tool};
///
/// /// Adds two numbers.
/// #[tool(group = "math")]
/// fn add(
///     /// The first number.
///     a: i64,
///     /// The second number.
///     b: i64,
/// ) -> String {
///     (a + b).to_string()
/// }
///
/// let registry = ToolRegistry::linked().unwrap();
/// let spec = registry.get("add").unwrap().spec();
/// assert_eq!(spec.description(), "Adds two numbers.");
/// assert_eq!(spec.input_schema()["required"], serde_json::json!(["a", "b"]));
///
/// let service = ToolLoopService::new(registry);
/// let scope = service.scope(ToolContext::new()).unwrap();
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let result = runtime.block_on(service.invoke(&scope, "add", r#"{"a": 40, "b": 2}"#));
/// assert_eq!(result.content(), "42");
/// ```
///
/// # The description
///
/// The model reads the function's doc comment, cleaned by
/// [`spec::describe::for_model`]: paragraphs joined, code blocks kept as
/// blocks, intra-doc link brackets removed, `# Examples`, `# Panics`, `# Errors` and `# Safety`
/// sections dropped. `#[doc = include_str!("tool.md")]` reads it from a file, and
/// `#[tool(description = "..")]` gives it directly (the doc comment then stays for rustdoc). A
/// tool with none of these does not compile.
///
/// # Keys
///
/// | key | meaning |
/// |---|---|
/// | `name = ".."` | the name the model calls (default: the function's name); [`check_tool_name`](spec::check_tool_name) rules |
/// | `title = ".."` | the label people read, where a host lists tools or asks to approve a call (default: the description's first sentence, [`ToolSpec::title`]); one line of at most 100 characters ([`check_tool_title`](spec::check_tool_title)) |
/// | `group = ".."` | a group for listings (default `default`) |
/// | `description = ".."` | the description, instead of the doc comment |
/// | `requires_approval` | each call waits for an operator (the loop suspends; see [`Approval`](seam::Approval)) |
/// | `requires_admin` | offered only to an admin [`ToolContext`] |
/// | `enabled_by_default = false` | offered only when a run asks for it by name |
/// | `remote` | counts against a run's budget of remote calls |
/// | `inline` | a plain `fn` runs on the caller's thread (for a quick tool); otherwise it runs on a worker thread, where the timeout applies |
/// | `read_only` | only reads: may be another tool's preview, and runs in a [read-only scope](RunScope::read_only) |
/// | `idempotent` | a call repeated with the same arguments on the same state does nothing more: a reader answers the same, a writer changes nothing more (described to hosts, [`ToolFlags::idempotent`](spec::ToolFlags::idempotent)) |
/// | `open_world` | deals with things outside what the caller controls, such as web pages (described to hosts, [`ToolFlags::open_world`](spec::ToolFlags::open_world)) |
/// | `task`, `task = "required"` | an MCP server may answer a call as a task the client polls (the `io.modelcontextprotocol/tasks` extension): with `task`, a call from a client that takes tasks becomes one when it is still running after a moment; with `task = "required"`, only such clients may call the tool and every answer is a task ([`TaskSupport`](spec::TaskSupport)). Loops run the call as any other |
/// | `preview = ".."` | on a tool that `requires_approval`: the `read_only` tool (needing no approval) run with a pending call's arguments, in a read-only scope, when the run stops for approval; its answer is shown to the operator ([`Preview`](run::Preview)). Checked when the registry is built ([`RegistryError::Preview`](registry::RegistryError::Preview)), and when compiled if both tools are methods of one `#[tools]` block |
/// | `crate = ".."` | the path to toolkit (`crate = "tk"`, `crate = "::deps::toolkit"`) when the crate's `Cargo.toml` does not say it |
///
/// Flags take no value (true), `= true` or `= false` (`task` no value, `= "optional"` or
/// `= "required"`). An unknown key, a duplicate, or a value
/// of the wrong kind is one error on that key.
///
/// # Parameters
///
/// Every parameter is an argument the model gives, decoded from JSON by `serde` and described
/// by `schemars`, each with a doc comment (its description in the schema). An `Option<T>` is
/// optional; `#[arg(default = EXPR)]` gives a default, shown in the schema (so its type must be
/// `Serialize`); `#[serde(..)]` and `#[schemars(..)]` pass through, except the `#[serde]` keys
/// that would decode what the schema does not say (`default`, `skip`, `skip_deserializing`,
/// `with`, `deserialize_with`, `alias`: each one error saying what to write instead). Without such attributes
/// (and with at most 12 arguments) the schema and the decoder come from generic helpers rather
/// than the two derives: the same schema and the same errors, in about 160 expanded lines per
/// tool instead of 360 (`compile-cost/` measures it). Two kinds of parameter are not arguments:
///
/// - `#[state] name: &T` borrows the run's state of type `T` (a database pool, a client, a
///   cache) from the context's typed extensions. The spec declares it
///   ([`ToolSpec::states`]), and a scope whose context lacks it is refused when it is built,
///   once, naming every tool and type missing ([`ScopeError::MissingStates`](seam::ScopeError::MissingStates)): a tool body never
///   handles a missing state. `T` is shared by every call on any thread, so it is
///   `Send + Sync + 'static`, and taken as `&T` (a `Mutex` inside for changes).
/// - One `&ToolContext` gives the caller's rights and every extension.
///
/// ```standalone_crate
/// use std::collections::HashMap;
/// use toolkit::{seam::ScopeError, ToolContext, ToolLoopService, ToolRegistry, tool};
///
/// struct Prices(HashMap<String, u32>);
///
/// /// The price of an item, in cents.
/// #[tool]
/// fn price(
///     /// The item.
///     item: String,
///     /// How many.
///     #[arg(default = 1)]
///     count: u32,
///     #[state] prices: &Prices,
/// ) -> Result<String, String> {
///     let cents = prices.0.get(&item).ok_or(format!("no price for {item}"))?;
///     Ok((cents * count).to_string())
/// }
///
/// let service = ToolLoopService::new(ToolRegistry::linked().unwrap());
/// // Refused before any call: the context holds no `Prices`.
/// let error = service.scope(ToolContext::new()).unwrap_err();
/// assert!(matches!(error, ScopeError::MissingStates(ref missing) if missing[0].written == "Prices"));
///
/// let prices = Prices(HashMap::from([("tea".to_owned(), 250)]));
/// let scope = service.scope(ToolContext::new().with_extension(prices)).unwrap();
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let result = runtime.block_on(service.invoke(&scope, "price", r#"{"item": "tea", "count": 2}"#));
/// assert_eq!(result.content(), "500");
/// ```
///
/// # Return types
///
/// [`ToolResult`] (content, error flag and artifacts), `String` (the content), or
/// `Result<T, E>` with `T` one of those and `E: Display` (an error result with `E`'s text).
/// `async fn` is supported; a plain `fn` runs on a worker thread unless `inline`.
///
/// # Registration
///
/// A tool registers itself when its crate is linked: [`ToolRegistry::linked`] finds every
/// `#[tool]` of the program. A crate of tools that nothing else names is not linked: reference it
/// with `use that_crate as _;`, and let [`ToolRegistry::check_crates`] (or
/// [`ToolRegistry::linked_expecting`], for crates without `#[tools]` blocks) check that each
/// crate you expect contributed tools and that each of its `#[tools]` types has an instance
/// registered, so none go missing without a word; [`ToolRegistry::crates`] lists the crates
/// that contributed. A crate of tools meant for others to pick (as `toolkit_builtins`) says
/// [`tools_on_request!`](crate::tools_on_request): `linked` then leaves its tools out, and a
/// binary adds them with [`ToolRegistry::add_crate`].
///
/// Each `#[tool] fn name` also gives a handle, `NAME_TOOL` (a `&'static dyn Tool` with the
/// function's visibility), for [`ToolRegistry::of`]: a registry of chosen tools, or one spec to
/// test. The generated code reaches toolkit as `::toolkit`, or by the name the crate's
/// `Cargo.toml` gives it (`tk = { package = "toolkit", .. }`, also through `workspace = true`).
/// Where toolkit is reached some other way (a re-export), `#[tool(crate = "path")]` (and
/// `#[tools(crate = "path")]`) says where.
///
/// ```compile_fail
/// use toolkit::tool;
///
/// #[tool]
/// fn undocumented() -> String {
///     String::new()
/// }
/// ```
///
/// Inside an `impl` block, `#[tool]` needs [`#[tools]`](macro@tools) on the block. The attribute
/// reads only the function it is on, never the block around it, so alone it fails in one of two
/// ways: on a method (`&self`), one error on the receiver that says to mark the block
/// `#[tools]`; on an associated function without `self`, rustc's ``cannot find function `name` in
/// this scope`` on the function's name (the generated registration calls it as a free
/// function), whose fix is the same.
///
/// ```compile_fail
/// use toolkit::tool;
///
/// /// Its methods are tools only in an impl block marked `#[tools]`.
/// struct Counter;
/// impl Counter {
///     /// Counts.
///     #[tool]
///     fn count(&self) -> String {
///         String::new()
///     }
/// }
/// ```
pub use toolkit_macros::tool;
/// Makes the `#[tool]` methods of an inherent impl block tools that share one instance.
///
/// Each method marked `#[tool]` (with the same keys and parameters as a free `#[tool]`
/// function) may take `&self`: every call shares the instance given to
/// [`ToolRegistry::register_instance`], registered once. State the tools need lives in the
/// instance, so no call finds it missing; an instance never registered is reported by
/// [`ToolRegistry::check_crates`]. Methods not marked stay plain methods.
///
/// ```
/// use std::collections::HashMap;
/// use toolkit::{ToolContext, ToolLoopService, ToolRegistry, tools};
///
/// struct Shop {
///     prices: HashMap<String, u32>,
/// }
///
/// #[tools]
/// impl Shop {
///     /// The price of an item, in cents.
///     #[tool]
///     fn price(
///         &self,
///         /// The item.
///         item: String,
///     ) -> Result<String, String> {
///         self.cents(&item).map(|cents| cents.to_string())
///     }
///
///     /// Not a tool: a plain method the tools use.
///     fn cents(&self, item: &str) -> Result<u32, String> {
///         self.prices.get(item).copied().ok_or(format!("no price for {item}"))
///     }
/// }
///
/// let mut registry = ToolRegistry::new();
/// registry.register_instance(Shop { prices: HashMap::from([("tea".to_owned(), 250)]) }).unwrap();
/// let service = ToolLoopService::new(registry);
/// let scope = service.scope(ToolContext::new()).unwrap();
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let result = runtime.block_on(service.invoke(&scope, "price", r#"{"item": "tea"}"#));
/// assert_eq!(result.content(), "250");
/// ```
pub use toolkit_macros::tools;

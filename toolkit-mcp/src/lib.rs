//! # toolkit-mcp
//!
//! MCP both ways for [`toolkit`], on the official Rust SDK (`rmcp`):
//!
//! - [`serve_stdio`] and [`serve_http`] serve a [`ToolLoopService`](toolkit::ToolLoopService) to
//!   MCP hosts. `tools/list` gives the offered tools' names, titles, descriptions, input schemas
//!   and annotations (read-only, destructive, idempotent, open world, from their flags); every
//!   `tools/call` goes through the seam, and the reply is the bounded content as one text block
//!   with `isError` from the result. Artifacts never go into a reply (a host forwards replies to a
//!   model); subscribers of the service's event stream see them, each call as a run `mcp_<uuid>`,
//!   and so does the MCP Apps view of a host that shows views, through the app-only tool of
//!   [`views`] by a handle only the reply's `_meta` holds. [`McpToolServer::with_writers`]
//!   offers the tools that require approval to hosts that answer form elicitation, each call
//!   approved by the host's user (see [`approvals`]). A call of a tool marked `#[tool(task)]`
//!   from a client that takes tasks becomes a task the client polls when it runs longer than
//!   [`TASK_AFTER`] (the `io.modelcontextprotocol/tasks` extension; see the
//!   [MCP guide](toolkit::guide::mcp)).
//! - [`add_mcp_tools`] connects to MCP servers (a command, or a streamable HTTP URL) and
//!   registers their tools as remote tools, which count against a run's budget of remote calls.
//!
//! Each side is a feature, both on by default: `server` and `client`. A crate that only serves
//! its tools builds without the MCP client, an HTTP client or a C toolchain:
//!
//! ```toml
//! toolkit = { version = "0.1", default-features = false }
//! toolkit-mcp = { version = "0.1", default-features = false, features = ["server"] }
//! ```
//!
//! ```no_run
//! use std::sync::Arc;
//! use toolkit::{ToolContext, ToolLoopService, ToolRegistry};
//! use toolkit_mcp::{McpServerConfig, add_mcp_tools};
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let mut registry = ToolRegistry::linked()?;
//! let added = add_mcp_tools(
//!     &mut registry,
//!     &[McpServerConfig::command("weather", "python3", ["weather_server.py"])],
//! )
//! .await;
//! for warning in added.warnings() {
//!     eprintln!("{warning}");
//! }
//! let service = Arc::new(ToolLoopService::new(registry));
//! toolkit_mcp::serve_stdio(service, ToolContext::new()).await?;
//! # Ok(())
//! # }
//! ```

// Types whose fields or variants will grow say so: a new one is not a breaking change.
#![warn(clippy::exhaustive_structs, clippy::exhaustive_enums)]

// The workspace README's quickstart serves over MCP, so its code compiles here, with both
// crates (`toolkit/tests/quickstart.rs` also builds and runs it in a crate of its own). The
// README is read through a link, doctests/README.md, so that the published crate holds it
// (cargo packages the file itself) and runs these doctests too.
#[cfg(doctest)]
#[doc = include_str!("../doctests/README.md")]
struct ReadmeDoctests;

// The mcp guide, rendered as `toolkit::guide::mcp`: its code uses this crate, so it is
// compiled and run here (through the link doctests/mcp.md, as the README above).
#[cfg(doctest)]
#[doc = include_str!("../doctests/mcp.md")]
struct GuideDoctests;

#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod approvals;
#[cfg(feature = "client")]
mod client;
mod portable;
#[cfg(feature = "server")]
mod server;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod store;
#[cfg(all(test, feature = "server"))]
mod testing;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod views;

#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::{McpServerConfig, McpTools, McpTransport, START_TIMEOUT, add_mcp_tools};
pub use portable::portable;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use server::{
    HTTP_PATH, McpToolServer, NotOffered, TASK_AFTER, TASK_LIFETIME, serve_http, serve_stdio,
};
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use views::{ArtifactsReply, ModelReply};

/// The `rmcp` this crate is built on: its model types ([`rmcp::model::CallToolResult`], which
/// both reply types become) are the ones these replies convert into.
pub use rmcp;

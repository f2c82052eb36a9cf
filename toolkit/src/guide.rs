//! Guides: how to write tools, run them in a loop, serve them over MCP, record them, use the
//! builtins and test your own. Each guide is a page of this module; every code block in them
//! is compiled and run as a test (the MCP, builtins and recording guides by the crates they
//! use: `toolkit-mcp`, `toolkit-builtins`, `toolkit-audit`).
//!
//! 1. [Writing tools](tools): arguments, state, handles, errors, artifacts, images for the model,
//!    cancellation, progress and log lines, questions to the person.
//! 2. [The loop](the_loop): providers, streaming, approvals, resume, policies.
//! 3. [MCP both ways](mcp): serving your tools to hosts, views, elicitation, long calls as
//!    tasks (`#[tool(task)]`), fleets; using MCP servers' tools in the loop.
//! 4. [Recording](recording): the audit copy, OpenTelemetry, privacy levels.
//! 5. [Builtins](builtins): the builtin tools and their confinement.
//! 6. [Testing your tools](testing): calls and scripted loops in unit tests.
//! 7. [Hostile input](hostile_input): what the seam checks and bounds, and why.
//! 8. [Crates, modules and features](crates).

// The guides are prose for people: product names (OpenTelemetry, PostgreSQL) stay as written.
#![allow(clippy::doc_markdown)]

#[doc = include_str!("../docs/guide/tools.md")]
pub mod tools {}

#[doc = include_str!("../docs/guide/the_loop.md")]
pub mod the_loop {}

#[cfg_attr(not(doctest), doc = include_str!("../docs/guide/mcp.md"))]
pub mod mcp {}

#[cfg_attr(not(doctest), doc = include_str!("../docs/guide/recording.md"))]
pub mod recording {}

#[cfg_attr(not(doctest), doc = include_str!("../docs/guide/builtins.md"))]
pub mod builtins {}

#[doc = include_str!("../docs/guide/testing.md")]
pub mod testing {}

#[doc = include_str!("../docs/guide/hostile_input.md")]
pub mod hostile_input {}

#[doc = include_str!("../docs/guide/crates.md")]
pub mod crates {}

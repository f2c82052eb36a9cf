//! What the workspace's tests and benches share, in one crate instead of files included by path
//! from other crates' test folders.
//!
//! The tests come in two tiers. `cargo test --workspace` is the fast one: everything that needs
//! no browser, database server, Python or Node runs, and each test that needs one of those says
//! `SKIPPED (fast tier)` and returns. `./scripts/test` installs what is missing and runs the full
//! tier (it sets `TOOLKIT_TEST_TIER=full`), where a test whose tool is missing fails under
//! `CI=true`. See [`tier`].

// Test support: a helper fails its test by panicking when the world is not as the test needs.
#![allow(clippy::missing_panics_doc)]

pub mod browser;
pub mod git;
pub mod golden;
pub mod haproxy;
pub mod http;
pub mod mcp;
pub mod media;
pub mod npm;
pub mod otlp;
pub mod paired;
pub mod postgres;
pub mod schemas;
pub mod streams;
pub mod tier;
pub mod tree;
mod venv;

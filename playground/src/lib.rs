//! # Tool Playground
//!
//! A web inspector and a command line for toolkit tools, on an embedded default that needs no key
//! and no network: the builtin tools over the sample workspace and the sample SQLite database,
//! and a scripted provider.
//!
//! The inspector shows what a tool sent to the model (its wire string) apart from what only people
//! see (its artifacts), renders every value as inert text, and keeps an audit copy of every
//! finished step in SQLite or PostgreSQL (a [`toolkit_audit::Audit`] sink on the service's
//! recorder).
//!
//! ```no_run
//! # async fn start() -> Result<(), Box<dyn std::error::Error>> {
//! let state = playground::server::AppState::embedded(None, None)?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:7878").await?;
//! playground::server::serve(listener, state).await?;
//! # Ok(())
//! # }
//! ```

pub mod defaults;
pub mod guard;
pub mod server;
pub mod terminal;

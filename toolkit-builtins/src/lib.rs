//! The builtin tools of toolkit, one module per group, each tool a `#[tool]` function, each group
//! behind a feature of its name (all on by default): `data`, `files`, `git`, `network`,
//! `records`, `system`, `utility`, `writers`; and [`policies`] for the writers' approvals in
//! toolkit's loop (feature `policies`, on by default too).
//!
//! Tools read what they work on from the run's context as typed extensions: a [`WorkspaceRoot`]
//! for the file, data and system tools, a [`Database`] for the records tools and the writers. A
//! tool whose resource is absent answers with one exact error ([`NO_WORKSPACE`],
//! [`NO_DATABASE`]).
//!
//! **Secrets.** With a content filter on the run (toolkit's `SecretFilter`), no builtin shows
//! the model a secret from what it reads, whatever its layout. Two designs share the work:
//! - a layout that keeps each value on its name's line (line numbers, a diff's `+`, blame
//!   columns, `a | b` rows, several files at once) is read by the filter's rules, which know
//!   these prefixes and separators;
//! - a layout that parts a value from its name (a CSV cell under its column, a column's
//!   minimum, a JSON value picked without its key, HTML laid out as text, a line picked by a
//!   search or a log level) is made from the source *as the filter passes it*: the tool filters
//!   the whole source first, where each value still stands beside its name, and lays out the
//!   result; its artifacts, for people, come from the source itself. No rule could tell a
//!   secret once the layout has dropped its name.
//!
//! The builtins that can show a source ([`shows_sources`]) are all tried against the corpus of
//! `toolkit_secrets`, in every layout, by `tests/secrets_wire.rs`; the builtins guide's table of
//! builtins gives each one's figures. A tool of this crate's groups ([`SOURCE_GROUPS`]) is
//! chosen by the test without being named; for a tool of your own crate, plant the same corpus
//! (`toolkit_secrets::corpus::CORPUS`) where it reads.
//!
//! Linking the crate does not change what `ToolRegistry::linked()` offers: a binary asks for
//! the builtins with [`register`], which adds every builtin its features compile in:
//!
//! ```
//! let mut registry = toolkit::ToolRegistry::linked()?;
//! assert!(registry.get("regex_test").is_none());
//! toolkit_builtins::register(&mut registry)?;
//! assert!(registry.get("regex_test").is_some());
//! # Ok::<(), toolkit::registry::RegistryError>(())
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
// Types whose fields or variants will grow say so: a new one is not a breaking change.
#![warn(clippy::exhaustive_structs, clippy::exhaustive_enums)]

// The builtins guide, rendered as `toolkit::guide::builtins`: its code uses this crate, so it is
// compiled and run here. It is read through a link, doctests/builtins.md, so that the published
// crate holds it (cargo packages the file itself) and runs these doctests too.
#[cfg(doctest)]
#[doc = include_str!("../doctests/builtins.md")]
struct GuideDoctests;

mod resources;
mod shared;

// Linking the crate (a binary that names any item of it) does not add its tools to
// `ToolRegistry::linked()`: `register` does.
toolkit::tools_on_request!();

/// Adds every builtin tool this build compiles in (its features choose the groups) to
/// `registry`, in name order (none compiled in is [`RegistryError::NothingLinked`](toolkit::registry::RegistryError::NothingLinked)). The writers need an operator's approval in the loop; the file,
/// data, system and git tools read the [`WorkspaceRoot`] of the run's context, the record tools
/// its [`Database`].
///
/// # Errors
/// A builtin's name is already taken in `registry` (the registry is then as it was).
pub fn register(
    registry: &mut toolkit::ToolRegistry,
) -> Result<(), toolkit::registry::RegistryError> {
    registry.add_crate(module_path!()).map(|_| ())
}

/// Every tool [`ToolRegistry::linked`](toolkit::ToolRegistry::linked) offers (your own
/// `#[tool]`s), and the builtins ([`register`]): the registry of a binary that offers both.
///
/// ```
/// let registry = toolkit_builtins::registry()?;
/// assert!(registry.get("read_file").is_some());
/// # Ok::<(), toolkit::registry::RegistryError>(())
/// ```
///
/// # Errors
/// A name taken twice (one of your tools is named like a builtin).
pub fn registry() -> Result<toolkit::ToolRegistry, toolkit::registry::RegistryError> {
    let mut registry = toolkit::ToolRegistry::linked()?;
    register(&mut registry)?;
    Ok(registry)
}

pub use resources::{
    DATABASE_TOOLS, Database, NO_DATABASE, NO_WORKSPACE, SOURCE_GROUPS, WORKSPACE_TOOLS,
    WorkspaceRoot, shows_sources,
};

#[cfg(feature = "data")]
#[cfg_attr(docsrs, doc(cfg(feature = "data")))]
pub mod data;
#[cfg(feature = "data")]
#[cfg_attr(docsrs, doc(cfg(feature = "data")))]
pub mod delimited;
#[cfg(feature = "writers")]
#[cfg_attr(docsrs, doc(cfg(feature = "writers")))]
pub mod file_writers;
#[cfg(feature = "files")]
#[cfg_attr(docsrs, doc(cfg(feature = "files")))]
pub mod files;
#[cfg(feature = "git")]
#[cfg_attr(docsrs, doc(cfg(feature = "git")))]
pub mod git;
#[cfg(feature = "data")]
#[cfg_attr(docsrs, doc(cfg(feature = "data")))]
pub mod json;
#[cfg(feature = "network")]
#[cfg_attr(docsrs, doc(cfg(feature = "network")))]
pub mod network;
#[cfg(feature = "policies")]
#[cfg_attr(docsrs, doc(cfg(feature = "policies")))]
pub mod policies;
#[cfg(feature = "writers")]
#[cfg_attr(docsrs, doc(cfg(feature = "writers")))]
pub mod record_writers;
#[cfg(feature = "records")]
#[cfg_attr(docsrs, doc(cfg(feature = "records")))]
pub mod records;
#[cfg(feature = "records")]
#[cfg_attr(docsrs, doc(cfg(feature = "records")))]
pub mod sample;
#[cfg(any(feature = "records", feature = "writers"))]
mod sqlite;
#[cfg(feature = "system")]
#[cfg_attr(docsrs, doc(cfg(feature = "system")))]
pub mod system;
#[cfg(any(feature = "data", feature = "files", feature = "utility"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "data", feature = "files", feature = "utility")))
)]
pub mod text;
#[cfg(feature = "utility")]
#[cfg_attr(docsrs, doc(cfg(feature = "utility")))]
pub mod utility;
#[cfg(any(
    feature = "data",
    feature = "files",
    feature = "git",
    feature = "system",
    feature = "writers"
))]
mod workspace;

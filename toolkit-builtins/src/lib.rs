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
//! Nothing to call: linking the crate registers its tools. A binary that only wants the tools
//! references the crate so the linker keeps it, then asks the registry:
//!
//! ```
//! use toolkit_builtins as _;
//!
//! let registry = toolkit::ToolRegistry::linked().expect("no duplicate names");
//! assert!(registry.get("regex_test").is_some());
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
// Types whose fields or variants will grow say so: a new one is not a breaking change.
#![warn(clippy::exhaustive_structs, clippy::exhaustive_enums)]

mod resources;
mod shared;

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

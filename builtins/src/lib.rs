//! The builtin tools of toolkit, one module per group, each tool a `#[tool]` function.
//!
//! Nothing to call: linking the crate registers its tools. A binary that only wants the tools
//! references the crate so the linker keeps it, then asks the registry:
//!
//! ```
//! use builtins as _;
//!
//! let registry = toolkit::ToolRegistry::linked().expect("no duplicate names");
//! assert!(registry.get("regex_test").is_some());
//! ```

pub mod data;
pub mod delimited;
pub mod file_writers;
pub mod files;
pub mod json;
pub mod network;
pub mod record_writers;
pub mod records;
pub mod redact;
pub mod sample;
mod sqlite;
pub mod system;
pub mod text;
pub mod utility;
mod workspace;

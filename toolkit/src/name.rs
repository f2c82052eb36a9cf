//! The one rule for tool names: 1 to 64 bytes of `A-Z`, `a-z`, `0-9`, `_` and `-`, what every
//! provider accepts. `#[tool]` checks it at compile time with its own copy (a proc-macro crate
//! cannot call this one); a unit test of `toolkit-macros` checks that both agree.

use crate::limits::TOOL_NAME_LIMIT;

/// A tool name that breaks the rule, and how.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidToolName {
    /// No name at all.
    #[error("a tool name cannot be empty; use 1 to 64 of A-Z, a-z, 0-9, `_` and `-`")]
    Empty,
    /// Longer than [`TOOL_NAME_LIMIT`].
    #[error("a tool name is at most 64 bytes long; this one is {0}")]
    TooLong(usize),
    /// A character outside the allowed set.
    #[error("{0:?} is not allowed in a tool name; use A-Z, a-z, 0-9, `_` and `-`")]
    Character(char),
}

/// Checks a tool name against the rule.
///
/// ```
/// use toolkit::{spec::check_tool_name, spec::InvalidToolName};
///
/// assert_eq!(check_tool_name("read_file"), Ok(()));
/// assert_eq!(check_tool_name("read file"), Err(InvalidToolName::Character(' ')));
/// assert_eq!(check_tool_name(&"x".repeat(65)), Err(InvalidToolName::TooLong(65)));
/// ```
pub fn check_tool_name(name: &str) -> Result<(), InvalidToolName> {
    if name.is_empty() {
        return Err(InvalidToolName::Empty);
    }
    if name.len() > TOOL_NAME_LIMIT {
        return Err(InvalidToolName::TooLong(name.len()));
    }
    match name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        Some(bad) => Err(InvalidToolName::Character(bad)),
        None => Ok(()),
    }
}

//! The one rule for tool names: 1 to 64 bytes of `A-Z`, `a-z`, `0-9`, `_` and `-`, what every
//! provider accepts; and the one rule for tool titles: one line of 1 to 100 characters.
//! `#[tool]` checks both at compile time with its own copy (a proc-macro crate cannot call this
//! one); unit tests of `toolkit-macros` check that each pair agrees.

use crate::limits::{TOOL_NAME_LIMIT, TOOL_TITLE_LIMIT};

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

/// A tool title that breaks the rule, and how.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidToolTitle {
    /// Nothing but whitespace, or nothing at all.
    #[error(
        "a tool title cannot be empty: give a short label people read (\"Read a file\"), or \
         none, and the description's first sentence is the title"
    )]
    Empty,
    /// More than one line.
    #[error(
        "a tool title is one line: keep it a short label and put the details in the description"
    )]
    MultiLine,
    /// Longer than [`TOOL_TITLE_LIMIT`] characters.
    #[error(
        "a tool title is at most 100 characters long; this one is {0}: keep it a short label and \
         put the details in the description"
    )]
    TooLong(usize),
}

/// Checks a tool title against the rule: one line (no line break) of 1 to
/// [`TOOL_TITLE_LIMIT`] characters, not all whitespace.
///
/// ```
/// use toolkit::spec::{InvalidToolTitle, check_tool_title};
///
/// assert_eq!(check_tool_title("Read a file"), Ok(()));
/// assert_eq!(check_tool_title(" "), Err(InvalidToolTitle::Empty));
/// assert_eq!(check_tool_title("Read\na file"), Err(InvalidToolTitle::MultiLine));
/// assert_eq!(check_tool_title(&"é".repeat(101)), Err(InvalidToolTitle::TooLong(101)));
/// ```
pub fn check_tool_title(title: &str) -> Result<(), InvalidToolTitle> {
    if title.trim().is_empty() {
        return Err(InvalidToolTitle::Empty);
    }
    if title.contains(['\n', '\r']) {
        return Err(InvalidToolTitle::MultiLine);
    }
    match title.chars().count() {
        length if length > TOOL_TITLE_LIMIT => Err(InvalidToolTitle::TooLong(length)),
        _ => Ok(()),
    }
}

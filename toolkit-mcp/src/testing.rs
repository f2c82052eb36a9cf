//! What the crate's unit tests share: one hand-written tool that answers what it is given.

use toolkit::spec::{ExecutePermit, ToolFuture};
use toolkit::{Tool, ToolContext, ToolResult, ToolSpec};

/// A tool declared by `spec` whose every call answers what `answer` makes of its context.
pub(crate) struct Answers(pub ToolSpec, pub fn(&ToolContext) -> ToolResult);

impl Tool for Answers {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        context: &'a ToolContext,
        _permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        ToolFuture::Ready(Ok((self.1)(context)))
    }
}

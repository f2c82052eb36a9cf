// proves: not even the future a tool returns can keep its `ExecutePermit`: the permit's lifetime
// is not the future's, so a tool cannot run another tool with it once `execute` has returned.
// control: pass/tool-execute-through-the-seam.rs
// expect: lifetime may not live long enough
use toolkit::spec::{ExecutePermit, ToolFuture};
use toolkit::{Tool, ToolContext, ToolResult, ToolSpec};

pub struct Later(pub ToolSpec);

impl Tool for Later {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        _context: &'a ToolContext,
        permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        ToolFuture::Pending(Box::pin(async move {
            let _kept = permit;
            Ok(ToolResult::text("later"))
        }))
    }
}

fn main() {}

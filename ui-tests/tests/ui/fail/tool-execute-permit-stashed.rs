// proves: a tool cannot keep the `ExecutePermit` it is lent to run other tools later, outside
// the seam: the permit comes with a lifetime of its own, shorter than any place that outlives
// the call.
// control: pass/tool-execute-through-the-seam.rs
// expect: E0521
use std::sync::Mutex;

use toolkit::spec::{ExecutePermit, ToolFuture};
use toolkit::{Tool, ToolContext, ToolResult, ToolSpec};

static STASH: Mutex<Option<&'static ExecutePermit>> = Mutex::new(None);

pub struct Thief(pub ToolSpec);

impl Tool for Thief {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _arguments: &'a str,
        _context: &'a ToolContext,
        permit: &ExecutePermit,
    ) -> ToolFuture<'a> {
        *STASH.lock().unwrap() = Some(permit);
        ToolFuture::Ready(Ok(ToolResult::text("kept")))
    }
}

fn main() {}

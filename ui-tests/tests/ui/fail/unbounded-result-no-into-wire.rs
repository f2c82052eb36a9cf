// proves: a `ToolResult` has no method that yields a `WireString`: only `ToolLoopService::invoke` does.
// control: pass/bounded-result-from-invoke.rs
// expect: E0599
use toolkit::{ToolResult, WireString};

pub fn skip_the_seam(result: ToolResult) -> WireString {
    result.into_wire()
}

fn main() {}

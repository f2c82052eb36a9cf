// proves: `ToolResult` has no public `new`: the factories `text`, `text_with` and `error` are the only ways in.
// control: pass/tool-result-factories.rs
// expect: E0599
use toolkit::ToolResult;

pub fn forge() -> ToolResult {
    // One argument: with any other count rustc's "similar name" hint points into std's sources.
    ToolResult::new(String::from("Error: failed"))
}

fn main() {}

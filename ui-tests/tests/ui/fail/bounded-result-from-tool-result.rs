// proves: a `ToolResult` cannot be converted into a `BoundedResult`: only the seam bounds a result.
// control: pass/bounded-result-from-invoke.rs
// expect: E0277
use toolkit::{BoundedResult, ToolResult};

pub fn skip_the_seam(result: ToolResult) -> BoundedResult {
    <BoundedResult as From<ToolResult>>::from(result)
}

fn main() {}

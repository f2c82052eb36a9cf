// proves: the seam's bounding constructor of `BoundedResult` is private to `toolkit`.
// control: pass/bounded-result-from-invoke.rs
// expect: E0624
use toolkit::{BoundedResult, ToolResult};

pub fn skip_the_seam(result: ToolResult) -> BoundedResult {
    BoundedResult::bound(result, None)
}

fn main() {}

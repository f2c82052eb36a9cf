// proves: a `#[tool]` parameter type must be `JsonSchema` (it describes the argument to the model);
// one error, on the parameter's type, not a cascade from the generated arguments struct.
// control: pass/tool-attr-arguments.rs
// expect: E0277
// span: Point
use serde::Deserialize;
use toolkit::{ToolResult, tool};

/// A point on the plane.
#[derive(Deserialize)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// Says how far a point is from the origin, in steps.
#[tool]
pub fn distance(
    /// The point.
    point: Point,
) -> ToolResult {
    ToolResult::text((point.x.abs() + point.y.abs()).to_string())
}

fn main() {}

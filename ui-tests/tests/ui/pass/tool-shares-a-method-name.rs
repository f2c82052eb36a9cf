// control for fail/tool-attr-associated-fn.rs and fail/tool-attr-self-receiver.rs: a free
// `#[tool]` function may share its name with a `#[tool]` method of an impl block in the same file,
// whatever marks that block (here `#[tools]` reached through `cfg_attr`; rmcp's `#[tool_router]`
// blocks carry `#[tool]` methods too): the attribute reads only the function it is on.
use toolkit::{ToolRegistry, ToolResult, tool, tools};

pub mod free {
    use super::{ToolResult, tool};

    /// Adds two numbers.
    #[tool]
    pub fn add(a: i64, b: i64) -> ToolResult {
        ToolResult::text((a + b).to_string())
    }
}

pub struct Calculator;

#[cfg_attr(all(), tools)]
impl Calculator {
    /// Adds two numbers, as a method.
    #[tool]
    pub fn add(&self, a: i64, b: i64) -> ToolResult {
        ToolResult::text((a + b).to_string())
    }
}

fn main() {
    let free = ToolRegistry::of([free::ADD_TOOL]).expect("one tool");
    assert!(free.get("add").is_some());
    let mut methods = ToolRegistry::of([]).expect("no tool");
    methods
        .register_instance(Calculator)
        .expect("the method registers");
    assert!(methods.get("add").is_some());
}

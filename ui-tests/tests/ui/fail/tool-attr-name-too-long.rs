// proves: a tool name longer than 64 characters is rejected at compile time, on the name.
// control: pass/tool-attr-keys.rs
// expect: invalid tool name: it is 65 bytes long; the limit is 64
// span: "a_name_of_sixty_five_characters_is_one_more_than_providers_accept"
use toolkit::{ToolResult, tool};

/// Does nothing.
#[tool(name = "a_name_of_sixty_five_characters_is_one_more_than_providers_accept")]
pub fn nothing() -> ToolResult {
    ToolResult::text("")
}

fn main() {}

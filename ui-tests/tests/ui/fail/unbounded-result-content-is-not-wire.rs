// proves: the content of a `ToolResult` that has not passed the seam is a `&str`, not a `WireString`,
// so it cannot become a tool-result message.
// control: pass/bounded-result-from-invoke.rs
// expect: E0308
use toolkit::wire::MessageError;
use toolkit::{ChatMessage, ToolResult};

pub fn skip_the_seam(result: &ToolResult) -> Result<ChatMessage, MessageError> {
    ChatMessage::tool_result("call_1", result.content())
}

fn main() {}

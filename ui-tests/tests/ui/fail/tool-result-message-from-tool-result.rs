// proves: `ChatMessage::tool_result` rejects a whole `ToolResult`: a result must pass the seam first.
// control: pass/tool-result-message-from-wire-string.rs
// expect: E0308
use toolkit::wire::MessageError;
use toolkit::{ChatMessage, ToolResult};

pub fn leak(result: ToolResult) -> Result<ChatMessage, MessageError> {
    ChatMessage::tool_result("call_1", result)
}

fn main() {}

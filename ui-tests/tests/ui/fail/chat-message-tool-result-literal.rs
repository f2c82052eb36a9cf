// proves: a tool-result message cannot be assembled by hand, even from a real `WireString`: the
// fields of `ToolResultMessage` are private, so only `ChatMessage::tool_result` (which rejects an
// empty call id) makes one.
// control: pass/chat-message-constructors.rs
// expect: E0451
use toolkit::wire::ToolResultMessage;
use toolkit::{ChatMessage, WireString};

pub fn build(content: WireString) -> ChatMessage {
    ChatMessage::ToolResult(ToolResultMessage {
        call_id: String::new(),
        content,
    })
}

fn main() {}

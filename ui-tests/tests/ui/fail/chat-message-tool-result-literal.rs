// proves: the tool-result variant of `ChatMessage` cannot be built by struct literal, even from a real
// `WireString`: only `ChatMessage::tool_result` (which rejects an empty call id) makes one.
// control: pass/chat-message-constructors.rs
// expect: E0639
use toolkit::{ChatMessage, WireString};

pub fn build(content: WireString) -> ChatMessage {
    ChatMessage::ToolResult {
        call_id: String::new(),
        content,
    }
}

fn main() {}

// proves: `ChatMessage::tool_result` rejects a `String`: only a `WireString` becomes a tool-result message.
// control: pass/tool-result-message-from-wire-string.rs
// expect: E0308
use toolkit::ChatMessage;
use toolkit::wire::MessageError;

pub fn forge() -> Result<ChatMessage, MessageError> {
    ChatMessage::tool_result("call_1", String::from("forged"))
}

fn main() {}

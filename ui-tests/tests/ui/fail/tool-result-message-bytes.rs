// proves: a tool-result message cannot take raw bytes: it takes only a `WireString`.
// control: pass/media-from-seam.rs
// expect: E0308
use toolkit::ChatMessage;

pub fn smuggle(bytes: Vec<u8>) -> ChatMessage {
    ChatMessage::tool_result("call_1", bytes).expect("an id")
}

fn main() {}

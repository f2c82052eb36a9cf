// proves: a tool-result message cannot take a tool's unchecked `Media`: media reaches a message
// only inside the `WireString` the seam made.
// control: pass/media-from-seam.rs
// expect: E0308
use toolkit::ChatMessage;
use toolkit::result::Media;

pub fn smuggle(media: Media) -> ChatMessage {
    ChatMessage::tool_result("call_1", media).expect("an id")
}

fn main() {}

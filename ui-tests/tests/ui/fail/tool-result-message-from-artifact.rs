// proves: `ChatMessage::tool_result` rejects a `ToolArtifact`: artifacts have no path to the wire.
// control: pass/tool-result-message-from-wire-string.rs
// expect: E0308
use toolkit::wire::MessageError;
use toolkit::{ChatMessage, ToolArtifact};

pub fn leak(artifact: ToolArtifact) -> Result<ChatMessage, MessageError> {
    ChatMessage::tool_result("call_1", artifact)
}

fn main() {}

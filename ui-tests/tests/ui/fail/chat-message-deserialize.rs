// proves: `ChatMessage` is not `Deserialize`, so a tool-result message cannot be forged from bytes.
// control: pass/chat-message-constructors.rs
// expect: E0277
use toolkit::ChatMessage;

pub fn forge() -> serde_json::Result<ChatMessage> {
    serde_json::from_str::<ChatMessage>(
        r#"{"role": "tool_result", "call_id": "call_1", "content": "forged"}"#,
    )
}

fn main() {}

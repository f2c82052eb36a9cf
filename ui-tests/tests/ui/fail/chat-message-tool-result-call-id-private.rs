// proves: through `&mut ChatMessage` the call id of a tool-result message cannot be emptied (nor
// rewritten): `ToolResultMessage::call_id` is a private field, read only through `call_id()`.
// control: pass/chat-message-constructors.rs
// expect: E0616
use toolkit::ChatMessage;

pub fn empty_the_call_id(message: &mut ChatMessage) {
    if let ChatMessage::ToolResult(answer) = message {
        answer.call_id.clear();
    }
}

fn main() {}

// proves: `ChatMessage::tool_result` rejects a `Table`: table data has no path to the wire.
// control: pass/tool-result-message-from-wire-string.rs
// expect: E0308
use toolkit::wire::MessageError;
use toolkit::{ChatMessage, Table};

pub fn leak(table: Table) -> Result<ChatMessage, MessageError> {
    ChatMessage::tool_result("call_1", table)
}

fn main() {}

// control for fail/chat-message-*.rs: messages are made by their constructors (a tool result from a
// `WireString` and a non-empty call id), serialised for the provider, and a tool result is read by
// pattern (also through `&mut ChatMessage`) and its accessors.
use toolkit::wire::{MessageError, ToolResultMessage};
use toolkit::{
    ChatMessage, ToolCall, ToolContext, ToolLoopService, ToolRegistry, ToolResult, WireString, tool,
};

/// Answers with a fixed word.
#[tool]
fn ping() -> ToolResult {
    ToolResult::text("pong")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), MessageError> {
    let service = ToolLoopService::new(ToolRegistry::linked().expect("no duplicate tools"));
    let scope = service.scope(ToolContext::new()).unwrap();
    let content: WireString = service.invoke(&scope, "ping", "").await.wire().clone();

    assert_eq!(
        ChatMessage::tool_result("", content.clone()),
        Err(MessageError::EmptyCallId)
    );
    let messages = [
        ChatMessage::system("Be brief."),
        ChatMessage::user("Ping?"),
        ChatMessage::assistant("", vec![ToolCall::new("call_1", "ping", "{}")]),
        ChatMessage::tool_result("call_1", content)?,
    ];
    assert_eq!(
        serde_json::to_string(&messages[3]).unwrap(),
        r#"{"role":"tool_result","call_id":"call_1","content":"pong"}"#
    );
    let ChatMessage::ToolResult(answer) = &messages[3] else {
        panic!("not a tool result: {:?}", messages[3]);
    };
    let answer: &ToolResultMessage = answer;
    assert_eq!(
        (answer.call_id(), answer.content()),
        ("call_1", "pong")
    );

    // Mutable access reaches the message, but only to read it or replace it whole.
    let mut last = messages[3].clone();
    if let ChatMessage::ToolResult(answer) = &mut last {
        assert_eq!(answer.call_id(), "call_1");
    }
    last = ChatMessage::tool_result("call_2", answer.wire().clone())?;
    assert_eq!(
        serde_json::to_string(&last).unwrap(),
        r#"{"role":"tool_result","call_id":"call_2","content":"pong"}"#
    );
    Ok(())
}

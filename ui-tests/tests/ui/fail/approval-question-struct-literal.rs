// proves: a question about a call cannot be made by hand: `Question`'s fields are private, so
// only the service makes one, for a call it checked, and the approval an answer to it comes to
// covers that call and no other.
// control: pass/approval-question-from-the-service.rs
// expect: E0451
use toolkit::ToolCall;
use toolkit::question::Question;

pub fn forge() -> Question {
    Question {
        call: ToolCall::new("w1", "delete_everything", "{}"),
        preview: None,
        earlier: Vec::new(),
    }
}

fn main() {}

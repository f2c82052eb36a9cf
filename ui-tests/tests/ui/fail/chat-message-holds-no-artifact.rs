// proves: a conversation message cannot hold an artifact: the assistant turn takes text and tool
// calls, nothing else.
// control: pass/suspended-run-resumes.rs
// expect: E0277
use toolkit::{ChatMessage, ToolArtifact};

pub fn smuggle(artifact: ToolArtifact) -> ChatMessage {
    ChatMessage::assistant(artifact, Vec::new())
}

fn main() {}

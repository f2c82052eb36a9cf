// proves: a model-facing MCP reply cannot be made from an artifact: `ModelReply` converts from
// nothing of the caller's (only the server makes one, from a call's wire string).
// control: pass/mcp-replies-from-the-server.rs
// expect: E0277
use toolkit::ToolArtifact;
use toolkit_mcp::ModelReply;

fn reply_of<T: Into<ModelReply>>(value: T) -> ModelReply {
    value.into()
}

pub fn leak(artifact: ToolArtifact) -> ModelReply {
    reply_of(artifact)
}

fn main() {}

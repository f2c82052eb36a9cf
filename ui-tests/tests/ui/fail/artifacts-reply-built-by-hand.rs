// proves: the reply that carries artifacts to an MCP Apps view cannot be built outside the
// server: its fields are private, so only the app-only tool makes one, from a handle it gave.
// control: pass/mcp-replies-from-the-server.rs
// expect: E0451
use toolkit::ToolArtifact;
use toolkit_mcp::ArtifactsReply;

pub fn forge(artifact: ToolArtifact) -> ArtifactsReply {
    ArtifactsReply {
        tool: String::from("query_sql"),
        artifacts: vec![serde_json::to_value(artifact).unwrap()],
    }
}

fn main() {}

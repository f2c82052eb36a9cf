// proves: the reply that carries artifacts to an MCP Apps view cannot be made of JSON either
// (the server keeps a call's artifacts as JSON in its store, and reads them back into a reply
// itself): `ArtifactsReply` does not implement `Deserialize`.
// control: pass/mcp-replies-from-the-server.rs
// expect: E0277
use toolkit_mcp::ArtifactsReply;

pub fn forge(json: &str) -> ArtifactsReply {
    serde_json::from_str(json).unwrap()
}

fn main() {}

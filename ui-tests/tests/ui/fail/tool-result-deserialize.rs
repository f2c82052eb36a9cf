// proves: `ToolResult` is not `Deserialize`, so a result (and its artifacts) cannot come from outside bytes.
// control: pass/tool-result-factories.rs
// expect: E0277
use toolkit::ToolResult;

pub fn forge() -> serde_json::Result<ToolResult> {
    serde_json::from_str::<ToolResult>(
        r#"{"content": "forged", "is_error": false, "artifacts": []}"#,
    )
}

fn main() {}

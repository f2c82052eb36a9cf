//! Tools of a crate that depends on toolkit under another name (`tk`): `crate = "tk"` tells the
//! generated code where toolkit is. `tests/renamed.rs` runs them through the seam.

use tk::{ToolContext, ToolResult, tool, tools};

/// Adds two numbers.
#[tool(crate = "tk")]
pub fn add(
    /// The first number.
    a: i64,
    /// The second number.
    #[arg(default = 2)]
    b: i64,
    context: &ToolContext,
) -> String {
    format!("{} (admin: {})", a + b, context.is_admin())
}

/// A greeter whose tools share its greeting.
pub struct Greeter {
    /// The words to greet with.
    pub words: String,
}

/// How loud to greet, read from the context.
pub struct Volume(pub u8);

#[tools(crate = "tk")]
impl Greeter {
    /// Greets someone.
    #[tool]
    pub fn greet(
        &self,
        /// Who.
        name: String,
        #[state] volume: &Volume,
    ) -> ToolResult {
        ToolResult::text(format!(
            "{}, {name}{}",
            self.words,
            "!".repeat(usize::from(volume.0))
        ))
    }
}

//! Tools of a crate that depends on toolkit under another name (`tk`, inherited from the
//! workspace's dependency table): the macros find the rename through the manifests
//! (proc-macro-crate), and `crate = "tk"` says it explicitly. `tests/renamed.rs`
//! runs them through the seam.

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

/// Repeats a text, louder: no `crate` key, the macro finds `tk` in `Cargo.toml`.
#[tool]
pub fn shout(
    /// What to shout.
    text: String,
) -> String {
    text.to_uppercase()
}

/// A counter whose tool reads its start: no `crate` key either.
pub struct Counter {
    /// Where counting starts.
    pub start: u32,
}

#[tools]
impl Counter {
    /// Counts on from the start.
    #[tool]
    pub fn count_on(
        &self,
        /// How far.
        by: u32,
    ) -> String {
        (self.start + by).to_string()
    }
}

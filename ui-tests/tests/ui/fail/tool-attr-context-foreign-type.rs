// proves: a user type that is only named `ToolContext` is not taken silently for toolkit's: the
// parameter is read as the context, and the one error, on its type, says it is not toolkit's.
// control: pass/tool-attr-signatures.rs
// expect: E0277
// span: &ToolContext
use toolkit::tool;

/// The user's own context, which only shares the name.
pub struct ToolContext {
    pub user: String,
}

/// Says who calls.
#[tool]
pub fn who(context: &ToolContext) -> String {
    context.user.clone()
}

fn main() {}

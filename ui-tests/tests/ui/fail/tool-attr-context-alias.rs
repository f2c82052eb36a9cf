// proves: a context taken through an alias (`&Ctx`) is a reference argument, and the one error,
// on it, says the context is written `&ToolContext` by that name (it used to say only "use
// `String`", which does not fit a context).
// control: pass/tool-attr-signatures.rs
// expect: a #[tool] parameter cannot be a reference
// span: &Ctx
use toolkit::ToolContext as Ctx;
use toolkit::tool;

/// Says whether the caller is an admin.
#[tool]
pub fn admin(context: &Ctx) -> String {
    context.is_admin().to_string()
}

fn main() {}

// proves: `#[tool]` rejects argument attributes on a `#[state]` parameter: a state is read from
// the context, never decoded, so a default for it would be silently unused.
// control: pass/tool-attr-state.rs
// expect: a #[state] parameter is read from the context, not decoded from the arguments
// span: arg
use toolkit::tool;

/// A counter shared by every call.
pub struct Counter(u32);

/// Says the counter.
#[tool]
pub fn show(
    #[state]
    #[arg(default = 0)]
    counter: &Counter,
) -> String {
    counter.0.to_string()
}

fn main() {}

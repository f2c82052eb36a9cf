// proves: `#[tools]` on an impl block with no `#[tool]` method is an error, not a set of zero tools
// that silently registers nothing.
// control: pass/tools-impl.rs
// expect: a #[tools] impl block needs at least one method marked #[tool]
// span: Counter
use toolkit::tools;

/// A counter.
pub struct Counter(u32);

#[tools]
impl Counter {
    /// Says the value (but is not marked as a tool).
    pub fn value(&self) -> String {
        self.0.to_string()
    }
}

fn main() {}

// proves: `#[tools]` refuses a trait impl: tools are the type's own methods, registered with one
// instance, and a trait's methods are not the place for them.
// control: pass/tools-impl.rs
// expect: #[tools] goes on an inherent impl block, not a trait impl
// span: Default
use toolkit::tools;

/// A counter.
pub struct Counter(u32);

#[tools]
impl Default for Counter {
    fn default() -> Self {
        Counter(0)
    }
}

fn main() {}

// proves: `#[tools]` refuses a generic impl block: a registered tool has one concrete type, and
// its schema one concrete set of argument types.
// control: pass/tools-impl.rs
// expect: a #[tools] impl block cannot be generic
// span: <T: Send + Sync + 'static>
use toolkit::tools;

/// A counter.
pub struct Counter<T>(T);

#[tools]
impl<T: Send + Sync + 'static> Counter<T> {
    /// Says hello.
    #[tool]
    pub fn hello(&self) -> String {
        "hello".to_owned()
    }
}

fn main() {}

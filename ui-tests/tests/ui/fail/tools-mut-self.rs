// proves: a `#[tool]` method cannot take `&mut self`: every call shares the registered instance,
// so none may hold it exclusively; the error is on the receiver and says to keep what changes
// behind a `Mutex` or an atomic.
// control: pass/tools-impl.rs
// expect: a #[tool] method takes `&self`, not `&mut self`
// span: &mut self
use toolkit::tools;

/// A counter.
pub struct Counter(u32);

#[tools]
impl Counter {
    /// Adds one.
    #[tool]
    pub fn bump(&mut self) -> String {
        self.0 += 1;
        self.0.to_string()
    }
}

fn main() {}

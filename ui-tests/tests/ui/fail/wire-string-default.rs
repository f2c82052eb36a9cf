// proves: `WireString` has no `Default`, so an empty wire string cannot be conjured either.
// control: pass/wire-string-from-seam.rs
// expect: E0599
use toolkit::WireString;

pub fn forge() -> WireString {
    WireString::default()
}

fn main() {}

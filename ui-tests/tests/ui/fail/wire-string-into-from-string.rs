// proves: a `String` cannot become a `WireString` through `Into`, so content cannot skip the seam.
// control: pass/wire-string-from-seam.rs
// expect: E0277
use toolkit::WireString;

pub fn forge(text: String) -> WireString {
    text.into()
}

fn main() {}

// proves: a `String` cannot become a `WireString` through `From`, so content cannot skip the seam.
// control: pass/wire-string-from-seam.rs
// expect: E0277
use toolkit::WireString;

pub fn forge(text: String) -> WireString {
    <WireString as From<String>>::from(text)
}

fn main() {}

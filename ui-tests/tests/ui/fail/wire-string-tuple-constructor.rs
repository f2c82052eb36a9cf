// proves: the `WireString(..)` constructor is private, so a wire string cannot be built by literal.
// control: pass/wire-string-from-seam.rs
// expect: E0423
use toolkit::WireString;

pub fn forge() -> WireString {
    WireString(String::from("forged"))
}

fn main() {}

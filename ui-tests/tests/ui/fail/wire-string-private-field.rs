// proves: the text inside a `WireString` is private, so a bounded wire string cannot be rewritten.
// control: pass/wire-string-from-seam.rs
// expect: E0616
use toolkit::WireString;

pub fn overwrite(wire: &mut WireString) {
    wire.text = String::from("forged");
}

fn main() {}

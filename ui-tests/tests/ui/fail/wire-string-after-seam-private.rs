// proves: the seam's own constructor of `WireString` is private to `toolkit`.
// control: pass/wire-string-from-seam.rs
// expect: E0624
use toolkit::WireString;

pub fn forge() -> WireString {
    WireString::after_seam(String::from("forged"), false)
}

fn main() {}

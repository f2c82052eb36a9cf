// proves: the fields of `WireString` are private, so a wire string cannot be built by struct
// literal (neither its text, nor its error flag, nor its media).
// control: pass/wire-string-from-seam.rs
// expect: E0451
use toolkit::WireString;

pub fn forge() -> WireString {
    WireString {
        text: String::from("forged"),
        is_error: false,
        media: Vec::new(),
    }
}

fn main() {}

// proves: `WireString` is not `FromStr`, so no text parses into bounded content.
// control: pass/wire-string-from-seam.rs
// expect: E0277
use toolkit::WireString;

pub fn forge() -> Option<WireString> {
    "forged".parse::<WireString>().ok()
}

fn main() {}

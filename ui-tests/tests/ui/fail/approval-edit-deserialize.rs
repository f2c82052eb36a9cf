// proves: a checked edit cannot be read from data (a page's request, a token) either: it is not
// `Deserialize`, so what a client sends is only ever an argument text for the seam to check.
// control: pass/edit-checked-by-the-seam.rs
// expect: E0277
use toolkit::seam::CheckedEdit;

pub fn from_json(text: &str) -> CheckedEdit {
    serde_json::from_str(text).unwrap()
}

fn main() {}

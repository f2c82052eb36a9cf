// proves: an edit cannot be declared checked: `CheckedEdit`'s call is private, so only the seam's
// check of an operator's arguments makes one, and an unchecked argument text never becomes the
// call an approval covers.
// control: pass/edit-checked-by-the-seam.rs
// expect: E0451
use toolkit::ToolCall;
use toolkit::seam::CheckedEdit;

pub fn forge() -> CheckedEdit {
    CheckedEdit {
        call: ToolCall::new("r1", "rename", r#"{"to": 1}"#),
    }
}

fn main() {}

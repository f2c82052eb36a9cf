// proves: a checked edit's arguments cannot be changed after the check: its call is lent out
// only to read, and a call's fields are read only through its methods, so not even a whole new
// call can take its place.
// control: pass/edit-checked-by-the-seam.rs
// expect: E0594
use toolkit::seam::CheckedEdit;

pub fn swap(edit: &CheckedEdit) {
    *edit.call() = toolkit::ToolCall::new("r1", "rename", r#"{"to": 1}"#);
}

fn main() {}

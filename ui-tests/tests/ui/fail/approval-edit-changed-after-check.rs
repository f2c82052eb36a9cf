// proves: a checked edit's arguments cannot be changed after the check: its call is lent out
// only to read.
// control: pass/edit-checked-by-the-seam.rs
// expect: E0594
use toolkit::seam::CheckedEdit;

pub fn swap(edit: &CheckedEdit) {
    edit.call().arguments = r#"{"to": 1}"#.to_owned();
}

fn main() {}

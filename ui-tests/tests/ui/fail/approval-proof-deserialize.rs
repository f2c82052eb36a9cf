// proves: an `Approval` cannot be read from data either: it is not `Deserialize`.
// control: pass/approval-only-from-an-operator.rs
// expect: E0277
use toolkit::seam::Approval;

pub fn from_json(text: &str) -> Approval {
    serde_json::from_str(text).unwrap()
}

fn main() {}

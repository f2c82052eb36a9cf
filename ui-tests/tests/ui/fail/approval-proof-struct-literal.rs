// proves: an `Approval` (proof that an operator approved one exact call) cannot be forged: its
// fields are private, so only an operator's decision on a resumed run makes one.
// control: pass/approval-only-from-an-operator.rs
// expect: E0451
use toolkit::seam::Approval;

pub fn forge() -> Approval {
    Approval {
        call_id: "call_1".to_owned(),
        name: "delete_everything".to_owned(),
        arguments: "{}".to_owned(),
    }
}

fn main() {}

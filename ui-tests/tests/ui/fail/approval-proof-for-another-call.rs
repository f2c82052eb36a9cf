// proves: an approval cannot be made for a call of one's choosing: the function that makes one
// from a call is toolkit's own, used only for a pending call an operator (or an approval for the
// run, or a policy after the seam's checks) decided on.
// control: pass/edit-checked-by-the-seam.rs
// expect: E0624
use toolkit::ToolCall;
use toolkit::seam::Approval;

pub fn forge(call: &ToolCall) -> Approval {
    Approval::granted(call)
}

fn main() {}

// proves: an approval cannot be made for a call of one's choosing: the one function that makes
// one is toolkit's own (`Seam::approve`, which also checks the preview the approver was shown),
// used only for a pending call an operator (or an approval for the run, or a policy after the
// seam's checks) decided on.
// control: pass/edit-checked-by-the-seam.rs
// expect: E0624
use toolkit::ToolCall;
use toolkit::seam::{Approval, RunScope, Seam};

pub async fn forge(seam: &Seam, scope: &RunScope, call: &ToolCall) -> Option<Approval> {
    seam.approve(scope, call, &Default::default()).await.ok()
}

fn main() {}

//! The service: the seam, the recorder and the seal key, serving any number of runs and models.
//!
//! Its methods are in three files, declared in the order its rustdoc lists them: making and
//! configuring it ([`make`]), running a loop ([`run`]: `run`, `resume`, `abort`), then the
//! plumbing an MCP host's questions need ([`question`]).

mod make;
mod run;

mod question;

use std::sync::Arc;
use std::time::Duration;

use crate::approval::ApprovalPolicy;
use crate::recording::Recorder;
use crate::replay::ReplayStore;
use crate::seal::SealKey;
use crate::seam::Seam;

/// Runs tools for a model. It sits on the [`Seam`] (which checks, executes and bounds every
/// call) and adds the loop ([`run`](Self::run), [`resume`](Self::resume)), sealing of suspended
/// runs, and recording: every recorded step goes through its [`Recorder`] to the sinks, the event
/// stream and the trace.
///
/// One service serves many runs: the provider is chosen per run.
///
/// ```
/// use toolkit::{ToolContext, ToolLoopService, ToolRegistry};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let service = ToolLoopService::new(ToolRegistry::new());
/// let scope = service.scope(ToolContext::new())?;
/// let result = service.invoke(&scope, "nope", "{}").await;
/// assert!(result.is_error());
/// assert_eq!(result.content(), "Error: unknown tool \"nope\"");
/// # Ok::<(), toolkit::seam::ScopeError>(())
/// # }).unwrap();
/// ```
pub struct ToolLoopService {
    seam: Seam,
    recorder: Recorder,
    seal_key: SealKey,
    token_lifetime: Duration,
    replay: Arc<dyn ReplayStore>,
    policies: Vec<Arc<dyn ApprovalPolicy>>,
}

impl std::fmt::Debug for ToolLoopService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolLoopService")
            .field("seam", &self.seam)
            .field("recorder", &self.recorder)
            .field(
                "policies",
                &self
                    .policies
                    .iter()
                    .map(|policy| policy.name())
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

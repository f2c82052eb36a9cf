//! Cancellation from outside: the [`CancelSignal`] a caller gives when it stops wanting a run
//! or a call, and how the seam waits for a tool under it.
//!
//! Every way a call can be given up ends in the same place, the seam's wait for the tool: its
//! timeout, its caller dropping the call's future, and the signal of its scope
//! ([`RunScope::with_cancel`](super::RunScope::with_cancel)), which a loop run takes from its
//! request and an MCP server gives when the client cancels or goes away. The wait then ends
//! at once, a blocking tool's flag is raised ([`ToolContext::is_cancelled`]) and an async
//! tool's future is dropped, so that no work outlives the call.
//!
//! [`ToolContext::is_cancelled`]: crate::ToolContext::is_cancelled

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;
use std::time::Duration;

use tokio::sync::Notify;

/// Stops a run, or the calls of a scope, from outside; clones share one signal.
///
/// Given to a loop run ([`RunRequest::with_cancel`]), the run ends at its next wait with
/// [`Termination::Cancelled`], and a call it is running ends at once. Given to a scope
/// ([`RunScope::with_cancel`](super::RunScope::with_cancel)), each call of the scope waiting for
/// its tool ends with `Error: the call of tool "NAME" was cancelled before it finished.`, and
/// no call starts after.
///
/// ```
/// use toolkit::seam::CancelSignal;
///
/// let signal = CancelSignal::new();
/// let held = signal.clone();
/// assert!(!held.is_cancelled());
/// signal.cancel();
/// assert!(held.is_cancelled());
/// ```
///
/// [`RunRequest::with_cancel`]: crate::RunRequest::with_cancel
/// [`Termination::Cancelled`]: crate::recording::Termination::Cancelled
#[derive(Clone, Debug, Default)]
pub struct CancelSignal(Arc<CancelInner>);

#[derive(Debug, Default)]
struct CancelInner {
    cancelled: AtomicBool,
    notify: Notify,
}

impl CancelSignal {
    /// A signal not yet given.
    pub fn new() -> Self {
        Self::default()
    }

    /// Gives the signal: whatever waits on it stops. Giving it again changes nothing.
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::SeqCst);
        self.0.notify.notify_waiters();
    }

    /// Whether it was given.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Waits until the signal is given (at once when it was): for a caller that waits on
    /// something else of its own meanwhile, such as a person's answer.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.0.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// How a wait for a tool ended without its outcome.
#[derive(Clone, Copy)]
pub(super) enum Ended {
    /// The timeout passed.
    TimedOut,
    /// The scope's signal was given.
    Cancelled,
}

/// Waits for `work` for at most `timeout`, and only until `signal` (if any) is given. The
/// outcome wins when both are ready at once: a call that finished is not thrown away.
pub(super) async fn within<T>(
    work: impl Future<Output = T>,
    timeout: Duration,
    signal: Option<&CancelSignal>,
) -> Result<T, Ended> {
    let timed = tokio::time::timeout(timeout, work);
    let Some(signal) = signal else {
        return timed.await.map_err(|_| Ended::TimedOut);
    };
    let mut timed = pin!(timed);
    let mut cancelled = pin!(signal.cancelled());
    std::future::poll_fn(|context| {
        if let Poll::Ready(done) = timed.as_mut().poll(context) {
            return Poll::Ready(done.map_err(|_| Ended::TimedOut));
        }
        match cancelled.as_mut().poll(context) {
            Poll::Ready(()) => Poll::Ready(Err(Ended::Cancelled)),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}

//! Single use of sealed tokens: a store every instance that resumes runs shares, in which a
//! token's id can be claimed once.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use crate::shared::BackendFuture;

/// Where resumed tokens are recorded, so that each resumes once. A process on its own can use
/// the [`MemoryReplayStore`] (the default); processes that resume each other's runs share one
/// store (the audit database of `toolkit-audit` is one).
pub trait ReplayStore: Send + Sync {
    /// Claims the token `id`, valid until `expires_at`: `Ok(true)` the first time, `Ok(false)`
    /// for every later claim. A claim and its check must be one step (a unique key, never a
    /// read then a write), so that two resumes at once cannot both win.
    fn claim<'a>(&'a self, id: &'a str, expires_at: SystemTime) -> BackendFuture<'a, bool>;
}

/// The tokens claimed in this process; an expired token's entry is dropped at the next claim,
/// since the token cannot open any more.
#[derive(Debug, Default)]
pub struct MemoryReplayStore {
    used: Mutex<HashMap<String, SystemTime>>,
}

impl MemoryReplayStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl ReplayStore for MemoryReplayStore {
    fn claim<'a>(&'a self, id: &'a str, expires_at: SystemTime) -> BackendFuture<'a, bool> {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        let now = SystemTime::now();
        used.retain(|_, expiry| *expiry > now);
        let first = used.insert(id.to_owned(), expires_at).is_none();
        Box::pin(std::future::ready(Ok(first)))
    }
}

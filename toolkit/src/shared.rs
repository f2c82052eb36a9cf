//! What the instances of a service share besides the audit copy: values a later request may
//! need, whichever instance it reaches (an MCP server's artifact handles, the questions that
//! wait for a person's answer, its sessions). One process keeps them in memory
//! ([`MemoryStore`]); a fleet shares a database (toolkit-audit's PostgreSQL audit copy is one).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// The boxed future of a [`SharedStore`] method.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A store that could not answer (its database is away).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct StoreError(Box<dyn std::error::Error + Send + Sync>);

impl StoreError {
    /// Wraps the store's own error.
    pub fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self(error.into())
    }
}

/// Values by kind and key, each for a lifetime: what instances of a server share.
pub trait SharedStore: Send + Sync + 'static {
    /// Keeps `value` under `kind` and `key` for `lifetime`, replacing what was there.
    fn put<'a>(
        &'a self,
        kind: &'static str,
        key: &'a str,
        value: Vec<u8>,
        lifetime: Duration,
    ) -> StoreFuture<'a, ()>;

    /// The value under `kind` and `key`, unless its lifetime has passed.
    fn get<'a>(&'a self, kind: &'static str, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>>;

    /// The value under `kind` and `key` taken out, and whether its lifetime has not passed yet
    /// (a store may forget a value some time after its lifetime): of two takes at once, on any
    /// instances, one gets it.
    fn take<'a>(
        &'a self,
        kind: &'static str,
        key: &'a str,
    ) -> StoreFuture<'a, Option<(Vec<u8>, bool)>>;
}

/// One process's store: at most [`MemoryStore::PER_KIND`] values of each kind (keeping one more
/// forgets the oldest), forgotten after their lifetime.
#[derive(Debug, Default)]
pub struct MemoryStore {
    values: Mutex<Vec<(&'static str, VecDeque<Kept>)>>,
}

#[derive(Debug)]
struct Kept {
    key: String,
    value: Vec<u8>,
    until: Instant,
}

impl MemoryStore {
    /// How many values of each kind are kept at once.
    pub const PER_KIND: usize = 256;

    fn with_kind<T>(&self, kind: &'static str, work: impl FnOnce(&mut VecDeque<Kept>) -> T) -> T {
        let mut values = self
            .values
            .lock()
            .expect("never poisoned: no panic while held");
        let position = values
            .iter()
            .position(|(known, _)| *known == kind)
            .unwrap_or_else(|| {
                values.push((kind, VecDeque::new()));
                values.len() - 1
            });
        work(&mut values[position].1)
    }
}

impl SharedStore for MemoryStore {
    fn put<'a>(
        &'a self,
        kind: &'static str,
        key: &'a str,
        value: Vec<u8>,
        lifetime: Duration,
    ) -> StoreFuture<'a, ()> {
        let now = Instant::now();
        self.with_kind(kind, |kept| {
            kept.retain(|entry| entry.key != key);
            while kept.len() >= Self::PER_KIND {
                kept.pop_front();
            }
            kept.push_back(Kept {
                key: key.to_owned(),
                value,
                until: now + lifetime,
            });
        });
        Box::pin(async { Ok(()) })
    }

    fn get<'a>(&'a self, kind: &'static str, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        let now = Instant::now();
        let value = self.with_kind(kind, |kept| {
            kept.iter()
                .find(|entry| entry.key == key && entry.until > now)
                .map(|entry| entry.value.clone())
        });
        Box::pin(async { Ok(value) })
    }

    fn take<'a>(
        &'a self,
        kind: &'static str,
        key: &'a str,
    ) -> StoreFuture<'a, Option<(Vec<u8>, bool)>> {
        let now = Instant::now();
        let taken = self.with_kind(kind, |kept| {
            let position = kept.iter().position(|entry| entry.key == key)?;
            let entry = kept.remove(position)?;
            Some((entry.value, entry.until > now))
        });
        Box::pin(async { Ok(taken) })
    }
}

//! What the instances of a service share besides the audit copy: values a later request may
//! need, whichever instance it reaches (an MCP server's artifact handles, the questions that
//! wait for a person's answer, its sessions). One process keeps them in memory
//! ([`MemoryStore`]); a fleet shares a database (toolkit-audit's PostgreSQL audit copy is one).

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// The boxed future of a backend's method: [`Sink::record`](crate::Sink::record),
/// [`SharedStore`]'s, [`ReplayStore::claim`](crate::seal::ReplayStore::claim).
pub type BackendFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, BackendError>> + Send + 'a>>;

/// A backend that could not do what it was asked: a recorder [`Sink`](crate::Sink) that could not
/// keep an event, a [`SharedStore`] or a [`ReplayStore`](crate::seal::ReplayStore) that could not
/// answer (its database is away). The one error type of every backend toolkit writes to or reads
/// from, wrapping the backend's own error.
///
/// ```
/// use toolkit::shared::BackendError;
///
/// let error = BackendError::new("the database is away");
/// assert_eq!(error.to_string(), "the database is away");
/// ```
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct BackendError(Box<dyn std::error::Error + Send + Sync>);

impl BackendError {
    /// Wraps the backend's own error.
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
    ) -> BackendFuture<'a, ()>;

    /// The value under `kind` and `key`, unless its lifetime has passed.
    fn get<'a>(&'a self, kind: &'static str, key: &'a str) -> BackendFuture<'a, Option<Vec<u8>>>;

    /// The value under `kind` and `key` taken out, and whether its lifetime has not passed yet
    /// (a store may forget a value some time after its lifetime): of two takes at once, on any
    /// instances, one gets it.
    fn take<'a>(
        &'a self,
        kind: &'static str,
        key: &'a str,
    ) -> BackendFuture<'a, Option<(Vec<u8>, bool)>>;
}

/// One process's store: at most [`MemoryStore::PER_KIND`] values of each kind (keeping one more
/// forgets the oldest), forgotten after their lifetime.
#[derive(Debug, Default)]
pub struct MemoryStore {
    values: Mutex<HashMap<&'static str, VecDeque<Kept>>>,
}

#[derive(Debug)]
struct Kept {
    key: String,
    value: Vec<u8>,
    /// `None`: a lifetime past what an `Instant` can count, which never ends in this process.
    until: Option<Instant>,
}

impl Kept {
    fn alive(&self, now: Instant) -> bool {
        self.until.is_none_or(|until| until > now)
    }
}

impl MemoryStore {
    /// How many values of each kind are kept at once.
    pub const PER_KIND: usize = 256;

    fn with_kind<T>(&self, kind: &'static str, work: impl FnOnce(&mut VecDeque<Kept>) -> T) -> T {
        let mut values = self
            .values
            .lock()
            .expect("never poisoned: no panic while held");
        work(values.entry(kind).or_default())
    }
}

impl SharedStore for MemoryStore {
    fn put<'a>(
        &'a self,
        kind: &'static str,
        key: &'a str,
        value: Vec<u8>,
        lifetime: Duration,
    ) -> BackendFuture<'a, ()> {
        let now = Instant::now();
        self.with_kind(kind, |kept| {
            kept.retain(|entry| entry.key != key);
            while kept.len() >= Self::PER_KIND {
                kept.pop_front();
            }
            kept.push_back(Kept {
                key: key.to_owned(),
                value,
                until: now.checked_add(lifetime),
            });
        });
        Box::pin(async { Ok(()) })
    }

    fn get<'a>(&'a self, kind: &'static str, key: &'a str) -> BackendFuture<'a, Option<Vec<u8>>> {
        let now = Instant::now();
        let value = self.with_kind(kind, |kept| {
            kept.iter()
                .find(|entry| entry.key == key && entry.alive(now))
                .map(|entry| entry.value.clone())
        });
        Box::pin(async { Ok(value) })
    }

    fn take<'a>(
        &'a self,
        kind: &'static str,
        key: &'a str,
    ) -> BackendFuture<'a, Option<(Vec<u8>, bool)>> {
        let now = Instant::now();
        let taken = self.with_kind(kind, |kept| {
            let position = kept.iter().position(|entry| entry.key == key)?;
            let entry = kept.remove(position)?;
            let alive = entry.alive(now);
            Some((entry.value, alive))
        });
        Box::pin(async { Ok(taken) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(store: &MemoryStore, kind: &'static str, key: &str) -> Option<Vec<u8>> {
        store.get(kind, key).await.expect("memory answers")
    }

    #[tokio::test(start_paused = true)]
    async fn values_live_for_their_lifetime_are_taken_once_and_each_kind_keeps_its_latest() {
        let store = MemoryStore::default();
        let minute = Duration::from_mins(1);
        store
            .put("a", "k", b"one".to_vec(), minute)
            .await
            .expect("kept");
        store
            .put("a", "k", b"two".to_vec(), minute)
            .await
            .expect("kept");
        assert_eq!(get(&store, "a", "k").await, Some(b"two".to_vec()));
        assert_eq!(get(&store, "b", "k").await, None, "another kind");
        assert_eq!(get(&store, "a", "j").await, None, "another key");

        tokio::time::advance(minute).await;
        assert_eq!(get(&store, "a", "k").await, None, "past its lifetime");
        // A take still finds it, and says it expired; then it is gone.
        assert_eq!(
            store.take("a", "k").await.expect("memory answers"),
            Some((b"two".to_vec(), false))
        );
        assert_eq!(store.take("a", "k").await.expect("memory answers"), None);

        store
            .put("a", "live", b"x".to_vec(), minute)
            .await
            .expect("kept");
        assert_eq!(
            store.take("a", "live").await.expect("memory answers"),
            Some((b"x".to_vec(), true))
        );

        // One more than a kind keeps forgets its oldest, and no other kind's.
        store
            .put("b", "other", b"b".to_vec(), minute)
            .await
            .expect("kept");
        for number in 0..=MemoryStore::PER_KIND {
            let key = number.to_string();
            store
                .put("a", &key, b"v".to_vec(), minute)
                .await
                .expect("kept");
        }
        assert_eq!(get(&store, "a", "0").await, None);
        assert_eq!(get(&store, "a", "1").await, Some(b"v".to_vec()));
        let last = MemoryStore::PER_KIND.to_string();
        assert_eq!(get(&store, "a", &last).await, Some(b"v".to_vec()));
        assert_eq!(get(&store, "b", "other").await, Some(b"b".to_vec()));
    }

    #[tokio::test(start_paused = true)]
    async fn a_lifetime_past_what_an_instant_counts_never_ends_and_the_store_goes_on() {
        // `--approval-timeout 18446744073709551615` gives such a lifetime: it once overflowed
        // `Instant + Duration` while the store's lock was held, which poisoned it for good.
        let store = MemoryStore::default();
        store
            .put("a", "k", b"v".to_vec(), Duration::MAX)
            .await
            .expect("kept");
        tokio::time::advance(Duration::from_hours(24 * 365)).await;
        assert_eq!(get(&store, "a", "k").await, Some(b"v".to_vec()));
        assert_eq!(
            store.take("a", "k").await.expect("memory answers"),
            Some((b"v".to_vec(), true))
        );
        store
            .put("a", "j", b"w".to_vec(), Duration::from_mins(1))
            .await
            .expect("kept");
        assert_eq!(get(&store, "a", "j").await, Some(b"w".to_vec()));
    }
}

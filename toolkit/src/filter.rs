//! Content filters: what the seam does to a tool's content before it becomes a
//! [`WireString`](crate::WireString), such as masking secrets. Artifacts, for people, are never
//! filtered.

use std::borrow::Cow;

/// Rewrites a tool's content before it becomes a [`WireString`](crate::WireString) (say, to mask
/// secrets the model must not see). Set one on a [`Seam`](crate::Seam) (it then applies to every
/// scope the seam makes) or on a [`RunScope`](crate::RunScope).
pub trait ContentFilter: Send + Sync {
    /// The content as the model may see it.
    fn filter<'a>(&self, content: &'a str) -> Cow<'a, str>;
}

/// Masks secret-shaped strings (API keys and tokens, JWTs, `Bearer` and `Basic` credentials,
/// passwords in URLs and in `name=value` pairs, PEM private keys, cloud access keys) with
/// `[REDACTED]`: the rule set of [`secrets::mask_secrets`](crate::secrets::mask_secrets).
///
/// ```
/// use std::sync::Arc;
/// use toolkit::{SecretFilter, Seam, ToolRegistry};
///
/// let seam = Seam::new(ToolRegistry::new()).with_content_filter(Arc::new(SecretFilter));
/// # let _ = seam;
/// ```
#[cfg(feature = "secrets")]
#[derive(Clone, Copy, Debug, Default)]
pub struct SecretFilter;

#[cfg(feature = "secrets")]
impl ContentFilter for SecretFilter {
    fn filter<'a>(&self, content: &'a str) -> Cow<'a, str> {
        crate::secrets::mask_secrets(content)
    }
}

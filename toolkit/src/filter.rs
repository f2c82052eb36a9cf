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

/// Masks secret-shaped strings with `[REDACTED]`, by the rule set of
/// [`secrets::mask_secrets`](crate::secrets::mask_secrets) (the [module docs](crate::secrets)
/// list what it covers): private keys; passwords in URLs, command lines (`mysql -pPW`,
/// `curl -u user:PW`, `--password PW`, `sshpass -p PW`) and SQL; fields whose name says secret,
/// in every common syntax (`DB_PASS=…`, `"pass": "…"`, `password: …`, `<password>…</password>`,
/// `Password=…;`, `--token=…`); `Authorization` and cookie headers; password hashes; the token
/// shapes of known providers (OpenAI, Anthropic, GitHub, AWS, Google, Slack, Stripe, JWTs, ...);
/// and long runs of mixed letters and digits. Hexadecimal digests, commit ids, UUIDs and prose
/// pass unchanged, and masking a masked text changes nothing.
///
/// ```
/// use std::sync::Arc;
/// use toolkit::{seam::SecretFilter, Seam, ToolRegistry};
///
/// let seam = Seam::new(ToolRegistry::new()).with_content_filter(Arc::new(SecretFilter));
/// # let _ = seam;
/// ```
#[cfg(feature = "secrets")]
#[derive(Clone, Copy, Debug, Default)]
#[allow(
    clippy::exhaustive_structs,
    reason = "a unit struct: it has nothing to grow"
)]
pub struct SecretFilter;

#[cfg(feature = "secrets")]
impl ContentFilter for SecretFilter {
    fn filter<'a>(&self, content: &'a str) -> Cow<'a, str> {
        crate::secrets::mask_secrets(content)
    }
}

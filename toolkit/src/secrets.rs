//! Masking of secret-shaped strings and e-mail addresses: one rule set for every place that must
//! not show a secret (tools that read environments or logs, the audit copy's `redacted` level).
//!
//! ```
//! use toolkit::secrets::{mask, is_secret_name};
//!
//! assert_eq!(
//!     mask("login ada@example.com with password=hunter2"),
//!     "login [EMAIL] with password=[REDACTED]"
//! );
//! assert!(is_secret_name("OPENAI_API_KEY"));
//! assert!(!is_secret_name("HOME"));
//! ```

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// What a secret is replaced with.
pub const SECRET_MASK: &str = "[REDACTED]";
/// What an e-mail address is replaced with.
pub const EMAIL_MASK: &str = "[EMAIL]";

/// Parts of a variable name that mark its value as a secret.
const SECRET_NAME_PARTS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "PRIVATE",
    "COOKIE",
    "SESSION",
    "SIGNATURE",
];

/// Whole words (between `_`) of a variable name that mark its value as a secret.
const SECRET_NAME_WORDS: &[&str] = &["AUTH", "PASS", "PAT", "DSN", "SALT", "PWD_HASH"];

/// Whether a name (an environment variable, a field) says its value is a secret: it contains
/// `KEY`, `TOKEN`, `SECRET`, `PASSWORD`, `CREDENTIAL`, `PRIVATE`, `COOKIE`, `SESSION`, ... or
/// has a word such as `AUTH` or `PASS`, in any case.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_NAME_PARTS.iter().any(|part| upper.contains(part))
        || upper
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|word| SECRET_NAME_WORDS.contains(&word))
}

fn regex(pattern: &str) -> Regex {
    // The patterns are constants of this file; a test compiles each one.
    Regex::new(pattern).unwrap_or_else(|error| panic!("invalid redaction pattern: {error}"))
}

static PRIVATE_KEY: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
    )
});

static URL_PASSWORD: LazyLock<Regex> =
    LazyLock::new(|| regex(r"([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*):[^\s@/]+@"));

static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r#"(?i)\b([\w.-]*(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|authorization|credentials?|session[_-]?id|cookie)[\w.-]*)(["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&"']+)"#,
    )
});

static SCHEME_TOKEN: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]{8,}"));

static KNOWN_TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r"\b(?:",
        r"[sprk]k_(?:live|test)_[A-Za-z0-9]{10,}",
        r"|sk-[A-Za-z0-9_-]{16,}",
        r"|gh[pousr]_[A-Za-z0-9]{20,}",
        r"|github_pat_[A-Za-z0-9_]{20,}",
        r"|xox[abprs]-[A-Za-z0-9-]{10,}",
        r"|(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}",
        r"|whsec_[A-Za-z0-9]{16,}",
        r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
        r"|npm_[A-Za-z0-9]{30,}",
        r"|pypi-[A-Za-z0-9_-]{30,}",
        r"|hf_[A-Za-z0-9]{30,}",
        r"|shp(?:at|ss|ca|pa)_[A-Fa-f0-9]{32}",
        r"|dop_v1_[a-f0-9]{64}",
        r"|hv[sbr]\.[A-Za-z0-9_-]{20,}",
        r"|hooks\.slack\.com/services/[A-Za-z0-9/]+",
        r"|AIza[0-9A-Za-z_-]{35}",
        r"|glpat-[A-Za-z0-9_-]{20,}",
        r"|eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}",
        r")"
    ))
});

/// Long runs of token characters; masked only when they mix letters and digits.
static LONG_TOKEN: LazyLock<Regex> = LazyLock::new(|| regex(r"[A-Za-z0-9_+/=-]{32,}"));

static EMAIL: LazyLock<Regex> =
    LazyLock::new(|| regex(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"));

/// Whether a run of token characters looks like a key rather than a word, a path or a digest:
/// letters and digits mixed, and not only hexadecimal digits and hyphens (a hash, a UUID or an
/// id that a tool computed; hexadecimal secrets are caught by their name or their `Bearer`
/// instead).
fn looks_like_key(token: &str) -> bool {
    token.bytes().any(|b| b.is_ascii_digit())
        && token.bytes().any(|b| b.is_ascii_alphabetic())
        && !token.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

/// `text` with secret-shaped strings replaced by [`SECRET_MASK`]: private key blocks, URL
/// passwords, `name=value` pairs whose name says secret, `Bearer` tokens, the shapes of common
/// API keys (`sk-…`, `ghp_…`, `AKIA…`, JWTs, …) and long runs of mixed letters and digits.
pub fn mask_secrets(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    replace(&mut out, &PRIVATE_KEY, |_| SECRET_MASK.to_owned());
    replace(&mut out, &URL_PASSWORD, |caps| {
        format!("{}:{SECRET_MASK}@", &caps[1])
    });
    replace(&mut out, &SCHEME_TOKEN, |caps| {
        format!("{}{}{SECRET_MASK}", &caps[1], &caps[2])
    });
    replace(&mut out, &ASSIGNMENT, |caps| {
        format!("{}{}{SECRET_MASK}", &caps[1], &caps[2])
    });
    replace(&mut out, &KNOWN_TOKEN, |_| SECRET_MASK.to_owned());
    replace(&mut out, &LONG_TOKEN, |caps| {
        if looks_like_key(&caps[0]) {
            SECRET_MASK.to_owned()
        } else {
            caps[0].to_owned()
        }
    });
    out
}

/// `text` with e-mail addresses replaced by [`EMAIL_MASK`].
pub fn mask_emails(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    replace(&mut out, &EMAIL, |_| EMAIL_MASK.to_owned());
    out
}

/// `text` with secrets and then e-mail addresses masked.
pub fn mask(text: &str) -> String {
    mask_emails(&mask_secrets(text)).into_owned()
}

fn replace(text: &mut Cow<'_, str>, pattern: &Regex, with: impl Fn(&Captures<'_>) -> String) {
    if !pattern.is_match(text) {
        return;
    }
    let replaced = pattern.replace_all(text, |caps: &Captures<'_>| with(caps));
    if let Cow::Owned(replaced) = replaced {
        *text = Cow::Owned(replaced);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        for pattern in [
            &PRIVATE_KEY,
            &URL_PASSWORD,
            &ASSIGNMENT,
            &SCHEME_TOKEN,
            &KNOWN_TOKEN,
            &LONG_TOKEN,
            &EMAIL,
        ] {
            assert!(!pattern.as_str().is_empty());
        }
    }

    #[test]
    fn masks_each_shape() {
        let cases = [
            (
                "postgres://ada:hunter2@db.example/app",
                "postgres://ada:[REDACTED]@db.example/app",
            ),
            ("api_key=abc123 next", "api_key=[REDACTED] next"),
            ("\"password\": \"p w\"", "\"password\": [REDACTED]"),
            (
                "Authorization: Bearer abcdefgh12345678",
                "Authorization: [REDACTED] [REDACTED]",
            ),
            ("use Bearer abcdefgh12345678", "use Bearer [REDACTED]"),
            ("key sk-abcdefghijklmnop1234", "key [REDACTED]"),
            ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]"),
            ("AKIAABCDEFGHIJKLMNOP", "[REDACTED]"),
            ("jwt eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl", "jwt [REDACTED]"),
            ("id 0123456789abcdef0123456789abcdefXY", "id [REDACTED]"),
            (
                "sha256:13372360cc1f5e93f57306f602f7ea02238fc79fd38fa1b9887ebb5f041d8448",
                "sha256:13372360cc1f5e93f57306f602f7ea02238fc79fd38fa1b9887ebb5f041d8448",
            ),
            ("/usr/local/bin:/usr/bin", "/usr/local/bin:/usr/bin"),
            // UUIDs are ids a tool made, not keys (the `uuid` tool's answer stays readable).
            (
                "0190f5c4-7d1e-7a3b-9c2d-5e8f10a2b3c4\n6f1c2a9e-3b4d-4e8f-a1b2-c3d4e5f60718",
                "0190f5c4-7d1e-7a3b-9c2d-5e8f10a2b3c4\n6f1c2a9e-3b4d-4e8f-a1b2-c3d4e5f60718",
            ),
            ("run-0190f5c47d1e7a3b9c2d5e8f10a2b3c4XYZ", "[REDACTED]"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
                "[REDACTED]",
            ),
            ("plain words only", "plain words only"),
        ];
        for (input, expected) in cases {
            assert_eq!(mask_secrets(input), expected, "{input}");
        }
        assert_eq!(mask_emails("to ada.l@example.co.uk."), "to [EMAIL].");
    }

    #[test]
    fn secret_names() {
        for name in [
            "AWS_SECRET_ACCESS_KEY",
            "github_token",
            "DB_PASSWORD",
            "MY_AUTH",
            "SENTRY_DSN",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in ["PATH", "HOME", "PWD", "GIT_AUTHOR_NAME", "LANG"] {
            assert!(!is_secret_name(name), "{name}");
        }
    }
}

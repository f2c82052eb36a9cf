//! Tools over text the model passes in: statistics and digests.

#[cfg(any(feature = "files", feature = "utility"))]
use schemars::JsonSchema;
#[cfg(any(feature = "files", feature = "utility"))]
use serde::{Deserialize, Serialize};
#[cfg(feature = "utility")]
use sha2::{Digest, Sha256, Sha512};
#[cfg(any(feature = "data", feature = "utility"))]
use toolkit::tool;
#[cfg(feature = "data")]
use toolkit::{Table, ToolArtifact, ToolResult};

#[cfg(feature = "utility")]
use crate::shared::hex;

/// Counts the lines, words, characters and bytes of a text.
#[cfg(feature = "data")]
#[tool(read_only, idempotent, group = "data")]
pub fn text_stats(
    /// The text to measure.
    text: String,
) -> ToolResult {
    let stats = [
        ("lines", text.lines().count()),
        ("words", text.split_whitespace().count()),
        ("characters", text.chars().count()),
        ("bytes", text.len()),
        (
            "blank lines",
            text.lines().filter(|line| line.trim().is_empty()).count(),
        ),
    ];
    let mut rows = Vec::with_capacity(stats.len());
    let mut summary = Vec::with_capacity(stats.len());
    for (metric, value) in stats {
        let value = value.to_string();
        summary.push(format!("{metric}: {value}"));
        rows.push([metric.to_owned(), value]);
    }
    let table = match Table::from_rows(["metric", "value"], rows) {
        Ok(table) => table,
        Err(error) => return ToolResult::error(format!("Error: {error}")),
    };
    ToolResult::text_with(
        summary.join(", "),
        [ToolArtifact::table("Text statistics", table)],
    )
}

/// A digest algorithm.
#[cfg(any(feature = "files", feature = "utility"))]
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum HashAlgorithm {
    /// SHA-256 (32 bytes).
    Sha256,
    /// SHA-512 (64 bytes).
    Sha512,
}

/// Computes the hex digest of a text's UTF-8 bytes.
#[cfg(feature = "utility")]
#[tool(read_only, idempotent, group = "utility")]
pub fn hash_text(
    /// The text to hash.
    text: String,
    /// The digest algorithm.
    #[arg(default = HashAlgorithm::Sha256)]
    algorithm: HashAlgorithm,
) -> String {
    let digest = match algorithm {
        HashAlgorithm::Sha256 => hex(&Sha256::digest(text.as_bytes())),
        HashAlgorithm::Sha512 => hex(&Sha512::digest(text.as_bytes())),
    };
    let name = match algorithm {
        HashAlgorithm::Sha256 => "sha256",
        HashAlgorithm::Sha512 => "sha512",
    };
    format!("{name}:{digest}")
}

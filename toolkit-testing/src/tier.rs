//! The two test tiers: the fast one (`cargo test --workspace`) and the full one
//! (`./scripts/test`, which sets `TOOLKIT_TEST_TIER=full`).

use std::io::Write as _;

/// The variable `./scripts/test` sets to `full`.
pub const VARIABLE: &str = "TOOLKIT_TEST_TIER";

/// Whether this is the full tier.
pub fn full() -> bool {
    std::env::var(VARIABLE).as_deref() == Ok("full")
}

/// Whether a test that needs `what` (Chromium, PostgreSQL, Python, Node) runs: in the full tier
/// it does; in the fast tier it says so on stderr (which the test harness does not capture) and
/// returns `false`, and the test returns at once.
pub fn needs(what: &str) -> bool {
    if full() {
        return true;
    }
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED (fast tier): needs {what}; ./scripts/test runs it"
    );
    false
}

/// Says on stderr that a test skipped, unless under `CI=true`, where it fails instead: what the
/// full tier needs must be there.
///
/// # Panics
/// Under `CI=true`.
pub fn missing(message: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{message}: under CI=true this fails"
    );
    let _ = writeln!(std::io::stderr(), "SKIPPED: {message}");
}

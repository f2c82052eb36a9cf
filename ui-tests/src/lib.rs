//! Compile-time conformance suite of `toolkit` (nothing to call: the suite lives in `tests/`).
//!
//! `tests/ui/fail/*.rs` are compile-fail proofs, one guarantee per file, each with the compiler's
//! `.stderr` beside it; `tests/ui/pass/*.rs` are passing controls that use the same imports, so a
//! proof cannot fail for the wrong reason. `tests/ui.rs` runs both with trybuild; `tests/suite.rs`
//! checks the suite's own shape. Refresh the snapshots with
//! `TRYBUILD=overwrite cargo test -p ui-tests --test ui`, then read the diff.

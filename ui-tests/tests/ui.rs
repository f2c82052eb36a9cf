//! The conformance suite: every `fail/` case must fail to compile exactly as its `.stderr` says,
//! every `pass/` control must compile and run.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}

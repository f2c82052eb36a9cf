//! One trivial tool call, `add(a, b) -> (a + b).to_string()`, through toolkit, rmcp and rig-core,
//! in one criterion group, so that the ratios between them come from one run on one machine.
//!
//! Every framework starts from the same JSON arguments text and ends at its own result value;
//! each call is one `block_on` on a current-thread runtime, and `block_on_only` is that floor.
//! After the group, the ratios of toolkit's paths to the others are measured in paired rounds
//! (every path in turn, about a millisecond each, 200 times; see
//! `toolkit_testing::paired`) and printed with the goals and the load average.

#![allow(missing_docs)]


use std::hint::black_box;

use criterion::Criterion;
use toolkit_testing::paired::{Paired, load_average, verdict, wanted};
use peer_bench::{PATHS, Peers};

/// A path's name and one call of it.
type Path<'a> = (&'static str, Box<dyn Fn() + 'a>);

/// Every path as a call the bench and the paired rounds make alike, in the order of [`PATHS`].
fn paths(peers: &Peers) -> Vec<Path<'_>> {
    macro_rules! paths {
        ($($path:literal => $call:expr),* $(,)?) => {{
            let paths: Vec<Path<'_>> =
                vec![$(($path, Box::new(move || { let _ = black_box($call); }))),*];
            assert_eq!([$($path),*], PATHS, "every path is timed, in order");
            paths
        }};
    }
    paths! {
        "block_on_only" => peers.block_on_only(),
        "hand_written" => peers.hand_written(),
        "toolkit_invoke_inline" => peers.toolkit_invoke("add"),
        "toolkit_invoke_async" => peers.toolkit_invoke("add_async"),
        "toolkit_observed" => peers.toolkit_observed(),
        "toolkit_observed_10_subscribers" => peers.toolkit_observed_watched(),
        "toolkit_seam_inline" => peers.toolkit_seam("add"),
        "rmcp_call_tool" => peers.rmcp_call_tool(),
        "rig_erased_tool" => peers.rig_erased_tool(),
        "rig_handler_by_name" => peers.rig_handler_by_name(),
    }
}

fn bench(c: &mut Criterion, paths: &[Path<'_>]) {
    let mut group = c.benchmark_group("peers");
    for (path, call) in paths {
        group.bench_function(*path, |b| b.iter(call));
    }
    group.finish();
}

/// Each ratio printed: a toolkit path, what it is held against, and the goal.
const RATIOS: [(&str, &str, Option<f64>); 7] = [
    ("toolkit_invoke_inline", "rig_erased_tool", Some(0.75)),
    ("toolkit_invoke_inline", "rmcp_call_tool", Some(0.4)),
    ("toolkit_invoke_inline", "hand_written", Some(1.5)),
    ("toolkit_observed", "toolkit_invoke_inline", Some(1.3)),
    ("toolkit_invoke_async", "rig_erased_tool", None),
    ("toolkit_invoke_inline", "rig_handler_by_name", None),
    ("toolkit_observed", "rmcp_call_tool", None),
];

/// Each difference printed: a toolkit path, what it is held against, and the goal in
/// nanoseconds per call.
const DIFFERENCES: [(&str, &str, f64); 1] = [(
    "toolkit_observed_10_subscribers",
    "toolkit_invoke_inline",
    1000.0,
)];

fn main() {
    let peers = Peers::new();
    let paths = paths(&peers);
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion, &paths);
    criterion.final_summary();
    if wanted("ratios") {
        print_ratios(&paths);
    }
}

/// The ratios, each the median over paired rounds of the two paths' times in the same round, and
/// the differences, each the median of the two paths' time per call less the other's.
fn print_ratios(paths: &[Path<'_>]) {
    let paired = paths.iter().fold(Paired::new(), |paired, (path, call)| {
        paired.path(path, call)
    });
    let timings = paired.run(50);
    println!(
        "\nratios, paired over {} rounds (load average: {})",
        timings.rounds(),
        load_average()
    );
    for (path, other, goal) in RATIOS {
        let ratio = timings.ratio(path, other);
        let goal = goal.map_or(String::new(), |goal| {
            format!("  (goal <= {goal}: {})", verdict(ratio <= goal))
        });
        println!(
            "  {path} / {other}: {ratio:.2}  {:.1} ns / {:.1} ns{goal}",
            timings.median(path),
            timings.median(other)
        );
    }
    for (path, other, goal) in DIFFERENCES {
        let difference = timings.difference(path, other);
        println!(
            "  {path} - {other}: {difference:.0} ns  (goal <= {goal} ns: {})",
            verdict(difference <= goal)
        );
    }
}

//! Runs one path of the peer bench a given number of times, for an instruction count under
//! callgrind: `instructions PATH CALLS`. `instructions.sh` runs it twice per path and prints
//! the difference per call, which leaves setup out.

use std::process::ExitCode;

use peer_bench::{PATHS, Peers};

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [path, calls] = arguments.as_slice() else {
        eprintln!(
            "usage: instructions PATH CALLS (PATH one of: {})",
            PATHS.join(", ")
        );
        return ExitCode::from(2);
    };
    let Ok(calls) = calls.parse::<u64>() else {
        eprintln!("CALLS must be a whole number, not {calls:?}");
        return ExitCode::from(2);
    };
    let peers = Peers::new();
    if peers.repeat(path, calls) {
        ExitCode::SUCCESS
    } else {
        eprintln!("no path {path:?}: one of {}", PATHS.join(", "));
        ExitCode::from(2)
    }
}

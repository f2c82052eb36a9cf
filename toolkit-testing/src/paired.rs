//! Paired timing for the ratios the benches print after criterion's groups.
//!
//! On a shared machine the speed drifts (other guests take the CPU for seconds at a time), so
//! two medians criterion measured a minute apart can differ by a third for the same code. Here
//! the paths of one comparison run in alternating rounds of about a millisecond each, their order
//! rotated every round, and a ratio is the median over rounds of the two paths' times in that
//! round: a slow stretch slows both sides of a round alike.
//!
//! The toolkit benches and peer-bench time with it.

use std::time::{Duration, Instant};

/// How long each path runs in one round.
const ROUND: Duration = Duration::from_millis(10);

/// One call of a path.
type Call<'a> = Box<dyn FnMut() + 'a>;

/// Paths to time against each other, each a closure doing one call.
pub struct Paired<'a> {
    paths: Vec<(&'static str, Call<'a>)>,
}

/// The time per call of each path in each round.
pub struct Timings {
    names: Vec<&'static str>,
    /// Per path, nanoseconds per call in each round.
    rounds: Vec<Vec<f64>>,
}

impl Default for Paired<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> Paired<'a> {
    /// No path yet.
    pub fn new() -> Self {
        Self { paths: Vec::new() }
    }

    /// Adds a path: `call` does one call (its answer kept from the optimiser by the caller).
    #[must_use]
    pub fn path(mut self, name: &'static str, call: impl FnMut() + 'a) -> Self {
        self.paths.push((name, Box::new(call)));
        self
    }

    /// Runs every path in `rounds` rounds of about a millisecond each, after sizing each path's
    /// round from a warm-up.
    pub fn run(mut self, rounds: usize) -> Timings {
        let calls: Vec<u32> = self
            .paths
            .iter_mut()
            .map(|(_, call)| calls_per_round(call.as_mut()))
            .collect();
        let mut timings = vec![Vec::with_capacity(rounds); self.paths.len()];
        for round in 0..rounds {
            for offset in 0..self.paths.len() {
                let index = (round + offset) % self.paths.len();
                let call = &mut self.paths[index].1;
                let started = Instant::now();
                for _ in 0..calls[index] {
                    call();
                }
                let elapsed = started.elapsed().as_secs_f64() * 1e9;
                timings[index].push(elapsed / f64::from(calls[index]));
            }
        }
        Timings {
            names: self.paths.iter().map(|(name, _)| *name).collect(),
            rounds: timings,
        }
    }
}

/// How many calls take about one [`ROUND`], from calls timed for 50 ms.
fn calls_per_round(call: &mut dyn FnMut()) -> u32 {
    let started = Instant::now();
    let mut calls: u32 = 0;
    while started.elapsed() < Duration::from_millis(50) {
        call();
        calls += 1;
    }
    let per_call = started.elapsed().as_secs_f64() / f64::from(calls);
    // At least one call a round, and no more than a u32 holds.
    let wanted = (ROUND.as_secs_f64() / per_call).clamp(1.0, f64::from(u32::MAX));
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let wanted = wanted as u32;
    wanted
}

impl Timings {
    fn of(&self, name: &str) -> &[f64] {
        let index = self
            .names
            .iter()
            .position(|known| *known == name)
            .unwrap_or_else(|| panic!("no path {name:?} was timed"));
        &self.rounds[index]
    }

    /// The median time per call of `name`, in nanoseconds.
    pub fn median(&self, name: &str) -> f64 {
        median(self.of(name).to_vec())
    }

    /// The median over rounds of `a`'s time over `b`'s.
    pub fn ratio(&self, a: &str, b: &str) -> f64 {
        median(
            self.of(a)
                .iter()
                .zip(self.of(b))
                .map(|(a, b)| a / b)
                .collect(),
        )
    }

    /// The median over rounds of `a`'s time less `b`'s, in nanoseconds per call.
    pub fn difference(&self, a: &str, b: &str) -> f64 {
        median(
            self.of(a)
                .iter()
                .zip(self.of(b))
                .map(|(a, b)| a - b)
                .collect(),
        )
    }

    /// How many rounds were run.
    pub fn rounds(&self) -> usize {
        self.rounds.first().map_or(0, Vec::len)
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len().is_multiple_of(2) {
        f64::midpoint(values[middle - 1], values[middle])
    } else {
        values[middle]
    }
}

/// Whether a measured value meets its goal, as the reports print it.
pub fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "not met" }
}

/// The load average as `/proc/loadavg` gives it (1, 5 and 15 minutes).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "unknown".to_owned(),
        |text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        },
    )
}

/// Whether the bench binary runs as `cargo bench` runs it (criterion's `--bench`), and not as
/// `cargo test` does, once per function: only then are the paired rounds worth their seconds.
/// With a filter (`cargo bench -- NAME`), only comparisons whose name contains it run; an
/// argument right after an option (`--sample-size 10`) is that option's value, not a filter.
pub fn wanted(comparison: &str) -> bool {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    if !arguments.iter().any(|argument| argument == "--bench") {
        return false;
    }
    let filters: Vec<&String> = arguments
        .iter()
        .enumerate()
        .filter(|(at, argument)| {
            let after_option = at.checked_sub(1).is_some_and(|before| {
                arguments[before].starts_with('-') && arguments[before] != "--bench"
            });
            !argument.starts_with('-') && !after_option
        })
        .map(|(_, argument)| argument)
        .collect();
    filters.is_empty()
        || filters
            .iter()
            .any(|filter| comparison.contains(filter.as_str()))
}

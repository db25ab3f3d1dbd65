//! Timing: repeated runs over a whole workload, median of the per-call times.

use std::time::{Duration, Instant};

/// The median nanoseconds per call of `run_all` (which runs every call of a workload once and
/// returns how many calls it ran), over `repetitions` timed runs of at least `min_run` each.
pub fn median_ns_per_call(
    repetitions: usize,
    min_run: Duration,
    mut run_all: impl FnMut() -> usize,
) -> f64 {
    // Warm up caches, allocator and branch predictors.
    let warm_until = Instant::now() + min_run;
    while Instant::now() < warm_until {
        run_all();
    }
    let mut samples: Vec<f64> = (0..repetitions.max(1))
        .map(|_| {
            let started = Instant::now();
            let mut calls = 0usize;
            while started.elapsed() < min_run {
                calls += run_all();
            }
            started.elapsed().as_secs_f64() * 1e9 / calls.max(1) as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(f64::NAN)
}

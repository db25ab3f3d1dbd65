//! Timing: contenders measured in alternating rounds, so that the machine's noise (a shared,
//! throttled VM drifts by 30% within seconds) hits them alike, and ratios taken round by round.

use std::time::{Duration, Instant};

/// What [`compare`] found for each contender: its median ns per call, and the median over
/// rounds of its time divided by the first contender's time in the same round.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// Median nanoseconds per call.
    pub ns_per_call: f64,
    /// Median of the per-round ratios to the first contender (1.0 for the first itself).
    pub ratio_to_first: f64,
}

/// Times every contender (each runs a whole workload once and returns how many calls it ran)
/// in `rounds` rounds of at least `min_run` each, rotating which goes first.
pub fn compare(
    rounds: usize,
    min_run: Duration,
    contenders: &mut [&mut dyn FnMut() -> usize],
) -> Vec<Measured> {
    // Warm up caches, allocator and branch predictors.
    for contender in contenders.iter_mut() {
        sample(min_run, contender);
    }
    let count = contenders.len();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); count];
    for round in 0..rounds.max(1) {
        let mut this_round = vec![f64::NAN; count];
        for offset in 0..count {
            let index = (round + offset) % count;
            if let (Some(contender), Some(slot)) =
                (contenders.get_mut(index), this_round.get_mut(index))
            {
                *slot = sample(min_run, contender);
            }
        }
        for (series, time) in times.iter_mut().zip(this_round) {
            series.push(time);
        }
    }
    let first = times.first().cloned().unwrap_or_default();
    times
        .iter()
        .map(|series| Measured {
            ns_per_call: median(series.clone()),
            ratio_to_first: median(series.iter().zip(&first).map(|(t, f)| t / f).collect()),
        })
        .collect()
}

/// Nanoseconds per call over one run of at least `min_run`.
fn sample(min_run: Duration, run_all: &mut dyn FnMut() -> usize) -> f64 {
    let started = Instant::now();
    let mut calls = 0usize;
    while started.elapsed() < min_run {
        calls += run_all();
    }
    started.elapsed().as_secs_f64() * 1e9 / calls.max(1) as f64
}

/// The median of `samples` (NaN when empty).
pub fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_runs_every_round_and_the_first_is_the_unit() {
        let (mut a_runs, mut b_runs) = (0usize, 0usize);
        let mut a = || {
            a_runs += 1;
            1
        };
        let mut b = || {
            b_runs += 1;
            1
        };
        let measured = compare(5, Duration::from_micros(50), &mut [&mut a, &mut b]);
        assert_eq!(measured.len(), 2);
        assert_eq!(measured[0].ratio_to_first, 1.0);
        assert!(measured.iter().all(|m| m.ns_per_call > 0.0));
        // Warm-up plus five rounds, each at least one run.
        assert!(a_runs >= 6 && b_runs >= 6, "{a_runs} {b_runs}");
    }

    #[test]
    fn median_of_nothing_is_nan() {
        assert!(median(Vec::new()).is_nan());
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
    }
}

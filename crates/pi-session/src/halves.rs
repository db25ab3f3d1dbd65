//! Work on a big list done in two halves on two threads: reading a session's lines and
//! building its messages are each one independent job per line, the machines this runs on have
//! two cores or more, and the result must keep the list's order.

use std::sync::OnceLock;

/// From this many bytes of input on, a second thread takes half; below it, starting a thread
/// costs more than it saves (tens of microseconds against a millisecond of parsing).
pub(crate) const PARALLEL_BYTES: usize = 1 << 20;

/// `work` on all of `items`, in order: on the calling thread alone when the items weigh less
/// than [`PARALLEL_BYTES`] (by `bytes`, each item's size) or only one core is there, else on the
/// first half here and the second half on a helper thread, split by weight. `join` puts the
/// second half's result after the first's.
pub(crate) fn in_halves<I: Sync, T: Send>(
    items: &[I],
    bytes: impl Fn(&I) -> usize,
    work: impl Fn(&[I]) -> T + Sync,
    join: impl FnOnce(T, T) -> T,
) -> T {
    let total: usize = items.iter().map(&bytes).sum();
    if total < PARALLEL_BYTES || !two_cores() {
        return work(items);
    }
    let mut weight = 0;
    let middle = items
        .iter()
        .position(|item| {
            weight += bytes(item);
            weight >= total / 2
        })
        .map_or(items.len(), |index| index + 1);
    let (first, second) = items.split_at(middle);
    let (done, rest) = on_two_threads(|| work(first), || work(second));
    join(done, rest)
}

/// Whether this machine has two cores or more to share work between. Asked once per process:
/// std's answer reads the CPU affinity and the cgroup's quota files each time (21 system
/// calls, ~14 µs here; strace), and a load and its context ask three times.
pub(crate) fn two_cores() -> bool {
    static TWO_CORES: OnceLock<bool> = OnceLock::new();
    *TWO_CORES
        .get_or_init(|| std::thread::available_parallelism().is_ok_and(|cores| cores.get() >= 2))
}

/// Runs `first` here and `second` on a helper thread at the same time, and returns both
/// results; when no thread can be started, `second` runs here after `first`.
pub(crate) fn on_two_threads<A, B: Send>(
    first: impl FnOnce() -> A,
    second: impl Fn() -> B + Sync,
) -> (A, B) {
    let second = &second;
    std::thread::scope(|scope| {
        let helper = std::thread::Builder::new()
            .name("pi-session".to_owned())
            .spawn_scoped(scope, second);
        let done = first();
        let rest = match helper {
            Ok(helper) => helper
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => second(),
        };
        (done, rest)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_work_keeps_its_order_and_small_work_stays_here() {
        let items: Vec<usize> = (0..1000).collect();
        let caller = std::thread::current().id();
        let threads = std::sync::Mutex::new(Vec::new());
        let work = |part: &[usize]| {
            threads.lock().unwrap().push(std::thread::current().id());
            part.to_vec()
        };
        let join = |mut a: Vec<usize>, b: Vec<usize>| {
            a.extend(b);
            a
        };
        let big = in_halves(&items, |_| PARALLEL_BYTES / 100, work, join);
        assert_eq!(big, items);
        let small = in_halves(&items, |_| 1, work, join);
        assert_eq!(small, items);
        let threads = threads.into_inner().unwrap();
        let two_cores = std::thread::available_parallelism().unwrap().get() >= 2;
        // Big: two parts (one on another thread when there are two cores); small: one, here.
        assert_eq!(threads.len(), 3);
        assert_eq!(threads[2], caller);
        assert_eq!(threads[..2].iter().any(|id| *id != caller), two_cores);
    }
}

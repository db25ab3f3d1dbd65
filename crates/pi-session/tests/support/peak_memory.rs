//! The process's peak resident memory, for tests that run alone in their own binary.

/// The process's peak resident memory so far, in bytes (`VmHWM`).
pub(crate) fn peak_memory() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .unwrap();
    let kilobytes: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kilobytes * 1024
}

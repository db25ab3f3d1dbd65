//! No network for a shell under Landlock alone: a seccomp filter that refuses every socket but
//! Unix ones.
//!
//! Landlock refuses TCP only (its network rights cover `bind` and `connect` of TCP ports): with
//! `--no-network` a UDP datagram, a raw or netlink socket still got out. The filter refuses
//! `socket` and `socketpair` for any family but `AF_UNIX` (with `EPERM`, as a refused
//! operation reads), and `io_uring_setup`, whose rings can open sockets without either call.
//! It belongs to the calling thread and whatever it starts afterwards, as the Landlock rules
//! do; a call of another architecture (a 32-bit program's `socketcall`) ends the process.

use std::collections::BTreeMap;

use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Why the filter could not be put in place.
#[derive(Debug, thiserror::Error)]
pub(super) enum SeccompError {
    /// This architecture is not one the filter can be written for.
    #[error("seccomp filters are not made for {0} here")]
    Architecture(&'static str),
    /// The filter could not be built or applied.
    #[error("seccomp failed: {0}")]
    Filter(#[from] seccompiler::Error),
    /// The filter could not be compiled to BPF.
    #[error("seccomp failed: {0}")]
    Backend(#[from] seccompiler::BackendError),
}

/// Refuses, from now on, every socket but a Unix one to this thread and what it starts.
pub(super) fn refuse_network_sockets() -> Result<(), SeccompError> {
    let architecture = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| SeccompError::Architecture(std::env::consts::ARCH))?;
    let not_unix = || -> Result<Vec<SeccompRule>, seccompiler::BackendError> {
        let family = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )?;
        Ok(vec![SeccompRule::new(vec![family])?])
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, not_unix()?);
    rules.insert(libc::SYS_socketpair, not_unix()?);
    // No condition: every call.
    rules.insert(libc::SYS_io_uring_setup, Vec::new());
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        architecture,
    )?;
    let program: BpfProgram = filter.try_into()?;
    seccompiler::apply_filter(&program)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a thread of its own: the filter stays there.
    #[test]
    fn only_unix_sockets_are_left() {
        let outcome = std::thread::spawn(|| {
            refuse_network_sockets().map(|()| {
                (
                    std::net::UdpSocket::bind("127.0.0.1:0").map_err(|error| error.kind()),
                    std::os::unix::net::UnixDatagram::unbound().is_ok(),
                    std::os::unix::net::UnixStream::pair().is_ok(),
                )
            })
        })
        .join()
        .unwrap_or_else(|_| panic!("the thread panicked"));
        let (udp, unix, pair) = outcome.unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(udp.err(), Some(std::io::ErrorKind::PermissionDenied));
        assert!(unix && pair);
        // This thread was never filtered.
        assert!(std::net::UdpSocket::bind("127.0.0.1:0").is_ok());
    }
}

//! How fast one address may try bearer tokens.
//!
//! Every request on a connection that has not yet shown the token takes a turn from its
//! address's budget before its token is compared: [`BURST`] turns at once, then one per
//! [`INTERVAL`] (a token bucket, kept as the time its debt is paid off). A right token gives its
//! turn back, so clients with the token are not slowed by their own connections. The wait comes
//! before the comparison, for right and wrong tokens alike: were only wrong answers slowed, a
//! guesser would read "wrong" from the missing fast answer and move on without waiting. A turn
//! more than [`MAX_WAIT`] away is refused at once (429, `Retry-After`), also before the
//! comparison, so the refusal says nothing about the token and a waiting request cannot hold
//! its connection longer than that.
//!
//! An address is an IPv4 address or an IPv6 /64 (one host usually has a whole /64). The table
//! keeps at most [`MAX_PEERS`] addresses with a debt; beyond, new addresses share one budget
//! until debts are paid off, so flooding the table from many addresses slows the newcomers,
//! never resets a guesser's debt.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Tries an address may make at once.
pub(crate) const BURST: u32 = 10;
/// Then one try per this long.
pub(crate) const INTERVAL: Duration = Duration::from_secs(1);
/// The longest a request waits for its turn; a turn further away is refused.
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(10);
/// Addresses with a debt kept apart at most.
pub(crate) const MAX_PEERS: usize = 4096;

/// Whose budget a try is taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Peer {
    /// An IPv4 address, or an IPv6 address's /64.
    Address(IpAddr),
    /// Everyone else: the table is full, or the address is not known.
    Others,
}

impl Peer {
    fn of(address: Option<IpAddr>) -> Self {
        match address.map(|address| address.to_canonical()) {
            Some(IpAddr::V6(address)) => {
                let network = address.to_bits() & !u128::from(u64::MAX);
                Self::Address(IpAddr::V6(Ipv6Addr::from_bits(network)))
            }
            Some(address) => Self::Address(address),
            None => Self::Others,
        }
    }
}

/// A turn taken: the token may be compared at `at`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Turn {
    /// When the comparison may happen.
    pub(crate) at: Instant,
    peer: Peer,
}

/// Every address's debt of tries.
#[derive(Debug)]
pub(crate) struct Guesses {
    /// When each address's budget is whole again; only addresses with a debt are kept.
    paid_off: Mutex<HashMap<Peer, Instant>>,
}

impl Guesses {
    /// No debts yet.
    pub(crate) fn new() -> Self {
        Self {
            paid_off: Mutex::new(HashMap::new()),
        }
    }

    /// Each change is one map operation, so a poisoned lock is used as it is.
    fn lock(&self) -> MutexGuard<'_, HashMap<Peer, Instant>> {
        self.paid_off.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes a turn for a request from `address` at `now`; `Err` with how long to wait before
    /// asking again when the turn would be more than [`MAX_WAIT`] away.
    pub(crate) fn take(&self, address: Option<IpAddr>, now: Instant) -> Result<Turn, Duration> {
        let mut table = self.lock();
        let mut peer = Peer::of(address);
        if !table.contains_key(&peer) && table.len() >= MAX_PEERS {
            table.retain(|_, paid_off| *paid_off > now);
            if table.len() >= MAX_PEERS {
                peer = Peer::Others;
            }
        }
        let paid_off = table.get(&peer).map_or(now, |&paid_off| paid_off.max(now));
        // The debt may run BURST - 1 intervals ahead before a try has to wait.
        let ahead = INTERVAL.saturating_mul(BURST.saturating_sub(1));
        let at = paid_off.checked_sub(ahead).map_or(now, |at| at.max(now));
        let wait = at.saturating_duration_since(now);
        if wait > MAX_WAIT {
            let retry = wait.saturating_sub(MAX_WAIT);
            return Err(retry.max(INTERVAL));
        }
        table.insert(peer, paid_off + INTERVAL);
        Ok(Turn { at, peer })
    }

    /// The turn's request showed the right token: its try is given back.
    pub(crate) fn succeeded(&self, turn: Turn) {
        let mut table = self.lock();
        if let Some(paid_off) = table.get_mut(&turn.peer) {
            *paid_off = paid_off.checked_sub(INTERVAL).unwrap_or(*paid_off);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::net::Ipv4Addr;

    use super::*;

    const A: Option<IpAddr> = Some(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)));
    const B: Option<IpAddr> = Some(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)));

    #[test]
    fn a_burst_then_one_try_per_interval_each_later_than_the_last() {
        let guesses = Guesses::new();
        let now = Instant::now();
        for _ in 0..BURST {
            assert_eq!(guesses.take(A, now).unwrap().at, now);
        }
        // Tries made at the same moment are spread out: parallel connections gain nothing.
        for n in 1..=10 {
            assert_eq!(guesses.take(A, now).unwrap().at, now + INTERVAL * n);
        }
        // Another address has its own budget.
        assert_eq!(guesses.take(B, now).unwrap().at, now);
    }

    #[test]
    fn a_turn_too_far_away_is_refused_without_being_taken() {
        let guesses = Guesses::new();
        let now = Instant::now();
        let allowed = BURST + u32::try_from(MAX_WAIT.as_secs()).unwrap();
        for _ in 0..allowed {
            assert!(guesses.take(A, now).is_ok());
        }
        let retry = guesses.take(A, now).unwrap_err();
        assert_eq!(retry, INTERVAL);
        // The refusal took nothing: one interval later the next turn is MAX_WAIT away again.
        let later = now + INTERVAL;
        assert_eq!(guesses.take(A, later).unwrap().at, later + MAX_WAIT);
    }

    #[test]
    fn a_right_token_gives_its_try_back() {
        let guesses = Guesses::new();
        let now = Instant::now();
        for _ in 0..100 {
            let turn = guesses.take(A, now).unwrap();
            assert_eq!(turn.at, now);
            guesses.succeeded(turn);
        }
    }

    #[test]
    fn the_debt_is_paid_off_with_time() {
        let guesses = Guesses::new();
        let now = Instant::now();
        for _ in 0..BURST + 5 {
            guesses.take(A, now).unwrap();
        }
        let later = now + INTERVAL * (BURST + 5);
        assert_eq!(guesses.take(A, later).unwrap().at, later);
    }

    #[test]
    fn an_ipv6_host_is_counted_by_its_64() {
        let guesses = Guesses::new();
        let now = Instant::now();
        for host in 0..u16::try_from(BURST).unwrap() {
            let address = Ipv6Addr::new(0x2001, 0xdb8, 0, 1, 0, 0, 0, host);
            guesses.take(Some(IpAddr::V6(address)), now).unwrap();
        }
        let other_host = Ipv6Addr::new(0x2001, 0xdb8, 0, 1, 0xffff, 0, 0, 1);
        let turn = guesses.take(Some(IpAddr::V6(other_host)), now).unwrap();
        assert_eq!(turn.at, now + INTERVAL);
        // An IPv4 address written as IPv6 is the IPv4 address.
        let mapped = Ipv4Addr::new(10, 0, 0, 1).to_ipv6_mapped();
        guesses.take(A, now).unwrap();
        assert_eq!(guesses.take(Some(IpAddr::V6(mapped)), now).unwrap().at, now);
    }

    #[test]
    fn a_full_table_puts_newcomers_in_one_budget_and_forgets_paid_debts() {
        let guesses = Guesses::new();
        let now = Instant::now();
        for n in 0..u32::try_from(MAX_PEERS).unwrap() {
            let address = IpAddr::V4(Ipv4Addr::from_bits(0x0a00_0000 + n));
            guesses.take(Some(address), now).unwrap();
        }
        assert_eq!(guesses.lock().len(), MAX_PEERS);
        let newcomer = |n: u32| {
            Some(IpAddr::V4(Ipv4Addr::new(
                192,
                0,
                2,
                u8::try_from(n).unwrap(),
            )))
        };
        for n in 0..BURST {
            assert_eq!(guesses.take(newcomer(n), now).unwrap().at, now);
        }
        // All newcomers share one budget: the next one waits, whatever its address.
        assert_eq!(guesses.take(newcomer(99), now).unwrap().at, now + INTERVAL);
        assert_eq!(guesses.lock().len(), MAX_PEERS + 1);
        // Once the debts are paid, the table is emptied of them and newcomers count alone.
        let later = now + MAX_WAIT + INTERVAL * BURST;
        assert_eq!(guesses.take(newcomer(100), later).unwrap().at, later);
        assert_eq!(guesses.lock().len(), 1);
    }
}

//! The TCP side of [`crate::serve_http`]: which connections are taken, how long one may stay
//! without a request, and which give way when a limit is reached.
//!
//! Every file descriptor a connection holds is one the server cannot use for a client with the
//! token. So a connection gets a time limit for each request head (hyper's
//! `header_read_timeout`, which also closes a kept-alive connection that stays idle that long),
//! a wrong token closes the connection after its 401, and the connections that have not yet
//! shown the token are the first to go when a limit is reached: at the total, at the
//! per-address cap, and when the process runs out of descriptors. A connection is refused only
//! when every connection in its way has shown the token.

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// How long a connection may take to finish what it is answering once serving stops.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// How long accepting pauses after an error it cannot act on (out of descriptors with nothing
/// to close): the listener would report it again at once.
const ACCEPT_PAUSE: Duration = Duration::from_millis(20);

/// The limits on connections (see [`crate::HttpAccess`] for the defaults and what each means).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionLimits {
    /// Time for a whole request head, and for a kept-alive connection to start its next one.
    pub(crate) header_timeout: Duration,
    /// Connections open at once.
    pub(crate) max_connections: usize,
    /// Connections open at once from one IP address.
    pub(crate) max_per_peer: usize,
}

/// The connections open now, counted against the limits.
#[derive(Debug)]
pub(crate) struct Connections {
    limits: ConnectionLimits,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    next_id: u64,
    /// Every connection counted, with its peer's address.
    open: HashMap<u64, IpAddr>,
    /// How many of `open` each address has; an address leaves when its last one closes.
    per_peer: HashMap<IpAddr, usize>,
    /// The connections that have not yet made a request with the token, oldest first (ids
    /// increase), each with the signal that closes it.
    unproven: BTreeMap<u64, CancellationToken>,
}

impl State {
    /// Stops counting `id` (closed, or closing now).
    fn release(&mut self, id: u64) {
        self.unproven.remove(&id);
        if let Some(peer) = self.open.remove(&id)
            && let Some(count) = self.per_peer.get_mut(&peer)
        {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.per_peer.remove(&peer);
            }
        }
    }

    /// Closes `id`, which has not shown the token, and stops counting it at once: its task
    /// drops the connection as soon as it runs.
    fn evict(&mut self, id: u64) {
        if let Some(close) = self.unproven.remove(&id) {
            close.cancel();
        }
        self.release(id);
    }

    /// The oldest connection without the token, from `peer` if given.
    fn oldest_unproven(&self, peer: Option<IpAddr>) -> Option<u64> {
        self.unproven
            .keys()
            .copied()
            .find(|id| peer.is_none_or(|peer| self.open.get(id) == Some(&peer)))
    }
}

/// One connection taken: stops counting it when dropped (its task has ended).
struct Ticket {
    id: u64,
    connections: Arc<Connections>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.connections.lock().release(self.id);
    }
}

/// The connection a request came on, as every request's extension: lets the token check mark
/// the connection as one that has shown the token, and tells the session limit who is asking.
#[derive(Debug, Clone)]
pub(crate) struct ConnectionInfo {
    id: u64,
    peer: SocketAddr,
    connections: Arc<Connections>,
    /// Set once a request on it has shown the token; shared by its requests' copies.
    shown_token: Arc<AtomicBool>,
}

impl ConnectionInfo {
    /// The peer's address.
    pub(crate) fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// The connection made a request with the token: it no longer gives way to new ones, and
    /// its requests no longer wait for a turn to try a token.
    pub(crate) fn proven(&self) {
        self.shown_token.store(true, Ordering::Relaxed);
        self.connections.lock().unproven.remove(&self.id);
    }

    /// Whether a request on it has shown the token.
    pub(crate) fn has_shown_token(&self) -> bool {
        self.shown_token.load(Ordering::Relaxed)
    }
}

impl Connections {
    /// No connections yet, under `limits` (each at least one).
    pub(crate) fn new(limits: ConnectionLimits) -> Arc<Self> {
        Arc::new(Self {
            limits: ConnectionLimits {
                max_connections: limits.max_connections.max(1),
                max_per_peer: limits.max_per_peer.max(1),
                ..limits
            },
            state: Mutex::new(State::default()),
        })
    }

    /// The counts stay consistent under any panic (each change is a single map operation), so
    /// a poisoned lock is used as it is.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes a connection from `peer`, making room by closing the oldest connection without the
    /// token in the way (of that address at its cap, then of all at the total); `None` when
    /// every connection in the way has shown it. Returns the id and the signal that closes it.
    fn admit(&self, peer: IpAddr) -> Option<(u64, CancellationToken)> {
        let mut state = self.lock();
        if state.per_peer.get(&peer).copied().unwrap_or(0) >= self.limits.max_per_peer {
            let oldest = state.oldest_unproven(Some(peer))?;
            state.evict(oldest);
        }
        if state.open.len() >= self.limits.max_connections {
            let oldest = state.oldest_unproven(None)?;
            state.evict(oldest);
        }
        let id = state.next_id;
        state.next_id = state.next_id.wrapping_add(1);
        state.open.insert(id, peer);
        *state.per_peer.entry(peer).or_default() += 1;
        let close = CancellationToken::new();
        state.unproven.insert(id, close.clone());
        Some((id, close))
    }

    /// Closes the oldest connection without the token, to free its descriptor; false when there
    /// is none.
    fn evict_oldest(&self) -> bool {
        let mut state = self.lock();
        match state.oldest_unproven(None) {
            Some(id) => {
                state.evict(id);
                true
            }
            None => false,
        }
    }

    /// How many connections are counted now (for tests and the soak's reports).
    #[cfg(test)]
    fn open(&self) -> usize {
        self.lock().open.len()
    }
}

/// Serves `router` on the connections `listener` accepts, within `connections`' limits, until
/// `shutdown` fires; then each connection finishes what it is answering (up to
/// [`SHUTDOWN_GRACE`]) and closes.
pub(crate) async fn serve(
    listener: TcpListener,
    router: axum::Router,
    connections: Arc<Connections>,
    shutdown: CancellationToken,
) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(connections.limits.header_timeout);
    let mut tasks = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => break,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // A connection reset before it was taken is the client's business. Anything
                // else is most likely the process out of descriptors (EMFILE): a connection
                // without the token gives its descriptor up for the one waiting.
                if !matches!(
                    error.kind(),
                    std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::Interrupted
                ) {
                    connections.evict_oldest();
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                }
                continue;
            }
        };
        let Some((id, close)) = connections.admit(peer.ip()) else {
            refuse(&stream);
            continue;
        };
        let ticket = Ticket {
            id,
            connections: Arc::clone(&connections),
        };
        // Each response goes out in several small writes: without TCP_NODELAY, Nagle's
        // algorithm holds the last one until the client's delayed ACK (~40 ms per call on a
        // kept-alive connection). Fails only on a socket already closed, which serving reports.
        let _ = stream.set_nodelay(true);
        let info = ConnectionInfo {
            id,
            peer,
            connections: Arc::clone(&connections),
            shown_token: Arc::new(AtomicBool::new(false)),
        };
        let service = tower::ServiceBuilder::new()
            .map_request(
                move |mut request: axum::http::Request<hyper::body::Incoming>| {
                    request.extensions_mut().insert(info.clone());
                    request
                },
            )
            .service(router.clone());
        let connection =
            http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let shutdown = shutdown.clone();
        tasks.spawn(async move {
            let _ticket = ticket;
            tokio::pin!(connection);
            tokio::select! {
                // Closed by either side, or timed out by hyper; the error says which, and no
                // one is there to read it.
                _ = connection.as_mut() => {}
                // Made way for a newer connection before it showed the token.
                () = close.cancelled() => {}
                () = shutdown.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(SHUTDOWN_GRACE, connection).await;
                }
            }
        });
    }
    drop(listener);
    while tasks.join_next().await.is_some() {}
}

/// What a refused connection is told.
const REFUSAL: &str = "too many connections: close one or retry later\r\n";

/// Tells a refused connection why, if its socket takes the bytes at once, and closes it.
fn refuse(stream: &TcpStream) {
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Type: text/plain\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{REFUSAL}",
        REFUSAL.len()
    );
    // Never waits: a peer that does not read gets only the close.
    let _ = stream.try_write(answer.as_bytes());
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn limits(max_connections: usize, max_per_peer: usize) -> Arc<Connections> {
        Connections::new(ConnectionLimits {
            header_timeout: Duration::from_secs(1),
            max_connections,
            max_per_peer,
        })
    }

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));

    #[test]
    fn the_oldest_connection_without_the_token_gives_way_at_the_total() {
        let connections = limits(3, 10);
        let (first, first_close) = connections.admit(A).unwrap();
        let (_, second_close) = connections.admit(B).unwrap();
        let (third, _) = connections.admit(A).unwrap();
        // The first shows the token: the second is now the oldest without it.
        connections.lock().unproven.remove(&first);
        let (_, fourth_close) = connections.admit(B).unwrap();
        assert!(!first_close.is_cancelled());
        assert!(second_close.is_cancelled());
        assert!(!fourth_close.is_cancelled());
        assert_eq!(connections.open(), 3);
        // Everyone left shows the token: a new connection is refused.
        connections.lock().unproven.clear();
        assert!(connections.admit(A).is_none());
        assert_eq!(connections.open(), 3);
        let _ = third;
    }

    #[test]
    fn an_address_at_its_cap_loses_its_own_oldest_or_is_refused() {
        let connections = limits(100, 2);
        let (_, a1) = connections.admit(A).unwrap();
        let (_, b1) = connections.admit(B).unwrap();
        let (a2, a2_close) = connections.admit(A).unwrap();
        let (_, a3_close) = connections.admit(A).unwrap();
        assert!(a1.is_cancelled(), "A's oldest gives way");
        assert!(!b1.is_cancelled(), "B is not in A's way");
        assert!(!a2_close.is_cancelled() && !a3_close.is_cancelled());
        connections.lock().unproven.clear();
        assert!(
            connections.admit(A).is_none(),
            "A is at its cap, all proven"
        );
        assert!(connections.admit(B).is_some());
        // A connection of A closes: A may open one more.
        connections.lock().release(a2);
        assert!(connections.admit(A).is_some());
        assert_eq!(connections.lock().per_peer.get(&A), Some(&2));
    }

    #[test]
    fn counts_return_to_zero_and_addresses_are_forgotten() {
        let connections = limits(10, 10);
        let ids: Vec<u64> = (0..5).map(|_| connections.admit(A).unwrap().0).collect();
        assert!(connections.evict_oldest());
        for id in ids {
            connections.lock().release(id);
        }
        let state = connections.lock();
        assert!(state.open.is_empty() && state.unproven.is_empty() && state.per_peer.is_empty());
    }
}

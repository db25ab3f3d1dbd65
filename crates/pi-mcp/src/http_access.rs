//! Who may use the HTTP endpoint, and how much of it: the token, the allowed origins, and the
//! session and connection limits.

use std::time::Duration;

use crate::serve::ServeError;
use crate::token_strength::TokenStrength;

/// Who may use the HTTP endpoint: every request must carry `Authorization: Bearer <token>`
/// (compared in constant time; anything else gets 401 with `WWW-Authenticate`), and a request
/// from a browser page must come from a loopback origin or one allowed here (403 otherwise).
///
/// ```
/// use pi_mcp::HttpAccess;
///
/// let access = HttpAccess::new("s3cret-token").unwrap().with_allowed_origin("https://app.example.com");
/// assert_eq!(access.token(), "s3cret-token");
/// assert_eq!(HttpAccess::generated().unwrap().token().len(), 64);
/// assert!(HttpAccess::new("").is_err());
/// ```
#[derive(Clone)]
pub struct HttpAccess {
    pub(crate) token: String,
    pub(crate) allowed_origins: Vec<String>,
    /// A token nobody chose: fine on loopback, refused for an address others can reach.
    pub(crate) generated: bool,
    pub(crate) max_sessions: usize,
    pub(crate) max_sessions_per_peer: usize,
    pub(crate) session_idle: Duration,
    pub(crate) stateless: bool,
    pub(crate) header_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) max_connections_per_peer: usize,
}

/// Sessions open at once, unless said otherwise.
const DEFAULT_MAX_SESSIONS: usize = 1024;
/// A session with no request for this long is closed, unless said otherwise (rmcp's default).
const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(300);
/// Sessions one address may keep open, unless said otherwise: a sixteenth of the table, so one
/// client holding the token cannot fill it.
const DEFAULT_MAX_SESSIONS_PER_PEER: usize = 64;
/// Time for a request head, and for a kept-alive connection's next request, unless said
/// otherwise. Clients send a head at once, and reconnect when an idle connection is closed.
const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections open at once, unless said otherwise: half the common limit of 1,024 file
/// descriptors, leaving the rest to the tools (a `bash` call holds several).
const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// Connections one address may keep open, unless said otherwise.
const DEFAULT_MAX_CONNECTIONS_PER_PEER: usize = 128;

impl std::fmt::Debug for HttpAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpAccess")
            .field("token", &"<hidden>")
            .field("allowed_origins", &self.allowed_origins)
            .field("max_sessions", &self.max_sessions)
            .field("max_sessions_per_peer", &self.max_sessions_per_peer)
            .field("session_idle", &self.session_idle)
            .field("stateless", &self.stateless)
            .field("header_timeout", &self.header_timeout)
            .field("max_connections", &self.max_connections)
            .field("max_connections_per_peer", &self.max_connections_per_peer)
            .finish_non_exhaustive()
    }
}

impl HttpAccess {
    /// Access with a token of the caller's choosing; refused when empty or not usable in a
    /// header.
    pub fn new(token: impl Into<String>) -> Result<Self, ServeError> {
        let token = token.into();
        if token.is_empty()
            || !token
                .bytes()
                .all(|byte| byte.is_ascii_graphic() && byte != b',')
        {
            return Err(ServeError::Access(
                "the token must be non-empty printable ASCII without spaces".to_owned(),
            ));
        }
        Ok(Self {
            token,
            allowed_origins: Vec::new(),
            generated: false,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_sessions_per_peer: DEFAULT_MAX_SESSIONS_PER_PEER,
            session_idle: DEFAULT_SESSION_IDLE,
            stateless: false,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_peer: DEFAULT_MAX_CONNECTIONS_PER_PEER,
        })
    }

    /// Access with a fresh random token (256 bits from the operating system), to be shown to
    /// the person who started the server. Fails only when the system has no randomness to
    /// give, and then nothing is served with a guessable token.
    pub fn generated() -> Result<Self, ServeError> {
        let mut bytes = [0_u8; 32];
        getrandom::fill(&mut bytes).map_err(|source| ServeError::Randomness { source })?;
        Ok(Self {
            token: bytes.iter().map(|byte| format!("{byte:02x}")).collect(),
            allowed_origins: Vec::new(),
            generated: true,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_sessions_per_peer: DEFAULT_MAX_SESSIONS_PER_PEER,
            session_idle: DEFAULT_SESSION_IDLE,
            stateless: false,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_peer: DEFAULT_MAX_CONNECTIONS_PER_PEER,
        })
    }

    /// Also lets in browser pages from `origin` (`https://app.example.com`, or with `:*` for
    /// any port).
    #[must_use]
    pub fn with_allowed_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// At most `max` sessions open at once (default 1024); a new one beyond is refused with
    /// 503 until one is closed (`DELETE`) or expires.
    #[must_use]
    pub fn with_max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// At most `max` sessions open at once from one IP address (default 64), so that one
    /// client holding the token cannot take the whole table; a new one beyond is refused with
    /// 503. Behind a proxy every client has the proxy's address: raise it there.
    #[must_use]
    pub fn with_max_sessions_per_peer(mut self, max: usize) -> Self {
        self.max_sessions_per_peer = max;
        self
    }

    /// A connection must send a whole request head within `timeout` of opening (or of its
    /// previous answer, when kept alive), or it is closed (default 10 seconds).
    #[must_use]
    pub fn with_header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// At most `max` connections open at once (default 512; at least 1). A new one beyond
    /// closes the oldest that has not yet made a request with the token, or is refused (503,
    /// then closed) when all have.
    #[must_use]
    pub fn with_max_connections(mut self, max: usize) -> Self {
        self.max_connections = max;
        self
    }

    /// At most `max` connections open at once from one IP address (default 128; at least 1),
    /// with the same order of giving way as [`HttpAccess::with_max_connections`]. Behind a
    /// proxy every client has the proxy's address: raise it there.
    #[must_use]
    pub fn with_max_connections_per_peer(mut self, max: usize) -> Self {
        self.max_connections_per_peer = max;
        self
    }

    /// A session with no request for `idle` is closed (default 5 minutes).
    #[must_use]
    pub fn with_session_idle(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// Serves without sessions: every request stands alone (no `Mcp-Session-Id`, nothing kept
    /// between requests), so any instance behind a load balancer can answer any request.
    /// Progress still streams within a call's own response.
    #[must_use]
    pub fn stateless(mut self) -> Self {
        self.stateless = true;
        self
    }

    /// The token clients must send.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// What the token's shape allows it to hold: [`crate::serve_http`] refuses one that is not
    /// [`TokenStrength::is_enough`] on an address other machines can reach.
    pub fn token_strength(&self) -> TokenStrength {
        TokenStrength::of(&self.token)
    }
}

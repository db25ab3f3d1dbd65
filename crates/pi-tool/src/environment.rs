//! The environment the processes a tool starts get: ours, without secrets.
//!
//! It lives in the contract crate because both `bash` (in the coding tools) and the MCP
//! servers we start (in the MCP bridge) need the one rule: a model that reads `env` in `bash`,
//! or a server it cannot vet, must not find the API key the agent itself was started with.
//!
//! The rule ([`is_secret`]), as Codex filters `*KEY*`, `*SECRET*` and `*TOKEN*` by default, a
//! little wider: a variable is withheld when its name, in any case,
//! - contains `KEY`, `SECRET`, `TOKEN`, `PASSWORD`, `PASSWD` or `CREDENTIAL`
//!   (`OPENAI_API_KEY`, `AWS_SECRET_ACCESS_KEY`, `GITHUB_TOKEN`, `PGPASSWORD`,
//!   `GOOGLE_APPLICATION_CREDENTIALS`);
//! - has a word (between `_`, `-` or `.`) containing `AUTH`, except the words `AUTHOR`,
//!   `AUTHORS`, `AUTHORITY` and `XAUTHORITY`: `SSH_AUTH_SOCK` (the SSH agent signs with the
//!   user's keys), `HTTP_AUTHORIZATION`, `OAUTH_CLIENT` are withheld, `GIT_AUTHOR_NAME`
//!   (commits keep their author) and `XAUTHORITY` (a path, not a secret) are not;
//! - starts with `PI_TOOL_` (our own: `PI_TOOL_TOKEN`, the API key moved out of the command
//!   line);
//! - is an OTLP exporter's headers (`OTEL_EXPORTER_OTLP_HEADERS` and its per-signal forms),
//!   which carry a collector's key.
//!
//! Names only are judged, never values: a secret inside another variable (a password in
//! `DATABASE_URL`) passes. A few harmless names are withheld too (`TOKENIZERS_PARALLELISM`,
//! `KEYTIMEOUT`); any variable can be passed on purpose ([`ToolEnvironment::passing`], which
//! `pi-tool --pass-env NAME` sets).

use std::ffi::{OsStr, OsString};

/// Substrings of a name that make it a secret, uppercase.
const SECRET_PARTS: [&str; 6] = ["KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL"];

/// Words holding `AUTH` that name no credential, uppercase.
const NOT_AUTH_WORDS: [&str; 4] = ["AUTHOR", "AUTHORS", "AUTHORITY", "XAUTHORITY"];

/// Whether the variable `name` holds a secret by the rule of this module: tools never get it
/// unless it is passed on purpose.
///
/// ```
/// use pi_tool::environment::is_secret;
///
/// for secret in ["OPENAI_API_KEY", "github_token", "PGPASSWORD", "SSH_AUTH_SOCK", "PI_TOOL_BINARY"] {
///     assert!(is_secret(secret), "{secret}");
/// }
/// for plain in ["PATH", "HOME", "GIT_AUTHOR_NAME", "XAUTHORITY", "LANG"] {
///     assert!(!is_secret(plain), "{plain}");
/// }
/// ```
pub fn is_secret(name: &str) -> bool {
    let name = name.to_ascii_uppercase();
    if name.starts_with("PI_TOOL_") || name.starts_with("OTEL_") && name.ends_with("HEADERS") {
        return true;
    }
    if SECRET_PARTS.iter().any(|part| name.contains(part)) {
        return true;
    }
    name.split(['_', '-', '.'])
        .any(|word| word.contains("AUTH") && !NOT_AUTH_WORDS.contains(&word))
}

/// Which variables of this process the processes a tool starts do not get: the secrets
/// ([`is_secret`]) but those passed on purpose.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolEnvironment {
    /// Names let through although they look secret, exactly as given.
    passed: Vec<String>,
}

impl ToolEnvironment {
    /// The default: every secret withheld.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same with `name` let through on purpose (a token a command needs).
    #[must_use]
    pub fn passing(mut self, name: impl Into<String>) -> Self {
        self.passed.push(name.into());
        self
    }

    /// The names passed on purpose.
    pub fn passed(&self) -> &[String] {
        &self.passed
    }

    /// Whether a started process gets the variable `name`.
    pub fn keeps(&self, name: &OsStr) -> bool {
        match name.to_str() {
            Some(name) => !is_secret(name) || self.passed.iter().any(|passed| passed == name),
            // Not UTF-8: no known secret is named so, and the rule cannot read it; withheld,
            // as a name nobody can pass on purpose either.
            None => false,
        }
    }

    /// The variables of this process a started process must not get: remove each from its
    /// command (`Command::env_remove`).
    pub fn withheld(&self) -> Vec<OsString> {
        std::env::vars_os()
            .map(|(name, _)| name)
            .filter(|name| !self.keeps(name))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_withholds_credentials_and_keeps_look_alikes() {
        let secrets = [
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "GITHUB_TOKEN",
            "NPM_TOKEN",
            "CARGO_REGISTRY_TOKEN",
            "PGPASSWORD",
            "MYSQL_PWD_PASSWD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "SSH_AUTH_SOCK",
            "HTTP_AUTHORIZATION",
            "OAUTH_CLIENT_ID",
            "PI_TOOL_TOKEN",
            "PI_TOOL_API_KEY",
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
            "my-api-key",
            "db.password",
        ];
        for name in secrets {
            assert!(is_secret(name), "{name}");
        }
        let plain = [
            "PATH",
            "HOME",
            "USER",
            "TERM",
            "TMPDIR",
            "GIT_AUTHOR_NAME",
            "GIT_AUTHOR_EMAIL",
            "XAUTHORITY",
            "CERT_AUTHORITY",
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "PI_CODING_AGENT_DIR",
        ];
        for name in plain {
            assert!(!is_secret(name), "{name}");
        }
    }

    #[test]
    fn a_secret_passes_only_when_passed_by_its_exact_name() {
        let environment = ToolEnvironment::new().passing("GITHUB_TOKEN");
        assert!(environment.keeps(OsStr::new("GITHUB_TOKEN")));
        assert!(!environment.keeps(OsStr::new("github_token")));
        assert!(!environment.keeps(OsStr::new("NPM_TOKEN")));
        assert!(environment.keeps(OsStr::new("PATH")));
        assert_eq!(environment.passed(), ["GITHUB_TOKEN"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_is_withheld() {
        use std::os::unix::ffi::OsStrExt;
        assert!(!ToolEnvironment::new().keeps(OsStr::from_bytes(b"A\xff")));
    }
}

//! Where sessions live, exactly as Pi puts them, so `pi -r` lists our sessions and we list
//! Pi's: `<agent dir>/sessions/--<cwd encoded>--/<ISO timestamp>_<session id>.jsonl`.

use std::path::{Path, PathBuf};

use pi_tool::path::expand_tilde;
pub use pi_tool::path::{AGENT_DIR_ENV, agent_dir};
/// The environment variable that moves the session directory of every cwd (Pi 0.80).
pub const SESSION_DIR_ENV: &str = "PI_CODING_AGENT_SESSION_DIR";

/// The directory holding every cwd's session directory: `<agent dir>/sessions`.
pub fn sessions_root(agent_dir: &Path) -> PathBuf {
    agent_dir.join("sessions")
}

/// The session directory Pi uses for `cwd` under `agent_dir`: `sessions/--<encoded>--`, where
/// the encoding drops one leading `/` or `\` and turns every other `/`, `\` and `:` into `-`.
///
/// ```
/// use std::path::Path;
/// let dir = pi_session::session_dir_for_cwd(Path::new("/a"), Path::new("/home/u/proj"));
/// assert_eq!(dir, Path::new("/a/sessions/--home-u-proj--"));
/// ```
pub fn session_dir_for_cwd(agent_dir: &Path, cwd: &Path) -> PathBuf {
    sessions_root(agent_dir).join(encode_cwd(cwd))
}

/// The session directory for `cwd` as Pi's CLI chooses it when no `--session-dir` is given:
/// `PI_CODING_AGENT_SESSION_DIR` if set, else the agent dir's directory for `cwd`.
pub fn default_session_dir(cwd: &Path) -> Option<PathBuf> {
    let home = std::env::home_dir();
    if let Some(dir) = std::env::var_os(SESSION_DIR_ENV).filter(|dir| !dir.is_empty()) {
        return Some(expand_tilde(Path::new(&dir), home.as_deref()));
    }
    agent_dir().map(|agent| session_dir_for_cwd(&agent, cwd))
}

/// `--<cwd>--` with Pi's substitutions.
pub fn encode_cwd(cwd: &Path) -> String {
    let text = cwd.to_string_lossy();
    let trimmed = text
        .strip_prefix('/')
        .or_else(|| text.strip_prefix('\\'))
        .unwrap_or(&text);
    let body: String = trimmed
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    format!("--{body}--")
}

/// The file name of a new session: the header's timestamp with `:` and `.` turned into `-`,
/// then `_<id>.jsonl` (`2026-09-01T10-00-00-000Z_<uuid>.jsonl`).
pub fn session_file_name(timestamp: &str, session_id: &str) -> String {
    let stamp: String = timestamp
        .chars()
        .map(|c| if matches!(c, ':' | '.') { '-' } else { c })
        .collect();
    format!("{stamp}_{session_id}.jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_encoding_follows_pi() {
        assert_eq!(encode_cwd(Path::new("/home/u/proj")), "--home-u-proj--");
        assert_eq!(encode_cwd(Path::new("C:\\Users\\u")), "--C--Users-u--");
        assert_eq!(encode_cwd(Path::new("/")), "----");
        assert_eq!(encode_cwd(Path::new("/a:b/c d")), "--a-b-c d--");
    }

    #[test]
    fn file_names_follow_pi() {
        assert_eq!(
            session_file_name("2026-12-04T14:01:52.190Z", "01a2"),
            "2026-12-04T14-01-52-190Z_01a2.jsonl"
        );
    }

    #[test]
    fn tilde_expands_to_home() {
        let home = Path::new("/home/u");
        assert_eq!(expand_tilde(Path::new("~/x"), Some(home)), home.join("x"));
        assert_eq!(expand_tilde(Path::new("~"), Some(home)), home);
        assert_eq!(
            expand_tilde(Path::new("/abs"), Some(home)),
            Path::new("/abs")
        );
    }
}

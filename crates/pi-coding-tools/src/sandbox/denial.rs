//! Whether a failed `bash` command was stopped by its sandbox, from what it printed.
//!
//! The kernel tells the command, not us, why a write failed: the only trace is the error line
//! the command prints (`touch: cannot touch '/etc/x': Read-only file system`). So the guess
//! is kept narrow, and made here, by the tool that knows its sandbox, rather than by whoever
//! reads the result: a line must carry one of the error texts a sandboxed write or connection
//! gets (`EROFS`, `EACCES`, `EPERM`, or a failed lookup or connection when the network is
//! off), and for a write, name a path the sandbox does not let the shell write. A permission
//! error on a file inside the workspace is the file's own business, not the sandbox's. The
//! finding is a typed [`SandboxRefusal`] in the result's details.

use pi_tool::{RefusalKind, SandboxRefusal};

use crate::Workspace;

/// What a write the sandbox refused prints, lowercased.
const WRITE_REFUSED: [&str; 3] = [
    "read-only file system",
    "permission denied",
    "operation not permitted",
];

/// What a lookup or a connection prints when the sandbox keeps the shell off the network,
/// lowercased.
const NETWORK_REFUSED: [&str; 7] = [
    "could not resolve host",
    "temporary failure in name resolution",
    "name or service not known",
    "network is unreachable",
    "failed to connect",
    "couldn't connect",
    "permission denied",
];

/// The refusal `output` shows, for a command that failed in `workspace`'s sandbox; `None`
/// when nothing in it points at the sandbox.
pub(crate) fn find(workspace: &Workspace, output: &str) -> Option<SandboxRefusal> {
    let confinement = workspace.shell_confinement()?;
    for line in output.lines() {
        let lower = line.to_lowercase();
        if WRITE_REFUSED.iter().any(|text| lower.contains(text))
            && let Some(path) =
                paths_in(line).find(|path| !workspace.shell_may_write(path.as_ref()))
        {
            return Some(SandboxRefusal {
                kind: RefusalKind::WriteOutsideSandbox,
                path: Some(path.to_owned()),
                evidence: line.trim().to_owned(),
            });
        }
        if !confinement.network && NETWORK_REFUSED.iter().any(|text| lower.contains(text)) {
            let about_network = ["connect", "resolv", "network", "host", "port"]
                .iter()
                .any(|word| lower.contains(word));
            if about_network {
                return Some(SandboxRefusal {
                    kind: RefusalKind::Network,
                    path: None,
                    evidence: line.trim().to_owned(),
                });
            }
        }
    }
    None
}

/// The words of `line` that look like paths (they hold a `/`), quotes and colons trimmed:
/// `'/etc/x'`, `‘/opt/y’`, `/etc/x:`.
fn paths_in(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '‘' | '’'))
        .map(|word| word.trim_matches(|c: char| matches!(c, ':' | ',' | ';' | '(' | ')')))
        .filter(|word| word.contains('/') && !word.contains("://"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_write_outside_is_found_and_one_inside_is_not() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let workspace = Workspace::new(dir.path());
        let inside = dir.path().join("locked.txt").display().to_string();
        let cases = [
            (
                "touch: cannot touch '/etc/x': Read-only file system",
                Some("/etc/x"),
            ),
            ("bash: line 1: /usr/y: Permission denied", Some("/usr/y")),
            (
                "mkdir: cannot create directory ‘/opt/z’: Permission denied",
                Some("/opt/z"),
            ),
            (
                "OSError: [Errno 30] Read-only file system: '/var/w'",
                Some("/var/w"),
            ),
            (
                &format!("touch: cannot touch '{inside}': Permission denied"),
                None,
            ),
            ("cat: /etc/shadow: No such file or directory", None),
            ("error: could not find Cargo.toml in /etc", None),
        ];
        for (line, expected) in cases {
            let found = find(&workspace, &format!("some output\n{line}\n"));
            assert_eq!(
                found.as_ref().and_then(|refusal| refusal.path.as_deref()),
                expected,
                "{line}"
            );
            if let Some(found) = found {
                assert_eq!(found.kind, RefusalKind::WriteOutsideSandbox);
                assert_eq!(found.evidence, line);
            }
        }
        assert_eq!(
            find(
                &Workspace::unconfined(dir.path()),
                "touch: '/etc/x': Read-only file system"
            ),
            None,
            "no sandbox, no refusal"
        );
    }

    #[test]
    fn a_failed_lookup_is_a_refusal_only_when_the_network_is_off() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let line = "curl: (6) Could not resolve host: example.com";
        assert_eq!(find(&Workspace::new(dir.path()), line), None);
        let offline = Workspace::new(dir.path()).without_network();
        let found = find(&offline, line).unwrap_or_else(|| panic!("not found"));
        assert_eq!(found.kind, RefusalKind::Network);
        assert_eq!(found.evidence, line);
    }
}

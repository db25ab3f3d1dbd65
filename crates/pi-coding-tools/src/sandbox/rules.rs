//! The Landlock rulesets: one for the shell (when bubblewrap is not there), one for each file
//! tool's call. Both restrict the calling thread and whatever it starts afterwards.

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetStatus, Scope, path_beneath_rules,
};

use super::{Confinement, Enforcement, Restricted};

/// The newest rules this code asks for; older kernels enforce what they know (best effort) and
/// the enforcement says "partly".
const ABI_WANTED: ABI = ABI::V6;

/// Everything a writer may do inside a root, except make device nodes: a block device over an
/// outside file would be a way out (a loop device as root).
fn writing_rights() -> BitFlags<AccessFs> {
    AccessFs::from_all(ABI_WANTED) & !(AccessFs::MakeBlock | AccessFs::MakeChar)
}

/// Restricts this thread as the shell's sandbox: read everywhere, write only in the writable
/// directories and `/dev/null`, no device nodes, signals and abstract sockets only within the
/// sandbox; when the network is not allowed, no TCP (Landlock) and no socket but Unix ones
/// (seccomp); then drops every capability.
pub(super) fn restrict_shell(confinement: &Confinement) -> Restricted {
    let attempt = || -> Result<RulesetStatus, landlock::RulesetError> {
        let mut ruleset = Ruleset::default()
            .handle_access(AccessFs::from_all(ABI_WANTED))?
            .scope(Scope::Signal | Scope::AbstractUnixSocket)?;
        if !confinement.network {
            ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
        }
        let status = ruleset
            .create()?
            .add_rules(path_beneath_rules(["/"], AccessFs::from_read(ABI_WANTED)))?
            .add_rules(path_beneath_rules(&confinement.writable, writing_rights()))?
            .add_rules(path_beneath_rules(["/dev/null"], writing_rights()))?
            .restrict_self()?;
        Ok(status.ruleset)
    };
    let outcome = attempt();
    // Every rule this code asks for, the signal scope among them, holds only when the kernel
    // enforced the whole ruleset.
    let signals_scoped = matches!(outcome, Ok(RulesetStatus::FullyEnforced));
    let mut enforcement = describe(outcome);
    if !confinement.network {
        match super::seccomp::refuse_network_sockets() {
            Ok(()) => enforcement.push_str(", no network (no socket but Unix ones)"),
            Err(error) => enforcement.push_str(&format!(
                "; not covered: UDP and other sockets than TCP ({error})"
            )),
        }
    }
    let capabilities = drop_capabilities();
    if !enforcement.starts_with("none") {
        enforcement.push_str(
            "; not covered: metadata (chmod, chown, times) of files outside that this user owns, path-based Unix sockets",
        );
    }
    if let Some(problem) = capabilities {
        enforcement.push_str(&format!("; {problem}"));
    }
    Restricted {
        enforcement,
        signals_scoped,
    }
}

/// Restricts this thread to `roots`: reading inside them (and the ignore files a walk reads
/// from their ancestors and the user's git configuration), writing inside them too when
/// `write`. Says how far the kernel enforced it.
pub(super) fn restrict_files(roots: &[PathBuf], write: bool) -> Enforcement {
    let attempt = || -> Result<RulesetStatus, landlock::RulesetError> {
        let rights = if write {
            writing_rights()
        } else {
            AccessFs::from_read(ABI_WANTED)
        };
        let status = Ruleset::default()
            .handle_access(AccessFs::from_all(ABI_WANTED))?
            .create()?
            .add_rules(path_beneath_rules(roots, rights))?
            .add_rules(path_beneath_rules(
                ignore_files_outside(roots),
                AccessFs::ReadFile,
            ))?
            .restrict_self()?;
        Ok(status.ruleset)
    };
    describe(attempt())
}

fn describe(outcome: Result<RulesetStatus, landlock::RulesetError>) -> Enforcement {
    match outcome {
        Ok(RulesetStatus::FullyEnforced) => "landlock".to_owned(),
        Ok(RulesetStatus::PartiallyEnforced) => {
            "landlock (partly: this kernel knows only some of the rules)".to_owned()
        }
        Ok(RulesetStatus::NotEnforced) => "none: this kernel has no Landlock".to_owned(),
        Err(error) => format!("none: Landlock failed: {error}"),
    }
}

/// Empties every capability set of this thread, the bounding set first (so nothing the shell
/// executes can regain one). Only root has any; for anyone else there is nothing to drop.
/// Returns what could not be dropped.
fn drop_capabilities() -> Option<String> {
    use caps::CapSet;
    let held = caps::read(None, CapSet::Permitted).ok()?;
    if held.is_empty() {
        return None;
    }
    let mut failed = Vec::new();
    for capability in caps::all() {
        if caps::drop(None, CapSet::Bounding, capability).is_err() {
            failed.push(capability.to_string());
        }
    }
    for set in [
        CapSet::Ambient,
        CapSet::Inheritable,
        CapSet::Effective,
        CapSet::Permitted,
    ] {
        if caps::clear(None, set).is_err() {
            failed.push(format!("{set:?}"));
        }
    }
    (!failed.is_empty()).then(|| format!("capabilities kept: {}", failed.join(", ")))
}

/// The ignore files `ignore`'s walker reads outside the roots: those of every ancestor
/// directory, and the user's global git excludes. Reading them is all that is granted.
fn ignore_files_outside(roots: &[PathBuf]) -> Vec<PathBuf> {
    const NAMES: &[&str] = &[".gitignore", ".ignore", ".rgignore", ".fdignore", ".git"];
    let mut files = Vec::new();
    for root in roots {
        for ancestor in root.ancestors().skip(1) {
            for name in NAMES {
                files.push(ancestor.join(name));
            }
            files.push(ancestor.join(".git/info/exclude"));
        }
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|home| home.join(".config")));
    let mut configs = Vec::new();
    if let Some(config) = &config {
        configs.push(config.join("git/config"));
        files.push(config.join("git/ignore"));
    }
    if let Some(home) = &home {
        configs.push(home.join(".gitconfig"));
    }
    for file in &configs {
        if let Some(excludes) = excludes_file(file, home.as_deref()) {
            files.push(excludes);
        }
    }
    files.extend(configs);
    // Directories are skipped: only files may be granted here (a `.git` directory's contents
    // stay closed; `.git/info/exclude` is listed by itself).
    files.retain(|file| file.is_file());
    files
}

/// `core.excludesFile` of a git configuration file, as the `ignore` crate reads it.
fn excludes_file(config: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let text = std::fs::read_to_string(config).ok()?;
    let value = text.lines().find_map(|line| {
        let (key, value) = line.trim().split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("excludesfile")
            .then(|| value.trim().trim_matches('"').to_owned())
    })?;
    match (value.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => Some(home.join(rest)),
        _ => Some(PathBuf::from(value)),
    }
}

//! Rules from their sources (command line, user settings, project settings), with the project
//! trust rule, compiled against a workspace into a [`Policy`] that decides calls.

use std::sync::Arc;

use crate::name_index::NameIndex;
use crate::paths::{PathIndex, PathPattern, PathResolver};
use crate::protected::Protected;
use crate::rule::{Rule, RuleError, RuleKind, Specifier};
use crate::{Mode, Source};

/// One rule, its list and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleEntry {
    /// Allow, ask or deny.
    pub kind: RuleKind,
    /// The rule.
    pub rule: Rule,
    /// Where it was written.
    pub source: Source,
}

/// The `permissions` of one settings file or of the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Permissions {
    /// Rules that let calls run.
    pub allow: Vec<Rule>,
    /// Rules that make calls ask.
    pub ask: Vec<Rule>,
    /// Rules that refuse calls.
    pub deny: Vec<Rule>,
    /// The approval mode it sets, if any.
    pub mode: Option<Mode>,
}

impl Permissions {
    /// Adds a rule given as text (`--allow RULE` and friends).
    pub fn add(&mut self, kind: RuleKind, rule: &str) -> Result<(), RuleError> {
        let rule = rule.parse()?;
        self.list_mut(kind).push(rule);
        Ok(())
    }

    fn list_mut(&mut self, kind: RuleKind) -> &mut Vec<Rule> {
        match kind {
            RuleKind::Allow => &mut self.allow,
            RuleKind::Ask => &mut self.ask,
            RuleKind::Deny => &mut self.deny,
        }
    }

    fn entries(&self, source: Source) -> impl Iterator<Item = RuleEntry> + '_ {
        let deny = self.deny.iter().map(move |rule| (RuleKind::Deny, rule));
        let ask = self.ask.iter().map(move |rule| (RuleKind::Ask, rule));
        let allow = self.allow.iter().map(move |rule| (RuleKind::Allow, rule));
        deny.chain(ask)
            .chain(allow)
            .map(move |(kind, rule)| RuleEntry {
                kind,
                rule: rule.clone(),
                source,
            })
    }
}

/// Whether the user has trusted the project: only then do its settings' `allow` rules (and
/// its mode) count. A repository must not be able to grant itself permissions; it may always
/// add `deny` and `ask` rules, which only take permissions away.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ProjectTrust {
    /// The project's allow rules and mode are ignored.
    #[default]
    Untrusted,
    /// The project's settings count in full.
    Trusted,
}

/// Every rule in force, in the order they are tried within each list: command line, then
/// project, then user (the nearer source is named when several match).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleSet {
    entries: Vec<RuleEntry>,
    ignored: Vec<RuleEntry>,
    mode: Option<Mode>,
}

impl RuleSet {
    /// Assembles the sources. The mode is the command line's, else a trusted project's, else
    /// the user's (`None` when none sets one: the caller's default applies).
    pub fn from_sources(
        cli: &Permissions,
        project: Option<&Permissions>,
        user: Option<&Permissions>,
        trust: ProjectTrust,
    ) -> Self {
        let mut set = Self::default();
        set.entries.extend(cli.entries(Source::Cli));
        if let Some(project) = project {
            for entry in project.entries(Source::Project) {
                if entry.kind == RuleKind::Allow && trust == ProjectTrust::Untrusted {
                    set.ignored.push(entry);
                } else {
                    set.entries.push(entry);
                }
            }
        }
        if let Some(user) = user {
            set.entries.extend(user.entries(Source::User));
        }
        let project_mode = project
            .filter(|_| trust == ProjectTrust::Trusted)
            .and_then(|project| project.mode);
        set.mode = cli
            .mode
            .or(project_mode)
            .or_else(|| user.and_then(|user| user.mode));
        set
    }

    /// Adds one rule.
    pub fn push(&mut self, kind: RuleKind, rule: Rule, source: Source) {
        self.entries.push(RuleEntry { kind, rule, source });
    }

    /// The rules in force.
    pub fn entries(&self) -> &[RuleEntry] {
        &self.entries
    }

    /// A project's `allow` rules set aside because the project is not trusted (a front end
    /// says so, so nobody wonders why they do not apply).
    pub fn ignored(&self) -> &[RuleEntry] {
        &self.ignored
    }

    /// The mode the sources set, if any.
    pub fn mode(&self) -> Option<Mode> {
        self.mode
    }
}

/// A rule compiled against a workspace.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) entry: RuleEntry,
    /// Its place in its list (what a [`PathIndex`] names it by).
    pub(crate) position: usize,
    /// For a file rule: its glob, absolute; `None` if it could not be compiled (then it
    /// matches nothing in `allow`, everything in `deny` and `ask`: a broken rule must not
    /// open anything).
    pub(crate) path: Option<Result<PathPattern, ()>>,
}

/// Rules, a mode and a workspace: everything a decision needs besides the call.
pub struct Policy {
    pub(crate) mode: Mode,
    pub(crate) deny: Vec<Compiled>,
    pub(crate) ask: Vec<Compiled>,
    pub(crate) allow: Vec<Compiled>,
    /// The path globs of `deny`, `ask` and `allow`, in that order.
    pub(crate) path_indexes: [PathIndex; 3],
    /// The rules of `deny`, `ask` and `allow` by tool name, in that order.
    pub(crate) name_indexes: [NameIndex; 3],
    /// The positions in `deny` of the bare rules (a tool name alone), which hide tools.
    pub(crate) bare_deny: Vec<usize>,
    pub(crate) paths: Arc<dyn PathResolver>,
    /// Paths whose change asks in every mode but `yolo`.
    pub(crate) protected: Protected,
    /// For `deny`, `ask` and `allow`, in that order: the file (device, inode) each rule on
    /// one existing file names, with the rule's position, so a hard link to `.env` is judged
    /// as `.env` is.
    pub(crate) file_ids: [Vec<FileId>; 3],
}

/// One file a rule names, as the kernel knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId {
    pub(crate) device: u64,
    pub(crate) inode: u64,
    /// The rule's position in its list.
    pub(crate) position: usize,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("mode", &self.mode)
            .field("deny", &self.deny.len())
            .field("ask", &self.ask.len())
            .field("allow", &self.allow.len())
            .finish_non_exhaustive()
    }
}

impl Policy {
    /// A policy deciding in `mode` with `rules`, paths resolved by `paths`.
    pub fn new(mode: Mode, rules: RuleSet, paths: impl PathResolver + 'static) -> Self {
        Self::with_resolver(mode, rules, Arc::new(paths))
    }

    /// The same with a shared resolver (the one the file tools use).
    pub fn with_resolver(mode: Mode, rules: RuleSet, paths: Arc<dyn PathResolver>) -> Self {
        let empty = || PathIndex::new(std::iter::empty());
        let mut policy = Self {
            mode,
            deny: Vec::new(),
            ask: Vec::new(),
            allow: Vec::new(),
            path_indexes: [empty(), empty(), empty()],
            name_indexes: Default::default(),
            bare_deny: Vec::new(),
            paths,
            protected: Protected::new(),
            file_ids: Default::default(),
        };
        for entry in rules.entries {
            let path = match entry.rule.specifier() {
                Specifier::Path(glob) => {
                    Some(PathPattern::new(glob, policy.paths.as_ref()).map_err(|_| ()))
                }
                _ => None,
            };
            let list = match entry.kind {
                RuleKind::Deny => &mut policy.deny,
                RuleKind::Ask => &mut policy.ask,
                RuleKind::Allow => &mut policy.allow,
            };
            let position = list.len();
            list.push(Compiled {
                entry,
                position,
                path,
            });
        }
        policy.file_ids = [&policy.deny, &policy.ask, &policy.allow].map(|list| {
            list.iter()
                .filter_map(|compiled| {
                    let Specifier::Path(glob) = compiled.entry.rule.specifier() else {
                        return None;
                    };
                    let file = literal_file(glob, policy.paths.as_ref())?;
                    let (device, inode) = file_id(&file)?;
                    Some(FileId {
                        device,
                        inode,
                        position: compiled.position,
                    })
                })
                .collect()
        });
        policy.path_indexes = [&policy.deny, &policy.ask, &policy.allow].map(|list| {
            PathIndex::new(list.iter().filter_map(|compiled| match &compiled.path {
                Some(Ok(pattern)) => Some((compiled.position, pattern)),
                _ => None,
            }))
        });
        policy.name_indexes =
            [&policy.deny, &policy.ask, &policy.allow].map(|list| NameIndex::new(list));
        policy.bare_deny = policy
            .deny
            .iter()
            .filter(|compiled| compiled.entry.rule.is_bare())
            .map(|compiled| compiled.position)
            .collect();
        policy
    }

    /// The same policy, with `protected` as the paths whose change always asks (every
    /// `.git/` and `.pi/` is protected without being named).
    #[must_use]
    pub fn with_protected(mut self, protected: Protected) -> Self {
        self.protected = protected;
        self
    }

    /// The paths whose change asks in every mode but `yolo`.
    pub fn protected(&self) -> &Protected {
        &self.protected
    }

    /// How it resolves paths (a policy built beside it resolves them the same way).
    pub fn resolver(&self) -> Arc<dyn PathResolver> {
        Arc::clone(&self.paths)
    }

    /// The mode it decides in.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Whether a bare `deny` rule names the tool: it is then not shown to the model at all.
    /// Asked for every tool on every turn, so only the bare deny rules (found when the
    /// policy was made; usually none or a few) are tried.
    pub fn hides_tool(&self, tool: &str) -> bool {
        self.bare_deny
            .iter()
            .filter_map(|position| self.deny.get(*position))
            .any(|compiled| compiled.entry.rule.tool().matches(tool))
    }
}

/// The file a path rule names when its glob is a plain path (no `*`, `?`, `[`, `{`):
/// relative to the workspace, `~/` under home, or absolute.
fn literal_file(glob: &str, paths: &dyn PathResolver) -> Option<std::path::PathBuf> {
    if glob.contains(['*', '?', '[', '{']) {
        return None;
    }
    let glob = glob.strip_prefix("./").unwrap_or(glob);
    let path = match (glob.strip_prefix("~/"), paths.home()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => paths.root().join(glob),
    };
    Some(pi_tool::path::canonical(&path))
}

/// A regular file's (device, inode); `None` for anything else or a path that is not there.
pub(crate) fn file_id(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    let metadata = std::fs::metadata(path).ok()?;
    metadata.is_file().then(|| (metadata.dev(), metadata.ino()))
}

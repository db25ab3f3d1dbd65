//! Where a file tool's path leads, and the path globs of file rules, resolved the way
//! workspace confinement resolves paths (`pi_tool::path`: `@`, `~`, `..` and symbolic links
//! followed), so `src/../.env` is matched as `.env` and a link `src/link -> ~/.ssh` as what is
//! under `~/.ssh`.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// Where a tool's path arguments lead. The agent's gate passes the same resolver the file
/// tools use, so the path a rule judges is the path the tool opens; [`LocalPaths`] is the
/// plain one (Pi's rules over `pi_tool::path`).
pub trait PathResolver: Send + Sync {
    /// Where `argument` (a tool's path argument as the model wrote it) really leads:
    /// absolute, links and `..` resolved.
    fn resolve(&self, argument: &str) -> PathBuf;
    /// The canonical workspace directory relative rule globs start from.
    fn root(&self) -> &Path;
    /// The home directory `~` in rule globs stands for.
    fn home(&self) -> Option<&Path>;
    /// Whether a resolved path is inside the workspace (edits there are what `auto-edit`
    /// allows).
    fn is_inside(&self, path: &Path) -> bool {
        path.starts_with(self.root())
    }
    /// Where `argument` leads when a command running in `dir` names it (a `bash` line after
    /// `cd dir`): absolute, links and `..` resolved, `~` under [`home`](Self::home).
    fn resolve_in(&self, dir: &Path, argument: &str) -> PathBuf {
        let typed = pi_tool::path::resolve_argument(dir, self.home(), argument);
        let found = pi_tool::path::respelled(&typed, |_| true).unwrap_or(typed);
        pi_tool::path::canonical(&found)
    }
}

/// Paths resolved against a working directory and `$HOME`, through `pi_tool::path`.
#[derive(Debug, Clone)]
pub struct LocalPaths {
    cwd: PathBuf,
    root: PathBuf,
    home: Option<PathBuf>,
}

impl LocalPaths {
    /// Paths of tools working in `cwd`, with `~` the `HOME` of this process.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self::with_home(cwd, std::env::var_os("HOME").map(PathBuf::from))
    }

    /// The same with an explicit home directory (tests, or a front end that knows better).
    pub fn with_home(cwd: impl Into<PathBuf>, home: Option<PathBuf>) -> Self {
        let cwd = cwd.into();
        let root = pi_tool::path::canonical(&cwd);
        let home = home.map(|home| pi_tool::path::canonical(&home));
        Self { cwd, root, home }
    }
}

impl PathResolver for LocalPaths {
    /// As the file tools resolve it: a name that does not exist as typed is looked for under
    /// its other spellings (`it's` for `it’s`, a plain space for a narrow one, composed for
    /// decomposed accents), so a rule on the real name judges the file the tool will open.
    fn resolve(&self, argument: &str) -> PathBuf {
        let typed = pi_tool::path::resolve_argument(&self.cwd, self.home.as_deref(), argument);
        let found = pi_tool::path::respelled(&typed, |_| true).unwrap_or(typed);
        pi_tool::path::canonical(&found)
    }

    fn root(&self) -> &Path {
        &self.root
    }

    fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }
}

/// A file rule's glob, made absolute against a workspace.
#[derive(Debug, Clone)]
pub(crate) struct PathPattern {
    glob: Glob,
}

impl PathPattern {
    /// Resolves `glob` (relative to the workspace root, `~/...` under home, or absolute):
    /// its literal directories are resolved as a tool's path would be (so a rule on a
    /// link's name also covers where the link leads), then the glob is compiled.
    pub(crate) fn new(glob: &str, paths: &dyn PathResolver) -> Result<Self, globset::Error> {
        let glob = glob.strip_prefix("./").unwrap_or(glob);
        // The part before the first glob character is a real path: resolve it.
        let literal_end = glob.find(['*', '?', '[', '{']).map_or(glob.len(), |first| {
            glob.get(..first)
                .and_then(|head| head.rfind('/'))
                .map_or(0, |slash| slash + 1)
        });
        let (literal, pattern) = glob.split_at(literal_end);
        let base = if literal.is_empty() {
            paths.root().to_path_buf()
        } else {
            let under_home = match literal.trim_end_matches('/') {
                "~" => Some(""),
                other => other.strip_prefix("~/"),
            };
            let absolute = match (under_home, paths.home()) {
                (Some(rest), Some(home)) => home.join(rest),
                _ => paths.root().join(literal),
            };
            pi_tool::path::canonical(&absolute)
        };
        let mut full = globset::escape(&base.to_string_lossy());
        if !pattern.is_empty() {
            if !full.ends_with('/') {
                full.push('/');
            }
            full.push_str(pattern);
        }
        Ok(Self {
            glob: glob_builder(&full).build()?,
        })
    }
}

/// All the path globs of one rule list, matched in one pass: their regexes in one
/// `RegexSet`, one automaton for all of them, so a `read` against 1,000 rules costs little
/// more than against a few. (A `GlobSet` would try the globs sharing an extension, such as
/// every `*.rs` rule, one regex at a time: measured with `scripts/approval-cost.sh`, that
/// was most of a decision.) Most paths match no rule: `is_match` answers that alone.
#[derive(Debug, Clone)]
pub(crate) struct PathIndex {
    set: Matcher,
    /// For each glob of the set, the position of its rule in the list.
    owners: Vec<usize>,
}

/// The globs of a list, as one regex set, or as a `GlobSet` when the set is too big to build.
#[derive(Debug, Clone)]
enum Matcher {
    Regexes(regex::bytes::RegexSet),
    Globs(GlobSet),
}

impl Matcher {
    /// The indexes of the globs `path` matches.
    fn matches(&self, path: &Path) -> Vec<usize> {
        match self {
            Self::Regexes(set) => {
                let bytes = path.as_os_str().as_encoded_bytes();
                if !set.is_match(bytes) {
                    return Vec::new();
                }
                set.matches(bytes).into_iter().collect()
            }
            Self::Globs(set) => set.matches(path),
        }
    }
}

/// A name standing for "anything in this directory" when a walk is matched.
const PROBE: &str = "pi-approval-any-entry";

impl PathIndex {
    /// Indexes the `(position, pattern)`s of a list's path rules.
    pub(crate) fn new<'p>(patterns: impl Iterator<Item = (usize, &'p PathPattern)>) -> Self {
        let mut globs = Vec::new();
        let mut owners = Vec::new();
        for (position, pattern) in patterns {
            globs.push(pattern.glob.clone());
            owners.push(position);
        }
        let set = match regex::bytes::RegexSet::new(globs.iter().map(globset::Glob::regex)) {
            Ok(set) => Matcher::Regexes(set),
            Err(_) => {
                let mut builder = GlobSetBuilder::new();
                for glob in globs {
                    builder.add(glob);
                }
                // Each glob compiled alone already; a set of them cannot fail to build.
                Matcher::Globs(builder.build().unwrap_or_else(|_| GlobSet::empty()))
            }
        };
        Self { set, owners }
    }

    /// The positions of the rules whose glob matches `path`, ascending. A tool that walks a
    /// directory (`walks`) reads what is under it, so a rule on `dir/**` also covers `dir`.
    pub(crate) fn hits(&self, path: &Path, walks: bool) -> Vec<usize> {
        let mut found = self.set.matches(path);
        if walks {
            found.extend(self.set.matches(&path.join(PROBE)));
        }
        let mut hits: Vec<usize> = found
            .into_iter()
            .filter_map(|index| self.owners.get(index).copied())
            .collect();
        hits.sort_unstable();
        hits.dedup();
        hits
    }
}

/// The options every file glob is compiled with: `*` stays within one directory, `**` crosses
/// them, as in `.gitignore` and Claude Code's rules.
pub(crate) fn glob_builder(glob: &str) -> GlobBuilder<'_> {
    let mut builder = GlobBuilder::new(glob);
    builder.literal_separator(true).backslash_escape(true);
    builder
}

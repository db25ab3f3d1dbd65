//! Approvals for Pi-style agents: whether a tool call may run (allow), needs a person's say
//! (ask) or must not run (deny), decided on the exact, final arguments that will run.
//!
//! Why a crate of its own: the decision is pure (rules, a mode, the call's arguments in; a
//! verdict out), testable without a loop, and carries a heavy dependency the rest should not
//! pay for (tree-sitter-bash's C parser). The agent loop asks it between parse and execute;
//! `pi-tool policy check` asks it with no loop at all.
//!
//! - [`Rule`]s in Claude Code's syntax (`bash(git log:*)`, `edit(src/**)`, `mcp_github_*`),
//!   from the command line, the user's and the project's settings ([`settings`]), where a
//!   project's `allow` rules count only once the user trusts it ([`ProjectTrust`]).
//! - [`shell::split`]: a `bash` command line split into simple commands with a real bash
//!   parser; anything it cannot prove harmless is never allowed without asking.
//! - [`Mode`]s as data ([`ModeTable`]): what runs when no rule matches.
//! - [`Policy::decide`]: deny → ask → allow (first match wins) → mode, returning a
//!   [`Decision`] with the rule, its [`Source`] and a [`Fingerprint`] of the arguments that
//!   the executor checks before running them.
//! - [`Approver`]: the async trait a front end implements to ask a person.
//! - [`ApprovalRecord`]: one decision as the audit trail keeps it.
//!
//! ```
//! use pi_approval::{LocalPaths, Mode, Permissions, Policy, ProjectTrust, RuleKind, RuleSet, Verdict};
//! use pi_tool::ToolAnnotations;
//! use serde_json::json;
//!
//! let mut cli = Permissions::default();
//! cli.add(RuleKind::Allow, "bash(cargo test:*)").unwrap();
//! cli.add(RuleKind::Deny, "bash(rm:*)").unwrap();
//! let rules = RuleSet::from_sources(&cli, None, None, ProjectTrust::Untrusted);
//! let policy = Policy::new(Mode::Ask, rules, LocalPaths::new("/repo"));
//!
//! let bash = |command: &str| policy.decide("bash", ToolAnnotations::open(), &json!({"command": command}));
//! assert_eq!(bash("cargo test -p x && git status").decision, Verdict::Allow);
//! assert_eq!(bash("cargo test; 'r'm -rf ~").decision, Verdict::Deny);
//! assert_eq!(bash("cargo test $(curl x)").decision, Verdict::Ask);
//! ```

mod approver;
mod bash_reads;
mod decide;
mod decision;
mod fingerprint;
mod git_config;
mod mode;
mod name_index;
mod paths;
mod policy;
mod protected;
mod record;
mod rule;
mod seal;
pub mod settings;
pub mod shell;
mod source;
mod tool_kind;
mod wildcard;

pub use approver::{Answer, AnswerFuture, ApprovalRequest, Approver};
pub use decision::Decision;
pub use fingerprint::{Fingerprint, FingerprintMismatch};
pub use mode::{Mode, ModeTable, UnknownMode, Verdict};
pub use paths::{LocalPaths, PathResolver};
pub use policy::{Permissions, Policy, ProjectTrust, RuleEntry, RuleSet};
pub use protected::Protected;
pub use record::{ApprovalRecord, DecidedBy, RECORD_CUSTOM_TYPE, Scope};
pub use rule::{CommandPattern, NamePattern, Rule, RuleError, RuleErrorKind, RuleKind, Specifier};
pub use seal::{SEAL_KEY_FILE, SealKey, SealKeyError};
pub use settings::SettingsError;
pub use source::Source;
pub use tool_kind::ToolKind;

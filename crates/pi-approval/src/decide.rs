//! The decision: deny rules, then ask rules, then allow rules (first match wins), then the
//! mode, on the final arguments of one call. It reads the call the way the tool will run it:
//! `bash` lines split into simple commands, file paths resolved as confinement resolves them.

use std::path::{Path, PathBuf};

use pi_tool::ToolAnnotations;
use serde_json::Value;

use crate::bash_reads::LineWalk;
use crate::policy::{Compiled, Policy};
use crate::rule::{RuleKind, Specifier};
use crate::shell::{self, SimpleCommand, only_reads};
use crate::tool_kind::ToolKind;
use crate::{Decision, Fingerprint, Mode, Source, Verdict};

/// What a rule is matched against.
#[derive(Clone, Copy)]
enum Target<'a> {
    /// One simple command of a `bash` line, as its words joined by spaces.
    Command(&'a str),
    /// A file tool's path, as the rules whose globs match it (`None` when the call names
    /// no path).
    Path(Option<&'a PathHits>),
    /// Any other tool: only its name.
    Call,
}

/// A decision before its fingerprint is attached.
struct Outcome {
    verdict: Verdict,
    rule: Option<String>,
    source: Source,
    reason: Option<String>,
}

impl Outcome {
    fn rule(verdict: Verdict, compiled: &Compiled) -> Self {
        Self {
            verdict,
            rule: Some(compiled.entry.rule.text().to_owned()),
            source: compiled.entry.source,
            reason: None,
        }
    }

    fn into_decision(self, commands: Vec<String>, fingerprint: Fingerprint) -> Decision {
        Decision {
            decision: self.verdict,
            rule: self.rule,
            source: self.source,
            commands,
            reason: self.reason,
            fingerprint,
        }
    }

    fn plain(verdict: Verdict, source: Source, reason: String) -> Self {
        Self {
            verdict,
            rule: None,
            source,
            reason: Some(reason),
        }
    }
}

impl Policy {
    /// Decides one call: its tool's name and annotations, and the final, validated
    /// arguments that will run (decide after every hook, then run exactly these; check with
    /// [`Fingerprint::check`]).
    pub fn decide(&self, tool: &str, annotations: ToolAnnotations, arguments: &Value) -> Decision {
        let fingerprint = Fingerprint::of(tool, arguments);
        let mut commands = Vec::new();
        let outcome = match ToolKind::of(tool) {
            ToolKind::Shell => self.decide_shell(tool, arguments, &mut commands),
            ToolKind::File {
                key,
                default,
                changes,
            } => {
                let path = arguments
                    .get(key)
                    .and_then(Value::as_str)
                    .or(default)
                    .map(|raw| self.paths.resolve(raw));
                // Pi's own read-only file tools are what they are even before they say so.
                let read_only =
                    annotations.is_read_only() || (!changes && annotations.read_only.is_none());
                self.decide_file(tool, path, read_only, changes)
            }
            ToolKind::Other => self.decide_other(tool, annotations),
        };
        outcome.into_decision(commands, fingerprint)
    }

    /// Decides a call of a tool imported from another program (an MCP server): its name and
    /// hints are that program's claims, so it is judged as an unknown tool whatever it says
    /// or is called (`ls`, `bash`, `readOnlyHint`): a rule naming it, else the mode's verdict
    /// for other tools (`ask` in the default mode).
    pub fn decide_imported(&self, tool: &str, arguments: &Value) -> Decision {
        let outcome = self.decide_other(tool, ToolAnnotations::default());
        outcome.into_decision(Vec::new(), Fingerprint::of(tool, arguments))
    }

    fn decide_shell(&self, tool: &str, arguments: &Value, shown: &mut Vec<String>) -> Outcome {
        let table = self.mode.table();
        let Some(line) = arguments.get("command").and_then(Value::as_str) else {
            if let Some(outcome) = self.restricting_rule(tool, Target::Call) {
                return outcome;
            }
            return Outcome::plain(
                table.unprovable_commands,
                Source::Builtin,
                "the call has no command line to split".to_owned(),
            );
        };
        let split = shell::split(line);
        // Joined once: every rule of every list is matched against these texts.
        let texts: Vec<String> = split.all_commands().map(SimpleCommand::text).collect();
        shown.extend(texts.iter().take(split.commands.len()).cloned());
        // A command rule's candidates depend on the tool only: found once for every command.
        let command_rules = |kind| self.candidates(kind, tool, Target::Command(""));
        for list in [RuleKind::Deny, RuleKind::Ask] {
            let candidates = command_rules(list);
            let found = texts
                .iter()
                .find_map(|text| self.first_of(list, &candidates, tool, Target::Command(text)));
            if let Some(compiled) = found {
                return self.restricting_outcome(compiled);
            }
        }
        if let Some(outcome) = self.strictest_for_unknown(tool, &split) {
            return outcome;
        }
        let mut walk = LineWalk::new(self.paths.as_ref(), &self.protected);
        let mut protected = None;
        let mut judged = Vec::with_capacity(split.commands.len());
        // Paths are resolved only when a rule could deny reading one (a `stat` per argument).
        let reads_denied = self
            .deny
            .iter()
            .any(|compiled| compiled.entry.rule.tool().matches("read"));
        for command in &split.commands {
            let words = command.words();
            // `cat .env` with `read(.env)` denied: the rule holds for commands that read.
            if reads_denied
                && reads_its_arguments(words)
                && let Some(compiled) = walk
                    .paths_named(words)
                    .iter()
                    .find_map(|path| self.read_denied_by(path))
            {
                let mut outcome = Outcome::rule(Verdict::Deny, compiled);
                outcome.reason = Some(format!(
                    "{} reads a file the rule {} denies reading",
                    command.text(),
                    compiled.entry.rule.text()
                ));
                return outcome;
            }
            let read_only = only_reads(words);
            let outside = if read_only {
                walk.reads_outside(words)
            } else {
                None
            };
            if protected.is_none() && (!read_only || outside.is_some()) {
                protected = walk.names_protected(words.iter().skip(1)).or_else(|| {
                    writes_git_config(words).then(|| (command.text(), PathBuf::from(".git/config")))
                });
            }
            judged.push((read_only && outside.is_none(), outside));
            walk.step(words);
        }
        protected = protected
            .or_else(|| walk.names_protected(&split.writes))
            .or_else(|| {
                split.hidden.iter().find_map(|command| {
                    let words = command.words();
                    walk.names_protected(words.iter().skip(1)).or_else(|| {
                        writes_git_config(words)
                            .then(|| (command.text(), PathBuf::from(".git/config")))
                    })
                })
            });
        let outcome = self.judge_commands(tool, &split, &texts, &judged);
        match protected {
            Some((word, path)) if outcome.verdict != Verdict::Deny && self.mode != Mode::Yolo => {
                Outcome::plain(
                    Verdict::Ask,
                    Source::Builtin,
                    format!(
                        "{word} names a protected path ({}): changes there ask in every mode but yolo",
                        path.display()
                    ),
                )
            }
            _ => outcome,
        }
    }

    /// The verdict on a line's commands once no deny or ask rule matched: unprovable lines
    /// by the mode, then each command by an allow rule, the read-only list (`judged`: whether
    /// each reads only inside the workspace, else why not) or the mode; the worst wins.
    fn judge_commands(
        &self,
        tool: &str,
        split: &shell::Split,
        texts: &[String],
        judged: &[(bool, Option<String>)],
    ) -> Outcome {
        let table = self.mode.table();
        if let Some(reason) = split.unprovable.first() {
            return Outcome::plain(
                table.unprovable_commands,
                Source::Builtin,
                reason.to_string(),
            );
        }
        let mut allowed_by: Option<&Compiled> = None;
        let mut worst: Option<Outcome> = None;
        let allow_candidates = self.candidates(RuleKind::Allow, tool, Target::Command(""));
        for (text, (read_only, outside)) in texts.iter().zip(judged) {
            if let Some(compiled) = self.first_of(
                RuleKind::Allow,
                &allow_candidates,
                tool,
                Target::Command(text),
            ) {
                allowed_by = allowed_by.or(Some(compiled));
                continue;
            }
            let outcome = if *read_only {
                Outcome::plain(
                    table.read_only_commands,
                    Source::Builtin,
                    format!("{text} is a known read-only command"),
                )
            } else if let Some(outside) = outside {
                Outcome::plain(
                    table.other_commands,
                    Source::Mode,
                    format!(
                        "{outside}; mode {} gives {}",
                        self.mode, table.other_commands
                    ),
                )
            } else {
                Outcome::plain(
                    table.other_commands,
                    Source::Mode,
                    format!(
                        "no rule allows {text}; mode {} gives {}",
                        self.mode, table.other_commands
                    ),
                )
            };
            if worst
                .as_ref()
                .is_none_or(|worst| outcome.verdict > worst.verdict)
            {
                worst = Some(outcome);
            }
        }
        match (worst, allowed_by) {
            (Some(worst), _) if worst.verdict != Verdict::Allow => worst,
            (_, Some(compiled)) => Outcome::rule(Verdict::Allow, compiled),
            (Some(worst), None) => worst,
            (None, None) => Outcome::plain(
                Verdict::Allow,
                Source::Builtin,
                "the command line runs no command".to_owned(),
            ),
        }
    }

    /// A line that may run a command no rule can see by name (`$(printf rm) f`, `echo rm f |
    /// bash`): any command rule could match it, so the strictest that could decides, in every
    /// mode: a deny rule on the tool, else an ask rule. `None` when the line has no such
    /// command or the tool has no such rule (the mode then decides, as for any unprovable line).
    fn strictest_for_unknown(&self, tool: &str, split: &shell::Split) -> Option<Outcome> {
        let unknown = split.unresolved.first()?;
        [RuleKind::Deny, RuleKind::Ask]
            .into_iter()
            .find_map(|kind| {
                let list = match kind {
                    RuleKind::Deny => &self.deny,
                    RuleKind::Ask => &self.ask,
                    RuleKind::Allow => &self.allow,
                };
                let compiled = self
                    .candidates(kind, tool, Target::Command(""))
                    .iter()
                    .filter_map(|position| list.get(*position))
                    .find(|compiled| {
                        matches!(
                            compiled.entry.rule.specifier(),
                            Specifier::Any | Specifier::Command(_)
                        ) && compiled.entry.rule.tool().matches(tool)
                    })?;
                let mut outcome = self.restricting_outcome(compiled);
                outcome.reason = Some(format!(
                    "{unknown} could run any command, so the rule {} could match it",
                    compiled.entry.rule.text()
                ));
                Some(outcome)
            })
    }

    fn decide_file(
        &self,
        tool: &str,
        path: Option<PathBuf>,
        read_only: bool,
        changes: bool,
    ) -> Outcome {
        let walks = matches!(tool, "grep" | "find" | "ls");
        let hits = path.as_deref().map(|path| self.path_hits(path, walks));
        let target = Target::Path(hits.as_ref());
        if let Some(outcome) = self.restricting_rule(tool, target) {
            return outcome;
        }
        if changes
            && self.mode != Mode::Yolo
            && let Some(path) = path.as_deref().filter(|path| self.protected.contains(path))
        {
            // Before allow rules: `edit(**)` must not let a model rewrite `.pi/settings.json`.
            let verdict = self.mode.table().edits_inside.max(Verdict::Ask);
            return Outcome::plain(
                verdict,
                Source::Builtin,
                format!(
                    "{tool} changes a protected path ({}): changes there ask in every mode but yolo",
                    path.display()
                ),
            );
        }
        if let Some(compiled) = self.first_match(RuleKind::Allow, tool, target) {
            return Outcome::rule(Verdict::Allow, compiled);
        }
        let table = self.mode.table();
        let (verdict, what) = if read_only {
            (table.read_only_tools, "reads")
        } else if changes {
            match path.as_deref() {
                Some(path) if self.paths.is_inside(path) => {
                    (table.edits_inside, "changes a file inside the workspace")
                }
                _ => (table.edits_outside, "changes a file outside the workspace"),
            }
        } else {
            (table.other_tools, "is not read-only")
        };
        // Joined by hand: this text is made for every call that falls to the mode, and
        // `format!` with a path's `Display` costs as much as the rest of the decision's text.
        let shown = path.as_deref().map(Path::to_string_lossy);
        let shown = shown.as_deref().unwrap_or("no path");
        let reason = [
            tool,
            " ",
            what,
            " (",
            shown,
            "); mode ",
            self.mode.as_str(),
            " gives ",
            verdict.as_str(),
        ]
        .concat();
        Outcome::plain(verdict, Source::Mode, reason)
    }

    fn decide_other(&self, tool: &str, annotations: ToolAnnotations) -> Outcome {
        if let Some(outcome) = self.restricting_rule(tool, Target::Call) {
            return outcome;
        }
        if let Some(compiled) = self.first_match(RuleKind::Allow, tool, Target::Call) {
            return Outcome::rule(Verdict::Allow, compiled);
        }
        let table = self.mode.table();
        let (verdict, what) = if annotations.is_read_only() {
            (table.read_only_tools, "says it is read-only")
        } else {
            (table.other_tools, "does not say it is read-only")
        };
        let reason = [
            tool,
            " ",
            what,
            "; mode ",
            self.mode.as_str(),
            " gives ",
            verdict.as_str(),
        ]
        .concat();
        Outcome::plain(verdict, Source::Mode, reason)
    }

    /// The rules of each list whose glob matches `path`, and those naming the same file under
    /// another name (a hard link): a rule judges the file, not the spelling.
    fn path_hits(&self, path: &Path, walks: bool) -> PathHits {
        let mut lists = self
            .path_indexes
            .each_ref()
            .map(|index| index.hits(path, walks));
        if self.file_ids.iter().any(|ids| !ids.is_empty())
            && let Some((device, inode)) = crate::policy::file_id(path)
        {
            for (hits, ids) in lists.iter_mut().zip(&self.file_ids) {
                let before = hits.len();
                hits.extend(
                    ids.iter()
                        .filter(|id| id.device == device && id.inode == inode)
                        .map(|id| id.position),
                );
                if hits.len() != before {
                    hits.sort_unstable();
                    hits.dedup();
                }
            }
        }
        PathHits { lists }
    }

    /// Whether a rule denies reading the file at `path` (resolved): the walking tools
    /// (`grep`, `find`, `ls`) leave such files out, as they would refuse to `read` them.
    /// The deny rule's text when one does.
    pub fn denies_reading(&self, path: &Path) -> Option<&str> {
        self.read_denied_by(path)
            .map(|compiled| compiled.entry.rule.text())
    }

    fn read_denied_by(&self, path: &Path) -> Option<&Compiled> {
        let hits = self.path_hits(path, false);
        self.first_match(RuleKind::Deny, "read", Target::Path(Some(&hits)))
    }

    /// The first deny rule matching, else the first ask rule.
    fn restricting_rule(&self, tool: &str, target: Target<'_>) -> Option<Outcome> {
        [RuleKind::Deny, RuleKind::Ask]
            .into_iter()
            .find_map(|list| self.first_match(list, tool, target))
            .map(|compiled| self.restricting_outcome(compiled))
    }

    /// What a matching deny or ask rule gives in this mode.
    fn restricting_outcome(&self, compiled: &Compiled) -> Outcome {
        match compiled.entry.kind {
            crate::RuleKind::Deny => Outcome::rule(Verdict::Deny, compiled),
            _ => Outcome::rule(self.mode.table().ask_rules, compiled),
        }
    }

    /// The first rule of a list that matches: the same rule a scan of the whole list finds,
    /// but only the rules its name index and path index leave are tried.
    fn first_match(&self, kind: RuleKind, tool: &str, target: Target<'_>) -> Option<&Compiled> {
        let candidates = self.candidates(kind, tool, target);
        self.first_of(kind, &candidates, tool, target)
    }

    /// The first of the `candidates` of a list that matches.
    fn first_of(
        &self,
        kind: RuleKind,
        candidates: &[usize],
        tool: &str,
        target: Target<'_>,
    ) -> Option<&Compiled> {
        let list = match kind {
            RuleKind::Deny => &self.deny,
            RuleKind::Ask => &self.ask,
            RuleKind::Allow => &self.allow,
        };
        candidates
            .iter()
            .filter_map(|position| list.get(*position))
            .find(|compiled| matches(compiled, tool, target))
    }

    /// The positions of the rules of a list that may match (from the list's name index).
    fn candidates(&self, kind: RuleKind, tool: &str, target: Target<'_>) -> Vec<usize> {
        let slot = list_slot(kind);
        let index = match kind {
            RuleKind::Deny => &self.name_indexes[0],
            RuleKind::Ask => &self.name_indexes[1],
            RuleKind::Allow => &self.name_indexes[2],
        };
        match target {
            // Path rules match only calls with a path.
            Target::Command(_) | Target::Call => index.candidates(tool, None, Some(&[])),
            Target::Path(hits) => index.candidates(
                tool,
                covering(tool),
                hits.and_then(|hits| hits.lists.get(slot))
                    .map(Vec::as_slice),
            ),
        }
    }
}

/// Where a list sits in `[deny, ask, allow]`.
fn list_slot(kind: RuleKind) -> usize {
    match kind {
        RuleKind::Deny => 0,
        RuleKind::Ask => 1,
        RuleKind::Allow => 2,
    }
}

fn matches(compiled: &Compiled, tool: &str, target: Target<'_>) -> bool {
    let rule = &compiled.entry.rule;
    match (rule.specifier(), target) {
        (Specifier::Any, _) => rule.tool().matches(tool),
        (Specifier::Command(pattern), Target::Command(command)) => {
            rule.tool().matches(tool) && pattern.matches(command)
        }
        (Specifier::Path(_), Target::Path(hits)) => {
            if !(rule.tool().matches(tool) || covers(rule.tool().as_str(), tool)) {
                return false;
            }
            match (&compiled.path, hits) {
                (Some(Ok(_)), Some(hits)) => hits.contains(compiled),
                // A glob that did not compile, or a call without a path: a rule that takes
                // permissions away still applies, one that grants them does not.
                _ => compiled.entry.kind != crate::RuleKind::Allow,
            }
        }
        _ => false,
    }
}

/// The rules of each list (deny, ask, allow) whose path glob matches a call's path.
struct PathHits {
    lists: [Vec<usize>; 3],
}

impl PathHits {
    fn contains(&self, compiled: &Compiled) -> bool {
        self.lists
            .get(list_slot(compiled.entry.kind))
            .is_some_and(|hits| hits.binary_search(&compiled.position).is_ok())
    }
}

/// Path rules on `read` also hold for the tools that read by walking (`grep`, `find`,
/// `ls`), and those on `edit` for `write`, as Claude Code's do: `read(~/.ssh/**)` in `deny`
/// must not be dodged by grepping the same directory.
fn covers(rule_tool: &str, tool: &str) -> bool {
    covering(tool) == Some(rule_tool)
}

/// The tool whose path rules also hold for `tool`, if any (see [`covers`]).
fn covering(tool: &str) -> Option<&'static str> {
    match tool {
        "grep" | "find" | "ls" => Some("read"),
        "write" => Some("edit"),
        _ => None,
    }
}

/// `git config` that may set a key (anything but reading one): it writes `.git/config`
/// without naming it.
fn writes_git_config(words: &[String]) -> bool {
    let mut rest = words.iter().map(String::as_str);
    // `git -C dir config ...` too: past git's own options.
    if rest.next() != Some("git") || !rest.any(|word| word == "config") {
        return false;
    }
    !rest.any(|word| {
        matches!(
            word,
            "--get" | "--get-all" | "--get-regexp" | "--list" | "-l" | "get" | "list"
        )
    })
}

/// Commands that read the files their arguments name (a read rule holds for them): the
/// known read-only ones, less those whose arguments are text, not files, and common readers.
fn reads_its_arguments(words: &[String]) -> bool {
    /// Read-only commands whose arguments are not files they read.
    const NOT_FILES: &[&str] = &[
        "echo", "printf", "basename", "dirname", "test", "[", "seq", "date", "which", "type", "cd",
        "pwd", "true", "false", "id", "whoami", "uname", "realpath", "readlink",
    ];
    /// Commands that print or copy a file's content, besides the read-only list.
    const READERS: &[&str] = &[
        "cp", "base64", "xxd", "od", "hexdump", "less", "more", "strings", "tac", "rev", "sort",
        "uniq", "awk", "jq", "bat", "tar", "zip", "gzip", "scp", "rsync", "source", ".",
    ];
    let Some(name) = words.first() else {
        return false;
    };
    READERS.contains(&name.as_str()) || (only_reads(words) && !NOT_FILES.contains(&name.as_str()))
}

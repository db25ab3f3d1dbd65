//! One simple command: its words, its assignments, and what the commands that run other
//! commands (wrappers, shells, `eval`, `find -exec`) really run.

use tree_sitter::Node;

use super::Unprovable;
use super::walk::{Walker, split};

/// Commands that run the rest of their words as a command and change nothing else about it:
/// the wrapped command is what is matched (when no option is given).
const TRANSPARENT: &[&str] = &["command", "exec", "nohup", "time", "nice", "builtin"];

/// Commands that run a command in a way its words do not show (another user, arguments
/// from input, repeatedly): never provable; the wrapped command is still seen by deny rules.
const OPAQUE: &[&str] = &["sudo", "doas", "xargs", "watch", "su", "chroot", "parallel"];

/// Options of the opaque wrappers that take a value (so the value is not the command).
const OPTIONS_WITH_VALUES: &[&str] = &[
    "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-n", "-P", "-L", "-I", "-d", "-E", "-s",
    "-a", "-c",
];

/// Shells whose `-c` runs a string as a command line.
const SHELLS: &[&str] = &[
    "bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "busybox",
];

/// `find` actions that run a command.
const FIND_EXEC: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];

/// `find` actions that delete or write files.
const FIND_WRITES: &[&str] = &["-delete", "-fprint", "-fprint0", "-fprintf", "-fls"];

impl Walker<'_> {
    /// A `command` node.
    pub(super) fn command(&mut self, node: Node<'_>) {
        let mut words = Vec::new();
        let mut assignments = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => {
                    assignments.push(self.text(child));
                    self.scan(child);
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    self.redirect(child);
                }
                "comment" => {}
                _ => words.push(self.word(child)),
            }
        }
        for assignment in assignments {
            self.unprovable(Unprovable::Assignment(assignment));
        }
        self.simple(words, true);
    }

    /// Judges one simple command's words; `visible` when the line runs it as written.
    fn simple(&mut self, words: Vec<String>, visible: bool) {
        let Some(name) = words.first() else {
            return;
        };
        let name = name.clone();
        let base = name.rsplit('/').next().unwrap_or(&name).to_owned();
        if base != name {
            self.unprovable(Unprovable::CommandPath(name.clone()));
            // Deny rules name commands, not paths: let them see `rm` in `/bin/rm`.
            let mut by_name = words.clone();
            if let Some(first) = by_name.first_mut() {
                first.clone_from(&base);
            }
            self.record(by_name, false);
        }
        let rest = words.get(1..).unwrap_or_default().to_vec();
        match base.as_str() {
            "env" => self.env(words, rest, visible),
            "timeout" => self.wrapper(words, rest, 1, visible),
            wrapper if TRANSPARENT.contains(&wrapper) => self.wrapper(words, rest, 0, visible),
            opaque if OPAQUE.contains(&opaque) => {
                self.unprovable(Unprovable::Wrapper(opaque.to_owned()));
                let wrapped = after_options(&rest, OPTIONS_WITH_VALUES);
                self.simple(wrapped.to_vec(), false);
                self.hide_suffixes(&rest);
                self.record(words, visible);
            }
            "eval" => {
                self.unprovable(Unprovable::Evaluates(base.clone()));
                let inner = split(&rest.join(" "), self.depth + 1);
                self.absorb(inner);
                self.record(words, visible);
            }
            "source" | "." => {
                self.unprovable(Unprovable::Evaluates(base.clone()));
                self.record(words, visible);
            }
            shell if SHELLS.contains(&shell) => {
                if let Some(script) = shell_string(&rest) {
                    self.unprovable(Unprovable::ShellString(shell.to_owned()));
                    let inner = split(script, self.depth + 1);
                    self.absorb(inner);
                }
                self.record(words, visible);
            }
            "find" => {
                self.find(&rest);
                self.record(words, visible);
            }
            _ => self.record(words, visible),
        }
    }

    /// `env [NAME=VALUE...] [command]`: with no assignment or option it is transparent.
    fn env(&mut self, words: Vec<String>, rest: Vec<String>, visible: bool) {
        let start = rest
            .iter()
            .position(|word| !word.starts_with('-') && !is_assignment(word))
            .unwrap_or(rest.len());
        let (prefix, wrapped) = rest.split_at(start);
        for word in prefix {
            if is_assignment(word) {
                self.unprovable(Unprovable::Assignment(word.clone()));
            } else {
                self.unprovable(Unprovable::Wrapper("env".to_owned()));
            }
        }
        if wrapped.is_empty() {
            // `env` alone prints the environment.
            self.record(words, visible);
        } else if prefix.is_empty() {
            self.record(words, false);
            self.simple(wrapped.to_vec(), visible);
        } else {
            self.simple(wrapped.to_vec(), false);
            self.record(words, visible);
        }
    }

    /// A wrapper that runs the rest of its words after `skip` plain arguments (`timeout 5`).
    fn wrapper(&mut self, words: Vec<String>, rest: Vec<String>, skip: usize, visible: bool) {
        let options = rest.iter().take_while(|word| word.starts_with('-')).count();
        let wrapped = rest.get(options + skip..).unwrap_or_default().to_vec();
        if wrapped.is_empty() {
            self.record(words, visible);
        } else if options == 0 {
            self.record(words, false);
            self.simple(wrapped, visible);
        } else {
            let name = words.first().cloned().unwrap_or_default();
            self.unprovable(Unprovable::Wrapper(name));
            self.simple(wrapped, false);
            self.hide_suffixes(&rest);
            self.record(words, visible);
        }
    }

    /// Where the wrapped command starts is a guess once options are involved (`nice -n 5
    /// rm x`, `sudo -u root rm x`): every tail of the words that starts with a non-option is
    /// shown to deny and ask rules. Over-matching only ever refuses or asks more, and the
    /// line already asks.
    fn hide_suffixes(&mut self, words: &[String]) {
        /// Enough for any real wrapper line; keeps a pathological one linear.
        const MAX_TAILS: usize = 32;
        let tails = (0..words.len())
            .filter(|start| words.get(*start).is_some_and(|word| !word.starts_with('-')))
            .take(MAX_TAILS);
        for start in tails {
            let tail = words.get(start..).unwrap_or_default().to_vec();
            self.record(tail, false);
        }
    }

    /// `find`'s actions that run commands or write.
    fn find(&mut self, arguments: &[String]) {
        let mut words = arguments.iter();
        while let Some(word) = words.next() {
            if FIND_EXEC.contains(&word.as_str()) {
                self.unprovable(Unprovable::FindAction(word.clone()));
                let command: Vec<String> = words
                    .by_ref()
                    .take_while(|word| !matches!(word.as_str(), ";" | "+"))
                    .cloned()
                    .collect();
                self.simple(command, false);
            } else if FIND_WRITES.contains(&word.as_str()) {
                self.unprovable(Unprovable::FindAction(word.clone()));
            }
        }
    }
}

/// `NAME=value`.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name
                .chars()
                .all(|character| character.is_ascii_alphanumeric() || character == '_')
    })
}

/// The words after a wrapper's options (and the values of those that take one).
fn after_options<'w>(words: &'w [String], with_values: &[&str]) -> &'w [String] {
    let mut index = 0;
    while let Some(word) = words.get(index) {
        if !word.starts_with('-') {
            break;
        }
        index += if with_values.contains(&word.as_str()) {
            2
        } else {
            1
        };
    }
    words.get(index..).unwrap_or_default()
}

/// The string a shell runs with `-c` (also `-lc`, `-ec`, ...), if it is given one.
fn shell_string(arguments: &[String]) -> Option<&str> {
    let flag = arguments.iter().position(|word| {
        word.strip_prefix('-')
            .is_some_and(|flags| !flags.starts_with('-') && flags.contains('c'))
    })?;
    Some(arguments.get(flag + 1).map_or("", String::as_str))
}

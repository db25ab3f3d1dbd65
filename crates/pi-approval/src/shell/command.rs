//! One simple command: its words, its assignments, and what the commands that run other
//! commands (wrappers, shells, `eval`, `find -exec`) really run.

use tree_sitter::Node;

use super::Unprovable;
use super::walk::{Walker, split};

/// Commands that run the rest of their words as a command and change nothing else about it:
/// the wrapped command is what is matched (when no option is given).
const TRANSPARENT: &[&str] = &[
    "command", "exec", "nohup", "time", "nice", "builtin", "busybox", "setsid", "stdbuf", "coproc",
    "ionice", "unbuffer",
];

/// Wrappers whose first plain argument is not the command (`timeout 5 rm`, `chrt 1 rm`,
/// `taskset 3 rm`).
const WITH_ONE_ARGUMENT: &[&str] = &["timeout", "chrt", "taskset"];

/// Commands that run a command in a way its words do not show (another user, arguments
/// from input, repeatedly, from a string): never provable; the wrapped command, every tail of
/// their words and every string among them read as a command line are seen by deny rules.
const OPAQUE: &[&str] = &[
    "sudo",
    "doas",
    "xargs",
    "watch",
    "su",
    "chroot",
    "parallel",
    "runuser",
    "unshare",
    "nsenter",
    "strace",
    "ltrace",
    "systemd-run",
    "firejail",
    "flock",
    "script",
    "trap",
    "ssh",
    "expect",
    "at",
    "batch",
];

/// Opaque wrappers that run a shell reading its input when given no command (`su`,
/// `sudo -s`, `script`): what runs then is not on the line.
const SHELL_WHEN_BARE: &[&str] = &[
    "sudo", "doas", "su", "chroot", "runuser", "unshare", "nsenter", "script", "parallel", "ssh",
    "at", "batch", "firejail",
];

/// Options of the opaque wrappers that take a value (so the value is not the command).
const OPTIONS_WITH_VALUES: &[&str] = &[
    "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-n", "-P", "-L", "-I", "-d", "-E", "-s",
    "-a", "-c",
];

/// Shells whose `-c` runs a string as a command line, and that read commands from their
/// input when given neither a string nor a script.
const SHELLS: &[&str] = &[
    "bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "rbash", "ash",
];

/// Builtins that make a name run something other than the command of that name.
const REBINDING: &[&str] = &["alias", "enable"];

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
        if is_unknown_name(&name) {
            // `$(printf rm) f`, `rm${IFS}f`, `/bin/r?`: any command at all may run.
            self.unprovable(Unprovable::UnknownCommand(name.clone()));
            self.unresolved(words.join(" "));
            self.record(words, visible);
            return;
        }
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
            // `command -v rm` only names it.
            "command"
                if rest
                    .first()
                    .is_some_and(|flag| flag == "-v" || flag == "-V") =>
            {
                self.record(words, visible);
            }
            wrapper if WITH_ONE_ARGUMENT.contains(&wrapper) => {
                self.wrapper(words, rest, 1, visible);
            }
            wrapper if TRANSPARENT.contains(&wrapper) => self.wrapper(words, rest, 0, visible),
            opaque if OPAQUE.contains(&opaque) => {
                self.unprovable(Unprovable::Wrapper(opaque.to_owned()));
                let wrapped = after_options(&rest, OPTIONS_WITH_VALUES);
                let bare = if opaque == "chroot" {
                    wrapped.len() <= 1
                } else {
                    wrapped.is_empty()
                };
                if bare && SHELL_WHEN_BARE.contains(&opaque) {
                    self.unprovable(Unprovable::UnknownCommand(words.join(" ")));
                    self.unresolved(words.join(" "));
                }
                self.simple(wrapped.to_vec(), false);
                self.hide_suffixes(&rest);
                self.split_strings(&rest);
                self.record(words, visible);
            }
            rebinding if REBINDING.contains(&rebinding) && !rest.is_empty() => {
                self.rebinds(words, visible);
            }
            "hash" if rest.iter().any(|word| word.starts_with("-p")) => {
                self.rebinds(words, visible);
            }
            "shopt" if rest.iter().any(|word| word == "expand_aliases") => {
                self.rebinds(words, visible);
            }
            "eval" => {
                self.unprovable(Unprovable::Evaluates(base.clone()));
                let inner = split(&rest.join(" "), self.depth + 1);
                self.absorb(inner);
                self.record(words, visible);
            }
            "source" | "." => {
                self.unprovable(Unprovable::Evaluates(base.clone()));
                if rest.first().is_none_or(|file| reads_input(file)) {
                    self.unresolved(words.join(" "));
                }
                self.record(words, visible);
            }
            shell if SHELLS.contains(&shell) => {
                self.shell(shell, &words, &rest);
                self.record(words, visible);
            }
            "find" => {
                self.find(&rest);
                self.record(words, visible);
            }
            _ => self.record(words, visible),
        }
    }

    /// `bash -c STRING`: the string is split as a command line; a shell given neither a
    /// string nor a script reads its commands from input (`echo rm f | bash`), and those are
    /// not on the line.
    fn shell(&mut self, shell: &str, words: &[String], rest: &[String]) {
        if let Some(script) = shell_string(rest) {
            self.unprovable(Unprovable::ShellString(shell.to_owned()));
            if script.is_empty() {
                self.unresolved(words.join(" "));
            }
            let inner = split(script, self.depth + 1);
            self.absorb(inner);
            return;
        }
        if rest
            .iter()
            .any(|word| matches!(word.as_str(), "--version" | "--help"))
        {
            return;
        }
        let reads_commands = rest
            .iter()
            .take_while(|word| word.as_str() != "--")
            .any(|word| word.starts_with('-') && !word.starts_with("--") && word.contains('s'));
        let script = rest
            .iter()
            .find(|word| !word.starts_with('-') && !word.starts_with('+'));
        if reads_commands || script.is_none_or(|script| reads_input(script)) {
            self.unprovable(Unprovable::UnknownCommand(words.join(" ")));
            self.unresolved(words.join(" "));
        }
    }

    /// `alias`, `enable`, `hash -p`, `shopt -s expand_aliases`: a name may now run anything.
    fn rebinds(&mut self, words: Vec<String>, visible: bool) {
        let name = words.first().cloned().unwrap_or_default();
        self.unprovable(Unprovable::Rebinds(name));
        self.unresolved(words.join(" "));
        self.record(words, visible);
    }

    /// Words of a wrapper that read as command lines (`trap 'rm f' EXIT`, `script -c 'rm f'`,
    /// `env -S 'rm f'`, `--split-string=rm f`): split, so deny and ask rules see what they run.
    fn split_strings(&mut self, words: &[String]) {
        /// Enough for any real wrapper line; keeps a pathological one linear.
        const MAX_STRINGS: usize = 16;
        let strings = words
            .iter()
            .map(|word| match word.split_once('=') {
                Some((option, value)) if option.starts_with('-') => value,
                _ => word.as_str(),
            })
            .filter(|text| {
                text.contains(|character: char| {
                    character.is_whitespace() || ";&|()<>`$".contains(character)
                })
            })
            .take(MAX_STRINGS)
            .map(str::to_owned)
            .collect::<Vec<_>>();
        for text in strings {
            let inner = split(&text, self.depth + 1);
            self.absorb(inner);
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
        if wrapped.is_empty() && prefix.iter().all(|word| is_assignment(word)) {
            // `env` alone prints the environment.
            self.record(words, visible);
        } else if prefix.is_empty() {
            self.record(words, false);
            self.simple(wrapped.to_vec(), visible);
        } else {
            // Options may take values (`-u HOME rm`) or carry a command line (`-S 'rm f'`):
            // every reading is shown to deny and ask rules.
            self.simple(wrapped.to_vec(), false);
            self.hide_suffixes(&rest);
            self.split_strings(prefix);
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

/// Whether a command's name is only known when the line runs: it still holds an expansion,
/// a substitution or a glob (`[` and `[[` are the test commands).
fn is_unknown_name(name: &str) -> bool {
    name != "[" && name != "[[" && name.contains(|character: char| "$`*?[{}".contains(character))
}

/// Whether a shell's or `source`'s script argument is its input or a pipe, not a file.
fn reads_input(file: &str) -> bool {
    file == "-"
        || file == "/dev/stdin"
        || file.starts_with("/dev/fd/")
        || file.starts_with("/proc/self/fd/")
        || file.starts_with("<(")
        || file.contains("$(")
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

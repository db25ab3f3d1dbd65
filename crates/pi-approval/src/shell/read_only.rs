//! Commands known to only read (Codex's idea): in the default mode they run without asking.
//! The list is short on purpose; each entry says why an argument can still make it unsafe.
//! A known command is still refused the shortcut when an argument reaches outside the
//! workspace (`/...`, `~...`, `..`): reading `~/.ssh/id_rsa` asks.

/// Commands that only read, whatever their (workspace-relative) arguments.
const ALWAYS: &[&str] = &[
    "cat",
    "ls",
    "pwd",
    "echo",
    "printf",
    "head",
    "tail",
    "wc",
    "nl",
    "which",
    "whoami",
    "true",
    "false",
    "stat",
    "file",
    "date",
    "uname",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "cut",
    "grep",
    "egrep",
    "fgrep",
    "diff",
    "cmp",
    "du",
    "df",
    "tree",
    "id",
    "type",
    "cd",
    "test",
    "seq",
    "sha256sum",
    "md5sum",
    "column",
];

/// Whether a simple command (its unquoted words) is known to only read.
///
/// ```
/// use pi_approval::shell::is_known_read_only;
///
/// let words = |line: &str| line.split(' ').map(String::from).collect::<Vec<_>>();
/// assert!(is_known_read_only(&words("git log --oneline")));
/// assert!(!is_known_read_only(&words("git diff --output=x")));
/// assert!(!is_known_read_only(&words("find . -delete")));
/// assert!(!is_known_read_only(&words("cat ~/.ssh/id_rsa")));
/// ```
pub fn is_known_read_only(words: &[String]) -> bool {
    let Some((_, arguments)) = words.split_first() else {
        return false;
    };
    !arguments.iter().any(|argument| reaches_outside(argument)) && only_reads(words)
}

/// Whether a simple command only reads, by its name and options alone: where its path
/// arguments lead is for the caller to check (the policy resolves them, following the line's
/// `cd`s and links; [`is_known_read_only`] refuses any that looks outside).
pub(crate) fn only_reads(words: &[String]) -> bool {
    let Some((name, arguments)) = words.split_first() else {
        return false;
    };
    match name.as_str() {
        // `--pre` and `--hostname-bin` run a program; `-z` runs decompressors.
        "rg" => !arguments.iter().any(|argument| {
            argument.starts_with("--pre")
                || argument.starts_with("--hostname-bin")
                || argument == "-z"
                || argument == "--search-zip"
        }),
        // Its actions run commands or write files.
        "find" => !arguments.iter().any(|argument| {
            matches!(
                argument.as_str(),
                "-exec" | "-execdir" | "-ok" | "-okdir" | "-delete" | "-fls"
            ) || argument.starts_with("-fprint")
        }),
        "git" => git_reads_only(arguments),
        // `-o FILE` writes its listing; `-R` with `-H` writes an HTML file in every directory.
        "tree" => !arguments.iter().any(|argument| {
            argument == "-R"
                || argument.starts_with("--output")
                || (argument.starts_with('-')
                    && !argument.starts_with("--")
                    && argument.contains('o'))
        }),
        // `-C` compiles a magic file, written beside it.
        "file" => !arguments.iter().any(|argument| {
            argument == "--compile"
                || (argument.starts_with('-')
                    && !argument.starts_with("--")
                    && argument.contains('C'))
        }),
        // `-s` / `--set` sets the system clock.
        "date" => !arguments.iter().any(|argument| {
            argument.starts_with("--set")
                || (argument.starts_with('-')
                    && !argument.starts_with("--")
                    && argument.contains('s'))
        }),
        // Only `sed -n 'Np'` style printing: anything else may write (`-i`, `w`).
        "sed" => sed_prints_only(arguments),
        other => ALWAYS.contains(&other),
    }
}

/// `git status/log/diff/show/...` without global options (`-c` sets config that runs
/// programs) or output files.
fn git_reads_only(arguments: &[String]) -> bool {
    let Some((subcommand, rest)) = arguments.split_first() else {
        return false;
    };
    let writes = rest
        .iter()
        .any(|argument| argument.starts_with("--output") || argument.starts_with("--ext-diff"));
    let reads = match subcommand.as_str() {
        "status" | "log" | "diff" | "show" | "blame" | "rev-parse" | "ls-files" | "describe"
        | "shortlog" => true,
        // Listing only: `git branch NAME` creates one.
        "branch" => rest.iter().all(|argument| {
            matches!(
                argument.as_str(),
                "--list" | "-a" | "--all" | "-r" | "--remotes" | "-v" | "-vv" | "--show-current"
            )
        }),
        _ => false,
    };
    reads && !writes
}

/// `sed -n 'Np'` or `sed -n 'N,Mp'`, optionally with files.
fn sed_prints_only(arguments: &[String]) -> bool {
    let (Some(flag), Some(script)) = (arguments.first(), arguments.get(1)) else {
        return false;
    };
    let Some(range) = script.strip_suffix('p') else {
        return false;
    };
    flag == "-n"
        && !range.is_empty()
        && range
            .split(',')
            .all(|number| !number.is_empty() && number.bytes().all(|byte| byte.is_ascii_digit()))
        && arguments
            .get(2..)
            .unwrap_or_default()
            .iter()
            .all(|file| !file.starts_with('-'))
}

/// An argument naming something outside the workspace: absolute, under home, or up.
fn reaches_outside(argument: &str) -> bool {
    let value = argument
        .split_once('=')
        .map_or(argument, |(_, value)| value);
    value.starts_with('/') || value.starts_with('~') || value.split('/').any(|part| part == "..")
}

//! Secrets given as flags (`--api-key KEY`, `--token TOKEN`) moved off the command line before
//! anything runs.
//!
//! Any process may read another's command line (`/proc/PID/cmdline`), a Landlock-sandboxed
//! `bash` included: a model asked `tr '\0' ' ' < /proc/$PPID/cmdline` and read the API key. Its
//! environment is another matter: reading it takes the right to trace the process, which
//! neither sandbox grants (Landlock refuses it across its domain, and the shell has none of the
//! capabilities pi-tool may hold). So this program re-executes itself at once with each such
//! flag's value moved into the variable the flag also reads (`PI_TOOL_API_KEY`,
//! `PI_TOOL_TOKEN`), which the tools never get (see `pi_tool::environment`).

use std::ffi::{OsStr, OsString};

/// Each flag that carries a secret, and the variable it is moved into (the flag reads it too).
const MOVED: [(&str, &str); 2] = [
    ("--api-key", "PI_TOOL_API_KEY"),
    ("--token", "PI_TOOL_TOKEN"),
];

/// Variables and the values moved into them.
type Moved = Vec<(&'static str, OsString)>;

/// The arguments without their secret flags, and the variables that now carry the values;
/// `None` when no secret flag is given. Scanning stops at `--`: what follows is another
/// program's (an MCP server's command).
pub(crate) fn split(arguments: &[OsString]) -> Option<(Vec<OsString>, Moved)> {
    let mut kept = Vec::with_capacity(arguments.len());
    let mut moved = Vec::new();
    let mut rest = arguments.iter();
    while let Some(argument) = rest.next() {
        if argument == "--" {
            kept.push(argument.clone());
            kept.extend(rest.by_ref().cloned());
            break;
        }
        let Some(text) = argument.to_str() else {
            kept.push(argument.clone());
            continue;
        };
        let found = MOVED.iter().find_map(|(flag, variable)| {
            if text == *flag {
                Some((*variable, None))
            } else {
                let value = text.strip_prefix(flag)?.strip_prefix('=')?;
                Some((*variable, Some(OsString::from(value))))
            }
        });
        match found {
            Some((variable, Some(value))) => moved.push((variable, value)),
            // A flag without its value is left for the parser to refuse.
            Some((variable, None)) => match rest.clone().next() {
                Some(value) if value != "--" => {
                    moved.push((variable, value.clone()));
                    rest.next();
                }
                _ => kept.push(argument.clone()),
            },
            None => kept.push(argument.clone()),
        }
    }
    (!moved.is_empty()).then_some((kept, moved))
}

/// Re-executes this program with its secret flags moved into the environment when it was
/// given any; returns only when there were none (`None`) or the new program could not be
/// started (why: the run goes on with the flags where they are).
#[cfg(target_os = "linux")]
pub(crate) fn hide() -> Option<std::io::Error> {
    use std::os::unix::process::CommandExt;
    let arguments: Vec<OsString> = std::env::args_os().collect();
    let (program, rest) = arguments.split_first()?;
    let (kept, moved) = split(rest)?;
    // This very binary, even if its file was replaced or removed since it started.
    let error = std::process::Command::new("/proc/self/exe")
        .arg0(program)
        .args(kept)
        .envs(moved.iter().map(|(name, value)| (OsStr::new(name), value)))
        .exec();
    Some(error)
}

/// Elsewhere nothing is moved: the sandbox, and `/proc`, are Linux only.
#[cfg(not(target_os = "linux"))]
pub(crate) fn hide() -> Option<std::io::Error> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<OsString> {
        text.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn both_spellings_are_moved_and_nothing_after_the_separator() {
        let (kept, moved) = split(&words(
            "agent --api-key sk-1 go --token=t-2 -- server --api-key not-ours",
        ))
        .unwrap_or_else(|| panic!("nothing moved"));
        assert_eq!(kept, words("agent go -- server --api-key not-ours"));
        assert_eq!(
            moved,
            [
                ("PI_TOOL_API_KEY", OsString::from("sk-1")),
                ("PI_TOOL_TOKEN", OsString::from("t-2"))
            ]
        );
    }

    #[test]
    fn nothing_to_move_leaves_the_arguments_alone() {
        assert_eq!(split(&words("agent --faux s.json go")), None);
        assert_eq!(
            split(&words("agent --api-key")),
            None,
            "no value: clap says so"
        );
        assert_eq!(split(&words("agent --api-key -- x")), None);
        assert_eq!(split(&words("agent --api-keys x")), None);
    }
}

//! Pi's rule for the values of `apiKey`, `headers` (models.json) and `key` (auth.json):
//!
//! - `!command` (the first character) runs the rest through `sh -c`; its standard output,
//!   trimmed, is the value. It gets 10 seconds, no standard input, and this process's
//!   environment: the command is the user's own (`op read ...`, `security ...`) and may need
//!   their credentials, unlike the commands a model asks for (see `pi_tool::environment`).
//! - `$NAME` and `${NAME}` are replaced by the variable's value anywhere in the text; a name is
//!   `[A-Za-z_][A-Za-z0-9_]*`, so `$FOO_BAR` is `FOO_BAR` (write `${FOO}_BAR`). An unset or
//!   empty variable leaves the whole value unresolved.
//! - `$$` is a literal `$`, `$!` a literal `!`; a `$` followed by nothing of that is literal.
//! - Anything else is literal: `MY_API_KEY` is the text, not the variable.

use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::secret::Secret;
use crate::variables::Variables;

/// How long a `!command` may run.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a configuration value has no value. Never holds the value or the command's output.
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    /// Variables it names are unset or empty.
    #[error("environment variable{} {} {} not set", plural(.0), .0.join(", "), verb(.0))]
    MissingVariables(Vec<String>),
    /// The command could not be started.
    #[error("its command could not be started")]
    CommandNotStarted(#[source] std::io::Error),
    /// The command ended with a failure.
    #[error("its command failed ({})", exit_text(*.0))]
    CommandFailed(Option<i32>),
    /// The command ran longer than [`COMMAND_TIMEOUT`] and was stopped.
    #[error("its command did not finish within {} seconds", COMMAND_TIMEOUT.as_secs())]
    CommandTimedOut,
    /// The command printed nothing.
    #[error("its command printed nothing")]
    CommandPrintedNothing,
}

fn plural(names: &[String]) -> &'static str {
    if names.len() == 1 { "" } else { "s" }
}

fn verb(names: &[String]) -> &'static str {
    if names.len() == 1 { "is" } else { "are" }
}

fn exit_text(code: Option<i32>) -> String {
    match code {
        Some(code) => format!("exit status {code}"),
        None => "killed by a signal".to_owned(),
    }
}

/// One piece of a value that is not a command.
#[derive(Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable(String),
}

/// Whether `value` is a `!command`.
pub fn is_command(value: &str) -> bool {
    value.starts_with('!')
}

/// The variables `value` names, in order, without repeats (none for a command).
pub fn variable_names(value: &str) -> Vec<String> {
    if is_command(value) {
        return Vec::new();
    }
    let mut names: Vec<String> = Vec::new();
    for part in parse_template(value) {
        if let Part::Variable(name) = part
            && !names.contains(&name)
        {
            names.push(name);
        }
    }
    names
}

/// Whether `value` can be resolved without running anything: every variable it names is set
/// (a command counts as configured, as in Pi, which never runs one just to list models).
pub fn is_configured(value: &str, vars: &Variables, overlay: &BTreeMap<String, Secret>) -> bool {
    variable_names(value)
        .iter()
        .all(|name| lookup(name, vars, overlay).is_some())
}

/// The value of `value` by Pi's rule; `overlay` (a credential's own `env` in auth.json) is
/// looked up before `vars`.
pub fn resolve(
    value: &str,
    vars: &Variables,
    overlay: &BTreeMap<String, Secret>,
) -> Result<Secret, ValueError> {
    if let Some(command) = value.strip_prefix('!') {
        return run_command(command, vars).map(Secret::new);
    }
    let mut resolved = String::new();
    let mut missing = Vec::new();
    for part in parse_template(value) {
        match part {
            Part::Literal(text) => resolved.push_str(&text),
            Part::Variable(name) => match lookup(&name, vars, overlay) {
                Some(found) => resolved.push_str(&found),
                None if !missing.contains(&name) => missing.push(name),
                None => {}
            },
        }
    }
    if missing.is_empty() {
        Ok(Secret::new(resolved))
    } else {
        Err(ValueError::MissingVariables(missing))
    }
}

fn lookup(name: &str, vars: &Variables, overlay: &BTreeMap<String, Secret>) -> Option<String> {
    overlay
        .get(name)
        .filter(|value| !value.is_empty())
        .map(|value| value.expose().to_owned())
        .or_else(|| vars.get(name))
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn push_literal(parts: &mut Vec<Part>, text: &str) {
    if text.is_empty() {
        return;
    }
    if let Some(Part::Literal(last)) = parts.last_mut() {
        last.push_str(text);
    } else {
        parts.push(Part::Literal(text.to_owned()));
    }
}

fn parse_template(value: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut rest = value;
    while let Some((before, after)) = rest.split_once('$') {
        push_literal(&mut parts, before);
        if let Some(tail) = after.strip_prefix('$') {
            push_literal(&mut parts, "$");
            rest = tail;
        } else if let Some(tail) = after.strip_prefix('!') {
            push_literal(&mut parts, "!");
            rest = tail;
        } else if let Some(braced) = after.strip_prefix('{') {
            match braced.split_once('}') {
                Some((name, tail)) => {
                    if is_name(name) {
                        parts.push(Part::Variable(name.to_owned()));
                    } else {
                        push_literal(&mut parts, &format!("${{{name}}}"));
                    }
                    rest = tail;
                }
                // No closing brace: the `$` is literal and the rest is read on.
                None => {
                    push_literal(&mut parts, "$");
                    rest = after;
                }
            }
        } else {
            let end = after
                .find(|c: char| !is_name_char(c))
                .unwrap_or(after.len());
            let (name, tail) = after.split_at(end);
            if is_name(name) {
                parts.push(Part::Variable(name.to_owned()));
                rest = tail;
            } else {
                push_literal(&mut parts, "$");
                rest = after;
            }
        }
    }
    push_literal(&mut parts, rest);
    parts
}

fn is_name(text: &str) -> bool {
    text.chars().next().is_some_and(is_name_start) && text.chars().all(is_name_char)
}

fn run_command(command: &str, vars: &Variables) -> Result<String, ValueError> {
    let mut shell = Command::new("sh");
    shell
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(fixed) = vars.fixed_vars() {
        shell.env_clear().envs(fixed);
    }
    let mut child = shell.spawn().map_err(ValueError::CommandNotStarted)?;
    // Read on a thread so that a command printing more than a pipe holds cannot stall.
    let reader = child.stdout.take().map(|mut stdout| {
        std::thread::spawn(move || {
            let mut output = Vec::new();
            let _ = stdout.read_to_end(&mut output);
            output
        })
    });
    let deadline = Instant::now() + COMMAND_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ValueError::CommandTimedOut);
            }
            Err(error) => return Err(ValueError::CommandNotStarted(error)),
        }
    };
    let output = reader
        .and_then(|reader| reader.join().ok())
        .unwrap_or_default();
    if !status.success() {
        return Err(ValueError::CommandFailed(status.code()));
    }
    let text = String::from_utf8_lossy(&output).trim().to_owned();
    if text.is_empty() {
        return Err(ValueError::CommandPrintedNothing);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Variables {
        Variables::fixed([
            ("KEY", "sk-env"),
            ("PREFIX", "a"),
            ("SUFFIX", "b"),
            ("FOO", "foo"),
        ])
    }

    fn value(text: &str) -> Result<String, ValueError> {
        resolve(text, &vars(), &BTreeMap::new()).map(|secret| secret.expose().to_owned())
    }

    #[test]
    fn literals_variables_and_escapes_resolve_as_pi_does() {
        assert_eq!(value("sk-literal").unwrap(), "sk-literal");
        assert_eq!(value("KEY").unwrap(), "KEY");
        assert_eq!(value("$KEY").unwrap(), "sk-env");
        assert_eq!(value("${KEY}").unwrap(), "sk-env");
        assert_eq!(value("${PREFIX}_${SUFFIX}").unwrap(), "a_b");
        assert_eq!(value("${FOO}_BAR").unwrap(), "foo_BAR");
        assert_eq!(value("Bearer $KEY!").unwrap(), "Bearer sk-env!");
        assert_eq!(value("$$literal").unwrap(), "$literal");
        assert_eq!(value("$!literal").unwrap(), "!literal");
        assert_eq!(
            value("cost $5 ${not valid} ${open").unwrap(),
            "cost $5 ${not valid} ${open"
        );
        assert_eq!(value("end$").unwrap(), "end$");
    }

    #[test]
    fn a_missing_variable_is_named_and_the_value_is_not() {
        let error = value("$FOO_BAR-${NOPE}-$KEY").unwrap_err();
        let text = error.to_string();
        assert_eq!(text, "environment variables FOO_BAR, NOPE are not set");
        assert!(!text.contains("sk-env"));
        assert_eq!(
            variable_names("$FOO_BAR-${NOPE}-$FOO_BAR"),
            ["FOO_BAR", "NOPE"]
        );
        assert!(!is_configured("$FOO_BAR", &vars(), &BTreeMap::new()));
        assert!(is_configured("!anything", &vars(), &BTreeMap::new()));
    }

    #[test]
    fn the_overlay_wins_over_the_environment() {
        let overlay = BTreeMap::from([("KEY".to_owned(), Secret::new("sk-overlay"))]);
        let resolved = resolve("$KEY", &vars(), &overlay).unwrap();
        assert_eq!(resolved.expose(), "sk-overlay");
    }

    #[test]
    fn a_command_prints_the_value_and_its_failures_are_typed() {
        assert_eq!(value("!printf '  sk-cmd\\n'").unwrap(), "sk-cmd");
        assert_eq!(value("!echo $KEY").unwrap(), "sk-env");
        assert!(matches!(
            value("!exit 3"),
            Err(ValueError::CommandFailed(Some(3)))
        ));
        assert!(matches!(
            value("!true"),
            Err(ValueError::CommandPrintedNothing)
        ));
    }
}

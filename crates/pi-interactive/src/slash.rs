//! The slash commands of the interactive mode, Pi's where they apply, read from what the
//! person typed, and their completion (built-in commands, then skills as `/skill:NAME` and
//! prompt templates as `/NAME`, which the session expands when the message is sent).

use pi_coding_agent::PromptCommands;

/// A command of the interactive mode, with its argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Slash {
    /// `/model [pattern]`: pick a model, or switch to the one matching.
    Model(Option<String>),
    /// `/scoped-models`: the models Ctrl+P cycles through.
    ScopedModels,
    /// `/new`: a new session.
    New,
    /// `/name NAME`: name the session.
    Name(String),
    /// `/session`: the session's file, id, messages, tokens and cost.
    Session,
    /// `/compact [focus]`: compact now.
    Compact(Option<String>),
    /// `/fork`: a new session from an earlier message of this one.
    Fork,
    /// `/tree`: go to another message of this session's tree (a new branch from there).
    Tree,
    /// `/clone`: a copy of this session.
    Clone,
    /// `/resume`: another session of this project.
    Resume,
    /// `/import FILE`: a session file copied into this project's sessions and continued.
    Import(String),
    /// `/hotkeys`: the keys.
    Hotkeys,
    /// `/copy`: the last answer to the clipboard.
    Copy,
    /// `/export [FILE]`: the session as an HTML page, or a copy of its file (`.jsonl`).
    Export(Option<String>),
    /// `/settings`: thinking level, automatic compaction, queue modes.
    Settings,
    /// `/reload`: keys, settings, skills, prompt templates and context files read again.
    Reload,
    /// `/quit`: exit.
    Quit,
}

/// The built-in commands and what they do, as completion lists them.
pub(crate) const COMMANDS: [(&str, &str); 17] = [
    ("model", "choose the model"),
    (
        "scoped-models",
        "choose the models Ctrl+P cycles through (saved with its last item)",
    ),
    ("new", "start a new session"),
    ("name", "name this session"),
    (
        "session",
        "show the session's file, messages, tokens and cost",
    ),
    ("compact", "compact the conversation now (optional focus)"),
    ("fork", "a new session from an earlier message"),
    (
        "tree",
        "go to another message of this session (branch from there)",
    ),
    ("clone", "continue in a copy of this session"),
    ("resume", "continue another session"),
    (
        "import",
        "continue a session file from elsewhere (copied into this project's sessions)",
    ),
    ("copy", "copy the last answer to the clipboard (OSC 52)"),
    (
        "export",
        "write the session as an HTML page (or a .jsonl copy)",
    ),
    ("hotkeys", "show the keys"),
    (
        "settings",
        "thinking level, auto-compaction, steering and follow-up modes",
    ),
    (
        "reload",
        "read keybindings, settings, skills, prompt templates and context files again",
    ),
    ("quit", "exit"),
];

/// The built-in command `text` names, if it is one; `Err` for a known command used wrongly.
/// Anything else (a skill, a template, an unknown `/word`, a path) is `Ok(None)`: sent as a
/// message.
pub(crate) fn parse(text: &str) -> Result<Option<Slash>, String> {
    let Some(rest) = text.trim().strip_prefix('/') else {
        return Ok(None);
    };
    let (name, argument) = match rest.split_once(char::is_whitespace) {
        Some((name, argument)) => (name, argument.trim()),
        None => (rest, ""),
    };
    let argument = (!argument.is_empty()).then(|| argument.to_owned());
    Ok(Some(match name {
        "model" => Slash::Model(argument),
        "scoped-models" => Slash::ScopedModels,
        "new" => Slash::New,
        "name" => Slash::Name(argument.ok_or("/name needs a name: /name my-refactor")?),
        "session" => Slash::Session,
        "compact" => Slash::Compact(argument),
        "fork" => Slash::Fork,
        "tree" => Slash::Tree,
        "clone" => Slash::Clone,
        "resume" => Slash::Resume,
        "import" => {
            Slash::Import(argument.ok_or("/import needs a file: /import path/to/session.jsonl")?)
        }
        "hotkeys" => Slash::Hotkeys,
        "reload" => Slash::Reload,
        "settings" => Slash::Settings,
        "copy" => Slash::Copy,
        "export" => Slash::Export(argument),
        "quit" | "exit" => Slash::Quit,
        _ => return Ok(None),
    }))
}

/// The completions of `text` when it is a command being typed (`/` and a word, no space
/// yet): each with what it does, built-in commands first.
pub(crate) fn completions(text: &str, commands: &PromptCommands) -> Vec<(String, String)> {
    let Some(typed) = text.strip_prefix('/') else {
        return Vec::new();
    };
    if typed.contains(char::is_whitespace) {
        return Vec::new();
    }
    let builtin = COMMANDS
        .iter()
        .map(|(name, about)| ((*name).to_owned(), (*about).to_owned()));
    let skills = commands
        .skills
        .iter()
        .map(|skill| (format!("skill:{}", skill.name), skill.description.clone()));
    let templates = commands
        .templates
        .iter()
        .map(|template| (template.name.clone(), template.description.clone()));
    builtin
        .chain(skills)
        .chain(templates)
        .filter(|(name, _)| name.starts_with(typed))
        .collect()
}

/// What `/hotkeys` lists after the keys (`keybindings.json` does not bind these).
pub(crate) const TYPED_KEYS: &str = "\
@                        complete a file of the workspace
!cmd                     run a shell command; the model reads its output (!!cmd: it does not)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_their_arguments() {
        assert_eq!(
            parse("/model sonnet"),
            Ok(Some(Slash::Model(Some("sonnet".into()))))
        );
        assert_eq!(
            parse("/compact  keep the API  "),
            Ok(Some(Slash::Compact(Some("keep the API".into()))))
        );
        assert_eq!(parse("/new"), Ok(Some(Slash::New)));
        assert_eq!(parse("/scoped-models"), Ok(Some(Slash::ScopedModels)));
        assert!(parse("/name").is_err());
        assert!(parse("/import").is_err());
        assert_eq!(
            parse("/import ~/s.jsonl"),
            Ok(Some(Slash::Import("~/s.jsonl".into())))
        );
        assert_eq!(parse("/skill:review this"), Ok(None));
        assert_eq!(parse("hello /new"), Ok(None));
    }

    #[test]
    fn completion_lists_matching_commands() {
        let commands = PromptCommands::default();
        let names: Vec<String> = completions("/n", &commands)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["new", "name"]);
        assert!(completions("/new x", &commands).is_empty());
        assert_eq!(completions("/", &commands).len(), COMMANDS.len());
    }
}

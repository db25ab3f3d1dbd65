//! Prompt templates: Markdown files whose text a message `/NAME args` stands for, with the
//! arguments put in as Pi's `prompt-templates.md` says (`$1`, `$@`, `$ARGUMENTS`, `${@:N}`,
//! `${@:N:L}`, `${N:-default}`).

use std::path::{Path, PathBuf};

use crate::frontmatter::{Document, is_js_space, js_trim};
use crate::warning::PromptWarning;

/// The most characters of a template's first line used as its description when it has none.
const DESCRIPTION_FROM_LINE_CHARS: usize = 60;

/// A prompt template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptTemplate {
    /// Its name: the file's name without `.md` (`/NAME`).
    pub name: String,
    /// What it is for: `description` in the front matter, else the start of its first line.
    pub description: String,
    /// `argument-hint` in the front matter, if any.
    pub argument_hint: Option<String>,
    /// The text a command expands to, before its arguments are put in.
    pub content: String,
    /// The file.
    pub path: PathBuf,
}

/// Reads the template in `path`; one that cannot be read or whose front matter is not YAML
/// is skipped with a warning.
pub(crate) fn load_template(
    path: &Path,
    warnings: &mut Vec<PromptWarning>,
) -> Option<PromptTemplate> {
    let parsed = std::fs::read(path)
        .map_err(|error| error.to_string())
        .and_then(|bytes| {
            Document::parse(&String::from_utf8_lossy(&bytes)).map_err(|error| error.to_string())
        });
    let document = match parsed {
        Ok(document) => document,
        Err(problem) => {
            warnings.push(PromptWarning::InvalidTemplate {
                path: path.to_path_buf(),
                problem,
            });
            return None;
        }
    };
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = file_name
        .strip_suffix(".md")
        .unwrap_or(&file_name)
        .to_owned();
    let description = match document.text("description") {
        Some(text) if !text.is_empty() => text.to_owned(),
        _ => document
            .body
            .split('\n')
            .find(|line| !js_trim(line).is_empty())
            .map(|line| {
                let mut start: String = line.chars().take(DESCRIPTION_FROM_LINE_CHARS).collect();
                if line.chars().count() > DESCRIPTION_FROM_LINE_CHARS {
                    start.push_str("...");
                }
                start
            })
            .unwrap_or_default(),
    };
    Some(PromptTemplate {
        name,
        description,
        argument_hint: document
            .text("argument-hint")
            .filter(|hint| !hint.is_empty())
            .map(str::to_owned),
        content: document.body,
        path: path.to_path_buf(),
    })
}

/// The arguments of a command, split at white space outside quotes (`'...'` or `"..."`,
/// which are dropped), as Pi splits them.
pub fn parse_command_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quote = None;
    for c in text.chars() {
        match quote {
            Some(open) if c == open => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => quote = Some(c),
            None if is_js_space(c) => {
                if !current.is_empty() {
                    args.push(std::mem::take(&mut current));
                }
            }
            None => current.push(c),
        }
    }
    if !current.is_empty() {
        args.push(current);
    }
    args
}

/// `content` with its placeholders replaced by `args`, left to right in one pass (an
/// argument's own `$1` stays as it is): `$N` (empty past the last), `$@` and `$ARGUMENTS`
/// (all, joined by spaces), `${N:-default}` (the default when the argument is missing or
/// empty), `${@:N}` (from the Nth on) and `${@:N:L}` (L of them from the Nth).
pub fn substitute_args(content: &str, args: &[String]) -> String {
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(at) = rest.find('$') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let from_dollar = rest.get(at..).unwrap_or_default();
        match placeholder(from_dollar, args) {
            Some((value, used)) => {
                out.push_str(&value);
                rest = from_dollar.get(used..).unwrap_or_default();
            }
            None => {
                out.push('$');
                rest = from_dollar.get(1..).unwrap_or_default();
            }
        }
    }
    out.push_str(rest);
    out
}

/// The value of the placeholder `text` starts with (at its `$`) and its length in bytes.
fn placeholder(text: &str, args: &[String]) -> Option<(String, usize)> {
    let after = text.get(1..)?;
    if let Some(inner) = after.strip_prefix('{') {
        let close = inner.find('}')?;
        let body = inner.get(..close)?;
        let used = close + 3;
        if let Some(slice) = body.strip_prefix("@:") {
            let (start, length) = match slice.split_once(':') {
                Some((start, length)) => (start, Some(digits(length)?)),
                None => (slice, None),
            };
            let start = digits(start)?.saturating_sub(1);
            let from = args.get(start..).unwrap_or_default();
            let taken = match length {
                Some(length) => from.get(..length.min(from.len())).unwrap_or_default(),
                None => from,
            };
            return Some((taken.join(" "), used));
        }
        let (number, default) = body.split_once(":-")?;
        let index = digits(number)?;
        let value = index
            .checked_sub(1)
            .and_then(|index| args.get(index))
            .filter(|value| !value.is_empty())
            .map_or(default, String::as_str);
        return Some((value.to_owned(), used));
    }
    if after.starts_with("ARGUMENTS") {
        return Some((args.join(" "), 1 + "ARGUMENTS".len()));
    }
    if after.starts_with('@') {
        return Some((args.join(" "), 2));
    }
    let count = after.bytes().take_while(u8::is_ascii_digit).count();
    let number = after.get(..count).filter(|number| !number.is_empty())?;
    let value = number
        .parse::<usize>()
        .ok()
        .and_then(|index| index.checked_sub(1))
        .and_then(|index| args.get(index))
        .cloned()
        .unwrap_or_default();
    Some((value, 1 + count))
}

/// `text` as a number when it is all ASCII digits (at least one); a number too big for
/// memory reads as the largest, which is past any argument.
fn digits(text: &str) -> Option<usize> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().unwrap_or(usize::MAX))
}

/// A message `/NAME args` with the template `NAME` in its place, arguments put in. `None`
/// when `text` is not such a command or no template has that name.
pub(crate) fn expand_template(text: &str, templates: &[PromptTemplate]) -> Option<String> {
    let command = text.strip_prefix('/')?;
    let end = command.find(is_js_space).unwrap_or(command.len());
    let name = command.get(..end).filter(|name| !name.is_empty())?;
    let rest = command.get(end..).unwrap_or_default();
    let args = rest.trim_start_matches(is_js_space);
    let template = templates.iter().find(|template| template.name == name)?;
    Some(substitute_args(
        &template.content,
        &parse_command_args(args),
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn quoted_arguments_stay_whole() {
        assert_eq!(
            parse_command_args(r#"src "two words" 'it"s'  x"#),
            ["src", "two words", "it\"s", "x"]
        );
        assert!(parse_command_args("  ").is_empty());
        assert_eq!(parse_command_args(r#"a""b"#), ["ab"]);
    }

    #[test]
    fn every_placeholder_form() {
        let list = args(&["a", "", "c", "d"]);
        let cases = [
            ("$1-$2-$3", "a--c"),
            ("$5|$0|$10", "||"),
            ("$@ / $ARGUMENTS", "a  c d / a  c d"),
            ("${2:-dflt} ${1:-x} ${9:-none}", "dflt a none"),
            ("${@:2}|${@:0}|${@:3:1}|${@:9}|${@:2:0}", " c d|a  c d|c||"),
            (
                "$ $x ${} ${1} ${@} $$1 ${@:x}",
                "$ $x ${} ${1} ${@} $a ${@:x}",
            ),
            ("price: $1 USD", "price: a USD"),
        ];
        for (template, expected) in cases {
            assert_eq!(substitute_args(template, &list), expected, "{template}");
        }
        // An argument's own placeholders are not replaced again.
        assert_eq!(substitute_args("$1 $2", &args(&["$2", "x"])), "$2 x");
    }

    #[test]
    fn a_command_expands_only_with_a_known_name() {
        let template = PromptTemplate {
            name: "review".to_owned(),
            description: String::new(),
            argument_hint: None,
            content: "Review $1 (all: $@)".to_owned(),
            path: PathBuf::from("/p/review.md"),
        };
        let templates = [template];
        assert_eq!(
            expand_template("/review src\n\"a b\"", &templates).as_deref(),
            Some("Review src (all: src a b)")
        );
        assert_eq!(
            expand_template("/review", &templates).as_deref(),
            Some("Review  (all: )")
        );
        assert_eq!(expand_template("/other x", &templates), None);
        assert_eq!(expand_template("/ review", &templates), None);
        assert_eq!(expand_template("review", &templates), None);
    }

    #[test]
    fn description_from_front_matter_or_the_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let with = dir.path().join("with.md");
        std::fs::write(
            &with,
            "---\ndescription: Review code\nargument-hint: <path>\n---\nBody $1\n",
        )
        .unwrap();
        let without = dir.path().join("without.md");
        std::fs::write(&without, format!("\n\n{}\nmore", "x".repeat(70))).unwrap();
        let mut warnings = Vec::new();
        let with = load_template(&with, &mut warnings).unwrap();
        assert_eq!(
            (with.name.as_str(), with.description.as_str()),
            ("with", "Review code")
        );
        assert_eq!(with.argument_hint.as_deref(), Some("<path>"));
        assert_eq!(with.content, "Body $1");
        let without = load_template(&without, &mut warnings).unwrap();
        assert_eq!(without.description, format!("{}...", "x".repeat(60)));
        assert!(warnings.is_empty());
    }
}

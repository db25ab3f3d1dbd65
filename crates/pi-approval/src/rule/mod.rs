//! Rules as a person writes them (`bash(git log:*)`, `edit(src/**)`, `mcp_github_*`): their
//! syntax, their parse errors, and what each kind of specifier matches.

mod command_pattern;
mod name_pattern;
mod parse;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use command_pattern::CommandPattern;
pub use name_pattern::NamePattern;
pub use parse::{RuleError, RuleErrorKind};

use crate::tool_kind::ToolKind;

/// Which list a rule is in: what a call it matches gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleKind {
    /// Run without asking.
    Allow,
    /// Ask a person first.
    Ask,
    /// Never run.
    Deny,
}

impl RuleKind {
    /// The settings key of the list (`allow`, `ask`, `deny`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

/// One parsed rule: `Tool` or `Tool(specifier)`.
///
/// ```
/// use pi_approval::Rule;
///
/// let rule: Rule = "bash(git log:*)".parse().unwrap();
/// assert_eq!(rule.to_string(), "bash(git log:*)");
/// let error = "bash(git log".parse::<Rule>().unwrap_err();
/// assert_eq!(error.to_string(), r#"rule "bash(git log" at column 5: `(` is not closed by a `)` ending the rule"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The rule as written (what decisions name).
    text: String,
    /// The tool name pattern.
    tool: NamePattern,
    /// What the specifier says, by the kind of tool it is for.
    specifier: Specifier,
}

/// What a rule's specifier matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Specifier {
    /// No specifier: every call of the tool.
    Any,
    /// `bash(...)`: the simple commands of a command line.
    Command(CommandPattern),
    /// A file tool's path glob, as written (resolved against a workspace when a policy is
    /// built, see [`Policy`](crate::Policy)).
    Path(String),
}

impl Rule {
    /// The rule as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The pattern tool names are matched against.
    pub fn tool(&self) -> &NamePattern {
        &self.tool
    }

    /// The specifier.
    pub fn specifier(&self) -> &Specifier {
        &self.specifier
    }

    /// Whether it names a whole tool with no specifier (in `deny`, such a rule hides the tool
    /// from the model).
    pub fn is_bare(&self) -> bool {
        matches!(self.specifier, Specifier::Any)
    }
}

impl std::str::FromStr for Rule {
    type Err = RuleError;

    fn from_str(text: &str) -> Result<Self, RuleError> {
        let (tool, specifier) = parse::split(text)?;
        let tool_pattern = NamePattern::new(tool);
        let specifier = match specifier {
            None => Specifier::Any,
            Some((column, spec)) => match ToolKind::of_rule_name(tool) {
                Some(ToolKind::Shell) => Specifier::Command(
                    CommandPattern::parse(spec)
                        .map_err(|(offset, kind)| RuleError::new(text, column + offset, kind))?,
                ),
                Some(ToolKind::File { .. }) => {
                    parse::check_path_glob(spec)
                        .map_err(|kind| RuleError::new(text, column, kind))?;
                    Specifier::Path(spec.to_owned())
                }
                _ => {
                    return Err(RuleError::new(
                        text,
                        column.saturating_sub(1),
                        RuleErrorKind::NoSpecifierFor(tool.to_owned()),
                    ));
                }
            },
        };
        Ok(Self {
            text: text.to_owned(),
            tool: tool_pattern,
            specifier,
        })
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Rule {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

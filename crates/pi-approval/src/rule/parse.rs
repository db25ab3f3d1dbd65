//! The rule syntax, `Tool` or `Tool(specifier)`, with errors that name the rule and the
//! column where it goes wrong, so a person can fix a settings file without guessing.

use std::fmt;

/// A rule that could not be read: the rule as written, the 1-based column (in characters)
/// where the problem is, and what it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rule {rule:?} at column {column}: {kind}")]
pub struct RuleError {
    /// The rule as written.
    pub rule: String,
    /// Where the problem is, counted in characters from 1.
    pub column: usize,
    /// What the problem is.
    pub kind: RuleErrorKind,
}

impl RuleError {
    /// An error at a 0-based byte offset of `rule` (turned into a character column).
    pub(crate) fn new(rule: &str, offset: usize, kind: RuleErrorKind) -> Self {
        let column = rule
            .get(..offset)
            .map_or(rule.chars().count(), |before| before.chars().count())
            + 1;
        Self {
            rule: rule.to_owned(),
            column,
            kind,
        }
    }
}

/// What is wrong with a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleErrorKind {
    /// Nothing was written.
    Empty,
    /// The rule does not start with a tool name.
    MissingTool,
    /// A character no tool name has.
    BadToolCharacter(char),
    /// `(` without a `)` as the rule's last character.
    Unclosed,
    /// `Tool()`.
    EmptySpecifier,
    /// A specifier for a tool that takes none.
    NoSpecifierFor(String),
    /// `:*` somewhere other than at the end.
    PrefixNotAtEnd,
    /// A path glob that does not compile.
    BadGlob(String),
}

impl fmt::Display for RuleErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("a rule cannot be empty"),
            Self::MissingTool => f.write_str("a rule starts with a tool name"),
            Self::BadToolCharacter(character) => write!(
                f,
                "{character:?} cannot be in a tool name (letters, digits, `_`, `-`, `.`, `:` and `*` can)"
            ),
            Self::Unclosed => f.write_str("`(` is not closed by a `)` ending the rule"),
            Self::EmptySpecifier => f.write_str(
                "the specifier in `()` is empty (write the tool name alone to match every call)",
            ),
            Self::NoSpecifierFor(tool) => write!(
                f,
                "{tool:?} takes no specifier: only bash and the file tools (read, write, edit, ls, find, grep) do"
            ),
            Self::PrefixNotAtEnd => f.write_str("`:*` (any arguments) may only end the specifier"),
            Self::BadGlob(why) => write!(f, "the path glob is not valid: {why}"),
        }
    }
}

/// A rule's tool name and, when it has one, the 0-based byte offset and text of its specifier.
type Parts<'a> = (&'a str, Option<(usize, &'a str)>);

/// Splits a rule into its [`Parts`].
pub(crate) fn split(rule: &str) -> Result<Parts<'_>, RuleError> {
    if rule.is_empty() {
        return Err(RuleError::new(rule, 0, RuleErrorKind::Empty));
    }
    let tool_end = rule.find('(').unwrap_or(rule.len());
    let tool = rule.get(..tool_end).unwrap_or_default();
    if tool.is_empty() {
        return Err(RuleError::new(rule, 0, RuleErrorKind::MissingTool));
    }
    if let Some((offset, character)) = tool
        .char_indices()
        .find(|(_, character)| !is_tool_character(*character))
    {
        return Err(RuleError::new(
            rule,
            offset,
            RuleErrorKind::BadToolCharacter(character),
        ));
    }
    if tool_end == rule.len() {
        return Ok((tool, None));
    }
    let Some(inner) = rule
        .get(tool_end + 1..)
        .and_then(|rest| rest.strip_suffix(')'))
    else {
        return Err(RuleError::new(rule, tool_end, RuleErrorKind::Unclosed));
    };
    if inner.trim().is_empty() {
        return Err(RuleError::new(
            rule,
            tool_end + 1,
            RuleErrorKind::EmptySpecifier,
        ));
    }
    Ok((tool, Some((tool_end + 1, inner))))
}

/// Letters, digits and what tool names (ours, MCP's, with a prefix) use, plus `*`.
fn is_tool_character(character: char) -> bool {
    character.is_ascii_alphanumeric() || matches!(character, '_' | '-' | '.' | ':' | '*')
}

/// Whether a file tool's path glob compiles (the same options [`crate::paths`] compiles it
/// with).
pub(crate) fn check_path_glob(glob: &str) -> Result<(), RuleErrorKind> {
    crate::paths::glob_builder(glob)
        .build()
        .map(|_| ())
        .map_err(|error| RuleErrorKind::BadGlob(error.kind().to_string()))
}

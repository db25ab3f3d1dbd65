//! Tool names in rules: exact, or with `*` standing for any characters (`mcp_github_*`).

/// A tool name, or a pattern of names with `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamePattern {
    text: String,
}

impl NamePattern {
    /// The pattern as written.
    pub(crate) fn new(text: &str) -> Self {
        Self {
            text: text.to_owned(),
        }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `name` is one of the names it stands for.
    pub fn matches(&self, name: &str) -> bool {
        crate::wildcard::matches(&self.text, name)
    }
}

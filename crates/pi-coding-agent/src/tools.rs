//! The tools as the system prompt lists them: a name and a one-line purpose.

/// The longest purpose shown for one tool: an imported tool's description can be pages long,
/// and its first sentence is all the list needs.
const MAX_PURPOSE_CHARS: usize = 160;

/// One tool the model is offered, as listed in the system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferedTool {
    /// The name the model calls it by.
    pub name: String,
    /// What it is for, in one line.
    pub purpose: String,
}

impl OfferedTool {
    /// The tool `name` whose description is `description`: the purpose is its first sentence,
    /// on one line, without the final period.
    pub fn new(name: impl Into<String>, description: &str) -> Self {
        Self {
            name: name.into(),
            purpose: first_sentence(description),
        }
    }

    /// Every tool of `registry`, in its order.
    pub fn all(registry: &pi_tool::ToolRegistry) -> Vec<Self> {
        registry
            .definitions()
            .iter()
            .map(|definition| Self::new(definition.name.clone(), &definition.description))
            .collect()
    }
}

/// The first sentence of `text`: up to a period followed by white space (or the end), or the
/// first blank line; white space runs made one space.
fn first_sentence(text: &str) -> String {
    let text = text.trim();
    let paragraph = text.split("\n\n").next().unwrap_or_default();
    let mut sentence = paragraph;
    let mut chars = paragraph.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c == '.' && chars.peek().is_none_or(|(_, next)| next.is_whitespace()) {
            sentence = paragraph.get(..at).unwrap_or(paragraph);
            break;
        }
    }
    let line = sentence.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > MAX_PURPOSE_CHARS {
        let cut: String = line.chars().take(MAX_PURPOSE_CHARS).collect();
        format!("{}…", cut.trim_end())
    } else {
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purpose_is_the_first_sentence_on_one_line() {
        assert_eq!(
            first_sentence("Read the contents of a file. Output is truncated."),
            "Read the contents of a file"
        );
        assert_eq!(
            first_sentence("Search file contents for a pattern. Respects .gitignore."),
            "Search file contents for a pattern"
        );
        // A period inside a word (a file name, a version) does not end the sentence.
        assert_eq!(
            first_sentence("Edits .gitignore v1.2 files"),
            "Edits .gitignore v1.2 files"
        );
        assert_eq!(
            first_sentence("Echo\n  the value\n\nMore."),
            "Echo the value"
        );
        assert_eq!(first_sentence(""), "");
    }

    #[test]
    fn a_long_purpose_is_cut() {
        let purpose = first_sentence(&"word ".repeat(100));
        assert!(purpose.ends_with('…'));
        assert!(purpose.chars().count() <= MAX_PURPOSE_CHARS + 1);
    }
}

//! Front matter: the YAML block between a Markdown file's first two `---` lines, as Pi splits
//! and reads it (skills and prompt templates both start with one).
//!
//! The split is Pi's to the character: line ends made `\n`, the file must start with `---`,
//! the block ends at the next line starting with `---`, and the body after it is trimmed. The
//! block is read by `yaml-rust2` (YAML 1.2, as the `yaml` package Pi uses).

use yaml_rust2::{Yaml, YamlLoader};

/// Front matter that is not YAML.
#[derive(Debug, thiserror::Error)]
pub enum FrontmatterError {
    /// The block does not parse.
    #[error("its front matter is not valid YAML: {0}")]
    Yaml(#[from] yaml_rust2::ScanError),
    /// The block holds more than one YAML document.
    #[error("its front matter holds more than one YAML document")]
    SeveralDocuments,
}

/// A Markdown file split into its front matter and its body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Document {
    /// The front matter's value (`Yaml::Null` when there is none).
    pub(crate) fields: Yaml,
    /// The text after the front matter, trimmed; line ends are `\n`.
    pub(crate) body: String,
}

impl Document {
    /// `text` split and its front matter parsed.
    pub(crate) fn parse(text: &str) -> Result<Self, FrontmatterError> {
        let (block, body) = split(text);
        let fields = match block {
            Some(block) if !block.is_empty() => {
                let mut documents = YamlLoader::load_from_str(&block)?;
                if documents.len() > 1 {
                    return Err(FrontmatterError::SeveralDocuments);
                }
                documents.pop().unwrap_or(Yaml::Null)
            }
            _ => Yaml::Null,
        };
        Ok(Self { fields, body })
    }

    /// The field `key` of a front matter that is a mapping.
    pub(crate) fn field(&self, key: &str) -> Option<&Yaml> {
        match &self.fields {
            Yaml::Hash(map) => map.get(&Yaml::String(key.to_owned())),
            _ => None,
        }
    }

    /// The field `key` when it is text.
    pub(crate) fn text(&self, key: &str) -> Option<&str> {
        self.field(key).and_then(Yaml::as_str)
    }
}

/// The front matter block (without its `---` lines) and the trimmed body, as Pi cuts them.
fn split(text: &str) -> (Option<String>, String) {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let Some(after_dashes) = normalized.strip_prefix("---") else {
        return (None, normalized);
    };
    let Some(end) = after_dashes.find("\n---") else {
        return (None, normalized);
    };
    let Some(inner) = after_dashes.get(..end) else {
        return (None, normalized);
    };
    // Pi skips the one character after the opening `---` (the line end, in a well-formed
    // file) and the four of the closing `\n---`.
    let mut chars = inner.chars();
    chars.next();
    let block = chars.as_str().to_owned();
    let body = after_dashes.get(end + 4..).unwrap_or_default();
    (Some(block), js_trim(body).to_owned())
}

/// `text` without the white space JavaScript's `trim` removes (Unicode white space and the
/// byte order mark).
pub(crate) fn js_trim(text: &str) -> &str {
    text.trim_matches(is_js_space)
}

/// Whether JavaScript's `\s` (and `trim`) counts `c` as white space.
pub(crate) fn is_js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn fields_and_a_trimmed_body() {
        let document = Document::parse(
            "---\r\nname: a-skill\ndescription: >\n  Folded\n  text.\n---\n\n  Body.\n\n",
        )
        .unwrap();
        assert_eq!(document.text("name"), Some("a-skill"));
        assert_eq!(document.text("description"), Some("Folded text.\n"));
        assert_eq!(document.body, "Body.");
    }

    #[test]
    fn no_front_matter_keeps_the_whole_text_untrimmed() {
        let document = Document::parse("# Title\r\n\n").unwrap();
        assert_eq!(document.fields, Yaml::Null);
        assert_eq!(document.body, "# Title\n\n");
        let unclosed = Document::parse("---\nname: x\n").unwrap();
        assert_eq!(unclosed.body, "---\nname: x\n");
        assert_eq!(unclosed.text("name"), None);
    }

    #[test]
    fn an_empty_block_and_a_closing_line_that_only_starts_with_dashes() {
        let empty = Document::parse("---\n---\nBody").unwrap();
        assert_eq!(
            (empty.fields.clone(), empty.body.as_str()),
            (Yaml::Null, "Body")
        );
        // The block ends at the first line starting with `---`, whatever follows on it.
        let document = Document::parse("---\na: 1\n----x\nrest").unwrap();
        assert_eq!(document.body, "-x\nrest");
    }

    #[test]
    fn bad_yaml_is_an_error_and_a_scalar_has_no_fields() {
        assert!(Document::parse("---\na: [\n---\n").is_err());
        let scalar = Document::parse("---\njust words\n---\nbody").unwrap();
        assert_eq!(scalar.text("name"), None);
        assert_eq!(scalar.body, "body");
    }
}

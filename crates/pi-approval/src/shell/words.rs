//! A word's value as the shell would pass it, when it is literal: quotes removed, escapes
//! applied. Anything that is only known when the line runs (expansions, substitutions) is
//! noted as unprovable, and the word keeps its source text so deny rules can still see it.

use tree_sitter::Node;

use super::Unprovable;
use super::walk::Walker;

impl Walker<'_> {
    /// The value of a word node (an argument, a command name).
    pub(super) fn word(&mut self, node: Node<'_>) -> String {
        let text = self.text(node);
        self.deeper(text, |walker| walker.word_here(node))
    }

    fn word_here(&mut self, node: Node<'_>) -> String {
        match node.kind() {
            "word" | "number" => unescape_bare(&self.text(node)),
            "raw_string" => {
                let text = self.text(node);
                text.strip_prefix('\'')
                    .and_then(|inner| inner.strip_suffix('\''))
                    .unwrap_or(&text)
                    .to_owned()
            }
            "string" => {
                let mut value = String::new();
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if child.kind() == "string_content" {
                        value.push_str(&unescape_double_quoted(&self.text(child)));
                    } else {
                        value.push_str(&self.word(child));
                    }
                }
                value
            }
            "concatenation" | "command_name" => {
                let mut value = String::new();
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    value.push_str(&self.word(child));
                }
                value
            }
            "command_substitution" | "process_substitution" => {
                self.substitution(node);
                self.text(node)
            }
            _ => {
                // `$X`, `${X}`, `$((...))`, `$'...'`, `{a,b}`, and whatever else a word can
                // be: not literal.
                let text = self.text(node);
                self.unprovable(Unprovable::Expansion(text.clone()));
                self.scan(node);
                text
            }
        }
    }
}

/// An unquoted word: a backslash keeps the next character literally.
fn unescape_bare(text: &str) -> String {
    let mut value = String::with_capacity(text.len());
    let mut characters = text.chars();
    while let Some(character) = characters.next() {
        match character {
            '\\' => match characters.next() {
                // A backslash-newline joins lines.
                Some('\n') => {}
                Some(next) => value.push(next),
                None => value.push('\\'),
            },
            other => value.push(other),
        }
    }
    value
}

/// Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and a newline.
fn unescape_double_quoted(text: &str) -> String {
    let mut value = String::with_capacity(text.len());
    let mut characters = text.chars().peekable();
    while let Some(character) = characters.next() {
        match (character, characters.peek()) {
            ('\\', Some('$' | '`' | '"' | '\\')) => {
                if let Some(next) = characters.next() {
                    value.push(next);
                }
            }
            ('\\', Some('\n')) => {
                characters.next();
            }
            (other, _) => value.push(other),
        }
    }
    value
}

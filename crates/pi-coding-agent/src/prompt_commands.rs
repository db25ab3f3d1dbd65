//! The commands a message may start with, as Pi's sessions read every prompt: `/skill:NAME
//! rest` loads a skill's text into the message, then `/NAME args` stands for a prompt template.
//! Any other message, or a command naming nothing known, is sent as typed.

use pi_ai::{UserContent, UserMessage};
use pi_tool::Content;

use crate::prompt_template::{PromptTemplate, expand_template};
use crate::skill::Skill;
use crate::skills::expand_skill_command;

/// The skills and prompt templates of a run, for expanding its messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptCommands {
    /// The skills, in the order found (the system prompt lists them in this order).
    pub skills: Vec<Skill>,
    /// The prompt templates, in the order found.
    pub templates: Vec<PromptTemplate>,
}

impl PromptCommands {
    /// `text` with a leading `/skill:NAME` and then a leading `/NAME` expanded, in Pi's
    /// order (a skill's block does not start with `/`, so at most one applies in practice).
    pub fn expand(&self, text: &str) -> String {
        let text = expand_skill_command(text, &self.skills).unwrap_or_else(|| text.to_owned());
        expand_template(&text, &self.templates).unwrap_or(text)
    }

    /// `message` with its text expanded as [`Self::expand`] does: the whole text of a plain
    /// message, or the first block of a message of blocks when it is text (images after it
    /// stay).
    pub fn expand_message(&self, mut message: UserMessage) -> UserMessage {
        match &mut message.content {
            UserContent::Text(text) => *text = self.expand(text),
            UserContent::Blocks(blocks) => {
                if let Some(Content::Text { text }) = blocks.first_mut() {
                    *text = self.expand(text);
                }
            }
        }
        message
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn a_template_command_in_a_message_of_blocks() {
        let commands = PromptCommands {
            skills: Vec::new(),
            templates: vec![PromptTemplate {
                name: "review".to_owned(),
                description: String::new(),
                argument_hint: None,
                content: "Review $1 carefully.".to_owned(),
                path: PathBuf::from("/t/review.md"),
            }],
        };
        let mut message = UserMessage::text(String::new());
        message.content = UserContent::Blocks(vec![pi_tool::text("/review src")]);
        let expanded = commands.expand_message(message);
        assert_eq!(
            expanded.content,
            UserContent::Blocks(vec![pi_tool::text("Review src carefully.")])
        );
        assert_eq!(commands.expand("/skill:none x"), "/skill:none x");
        assert_eq!(commands.expand("plain"), "plain");
    }
}

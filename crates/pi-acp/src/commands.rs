//! The session's skills and prompt templates as the editor's slash commands
//! (`available_commands_update`): a skill as `/skill:NAME`, a template as `/NAME`, each with
//! its description, as a message starting with them is expanded before it is sent.

use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, UnstructuredCommandInput,
};
use pi_coding_agent::PromptCommands;

/// The slash commands of a session.
pub fn available_commands(commands: &PromptCommands) -> Vec<AvailableCommand> {
    let skills = commands.skills.iter().map(|skill| {
        AvailableCommand::new(format!("skill:{}", skill.name), skill.description.clone()).input(
            AvailableCommandInput::Unstructured(UnstructuredCommandInput::new(
                "what to do with the skill",
            )),
        )
    });
    let templates = commands.templates.iter().map(|template| {
        let command = AvailableCommand::new(template.name.clone(), template.description.clone());
        match &template.argument_hint {
            Some(hint) => command.input(AvailableCommandInput::Unstructured(
                UnstructuredCommandInput::new(hint.clone()),
            )),
            None => command,
        }
    });
    skills.chain(templates).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use pi_coding_agent::PromptTemplate;

    #[test]
    fn templates_are_commands_with_their_hints() {
        let commands = PromptCommands {
            skills: Vec::new(),
            templates: vec![PromptTemplate {
                name: "review".to_owned(),
                description: "Review a change".to_owned(),
                argument_hint: Some("<file>".to_owned()),
                content: "Review $1".to_owned(),
                path: "/t/review.md".into(),
            }],
        };
        let listed = serde_json::to_value(available_commands(&commands)).unwrap();
        assert_eq!(listed[0]["name"], "review");
        assert_eq!(listed[0]["description"], "Review a change");
        assert_eq!(listed[0]["input"]["hint"], "<file>");
    }
}

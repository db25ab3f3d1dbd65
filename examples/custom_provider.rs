//! A provider of your own: a "model" that answers from a table, speaking Pi's event protocol
//! with `StreamAssembler`, driven by the agent loop with `Agent::prompt`.
//!
//! Run: `cargo run --example custom_provider`
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::sync::Arc;

use futures::stream;
use pi_agent::{Agent, AgentConfig};
use pi_ai::{
    EventStream, Fragment, Message, ModelInfo, Provider, Request, StopReason, StreamAssembler,
};
use pi_tool::builtin;
use tokio_util::sync::CancellationToken;

/// Calls `uppercase` on the user's words, then reports what it got back.
struct Shouter;

impl Provider for Shouter {
    fn model(&self) -> ModelInfo {
        ModelInfo {
            api: "shouter".into(),
            provider: "example".into(),
            model: "shouter-1".into(),
        }
    }

    fn stream(&self, request: Request, _cancel: CancellationToken) -> EventStream {
        let info = self.model();
        let (mut assembler, start) = StreamAssembler::start(&info.api, &info.provider, &info.model);
        let mut events = vec![start];
        let last_result = request
            .messages
            .iter()
            .rev()
            .find_map(|message| match message {
                Message::ToolResult(result) => Some(result.text()),
                _ => None,
            });
        match last_result {
            // Fragments arrive as a real wire would send them: the arguments in pieces.
            None => {
                let words = match request.messages.last() {
                    Some(Message::User(user)) => serde_json::to_value(&user.content).unwrap(),
                    _ => serde_json::json!(""),
                };
                let arguments = serde_json::json!({"value": words}).to_string();
                let (head, tail) = arguments.split_at(arguments.len() / 2);
                for fragment in [
                    Fragment::ToolStart {
                        key: "0".into(),
                        id: "call-1".into(),
                        name: "uppercase".into(),
                    },
                    Fragment::ToolArguments {
                        key: "0".into(),
                        fragment: head.into(),
                    },
                    Fragment::ToolArguments {
                        key: "0".into(),
                        fragment: tail.into(),
                    },
                    Fragment::Stop(StopReason::ToolUse),
                ] {
                    events.extend(assembler.apply(fragment));
                }
            }
            Some(result) => {
                events.extend(assembler.apply(Fragment::Text(format!("The tool said {result}."))));
                events.extend(assembler.apply(Fragment::Stop(StopReason::Stop)));
            }
        }
        events.extend(assembler.finish());
        Box::pin(stream::iter(events))
    }
}

#[tokio::main]
async fn main() {
    let agent = Agent::new(AgentConfig::new(
        Arc::new(Shouter),
        Arc::new(builtin::registry()),
    ));
    let run = agent.prompt("hello pi").await;
    for message in &run.messages {
        println!("{}", serde_json::to_string(message).unwrap());
    }
    match run.messages.last() {
        Some(Message::Assistant(answer)) => assert_eq!(answer.text(), "The tool said HELLO PI."),
        other => panic!("{other:?}"),
    }
}

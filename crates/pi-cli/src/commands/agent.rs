//! `pi-tool agent --faux SCRIPT.json "PROMPT"`: the whole loop over the built-in tools, with a
//! scripted model. The transcript goes to stdout as JSONL; with `--events`, every event goes to
//! stderr as JSONL while it happens.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use pi_agent::{Agent, AgentConfig, EndReason, ExecutionMode};
use pi_ai::{FauxProvider, UserMessage, write_transcript};
use pi_tool::ToolRegistry;
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

use super::EXIT_TOOL_ERROR;

#[derive(Debug, Args)]
pub(crate) struct AgentArgs {
    /// The scripted model: a JSON array whose element k is the assistant message returned on
    /// the k-th request.
    #[arg(long, value_name = "SCRIPT.json")]
    faux: PathBuf,
    /// What the user says.
    prompt: String,
    /// Write every event to stderr as JSONL.
    #[arg(long)]
    events: bool,
    /// Run each batch's calls one after another.
    #[arg(long)]
    sequential: bool,
    /// Stop after this many model responses.
    #[arg(long)]
    max_turns: Option<usize>,
    /// Add an MCP server's tools: a command line, split on whitespace (repeatable).
    #[arg(long, value_name = "CMD ARGS")]
    mcp: Vec<String>,
    /// Prefix the names of the MCP servers' tools (e.g. `py_`), to keep them apart from the
    /// built-in ones.
    #[arg(long, default_value = "")]
    mcp_prefix: String,
}

pub(crate) async fn run(args: AgentArgs, mut tools: ToolRegistry) -> anyhow::Result<ExitCode> {
    // Kept alive for the whole run: the imported tools talk through these connections.
    let mut servers = Vec::new();
    for command in &args.mcp {
        let words: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
        let Some((program, rest)) = words.split_first() else {
            anyhow::bail!("--mcp needs a command");
        };
        let client = pi_mcp::McpClient::connect_stdio(program, rest)
            .await
            .with_context(|| format!("starting MCP server {command:?}"))?;
        client
            .register_into_prefixed(&mut tools, &args.mcp_prefix)
            .await?;
        servers.push(client);
    }
    let text = std::fs::read_to_string(&args.faux)
        .with_context(|| format!("reading {}", args.faux.display()))?;
    let script: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not valid JSON", args.faux.display()))?;
    let faux = FauxProvider::from_script(&script)?;

    let mut config = AgentConfig::new(Arc::new(faux), Arc::new(tools));
    if args.sequential {
        config = config.with_execution(ExecutionMode::Sequential);
    }
    if let Some(turns) = args.max_turns {
        config = config.with_max_turns(turns);
    }
    let agent = Agent::new(config);
    let printer = args.events.then(|| {
        let mut events = agent.subscribe();
        tokio::spawn(async move {
            let mut stderr = tokio::io::stderr();
            while let Some(event) = events.recv().await {
                if let Ok(mut line) = serde_json::to_vec(&event) {
                    line.push(b'\n');
                    if stderr.write_all(&line).await.is_err() {
                        break;
                    }
                }
            }
            let _ = stderr.flush().await;
        })
    });

    let cancel = CancellationToken::new();
    let on_interrupt = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_interrupt.cancel();
        }
    });
    let run = agent
        .run(
            Vec::new(),
            vec![UserMessage::text(args.prompt).into()],
            cancel,
        )
        .await;
    drop(agent); // closes the event channel, so the printer finishes
    drop(servers);
    if let Some(printer) = printer {
        printer.await.context("printing events")?;
    }
    print!("{}", write_transcript(&run.messages));
    match run.end {
        EndReason::Completed | EndReason::Terminated => Ok(ExitCode::SUCCESS),
        other => {
            eprintln!(
                "pi-tool: the run ended: {other:?}{}",
                run.error
                    .map(|error| format!(": {error}"))
                    .unwrap_or_default()
            );
            Ok(ExitCode::from(EXIT_TOOL_ERROR))
        }
    }
}

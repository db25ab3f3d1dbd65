//! `pi-tool agent (--provider P --model M | --faux SCRIPT.json) "PROMPT"`: the whole loop over
//! the built-in tools (and `--coding-tools`, `--mcp` servers) with a real model or a scripted
//! one. By default a person watches: the model's text streams to stdout as it arrives, each tool
//! call and its result is shown as it runs. `--json` prints the transcript as JSONL instead;
//! with `--events`, every event goes to stderr as JSONL while it happens.
//!
//! Every run is recorded in a session of its directory, as Pi records them (see
//! [`super::agent_session`]): `-c`, `--session`, `--fork` and `-r` continue an earlier one,
//! whose conversation the model is sent first; `--no-session` records nothing.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use pi_agent::{AgentEvent, EndReason, ExecutionMode};
use pi_ai::{FauxProvider, Provider, UserMessage, write_transcript};
use pi_coding_agent::{
    ApprovalSetup, CodingSession, CodingSessionOptions, McpServers, PromptOutcome, Started,
};
use pi_providers::{Anthropic, Gemini, OpenAiChat, OpenAiResponses, ProviderConfig};
use pi_tool::ToolRegistry;
use serde_json::Value;
use tokio::io::AsyncWriteExt;

use super::EXIT_TOOL_ERROR;
use super::agent_session::{self, Chosen, SessionArgs};
use super::approval::ApprovalArgs;
use crate::shutdown::Shutdown;

/// The wires `--provider` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Wire {
    /// OpenAI Chat Completions, and every OpenAI-compatible server (llama.cpp, Ollama, vLLM).
    Openai,
    /// OpenAI Responses.
    OpenaiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini.
    Gemini,
}

#[derive(Debug, Args)]
pub(crate) struct AgentArgs {
    /// The scripted model: a JSON array whose element k is the assistant message returned on
    /// the k-th request.
    #[arg(
        long,
        value_name = "SCRIPT.json",
        conflicts_with = "provider",
        required_unless_present_any = ["provider", "resume"]
    )]
    faux: Option<PathBuf>,
    /// A real model's wire.
    #[arg(long, requires = "model")]
    provider: Option<Wire>,
    /// Also offer the course's two demonstration tools, `echo` and `uppercase` (for scripted
    /// runs and examples: a real model is never shown them unless asked for).
    #[arg(long)]
    pub(crate) demo_tools: bool,
    /// The model id, e.g. `gpt-4.1`, `claude-sonnet-4-5`, `gemini-2.5-flash`.
    #[arg(long)]
    model: Option<String>,
    /// Where the API is, as the official SDK takes it: OpenAI `http://HOST:PORT/v1`, Anthropic
    /// and Gemini `http://HOST:PORT`.
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The API key (default: `OPENAI_API_KEY`, `ANTHROPIC_API_KEY` or `GEMINI_API_KEY`; none
    /// needed for a local server). Moved off the command line at start (into
    /// `PI_TOOL_API_KEY`, which sets it too), where commands run here could read it.
    #[arg(
        long,
        value_name = "KEY",
        env = "PI_TOOL_API_KEY",
        hide_env_values = true
    )]
    api_key: Option<String>,
    /// `auto`, `none`, `required`, or a tool's name.
    #[arg(long, default_value = "auto")]
    tool_choice: String,
    #[command(flatten)]
    system: super::agent_prompt::SystemPromptArgs,
    /// The output token limit per response.
    #[arg(long)]
    max_tokens: Option<u64>,
    /// OpenAI strict mode for function calling (`openai`, `openai-responses`): every tool
    /// schema rendered strict and sent with `strict: true`.
    #[arg(long)]
    strict_tools: bool,
    /// Print the transcript as JSONL instead of the live view.
    #[arg(long)]
    json: bool,
    /// What the user says.
    #[arg(required_unless_present = "resume")]
    prompt: Option<String>,
    /// Write every event to stderr as JSONL.
    #[arg(long)]
    events: bool,
    /// Run each batch's calls one after another.
    #[arg(long)]
    sequential: bool,
    /// Stop after this many model responses.
    #[arg(long)]
    max_turns: Option<usize>,
    /// End a tool call that runs longer than this many seconds: its result says it timed out
    /// (a `bash` command's whole process group is ended).
    #[arg(long, value_name = "SECS")]
    tool_timeout: Option<f64>,
    /// The most one model response may hold: text, thinking and tool-call arguments together
    /// (bytes, or with a KiB/MiB/GiB suffix). Past it the run ends with an error saying so.
    #[arg(long, value_name = "BYTES", default_value = "32MiB", value_parser = byte_size)]
    max_response_bytes: usize,
    /// End a model response that sends no event for this many seconds (keep-alive comments do
    /// not count).
    #[arg(long, value_name = "SECS", default_value_t = 300.0)]
    idle_timeout: f64,
    /// End a model response that has not finished after this many seconds in all.
    #[arg(long, value_name = "SECS", default_value_t = 1800.0)]
    response_timeout: f64,
    /// Add an MCP server's tools: a command line, split on whitespace (repeatable).
    #[arg(long, value_name = "CMD ARGS")]
    mcp: Vec<String>,
    /// Prefix the names of the MCP servers' tools (e.g. `py_`), to keep them apart from the
    /// built-in ones. A name that is still one of ours (or a coding tool's, loaded or not) is
    /// imported as `mcp__<server>__<name>` instead, with a warning.
    #[arg(long, default_value = "")]
    mcp_prefix: String,
    #[command(flatten)]
    session: SessionArgs,
    #[command(flatten)]
    compaction: super::agent_compaction::CompactionArgs,
    #[command(flatten)]
    pub(crate) approval: ApprovalArgs,
}

/// Runs the agent. A stop signal cancels the run: running tools see their signal cancelled (a
/// `bash` command's process group is ended), every call gets its result in the transcript, and
/// the transcript is still printed. `cwd` is the directory whose sessions the run belongs to.
pub(crate) async fn run(
    args: AgentArgs,
    mut tools: ToolRegistry,
    cwd: &Path,
    approvals: ApprovalSetup,
    environment: &pi_tool::environment::ToolEnvironment,
    shutdown: &Shutdown,
) -> anyhow::Result<ExitCode> {
    // The session first: `-r --json` only lists, and a session that cannot be opened ends the
    // command before any MCP server starts.
    let session = match agent_session::choose(&args.session, args.json, cwd)? {
        Chosen::Listed => return Ok(ExitCode::SUCCESS),
        Chosen::Run(session) => *session,
    };
    let Some(prompt) = args.prompt.clone() else {
        anyhow::bail!("give the prompt: what the user says");
    };
    let (mcp_servers, renamed) =
        McpServers::connect(&args.mcp, &args.mcp_prefix, environment, &mut tools).await?;
    for line in renamed {
        report!("pi-tool: warning: {line}");
    }
    let (view_caught_up, view_waits) = super::agent_view::caught_up();
    let approver = super::approval::approver(&approvals, args.json, Some(view_caught_up));
    let options = CodingSessionOptions {
        cwd: cwd.to_path_buf(),
        agent_dir: pi_tool::path::agent_dir(),
        provider: provider(&args)?,
        tools,
        mcp_servers,
        session,
        approvals,
        approver,
        prompt: args.system.prompt_options(cwd),
        context_window: args.compaction.context_window,
        thinking_level: None,
        execution: if args.sequential {
            ExecutionMode::Sequential
        } else {
            ExecutionMode::default()
        },
        max_turns: args.max_turns,
        tool_timeout: args
            .tool_timeout
            .map(|limit| seconds("tool-timeout", limit))
            .transpose()?,
        // The run stops when asked to, or when its session can no longer be written.
        stop: shutdown.token().child_token(),
        // Each failure is shown as it is: the callers of `agent` retry themselves.
        retry: pi_coding_agent::RetryPolicy::DISABLED,
    };
    let Started {
        session,
        warnings,
        prompt_sources,
    } = CodingSession::start(options)?;
    for warning in &warnings {
        report!("pi-tool: warning: {warning}");
    }
    if args.json {
        let line = serde_json::json!({"type": "system_prompt", "sources": prompt_sources});
        report!("{line}");
    }
    // Each subscriber asks only for what it reads: events carry whole messages, and every one
    // sent to a subscriber beyond the last is a copy.
    let notices =
        tokio::spawn(show_compactions(session.subscribe_to(|event| {
            matches!(event, AgentEvent::CompactionEnd { .. })
        })));
    let watcher = (!args.json).then(|| {
        tokio::spawn(super::agent_view::show(
            session.subscribe_to(super::agent_view::shows),
            view_waits,
        ))
    });
    let printer = args.events.then(|| {
        let mut events = session.subscribe();
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

    let PromptOutcome {
        run,
        recording_failure,
    } = session.prompt(vec![UserMessage::text(prompt).into()]).await;
    // Closing ends the event streams, so the printers finish.
    let closing_failure = session.close().await;
    if let Some(printer) = printer {
        printer.await.context("printing events")?;
    }
    if let Some(watcher) = watcher {
        watcher.await.context("showing the run")?;
    }
    notices.await.context("showing compactions")?;
    // A reader that went away (`| head`) changes nothing about how the run ended.
    if args.json
        && let Err(error) = crate::output::print(&write_transcript(&run.messages))
        && error.kind() != std::io::ErrorKind::BrokenPipe
    {
        report!("pi-tool: writing the transcript: {error}");
    }
    let _ = std::io::Write::flush(&mut std::io::stdout());
    if let Some(failure) = recording_failure.or(closing_failure) {
        report!("pi-tool: {failure}");
        return Ok(ExitCode::from(EXIT_TOOL_ERROR));
    }
    match run.end {
        EndReason::Completed | EndReason::Terminated => Ok(ExitCode::SUCCESS),
        other => {
            report!(
                "pi-tool: the run ended: {other:?}{}",
                run.error
                    .map(|error| format!(": {error}"))
                    .unwrap_or_default()
            );
            Ok(ExitCode::from(EXIT_TOOL_ERROR))
        }
    }
}

/// Says on stderr how each compaction went, as it ends.
pub(crate) async fn show_compactions(mut events: tokio::sync::mpsc::UnboundedReceiver<AgentEvent>) {
    while let Some(event) = events.recv().await {
        if let AgentEvent::CompactionEnd {
            reason,
            result,
            error,
            ..
        } = event
        {
            report!(
                "{}",
                super::agent_compaction::compaction_line(reason, result.as_ref(), error.as_deref())
            );
        }
    }
}

/// The model the run talks to: a scripted one, or a real one behind its wire.
fn provider(args: &AgentArgs) -> anyhow::Result<Arc<dyn Provider>> {
    if let Some(path) = &args.faux {
        return faux_provider(path);
    }
    let (Some(wire), Some(model)) = (args.provider, &args.model) else {
        anyhow::bail!("give --faux SCRIPT, or --provider and --model");
    };
    let mut config = ProviderConfig::new(model.clone())
        .with_tool_choice(args.tool_choice.parse().map_err(anyhow::Error::msg)?);
    config.base_url = args.base_url.clone();
    config.api_key = api_key(wire, args.api_key.as_ref(), args.base_url.as_ref())?;
    config.max_tokens = args.max_tokens;
    config.strict_tools = args.strict_tools;
    let config = config
        .with_max_response_bytes(args.max_response_bytes)
        .with_read_timeout(seconds("idle-timeout", args.idle_timeout)?)
        .with_response_timeout(seconds("response-timeout", args.response_timeout)?);
    wire_provider(wire, config)
}

/// A scripted model read from `path` (a JSON array of assistant messages).
pub(crate) fn faux_provider(path: &std::path::Path) -> anyhow::Result<Arc<dyn Provider>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let script: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not valid JSON", path.display()))?;
    Ok(Arc::new(FauxProvider::from_script(&script)?))
}

/// The API key for `wire`: the flag's, else the wire's environment variable; none is needed
/// only with a `--base-url` (a local server).
pub(crate) fn api_key(
    wire: Wire,
    flag: Option<&String>,
    base_url: Option<&String>,
) -> anyhow::Result<Option<String>> {
    let variable = match wire {
        Wire::Openai | Wire::OpenaiResponses => "OPENAI_API_KEY",
        Wire::Anthropic => "ANTHROPIC_API_KEY",
        Wire::Gemini => "GEMINI_API_KEY",
    };
    let key = flag
        .cloned()
        .or_else(|| std::env::var(variable).ok().filter(|key| !key.is_empty()));
    if key.is_none() && base_url.is_none() {
        anyhow::bail!(
            "no API key: set {variable} or pass --api-key (a local --base-url needs none)"
        );
    }
    Ok(key)
}

/// The provider speaking `wire` with `config`.
pub(crate) fn wire_provider(
    wire: Wire,
    config: ProviderConfig,
) -> anyhow::Result<Arc<dyn Provider>> {
    Ok(match wire {
        Wire::Openai => Arc::new(OpenAiChat::new(config)?),
        Wire::OpenaiResponses => Arc::new(OpenAiResponses::new(config)?),
        Wire::Anthropic => Arc::new(Anthropic::new(config)?),
        Wire::Gemini => Arc::new(Gemini::new(config)?),
    })
}

/// A time limit given in seconds: a positive, finite number.
pub(crate) fn seconds(flag: &str, value: f64) -> anyhow::Result<Duration> {
    match Duration::try_from_secs_f64(value) {
        Ok(limit) if !limit.is_zero() => Ok(limit),
        _ => anyhow::bail!("--{flag} takes a positive number of seconds, not {value}"),
    }
}

/// A size in bytes: `1048576`, `512KiB`, `32MiB`, `1GiB` (`K`, `M`, `G` and `KB`, `MB`, `GB`
/// are read as the same powers of 1024).
fn byte_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => {
            return Err(format!(
                "{text:?} is not a size (e.g. 1048576, 512KiB, 32MiB)"
            ));
        }
    };
    number
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1usize << shift))
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{text:?} is not a positive size that fits in memory"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_or_without_a_unit() {
        assert_eq!(byte_size("1048576"), Ok(1 << 20));
        assert_eq!(byte_size("32MiB"), Ok(32 << 20));
        assert_eq!(byte_size("512 KiB"), Ok(512 << 10));
        assert_eq!(byte_size("1g"), Ok(1 << 30));
        assert!(byte_size("0").is_err());
        assert!(byte_size("MiB").is_err());
        assert!(byte_size("3 parsecs").is_err());
        assert!(byte_size("99999999999999999999GiB").is_err());
    }
}

//! `pi-tool [options] [@files...] [messages...]`: Pi's own command line. With `-p` (or when
//! stdin or stdout is not a terminal) it is Pi's print mode: the messages are sent one prompt
//! after another and the last answer's text is printed; `--mode json` prints the session header
//! and then every event as a JSON line instead. The run itself is the session runtime's
//! ([`pi_coding_agent::CodingSession`]); this file reads Pi's flags and renders.
//!
//! Skills and prompt templates are the session runtime's: `--skill`, `--prompt-template` and
//! their `--no-...` switches choose them, and each message starting with `/skill:NAME` or
//! `/TEMPLATE` is expanded before it is sent, as in Pi.
//!
//! Options Pi has and this program does not (extensions, themes) are refused with a one-line reason, not an
//! unknown-argument error.

use std::io::{IsTerminal, Read};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use pi_agent::{AgentEvent, EndReason, ExecutionMode};
use pi_ai::{Message, StopReason, UserMessage};
use pi_coding_agent::{
    ApprovalSetup, FileArguments, McpServers, ModelRequest, ModelScope, PromptOptions,
    ResourceFlags, RetryPolicy, Secret, SessionHost, SessionSetup, Started, ThinkingLevel,
    ToolSelection, command_line_prompts, load_registry, load_settings, model_list_text, name_list,
    resolve_run_model, session_model, split_file_arguments, thinking_budgets,
};
use pi_providers::ProviderConfig;
use pi_tool::ToolRegistry;

use super::EXIT_TOOL_ERROR;
use super::agent_session::{self, Chosen, SessionArgs};
use super::approval::ApprovalArgs;

/// `--mode`: how the print mode writes its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OutputMode {
    /// The last answer's text.
    Text,
    /// The session header, then every event, as JSON lines.
    Json,
    /// Pi's RPC mode.
    Rpc,
}

/// Pi's options, as `pi --help` 0.80.6 lists them, and this program's own run options.
#[derive(Debug, Args)]
pub(crate) struct PiArgs {
    /// Process the messages and exit (Pi's print mode).
    #[arg(short = 'p', long)]
    print: bool,
    /// `text` (the default), `json` (every event as a JSON line) or `rpc` (Pi's RPC mode:
    /// JSON commands on stdin, responses and events on stdout).
    #[arg(long, value_enum)]
    mode: Option<OutputMode>,
    /// The provider (`anthropic`, `openai`, `google`, a `models.json` provider...). Default: the
    /// continued session's, the settings' `defaultProvider`, or the first with a key.
    #[arg(long, value_name = "NAME")]
    provider: Option<String>,
    /// The model: an id, `provider/id`, a fuzzy or glob pattern, with an optional `:level`
    /// thinking suffix (`sonnet:high`).
    #[arg(long, value_name = "PATTERN")]
    model: Option<String>,
    /// The API key for the chosen model's provider (default: `auth.json`, `models.json`, the
    /// provider's environment variable). Moved off the command line at start (into
    /// `PI_TOOL_API_KEY`, which sets it too), where commands run here could read it.
    #[arg(
        long,
        value_name = "KEY",
        env = "PI_TOOL_API_KEY",
        hide_env_values = true
    )]
    api_key: Option<String>,
    /// Send the requests here instead of the model's own base URL (better: a `models.json`
    /// provider with its `baseUrl`).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    #[command(flatten)]
    system: super::agent_prompt::SystemPromptArgs,
    #[command(flatten)]
    session: SessionArgs,
    /// Use the project session with exactly this id, creating it when missing (with
    /// `--no-session`: the id of the session kept in memory; with `--fork`: the new session's).
    #[arg(long, value_name = "ID", conflicts_with_all = ["continue_session", "resume", "session"])]
    session_id: Option<String>,
    /// Name the session (shown by session lists).
    #[arg(short = 'n', long, value_name = "NAME")]
    name: Option<String>,
    /// Offer only these tools (comma-separated: built-in and MCP servers' tools).
    #[arg(short = 't', long, value_name = "TOOLS")]
    tools: Option<String>,
    /// Never offer these tools (comma-separated).
    #[arg(long, value_name = "TOOLS")]
    exclude_tools: Option<String>,
    /// Offer no tools (`-nt`), unless `--tools` names some.
    #[arg(long)]
    no_tools: bool,
    /// Offer none of the built-in tools (`-nbt`): only the MCP servers'.
    #[arg(long)]
    no_builtin_tools: bool,
    /// Trust the project's own files (`.pi/settings.json` allow rules, `.pi/SYSTEM.md`) for
    /// this run (`-a`).
    #[arg(short = 'a', long, conflicts_with = "no_approve")]
    approve: bool,
    /// Ignore the project's own files for this run (`-na`).
    #[arg(long)]
    no_approve: bool,
    /// Make no network request at start (this program makes none anyway).
    #[arg(long)]
    offline: bool,
    /// Say on stderr which model, session and tools the run uses, and at the end the
    /// session's tokens and cost.
    #[arg(long)]
    verbose: bool,
    /// Limit the models to these comma-separated patterns (globs such as `anthropic/*`, fuzzy
    /// names, `:level` suffixes); also the settings' `enabledModels`.
    #[arg(long, value_name = "PATTERNS")]
    models: Option<String>,
    /// The thinking level: off, minimal, low, medium, high, xhigh, max.
    #[arg(long, value_name = "LEVEL")]
    thinking: Option<ThinkingLevel>,
    /// List the models that can be used (their provider has a key), optionally those matching
    /// SEARCH, and exit.
    #[arg(long, value_name = "SEARCH", num_args = 0..=1, default_missing_value = "")]
    list_models: Option<String>,
    /// Not supported: extensions run TypeScript.
    #[arg(short = 'e', long, value_name = "PATH", hide = true)]
    extension: Vec<String>,
    /// Accepted: there are no extensions to discover (`-ne`).
    #[arg(long, hide = true)]
    no_extensions: bool,
    /// Load a skill file or directory (repeatable; loaded even with --no-skills).
    #[arg(long, value_name = "PATH")]
    skill: Vec<String>,
    /// Do not look for skills in the agent directory, the project or the settings (`-ns`).
    #[arg(long)]
    no_skills: bool,
    /// Load a prompt template file or directory (repeatable; loaded even with
    /// --no-prompt-templates).
    #[arg(long, value_name = "PATH")]
    prompt_template: Vec<String>,
    /// Do not look for prompt templates in the agent directory, the project or the settings
    /// (`-np`).
    #[arg(long)]
    no_prompt_templates: bool,
    /// Not supported: themes belong to Pi's interactive mode.
    #[arg(long, value_name = "PATH", hide = true)]
    theme: Vec<String>,
    /// Accepted: there are no themes.
    #[arg(long, hide = true)]
    no_themes: bool,
    /// Write the session file IN as one HTML page (to OUT, else `pi-session-<name>.html`)
    /// and exit.
    #[arg(long, value_name = "IN [OUT]", num_args = 1..=2)]
    export: Vec<String>,
    #[command(flatten)]
    approval: ApprovalArgs,
    /// Add an MCP server's tools: a command line, split on whitespace (repeatable).
    #[arg(long, value_name = "CMD ARGS")]
    mcp: Vec<String>,
    /// Prefix the names of the MCP servers' tools.
    #[arg(long, default_value = "")]
    mcp_prefix: String,
    /// Stop after this many model responses per prompt.
    #[arg(long)]
    max_turns: Option<usize>,
    /// End a tool call that runs longer than this many seconds.
    #[arg(long, value_name = "SECS")]
    tool_timeout: Option<f64>,
    #[command(flatten)]
    compaction: super::agent_compaction::CompactionArgs,
    /// `@file` arguments (their contents join the first message) and the messages, each
    /// sent as one prompt.
    #[arg(value_name = "[@files...] [messages...]")]
    messages: Vec<String>,
}

impl PiArgs {
    /// The approval flags, for the setup `main` reads before the tools are built.
    pub(crate) fn approval(&self) -> &ApprovalArgs {
        &self.approval
    }

    /// `--mcp-prefix`: the prefix of MCP servers' tool names.
    pub(crate) fn mcp_prefix(&self) -> &str {
        &self.mcp_prefix
    }

    /// `-a`/`-na`: this run's answer on trusting the project's own files, if given.
    pub(crate) fn project_trust(&self) -> Option<bool> {
        if self.approve {
            Some(true)
        } else if self.no_approve {
            Some(false)
        } else {
            None
        }
    }

    /// The system prompt's options: `--system-prompt` and the rest, the skills and the
    /// prompt templates.
    fn prompt_options(&self, cwd: &Path) -> PromptOptions {
        let mut options = self.system.prompt_options(cwd);
        options.skills = ResourceFlags {
            discover: !self.no_skills,
            paths: self.skill.clone(),
        };
        options.prompt_templates = ResourceFlags {
            discover: !self.no_prompt_templates,
            paths: self.prompt_template.clone(),
        };
        options
    }

    /// Why this command line cannot run here, for an option Pi has and this program does not.
    fn refused(&self) -> Option<&'static str> {
        let refusals = [
            (
                !self.extension.is_empty(),
                "--extension: Pi's extensions are TypeScript modules, which this program cannot load",
            ),
            (
                !self.theme.is_empty(),
                "--theme: themes belong to the interactive mode, which has none yet",
            ),
        ];
        // Pi's package commands, which would otherwise be read as a message.
        let package_command = self.messages.first().is_some_and(|first| {
            ["install", "remove", "uninstall", "update", "list", "config"].contains(&first.as_str())
        });
        refusals
            .into_iter()
            .find_map(|(given, reason)| given.then_some(reason))
            .or(package_command.then_some(
                "Pi's package commands (install, remove, uninstall, update, list, config) manage its \
                 extension packages, which this program does not load",
            ))
    }
}

/// Which front end Pi's options ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FrontEnd {
    /// `-p`, or stdin or stdout not a terminal: print the last answer.
    Print,
    /// `--mode json`: every event as a JSON line.
    Json,
    /// `--mode rpc`: Pi's RPC mode.
    Rpc,
    /// A terminal on both sides and no `-p`: Pi's interactive mode.
    Interactive,
    /// `pi-tool acp`: the Agent Client Protocol server.
    Acp,
}

impl PiArgs {
    /// The front end these options and the terminals ask for.
    pub(crate) fn front_end(&self) -> FrontEnd {
        match self.mode {
            Some(OutputMode::Json) => FrontEnd::Json,
            Some(OutputMode::Rpc) => FrontEnd::Rpc,
            _ if !self.print
                && std::io::stdin().is_terminal()
                && std::io::stdout().is_terminal() =>
            {
                FrontEnd::Interactive
            }
            _ => FrontEnd::Print,
        }
    }
}

/// A run ready to take prompts: the session host with its session started, and the messages
/// of the command line (`@files`, piped input, message arguments) to send first.
pub(crate) struct PreparedRun {
    /// The session, its model and everything it was started from.
    pub(crate) host: SessionHost,
    /// The command line's prompts, in order.
    pub(crate) prompts: Vec<UserMessage>,
}

/// Where a run works and what it is given from the process: the working directory, the
/// environment the tools pass on, the shutdown signal.
pub(crate) struct RunPlace<'a> {
    /// The working directory (the coding tools' workspace).
    pub(crate) cwd: &'a Path,
    /// The variables the tools pass on to commands and MCP servers.
    pub(crate) environment: &'a pi_tool::environment::ToolEnvironment,
    /// Ctrl-C and SIGTERM.
    pub(crate) shutdown: &'a crate::shutdown::Shutdown,
    /// The sandbox warnings, printed once the session is read (found meanwhile).
    pub(crate) notices: &'a crate::start_notices::StartNotices,
}

/// Everything every front end does before its first prompt, from Pi's options: the model
/// (`--list-models` answers here), the session (`-r` may list and end here), the tools the
/// flags choose, MCP servers, settings, the system prompt, the session started with
/// `approver` asking. `None` when the command was answered already.
pub(crate) async fn prepare(
    args: &PiArgs,
    front_end: FrontEnd,
    mut tools: ToolRegistry,
    place: &RunPlace<'_>,
    approvals: ApprovalSetup,
    approver: Arc<dyn pi_approval::Approver>,
) -> anyhow::Result<Option<PreparedRun>> {
    let RunPlace {
        cwd,
        environment,
        shutdown,
        notices,
    } = *place;
    if let Some(reason) = args.refused() {
        anyhow::bail!("{reason}");
    }
    let agent_dir = pi_tool::path::agent_dir();
    let mut registry = load_registry(agent_dir.as_deref())?;
    if let Some(search) = &args.list_models {
        crate::output::print(&model_list_text(&registry, Some(search)))?;
        return Ok(None);
    }
    let json = front_end == FrontEnd::Json;
    // Read while the sandbox is probed: the probe's warnings follow.
    let session = if front_end == FrontEnd::Acp {
        // The ACP server's own session is only what the editor's sessions start from: kept
        // in memory, so no empty session file is left behind each time an editor starts it.
        pi_session::Session::in_memory(cwd)
    } else {
        match agent_session::choose_with_id(&args.session, args.session_id.as_deref(), json, cwd)? {
            Chosen::Listed => return Ok(None),
            Chosen::Run(session) => *session,
        }
    };
    notices.report();
    let (files, messages) = split_file_arguments(&args.messages);
    let files = FileArguments::read(&files, cwd)?;
    // Only the print and JSON modes read stdin as a message: RPC reads commands there, the
    // interactive mode the keyboard.
    let piped = match front_end {
        FrontEnd::Print | FrontEnd::Json => read_piped_stdin()?,
        FrontEnd::Rpc | FrontEnd::Interactive | FrontEnd::Acp => None,
    };
    let prompts = command_line_prompts(piped, files, &messages);
    let (mcp_servers, renamed) =
        McpServers::connect(&args.mcp, &args.mcp_prefix, environment, &mut tools).await?;
    for line in renamed {
        report!("pi-tool: warning: {line}");
    }
    let selection = ToolSelection {
        only: args.tools.as_deref().map(name_list),
        exclude: args
            .exclude_tools
            .as_deref()
            .map(name_list)
            .unwrap_or_default(),
        no_tools: args.no_tools,
        no_builtin_tools: args.no_builtin_tools,
    };
    let selected = selection.select(&tools)?;
    for name in &selected.unknown {
        report!("pi-tool: warning: no tool is called {name:?}");
    }
    let settings = load_settings(agent_dir.as_deref(), cwd, approvals.project_trusted)?;
    let request = ModelRequest {
        provider: args.provider.clone(),
        model: args.model.clone(),
        api_key: args.api_key.clone().map(Secret::new),
        models: args.models.as_deref().map(name_list),
        thinking: args.thinking,
        session: session_model(&session),
    };
    let resolved = resolve_run_model(&mut registry, &settings, &request).await?;
    for warning in &resolved.warnings {
        report!("pi-tool: warning: {warning}");
    }
    let mut wire = ProviderConfig::new(resolved.model.id.clone());
    wire.base_url = args.base_url.clone();
    if args.verbose {
        let names: Vec<&str> = selected.tools.list().map(|tool| tool.name()).collect();
        report!(
            "pi-tool: model {} (thinking {}, key from {:?}); session {}; tools {}",
            resolved.model.reference(),
            resolved.thinking_level,
            resolved.credentials.source,
            session
                .file_path()
                .map_or_else(|| "in memory".to_owned(), |path| path.display().to_string()),
            names.join(", ")
        );
    }
    let mut setup = SessionSetup {
        cwd: cwd.to_path_buf(),
        agent_dir: agent_dir.clone(),
        tools: selected.tools,
        mcp_servers,
        approvals,
        approver,
        prompt: args.prompt_options(cwd),
        context_window: args.compaction.context_window,
        execution: ExecutionMode::default(),
        max_turns: args.max_turns,
        tool_timeout: args
            .tool_timeout
            .map(|limit| super::agent::seconds("tool-timeout", limit))
            .transpose()?,
        stop: shutdown.token().child_token(),
        thinking_budgets: thinking_budgets(&settings),
        wire,
        retry: RetryPolicy::from_settings(&settings.retry),
        block_images: settings.images.block_images.unwrap_or(false),
    };
    // Pi's `retry` (with `retry.provider`, the wire's own retries of a failed request).
    setup.apply_settings(&settings);
    let Started {
        session,
        warnings,
        prompt_sources: _,
    } = setup.start(session, &resolved)?;
    for warning in &warnings {
        report!("pi-tool: warning: {warning}");
    }
    if let Some(name) = &args.name {
        session.set_name(name)?;
    }
    // Ctrl+P's models (Pi's `scopedModels`): `--models`, else the settings' `enabledModels`.
    let scope_patterns = request
        .models
        .as_ref()
        .or(settings.enabled_models.as_ref())
        .filter(|patterns| !patterns.is_empty());
    let scope = match scope_patterns {
        Some(patterns) => {
            let (scope, warnings) = ModelScope::resolve(patterns, &registry);
            // Model selection resolved the same patterns when it picked from them: said once.
            for warning in warnings.iter().filter(|w| !resolved.warnings.contains(w)) {
                report!("pi-tool: warning: {warning}");
            }
            scope
        }
        None => ModelScope::default(),
    };
    let mut host = SessionHost::new(
        setup,
        registry,
        args.session.session_dir.clone(),
        resolved,
        session,
    );
    host.set_scope(scope);
    host.apply_queue_modes(&settings);
    Ok(Some(PreparedRun { host, prompts }))
}

/// Runs Pi's print, JSON, RPC or interactive mode. `tools` holds every tool that could be offered (the
/// coding tools of `cwd`); the flags choose among them.
pub(crate) async fn run(
    args: PiArgs,
    tools: ToolRegistry,
    place: &RunPlace<'_>,
    approvals: ApprovalSetup,
) -> anyhow::Result<ExitCode> {
    let RunPlace { cwd, shutdown, .. } = *place;
    if let Some(input) = args.export.first() {
        // Pi's `--export IN [OUT]`: OUT may also come as the first message.
        let output = args.export.get(1).or(args.messages.first());
        // Pi exits 1 when the export fails.
        return match pi_export::export_file(Path::new(input), output.map(Path::new)) {
            Ok(written) => {
                crate::output::print_line(&pi_coding_agent::visible(&format!(
                    "Exported to: {}",
                    written.display()
                )))?;
                Ok(ExitCode::SUCCESS)
            }
            Err(error) => {
                report!("pi-tool: {}", pi_tool::error_text(&error));
                Ok(ExitCode::from(EXIT_TOOL_ERROR))
            }
        };
    }
    let front_end = args.front_end();
    let user_settings = approvals.user_settings.clone();
    let mut inbox = None;
    let approver: Arc<dyn pi_approval::Approver> = match front_end {
        FrontEnd::Interactive => {
            let (approver, approvals) = pi_interactive::TuiApprover::new(cwd.to_path_buf());
            inbox = Some(approvals);
            Arc::new(approver)
        }
        // `front_end()` never answers `Acp`: `pi-tool acp` is its own command.
        FrontEnd::Acp => anyhow::bail!("the ACP server is `pi-tool acp`"),
        FrontEnd::Rpc => Arc::new(pi_coding_agent::NobodyToAsk {
            cwd: cwd.to_path_buf(),
            why: "the RPC mode has no one to ask yet",
        }),
        FrontEnd::Json => super::approval::approver(&approvals, true, None),
        FrontEnd::Print => super::approval::approver(&approvals, false, None),
    };
    let Some(PreparedRun { host, prompts }) =
        prepare(&args, front_end, tools, place, approvals, approver).await?
    else {
        return Ok(ExitCode::SUCCESS);
    };
    if front_end == FrontEnd::Rpc {
        return super::rpc_mode::serve(host, shutdown).await;
    }
    if let Some(approvals) = inbox {
        let closing = pi_interactive::run(pi_interactive::Interactive {
            host,
            prompts,
            approvals,
            user_settings,
            stop: shutdown.token().clone(),
        })
        .await?;
        if let Some(failure) = closing {
            report!("pi-tool: {failure}");
            return Ok(ExitCode::from(EXIT_TOOL_ERROR));
        }
        return Ok(ExitCode::SUCCESS);
    }
    print_mode(host, prompts, front_end == FrontEnd::Json, args.verbose).await
}

/// Pi's print and JSON modes: each prompt sent in turn; in JSON mode the session header first,
/// then every event, each prompt closed by `agent_settled`.
async fn print_mode(
    host: SessionHost,
    prompts: Vec<UserMessage>,
    json: bool,
    verbose: bool,
) -> anyhow::Result<ExitCode> {
    let session = Arc::clone(host.session()?);
    let printer = json.then(|| {
        let (out, lines) = tokio::sync::mpsc::unbounded_channel();
        let _ = out.send(serde_json::Value::Object(session.header()));
        let (settled, settle) = tokio::sync::mpsc::unbounded_channel();
        let forwarder = tokio::spawn(super::event_lines::forward(
            session.subscribe(),
            settle,
            out,
        ));
        (
            settled,
            forwarder,
            tokio::spawn(super::event_lines::write_lines(lines)),
        )
    });
    let notices = tokio::spawn(super::agent::show_compactions(
        session.subscribe_to(|event| matches!(event, AgentEvent::CompactionEnd { .. })),
    ));
    let mut last = None;
    let mut failure = None;
    for prompt in prompts {
        let prompt = session.expand_commands(prompt);
        let outcome = session.prompt(vec![prompt.into()]).await;
        if let Some((settled, _, _)) = &printer {
            let _ = settled.send(());
        }
        failure = outcome.recording_failure;
        let stopped = !matches!(
            outcome.run.end,
            EndReason::Completed | EndReason::Terminated
        );
        last = Some(outcome.run);
        if stopped || failure.is_some() {
            break;
        }
    }
    if verbose && let Ok(stats) = session.stats() {
        report!("pi-tool: session: {}", stats.summary());
    }
    // The host holds the only other reference: closing it closes the session.
    drop(session);
    let closing_failure = host.close().await;
    if let Some((settled, forwarder, writer)) = printer {
        drop(settled);
        forwarder.await.context("printing events")?;
        writer.await.context("printing events")?;
    }
    notices.await.context("showing compactions")?;
    if let Some(failure) = failure.or(closing_failure) {
        report!("pi-tool: {failure}");
        return Ok(ExitCode::from(EXIT_TOOL_ERROR));
    }
    let Some(run) = last else {
        // Nothing to send: Pi's print mode ends without a request too.
        return Ok(ExitCode::SUCCESS);
    };
    if json {
        return Ok(exit_code(&run.end));
    }
    print_answer(&run.messages, &run.end, run.error.as_deref())
}

/// Pi's print mode's output: the last answer's text blocks, each on its own line; an answer
/// that failed or was stopped says why on stderr and exits 1.
fn print_answer(
    messages: &[Message],
    end: &EndReason,
    error: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let Some(Message::Assistant(answer)) = messages.last() else {
        if let Some(error) = error {
            report!("pi-tool: {error}");
        }
        return Ok(exit_code(end));
    };
    if matches!(answer.stop_reason, StopReason::Error | StopReason::Aborted) {
        let why = answer
            .error_message
            .clone()
            .unwrap_or_else(|| format!("Request {:?}", answer.stop_reason).to_lowercase());
        report!("{why}");
        return Ok(ExitCode::from(EXIT_TOOL_ERROR));
    }
    let mut text = String::new();
    for block in &answer.content {
        if let pi_ai::AssistantContent::Text { text: part, .. } = block {
            text.push_str(part);
            text.push('\n');
        }
    }
    // The answer is the model's text, for a terminal or a pipe: shown, never obeyed.
    let shown = if std::io::stdout().is_terminal() {
        pi_coding_agent::visible(&text).into_owned()
    } else {
        text
    };
    crate::output::print(&shown)?;
    Ok(exit_code(end))
}

fn exit_code(end: &EndReason) -> ExitCode {
    match end {
        EndReason::Completed | EndReason::Terminated => ExitCode::SUCCESS,
        _ => ExitCode::from(EXIT_TOOL_ERROR),
    }
}

/// Piped input, as Pi reads it: all of stdin when it is not a terminal, trimmed; `None` when it
/// is a terminal or holds only whitespace.
fn read_piped_stdin() -> anyhow::Result<Option<String>> {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Ok(None);
    }
    let mut text = String::new();
    stdin
        .read_to_string(&mut text)
        .context("reading the piped input")?;
    let trimmed = text.trim();
    Ok((!trimmed.is_empty()).then(|| trimmed.to_owned()))
}

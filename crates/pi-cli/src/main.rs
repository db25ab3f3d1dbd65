//! `pi-tool`: a coding agent with Pi's own command line, and Pi-style tool calls from the
//! command line.
//!
//! Without a subcommand it is Pi: `pi-tool [options] [@files...] [messages...]` runs the print
//! mode (`-p`), the JSON mode (`--mode json`) or the RPC mode (`--mode rpc`) over the session
//! runtime (`commands::pi_mode`, `commands::rpc_mode`). The subcommands: `tools` shows what a
//! model would be shown, `call` runs one call, `run` a stream of calls
//! (JSONL in, JSONL out, order kept), `check` checks arguments against a schema, `agent` runs
//! the agent loop with a real model or a scripted one (each run recorded in a Pi session),
//! `session` reads and compacts session files, `serve` serves the tools over MCP, `mcp` uses another MCP
//! server's tools, `policy check` says what the approval policy decides about a call, `acp`
//! serves an editor over the Agent Client Protocol (`commands::acp`, over the `pi-acp` crate).

// First: its `report!` is used by the modules after it.
#[macro_use]
mod output;

mod commands;
mod hidden_arguments;
mod panic_log;
mod shutdown;
mod start_notices;
mod telemetry;

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use pi_tool::model_text::Wording;
use shutdown::{STOP_LIMIT, Shutdown};

/// jemalloc rather than glibc's allocator, which keeps what a burst freed: 1,024 MCP sessions
/// opened and deleted left the server 65 MB larger for good, and more after each round (every
/// byte freed, heaptrack says, none given back to the system). jemalloc's background thread
/// returns freed pages within seconds (its decay), whether or not anything else is allocated.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// How long the runtime's shutdown waits for its threads at exit. Its workers drop every task
/// left (so a `bash` call's group killer runs) within this; a read of stdin blocked in a
/// thread cannot be interrupted, and is abandoned after it rather than waited for.
const EXIT_WAIT: Duration = Duration::from_millis(500);

/// A coding agent with Pi's command line (`pi-tool -p "task"`), and Pi-style tool calls over the
/// built-in tools: lookup → parse → execute → paired result.
#[derive(Debug, Parser)]
#[command(
    name = "pi-tool",
    version,
    about,
    override_usage = "pi-tool [OPTIONS] [@files...] [messages...]\n       pi-tool [OPTIONS] <COMMAND>",
    subcommand_negates_reqs = true,
    disable_version_flag = true
)]
struct Cli {
    /// Print the version (`-v`, as Pi spells it).
    #[arg(short = 'v', long, action = clap::ArgAction::Version)]
    version: (),
    /// Add Pi's seven coding tools (read, write, edit, bash, grep, find, ls), working in DIR
    /// (the current directory when DIR is left out). The file tools may only reach paths inside
    /// DIR (symbolic links and `..` followed; on Linux the kernel holds it too, through
    /// Landlock); `bash` may write only inside DIR and the temporary directory (bubblewrap or
    /// Landlock; each result's `details.sandbox` says which, and what it does not cover).
    #[arg(long, global = true, value_name = "DIR", num_args = 0..=1, default_missing_value = ".")]
    coding_tools: Option<std::path::PathBuf>,
    /// Let the file tools also reach this directory (repeatable).
    #[arg(long, global = true, value_name = "DIR")]
    allow_dir: Vec<std::path::PathBuf>,
    /// Let the file tools reach any path this process can, and run `bash` without a sandbox,
    /// as upstream Pi's do.
    #[arg(long, global = true)]
    unconfined_file_tools: bool,
    /// Keep `bash` (sandboxed) off the network: no network at all under bubblewrap, no TCP
    /// under Landlock alone.
    #[arg(long, global = true)]
    no_network: bool,
    /// Give `bash` and the MCP servers started here this variable although it looks like a
    /// secret (repeatable). By default they get none whose name holds KEY, SECRET, TOKEN,
    /// PASSWORD, PASSWD, CREDENTIAL or an AUTH word (not AUTHOR), nor PI_TOOL_* or the OTLP
    /// headers.
    #[arg(long, global = true, value_name = "NAME")]
    pass_env: Vec<String>,
    /// Which sandbox `bash` runs in: `strongest` (bubblewrap where it works, else Landlock, with
    /// one warning at start saying what that leaves open), `bubblewrap` (bubblewrap or
    /// nothing: `bash` refuses to run without it) or `landlock` (Landlock alone, where
    /// bubblewrap misbehaves).
    #[arg(long, global = true, value_enum, default_value_t = SandboxChoice::Strongest)]
    sandbox: SandboxChoice,
    /// Keep `bash`'s full-output files (`pi-bash-*.log`) after the program ends. `call` and
    /// `run`, which print their paths for a person to open, always keep them.
    #[arg(long, global = true)]
    keep_output_files: bool,
    /// The words of failures the model reads: `pi` (upstream Pi's English; the default of
    /// `agent` and `serve`) or `course` (the texts the course pins; the default of the
    /// other commands).
    #[arg(long, global = true, value_enum)]
    wording: Option<WordingChoice>,
    /// Export OpenTelemetry traces and metrics over OTLP to this collector (e.g.
    /// `http://localhost:4318`, or `http://localhost:4317` with `--otlp-protocol grpc`);
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` does the same.
    #[arg(long, global = true, value_name = "URL")]
    otlp: Option<String>,
    /// The OTLP protocol, as `OTEL_EXPORTER_OTLP_PROTOCOL` names it (which it overrides):
    /// `http/protobuf` (the default) or `grpc`. Without `--otlp` or an endpoint variable, it
    /// exports to the protocol's default endpoint on localhost (4318 or 4317).
    #[arg(long, global = true, value_enum, value_name = "PROTOCOL")]
    otlp_protocol: Option<OtlpProtocol>,
    #[command(flatten)]
    pi: commands::pi_mode::PiArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

/// `--otlp-protocol`: how the OTLP export travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum OtlpProtocol {
    /// Protobuf in HTTP POSTs to `/v1/traces` and `/v1/metrics`.
    #[value(name = "http/protobuf")]
    HttpProtobuf,
    /// The collector's gRPC services.
    Grpc,
}

/// `--sandbox`: which sandbox `bash` runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SandboxChoice {
    /// Bubblewrap where it works, Landlock otherwise.
    Strongest,
    /// Landlock alone.
    Landlock,
    /// Bubblewrap only: `bash` refuses to run where it is missing.
    Bubblewrap,
}

/// `--wording`: the words of failures the model reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum WordingChoice {
    /// Upstream Pi's English.
    Pi,
    /// The course's texts (Chinese), as the course's examples write them.
    Course,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the tool definitions (name, description, parameters) as a JSON array.
    Tools(commands::tools::ToolsArgs),
    /// Run one tool call and print its ToolResultMessage as one JSON line.
    ///
    /// Exits 0 on success, 1 when the result is an error, 2 when the arguments are not JSON.
    Call(commands::call::CallArgs),
    /// Read ToolCall objects from stdin, one per line, run them concurrently, and write one
    /// ToolResultMessage line per input line, in input order.
    Run(commands::run::RunArgs),
    /// Check arguments against a JSON Schema: print the parsed arguments (exit 0) or the
    /// error text a model would read (exit 1).
    Check(commands::check::CheckArgs),
    /// Run the agent loop over the tools with a real model (`--provider P --model M`: OpenAI,
    /// OpenAI Responses, Anthropic, Gemini) or a scripted one (`--faux SCRIPT.json`); the run is
    /// recorded in a Pi session (`-c` continues the last, `--no-session` records nothing).
    /// Shows the run live, or prints the transcript as JSONL with --json (events on stderr with
    /// --events).
    Agent(Box<commands::agent::AgentArgs>),
    /// Read and compact Pi's session files: `session list [--all] [--json]`, `session context
    /// FILE [--leaf ID]` (the messages the model would be sent, one JSON line each), `session
    /// tree FILE`, `session approvals FILE`, `session compact FILE`.
    Session(commands::session::SessionArgs),
    /// Serve the built-in tools over MCP: stdio by default, streamable HTTP with --http.
    Serve(commands::serve::ServeArgs),
    /// Serve the Agent Client Protocol on stdin and stdout, for an editor (Zed, JetBrains,
    /// Neovim, Emacs) to drive the agent: the same options as Pi's print mode; each editor
    /// session works in its own directory, with the coding tools confined to it.
    Acp(Box<commands::pi_mode::PiArgs>),
    /// Use any MCP server's tools: `mcp tools -- CMD ARGS...`, `mcp call NAME 'JSON' -- CMD ARGS...`
    /// (or `--url http://HOST:PORT/mcp`).
    Mcp(commands::mcp::McpArgs),
    /// What the approval policy says about a call: `policy check TOOL 'JSON_ARGS'` prints
    /// `{"decision","rule","source","commands"}` (same `--approval`, `--allow`, `--ask`,
    /// `--deny` and settings as `agent`).
    Policy(commands::policy::PolicyArgs),
}

fn main() -> ExitCode {
    // Started by an editor's terminal to run one `bash` command under our sandbox: before any
    // thread exists, since the sandbox binds the calling thread, which becomes the shell.
    let arguments: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if let Some((first, launch)) = arguments.split_first()
        && first == pi_coding_tools::LAUNCHER_SUBCOMMAND
    {
        report!(
            "pi-tool: {}",
            pi_tool::error_text(&pi_coding_tools::launch(launch))
        );
        return ExitCode::from(commands::EXIT_USAGE);
    }
    // A panicking tool is answered with an error result: report the panic in one line, without
    // a backtrace, and not without bound (a client may make tools panic at will).
    panic_log::install();
    let cli = Cli::parse_from(commands::spell_out_short_flags(std::env::args_os()));
    // Once the arguments are known good: the program starts again without its secrets on the
    // command line, where a sandboxed command could read them.
    if let Some(error) = hidden_arguments::hide() {
        report!(
            "pi-tool: could not move --api-key/--token off the command line ({error}); commands run here can read them"
        );
    }
    let protocol = cli.otlp_protocol.map(|protocol| match protocol {
        OtlpProtocol::HttpProtobuf => pi_telemetry::export::Protocol::HttpProtobuf,
        OtlpProtocol::Grpc => pi_telemetry::export::Protocol::Grpc,
    });
    // Before the runtime: the exporter's blocking HTTP client may not be made inside it.
    let telemetry = telemetry::start(cli.otlp.as_deref(), protocol);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            report!("pi-tool: cannot start the runtime: {error}");
            return ExitCode::from(commands::EXIT_USAGE);
        }
    };
    let code = runtime.block_on(run(cli));
    // Not a plain drop, which would wait for a blocked read of stdin without end; nor
    // `std::process::exit`, which would end the process with calls still running.
    runtime.shutdown_timeout(EXIT_WAIT);
    // Also after a stop signal: `run` has returned by then.
    if let Some(telemetry) = telemetry {
        telemetry.shutdown();
    }
    code
}

/// Runs the command under the stop signals: the first asks it to stop (the commands that run
/// calls cancel them and answer what they owe, within [`STOP_LIMIT`]; the others stop at
/// once), a second stops it at once. The command's future is dropped when it is given up on, so
/// every call it holds ends its commands.
async fn run(cli: Cli) -> ExitCode {
    let shutdown = match Shutdown::listen() {
        Ok(shutdown) => shutdown,
        Err(error) => {
            report!("pi-tool: cannot watch for stop signals: {error}");
            return ExitCode::from(commands::EXIT_USAGE);
        }
    };
    let answers = matches!(
        cli.command,
        None | Some(
            Command::Call(_)
                | Command::Run(_)
                | Command::Agent(_)
                | Command::Serve(_)
                | Command::Acp(_)
        )
    );
    let given_up = async {
        shutdown.token().cancelled().await;
        if answers {
            tokio::time::sleep(STOP_LIMIT).await;
        }
    };
    let code = tokio::select! {
        biased;
        code = execute(cli, &shutdown) => code,
        () = shutdown.forced() => ExitCode::FAILURE,
        () = given_up => {
            if answers {
                report!("pi-tool: stopped without waiting any longer for the calls to answer");
            }
            ExitCode::FAILURE
        }
    };
    shutdown.exit_code().unwrap_or(code)
}

/// Builds the tools and runs the command.
async fn execute(mut cli: Cli, shutdown: &Shutdown) -> ExitCode {
    // Pi's command line (no subcommand) works on the current directory with the coding tools.
    let pi_mode = matches!(cli.command, None | Some(Command::Acp(_)));
    if pi_mode && cli.coding_tools.is_none() {
        cli.coding_tools = Some(std::path::PathBuf::from("."));
    }
    // Approval flags before a subcommand are Pi's own options, which no subcommand reads: a
    // `--deny` there would be dropped without a word, so the run does not start.
    if cli.command.is_some() && cli.pi.approval().any_given() {
        report!(
            "pi-tool: --approval, --allow, --ask and --deny go after the subcommand (`pi-tool acp --deny RULE`): before it they are not read"
        );
        return ExitCode::from(commands::EXIT_USAGE);
    }
    // Sessions belong to the directory the run works in, as Pi's belong to its cwd.
    let work_dir = || commands::session::work_dir(cli.coding_tools.as_deref());
    // The agent's approvals are read first: a malformed rule stops the run before anything
    // starts, and `yolo` runs the tools unconfined.
    let loaded = match &cli.command {
        Some(Command::Agent(args)) => Some(work_dir().and_then(|cwd| args.approval.load(&cwd))),
        None => Some(work_dir().and_then(|cwd| {
            cli.pi
                .approval()
                .load_trusting(&cwd, cli.pi.project_trust())
        })),
        Some(Command::Acp(args)) => Some(
            work_dir().and_then(|cwd| args.approval().load_trusting(&cwd, args.project_trust())),
        ),
        _ => None,
    };
    let approvals = match loaded.transpose() {
        Ok(setup) => setup,
        Err(error) => {
            report!("pi-tool: {}", pi_tool::error_text(error.as_ref()));
            return ExitCode::from(commands::EXIT_USAGE);
        }
    };
    let yolo = approvals
        .as_ref()
        .is_some_and(|setup| setup.mode == pi_approval::Mode::Yolo);
    let environment = cli.pass_env.iter().fold(
        pi_tool::environment::ToolEnvironment::new(),
        |environment, name| environment.passing(name.clone()),
    );
    // A model is offered the coding tools only: the course's two demonstration tools (`echo`,
    // `uppercase`) are for the tool author's commands (`tools`, `call`, `run`, `serve`...),
    // and for `agent` only with `--demo-tools`.
    let demo_tools = match &cli.command {
        None => false,
        Some(Command::Agent(args)) => args.demo_tools,
        Some(_) => true,
    };
    let mut tools = if demo_tools {
        pi_tool::builtin::registry()
    } else {
        pi_tool::ToolRegistry::default()
    };
    // The coding tools without sandbox or confinement, for modes that ask to run a refused
    // call outside the sandbox.
    let mut outside_tools = None;
    let notices = start_notices::StartNotices::default();
    let asks_outside = approvals
        .as_ref()
        .is_some_and(|setup| setup.mode.table().asks_outside_sandbox);
    let recipe = WorkspaceRecipe {
        unconfined: cli.unconfined_file_tools || yolo,
        allow_dir: cli.allow_dir.clone(),
        environment: environment.clone(),
        no_network: cli.no_network,
        sandbox: match cli.sandbox {
            SandboxChoice::Strongest => pi_coding_tools::ShellSandbox::Strongest,
            SandboxChoice::Landlock => pi_coding_tools::ShellSandbox::Landlock,
            SandboxChoice::Bubblewrap => pi_coding_tools::ShellSandbox::Bubblewrap,
        },
        // `grep`, `find` and `ls` leave out what a rule denies reading, as `read` is refused it.
        policy: approvals
            .as_ref()
            .map(|setup| std::sync::Arc::new(setup.policy())),
        keep_output_files: cli.keep_output_files
            || matches!(cli.command, Some(Command::Call(_) | Command::Run(_))),
        asks_outside,
    };
    if let Some(dir) = &cli.coding_tools {
        let workspace = recipe.workspace(dir);
        // Probed while Pi's modes read the session; printed before their first output.
        notices.find(workspace.clone(), dir);
        if asks_outside {
            outside_tools = Some(pi_coding_tools::all_tools(&workspace.without_confinement()));
        }
        let coding = pi_coding_tools::all_tools(&workspace);
        for tool in coding.list() {
            if let Err(error) = tools.register(tool.clone()) {
                report!("pi-tool: {error}");
                return ExitCode::from(commands::EXIT_USAGE);
            }
        }
    }
    let wording = match cli.wording {
        Some(WordingChoice::Pi) => Wording::Pi,
        Some(WordingChoice::Course) => Wording::Course,
        // Models prompted in English read Pi's words; the one-shot commands keep the course's,
        // which the course's examples pin.
        None if matches!(
            cli.command,
            None | Some(Command::Agent(_) | Command::Serve(_) | Command::Acp(_))
        ) =>
        {
            Wording::Pi
        }
        None => Wording::Course,
    };
    let tools = tools.with_wording(wording);
    let approvals = approvals.map(|mut setup| {
        setup.outside_tools = outside_tools.map(|outside| outside.with_wording(wording));
        setup
    });
    if !matches!(cli.command, None | Some(Command::Acp(_))) {
        notices.report();
    }
    let outcome = match cli.command {
        None => match (work_dir(), approvals) {
            (Ok(cwd), Some(approvals)) => {
                let place = commands::pi_mode::RunPlace {
                    cwd: &cwd,
                    environment: &environment,
                    shutdown,
                    notices: &notices,
                };
                commands::pi_mode::run(cli.pi, tools, &place, approvals).await
            }
            (Err(error), _) => Err(error),
            (Ok(_), None) => Err(anyhow::anyhow!("the approvals were not read")),
        },
        Some(Command::Acp(args)) => match (work_dir(), approvals) {
            (Ok(cwd), Some(approvals)) => {
                let place = commands::pi_mode::RunPlace {
                    cwd: &cwd,
                    environment: &environment,
                    shutdown,
                    notices: &notices,
                };
                commands::acp::run(*args, tools, &place, approvals, recipe, wording).await
            }
            (Err(error), _) => Err(error),
            (Ok(_), None) => Err(anyhow::anyhow!("the approvals were not read")),
        },
        Some(Command::Tools(args)) => commands::tools::run(&args, &tools),
        Some(Command::Call(args)) => commands::call::run(args, &tools, shutdown).await,
        Some(Command::Run(args)) => commands::run::run(args, tools, shutdown).await,
        Some(Command::Check(args)) => commands::check::run(args).await,
        Some(Command::Agent(args)) => match (work_dir(), approvals) {
            (Ok(cwd), Some(approvals)) => {
                commands::agent::run(*args, tools, &cwd, approvals, &environment, shutdown).await
            }
            (Err(error), _) => Err(error),
            (Ok(_), None) => Err(anyhow::anyhow!("the approvals were not read")),
        },
        Some(Command::Session(args)) => {
            work_dir().and_then(|cwd| commands::session::run(args, &cwd))
        }
        Some(Command::Serve(args)) => commands::serve::run(args, tools, shutdown).await,
        Some(Command::Mcp(args)) => commands::mcp::run(args, &environment).await,
        Some(Command::Policy(args)) => {
            work_dir().and_then(|cwd| commands::policy::run(args, &tools, &cwd))
        }
    };
    // Where a command answered before reading a session (`--list-models`, a failure).
    notices.report();
    match outcome {
        Ok(code) => code,
        // The reader of stdout went away (`| head`): it has what it wanted.
        Err(error) if output::is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            report!("pi-tool: {}", pi_tool::error_text(error.as_ref()));
            ExitCode::from(commands::EXIT_USAGE)
        }
    }
}

/// How the coding tools' workspace is made from the options, for any directory: the one the
/// program works in, and each directory an ACP editor opens a session in.
#[derive(Clone)]
pub(crate) struct WorkspaceRecipe {
    /// `--unconfined-file-tools`, or the `yolo` approval mode.
    unconfined: bool,
    /// `--allow-dir`.
    allow_dir: Vec<std::path::PathBuf>,
    /// What the tools pass on to commands.
    environment: pi_tool::environment::ToolEnvironment,
    /// `--no-network`.
    no_network: bool,
    /// `--sandbox`.
    sandbox: pi_coding_tools::ShellSandbox,
    /// The approval policy, whose deny rules hide files from `grep`, `find` and `ls`.
    policy: Option<std::sync::Arc<pi_approval::Policy>>,
    /// `--keep-output-files` (always for `call` and `run`).
    keep_output_files: bool,
    /// Whether the approval mode asks to run a refused call outside the sandbox.
    pub(crate) asks_outside: bool,
}

impl WorkspaceRecipe {
    /// The workspace of `dir`.
    pub(crate) fn workspace(&self, dir: &std::path::Path) -> pi_coding_tools::Workspace {
        let mut workspace = if self.unconfined {
            pi_coding_tools::Workspace::unconfined(dir)
        } else {
            pi_coding_tools::Workspace::new(dir)
        };
        for extra in &self.allow_dir {
            workspace = workspace.with_root(extra);
        }
        workspace = workspace.with_environment(self.environment.clone());
        if self.no_network {
            workspace = workspace.without_network();
        }
        workspace = workspace.with_shell_sandbox(self.sandbox);
        if let Some(policy) = &self.policy {
            let policy = std::sync::Arc::clone(policy);
            workspace = workspace.with_unreadable(pi_coding_tools::Unreadable::new(move |path| {
                policy.denies_reading(path).is_some()
            }));
        }
        if self.keep_output_files {
            workspace = workspace.keeping_output_files();
        }
        workspace
    }
}

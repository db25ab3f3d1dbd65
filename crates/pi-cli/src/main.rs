//! `pi-tool`: run Pi-style tool calls from the command line.
//!
//! `pi-tool tools` shows what a model would be shown, `pi-tool call` runs one call,
//! `pi-tool run` runs a stream of calls (JSONL in, JSONL out, order kept).

mod commands;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Run Pi-style tool calls over the built-in tools: lookup → parse → execute → paired result.
#[derive(Debug, Parser)]
#[command(name = "pi-tool", version, about)]
struct Cli {
    /// Add Pi's seven coding tools (read, write, edit, bash, grep, find, ls), working in DIR
    /// (the current directory when DIR is left out). The file tools may only reach paths inside
    /// DIR (symbolic links and `..` followed); `bash` may write only inside DIR and the
    /// temporary directory (a Linux Landlock sandbox; its results' details say if enforced).
    #[arg(long, global = true, value_name = "DIR", num_args = 0..=1, default_missing_value = ".")]
    coding_tools: Option<std::path::PathBuf>,
    /// Let the file tools also reach this directory (repeatable).
    #[arg(long, global = true, value_name = "DIR")]
    allow_dir: Vec<std::path::PathBuf>,
    /// Let the file tools reach any path this process can, and run `bash` without its Landlock
    /// sandbox, as upstream Pi's do.
    #[arg(long, global = true)]
    unconfined_file_tools: bool,
    /// Keep `bash` (sandboxed) from opening TCP connections.
    #[arg(long, global = true)]
    no_network: bool,
    #[command(subcommand)]
    command: Command,
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
    /// Run the agent loop over the built-in tools with a scripted (faux) model; print the
    /// transcript as JSONL (and events on stderr with --events).
    Agent(commands::agent::AgentArgs),
    /// Serve the built-in tools over MCP: stdio by default, streamable HTTP with --http.
    Serve(commands::serve::ServeArgs),
    /// Use any MCP server's tools: `mcp tools -- CMD ARGS...`, `mcp call NAME 'JSON' -- CMD ARGS...`
    /// (or `--url http://HOST:PORT/mcp`).
    Mcp(commands::mcp::McpArgs),
}

#[tokio::main]
async fn main() -> ExitCode {
    // A panicking tool is answered with an error result: report the panic in one line, without
    // a backtrace.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("pi-tool: panic: {info}");
    }));
    let cli = Cli::parse();
    let mut tools = pi_tool::builtin::registry();
    if let Some(dir) = &cli.coding_tools {
        let mut workspace = if cli.unconfined_file_tools {
            pi_coding_tools::Workspace::unconfined(dir)
        } else {
            pi_coding_tools::Workspace::new(dir)
        };
        for extra in &cli.allow_dir {
            workspace = workspace.with_root(extra);
        }
        if cli.no_network {
            workspace = workspace.without_network();
        }
        let coding = pi_coding_tools::all_tools(&workspace);
        for tool in coding.list() {
            if let Err(error) = tools.register(tool.clone()) {
                eprintln!("pi-tool: {error}");
                return ExitCode::from(commands::EXIT_USAGE);
            }
        }
    }
    let outcome = match cli.command {
        Command::Tools(args) => commands::tools::run(&args, &tools),
        Command::Call(args) => commands::call::run(args, &tools).await,
        Command::Run(args) => commands::run::run(args, tools).await,
        Command::Check(args) => commands::check::run(args).await,
        Command::Agent(args) => commands::agent::run(args, tools).await,
        Command::Serve(args) => commands::serve::run(args, tools).await,
        Command::Mcp(args) => commands::mcp::run(args).await,
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("pi-tool: {error:#}");
            ExitCode::from(commands::EXIT_USAGE)
        }
    }
}

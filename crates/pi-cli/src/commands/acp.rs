//! `pi-tool acp`: the Agent Client Protocol server an editor starts (`pi_acp` holds the
//! protocol side). This file reads Pi's options into the program's session host, as the print
//! mode does, and gives `pi_acp` what it cannot know: how the coding tools of a directory are
//! made from the options.

use std::process::ExitCode;
use std::sync::Arc;

use pi_acp::{SessionTools, Sessions, ToolsFor};
use pi_coding_agent::{ApprovalSetup, NobodyToAsk};
use pi_tool::ToolRegistry;
use pi_tool::model_text::Wording;

use super::pi_mode::{FrontEnd, PiArgs, PreparedRun, RunPlace, prepare};
use crate::WorkspaceRecipe;

/// Serves ACP on stdin and stdout until the editor closes them or a stop signal arrives.
pub(crate) async fn run(
    args: PiArgs,
    tools: ToolRegistry,
    place: &RunPlace<'_>,
    approvals: ApprovalSetup,
    recipe: WorkspaceRecipe,
    wording: Wording,
) -> anyhow::Result<ExitCode> {
    // The program's own session is never prompted: each editor session gets an approver that
    // asks the editor.
    let approver = Arc::new(NobodyToAsk {
        cwd: place.cwd.to_path_buf(),
        why: "the ACP server asks through the editor's sessions only",
    });
    let Some(PreparedRun { host, prompts }) =
        prepare(&args, FrontEnd::Acp, tools, place, approvals, approver).await?
    else {
        return Ok(ExitCode::SUCCESS);
    };
    if !prompts.is_empty() {
        anyhow::bail!("pi-tool acp takes its prompts from the editor: give no message or @file");
    }
    let tools_for: ToolsFor = Arc::new(move |dir, editor| {
        let workspace = recipe.workspace(dir);
        let outside_tools = recipe.asks_outside.then(|| {
            pi_coding_tools::all_tools(&workspace.without_confinement()).with_wording(wording)
        });
        Ok(SessionTools {
            tools: pi_coding_tools::all_tools(&editor.workspace(workspace)).with_wording(wording),
            outside_tools,
        })
    });
    let mut sessions = Sessions::new(
        host,
        tools_for,
        place.environment.clone(),
        args.mcp_prefix().to_owned(),
    );
    // An editor's terminal runs `bash` as this binary, which confines the command first.
    match std::env::current_exe() {
        Ok(program) => sessions = sessions.with_shell_launcher(program),
        Err(error) => warn(&format!(
            "commands stay in the local sandbox, not the editor's terminal: this program's path is unknown ({error})"
        )),
    }
    let sessions = Arc::new(sessions);
    tokio::select! {
        served = pi_acp::serve_stdio(Arc::clone(&sessions), warn) => served?,
        () = place.shutdown.token().cancelled() => {
            // Stopped by a signal: the connection is gone, its sessions are closed here.
            for failure in sessions.close_all().await {
                warn(&failure);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn warn(line: &str) {
    report!("pi-tool: warning: {line}");
}

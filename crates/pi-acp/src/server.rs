//! The connection: each ACP request the server answers, wired to the official crate's
//! handlers. Prompts run in tasks of their own (the dispatch loop goes on, so a
//! `session/cancel` or a permission answer arrives while a turn runs).

use std::sync::Arc;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, AuthenticateRequest, AuthenticateResponse, AvailableCommandsUpdate,
    CancelNotification, ForkSessionRequest, ForkSessionResponse, Implementation, InitializeRequest,
    InitializeResponse, ListSessionsRequest, ListSessionsResponse, LoadSessionRequest,
    LoadSessionResponse, McpCapabilities, NewSessionRequest, NewSessionResponse,
    PromptCapabilities, PromptRequest, PromptResponse, SessionCapabilities,
    SessionForkCapabilities, SessionListCapabilities, SessionNotification, SessionUpdate,
    SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, SetSessionModeRequest,
    SetSessionModeResponse,
};
use agent_client_protocol::{Agent, Client, ConnectTo};
use pi_coding_agent::SessionHost;

use crate::commands::available_commands;
use crate::error::AcpError;
use crate::replay::replay;
use crate::sessions::{
    EditorSession, Sessions, config_options, modes, set_config_option, set_mode,
};
use crate::turn::{stop_reason, user_message};
use crate::updates::TurnUpdates;

/// Serves ACP over `transport` until the editor closes it; every session is ended (prompts
/// aborted, every call answered, every message written) before this returns. A caller that
/// stops it early (a stop signal) calls [`Sessions::close_all`] itself.
pub async fn serve(
    sessions: Arc<Sessions>,
    transport: impl ConnectTo<Agent> + 'static,
    report: fn(&str),
) -> Result<(), agent_client_protocol::Error> {
    let served = connection(Arc::clone(&sessions), report)
        .connect_to(transport)
        .await;
    for failure in sessions.close_all().await {
        report(&failure);
    }
    served
}

fn connection(
    sessions: Arc<Sessions>,
    report: fn(&str),
) -> agent_client_protocol::v1::Builder<
    Agent,
    impl agent_client_protocol::HandleDispatchFrom<Client> + 'static,
> {
    let for_initialize = Arc::clone(&sessions);
    let (for_new, for_load, for_fork, for_prompt, for_cancel, for_config, for_mode, for_list) = (
        Arc::clone(&sessions),
        Arc::clone(&sessions),
        Arc::clone(&sessions),
        Arc::clone(&sessions),
        Arc::clone(&sessions),
        Arc::clone(&sessions),
        Arc::clone(&sessions),
        sessions,
    );
    Agent
        .v1()
        .name("pi-tool")
        .on_receive_request(
            async move |initialize: InitializeRequest, responder, _connection| {
                for_initialize.set_client_capabilities(initialize.client_capabilities);
                responder.respond(initialize_response())
            },
            agent_client_protocol::on_receive_request!(),
        )
        // No method is advertised: the keys are the program's own (its settings, `auth.json`,
        // the environment). A client that authenticates anyway is told it is done.
        .on_receive_request(
            async move |_request: AuthenticateRequest, responder, _connection| {
                responder.respond(AuthenticateResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, connection| match for_new
                .create(&request.cwd, &request.mcp_servers, &connection)
                .await
            {
                Ok((session, warnings)) => {
                    warnings.iter().for_each(|warning| report(warning));
                    let id = session_id_of(&session).await;
                    let host = session.host.lock().await;
                    responder.respond(
                        NewSessionResponse::new(id.clone())
                            .modes(modes(&host))
                            .config_options(config_options(&host)),
                    )?;
                    announce_commands(&connection, &id, &host);
                    Ok(())
                }
                Err(error) => responder.respond_with_error(error.to_rpc()),
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder, connection| {
                let loaded = for_load
                    .load(
                        &request.session_id,
                        &request.cwd,
                        &request.mcp_servers,
                        &connection,
                    )
                    .await;
                let (session, warnings) = match loaded {
                    Ok(loaded) => loaded,
                    Err(error) => return responder.respond_with_error(error.to_rpc()),
                };
                warnings.iter().for_each(|warning| report(warning));
                let host = session.host.lock().await;
                let messages = host
                    .session()
                    .map_err(|error| AcpError::Session(pi_tool::error_text(&error)))
                    .and_then(|running| running.messages().map_err(AcpError::runtime));
                let messages = match messages {
                    Ok(messages) => messages,
                    Err(error) => return responder.respond_with_error(error.to_rpc()),
                };
                // The conversation goes out before the answer, as ACP asks.
                for update in replay(&messages, &session.cwd) {
                    notify(&connection, &request.session_id.0, update);
                }
                responder.respond(
                    LoadSessionResponse::new()
                        .modes(modes(&host))
                        .config_options(config_options(&host)),
                )?;
                announce_commands(&connection, &request.session_id.0, &host);
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        // ACP's `session/fork` (unstable in the protocol: the crate's `unstable_session_fork`).
        .on_receive_request(
            async move |request: ForkSessionRequest, responder, connection| match for_fork
                .fork(
                    &request.session_id,
                    &request.cwd,
                    &request.mcp_servers,
                    &connection,
                )
                .await
            {
                Ok((session, warnings)) => {
                    warnings.iter().for_each(|warning| report(warning));
                    let id = session_id_of(&session).await;
                    let host = session.host.lock().await;
                    responder.respond(
                        ForkSessionResponse::new(id.clone())
                            .modes(modes(&host))
                            .config_options(config_options(&host)),
                    )?;
                    announce_commands(&connection, &id, &host);
                    Ok(())
                }
                Err(error) => responder.respond_with_error(error.to_rpc()),
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, connection| {
                let editor = match for_prompt.get(&request.session_id) {
                    Ok(editor) => editor,
                    Err(error) => return responder.respond_with_error(error.to_rpc()),
                };
                // A task of the runtime, not of the connection: when the editor goes away
                // mid-turn, the turn still ends (aborted, every call answered and written)
                // before its session is closed (`Sessions::close_all` waits for it).
                let turn_editor = Arc::clone(&editor);
                let turn = tokio::spawn(async move {
                    // An answer to an editor that went away has nowhere to go.
                    let _ = match prompt(&turn_editor, request, &connection).await {
                        Ok(response) => responder.respond(response),
                        Err(error) => responder.respond_with_error(error.to_rpc()),
                    };
                });
                editor.add_turn(turn);
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |cancel: CancelNotification, _connection| {
                // A cancel for a session that is not open cancels nothing.
                if let Ok(session) = for_cancel.get(&cancel.session_id) {
                    session.cancel();
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: SetSessionConfigOptionRequest, responder, _connection| {
                let changed = async {
                    let session = for_config.get(&request.session_id)?;
                    let value = request
                        .value
                        .as_value_id()
                        .ok_or_else(|| AcpError::BadValue("a value id is expected".to_owned()))?;
                    let mut host = session.host.lock().await;
                    set_config_option(&mut host, &request.config_id.0, &value.0).await?;
                    Ok::<_, AcpError>(config_options(&host))
                }
                .await;
                match changed {
                    Ok(options) => responder.respond(SetSessionConfigOptionResponse::new(options)),
                    Err(error) => responder.respond_with_error(error.to_rpc()),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ListSessionsRequest, responder, _connection| match for_list
                .list(request.cwd.as_deref())
                .await
            {
                Ok(sessions) => responder.respond(ListSessionsResponse::new(sessions)),
                Err(error) => responder.respond_with_error(error.to_rpc()),
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest, responder, _connection| {
                let changed = async {
                    let session = for_mode.get(&request.session_id)?;
                    let mut host = session.host.lock().await;
                    set_mode(&mut host, &request.mode_id.0).await
                }
                .await;
                match changed {
                    Ok(()) => responder.respond(SetSessionModeResponse::new()),
                    Err(error) => responder.respond_with_error(error.to_rpc()),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
}

/// What the server can do: load, list and fork sessions; prompts of text, images and embedded context; MCP
/// servers over stdio and HTTP.
fn initialize_response() -> InitializeResponse {
    InitializeResponse::new(ProtocolVersion::V1)
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .prompt_capabilities(PromptCapabilities::new().image(true).embedded_context(true))
                .mcp_capabilities(McpCapabilities::new().http(true))
                .session_capabilities(
                    SessionCapabilities::new()
                        .list(SessionListCapabilities::new())
                        .fork(SessionForkCapabilities::new()),
                ),
        )
        .agent_info(Implementation::new("pi-tool", env!("CARGO_PKG_VERSION")).title("Pi (Rust)"))
}

async fn session_id_of(session: &EditorSession) -> String {
    let host = session.host.lock().await;
    host.session()
        .map(|running| running.session_id())
        .unwrap_or_default()
}

/// Tells the editor the session's slash commands (its skills and prompt templates), when it
/// has any.
fn announce_commands(connection: &ConnectionTo<Client>, session_id: &str, host: &SessionHost) {
    let Ok(session) = host.session() else {
        return;
    };
    let commands = available_commands(session.commands());
    if !commands.is_empty() {
        notify(
            connection,
            session_id,
            SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(commands)),
        );
    }
}

fn notify(connection: &ConnectionTo<Client>, session_id: &str, update: SessionUpdate) {
    // A closed connection has nobody to show the update to.
    let _ = connection.send_notification(SessionNotification::new(session_id.to_owned(), update));
}

/// Runs one prompt turn, streaming its updates; the stop reason when it ends.
async fn prompt(
    editor: &EditorSession,
    request: PromptRequest,
    connection: &ConnectionTo<Client>,
) -> Result<PromptResponse, AcpError> {
    let session = {
        let host = editor.host.lock().await;
        if host.is_busy() {
            return Err(AcpError::Busy);
        }
        Arc::clone(
            host.session()
                .map_err(|error| AcpError::Session(pi_tool::error_text(&error)))?,
        )
    };
    editor.set_running(Some(Arc::clone(&session)));
    let message = session.expand_commands(user_message(&request.prompt));
    let id = &request.session_id.0;
    let mut events = session.subscribe();
    let mut turn = TurnUpdates::new(editor.cwd.clone()).with_editor_files(editor.files.clone());
    let run = session.prompt(vec![message.into()]);
    tokio::pin!(run);
    let outcome = loop {
        tokio::select! {
            biased;
            Some(event) = events.recv() => {
                for update in turn.on_event(&event) {
                    notify(connection, id, update);
                }
            }
            outcome = &mut run => break outcome,
        }
    };
    // Every event of the run was sent before it returned.
    while let Ok(event) = events.try_recv() {
        for update in turn.on_event(&event) {
            notify(connection, id, update);
        }
    }
    for update in turn.finish() {
        notify(connection, id, update);
    }
    editor.set_running(None);
    stop_reason(&outcome)
        .map(PromptResponse::new)
        .map_err(AcpError::Session)
}

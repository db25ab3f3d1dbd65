//! The loop itself: turns of model response and tool batch until the model stops.

use std::sync::Arc;

use futures::StreamExt;
use pi_ai::{
    AssistantMessage, AssistantMessageBuilder, AssistantMessageEvent, Message, Request, StopReason,
    Usage,
};
use pi_tool::{ToolCall, ToolDefinition, now_millis};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

use crate::batch::{Answered, refuse_failed, refuse_truncated, run_batch};
use crate::emitter::Emitter;
use crate::{AgentConfig, AgentEvent, EndReason, MessageQueue};

/// An agent: a configuration, its subscribers and its message queues.
#[derive(Debug)]
pub struct Agent {
    config: AgentConfig,
    emitter: Emitter,
    steering: MessageQueue,
    follow_ups: MessageQueue,
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRun {
    /// Every message this run added, in order: prompts, assistant messages, tool results,
    /// injected steering and follow-up messages.
    pub messages: Vec<Message>,
    /// Why it ended.
    pub end: EndReason,
    /// What went wrong, for `error`, `aborted` and `maxTurns`.
    pub error: Option<String>,
}

impl Agent {
    /// An agent with this configuration.
    pub fn new(config: AgentConfig) -> Self {
        Self {
            config,
            emitter: Emitter::default(),
            steering: MessageQueue::default(),
            follow_ups: MessageQueue::default(),
        }
    }

    /// Every event from now on, through an unbounded channel of its own.
    pub fn subscribe(&self) -> UnboundedReceiver<AgentEvent> {
        self.emitter.subscribe()
    }

    /// The events `wanted` accepts, from now on. Events carry whole messages (a 32 MiB answer
    /// in `message_end`, `turn_end`, `agent_end`): a subscriber that reads only some kinds
    /// should say so, or every other subscriber's events are copied for it too.
    pub fn subscribe_to(&self, wanted: fn(&AgentEvent) -> bool) -> UnboundedReceiver<AgentEvent> {
        self.emitter.subscribe_to(wanted)
    }

    /// The configuration.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// Sends an event of what happens around the loop (an automatic retry) to the
    /// subscribers, in order with the loop's own events.
    pub fn announce(&self, event: AgentEvent) {
        self.emitter.emit(event);
    }

    /// Announces what the steering and follow-up queues hold now (`queue_update`): whoever
    /// queues or clears messages calls it, the loop does when it delivers some.
    pub fn announce_queues(&self) {
        self.emitter.emit(AgentEvent::QueueUpdate {
            steering: self.steering.texts(),
            follow_up: self.follow_ups.texts(),
        });
    }

    /// What `queue` has due now, announced as a queue change when anything was taken (before
    /// the messages' own events, as Pi orders them).
    fn take_queued(&self, queue: &MessageQueue) -> Vec<Message> {
        let taken = queue.take_due();
        if !taken.is_empty() {
            self.announce_queues();
        }
        taken
    }

    #[cfg(feature = "compaction")]
    pub(crate) fn emitter(&self) -> &Emitter {
        &self.emitter
    }

    /// Messages delivered after the current batch of tool calls.
    pub fn steering(&self) -> MessageQueue {
        self.steering.clone()
    }

    /// Messages delivered when the agent would otherwise stop.
    pub fn follow_ups(&self) -> MessageQueue {
        self.follow_ups.clone()
    }

    /// The one-shot case: a new conversation of one user message, run to its end (nothing
    /// cancels it; use [`Agent::run`] for history and cancellation).
    pub async fn prompt(&self, text: impl Into<String>) -> AgentRun {
        self.run(
            Vec::new(),
            vec![pi_ai::UserMessage::text(text).into()],
            CancellationToken::new(),
        )
        .await
    }

    /// Runs the loop on `history` plus the new `prompts` until the model stops, every result
    /// of a batch asks to terminate, the turn limit is reached, or `signal` fires.
    pub async fn run(
        &self,
        history: Vec<Message>,
        prompts: Vec<Message>,
        signal: CancellationToken,
    ) -> AgentRun {
        let span = crate::telemetry::run_span(&self.config);
        tracing::Instrument::instrument(self.run_inner(history, prompts, signal), span).await
    }

    async fn run_inner(
        &self,
        history: Vec<Message>,
        prompts: Vec<Message>,
        signal: CancellationToken,
    ) -> AgentRun {
        self.emitter.emit(AgentEvent::AgentStart);
        let mut run = Run {
            added_from: history.len(),
            context: Arc::new(history),
            added: Vec::new(),
            emitter: &self.emitter,
        };
        // Shown to the model every turn: listed once for the run, shared by its requests.
        let tools: Arc<[ToolDefinition]> = self.config.shown_tools().into();
        // Pi's order: the first turn starts before the prompts are announced (its
        // `turn_start` comes before the prompts' `message_start`).
        self.emitter.emit(AgentEvent::TurnStart);
        let mut first_turn_started = true;
        for prompt in prompts {
            run.add(prompt);
        }
        let mut turns = 0usize;
        let (end, error) = loop {
            if signal.is_cancelled() {
                break (EndReason::Aborted, Some("the run was cancelled".to_owned()));
            }
            if let Some(limit) = self.config.max_turns.filter(|limit| turns >= *limit) {
                break (
                    EndReason::MaxTurns,
                    Some(format!("stopped after {limit} turns (max_turns)")),
                );
            }
            if let Some(hook) = &self.config.before_request {
                let context = crate::BeforeRequestContext {
                    messages: Arc::clone(&run.context),
                    added_from: run.added_from,
                    turn: turns + 1,
                };
                if let Err(reason) = hook(context).await {
                    break (EndReason::Error, Some(reason));
                }
            }
            turns += 1;
            if !std::mem::take(&mut first_turn_started) {
                self.emitter.emit(AgentEvent::TurnStart);
            }
            let response = self.respond(&run.context, &tools, &signal);
            let assistant = crate::telemetry::traced_response(&self.config, response).await;
            let stop_reason = assistant.stop_reason;
            // Each call once, shared by its task, its hooks and its result.
            let calls: Vec<Arc<ToolCall>> =
                assistant.tool_calls().into_iter().map(Arc::new).collect();
            let error_message = assistant.error_message.clone();
            let assistant = run.add_streamed(assistant);
            // What follows the answer's `message_end` at once (the end of a retry that worked).
            if let Some(event) = self
                .config
                .after_response
                .as_ref()
                .zip(assistant.as_assistant())
                .and_then(|(hook, answer)| hook(answer))
            {
                self.emitter.emit(event);
            }

            if matches!(stop_reason, StopReason::Error | StopReason::Aborted) {
                // Calls that a failed response managed to propose still get their one result.
                let unanswered = refuse_failed(&self.config, &calls, &self.emitter).await;
                for result in &unanswered {
                    run.add_shared(Arc::clone(&result.message));
                }
                self.turn_end(assistant, &unanswered);
                let reason = if stop_reason == StopReason::Aborted {
                    EndReason::Aborted
                } else {
                    EndReason::Error
                };
                break (reason, error_message);
            }
            if calls.is_empty() {
                self.turn_end(assistant, &[]);
                if run.inject(self.take_queued(&self.steering))
                    || run.inject(self.take_queued(&self.follow_ups))
                {
                    continue;
                }
                break (EndReason::Completed, None);
            }
            let executed = if stop_reason == StopReason::Length {
                refuse_truncated(&self.config, &calls, &self.emitter).await
            } else {
                run_batch(&self.config, &calls, &signal, &self.emitter).await
            };
            for result in &executed {
                run.add_shared(Arc::clone(&result.message));
            }
            self.turn_end(assistant, &executed);
            if signal.is_cancelled() {
                break (EndReason::Aborted, Some("the run was cancelled".to_owned()));
            }
            if executed.iter().all(|result| result.terminate) {
                break (EndReason::Terminated, None);
            }
            run.inject(self.take_queued(&self.steering));
        };
        let (messages, shared) = run.into_added();
        let will_retry = self
            .config
            .will_retry
            .as_ref()
            .is_some_and(|hook| hook(&messages));
        self.emitter.emit(AgentEvent::AgentEnd {
            messages: shared,
            reason: end,
            will_retry,
        });
        AgentRun {
            messages,
            end,
            error,
        }
    }

    fn turn_end(&self, message: Arc<Message>, executed: &[Answered]) {
        self.emitter.emit(AgentEvent::TurnEnd {
            message,
            tool_results: executed
                .iter()
                .map(|result| Arc::clone(&result.message))
                .collect(),
        });
    }

    /// Streams one response, announcing it, and returns the final message.
    async fn respond(
        &self,
        context: &Arc<Vec<Message>>,
        tools: &Arc<[ToolDefinition]>,
        signal: &CancellationToken,
    ) -> AssistantMessage {
        let request = Request {
            system_prompt: self.config.system_prompt.clone(),
            messages: Arc::clone(context),
            tools: Arc::clone(tools),
        };
        let mut stream = self.config.provider.stream(request, signal.clone());
        let mut builder: Option<AssistantMessageBuilder> = None;
        while let Some(event) = stream.next().await {
            // `start`, `done` and `error` are this message's start and end, announced as such
            // (Pi passes them on no further either); the final message is taken, not copied.
            let update = match (&mut builder, event) {
                (None, AssistantMessageEvent::Start { partial }) => {
                    builder = Some(self.start_response(*partial));
                    None
                }
                (None, event) => builder
                    .insert(self.start_response(self.empty_response()))
                    .take(event),
                (Some(builder), event) => builder.take(event),
            };
            if let Some(event) = update {
                self.emitter.emit(AgentEvent::MessageUpdate {
                    assistant_message_event: event,
                });
            }
        }
        builder
            .unwrap_or_else(|| self.start_response(self.empty_response()))
            .finish()
    }

    /// Announces the response's start and begins building it.
    fn start_response(&self, partial: AssistantMessage) -> AssistantMessageBuilder {
        self.emitter.emit(AgentEvent::MessageStart {
            message: Arc::new(Message::Assistant(partial.clone())),
        });
        AssistantMessageBuilder::new(partial)
    }

    fn empty_response(&self) -> AssistantMessage {
        let model = self.config.provider.model();
        AssistantMessage {
            content: Vec::new(),
            api: model.api,
            provider: model.provider,
            model: model.model,
            usage: Usage::default(),
            stop_reason: StopReason::Stop,
            error_message: None,
            timestamp: now_millis(),
            response_id: None,
        }
    }
}

/// The conversation of one run.
struct Run<'a> {
    /// History and everything added since, shared with the request of the turn in flight; by
    /// the time a message is added the provider has let go of it, so appending copies nothing.
    context: Arc<Vec<Message>>,
    /// Where this run's own messages begin in `context`.
    added_from: usize,
    /// This run's messages as its events share them: each message is copied once, for the
    /// transcript the next request reads, whatever the number of events and subscribers.
    added: Vec<Arc<Message>>,
    emitter: &'a Emitter,
}

impl Run<'_> {
    /// Adds a complete message, announced as started and ended.
    fn add(&mut self, message: Message) {
        self.add_shared(Arc::new(message));
    }

    /// Adds a complete message its events share, announced as started and ended.
    fn add_shared(&mut self, message: Arc<Message>) {
        self.emitter.emit(AgentEvent::MessageStart {
            message: Arc::clone(&message),
        });
        self.emitter.emit(AgentEvent::MessageEnd {
            message: Arc::clone(&message),
        });
        self.keep(message);
    }

    /// Adds the streamed response (its start was announced while it streamed) and announces
    /// its end; the shared message comes back for the turn's end.
    fn add_streamed(&mut self, message: AssistantMessage) -> Arc<Message> {
        let message = Arc::new(Message::Assistant(message));
        self.emitter.emit(AgentEvent::MessageEnd {
            message: Arc::clone(&message),
        });
        self.keep(Arc::clone(&message));
        message
    }

    fn keep(&mut self, message: Arc<Message>) {
        Arc::make_mut(&mut self.context).push(Message::clone(&message));
        self.added.push(message);
    }

    /// The messages this run added (moved out, unless a provider still holds the transcript),
    /// and the same as its events shared them.
    fn into_added(self) -> (Vec<Message>, Vec<Arc<Message>>) {
        let own = match Arc::try_unwrap(self.context) {
            Ok(mut all) => all.split_off(self.added_from),
            Err(shared) => shared.get(self.added_from..).unwrap_or_default().to_vec(),
        };
        (own, self.added)
    }

    /// Adds queued messages; whether there were any.
    fn inject(&mut self, messages: Vec<Message>) -> bool {
        let any = !messages.is_empty();
        for message in messages {
            self.add(message);
        }
        any
    }
}

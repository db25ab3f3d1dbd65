//! The summary requests: Pi's prompts sent to the model, the answers checked for Pi's headings.

use futures::StreamExt;
use pi_ai::{AssistantMessageBuilder, Provider, Request, StopReason, UserMessage};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::*;

/// Asks `provider` for the summary (and, for a split turn, the prefix's summary, at the same
/// time) and checks it.
///
/// Traced as a `pi_tool.compaction` span (no GenAI convention names compaction yet) when a
/// subscriber listens; its summary requests are its children.
pub async fn summarize(
    provider: &dyn Provider,
    preparation: &Preparation,
    focus: Option<&str>,
    signal: &CancellationToken,
) -> Result<Summary, CompactionError> {
    if !pi_telemetry::spans::enabled() {
        return summarize_untraced(provider, preparation, focus, signal).await;
    }
    let model = provider.model();
    let span = pi_telemetry::spans::compaction(&model.provider, &model.model);
    let summary = summarize_untraced(provider, preparation, focus, signal)
        .instrument(span.clone())
        .await;
    if summary.is_err() {
        pi_telemetry::spans::record_error(&span, pi_telemetry::ErrorType::ModelError);
    }
    summary
}

async fn summarize_untraced(
    provider: &dyn Provider,
    preparation: &Preparation,
    focus: Option<&str>,
    signal: &CancellationToken,
) -> Result<Summary, CompactionError> {
    let previous = preparation.previous_summary.as_deref();
    let history = async {
        if preparation.messages_to_summarize.is_empty() {
            // Only a turn prefix is new: the earlier summary (if any) still stands.
            return Ok::<_, CompactionError>(previous.unwrap_or("No prior history.").to_owned());
        }
        let prompt = history_prompt(&preparation.messages_to_summarize, previous, focus);
        let text = ask(provider, prompt, signal).await?;
        check(&text, &SUMMARY_HEADINGS)?;
        Ok(text)
    };
    let mut text = if preparation.turn_prefix.is_empty() {
        history.await?
    } else {
        let prefix = async {
            let text = ask(
                provider,
                turn_prefix_prompt(&preparation.turn_prefix),
                signal,
            )
            .await?;
            check(&text, &TURN_PREFIX_HEADINGS)?;
            Ok::<_, CompactionError>(text)
        };
        let (history, prefix) = futures::join!(history, prefix);
        format!(
            "{}\n\n---\n\n**Turn Context (split turn):**\n\n{}",
            history?, prefix?
        )
    };
    text.push_str(&preparation.files.format());
    Ok(Summary { text })
}

fn check(text: &str, headings: &[&str]) -> Result<(), CompactionError> {
    if text.trim().is_empty() {
        return Err(CompactionError::EmptySummary);
    }
    let missing = missing_headings(text, headings);
    if missing.is_empty() {
        Ok(())
    } else {
        Err(CompactionError::MissingHeadings {
            missing: missing.into_iter().map(str::to_owned).collect(),
        })
    }
}

/// One summary request: Pi's system prompt, the prompt as the only user message, no tools.
async fn ask(
    provider: &dyn Provider,
    prompt: String,
    signal: &CancellationToken,
) -> Result<String, CompactionError> {
    let request = Request {
        system_prompt: Some(SUMMARY_SYSTEM_PROMPT.to_owned()),
        messages: Arc::new(vec![Message::User(UserMessage::text(prompt))]),
        tools: Vec::new().into(),
    };
    let mut stream = provider.stream(request, signal.clone());
    let mut builder: Option<AssistantMessageBuilder> = None;
    while let Some(event) = stream.next().await {
        let builder = builder.get_or_insert_with(|| {
            let partial = match &event {
                pi_ai::AssistantMessageEvent::Start { partial } => {
                    pi_ai::AssistantMessage::clone(partial)
                }
                _ => pi_ai::AssistantMessage::new(&provider.model(), Vec::new()),
            };
            AssistantMessageBuilder::new(partial)
        });
        // The final event's message is taken, not copied; what else comes is not passed on.
        let _ = builder.take(event);
    }
    let Some(builder) = builder else {
        return Err(CompactionError::Summarize(
            "the provider sent no response".to_owned(),
        ));
    };
    let message = builder.finish();
    if matches!(message.stop_reason, StopReason::Error | StopReason::Aborted) {
        return Err(CompactionError::Summarize(
            message
                .error_message
                .unwrap_or_else(|| format!("{:?}", message.stop_reason)),
        ));
    }
    let text: Vec<&str> = message
        .content
        .iter()
        .filter_map(|block| match block {
            pi_ai::AssistantContent::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    Ok(text.join("\n"))
}

//! Where a compaction cuts: Pi's `findCutPoint`. Walking back from the newest entry, message
//! sizes (chars/4) add up until the recent budget is reached; the cut goes to the nearest entry
//! at or after that point where a cut is allowed. A tool result is never a cut point, so a call
//! and its result always stay on the same side. Linear in the path length.

use pi_session::{Entry, EntryKind, SessionError};
use serde_json::Value;

/// What the cut-point search needs to know about one entry of the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathItem {
    /// What kind of entry it is.
    pub kind: ItemKind,
    /// Its estimated size in tokens (messages only; 0 for the rest).
    pub tokens: u64,
}

/// The kinds of entries the search tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// A user (or `bashExecution`) message: a cut point that starts a turn.
    UserMessage,
    /// An assistant, custom or summary message: a cut point inside a turn.
    OtherMessage,
    /// A tool result: never a cut point.
    ToolResult,
    /// A `branch_summary` or `custom_message` entry: a cut point that starts a turn, but not
    /// counted in the budget (as in Pi).
    UserEntry,
    /// A compaction: the backward scan for settings entries stops there.
    Compaction,
    /// Settings, labels, custom state: carried along with the cut.
    Other,
}

impl PathItem {
    /// Classifies one session entry. A user, assistant or tool message is read straight from
    /// its line and settings, labels and custom state by their type alone: [`Entry::kind`]
    /// builds a JSON map of the entry and keeps it, which for a long session's every message
    /// doubled the memory a compaction left behind. Fails when the entry's line cannot be
    /// read again (the file changed on disk since it was loaded).
    pub fn of(entry: &Entry) -> Result<Self, SessionError> {
        match entry.entry_type() {
            "message" => {
                if let Some(message) = entry.message()? {
                    let kind = match message {
                        pi_ai::Message::User(_) => ItemKind::UserMessage,
                        pi_ai::Message::ToolResult(_) => ItemKind::ToolResult,
                        pi_ai::Message::Assistant(_) => ItemKind::OtherMessage,
                    };
                    let tokens = estimate_tokens(&message);
                    return Ok(Self { kind, tokens });
                }
            }
            "branch_summary" | "custom_message" => {}
            "compaction" if entry.is_compaction() => {
                return Ok(Self {
                    kind: ItemKind::Compaction,
                    tokens: 0,
                });
            }
            // Settings, labels, custom state, unknown types, a malformed compaction.
            _ => {
                return Ok(Self {
                    kind: ItemKind::Other,
                    tokens: 0,
                });
            }
        }
        let (kind, tokens) = match entry.kind()? {
            EntryKind::Message(message) => {
                let kind = match message.get("role").and_then(Value::as_str) {
                    Some("user" | "bashExecution") => ItemKind::UserMessage,
                    Some("toolResult") => ItemKind::ToolResult,
                    _ => ItemKind::OtherMessage,
                };
                (kind, estimate_message_tokens(message))
            }
            EntryKind::BranchSummary { .. } | EntryKind::CustomMessage { .. } => {
                (ItemKind::UserEntry, 0)
            }
            EntryKind::Compaction { .. } => (ItemKind::Compaction, 0),
            _ => (ItemKind::Other, 0),
        };
        Ok(Self { kind, tokens })
    }

    fn is_message(self) -> bool {
        matches!(
            self.kind,
            ItemKind::UserMessage | ItemKind::OtherMessage | ItemKind::ToolResult
        )
    }

    fn is_cut_point(self) -> bool {
        !matches!(
            self.kind,
            ItemKind::ToolResult | ItemKind::Compaction | ItemKind::Other
        )
    }

    fn starts_turn(self) -> bool {
        matches!(self.kind, ItemKind::UserMessage | ItemKind::UserEntry)
    }
}

/// Where to cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutPoint {
    /// The index of the first entry kept verbatim.
    pub first_kept: usize,
    /// When the cut falls inside a turn: the index of the entry that started the turn (its
    /// prefix up to `first_kept` gets a summary of its own).
    pub split_turn_start: Option<usize>,
}

/// Pi's chars/4 estimate of a stored message (a JSON object with a `role`), rounded up.
/// Images count as 4,800 characters. Characters are counted as JavaScript counts a string's
/// length (UTF-16 units), so the numbers match Pi's.
pub fn estimate_message_tokens(message: &Value) -> u64 {
    let text = |value: Option<&Value>| value.and_then(Value::as_str).map_or(0, utf16_len);
    let blocks = |content: Option<&Value>, images: bool| -> u64 {
        match content {
            Some(Value::String(text)) => utf16_len(text),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .map(|block| match block.get("type").and_then(Value::as_str) {
                    Some("text") => text(block.get("text")),
                    Some("image") if images => 4_800,
                    _ => 0,
                })
                .sum(),
            _ => 0,
        }
    };
    let chars = match message.get("role").and_then(Value::as_str) {
        Some("user") => blocks(message.get("content"), false),
        Some("assistant") => {
            message
                .get("content")
                .and_then(Value::as_array)
                .map_or(0, |content| {
                    content
                        .iter()
                        .map(|block| match block.get("type").and_then(Value::as_str) {
                            Some("text") => text(block.get("text")),
                            Some("thinking") => text(block.get("thinking")),
                            Some("toolCall") => {
                                let arguments = block
                                    .get("arguments")
                                    .map_or(0, |arguments| utf16_len(&arguments.to_string()));
                                text(block.get("name")) + arguments
                            }
                            _ => 0,
                        })
                        .sum()
                })
        }
        Some("custom" | "toolResult") => blocks(message.get("content"), true),
        Some("bashExecution") => text(message.get("command")) + text(message.get("output")),
        Some("branchSummary" | "compactionSummary") => text(message.get("summary")),
        _ => 0,
    };
    chars.div_ceil(4)
}

/// The same estimate for a message the model is sent (read from the typed message: no JSON is
/// built).
pub fn estimate_tokens(message: &pi_ai::Message) -> u64 {
    use pi_ai::{AssistantContent, Message, UserContent};
    use pi_tool::Content;
    let blocks = |content: &[Content], images: bool| -> u64 {
        content
            .iter()
            .map(|block| match block {
                Content::Text { text } => utf16_len(text),
                Content::Image { .. } if images => 4_800,
                Content::Image { .. } => 0,
            })
            .sum()
    };
    let chars = match message {
        Message::User(user) => match &user.content {
            UserContent::Text(text) => utf16_len(text),
            UserContent::Blocks(content) => blocks(content, false),
        },
        Message::Assistant(assistant) => assistant
            .content
            .iter()
            .map(|block| match block {
                AssistantContent::Text { text, .. } => utf16_len(text),
                AssistantContent::Thinking { thinking, .. } => utf16_len(thinking),
                AssistantContent::ToolCall {
                    name, arguments, ..
                } => utf16_len(name) + utf16_len(&arguments.to_string()),
            })
            .sum(),
        Message::ToolResult(result) => blocks(&result.content, true),
    };
    chars.div_ceil(4)
}

fn utf16_len(text: &str) -> u64 {
    u64::try_from(text.encode_utf16().count()).unwrap_or(u64::MAX)
}

/// Finds the cut in `items[start..end]` that keeps about `keep_recent_tokens` verbatim.
/// Without any cut point it keeps everything from `start`.
pub fn find_cut_point(
    items: &[PathItem],
    start: usize,
    end: usize,
    keep_recent_tokens: u64,
) -> CutPoint {
    let end = end.min(items.len());
    let start = start.min(end);
    let window = items.get(start..end).unwrap_or_default();
    let Some(first_cut) = window.iter().position(|item| item.is_cut_point()) else {
        return CutPoint {
            first_kept: start,
            split_turn_start: None,
        };
    };
    let mut cut = start + first_cut;
    let mut accumulated = 0u64;
    for (index, item) in window.iter().enumerate().rev() {
        if !item.is_message() {
            continue;
        }
        accumulated = accumulated.saturating_add(item.tokens);
        if accumulated >= keep_recent_tokens {
            // The nearest cut point at or after this message (none: keep the first one).
            if let Some(offset) = window
                .get(index..)
                .unwrap_or_default()
                .iter()
                .position(|item| item.is_cut_point())
            {
                cut = start + index + offset;
            }
            break;
        }
    }
    // Settings and labels just before the cut stay with the kept part.
    while cut > start {
        match items.get(cut - 1) {
            Some(item) if !item.is_message() && item.kind != ItemKind::Compaction => cut -= 1,
            _ => break,
        }
    }
    let is_user = items.get(cut).map(|item| item.kind) == Some(ItemKind::UserMessage);
    let split_turn_start = if is_user {
        None
    } else {
        items
            .get(start..=cut)
            .unwrap_or_default()
            .iter()
            .rposition(|item| item.starts_turn())
            .map(|offset| start + offset)
    };
    CutPoint {
        first_kept: cut,
        split_turn_start,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    fn item(kind: ItemKind, tokens: u64) -> PathItem {
        PathItem { kind, tokens }
    }

    #[test]
    fn estimates_are_pis_chars_over_four() {
        assert_eq!(
            estimate_message_tokens(&json!({"role":"user","content":"abcde"})),
            2
        );
        let call = json!({"role":"assistant","content":[
            {"type":"text","text":"ok"},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"a"}}]});
        // "ok" + "read" + {"path":"a"} = 2 + 4 + 12
        assert_eq!(estimate_message_tokens(&call), 5);
        let image = json!({"role":"toolResult","content":[{"type":"image","data":"x","mimeType":"image/png"}]});
        assert_eq!(estimate_message_tokens(&image), 1_200);
        assert_eq!(
            estimate_message_tokens(
                &json!({"role":"bashExecution","command":"ls","output":"a\nb"})
            ),
            2
        );
        // Pi counts UTF-16 units: an emoji is two.
        assert_eq!(
            estimate_message_tokens(&json!({"role":"user","content":"😀😀"})),
            1
        );
    }

    #[test]
    fn the_typed_estimate_matches_the_json_one() {
        for value in [
            json!({"role":"user","content":"abcde","timestamp":0}),
            json!({"role":"user","content":[{"type":"text","text":"ab"},{"type":"image","data":"x","mimeType":"image/png"}],"timestamp":0}),
            json!({"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"ok"},
                {"type":"toolCall","id":"c","name":"read","arguments":{"path":"a","n":[1,2]}}],
                "api":"a","provider":"p","model":"m","stopReason":"toolUse","timestamp":0}),
            json!({"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"😀 result"},
                {"type":"image","data":"x","mimeType":"image/png"}],"isError":false,"timestamp":0}),
        ] {
            let message: pi_ai::Message = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(
                estimate_tokens(&message),
                estimate_message_tokens(&value),
                "{value}"
            );
        }
    }

    #[test]
    fn each_entry_type_is_classified_as_pi_does() {
        let check = |value: Value, kind: ItemKind, tokens: u64| {
            let entry = Entry::from_value(value).unwrap();
            assert_eq!(
                PathItem::of(&entry).unwrap(),
                item(kind, tokens),
                "{}",
                entry.line().unwrap()
            );
        };
        let message = |message: Value| json!({"type":"message","id":"a","message":message});
        let assistant = json!({"role":"assistant","content":[{"type":"text","text":"abcd"}],
            "api":"a","provider":"p","model":"m","stopReason":"stop","timestamp":0});
        let result = json!({"role":"toolResult","toolCallId":"c","toolName":"read",
            "content":[{"type":"text","text":"abcdefghi"}],"isError":false,"timestamp":0});
        let user = json!({"role":"user","content":"abcdefgh","timestamp":0});
        check(message(user), ItemKind::UserMessage, 2);
        check(message(assistant), ItemKind::OtherMessage, 1);
        check(message(result), ItemKind::ToolResult, 3);
        // Read through the entry's JSON: Pi's other roles, a block type we do not know.
        let bash = json!({"role":"bashExecution","command":"ls","output":"a\nb"});
        check(message(bash), ItemKind::UserMessage, 2);
        check(
            message(json!({"role":"custom","content":"abcd"})),
            ItemKind::OtherMessage,
            1,
        );
        let audio =
            json!({"role":"user","content":[{"type":"audio"},{"type":"text","text":"abcd"}]});
        check(message(audio), ItemKind::UserMessage, 1);
        for summary in [
            json!({"type":"branch_summary","id":"a","fromId":"b","summary":"s"}),
            json!({"type":"custom_message","id":"a","customType":"t","content":"c"}),
        ] {
            check(summary, ItemKind::UserEntry, 0);
        }
        let compaction = json!({"type":"compaction","id":"a","summary":"s","firstKeptEntryId":"b"});
        check(compaction, ItemKind::Compaction, 0);
        for other in [
            json!({"type":"message","id":"a"}),
            json!({"type":"custom_message","id":"a","content":"c"}),
            json!({"type":"compaction","id":"a"}),
            json!({"type":"model_change","id":"a","provider":"p","modelId":"m"}),
            json!({"type":"label","id":"a","targetId":"b","label":"x"}),
            json!({"type":"future","id":"a","message":{"role":"user","content":"x"}}),
        ] {
            check(other, ItemKind::Other, 0);
        }
    }

    #[test]
    fn never_cuts_between_a_call_and_its_result() {
        // user, assistant(call), result, result, assistant(call), result, assistant
        let items = [
            item(ItemKind::UserMessage, 10),
            item(ItemKind::OtherMessage, 10),
            item(ItemKind::ToolResult, 100),
            item(ItemKind::ToolResult, 100),
            item(ItemKind::OtherMessage, 10),
            item(ItemKind::ToolResult, 100),
            item(ItemKind::OtherMessage, 10),
        ];
        for keep in 0..500 {
            let cut = find_cut_point(&items, 0, items.len(), keep);
            assert_ne!(
                items[cut.first_kept].kind,
                ItemKind::ToolResult,
                "keep {keep}"
            );
        }
        // 110 tokens reached at the last result: the nearest cut point after it is the answer.
        let cut = find_cut_point(&items, 0, items.len(), 110);
        assert_eq!(cut.first_kept, 6);
        assert_eq!(cut.split_turn_start, Some(0));
        // Reached inside the first batch: the cut moves forward to the next assistant message.
        let cut = find_cut_point(&items, 0, items.len(), 250);
        assert_eq!(cut.first_kept, 4);
    }

    #[test]
    fn settings_before_the_cut_are_kept_and_a_user_cut_is_no_split() {
        let items = [
            item(ItemKind::UserMessage, 50),
            item(ItemKind::OtherMessage, 50),
            item(ItemKind::Other, 0),
            item(ItemKind::UserMessage, 50),
            item(ItemKind::OtherMessage, 50),
        ];
        let cut = find_cut_point(&items, 0, items.len(), 100);
        assert_eq!(cut.first_kept, 2);
        // The kept part starts with the settings entry, then a user message: Pi treats the
        // cut entry (a settings entry) as inside the turn that began at 0.
        assert_eq!(cut.split_turn_start, Some(0));
        let cut = find_cut_point(&items, 3, items.len(), 100);
        assert_eq!(
            cut,
            CutPoint {
                first_kept: 3,
                split_turn_start: None
            }
        );
    }

    #[test]
    fn nothing_to_cut_keeps_everything() {
        let items = [item(ItemKind::ToolResult, 5), item(ItemKind::Other, 0)];
        assert_eq!(find_cut_point(&items, 0, 2, 1).first_kept, 0);
        assert_eq!(find_cut_point(&[], 0, 0, 1).first_kept, 0);
        // Out-of-range bounds are clamped, never a panic.
        assert_eq!(find_cut_point(&items, 9, 99, 1).first_kept, 2);
    }

    #[test]
    fn a_100k_entry_chain_is_one_linear_pass() {
        // A long run of tool results with one cut point at the very start: a quadratic search
        // (a scan for the next cut point from every message) would take minutes here.
        let mut items = vec![
            item(ItemKind::UserMessage, 1),
            item(ItemKind::OtherMessage, 1),
        ];
        items.extend(std::iter::repeat_n(item(ItemKind::ToolResult, 1), 100_000));
        // The budget is reached among the results, with no cut point after them: everything
        // from the first cut point is kept, as in Pi.
        let cut = find_cut_point(&items, 0, items.len(), 50_000);
        assert_eq!(cut.first_kept, 0);
        let mut turns = Vec::new();
        for _ in 0..50_000 {
            turns.push(item(ItemKind::UserMessage, 3));
            turns.push(item(ItemKind::OtherMessage, 3));
        }
        let cut = find_cut_point(&turns, 0, turns.len(), 60_000);
        assert_eq!(cut.first_kept, 100_000 - 20_000);
        assert_eq!(cut.split_turn_start, None);
    }
}

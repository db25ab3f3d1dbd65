//! Any sequence of stream fragments (as a provider might send, in any order): the assembler
//! never panics and always ends with exactly one final event.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pi_ai::{AssistantMessageEvent, Fragment, StopReason, StreamAssembler};

fuzz_target!(|data: &[u8]| {
    let (mut assembler, _start) = StreamAssembler::start("fuzz", "fuzz", "fuzz");
    let text = String::from_utf8_lossy(data);
    for (index, piece) in text.split('\u{1}').enumerate() {
        let key = (piece.len() % 3).to_string();
        let fragment = match index % 6 {
            0 => Fragment::Text(piece.to_owned()),
            1 => Fragment::Thinking(piece.to_owned()),
            2 => Fragment::ToolStart { key, id: format!("c{index}"), name: piece.to_owned() },
            3 => Fragment::ToolArguments { key, fragment: piece.to_owned() },
            4 => Fragment::Stop(if piece.is_empty() { StopReason::Stop } else { StopReason::ToolUse }),
            _ => Fragment::ToolWhole {
                id: format!("w{index}"),
                name: piece.to_owned(),
                arguments: serde_json::from_str(piece).unwrap_or_default(),
                signature: None,
            },
        };
        let _ = assembler.apply(fragment);
    }
    let events = assembler.finish();
    let finals = events
        .iter()
        .filter(|event| matches!(event, AssistantMessageEvent::Done { .. } | AssistantMessageEvent::Error { .. }))
        .count();
    assert_eq!(finals, 1);
});

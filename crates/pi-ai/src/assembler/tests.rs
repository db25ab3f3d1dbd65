use super::*;
use crate::parse_arguments;
use serde_json::json;

#[test]
fn arguments_past_the_limit_fail_the_response_and_are_not_kept() {
    let (mut assembler, _) = StreamAssembler::start("api", "p", "m");
    assembler.apply(Fragment::ToolStart {
        key: "0".into(),
        id: "c1".into(),
        name: "write".into(),
    });
    let mebibyte = "x".repeat(1 << 20);
    let mut deltas = 0;
    for _ in 0..20 {
        let events = assembler.apply(Fragment::ToolArguments {
            key: "0".into(),
            fragment: mebibyte.clone(),
        });
        deltas += events.len();
    }
    assert_eq!(deltas, 16, "the deltas up to the limit are shown");
    assert_eq!(assembler.calls[0].arguments.len(), 0);
    assembler.apply(Fragment::Stop(StopReason::ToolUse));
    let events = assembler.finish();
    let Some(AssistantMessageEvent::Error { reason, error }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(*reason, StopReason::Error);
    assert_eq!(
        error.error_message.as_deref(),
        Some("the model sent more than 16 MiB of arguments for the call c1 (write)")
    );
    assert_eq!(error.tool_calls()[0].id, "c1");
}

#[test]
fn text_thinking_and_calls_count_together_against_the_response_limit() {
    let (assembler, _) = StreamAssembler::start("api", "p", "m");
    let mut assembler = assembler.with_max_response_bytes(100);
    assembler.apply(Fragment::Thinking("t".repeat(30)));
    assembler.apply(Fragment::Text("x".repeat(30)));
    assembler.apply(Fragment::ToolStart {
        key: "0".into(),
        id: "c1".into(),
        name: "echo".into(),
    });
    // 30 + 30 + 6 so far: 34 bytes of arguments fit, 35 do not.
    assembler.apply(Fragment::ToolArguments {
        key: "0".into(),
        fragment: "a".repeat(34),
    });
    assert_eq!(assembler.over_limit(), None);
    let events = assembler.apply(Fragment::Text("y".into()));
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(
        assembler.over_limit(),
        Some(
            "the model's response passed the limit of 100 bytes (text, thinking and tool \
             calls together)"
        )
    );
    // Nothing more is kept, whatever comes.
    assert!(assembler.apply(Fragment::Text("z".repeat(1000))).is_empty());
    assembler.apply(Fragment::Stop(StopReason::Stop));
    let Some(AssistantMessageEvent::Error { error, .. }) = assembler.finish().pop() else {
        panic!()
    };
    assert_eq!(error.text(), "x".repeat(30));
    assert_eq!(error.tool_calls()[0].arguments, json!("a".repeat(34)));
}

#[test]
fn whole_calls_count_by_their_json_length() {
    let (assembler, _) = StreamAssembler::start("api", "p", "m");
    let mut assembler = assembler.with_max_response_bytes(2 << 10);
    let whole = |n: usize| Fragment::ToolWhole {
        id: format!("c{n}"),
        name: "f".into(),
        arguments: json!({"v": "x".repeat(500)}),
        signature: None,
    };
    // Each call is 2 + 1 + 508 bytes: four fit in 2 KiB, the fifth does not.
    for n in 0..4 {
        assert!(!assembler.apply(whole(n)).is_empty());
    }
    assert!(assembler.apply(whole(4)).is_empty());
    assert!(
        assembler
            .over_limit()
            .is_some_and(|why| why.contains("the limit of 2 KiB"))
    );
}

fn pieces(list: Vec<Fragment>) -> AssistantMessage {
    let (mut assembler, _) = StreamAssembler::start("api", "p", "m");
    for fragment in list {
        assembler.apply(fragment);
    }
    match assembler.finish().pop() {
        Some(AssistantMessageEvent::Done { message, .. }) => *message,
        other => panic!("{other:?}"),
    }
}

#[test]
fn interleaved_fragments_land_in_their_own_calls() {
    let message = pieces(vec![
        Fragment::Text("Checking.".into()),
        Fragment::ToolStart {
            key: "0".into(),
            id: "a".into(),
            name: "f".into(),
        },
        Fragment::ToolStart {
            key: "1".into(),
            id: "b".into(),
            name: "g".into(),
        },
        Fragment::ToolArguments {
            key: "1".into(),
            fragment: "{\"y\":".into(),
        },
        Fragment::ToolArguments {
            key: "0".into(),
            fragment: "{\"x\":1}".into(),
        },
        Fragment::ToolArguments {
            key: "1".into(),
            fragment: "2}".into(),
        },
        Fragment::Stop(StopReason::ToolUse),
    ]);
    assert_eq!(message.text(), "Checking.");
    let calls = message.tool_calls();
    assert_eq!(calls[0].arguments, json!({"x": 1}));
    assert_eq!(calls[1].arguments, json!({"y": 2}));
    assert_eq!(message.stop_reason, StopReason::ToolUse);
}

#[test]
fn the_first_response_id_is_kept_on_done_and_on_failure() {
    let message = pieces(vec![
        Fragment::ResponseId("resp-1".into()),
        Fragment::Text("hi".into()),
        // Gemini repeats its id on every chunk; a different later one is not the response's.
        Fragment::ResponseId("resp-2".into()),
        Fragment::Stop(StopReason::Stop),
    ]);
    assert_eq!(message.response_id.as_deref(), Some("resp-1"));
    let (mut assembler, _) = StreamAssembler::start("api", "p", "m");
    assembler.apply(Fragment::ResponseId("resp-3".into()));
    let Some(AssistantMessageEvent::Error { error, .. }) =
        assembler.fail(StopReason::Error, "cut".into()).pop()
    else {
        panic!()
    };
    assert_eq!(error.response_id.as_deref(), Some("resp-3"));
}

#[test]
fn broken_arguments_stay_text_and_a_missing_stop_is_an_error() {
    assert_eq!(parse_arguments(""), json!({}));
    assert_eq!(parse_arguments("{\"a\":"), json!("{\"a\":"));
    let (mut assembler, _) = StreamAssembler::start("api", "p", "m");
    assembler.apply(Fragment::Text("half".into()));
    match assembler.finish().pop() {
        Some(AssistantMessageEvent::Error { reason, error }) => {
            assert_eq!(reason, StopReason::Error);
            assert_eq!(error.text(), "half");
            assert!(error.error_message.unwrap().contains("ended before"));
        }
        other => panic!("{other:?}"),
    }
}

/// A response may start at most `MAX_TOOL_CALLS_PER_RESPONSE` calls, streamed or whole; the
/// next ends it as an error naming the limit, and the calls kept are all there.
#[test]
fn a_response_holds_at_most_the_tool_call_limit() {
    let (mut assembler, _) = StreamAssembler::start("api", "p", "m");
    for index in 0..crate::MAX_TOOL_CALLS_PER_RESPONSE {
        let key = index.to_string();
        if index % 2 == 0 {
            assembler.apply(Fragment::ToolStart {
                key: key.clone(),
                id: format!("c{index}"),
                name: "echo".into(),
            });
            assembler.apply(Fragment::ToolArguments {
                key,
                fragment: "{}".into(),
            });
        } else {
            assembler.apply(Fragment::ToolWhole {
                id: format!("c{index}"),
                name: "echo".into(),
                arguments: json!({}),
                signature: None,
            });
        }
        assert_eq!(assembler.over_limit(), None, "call {index}");
    }
    let events = assembler.apply(Fragment::ToolWhole {
        id: "one-too-many".into(),
        name: "echo".into(),
        arguments: json!({}),
        signature: None,
    });
    assert!(events.is_empty());
    assert_eq!(
        assembler.over_limit(),
        Some("the model's response has more than 1024 tool calls")
    );
    let Some(AssistantMessageEvent::Error { error, .. }) = assembler.finish().pop() else {
        panic!()
    };
    assert_eq!(error.tool_calls().len(), crate::MAX_TOOL_CALLS_PER_RESPONSE);
}

/// The final message of `fragments`.
fn assembled(fragments: Vec<Fragment>) -> AssistantMessage {
    let (mut assembler, _) = StreamAssembler::start("api", "p", "m");
    for fragment in fragments {
        assembler.apply(fragment);
    }
    let Some(AssistantMessageEvent::Done { message, .. }) = assembler.finish().pop() else {
        panic!("no done")
    };
    *message
}

#[test]
fn signatures_land_on_their_blocks_and_an_end_splits_blocks() {
    let message = assembled(vec![
        Fragment::Thinking("first".into()),
        Fragment::ThinkingSignature("sig-1".into()),
        Fragment::EndBlock,
        Fragment::Thinking("second".into()),
        Fragment::EndBlock,
        // Encrypted reasoning with no text still makes a block, to be sent back.
        Fragment::ThinkingSignature("{\"type\":\"reasoning\"}".into()),
        Fragment::EndBlock,
        Fragment::Text("answer".into()),
        Fragment::TextSignature("msg_1".into()),
        Fragment::RedactedThinking("opaque".into()),
        Fragment::Stop(StopReason::Stop),
    ]);
    let thinking = |text: &str, signature: Option<&str>| AssistantContent::Thinking {
        thinking: text.into(),
        thinking_signature: signature.map(str::to_owned),
        redacted: None,
    };
    assert_eq!(
        message.content,
        [
            thinking("first", Some("sig-1")),
            thinking("second", None),
            thinking("", Some("{\"type\":\"reasoning\"}")),
            AssistantContent::Text {
                text: "answer".into(),
                text_signature: Some("msg_1".into())
            },
            AssistantContent::Thinking {
                thinking: crate::REDACTED_THINKING.into(),
                thinking_signature: Some("opaque".into()),
                redacted: Some(true),
            },
        ]
    );
}

#[test]
fn a_text_signature_with_no_text_open_is_dropped() {
    let message = assembled(vec![
        Fragment::Thinking("hmm".into()),
        Fragment::TextSignature("stray".into()),
        Fragment::Stop(StopReason::Stop),
    ]);
    assert_eq!(
        message.content,
        [AssistantContent::Thinking {
            thinking: "hmm".into(),
            thinking_signature: None,
            redacted: None,
        }]
    );
}

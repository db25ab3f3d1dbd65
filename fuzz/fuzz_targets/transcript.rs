//! Any JSONL as a transcript: read without panicking; what reads writes back and reads again
//! to the same messages.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(messages) = pi_ai::read_transcript(text) {
        let written = pi_ai::write_transcript(&messages);
        assert_eq!(pi_ai::read_transcript(&written).ok(), Some(messages));
    }
});

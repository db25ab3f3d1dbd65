//! A dynamic schema (first line of the input, as JSON) against argument text (the rest): the
//! one-pass text path and the JSON path must never panic and must agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pi_tool::schema::{DynamicSchema, Schema};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (schema_text, arguments) = text.split_once('\n').unwrap_or((text, "{}"));
    let Ok(schema) = serde_json::from_str(schema_text) else { return };
    let Ok(schema) = DynamicSchema::new(schema) else { return };
    let from_json = serde_json::from_str(arguments).ok().map(|value| schema.parse(&value));
    if let (Some(from_text), Some(from_json)) = (schema.check_text(arguments), from_json) {
        assert_eq!(
            from_text.map_err(|error| error.to_string()),
            from_json.map_err(|error| error.to_string())
        );
    }
});

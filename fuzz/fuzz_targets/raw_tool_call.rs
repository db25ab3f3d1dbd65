//! Any argument text to the built-in tools down the raw-text path: exactly one paired result, never
//! a panic, whatever arrives.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pi_tool::{CallContext, builtin, execute_raw_tool_call};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let tools = builtin::registry();
    for name in ["echo", "uppercase", "missing"] {
        let result = futures::executor::block_on(execute_raw_tool_call(
            "fuzz",
            name,
            text,
            &tools,
            CallContext::default(),
        ));
        assert_eq!(result.tool_call_id, "fuzz");
        assert_eq!(result.tool_name, name);
    }
});

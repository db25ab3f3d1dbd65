//! What `#[derive(ToolParams)]` says when it is used wrong: each case in `tests/derive_fails/`
//! must fail to compile with the message in its `.stderr` file (`TRYBUILD=overwrite` rewrites
//! them after a reviewed change).
#![allow(missing_docs)]

#[test]
fn wrong_uses_are_compile_errors_that_say_why() {
    trybuild::TestCases::new().compile_fail("tests/derive_fails/*.rs");
}

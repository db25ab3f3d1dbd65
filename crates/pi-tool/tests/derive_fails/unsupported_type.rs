use std::collections::HashMap;

use pi_tool::ToolParams;

// JSON object keys are strings: a map keyed by numbers cannot be a parameter.
#[derive(ToolParams)]
struct Params {
    counts: HashMap<u32, String>,
}

fn main() {}

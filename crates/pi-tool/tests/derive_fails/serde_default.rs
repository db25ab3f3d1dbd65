use pi_tool::ToolParams;

#[derive(ToolParams)]
struct Params {
    #[serde(default)]
    count: Option<u64>,
}

fn main() {}

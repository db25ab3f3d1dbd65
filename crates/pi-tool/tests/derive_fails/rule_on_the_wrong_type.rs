use pi_tool::ToolParams;

#[derive(ToolParams)]
struct Params {
    #[param(min_length = 1)]
    count: u64,
}

fn main() {}

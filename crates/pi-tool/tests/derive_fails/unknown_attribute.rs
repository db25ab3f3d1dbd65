use pi_tool::ToolParams;

#[derive(ToolParams)]
struct Params {
    #[param(minimum = 1)]
    count: u64,
}

fn main() {}

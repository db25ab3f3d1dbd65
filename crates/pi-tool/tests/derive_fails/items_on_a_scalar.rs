use pi_tool::ToolParams;

#[derive(ToolParams)]
struct Params {
    #[param(items(min = 1))]
    count: Option<u64>,
}

fn main() {}

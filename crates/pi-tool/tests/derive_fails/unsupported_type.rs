use pi_tool::ToolParams;

#[derive(ToolParams)]
struct Params {
    count: u32,
}

fn main() {}

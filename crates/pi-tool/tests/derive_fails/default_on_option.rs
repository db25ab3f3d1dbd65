use pi_tool::ToolParams;

#[derive(ToolParams)]
struct Params {
    #[param(default = 3)]
    count: Option<u32>,
}

fn main() {}

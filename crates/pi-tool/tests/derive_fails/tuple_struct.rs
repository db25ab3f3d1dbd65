use pi_tool::ToolParams;

#[derive(ToolParams)]
struct Params(String, u32);

fn main() {}

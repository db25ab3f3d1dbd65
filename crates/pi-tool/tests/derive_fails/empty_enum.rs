use pi_tool::ToolParams;

#[derive(ToolParams)]
enum Nothing {}

fn main() {}

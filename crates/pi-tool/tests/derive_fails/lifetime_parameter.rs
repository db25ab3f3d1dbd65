use pi_tool::ToolParams;

#[derive(ToolParams)]
struct Params<'a> {
    path: &'a str,
}

fn main() {}

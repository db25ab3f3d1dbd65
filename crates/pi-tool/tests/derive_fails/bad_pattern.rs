use pi_tool::ToolParams;

#[derive(ToolParams)]
struct Params {
    #[param(pattern = "^(unclosed")]
    name: String,
}

fn main() {}

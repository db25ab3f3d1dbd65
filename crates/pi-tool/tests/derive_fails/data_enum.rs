use pi_tool::ToolParams;

#[derive(ToolParams)]
enum Shape {
    Circle { radius: f64 },
    Square(f64),
}

fn main() {}

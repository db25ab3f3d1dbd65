//! The agent loop over a real model: OpenAI Chat Completions, or any server that speaks it
//! (Ollama, llama.cpp's server, vLLM, OpenRouter, ...). The model calls our two tools, the
//! loop runs them and sends the results back, until the model answers in text.
//!
//! Run against OpenAI:
//!   `OPENAI_API_KEY=sk-... cargo run --example openai_agent -- "Weather and time in Tokyo?"`
//! Against a local server (no key needed):
//!   `OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=qwen2.5 cargo run --example openai_agent`

use std::sync::Arc;

use pi_agent::{Agent, AgentConfig};
use pi_ai::Message;
use pi_providers::{OpenAiChat, ProviderConfig};
use pi_tool::Wording;
use pi_tool::{FnTool, ToolParams, ToolRegistry};

/// A temperature unit: an enum of plain variants becomes a JSON Schema string enum.
#[derive(ToolParams)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// The parameters of `get_weather`.
#[derive(ToolParams)]
struct WeatherParams {
    /// City name
    city: String,
    unit: Unit,
}

/// The parameters of `get_time`.
#[derive(ToolParams)]
struct TimeParams {
    /// IANA zone, e.g. Europe/Paris
    timezone: String,
}

/// Two pretend services: the point is the loop, not the weather.
fn tools() -> Result<ToolRegistry, pi_tool::RegistryError> {
    let weather = FnTool::typed(
        "get_weather",
        "Current weather for a city",
        |p: WeatherParams, _cx| async move {
            let temperature = match p.unit {
                Unit::Celsius => "21°C",
                Unit::Fahrenheit => "70°F",
            };
            Ok(format!("{}: {temperature}, clear sky", p.city))
        },
    );
    let time = FnTool::typed(
        "get_time",
        "Current local time in a time zone",
        |p: TimeParams, _cx| async move { Ok(format!("14:05 in {}", p.timezone)) },
    );
    // Each closure tool has its own type, so they go in one by one. A model that sends bad
    // arguments reads why in upstream Pi's English (the default is the course's wording).
    ToolRegistry::builder()
        .tool(weather)
        .tool(time)
        .wording(Wording::Pi)
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What's the weather and the local time in Tokyo?".to_owned());
    let model = std::env::var("OPENAI_MODEL").unwrap_or_else(|_| "gpt-4.1-mini".to_owned());
    let mut config = ProviderConfig::new(model);
    // The official SDKs' variables. A local server needs only the base URL.
    if let Ok(url) = std::env::var("OPENAI_BASE_URL") {
        config = config.with_base_url(url);
    }
    match std::env::var("OPENAI_API_KEY") {
        Ok(key) => config = config.with_api_key(key),
        Err(_) if std::env::var("OPENAI_BASE_URL").is_err() => {
            eprintln!("set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)");
            std::process::exit(2);
        }
        Err(_) => {}
    }
    let provider = OpenAiChat::new(config)?;

    let agent = Agent::new(AgentConfig::new(Arc::new(provider), Arc::new(tools()?)));
    let run = agent.prompt(prompt).await;

    // Everything the run added, in order: the prompt, the model's calls, their results, the answer.
    for message in &run.messages {
        match message {
            Message::User(_) => {}
            Message::Assistant(answer) => {
                for call in answer.tool_calls() {
                    println!("→ {} {}", call.name, call.arguments);
                }
                if !answer.text().is_empty() {
                    println!("{}", answer.text());
                }
            }
            Message::ToolResult(result) => println!("← {}: {}", result.tool_name, result.text()),
        }
    }
    // A failed request (bad key, no network) ends the run with a reason instead of panicking.
    match run.error {
        Some(error) => Err(error.into()),
        None => Ok(()),
    }
}

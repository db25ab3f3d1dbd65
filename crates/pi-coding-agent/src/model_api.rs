//! The wire a model is reached over, by Pi's names (`api` in the catalog and in models.json).

use std::fmt;

use serde::{Deserialize, Serialize};

/// Pi's API names. The wires this program does not speak yet are named all the same, so the
/// command line can say which one a model needs; an unknown name (a newer Pi's, or an
/// extension's) is kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum ModelApi {
    /// `openai-completions`: OpenAI Chat Completions and every compatible server.
    OpenAiCompletions,
    /// `openai-responses`: OpenAI's Responses API.
    OpenAiResponses,
    /// `azure-openai-responses`: the Responses API on Azure OpenAI.
    AzureOpenAiResponses,
    /// `openai-codex-responses`: ChatGPT subscriptions (Codex), an OAuth login.
    OpenAiCodexResponses,
    /// `anthropic-messages`: Anthropic's Messages API.
    AnthropicMessages,
    /// `google-generative-ai`: Gemini through Google AI Studio.
    GoogleGenerativeAi,
    /// `google-vertex`: Gemini through Vertex AI.
    GoogleVertex,
    /// `bedrock-converse-stream`: Amazon Bedrock's Converse streaming API.
    BedrockConverseStream,
    /// `mistral-conversations`: Mistral's own API.
    MistralConversations,
    /// Any other name, as written.
    Other(String),
}

impl ModelApi {
    /// Pi's name of the wire.
    pub fn as_str(&self) -> &str {
        match self {
            Self::OpenAiCompletions => "openai-completions",
            Self::OpenAiResponses => "openai-responses",
            Self::AzureOpenAiResponses => "azure-openai-responses",
            Self::OpenAiCodexResponses => "openai-codex-responses",
            Self::AnthropicMessages => "anthropic-messages",
            Self::GoogleGenerativeAi => "google-generative-ai",
            Self::GoogleVertex => "google-vertex",
            Self::BedrockConverseStream => "bedrock-converse-stream",
            Self::MistralConversations => "mistral-conversations",
            Self::Other(name) => name,
        }
    }
}

impl From<String> for ModelApi {
    fn from(name: String) -> Self {
        match name.as_str() {
            "openai-completions" => Self::OpenAiCompletions,
            "openai-responses" => Self::OpenAiResponses,
            "azure-openai-responses" => Self::AzureOpenAiResponses,
            "openai-codex-responses" => Self::OpenAiCodexResponses,
            "anthropic-messages" => Self::AnthropicMessages,
            "google-generative-ai" => Self::GoogleGenerativeAi,
            "google-vertex" => Self::GoogleVertex,
            "bedrock-converse-stream" => Self::BedrockConverseStream,
            "mistral-conversations" => Self::MistralConversations,
            _ => Self::Other(name),
        }
    }
}

impl From<&str> for ModelApi {
    fn from(name: &str) -> Self {
        Self::from(name.to_owned())
    }
}

impl From<ModelApi> for String {
    fn from(api: ModelApi) -> Self {
        api.as_str().to_owned()
    }
}

impl fmt::Display for ModelApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_round_trip_and_unknown_ones_are_kept() {
        for name in [
            "openai-completions",
            "openai-responses",
            "azure-openai-responses",
            "openai-codex-responses",
            "anthropic-messages",
            "google-generative-ai",
            "google-vertex",
            "bedrock-converse-stream",
            "mistral-conversations",
        ] {
            let api = ModelApi::from(name);
            assert!(!matches!(api, ModelApi::Other(_)), "{name}");
            assert_eq!(api.to_string(), name);
        }
        assert_eq!(
            ModelApi::from("my-wire"),
            ModelApi::Other("my-wire".to_owned())
        );
        let json = serde_json::to_string(&ModelApi::AnthropicMessages).unwrap();
        assert_eq!(json, "\"anthropic-messages\"");
    }
}

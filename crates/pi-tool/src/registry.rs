//! The registry: the tools this run allows, by name, in registration order.

use crate::model_text::Wording;
use indexmap::IndexMap;
use indexmap::map::Entry;

use crate::dialect::{Dialect, DialectError};
use crate::{RegisteredTool, ToolDefinition};

/// Why a tool could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// A tool with this name is already registered; the first one stays.
    #[error("Tool 已存在：{name}")]
    Duplicate {
        /// The contested name.
        name: String,
    },
}

/// A registered tool whose schema a provider's dialect cannot express.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool {tool}: its schema cannot be given in this dialect")]
pub struct UnsupportedSchema {
    /// The tool's name.
    pub tool: String,
    /// What the dialect could not express, and where.
    #[source]
    pub source: DialectError,
}

/// The tools one run may use. Each registry owns its own map: two registries never share tools,
/// and nothing is global.
///
/// ```
/// use pi_tool::{ToolRegistry, builtin};
///
/// let mut tools = ToolRegistry::new([builtin::echo()]).unwrap();
/// assert_eq!(
///     tools.register(builtin::echo()).unwrap_err().to_string(),
///     "Tool 已存在：echo"
/// );
/// tools.register(builtin::uppercase()).unwrap();
/// let names: Vec<_> = tools.list().map(|tool| tool.name()).collect();
/// assert_eq!(names, ["echo", "uppercase"]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolRegistry {
    // Names are few and fixed at registration; the model only looks them up, so a fast
    // non-cryptographic hash is safe here (no one can flood the map with colliding keys).
    tools: IndexMap<String, RegisteredTool, foldhash::fast::RandomState>,
    /// The words of every failure this registry's calls answer.
    wording: Wording,
}

impl ToolRegistry {
    /// A registry holding `tools`, registered one by one in order; fails on the first duplicate.
    pub fn new<I>(tools: I) -> Result<Self, RegistryError>
    where
        I: IntoIterator,
        I::Item: Into<RegisteredTool>,
    {
        let mut registry = Self::default();
        for tool in tools {
            registry.register(tool)?;
        }
        Ok(registry)
    }

    /// A builder that takes tools of different types one by one (closure tools each have
    /// their own type, so an array of them does not compile), then checks them all at
    /// [`build`](ToolRegistryBuilder::build).
    ///
    /// ```
    /// use pi_tool::{FnTool, ToolParams, ToolRegistry};
    ///
    /// #[derive(ToolParams)]
    /// struct Name {
    ///     name: String,
    /// }
    ///
    /// let tools = ToolRegistry::builder()
    ///     .tool(FnTool::typed("greet", "Greet someone", |p: Name, _cx| async move {
    ///         Ok(format!("Hello {}", p.name))
    ///     }))
    ///     .tool(FnTool::typed("shout", "Shout a name", |p: Name, _cx| async move {
    ///         Ok(p.name.to_uppercase())
    ///     }))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(tools.len(), 2);
    /// ```
    pub fn builder() -> ToolRegistryBuilder {
        ToolRegistryBuilder::default()
    }

    /// Adds a tool. A name already present is rejected and the existing tool kept: silently
    /// replacing it would change what runs behind a definition the model has already seen.
    pub fn register(&mut self, tool: impl Into<RegisteredTool>) -> Result<(), RegistryError> {
        let tool = tool.into();
        match self.tools.entry(tool.name().to_owned()) {
            Entry::Occupied(existing) => Err(RegistryError::Duplicate {
                name: existing.key().clone(),
            }),
            Entry::Vacant(slot) => {
                slot.insert(tool);
                Ok(())
            }
        }
    }

    /// The same tools, answering failures in `wording` (by default the course's; see
    /// [`Wording`]).
    ///
    /// ```
    /// use pi_tool::model_text::Wording;
    /// use pi_tool::{CallContext, ToolCall, builtin, execute_tool_call};
    /// use serde_json::json;
    ///
    /// let tools = builtin::registry().with_wording(Wording::Pi);
    /// let call = ToolCall::new("c1", "nope", json!({}));
    /// let result = futures::executor::block_on(execute_tool_call(&call, &tools, CallContext::default()));
    /// assert_eq!(result.text(), "Tool nope not found");
    /// ```
    #[must_use]
    pub fn with_wording(mut self, wording: Wording) -> Self {
        self.wording = wording;
        self
    }

    /// The words of every failure this registry's calls answer.
    pub fn wording(&self) -> Wording {
        self.wording
    }

    /// The tool registered under exactly this name.
    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.tools.get(name)
    }

    /// All tools, in registration order.
    pub fn list(&self) -> impl ExactSizeIterator<Item = &RegisteredTool> {
        self.tools.values()
    }

    /// What a provider is shown of every tool, in registration order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.list().map(RegisteredTool::definition).collect()
    }

    /// The definitions rendered for one provider's dialect, in registration order.
    ///
    /// Call it when the tools are set up for a provider: a schema the dialect cannot express is
    /// reported here, naming the tool and the path, and never at request time.
    ///
    /// ```
    /// use pi_tool::{builtin, dialect::Dialect};
    ///
    /// let gemini = builtin::registry().definitions_for(Dialect::Gemini).unwrap();
    /// assert!(gemini[0].parameters.get("additionalProperties").is_none());
    /// ```
    pub fn definitions_for(
        &self,
        dialect: Dialect,
    ) -> Result<Vec<ToolDefinition>, UnsupportedSchema> {
        self.list()
            .map(|tool| {
                let mut definition = tool.definition();
                definition.parameters =
                    dialect
                        .render(&definition.parameters)
                        .map_err(|source| UnsupportedSchema {
                            tool: definition.name.clone(),
                            source,
                        })?;
                Ok(definition)
            })
            .collect()
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

/// Collects tools for a [`ToolRegistry`]; see [`ToolRegistry::builder`].
#[derive(Debug, Default)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct ToolRegistryBuilder {
    tools: Vec<RegisteredTool>,
    wording: Wording,
}

impl ToolRegistryBuilder {
    /// Adds a tool: a `FnTool`, any [`Tool`](crate::Tool), or a [`RegisteredTool`].
    pub fn tool(mut self, tool: impl Into<RegisteredTool>) -> Self {
        self.tools.push(tool.into());
        self
    }

    /// Answers failures in `wording` (see [`ToolRegistry::with_wording`]).
    pub fn wording(mut self, wording: Wording) -> Self {
        self.wording = wording;
        self
    }

    /// The registry, in the order the tools were added; fails on the first duplicate name.
    pub fn build(self) -> Result<ToolRegistry, RegistryError> {
        Ok(ToolRegistry::new(self.tools)?.with_wording(self.wording))
    }
}

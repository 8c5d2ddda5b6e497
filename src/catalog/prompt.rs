//! Prompts, their arguments, and the one renderer that serves them.

use crate::dispatch::CallContext;
use crate::model::{Icon, RenderedPrompt};
use crate::schema::Arguments;
use crate::BoxFuture;
use serde_json::{json, Map, Value};
use std::fmt;
use std::future::Future;
use std::sync::Arc;

/// One declared argument of a prompt. Every prompt argument is a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgument {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) required: bool,
}

impl PromptArgument {
    /// An optional argument.
    pub fn new(name: impl Into<String>) -> Self {
        PromptArgument {
            name: name.into(),
            description: None,
            required: false,
        }
    }
    /// Marks the argument required (or not).
    #[must_use]
    pub fn with_required(mut self, required: bool) -> Self {
        self.required = required;
        self
    }
    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, d: impl Into<String>) -> Self {
        self.description = Some(d.into());
        self
    }
    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
    /// Whether the argument is required.
    pub fn is_required(&self) -> bool {
        self.required
    }
}

/// One prompt, listed by `prompts/list` and rendered by `prompts/get`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptSpec {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) arguments: Vec<PromptArgument>,
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Map<String, Value>,
}

impl PromptSpec {
    /// A prompt with a name and no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        PromptSpec {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            icons: Vec::new(),
            meta: Map::new(),
        }
    }
    super::meta::icons_and_meta!();
    /// Sets the title.
    #[must_use]
    pub fn with_title(mut self, t: impl Into<String>) -> Self {
        self.title = Some(t.into());
        self
    }
    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, d: impl Into<String>) -> Self {
        self.description = Some(d.into());
        self
    }
    /// Adds an argument (each call adds one, in order).
    #[must_use]
    pub fn with_argument(mut self, a: PromptArgument) -> Self {
        self.arguments.push(a);
        self
    }
    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The title, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }
    /// The description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
    /// The declared arguments.
    pub fn arguments(&self) -> &[PromptArgument] {
        &self.arguments
    }

    /// The JSON Schema `prompts/get` validates arguments against: one string property per
    /// declared argument, `required` from the flags, nothing undeclared admitted.
    ///
    /// ```
    /// use beam_mcp::catalog::{PromptArgument, PromptSpec};
    /// let p = PromptSpec::new("forecast")
    ///     .with_argument(PromptArgument::new("place").with_required(true));
    /// let s = p.argument_schema();
    /// assert_eq!(s["required"][0], "place");
    /// assert_eq!(s["additionalProperties"], false);
    /// ```
    pub fn argument_schema(&self) -> Value {
        let mut props = Map::new();
        for a in &self.arguments {
            let mut p = Map::new();
            p.insert("type".into(), Value::String("string".into()));
            if let Some(d) = &a.description {
                p.insert("description".into(), Value::String(d.clone()));
            }
            props.insert(a.name.clone(), Value::Object(p));
        }
        let required: Vec<&str> = self
            .arguments
            .iter()
            .filter(|a| a.required)
            .map(|a| a.name.as_str())
            .collect();
        json!({
            "type": "object",
            "properties": props,
            "required": required,
            "additionalProperties": false
        })
    }
}

/// A host's refusal to render a prompt; the reason travels as -32602 data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError {
    reason: String,
}

impl RenderError {
    /// A refusal with a reason the client may see.
    pub fn new(reason: impl Into<String>) -> Self {
        RenderError {
            reason: reason.into(),
        }
    }
    /// The reason.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "prompt render refused: {}", self.reason)
    }
}

impl std::error::Error for RenderError {}

/// The one renderer behind `prompts/get`, called only for a listed prompt with validated
/// arguments keyed by the declared names. A closure `Fn(String, Arguments) -> impl Future` is
/// a renderer that ignores the context; one that reads it is given with
/// [`crate::Catalog::renderer_in_context`].
pub trait PromptRenderer: Send + Sync + 'static {
    /// Renders prompt `name` for the caller `context` describes.
    fn render(
        &self,
        name: &str,
        arguments: Arguments,
        context: &CallContext,
    ) -> BoxFuture<Result<RenderedPrompt, RenderError>>;
}

impl<F, Fut> PromptRenderer for F
where
    F: Fn(String, Arguments) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<RenderedPrompt, RenderError>> + Send + 'static,
{
    fn render(
        &self,
        name: &str,
        arguments: Arguments,
        _context: &CallContext,
    ) -> BoxFuture<Result<RenderedPrompt, RenderError>> {
        Box::pin(self(name.to_owned(), arguments))
    }
}

impl<F, Fut> PromptRenderer for super::resource::InContext<F>
where
    F: Fn(String, Arguments, CallContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<RenderedPrompt, RenderError>> + Send + 'static,
{
    fn render(
        &self,
        name: &str,
        arguments: Arguments,
        context: &CallContext,
    ) -> BoxFuture<Result<RenderedPrompt, RenderError>> {
        Box::pin((self.0)(name.to_owned(), arguments, context.clone()))
    }
}

pub(crate) type SharedRenderer = Arc<dyn PromptRenderer>;

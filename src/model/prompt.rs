//! A rendered prompt: what `prompts/get` answers with.

use super::content::{Content, Role};
use serde::Serialize;

/// One rendered message: a role and one content block of any kind (text, image, audio, an
/// embedded resource, a resource link).
///
/// ```
/// use beam_mcp::catalog::{PromptMessage, Role};
/// use beam_mcp::content::Content;
/// let messages = vec![
///     PromptMessage::with_content(Role::User, Content::resource_text("file:///a.txt", "notes")),
///     PromptMessage::new(Role::User, "Summarise the file above."),
/// ];
/// assert_eq!(messages[1].content().as_text(), Some("Summarise the file above."));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PromptMessage {
    role: Role,
    content: Content,
}

impl PromptMessage {
    /// A text message.
    pub fn new(role: Role, text: impl Into<String>) -> Self {
        PromptMessage::with_content(role, Content::text(text))
    }

    /// A message carrying any content block.
    pub fn with_content(role: Role, content: Content) -> Self {
        PromptMessage { role, content }
    }

    /// Who speaks it.
    pub fn role(&self) -> Role {
        self.role
    }

    /// Its content block.
    pub fn content(&self) -> &Content {
        &self.content
    }
}

/// What the renderer returns; serialised, the members of a `GetPromptResult`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct RenderedPrompt {
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    messages: Vec<PromptMessage>,
}

impl RenderedPrompt {
    /// A rendering with messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        RenderedPrompt {
            description: None,
            messages,
        }
    }
    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, d: impl Into<String>) -> Self {
        self.description = Some(d.into());
        self
    }
    /// The description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
    /// The messages, in order.
    pub fn messages(&self) -> &[PromptMessage] {
        &self.messages
    }
}

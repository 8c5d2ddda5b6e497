//! The tool declaration a host hands the server.

use super::Icon;
use crate::dispatch::Dispatch;
use crate::handler::{Bound, ToolHandler};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;

/// What a tool does to its environment, as the host classifies it.
///
/// Advertised to clients as the `readOnlyHint` tool annotation. A hint, never a guarantee:
/// this crate enforces no mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// The tool only reads.
    ReadOnly,
    /// The tool may change its environment.
    ReadWrite,
}

/// One tool: what `tools/list` advertises and what `tools/call` enforces, from one source.
///
/// Each field is set by `with_<field>` and read by `<field>()`, as on every spec and content
/// type of the crate.
///
/// ```
/// use beam_mcp::catalog::{Mode, ToolSpec};
/// use serde_json::json;
/// let tool = ToolSpec::new("get_weather", "Read the current weather for a place.")
///     .with_mode(Mode::ReadOnly)
///     .with_input_schema(json!({
///         "type": "object",
///         "properties": {"place": {"type": "string"}},
///         "required": ["place"],
///         "additionalProperties": false
///     }));
/// assert_eq!(tool.name(), "get_weather");
/// assert_eq!(tool.mode(), Mode::ReadOnly);
/// assert!(tool.input_schema().is_some());
/// ```
#[derive(Clone)]
pub struct ToolSpec {
    pub(crate) name: Arc<str>,
    pub(crate) title: Option<String>,
    /// The `annotations` members beyond `readOnlyHint` (which `mode` gives).
    pub(crate) hints: ToolHints,
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Map<String, Value>,
    pub(crate) description: String,
    pub(crate) mode: Mode,
    pub(crate) input_schema: Option<Value>,
    pub(crate) output_schema: Option<Value>,
    pub(crate) required_capabilities: Vec<String>,
    /// The tool's own handler; without one, the configuration's dispatch function serves it.
    pub(crate) handler: Option<Arc<dyn Dispatch>>,
    /// How many of the handler's extractors take the arguments (more than one is refused at
    /// startup).
    pub(crate) argument_readers: usize,
    /// Whether each schema came from the handler's types (replaced with the handler) rather
    /// than from the host's hand (kept whatever handler is set).
    derived: Derived,
}

/// Which of a tool's schemas the handler's types gave.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Derived {
    input: bool,
    output: bool,
}

impl fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolSpec")
            .field("name", &self.name)
            .field("title", &self.title)
            .field("hints", &self.hints)
            .field("icons", &self.icons)
            .field("meta", &self.meta)
            .field("description", &self.description)
            .field("mode", &self.mode)
            .field("input_schema", &self.input_schema)
            .field("output_schema", &self.output_schema)
            .field("required_capabilities", &self.required_capabilities)
            .field("handler", &self.handler.is_some())
            .finish()
    }
}

/// Two specs are equal when they declare the same tool and share one handler (or have none).
impl PartialEq for ToolSpec {
    fn eq(&self, other: &Self) -> bool {
        let same_handler = match (&self.handler, &other.handler) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        self.name == other.name
            && self.title == other.title
            && self.hints == other.hints
            && self.icons == other.icons
            && self.meta == other.meta
            && self.description == other.description
            && self.mode == other.mode
            && self.input_schema == other.input_schema
            && self.output_schema == other.output_schema
            && self.required_capabilities == other.required_capabilities
            && same_handler
    }
}

impl ToolSpec {
    /// A tool with a name and a description; class `act`, mode read-write, no arguments.
    pub fn new(name: impl Into<Arc<str>>, description: impl Into<String>) -> Self {
        ToolSpec {
            name: name.into(),
            title: None,
            hints: ToolHints::default(),
            icons: Vec::new(),
            meta: Map::new(),
            description: description.into(),
            mode: Mode::ReadWrite,
            input_schema: None,
            output_schema: None,
            required_capabilities: Vec::new(),
            handler: None,
            argument_readers: 0,
            derived: Derived::default(),
        }
    }

    /// Sets the tool's own handler: an async function of extractors (see [`crate::handler`]).
    /// Its arguments' derived schema becomes the input schema and its structured result's the
    /// output schema, each unless the host set one by hand (a schema set by hand must admit
    /// only what the handler's types decode: a call that passes it and fails to decode is
    /// answered -32603 and logged as the host's fault). Setting another handler replaces the
    /// schemas the previous one's types gave, never those set by hand.
    ///
    /// The tool is then served by this handler rather than the configuration's dispatch
    /// function, through the same validation, runtime pool, deadline and panic isolation.
    ///
    /// ```
    /// use beam_mcp::{Args, ToolSpec};
    /// use schemars::JsonSchema;
    /// use serde::Deserialize;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Ping {
    ///     host: String,
    /// }
    ///
    /// let tool = ToolSpec::new("ping_host", "Ping a host.")
    ///     .with_handler(|Args(p): Args<Ping>| async move { format!("pong from {}", p.host) });
    /// assert_eq!(tool.input_schema().unwrap()["properties"]["host"]["type"], "string");
    /// ```
    #[must_use]
    pub fn with_handler<H, M>(mut self, handler: H) -> Self
    where
        H: ToolHandler<M>,
        M: 'static,
    {
        self.forget_derived();
        if self.input_schema.is_none() {
            self.input_schema = H::input_schema();
            self.derived.input = self.input_schema.is_some();
        }
        if self.output_schema.is_none() {
            self.output_schema = H::output_schema();
            self.derived.output = self.output_schema.is_some();
        }
        self.argument_readers = H::argument_readers();
        self.handler = Some(Arc::new(Bound::new(handler)));
        self
    }

    /// The same, with an untyped handler: the whole [`ToolCall`](crate::ToolCall) in, the
    /// output or the tool's error out, shared (as one [`Dispatch`] may serve several tools).
    #[must_use]
    pub fn with_dispatch(mut self, dispatch: Arc<dyn Dispatch>) -> Self {
        self.forget_derived();
        self.argument_readers = 1;
        self.handler = Some(dispatch);
        self
    }

    /// Drops the schemas a previous handler's types gave: they describe that handler only.
    fn forget_derived(&mut self) {
        if std::mem::take(&mut self.derived.input) {
            self.input_schema = None;
        }
        if std::mem::take(&mut self.derived.output) {
            self.output_schema = None;
        }
    }

    /// Whether the tool has its own handler.
    pub fn has_handler(&self) -> bool {
        self.handler.is_some()
    }

    /// Sets the human-readable title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the mode.
    #[must_use]
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets the JSON Schema of the arguments: any JSON Schema 2020-12 keyword, `#` references
    /// only (see [`crate::schema`]). It is advertised exactly as given.
    /// Without one, the tool takes no arguments: it advertises an open empty object and is
    /// dispatched empty [`crate::schema::Arguments`] whatever the client sent.
    #[must_use]
    pub fn with_input_schema(mut self, schema: Value) -> Self {
        self.input_schema = Some(schema);
        self.derived.input = false;
        self
    }

    /// Sets the JSON Schema of the tool's structured result (`outputSchema`), compiled by the
    /// same validator as [`ToolSpec::with_input_schema`]. Any root is accepted (SEP-2106): a
    /// schema whose root declares `"type": "object"` is listed at both revisions; any other
    /// (an array, a number, a `oneOf`) is listed at 2026-07-28 only, because 2025-11-25 admits
    /// nothing but an object root. There the tool is listed without `outputSchema`, and a
    /// structured value that is not an object is not sent: its clients read the content blocks
    /// ([`crate::ToolOutput::structured`] writes the value's JSON as one).
    ///
    /// `tools/list` advertises it, and every successful result is checked against it on the
    /// way out: a result with no [`crate::ToolOutput::and_structured`] value, or one the
    /// schema refuses, is the host's bug. The caller then gets a tool error (`isError: true`)
    /// carrying nothing of the value, and the reason goes to the log.
    ///
    /// ```
    /// use beam_mcp::ToolSpec;
    /// use serde_json::json;
    /// let tool = ToolSpec::new("get_weather", "Read the weather.").with_output_schema(json!({
    ///     "type": "object",
    ///     "properties": {"celsius": {"type": "number"}},
    ///     "required": ["celsius"]
    /// }));
    /// assert!(tool.output_schema().is_some());
    /// ```
    #[must_use]
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self.derived.output = false;
        self
    }

    /// Requires a client capability (`"sampling"`, `"elicitation"`, `"roots"`, …) of every
    /// 2026-07-28 call; each call adds one. A call whose `clientCapabilities` lacks one is
    /// refused -32021 with `data.requiredCapabilities` naming every missing one, before the
    /// dispatch runs. A 2025-11-25 call declares its capabilities once at `initialize`, not
    /// per request, and is not checked.
    ///
    /// ```
    /// use beam_mcp::ToolSpec;
    ///
    /// let tool = ToolSpec::new("summarise", "Summarise with the client's model.")
    ///     .with_required_client_capability("sampling");
    /// assert_eq!(tool.required_client_capabilities(), ["sampling"]);
    /// ```
    #[must_use]
    pub fn with_required_client_capability(mut self, capability: impl Into<String>) -> Self {
        let capability = capability.into();
        if !self.required_capabilities.contains(&capability) {
            self.required_capabilities.push(capability);
        }
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The human-readable title, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The tool's description.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The declared input schema, if any.
    pub fn input_schema(&self) -> Option<&Value> {
        self.input_schema.as_ref()
    }

    /// The declared output schema, if any.
    pub fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }

    /// The client capabilities every 2026-07-28 call must declare, in the order required.
    pub fn required_client_capabilities(&self) -> &[String] {
        &self.required_capabilities
    }
}

/// The tool annotations a host set beyond `readOnlyHint`: each is sent only when set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ToolHints {
    pub(crate) title: Option<String>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
}

/// The tool annotations of the schema (`ToolAnnotations`), icons and `_meta`.
///
/// `annotations` always carries `readOnlyHint`, from [`ToolSpec::with_mode`]; `title`,
/// `destructiveHint`, `idempotentHint` and `openWorldHint` are sent only when set, at both
/// revisions. All are hints to the client: this crate enforces none of them. A
/// [`Mode::ReadOnly`] tool that says `destructiveHint: true` contradicts itself, and
/// [`crate::Server::new`] refuses it ([`crate::ConfigError::ContradictoryAnnotations`]).
///
/// ```
/// use beam_mcp::catalog::{Icon, Mode, ToolSpec};
/// use beam_mcp::{Catalog, Server, ServerConfig, ToolOutput};
/// use serde_json::json;
///
/// let tool = ToolSpec::new("delete_note", "Delete a note.")
///     .with_mode(Mode::ReadWrite)
///     .with_annotation_title("Delete a note")
///     .with_destructive_hint(true)
///     .with_idempotent_hint(true)
///     .with_open_world_hint(false)
///     .with_icon(Icon::new("https://example.com/bin.svg").with_mime_type("image/svg+xml"))
///     .with_meta("com.example/audit", json!({"log": true}));
/// let config = ServerConfig::new(Catalog::new().tool(tool))
///     .dispatch(|_call| async { Ok(ToolOutput::text("deleted")) });
/// let server = Server::new(config)?;
/// let listed = server.advertised_tool("delete_note").expect("listed");
/// assert_eq!(
///     listed["annotations"],
///     json!({
///         "title": "Delete a note",
///         "readOnlyHint": false,
///         "destructiveHint": true,
///         "idempotentHint": true,
///         "openWorldHint": false
///     })
/// );
/// assert_eq!(listed["icons"], json!([{"src": "https://example.com/bin.svg", "mimeType": "image/svg+xml"}]));
/// assert_eq!(listed["_meta"], json!({"com.example/audit": {"log": true}}));
/// # Ok::<(), beam_mcp::ConfigError>(())
/// ```
impl ToolSpec {
    /// Sets `annotations.title`, the display name a client prefers after the tool's
    /// [`ToolSpec::with_title`] and before its name.
    #[must_use]
    pub fn with_annotation_title(mut self, title: impl Into<String>) -> Self {
        self.hints.title = Some(title.into());
        self
    }

    /// Sets `destructiveHint`: whether the tool may destroy (`true`) or only add (`false`).
    /// Meaningful for a [`Mode::ReadWrite`] tool; `true` on a [`Mode::ReadOnly`] one is refused
    /// at startup.
    #[must_use]
    pub fn with_destructive_hint(mut self, destructive: bool) -> Self {
        self.hints.destructive = Some(destructive);
        self
    }

    /// Sets `idempotentHint`: whether calling again with the same arguments changes nothing
    /// more. Meaningful for a [`Mode::ReadWrite`] tool.
    #[must_use]
    pub fn with_idempotent_hint(mut self, idempotent: bool) -> Self {
        self.hints.idempotent = Some(idempotent);
        self
    }

    /// Sets `openWorldHint`: whether the tool reaches an open world of outside entities (a
    /// web search) or a closed one (a memory).
    #[must_use]
    pub fn with_open_world_hint(mut self, open_world: bool) -> Self {
        self.hints.open_world = Some(open_world);
        self
    }

    /// `annotations.title`, if set.
    pub fn annotation_title(&self) -> Option<&str> {
        self.hints.title.as_deref()
    }

    /// `destructiveHint`, if set.
    pub fn destructive_hint(&self) -> Option<bool> {
        self.hints.destructive
    }

    /// `idempotentHint`, if set.
    pub fn idempotent_hint(&self) -> Option<bool> {
        self.hints.idempotent
    }

    /// `openWorldHint`, if set.
    pub fn open_world_hint(&self) -> Option<bool> {
        self.hints.open_world
    }

    super::meta::icons_and_meta!();
}

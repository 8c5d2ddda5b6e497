//! The JSON Schema subset validator and the argument normaliser.
//!
//! One validator and one normaliser serve `tools/call`, `prompts/get` and host `Dispatch`
//! messages. A tool's schema is compiled once; what `tools/list` advertises is
//! [`Schema::raw`], and what `tools/call` enforces is the compiled form of that same value.
//!
//! # The subset
//!
//! Semantics are JSON Schema 2020-12's, whatever `$schema` says. A keyword constrains only
//! instances of the type it is about (`minLength` ignores a number), as in 2020-12.
//!
//! | keyword | value the schema must give | what the instance must satisfy |
//! |---|---|---|
//! | `type` | a type name, or a non-empty array of distinct ones, among `object` `array` `string` `number` `integer` `boolean` `null` | its type is one of them; `integer` is any number with a zero fractional part (`42` and `42.0`); `number` includes integers |
//! | `properties` | an object whose values are schemas | each declared property present validates against its schema |
//! | `required` | an array of distinct strings | each named property is present |
//! | `additionalProperties` | `true`, `false`, or a schema | each property not declared in `properties` is allowed / refused / validated against the schema |
//! | `items` | one schema (not the tuple form) | every element validates against it |
//! | `minimum`, `maximum` | a number | the number is `>=` / `<=` it, compared exactly (no `f64` rounding of large integers) |
//! | `exclusiveMinimum`, `exclusiveMaximum` | a number (2020-12; the draft-04 boolean form is malformed) | the number is `>` / `<` it |
//! | `minLength`, `maxLength` | a non-negative integer | the string's length in Unicode code points (`"é"` precomposed is 1, `"👍"` is 1, `"e\u{301}"` is 2) |
//! | `minItems`, `maxItems` | a non-negative integer | the array's length |
//!
//! Annotations are carried in [`Schema::raw`] and never validated: `description`, `title`,
//! `default`, `examples`, `$schema`, `$comment`, `x-mcp-header`, `deprecated`, `readOnly`,
//! `writeOnly`. A top-level property's `x-mcp-header` is exposed by [`Property::mcp_header`] for
//! the catalog to judge.
//!
//! # What is refused, and why
//!
//! [`Schema::compile`] refuses, naming the keyword and its JSON Pointer in the raw schema:
//!
//! - **every other keyword** — `pattern`, `format`, `multipleOf`, `$ref`, `$defs`, `$id`,
//!   `$anchor`, `oneOf`, `anyOf`, `allOf`, `not`, `if`/`then`/`else`, `patternProperties`,
//!   `propertyNames`, `dependentRequired`, `prefixItems`, `contains`, `uniqueItems`,
//!   `unevaluatedProperties`, misspellings, and so on. A keyword the validator ignored would be a
//!   constraint `tools/list` advertises and `tools/call` does not enforce; refusing at startup makes
//!   that drift impossible. `pattern` and `format` would also put a regex engine or a format zoo
//!   on the request path; `$ref` would bring in resolution.
//! - **`enum` and `const`** — refused too. They are simple, but they are not in the Elixir original's subset,
//!   and their JSON-equality rule (`1 == 1.0`) is one more semantics to get exactly right; a host
//!   that needs them checks the value in its own dispatch.
//! - **malformed values of subset keywords** — `"minLength": -1`, `"required": "x"`, a repeated
//!   `required` name, `"type": "strin"`, `"items": [..]`, `"exclusiveMinimum": true`.
//! - **boolean schemas**, except as the value of `additionalProperties`. A schema is a JSON object;
//!   `true` / `false` at the root, under `properties` or as `items` are refused.
//! - **nesting deeper than [`MAX_DEPTH`]** subschemas. Validation recurses only where the schema
//!   has a subschema, so this bound is also the validator's stack bound: no instance, however
//!   deep, can overflow it. Raw JSON nested deeper than `4 * MAX_DEPTH` levels anywhere in the
//!   schema (a pathological `default`, say) is refused too, before the raw value is cloned.
//!
//! A schema being satisfiable is not checked (`minimum` above `maximum` is allowed, as in JSON
//! Schema), nor must `required` names appear in `properties`.
//!
//! # Normalisation
//!
//! [`Schema::arguments`] validates an object instance and returns [`Arguments`] holding only the
//! top-level properties the schema declares, each keyed by the compiled schema's own `Arc<str>` —
//! never a string allocated from the caller's key — with the caller's value untouched. Undeclared
//! keys that the schema admits are validated and then not forwarded. Nothing the caller sends is
//! interned, cached or kept by the [`Schema`].
//!
//! ```
//! use beam_mcp::schema::Schema;
//! use serde_json::json;
//!
//! let schema = Schema::compile(&json!({
//!     "type": "object",
//!     "properties": {"place": {"type": "string", "maxLength": 64}},
//!     "required": ["place"],
//! }))?;
//! let args = schema.arguments(&json!({"place": "Oslo", "extra": 1}))?;
//! assert_eq!(args.get("place"), Some(&json!("Oslo")));
//! assert_eq!(args.get("extra"), None);
//!
//! let err = schema.validate(&json!({"place": 7})).unwrap_err();
//! assert_eq!(err.to_string(), "/place: expected string, got number");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

use serde_json::Value;

mod arguments;
mod compile;
mod error;
mod node;
mod number;
mod pointer;
mod validate;

pub use arguments::Arguments;
pub use error::{SchemaError, SchemaErrorKind, Violation};
pub use node::{JsonType, Property};

/// The deepest subschema nesting [`Schema::compile`] accepts (the root is depth 0).
pub const MAX_DEPTH: usize = 64;

/// A compiled schema. Cloning is a reference-count increment.
#[derive(Debug, Clone)]
pub struct Schema {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    raw: Value,
    root: node::Node,
}

impl Schema {
    /// Compile a raw JSON Schema value, refusing anything outside the subset.
    ///
    /// # Errors
    ///
    /// A [`SchemaError`] naming the first problem in document order: a keyword outside the subset,
    /// a malformed keyword value, a schema that is not an object, or nesting deeper than
    /// [`MAX_DEPTH`].
    ///
    /// ```
    /// use beam_mcp::schema::Schema;
    /// use serde_json::json;
    ///
    /// let err = Schema::compile(&json!({
    ///     "type": "object",
    ///     "properties": {"place": {"type": "string", "pattern": "^[A-Z]"}},
    /// }))
    /// .unwrap_err();
    /// assert!(err.is_unsupported_keyword());
    /// assert_eq!(err.keyword(), Some("pattern"));
    /// assert_eq!(err.pointer(), "/properties/place/pattern");
    /// assert_eq!(err.to_string(), "unsupported keyword `pattern` at /properties/place");
    /// ```
    pub fn compile(raw: &Value) -> Result<Schema, SchemaError> {
        let root = compile::compile_root(raw)?;
        Ok(Schema {
            inner: Arc::new(Inner {
                raw: raw.clone(),
                root,
            }),
        })
    }

    /// An open empty object schema, `{"type":"object"}`: for tools without an input schema. It
    /// accepts any object and its [`arguments`](Schema::arguments) are always empty.
    pub fn open_object() -> Schema {
        let mut root = node::Node::empty();
        root.types = Box::new([JsonType::Object]);
        root.type_mask = JsonType::Object.bit();
        Schema {
            inner: Arc::new(Inner {
                raw: serde_json::json!({"type": "object"}),
                root,
            }),
        }
    }

    /// The raw value exactly as given (what `tools/list` advertises).
    pub fn raw(&self) -> &Value {
        &self.inner.raw
    }

    /// Validate an instance.
    ///
    /// # Errors
    ///
    /// The first [`Violation`] found. The order is deterministic: at each schema node `type`,
    /// then the bounds, then `required` in its order, then `properties` in schema order, then
    /// undeclared keys in the instance's order; array elements in index order.
    ///
    /// ```
    /// use beam_mcp::schema::Schema;
    /// use serde_json::json;
    ///
    /// let schema = Schema::compile(&json!({
    ///     "type": "object",
    ///     "properties": {"items": {"type": "array", "items": {
    ///         "type": "object", "properties": {"name": {"type": "string", "minLength": 1}}
    ///     }}},
    /// }))?;
    /// let err = schema.validate(&json!({"items": [{"name": ""}]})).unwrap_err();
    /// assert_eq!(err.instance_path(), "/items/0/name");
    /// assert_eq!(err.keyword(), "minLength");
    /// # Ok::<(), beam_mcp::schema::SchemaError>(())
    /// ```
    pub fn validate(&self, instance: &Value) -> Result<(), Violation> {
        validate::check(&self.inner.root, instance, pointer::Step::Root)
    }

    /// Validate, then normalise an object instance into [`Arguments`]: only the declared
    /// top-level properties, keyed by the schema's own names, values cloned untouched.
    ///
    /// # Errors
    ///
    /// A violation at path `""` with keyword `type` when the instance is not an object, whatever
    /// the schema says; otherwise as [`validate`](Schema::validate).
    ///
    /// ```
    /// use beam_mcp::schema::Schema;
    /// use serde_json::json;
    ///
    /// let args = Schema::open_object().arguments(&json!({"x": 1}))?;
    /// assert!(args.is_empty());
    /// # Ok::<(), beam_mcp::schema::Violation>(())
    /// ```
    pub fn arguments(&self, instance: &Value) -> Result<Arguments, Violation> {
        let map = self.object_instance(instance)?;
        self.validate(instance)?;
        let entries = self
            .inner
            .root
            .properties
            .iter()
            .filter_map(|(name, _)| map.get(&**name).map(|v| (Arc::clone(name), v.clone())))
            .collect();
        Ok(Arguments::from_entries(entries))
    }

    /// As [`arguments`](Schema::arguments), moving the values out of an owned instance instead
    /// of cloning them.
    ///
    /// # Errors
    ///
    /// As [`arguments`](Schema::arguments).
    pub fn arguments_owned(&self, instance: Value) -> Result<Arguments, Violation> {
        self.object_instance(&instance)?;
        self.validate(&instance)?;
        let Value::Object(mut map) = instance else {
            return Ok(Arguments::empty());
        };
        let entries = self
            .inner
            .root
            .properties
            .iter()
            .filter_map(|(name, _)| map.remove(&**name).map(|v| (Arc::clone(name), v)))
            .collect();
        Ok(Arguments::from_entries(entries))
    }

    fn object_instance<'v>(
        &self,
        instance: &'v Value,
    ) -> Result<&'v serde_json::Map<String, Value>, Violation> {
        match instance {
            Value::Object(map) => Ok(map),
            other => Err(Violation::new(
                String::new(),
                "type",
                format!("expected object, got {}", validate::kind_of(other)),
            )),
        }
    }

    /// Top-level declared properties in schema order: the schema's shared name and its
    /// [`Property`] (declared types, `x-mcp-header`).
    pub fn properties(&self) -> impl Iterator<Item = (&Arc<str>, &Property)> {
        self.inner.root.properties.iter().map(|(k, p)| (k, p))
    }

    /// Whether the root declares `"type": "object"` exactly — the string, as MCP requires of an
    /// `inputSchema` (an array such as `["object", "null"]` does not count).
    pub fn is_object_root(&self) -> bool {
        self.inner.raw.get("type").and_then(Value::as_str) == Some("object")
    }
}

//! JSON Schema validation and the argument normaliser: a hand-written subset as the fast path,
//! JSON Schema 2020-12 for everything else.
//!
//! One validator and one normaliser serve `tools/call`, `prompts/get` and host `Dispatch`
//! messages. A tool's schema is compiled once; what `tools/list` advertises is
//! [`Schema::raw`], and what `tools/call` enforces is the compiled form of that same value.
//!
//! # The subset (the fast path)
//!
//! A schema that uses only the keywords below is checked by this module's own validator
//! ([`Schema::is_subset`]). Semantics are JSON Schema 2020-12's, whatever `$schema` says. A
//! keyword constrains only instances of the type it is about (`minLength` ignores a number), as
//! in 2020-12.
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
//! `writeOnly`, `format` (an annotation on both paths, as below). A top-level property's `x-mcp-header` is exposed by [`Property::mcp_header`] for
//! the catalog to judge.
//!
//! # JSON Schema 2020-12 (the general path)
//!
//! A schema using any other 2020-12 keyword is checked against the 2020-12 meta-schema (by the
//! `jsonschema` crate, when the schema enters the catalog), compiled once at [`Schema::compile`] into a graph of
//! nodes, and enforced on every call by this crate's own evaluator, in work linear in the
//! instance (below). The keywords it may use are those of
//! the 2020-12 vocabularies core (`$schema` `$id` `$ref` `$anchor` `$dynamicRef`
//! `$dynamicAnchor` `$defs` `$comment`), applicator (`allOf` `anyOf` `oneOf` `not` `if` `then`
//! `else` `dependentSchemas` `prefixItems` `items` `contains` `properties` `patternProperties`
//! `additionalProperties` `propertyNames`), unevaluated (`unevaluatedItems`
//! `unevaluatedProperties`), validation (the subset's plus `enum` `const` `multipleOf`
//! `pattern` `uniqueItems` `maxContains` `minContains` `maxProperties` `minProperties`
//! `dependentRequired`), format-annotation (`format`), meta-data and content
//! (`contentEncoding` `contentMediaType` `contentSchema`), plus `x-mcp-header`. Boolean
//! subschemas are accepted below the root. The semantics are 2020-12's whatever `$schema` says:
//!
//! - **`format`, `contentEncoding`, `contentMediaType` and `contentSchema` are annotations**, as
//!   2020-12's format-annotation and content vocabularies define them: carried and advertised,
//!   never asserted (`"format": "email"` accepts any string). A host that needs a format
//!   asserted checks it in its own dispatch.
//! - **`pattern`** (and `patternProperties`) compile with the `regex` crate, whose matching is
//!   linear in the input: a caller's string cannot make a pattern backtrack. A pattern it cannot
//!   compile (ECMA-262 lookaround, backreferences) is refused at startup.
//! - **references resolve only within the schema.** A `$ref` or `$dynamicRef` must be a `#`
//!   reference (`#/$defs/address`, `#addressDef`); anything else (`https://…`, `other.json`) is
//!   refused at startup as [`SchemaErrorKind::RemoteReference`], with a pointer to it, and
//!   nothing is ever fetched. A `#` reference that lands on no schema is refused too.
//! - **the validator follows an instance at most [`MAX_INSTANCE_DEPTH`] levels deep** (where a
//!   recursive `$ref` leads it, or where it compares values for `enum`, `const` or
//!   `uniqueItems`), and nests at most 256 subschema evaluations; where it would go deeper the
//!   instance is refused with keyword `depth`. The wire refuses frames deeper than 64 levels
//!   anyway.
//! - **a cycle of references that never moves into the instance** (`{"$ref": "#"}`, or `a` →
//!   `anyOf` → `b` → `a` on the same value) is refused at startup: it would never end.
//!
//! **The work is linear in the instance.** A subschema reached through a reference keeps its
//! verdict for each value it was applied to, so each subschema is applied to each value at most
//! once (per dynamic scope, which only `$dynamicRef` distinguishes) while that table holds (it
//! is capped at 4 MiB; past it the budget bounds the work); a refusal carries one violation,
//! never every failing branch; `uniqueItems` hashes each value once. Every subschema
//! applied, item or member visited and 64 bytes of string read is a step charged to a
//! [`Budget`] ([`Budget::DEFAULT_STEPS`] unless the host sets
//! [`ServerConfig::validation_budget`](crate::ServerConfig::validation_budget)); past it the
//! instance is refused with keyword `budget` at path `""`. `benches/schema_adversarial.rs`
//! measures the inputs that used to cost minutes and gigabytes; `tests/schema_bounded.rs`
//! holds steps and heap per byte flat from 1 KiB to 1 MiB.
//!
//! A violation's message names the schema's expectation (`must be one of the schema's `enum`
//! values`), never the caller's value; its path points into the instance.
//!
//! # What is refused, and why
//!
//! [`Schema::compile`] refuses, naming the keyword and its JSON Pointer in the raw schema:
//!
//! - **every keyword outside 2020-12** — misspellings (`requried`), draft-07's `definitions`,
//!   `dependencies` and `additionalItems`, 2019-09's `$recursiveRef`, `$vocabulary` (only a
//!   meta-schema declares one), unknown `x-` extensions. A keyword the validator ignored would be
//!   a constraint `tools/list` advertises and `tools/call` does not enforce; refusing at startup
//!   makes that drift impossible.
//! - **remote references**, as above.
//! - **malformed values** — `"minLength": -1`, `"required": "x"`, a repeated `required` name,
//!   `"type": "strin"`, `"items": [..]`, `"exclusiveMinimum": true`, an uncompilable `pattern`:
//!   anything the 2020-12 meta-schema refuses, with the pointer of the value.
//! - **a root that is not an object schema**: `true` / `false` at the root are refused.
//! - **nesting deeper than [`MAX_DEPTH`]** subschemas. On the subset path validation recurses
//!   only where the schema has a subschema, so this bound is also the validator's stack bound.
//!   Raw JSON nested deeper than `4 * MAX_DEPTH` levels anywhere in the schema (a pathological
//!   `default`, say) is refused too, before the raw value is cloned.
//!
//! A schema being satisfiable is not checked (`minimum` above `maximum` is allowed, as in JSON
//! Schema), nor must `required` names appear in `properties`.
//!
//! # Normalisation
//!
//! [`Schema::arguments`] validates an object instance and returns [`Arguments`] holding only the
//! top-level properties the schema declares, each keyed by the compiled schema's own `Arc<str>` —
//! never a string allocated from the caller's key — with the caller's value untouched. On the
//! general path the declared names are the root's `properties` and those of the subschemas
//! applied in place to the root (`allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`,
//! `dependentSchemas`, a root `$ref`'s target). Undeclared keys that the schema admits —
//! whether matched by `patternProperties`, an `additionalProperties` or
//! `unevaluatedProperties` schema, or simply allowed — are validated and forwarded apart
//! ([`Arguments::undeclared`]), as the caller's own strings, owned by the arguments and dropped
//! with them. Nothing the caller sends is interned, cached or kept by the [`Schema`] or the
//! validator.
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
//! assert_eq!(args.undeclared().get("extra"), Some(&json!(1)));
//!
//! let err = schema.validate(&json!({"place": 7})).unwrap_err();
//! assert_eq!(err.to_string(), "/place: expected string, got number");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

use serde_json::Value;

mod arguments;
mod budget;
mod compile;
mod error;
mod general;
mod node;
mod number;
mod pointer;
mod validate;

pub use arguments::Arguments;
pub use budget::Budget;
pub use error::{SchemaError, SchemaErrorKind, Violation};
pub use general::MAX_INSTANCE_DEPTH;
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
    engine: Engine,
    /// Whether arguments carry the keys the schema admitted without declaring them: yes, but
    /// for the open object of a tool that declares no schema, which takes no arguments.
    forwards_undeclared: bool,
}

/// Which validator checks a schema: the subset's own, or the general 2020-12 one.
#[derive(Debug)]
enum Engine {
    Subset(node::Node),
    General(general::General),
}

impl Schema {
    /// Compile a raw JSON Schema value: with the subset validator when every keyword is the
    /// subset's, otherwise with the general JSON Schema 2020-12 validator.
    ///
    /// # Errors
    ///
    /// A [`SchemaError`] naming the first problem found: a keyword outside 2020-12, a remote
    /// reference, a malformed keyword value (per the 2020-12 meta-schema), a schema that is not
    /// an object, or nesting deeper than [`MAX_DEPTH`].
    ///
    /// ```
    /// use beam_mcp::schema::Schema;
    /// use serde_json::json;
    ///
    /// let err = Schema::compile(&json!({
    ///     "type": "object",
    ///     "properties": {"place": {"type": "string", "patern": "^[A-Z]"}},
    /// }))
    /// .unwrap_err();
    /// assert!(err.is_unsupported_keyword());
    /// assert_eq!(err.keyword(), Some("patern"));
    /// assert_eq!(err.pointer(), "/properties/place/patern");
    /// assert_eq!(err.to_string(), "unsupported keyword `patern` at /properties/place");
    ///
    /// let err = Schema::compile(&json!({
    ///     "type": "object",
    ///     "properties": {"place": {"$ref": "https://example.com/place.json"}},
    /// }))
    /// .unwrap_err();
    /// assert!(err.is_remote_reference());
    /// assert_eq!(err.pointer(), "/properties/place/$ref");
    ///
    /// let schema = Schema::compile(&json!({
    ///     "type": "object",
    ///     "properties": {"units": {"enum": ["celsius", "fahrenheit"]}},
    /// }))?;
    /// assert!(!schema.is_subset());
    /// let v = schema.validate(&json!({"units": "kelvin"})).unwrap_err();
    /// assert_eq!((v.instance_path(), v.keyword()), ("/units", "enum"));
    /// # Ok::<(), beam_mcp::schema::SchemaError>(())
    /// ```
    pub fn compile(raw: &Value) -> Result<Schema, SchemaError> {
        let engine = match compile::compile_root(raw) {
            Ok(root) => Engine::Subset(root),
            Err(e) if e.is_too_deep() || !raw.is_object() => return Err(e),
            Err(_) => Engine::General(general::General::compile(raw)?),
        };
        Ok(Schema {
            inner: Arc::new(Inner {
                raw: raw.clone(),
                engine,
                forwards_undeclared: true,
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
                engine: Engine::Subset(root),
                forwards_undeclared: false,
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
        self.validate_within(instance, &mut Budget::default())
    }

    /// [`validate`](Schema::validate) under an explicit [`Budget`], which is charged with the
    /// steps taken. The subset validator visits each value at most once and charges nothing.
    ///
    /// # Errors
    ///
    /// As [`validate`](Schema::validate); and a violation with keyword `budget` at path `""`
    /// when the steps would exceed what `budget` has left.
    pub fn validate_within(&self, instance: &Value, budget: &mut Budget) -> Result<(), Violation> {
        match &self.inner.engine {
            Engine::Subset(root) => validate::check(root, instance, pointer::Step::Root),
            Engine::General(general) => general.validate(instance, budget),
        }
    }

    /// Whether the hand-written subset validator checks this schema (the fast path); otherwise
    /// the general JSON Schema 2020-12 validator does.
    pub fn is_subset(&self) -> bool {
        matches!(self.inner.engine, Engine::Subset(_))
    }

    /// The top-level properties the schema declares, in declaration order.
    fn declared(&self) -> &[(Arc<str>, Property)] {
        match &self.inner.engine {
            Engine::Subset(root) => &root.properties,
            Engine::General(general) => &general.properties,
        }
    }

    /// Validate, then normalise an object instance into [`Arguments`]: the declared top-level
    /// properties keyed by the schema's own names, and apart from them the keys the schema
    /// admitted undeclared (none for [`open_object`](Schema::open_object)), values cloned
    /// untouched.
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
            .declared()
            .iter()
            .filter_map(|(name, _)| map.get(&**name).map(|v| (Arc::clone(name), v.clone())))
            .collect();
        if !self.inner.forwards_undeclared {
            return Ok(Arguments::from_entries(entries));
        }
        let undeclared = map
            .iter()
            .filter(|(k, _)| !self.declared().iter().any(|(name, _)| **name == ***k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(Arguments::from_entries(entries).with_undeclared(undeclared))
    }

    /// As [`arguments`](Schema::arguments), moving the values out of an owned instance instead
    /// of cloning them.
    ///
    /// # Errors
    ///
    /// As [`arguments`](Schema::arguments).
    pub fn arguments_owned(&self, instance: Value) -> Result<Arguments, Violation> {
        self.arguments_owned_within(instance, &mut Budget::default())
    }

    /// As [`arguments_owned`](Schema::arguments_owned), under an explicit [`Budget`].
    ///
    /// # Errors
    ///
    /// As [`validate_within`](Schema::validate_within).
    pub fn arguments_owned_within(
        &self,
        instance: Value,
        budget: &mut Budget,
    ) -> Result<Arguments, Violation> {
        self.object_instance(&instance)?;
        self.validate_within(&instance, budget)?;
        let Value::Object(mut map) = instance else {
            return Ok(Arguments::empty());
        };
        let entries = self
            .declared()
            .iter()
            .filter_map(|(name, _)| map.remove(&**name).map(|v| (Arc::clone(name), v)))
            .collect();
        if !self.inner.forwards_undeclared {
            return Ok(Arguments::from_entries(entries));
        }
        // Validation passed, so whatever is left the schema admitted without declaring.
        Ok(Arguments::from_entries(entries).with_undeclared(map))
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
        self.declared().iter().map(|(k, p)| (k, p))
    }

    /// Whether the root declares `"type": "object"` exactly — the string, as MCP requires of an
    /// `inputSchema` (an array such as `["object", "null"]` does not count).
    pub fn is_object_root(&self) -> bool {
        self.inner.raw.get("type").and_then(Value::as_str) == Some("object")
    }
}

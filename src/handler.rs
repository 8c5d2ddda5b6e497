//! Per-tool handlers: a tool written once, its schemas derived from its types.
//!
//! A handler is an async function whose parameters are *extractors* ([`FromToolCall`]) and
//! whose result converts into a tool result ([`IntoToolResult`]), registered on its
//! [`ToolSpec`](crate::ToolSpec) with [`ToolSpec::with_handler`](crate::ToolSpec::with_handler):
//!
//! ```
//! use beam_mcp::{Args, Catalog, Json, ServerConfig, ToolError, ToolSpec};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! /// Where to read the weather.
//! #[derive(Deserialize, JsonSchema)]
//! struct Query {
//!     /// The place's name.
//!     place: String,
//! }
//!
//! /// The weather at a place.
//! #[derive(Serialize, JsonSchema)]
//! struct Report {
//!     place: String,
//!     celsius: i64,
//! }
//!
//! async fn get_weather(Args(q): Args<Query>) -> Result<Json<Report>, ToolError> {
//!     Ok(Json(Report { place: q.place, celsius: 12 }))
//! }
//!
//! let tool = ToolSpec::new("get_weather", "Read the weather.").with_handler(get_weather);
//! assert_eq!(tool.input_schema().unwrap()["required"], serde_json::json!(["place"]));
//! assert!(tool.output_schema().is_some());
//! let server = beam_mcp::Server::new(ServerConfig::new(Catalog::new().tool(tool))).unwrap();
//! # let _ = server;
//! ```
//!
//! The extractors: [`Args<T>`] (the arguments decoded into `T`; its schema is the tool's input
//! schema), [`CallContext`] (revision, carrier, what the host attached), [`Extension<T>`] (one
//! value the host attached), and [`ToolCall`] (the whole call, untyped). A result is a
//! [`Json<U>`] (a structured result; `U`'s schema is the tool's output schema), a
//! [`ToolOutput`], a `String`, or a `Result` of one of those with any error that converts into
//! a [`ToolError`] (so `?` works on a host's own errors).
//!
//! **Validation first, then decoding.** The server validates the arguments against the derived
//! schema exactly as it validates any tool's, under the same budget and with the same refusals,
//! before the handler is reached; only then is `T` decoded. The two agree wherever a schema can
//! say what the type holds (`docs/embedding.md`, "Typed tools"): derived integer and `f32`
//! schemas carry their type's bounds, a number with no fractional part is handed over as an
//! integer, keys admitted by `additionalProperties` reach a `#[serde(flatten)]` map. A value
//! that passed validation and still fails `T`'s `Deserialize` is the host's bug: the call is
//! answered -32603, saying nothing of the value, and the reason is logged with the tool's name.
//! Under a derived schema that is left to what `schemars` cannot say — an integer map key's
//! width, a `format` such as `IpAddr`'s, an overflowing `Duration`, an alias beside its name —
//! which a host takes as a `String` and parses itself when a caller may get it wrong.

use crate::dispatch::Extensions;
use crate::dispatch::{CallContext, CancellationToken, ToolCall, ToolError, ToolOutput};
use crate::schema::Arguments;
use crate::{content::Content, BoxFuture};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;

/// The arguments of a call, decoded into `T` after validation against `T`'s derived schema.
///
/// `T`'s schema (derived by `schemars` for JSON Schema 2020-12, integer bounds added from each
/// integer's width) becomes the tool's `inputSchema` when the spec has none of its own. Its
/// root must be an object schema (a struct or a map), as MCP requires.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Args<T>(pub T);

/// A structured result: `U` serialised as `structuredContent`, and the same JSON as one text
/// block for clients that read only `content`. `U`'s derived schema becomes the tool's
/// `outputSchema` when the spec has none of its own.
///
/// `U` need not be a struct: a `Vec`, a number or an enum has a schema whose root is not an
/// object, which 2026-07-28 lists and sends as any other (SEP-2106). 2025-11-25 admits only
/// objects there, so its clients see the tool without `outputSchema` and the value as the
/// text block alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Json<U>(pub U);

/// One value of type `T` the host attached to the call (its authorize hook's principal, say),
/// cloned out of [`CallContext::extensions`].
///
/// A call without one is answered -32603 and logged: the host attaches what its own handler
/// reads, so its absence is the host's bug.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extension<T>(pub T);

/// A value a handler takes from the call.
///
/// Implemented by [`Args<T>`], [`CallContext`], [`CancellationToken`], [`Extensions`],
/// [`Extension<T>`] and [`ToolCall`]; a host may implement it for its own types.
pub trait FromToolCall: Sized + Send + 'static {
    /// The input schema this extractor declares, if it reads the arguments. At most one of a
    /// handler's extractors may.
    fn input_schema() -> Option<Value> {
        None
    }

    /// Whether this extractor takes the call's arguments (then no later extractor sees them).
    fn reads_arguments() -> bool {
        false
    }

    /// Takes the value from `call`.
    ///
    /// # Errors
    /// A [`ToolError`]: an internal one ([`ToolError::internal`]) when the host's types and
    /// the call disagree.
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError>;
}

impl<T: DeserializeOwned + JsonSchema + Send + 'static> FromToolCall for Args<T> {
    fn input_schema() -> Option<Value> {
        Some(derive::input::<T>())
    }

    fn reads_arguments() -> bool {
        true
    }

    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        decode(std::mem::take(&mut call.arguments)).map(Args)
    }
}

impl FromToolCall for CallContext {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        Ok(call.context.clone())
    }
}

/// The call's cancellation signal ([`CallContext::cancellation`]).
impl FromToolCall for CancellationToken {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        Ok(call.context.cancellation.clone())
    }
}

impl FromToolCall for Extensions {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        Ok(call.context.extensions.clone())
    }
}

impl<T: Clone + Send + Sync + 'static> FromToolCall for Extension<T> {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        match call.context.extensions.get::<T>() {
            Some(value) => Ok(Extension(value.clone())),
            None => Err(ToolError::internal(format!(
                "the handler reads an extension of type {} the call does not carry",
                std::any::type_name::<T>()
            ))),
        }
    }
}

impl FromToolCall for ToolCall {
    fn reads_arguments() -> bool {
        true
    }

    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        Ok(ToolCall {
            tool: call.tool.clone(),
            arguments: std::mem::take(&mut call.arguments),
            context: call.context.clone(),
        })
    }
}

/// What a handler's successful value becomes: a [`ToolOutput`].
pub trait IntoToolOutput: Send + 'static {
    /// The output schema this value declares, if it is structured.
    fn output_schema() -> Option<Value> {
        None
    }

    /// The output.
    ///
    /// # Errors
    /// An internal [`ToolError`] when the value cannot be rendered (a `Json<U>` whose
    /// `Serialize` fails).
    fn into_tool_output(self) -> Result<ToolOutput, ToolError>;
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(self)
    }
}

impl IntoToolOutput for String {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for &'static str {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for Content {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::block(self))
    }
}

impl IntoToolOutput for Vec<Content> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::blocks(self))
    }
}

impl<U: Serialize + JsonSchema + Send + 'static> IntoToolOutput for Json<U> {
    fn output_schema() -> Option<Value> {
        Some(derive::output::<U>())
    }

    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        match serde_json::to_value(&self.0) {
            Ok(value) => Ok(ToolOutput::structured(value)),
            Err(e) => Err(ToolError::internal(format!(
                "the result failed to serialise: {e}"
            ))),
        }
    }
}

/// What a handler's future resolves to: a value or a `Result` of one.
pub trait IntoToolResult: Send + 'static {
    /// The output schema of the successful value, if it is structured.
    fn output_schema() -> Option<Value>;

    /// The call's outcome.
    ///
    /// # Errors
    /// The tool's own error, or an internal one (see [`IntoToolOutput::into_tool_output`]).
    fn into_tool_result(self) -> Result<ToolOutput, ToolError>;
}

impl<O: IntoToolOutput> IntoToolResult for O {
    fn output_schema() -> Option<Value> {
        O::output_schema()
    }

    fn into_tool_result(self) -> Result<ToolOutput, ToolError> {
        self.into_tool_output()
    }
}

impl<O: IntoToolOutput, E: Into<ToolError> + Send + 'static> IntoToolResult for Result<O, E> {
    fn output_schema() -> Option<Value> {
        O::output_schema()
    }

    fn into_tool_result(self) -> Result<ToolOutput, ToolError> {
        self.map_err(Into::into)
            .and_then(IntoToolOutput::into_tool_output)
    }
}

/// An async function of extractors, usable as one tool's handler.
///
/// Implemented for every `Fn(E1, …, En) -> impl Future<Output = R>` with up to four extractors
/// `Ei: FromToolCall` and `R: IntoToolResult`; `M` is the parameter list, which only tells the
/// implementations apart. A function that does not fit (a parameter that is no extractor, a
/// result that is no tool result, a future that is not `Send`) does not compile:
///
/// ```compile_fail
/// use beam_mcp::{Args, ToolSpec};
/// // `u32` is no tool result.
/// async fn count(Args(_x): Args<std::collections::HashMap<String, u8>>) -> u32 { 3 }
/// let _ = ToolSpec::new("count", "Count.").with_handler(count);
/// ```
///
/// ```compile_fail
/// use beam_mcp::{Args, ToolSpec};
/// // No `JsonSchema`: there is no schema to advertise and enforce.
/// #[derive(serde::Deserialize)]
/// struct Query { place: String }
/// async fn look(Args(q): Args<Query>) -> String { q.place }
/// let _ = ToolSpec::new("look", "Look.").with_handler(look);
/// ```
///
/// ```compile_fail
/// use beam_mcp::{Json, ToolError, ToolSpec};
/// // A result type without `Serialize`/`JsonSchema` cannot be a structured result.
/// struct Report { celsius: i64 }
/// async fn read() -> Result<Json<Report>, ToolError> { Ok(Json(Report { celsius: 1 })) }
/// let _ = ToolSpec::new("read", "Read.").with_handler(read);
/// ```
///
/// ```compile_fail
/// use beam_mcp::ToolSpec;
/// // A bare `String` parameter is no extractor: arguments come as `Args<T>`.
/// async fn echo(text: String) -> String { text }
/// let _ = ToolSpec::new("echo", "Echo.").with_handler(echo);
/// ```
///
/// ```compile_fail
/// use beam_mcp::{Args, ToolSpec};
/// use std::rc::Rc;
/// // A future that is not `Send` cannot run in the dispatch pool.
/// async fn local(Args(n): Args<std::collections::BTreeMap<String, u8>>) -> String {
///     let held = Rc::new(n.len());
///     tokio::task::yield_now().await;
///     held.to_string()
/// }
/// let _ = ToolSpec::new("local", "Local.").with_handler(local);
/// ```
///
/// And the same shapes with the right types compile:
///
/// ```
/// use beam_mcp::{Args, Json, ToolError, ToolSpec};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Query { place: String }
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Report { celsius: i64 }
/// async fn read(Args(_q): Args<Query>) -> Result<Json<Report>, ToolError> {
///     Ok(Json(Report { celsius: 1 }))
/// }
/// let _ = ToolSpec::new("read", "Read.").with_handler(read);
/// ```
pub trait ToolHandler<M>: Send + Sync + Sized + 'static {
    /// The input schema its extractors declare.
    fn input_schema() -> Option<Value>;
    /// The output schema its result declares.
    fn output_schema() -> Option<Value>;
    /// How many of its extractors take the arguments (more than one is refused at startup).
    fn argument_readers() -> usize;
    /// Runs one call.
    fn handle(&self, call: ToolCall) -> BoxFuture<Result<ToolOutput, ToolError>>;
}

macro_rules! handler_for {
    ($($e:ident),*) => {
        #[allow(non_snake_case, unused_mut, unused_variables)]
        impl<F, Fut, R, $($e,)*> ToolHandler<($($e,)*)> for F
        where
            F: Fn($($e),*) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = R> + Send + 'static,
            R: IntoToolResult,
            $($e: FromToolCall,)*
        {
            fn input_schema() -> Option<Value> {
                None$(.or_else($e::input_schema))*
            }

            fn output_schema() -> Option<Value> {
                R::output_schema()
            }

            fn argument_readers() -> usize {
                0 $(+ usize::from($e::reads_arguments()))*
            }

            fn handle(&self, mut call: ToolCall) -> BoxFuture<Result<ToolOutput, ToolError>> {
                $(
                    let $e = match $e::from_tool_call(&mut call) {
                        Ok(v) => v,
                        Err(e) => return Box::pin(std::future::ready(Err(e))),
                    };
                )*
                let fut = self($($e),*);
                Box::pin(async move { fut.await.into_tool_result() })
            }
        }
    };
}

handler_for!();
handler_for!(E1);
handler_for!(E1, E2);
handler_for!(E1, E2, E3);
handler_for!(E1, E2, E3, E4);

/// A [`ToolHandler`] as the server's [`crate::Dispatch`].
pub(crate) struct Bound<H, M> {
    handler: H,
    _params: PhantomData<fn() -> M>,
}

impl<H, M> Bound<H, M> {
    pub(crate) fn new(handler: H) -> Self {
        Bound {
            handler,
            _params: PhantomData,
        }
    }
}

impl<H, M> fmt::Debug for Bound<H, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Bound")
    }
}

impl<H: ToolHandler<M>, M: 'static> crate::Dispatch for Bound<H, M> {
    fn call(&self, call: ToolCall) -> BoxFuture<Result<ToolOutput, ToolError>> {
        self.handler.handle(call)
    }
}

/// Decodes validated arguments into `T`.
///
/// # Errors
/// An internal [`ToolError`] (the host's types and its schema disagree).
pub(crate) fn decode<T: DeserializeOwned>(arguments: Arguments) -> Result<T, ToolError> {
    let mut object = arguments.into_map();
    for value in object.values_mut() {
        integral(value);
    }
    T::deserialize(Value::Object(object)).map_err(|e| {
        ToolError::internal(format!(
            "arguments passed the tool's schema but did not decode into {}: {e}",
            std::any::type_name::<T>()
        ))
    })
}

/// Rewrites every number with no fractional part, within the range of `i64` or `u64`, as an
/// integer: JSON Schema's `integer` admits `3.0`, serde's integers do not. A float field still
/// reads an integer (serde widens it), and JSON has one number type, so nothing is lost.
pub(crate) fn integral(value: &mut Value) {
    match value {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
                if f.fract() == 0.0 {
                    // 2^64 and -2^63 are exact in binary64; inside them the cast is exact.
                    if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
                        *n = (f as u64).into();
                    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&f) {
                        *n = (f as i64).into();
                    }
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral),
        Value::Object(map) => map.values_mut().for_each(integral),
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}

/// Schemas derived from Rust types, as tools advertise and enforce them.
pub(crate) mod derive {
    use schemars::generate::SchemaSettings;
    use schemars::transform::{transform_subschemas, ReplaceBoolSchemas, Transform};
    use schemars::{JsonSchema, Schema};
    use serde_json::{json, Map, Value};
    use std::cmp::Ordering;

    /// `T`'s schema as arguments it deserialises from.
    pub(crate) fn input<T: JsonSchema>() -> Value {
        settings()
            .for_deserialize()
            .into_generator()
            .into_root_schema_for::<T>()
            .to_value()
    }

    /// `U`'s schema as the value it serialises to.
    pub(crate) fn output<U: JsonSchema>() -> Value {
        settings()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<U>()
            .to_value()
    }

    fn settings() -> SchemaSettings {
        // `true` subschemas (a `serde_json::Value` field) become `{}`: the same schema, in the
        // shape the 2025-11-25 `Tool` schema requires of each `properties` member.
        let mut objects_only = ReplaceBoolSchemas::default();
        objects_only.skip_additional_properties = true;
        SchemaSettings::draft2020_12()
            .with(|s| s.meta_schema = None)
            .with_transform(NumberBounds)
            .with_transform(objects_only)
    }

    /// Holds each number schema within what its type can hold, from the `format` schemars
    /// writes (`int32`, `uint64`, `float`, …): the width's bounds are added, or tighten the
    /// bounds a host's attributes set, so that whatever the schema admits the type decodes.
    #[derive(Debug, Clone, Copy)]
    struct NumberBounds;

    impl Transform for NumberBounds {
        fn transform(&mut self, schema: &mut Schema) {
            let bounds = match schema.get("format").and_then(Value::as_str) {
                Some("int8") => Some((json!(i8::MIN), json!(i8::MAX))),
                Some("int16") => Some((json!(i16::MIN), json!(i16::MAX))),
                Some("int32") => Some((json!(i32::MIN), json!(i32::MAX))),
                // Wider than 64 bits still decodes only what fits in 64 (serde_json's numbers).
                Some("int64" | "int" | "int128") => Some((json!(i64::MIN), json!(i64::MAX))),
                Some("uint8") => Some((json!(0), json!(u8::MAX))),
                Some("uint16") => Some((json!(0), json!(u16::MAX))),
                Some("uint32") => Some((json!(0), json!(u32::MAX))),
                Some("uint64" | "uint" | "uint128") => Some((json!(0), json!(u64::MAX))),
                // An `f32` past its range would decode as infinity.
                Some("float") => Some((json!(-f32::MAX), json!(f32::MAX))),
                _ => None,
            };
            if let (Some((min, max)), Some(object)) = (bounds, schema.as_object_mut()) {
                tighten(object, "minimum", min, Ordering::Greater);
                tighten(object, "maximum", max, Ordering::Less);
            }
            transform_subschemas(self, schema);
        }
    }

    /// Sets `object[key]` to `width` unless it already holds a bound tighter than it (one that
    /// compares as `tighter` to `width`).
    fn tighten(object: &mut Map<String, Value>, key: &str, width: Value, tighter: Ordering) {
        let keep = object
            .get(key)
            .and_then(|set| compare(set, &width))
            .is_some_and(|o| o == tighter || o == Ordering::Equal);
        if !keep {
            object.insert(key.to_owned(), width);
        }
    }

    /// Orders two JSON numbers: exactly when both are integers, as `f64` otherwise.
    fn compare(a: &Value, b: &Value) -> Option<Ordering> {
        let exact = |v: &Value| {
            v.as_i64()
                .map(i128::from)
                .or_else(|| v.as_u64().map(i128::from))
        };
        match (exact(a), exact(b)) {
            (Some(a), Some(b)) => Some(a.cmp(&b)),
            _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integral_floats_become_integers_and_others_stay() {
        let mut v = json!([3.0, -2.0, 2.5, 1e300, -0.0, 18446744073709551615.0, [4.0], {"a": 5.0}]);
        integral(&mut v);
        assert_eq!(v[0], json!(3u64));
        assert!(v[0].is_u64());
        assert!(v[1].is_i64());
        assert!(v[2].is_f64());
        assert!(v[3].is_f64(), "out of range stays a float");
        assert!(v[4].is_u64());
        assert!(v[5].is_f64(), "2^64 is past u64::MAX");
        assert!(v[6][0].is_u64());
        assert!(v[7]["a"].is_u64());
    }
}

//! The method table: which revision serves a request, and what each method answers.

use super::inner::Inner;
use super::negotiate::{check_initialize, revision_of, Era};
use super::pending::{Pending, Work};
use super::refusals::{not_found, refused_arguments, refused_tool_arguments};
use super::reply::Reply;
use super::step::Step;
use super::visible::{readable, shows, visible_prompt, visible_tool};
use crate::catalog::cursor::{page, ListKind};
use crate::catalog::validated::{Ordered, PromptEntry, ResourceEntryV, TemplateEntry, ToolEntry};
use crate::catalog::Item;
use crate::dispatch::Extensions;
use crate::dispatch::{CallContext, CancellationToken, ToolCall};
use crate::metrics;
use crate::model::result::{
    DiscoverResult, EmptyResult, InitializeResult, ListCapability, ListResult, NoSettings, Page,
    ResourcesCapability, ServerCapabilities,
};
use crate::otel::RequestSpan;
use crate::protocol::outcome::Kind;
use crate::protocol::{
    codes, Cacheable, Incoming, Member, Meta, Params, RequestId, Revision, RpcError, Text,
};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::ops::Bound;
use std::sync::Arc;

/// Routes `m` for its request `span`, which the step carries on: host work runs in it, and a
/// reply made now is recorded on it. Routing names the span (its tool, its prompt) and so does
/// not enter it: an OpenTelemetry span starts at its first entry, and its name is fixed then.
pub(super) fn route(
    inner: &Arc<Inner>,
    m: Incoming<'_>,
    era: Era,
    extensions: Extensions,
    span: RequestSpan,
) -> Step {
    let step = routed(inner, m, era, extensions, &span);
    match step {
        Step::Pending(p) => Step::Pending(p.traced(span)),
        Step::Reply(r) => {
            r.end_span(&span);
            Step::Reply(r)
        }
        Step::Close(Some(r)) => {
            r.end_span(&span);
            Step::Close(Some(r))
        }
        Step::Silent | Step::Cancel(_) | Step::Close(None) => step,
    }
}

fn routed(
    inner: &Arc<Inner>,
    m: Incoming<'_>,
    era: Era,
    extensions: Extensions,
    span: &RequestSpan,
) -> Step {
    let carrier = era.carrier;
    let counted = |revision: Option<Revision>| {
        if let Some(revision) = revision {
            span.revision(revision);
        }
        metrics::request(&m.method, revision, carrier)
    };
    let Some(id) = m.id.clone() else {
        counted(None);
        // Notifications are never answered, not even with an error.
        return match &*m.method {
            "exit" | "shutdown" => Step::Close(None),
            // A `requestId` no request could carry cancels nothing.
            "notifications/cancelled" => m
                .params
                .and_then(|mut p| p.rest.remove("requestId"))
                .and_then(RequestId::from_value)
                .map_or(Step::Silent, Step::Cancel),
            _ => Step::Silent,
        };
    };
    let fail = |e: RpcError| Step::Reply(Reply::error(Some(&id), e));
    if m.top_level_meta {
        counted(None);
        return fail(RpcError::invalid_params(
            "_meta belongs in params",
            json!({ "field": "_meta", "expected": "params._meta" }),
        ));
    }
    // Matched before the revision switch: discover is the era probe, initialize the legacy opener.
    match &*m.method {
        "server/discover" => {
            counted(Some(Revision::V2026_07_28));
            let body = discover(inner, era);
            return Step::Reply(Reply::result(inner.envelope.encode_discover(&id, &body)));
        }
        // Where only 2026-07-28 is served, the legacy opener is not a method.
        "initialize" if !era.bare_is_legacy => {
            counted(None);
            return fail(RpcError::method_not_found("initialize"));
        }
        "initialize" => {
            counted(Some(Revision::V2025_11_25));
            if let Err(e) = check_initialize(m.params.as_ref()) {
                return fail(e);
            }
            let result = initialize(inner);
            let bytes = inner.envelope.encode(&id, Revision::V2025_11_25, &result);
            return Step::Reply(Reply::result(bytes));
        }
        _ => {}
    }
    let negotiated = era.revision.map_or_else(|| revision_of(&m, era), Ok);
    let revision = match negotiated {
        Ok(r) => r,
        Err(e) => {
            counted(None);
            return fail(e);
        }
    };
    counted(Some(revision));
    // Built only by the methods that run host work: a token is an allocation a list does
    // not need.
    let context = move |extensions| CallContext {
        revision,
        carrier,
        extensions,
        cancellation: CancellationToken::new(),
    };
    let params = m.params.unwrap_or_default();
    let cat = &inner.catalog;
    let listing = |kind| Listing {
        inner,
        id: &id,
        revision,
        params: &params.rest,
        kind,
        extensions: &extensions,
    };
    match (&*m.method, revision) {
        ("ping", Revision::V2025_11_25) => Step::Reply(empty(inner, &id, revision)),
        ("shutdown" | "exit", _) => Step::Close(Some(empty(inner, &id, revision))),
        ("tools/list", _) if !cat.tools.is_empty() => listing(ListKind::Tools).of(&cat.tools),
        ("tools/call", _) if !cat.tools.is_empty() => {
            tools_call(inner, id, context(extensions), params, span)
        }
        ("resources/list", _) if cat.has_resources() => {
            listing(ListKind::Resources).of(&cat.resources)
        }
        ("resources/templates/list", _) if cat.has_resources() => {
            listing(ListKind::ResourceTemplates).of(&cat.templates)
        }
        ("resources/read", _) if cat.has_resources() => {
            resources_read(inner, id, context(extensions), params, span)
        }
        ("prompts/list", _) if !cat.prompts.is_empty() => {
            listing(ListKind::Prompts).of(&cat.prompts)
        }
        ("prompts/get", _) if !cat.prompts.is_empty() => {
            prompts_get(inner, id, context(extensions), params, span)
        }
        ("completion/complete", _) if cat.completer().is_some() => {
            super::complete::complete(inner, id, context(extensions), params.rest)
        }
        (method, _) => fail(RpcError::method_not_found(method)),
    }
}

/// The empty result of `ping`, `shutdown` and `exit`.
fn empty(inner: &Inner, id: &RequestId, revision: Revision) -> Reply {
    Reply::result(inner.envelope.encode(id, revision, &EmptyResult {}))
}

/// One list request: the page after the cursor's key of what the caller sees, its entries
/// copied from their pre-encoded bytes.
struct Listing<'a> {
    inner: &'a Inner,
    id: &'a RequestId,
    revision: Revision,
    params: &'a Map<String, Value>,
    kind: ListKind,
    extensions: &'a Extensions,
}

impl Listing<'_> {
    fn of<K, T>(&self, items: &Ordered<K, T>) -> Step
    where
        K: std::borrow::Borrow<str> + Ord,
        T: Listed,
    {
        let Listing {
            inner,
            id,
            revision,
            params,
            kind,
            extensions,
        } = *self;
        let fail = |e: RpcError| Step::Reply(Reply::error(Some(id), e));
        let after = match params.get("cursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(c)) => match inner.cursors.decode(kind, c) {
                Ok(k) => Some(k),
                Err(e) => {
                    return fail(RpcError::invalid_params(
                        "Invalid cursor",
                        json!({ "cursor": c, "reason": e.to_string() }),
                    ))
                }
            },
            Some(_) => {
                return fail(RpcError::invalid_params(
                    "params.cursor must be a string",
                    json!({ "field": "cursor" }),
                ))
            }
        };
        let start = after.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
        let rest = items
            .range::<str, _>((start, Bound::Unbounded))
            .map(|(_, item)| item)
            .filter(|item| shows(inner, item.item(), extensions));
        let (entries, next) = page(rest, T::key, |item| item.wire(revision), inner.page_size);
        let cache = inner.viewed_cache_hint(match kind {
            ListKind::Tools => Cacheable::Tools,
            ListKind::Resources | ListKind::ResourceTemplates => Cacheable::Resources,
            ListKind::Prompts => Cacheable::Prompts,
        });
        let body = ListResult {
            page: T::page(entries),
            next_cursor: next.map(|last| inner.cursors.encode(kind, last)),
            cache: revision.is_modern().then(|| cache.members()),
        };
        Step::Reply(Reply::result(inner.envelope.encode(id, revision, &body)))
    }
}

/// An entry of a paginated list: its sort key and its pre-encoded wire form.
trait Listed {
    /// The page of a list of these, under the member its method names.
    fn page(entries: Vec<&RawValue>) -> Page<'_>;
    fn key(&self) -> &str;
    /// The item, as a view is asked about it.
    fn item(&self) -> Item<'_>;
    /// The entry as `revision` lists it.
    fn wire(&self, revision: Revision) -> &RawValue;
}

impl Listed for ToolEntry {
    fn page(entries: Vec<&RawValue>) -> Page<'_> {
        Page::Tools(entries)
    }
    fn key(&self) -> &str {
        self.spec.name()
    }
    fn item(&self) -> Item<'_> {
        Item::Tool(&self.spec)
    }
    fn wire(&self, revision: Revision) -> &RawValue {
        match &self.legacy_wire {
            Some(legacy) if !revision.is_modern() => legacy,
            _ => &self.wire,
        }
    }
}

impl Listed for ResourceEntryV {
    fn page(entries: Vec<&RawValue>) -> Page<'_> {
        Page::Resources(entries)
    }
    fn key(&self) -> &str {
        self.spec.uri()
    }
    fn item(&self) -> Item<'_> {
        Item::Resource(&self.spec)
    }
    fn wire(&self, _: Revision) -> &RawValue {
        &self.wire
    }
}

impl Listed for TemplateEntry {
    fn page(entries: Vec<&RawValue>) -> Page<'_> {
        Page::ResourceTemplates(entries)
    }
    fn key(&self) -> &str {
        self.spec.uri_template()
    }
    fn item(&self) -> Item<'_> {
        Item::ResourceTemplate(&self.spec)
    }
    fn wire(&self, _: Revision) -> &RawValue {
        &self.wire
    }
}

impl Listed for PromptEntry {
    fn page(entries: Vec<&RawValue>) -> Page<'_> {
        Page::Prompts(entries)
    }
    fn key(&self) -> &str {
        self.spec.name()
    }
    fn item(&self) -> Item<'_> {
        Item::Prompt(&self.spec)
    }
    fn wire(&self, _: Revision) -> &RawValue {
        &self.wire
    }
}

/// The server's capabilities at `revision`: `extensions` only at 2026-07-28, whose schema
/// alone defines it.
fn capabilities(inner: &Inner, revision: Revision) -> ServerCapabilities<'_> {
    let lists = ListCapability {
        list_changed: false,
    };
    let cat = &inner.catalog;
    ServerCapabilities {
        tools: (!cat.tools.is_empty()).then_some(lists),
        resources: cat.has_resources().then_some(ResourcesCapability {
            list_changed: false,
            subscribe: false,
        }),
        prompts: (!cat.prompts.is_empty()).then_some(ListCapability {
            list_changed: false,
        }),
        completions: cat.completer().is_some().then_some(NoSettings {}),
        extensions: (revision.is_modern() && !inner.extensions.is_empty())
            .then_some(&inner.extensions),
    }
}

fn discover(inner: &Inner, era: Era) -> DiscoverResult<'_> {
    DiscoverResult {
        supported_versions: era.served.iter().map(|r| r.as_str()).collect(),
        capabilities: capabilities(inner, Revision::V2026_07_28),
        instructions: inner.instructions.as_deref(),
        cache: inner.cache_hints.get(Cacheable::Discover).members(),
    }
}

fn initialize(inner: &Inner) -> InitializeResult<'_> {
    InitializeResult {
        protocol_version: Revision::V2025_11_25.as_str(),
        capabilities: capabilities(inner, Revision::V2025_11_25),
        server_info: inner.envelope.server_info(),
        instructions: inner.instructions.as_deref(),
    }
}

fn name_param<'a>(params: &'a Params<'_>, field: &'static str) -> Result<&'a str, RpcError> {
    params.text(field).ok_or_else(|| not_a_string(field))
}

/// `params.name` of a `tools/call` or `prompts/get`, taken out of its params so that the
/// arguments can be moved out beside it.
fn required_name<'a>(name: Option<&'a Text<'_>>) -> Result<&'a str, RpcError> {
    name.and_then(Text::as_str)
        .ok_or_else(|| not_a_string("name"))
}

fn not_a_string(field: &'static str) -> RpcError {
    RpcError::invalid_params(
        format!("params.{field} must be a string"),
        json!({ "field": field }),
    )
}

/// Takes `params.arguments` out of the params: absent (or null) is `{}`, anything but an
/// object is refused.
fn take_arguments(arguments: Option<Value>) -> Result<Value, RpcError> {
    match arguments {
        None | Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(v @ Value::Object(_)) => Ok(v),
        Some(_) => Err(RpcError::invalid_params(
            "params.arguments must be an object",
            json!({ "field": "arguments" }),
        )),
    }
}

/// Validates and normalises arguments against `schema`; a refusal names the failing path and
/// the tool or prompt (`key` is `"tool"` or `"name"`).
fn validated(
    schema: &crate::schema::Schema,
    args: Value,
    budget: u64,
    key: &str,
    owner: &str,
) -> Result<crate::schema::Arguments, RpcError> {
    schema
        .arguments_owned_within(args, &mut crate::schema::Budget::new(budget))
        .map_err(|v| refused_arguments(&v, key, owner))
}

fn tools_call(
    inner: &Arc<Inner>,
    id: RequestId,
    context: CallContext,
    params: Params<'_>,
    span: &RequestSpan,
) -> Step {
    let (revision, carrier) = (context.revision, context.carrier);
    let fail = |id: &RequestId, e: RpcError| Step::Reply(Reply::error(Some(id), e));
    let Params {
        name,
        arguments,
        meta,
        ..
    } = params;
    let name = match required_name(name.as_ref()) {
        Ok(n) => n,
        Err(e) => return fail(&id, e),
    };
    let Some(tool) = visible_tool(inner, name, &context.extensions) else {
        return fail(
            &id,
            RpcError::invalid_params(format!("Unknown tool: {name}"), json!({ "tool": name }))
                .of_kind(Kind::UnknownTool),
        );
    };
    span.tool(&tool.spec.name);
    if let Some(fault) = &tool.header_fault {
        tracing::error!(tool = %tool.spec.name, %fault, "tools/call refused: the tool's schema is misconfigured");
        return fail(&id, RpcError::internal());
    }
    if revision.is_modern() {
        if let Some(e) = missing_capabilities(&tool.spec.required_capabilities, meta.as_ref()) {
            return fail(&id, e);
        }
    }
    let args = match take_arguments(arguments) {
        Ok(a) => a,
        Err(e) => return fail(&id, e),
    };
    if inner.dispatch.is_none() && tool.spec.handler.is_none() {
        return fail(&id, RpcError::internal());
    }
    // A general schema's validation is bounded but may cost up to the budget: it runs with the
    // host work, under the runtime's admission (the pool's bound and deadline), not on the
    // connection's task. The subset's is a single pass over the request and runs here.
    if !tool.schema.is_subset() {
        return Step::Pending(Pending::new(
            inner.clone(),
            id,
            revision,
            Work::Unchecked {
                tool: tool.spec.name.clone(),
                arguments: args,
                context,
            },
        ));
    }
    let arguments = match tool.schema.arguments_owned(args) {
        Ok(a) => a,
        Err(v) => {
            return Step::Reply(refused_tool_arguments(
                inner, &id, carrier, revision, tool, &v,
            ))
        }
    };
    let call = ToolCall {
        tool: tool.spec.name.clone(),
        arguments,
        context,
    };
    // The tool's dispatch, output schema and metric series are read through the snapshot the
    // work holds, not cloned per call: every clone of a shared `Arc` is an atomic write to a
    // cache line all workers share.
    Step::Pending(Pending::new(
        inner.clone(),
        id,
        revision,
        Work::Tool { call },
    ))
}

/// -32021 naming every capability in `required` that the request's `clientCapabilities` lacks.
fn missing_capabilities(required: &[String], meta: Option<&Member<Meta<'_>>>) -> Option<RpcError> {
    let declared = match meta {
        Some(Member::Object(meta)) => meta.client_capabilities.as_ref().and_then(Value::as_object),
        _ => None,
    };
    let missing: Map<String, Value> = required
        .iter()
        .filter(|c| !declared.is_some_and(|d| d.contains_key(c.as_str())))
        .map(|c| (c.clone(), Value::Object(Map::new())))
        .collect();
    if missing.is_empty() {
        return None;
    }
    Some(
        RpcError::new(
            codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "Missing required client capability",
        )
        .with_data(json!({ "requiredCapabilities": missing })),
    )
}

fn resources_read(
    inner: &Arc<Inner>,
    id: RequestId,
    context: CallContext,
    params: Params<'_>,
    span: &RequestSpan,
) -> Step {
    let revision = context.revision;
    let uri = match name_param(&params, "uri") {
        Ok(u) => u,
        Err(e) => return Step::Reply(Reply::error(Some(&id), e)),
    };
    if !readable(inner, uri, &context.extensions) {
        return Step::Reply(Reply::error(Some(&id), not_found(revision, uri, None)));
    }
    span.resource(uri);
    let Some(reader) = inner.catalog.reader.clone() else {
        return Step::Reply(Reply::error(Some(&id), RpcError::internal()));
    };
    Step::Pending(Pending::new(
        inner.clone(),
        id,
        revision,
        Work::Read {
            reader,
            uri: uri.to_owned(),
            context,
        },
    ))
}

fn prompts_get(
    inner: &Arc<Inner>,
    id: RequestId,
    context: CallContext,
    params: Params<'_>,
    span: &RequestSpan,
) -> Step {
    let revision = context.revision;
    let fail = |id: &RequestId, e: RpcError| Step::Reply(Reply::error(Some(id), e));
    let Params {
        name, arguments, ..
    } = params;
    let name = match required_name(name.as_ref()) {
        Ok(n) => n,
        Err(e) => return fail(&id, e),
    };
    let Some(prompt) = visible_prompt(inner, name, &context.extensions) else {
        return fail(
            &id,
            RpcError::invalid_params(format!("Unknown prompt: {name}"), json!({ "name": name }))
                .of_kind(Kind::UnknownPrompt),
        );
    };
    span.prompt(&prompt.spec.name);
    let arguments = match take_arguments(arguments).and_then(|args| {
        validated(
            &prompt.schema,
            args,
            inner.validation_budget,
            "name",
            &prompt.spec.name,
        )
    }) {
        Ok(a) => a,
        Err(e) => return fail(&id, e),
    };
    let Some(renderer) = inner.catalog.renderer.clone() else {
        return fail(&id, RpcError::internal());
    };
    Step::Pending(Pending::new(
        inner.clone(),
        id,
        revision,
        Work::Render {
            renderer,
            name: prompt.spec.name.clone(),
            arguments,
            context,
        },
    ))
}

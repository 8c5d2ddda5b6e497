//! `completion/complete`: the request checked against the catalog before the completer runs.
//!
//! What is refused, each -32602 with data naming the field or the reference:
//! a `ref` that is not an object, or whose `type` is neither `ref/prompt` nor `ref/resource`;
//! a prompt the catalog does not list; a uri that is not a listed template's uri template
//! (compared exactly); an `argument` without a string `name` and `value`; an argument the
//! prompt does not declare, or a variable the template does not name; a `context.arguments`
//! that is not an object of strings. The completer then sees the catalog's own names only.

use super::inner::Inner;
use super::pending::{Pending, Work};
use super::reply::Reply;
use super::step::Step;
use super::visible::{visible_prompt, visible_template};
use crate::catalog::{CompletionRef, CompletionRequest};
use crate::dispatch::CallContext;
use crate::protocol::{RequestId, RpcError};
use crate::schema::Arguments;
use serde_json::{json, Map, Value};
use std::sync::Arc;

pub(super) fn complete(
    inner: &Arc<Inner>,
    id: RequestId,
    context: CallContext,
    mut params: Map<String, Value>,
) -> Step {
    let revision = context.revision;
    match request(inner, &mut params, context) {
        Ok(request) => match inner.catalog.completer().cloned() {
            Some(completer) => Step::Pending(Pending::new(
                inner.clone(),
                id,
                revision,
                Work::Complete { completer, request },
            )),
            None => Step::Reply(Reply::error(Some(&id), RpcError::internal())),
        },
        Err(e) => Step::Reply(Reply::error(Some(&id), e)),
    }
}

fn field(field: &'static str, problem: &str) -> RpcError {
    RpcError::invalid_params(
        format!("params.{field} {problem}"),
        json!({ "field": field }),
    )
}

fn string<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    name: &'static str,
) -> Result<&'a str, RpcError> {
    obj.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| field(name, "must be a string"))
}

fn request(
    inner: &Inner,
    params: &mut Map<String, Value>,
    context: CallContext,
) -> Result<CompletionRequest, RpcError> {
    let caller = &context.extensions;
    let Some(Value::Object(reference)) = params.get("ref") else {
        return Err(field("ref", "must be an object"));
    };
    // The target, and the names it declares: the catalog's own `Arc`s.
    let (target, names): (CompletionRef, &[Arc<str>]) = match string(reference, "type", "ref.type")?
    {
        "ref/prompt" => {
            let name = string(reference, "name", "ref.name")?;
            let Some(p) = visible_prompt(inner, name, caller) else {
                return Err(RpcError::invalid_params(
                    format!("Unknown prompt: {name}"),
                    json!({ "ref": { "type": "ref/prompt", "name": name } }),
                ));
            };
            (CompletionRef::Prompt(p.name.clone()), &p.arguments)
        }
        "ref/resource" => {
            let uri = string(reference, "uri", "ref.uri")?;
            let Some(t) = visible_template(inner, uri, caller) else {
                return Err(RpcError::invalid_params(
                    format!("Unknown resource template: {uri}"),
                    json!({ "ref": { "type": "ref/resource", "uri": uri } }),
                ));
            };
            (
                CompletionRef::ResourceTemplate(t.uri_template.clone()),
                t.template.variables(),
            )
        }
        _ => {
            return Err(RpcError::invalid_params(
                "Unsupported reference type",
                json!({ "field": "ref.type", "expected": ["ref/prompt", "ref/resource"] }),
            ))
        }
    };
    let declared = |name: &str| names.iter().find(|n| &***n == name).cloned();

    let Some(Value::Object(argument)) = params.get_mut("argument") else {
        return Err(field("argument", "must be an object"));
    };
    let name = string(argument, "name", "argument.name")?;
    let Some(argument_name) = declared(name) else {
        return Err(RpcError::invalid_params(
            format!("Unknown argument: {name}"),
            json!({ "ref": target_value(&target), "argument": name }),
        ));
    };
    // The partial value is moved out of the request, not copied: it is the caller's and stays
    // with this request.
    let value = match argument.remove("value") {
        Some(Value::String(v)) => v,
        _ => return Err(field("argument.value", "must be a string")),
    };

    let resolved = match params.get_mut("context") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(ctx)) => match ctx.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => return Err(field("context.arguments", "must be an object")),
        },
        Some(_) => return Err(field("context", "must be an object")),
    };
    let mut entries = Vec::new();
    for (key, v) in resolved {
        if !v.is_string() {
            return Err(RpcError::invalid_params(
                "params.context.arguments values must be strings",
                json!({ "field": "context.arguments", "argument": key }),
            ));
        }
        // Keyed by the catalog's name; a name it does not declare is dropped with the request.
        if let Some(k) = declared(&key) {
            entries.push((k, v));
        }
    }
    Ok(CompletionRequest {
        target,
        argument: argument_name,
        value,
        arguments: Arguments::from_entries(entries),
        context,
    })
}

fn target_value(target: &CompletionRef) -> Value {
    match target {
        CompletionRef::Prompt(n) => json!({ "type": "ref/prompt", "name": &**n }),
        CompletionRef::ResourceTemplate(u) => json!({ "type": "ref/resource", "uri": &**u }),
    }
}

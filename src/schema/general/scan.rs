//! The walk every general schema passes before the validator crate sees it: each keyword must
//! be one of 2020-12's (or a carried annotation), each reference a `#` reference, and each `#`
//! reference must land on a schema within the document.

use serde_json::Value;

use super::super::error::SchemaError;
use super::super::pointer;
use super::super::MAX_DEPTH;

/// What a keyword's value is, for the walk.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// One subschema (`not`, `items`, `additionalProperties`, ...).
    Schema,
    /// An object whose values are subschemas (`properties`, `$defs`, ...).
    Map,
    /// An array of subschemas (`allOf`, `prefixItems`, ...).
    List,
    /// Anything else: a number, a name, or data the validator compares (`enum`, `default`).
    Data,
}

/// The keywords a general schema may use, by 2020-12 vocabulary, and the shape of each value.
///
/// Core without `$vocabulary` (which only a meta-schema declares); applicator; unevaluated;
/// validation; format-annotation; meta-data; content; and this crate's `x-mcp-header`.
const KEYWORDS: &[(&str, Shape)] = &[
    // core
    ("$schema", Shape::Data),
    ("$id", Shape::Data),
    ("$ref", Shape::Data),
    ("$anchor", Shape::Data),
    ("$dynamicRef", Shape::Data),
    ("$dynamicAnchor", Shape::Data),
    ("$defs", Shape::Map),
    ("$comment", Shape::Data),
    // applicator
    ("allOf", Shape::List),
    ("anyOf", Shape::List),
    ("oneOf", Shape::List),
    ("not", Shape::Schema),
    ("if", Shape::Schema),
    ("then", Shape::Schema),
    ("else", Shape::Schema),
    ("dependentSchemas", Shape::Map),
    ("prefixItems", Shape::List),
    ("items", Shape::Schema),
    ("contains", Shape::Schema),
    ("properties", Shape::Map),
    ("patternProperties", Shape::Map),
    ("additionalProperties", Shape::Schema),
    ("propertyNames", Shape::Schema),
    // unevaluated
    ("unevaluatedItems", Shape::Schema),
    ("unevaluatedProperties", Shape::Schema),
    // validation
    ("type", Shape::Data),
    ("enum", Shape::Data),
    ("const", Shape::Data),
    ("multipleOf", Shape::Data),
    ("maximum", Shape::Data),
    ("exclusiveMaximum", Shape::Data),
    ("minimum", Shape::Data),
    ("exclusiveMinimum", Shape::Data),
    ("maxLength", Shape::Data),
    ("minLength", Shape::Data),
    ("pattern", Shape::Data),
    ("maxItems", Shape::Data),
    ("minItems", Shape::Data),
    ("uniqueItems", Shape::Data),
    ("maxContains", Shape::Data),
    ("minContains", Shape::Data),
    ("maxProperties", Shape::Data),
    ("minProperties", Shape::Data),
    ("required", Shape::Data),
    ("dependentRequired", Shape::Data),
    // format-annotation
    ("format", Shape::Data),
    // meta-data
    ("title", Shape::Data),
    ("description", Shape::Data),
    ("default", Shape::Data),
    ("deprecated", Shape::Data),
    ("readOnly", Shape::Data),
    ("writeOnly", Shape::Data),
    ("examples", Shape::Data),
    // content (annotations in 2020-12)
    ("contentEncoding", Shape::Data),
    ("contentMediaType", Shape::Data),
    ("contentSchema", Shape::Schema),
    // this crate's annotation (SEP-2243)
    ("x-mcp-header", Shape::Data),
];

/// The shape of `keyword`'s value, or `None` for a keyword a general schema may not use.
pub(crate) fn shape(keyword: &str) -> Option<Shape> {
    KEYWORDS
        .iter()
        .find(|(k, _)| *k == keyword)
        .map(|(_, shape)| *shape)
}

/// A `#` reference found by the walk.
struct Reference {
    /// Pointer to the schema object holding it.
    at: String,
    keyword: &'static str,
    /// The reference without its leading `#`, still percent-encoded.
    fragment: String,
    /// Pointer to the schema resource it resolves in (the nearest enclosing `$id`, or the root).
    resource: String,
}

/// What the walk learned: resource roots, anchors, and whether any reference exists.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// Pointers of the schema objects that carry `$id` (the root is always a resource).
    resources: Vec<String>,
    /// `(resource, name, pointer of the schema declaring it)` for `$anchor` and
    /// `$dynamicAnchor`.
    anchors: Vec<(String, String, String)>,
}

impl Scan {
    /// Walks `root` (an object schema), refusing the first keyword, reference or nesting the
    /// general validator will not take, then checks that every `#` reference resolves.
    pub(crate) fn of(root: &Value) -> Result<Scan, SchemaError> {
        let mut scan = Scan {
            resources: vec![String::new()],
            anchors: Vec::new(),
        };
        let mut refs = Vec::new();
        let mut at = String::new();
        scan.walk(root, &mut at, 0, "", &mut refs)?;
        for r in &refs {
            if scan.resolve(root, &r.resource, &r.fragment).is_none() {
                return Err(SchemaError::malformed(
                    &r.at,
                    r.keyword,
                    "a `#` reference that resolves to no schema in this document",
                ));
            }
        }
        Ok(scan)
    }

    fn walk(
        &mut self,
        v: &Value,
        at: &mut String,
        depth: usize,
        resource: &str,
        refs: &mut Vec<Reference>,
    ) -> Result<(), SchemaError> {
        if depth > MAX_DEPTH {
            return Err(SchemaError::too_deep(at));
        }
        let Value::Object(map) = v else {
            // A boolean schema, or a value the meta-schema check will refuse.
            return Ok(());
        };
        let own_resource;
        let resource = if !at.is_empty() && map.get("$id").is_some_and(Value::is_string) {
            self.resources.push(at.clone());
            own_resource = at.clone();
            own_resource.as_str()
        } else {
            resource
        };
        for (keyword, value) in map {
            let Some(shape) = shape(keyword) else {
                return Err(SchemaError::unsupported(at, keyword));
            };
            let len = at.len();
            match (shape, value) {
                (Shape::Schema, _) => {
                    pointer::push(at, keyword);
                    self.walk(value, at, depth + 1, resource, refs)?;
                }
                (Shape::Map, Value::Object(subs)) => {
                    pointer::push(at, keyword);
                    for (name, sub) in subs {
                        let inner = at.len();
                        pointer::push(at, name);
                        self.walk(sub, at, depth + 1, resource, refs)?;
                        at.truncate(inner);
                    }
                }
                (Shape::List, Value::Array(subs)) => {
                    pointer::push(at, keyword);
                    for (i, sub) in subs.iter().enumerate() {
                        let inner = at.len();
                        pointer::push(at, &i.to_string());
                        self.walk(sub, at, depth + 1, resource, refs)?;
                        at.truncate(inner);
                    }
                }
                (Shape::Data, Value::String(s)) => match keyword.as_str() {
                    "$ref" | "$dynamicRef" => {
                        let keyword = if keyword == "$ref" {
                            "$ref"
                        } else {
                            "$dynamicRef"
                        };
                        let Some(fragment) = s.strip_prefix('#') else {
                            return Err(SchemaError::remote_reference(at, keyword));
                        };
                        refs.push(Reference {
                            at: at.clone(),
                            keyword,
                            fragment: fragment.to_owned(),
                            resource: resource.to_owned(),
                        });
                    }
                    "$anchor" | "$dynamicAnchor" => {
                        self.anchors
                            .push((resource.to_owned(), s.clone(), at.clone()));
                    }
                    _ => {}
                },
                // A malformed value (`"properties": 3`): the meta-schema check refuses it.
                _ => {}
            }
            at.truncate(len);
        }
        Ok(())
    }

    /// The resource a pointer lies in: the longest resource root that contains it.
    pub(crate) fn resource_of(&self, at: &str) -> &str {
        self.resources
            .iter()
            .filter(|r| {
                r.is_empty()
                    || at == r.as_str()
                    || (at.starts_with(r.as_str()) && at.as_bytes().get(r.len()) == Some(&b'/'))
            })
            .max_by_key(|r| r.len())
            .map_or("", String::as_str)
    }

    /// Resolves `#fragment` in `resource`: a JSON Pointer (`#/$defs/a`, `#`) or an anchor name.
    /// Returns the target's pointer from the document root and the target, which must be a
    /// schema (an object or a boolean).
    pub(crate) fn resolve<'v>(
        &self,
        root: &'v Value,
        resource: &str,
        fragment: &str,
    ) -> Option<(String, &'v Value)> {
        let decoded = percent_decode(fragment)?;
        let target = if decoded.is_empty() || decoded.starts_with('/') {
            let mut full = resource.to_owned();
            full.push_str(&decoded);
            full
        } else {
            self.anchors
                .iter()
                .find(|(r, name, _)| r == resource && *name == decoded)
                .map(|(_, _, at)| at.clone())?
        };
        let value = root.pointer(&target)?;
        (value.is_object() || value.is_boolean()).then_some((target, value))
    }
}

/// Decodes `%XX` escapes (a URI fragment); `None` when an escape or the result is malformed.
fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Splits a pointer into the schema (from the root) as `(schema object, keyword, rest)`: the
/// deepest schema object on the path, the keyword below it, and whatever lies under the
/// keyword's value. Used to place a refusal the meta-schema check reports by its pointer.
pub(crate) fn split(root: &Value, target: &str) -> (String, Option<String>, String) {
    let segments: Vec<String> = target
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    let mut at = String::new();
    let mut node = root;
    let mut i = 0;
    while i < segments.len() {
        let keyword = &segments[i];
        let value = node.get(keyword.as_str());
        let (sub, used) = match (shape(keyword), value) {
            (Some(Shape::Schema), Some(sub)) => (Some(sub), 1),
            (Some(Shape::Map | Shape::List), Some(subs)) if i + 1 < segments.len() => {
                let name = &segments[i + 1];
                let sub = match subs {
                    Value::Object(m) => m.get(name.as_str()),
                    Value::Array(a) => name.parse::<usize>().ok().and_then(|n| a.get(n)),
                    _ => None,
                };
                (sub, 2)
            }
            _ => (None, 0),
        };
        match sub {
            Some(sub) if sub.is_object() => {
                for s in &segments[i..i + used] {
                    pointer::push(&mut at, s);
                }
                node = sub;
                i += used;
            }
            _ => {
                let mut rest = String::new();
                for s in &segments[i + 1..] {
                    pointer::push(&mut rest, s);
                }
                return (at, Some(keyword.clone()), rest);
            }
        }
    }
    (at, None, String::new())
}

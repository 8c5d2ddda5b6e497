//! A general schema compiled into a graph of nodes: one node per subschema position of the raw
//! schema, every `#` reference resolved to a node at startup.
//!
//! The graph is what makes validation linear: a node is reached from several places only
//! through a reference, so only reference targets are memoised by the evaluator
//! (`eval.rs`), and a cycle of references that never moves into the instance is refused here,
//! at startup, instead of looping on a caller's request.

use std::collections::HashMap;

use regex::Regex;
use serde_json::{Map, Number, Value};

use super::super::error::SchemaError;
use super::super::node::JsonType;
use super::super::pointer;
use super::scan::{self, Scan, Shape};

/// A node's index in [`Program::nodes`].
pub(super) type NodeId = u32;

/// A schema resource's index: 0 is the root, each embedded `$id` another.
pub(super) type ResourceId = u32;

/// The compiled graph.
#[derive(Debug)]
pub(super) struct Program {
    pub(super) nodes: Vec<Node>,
    /// `(resource, name, node)` for each `$dynamicAnchor`.
    dynamic_anchors: Vec<(ResourceId, Box<str>, NodeId)>,
    /// The same, found by resource (the index) and name.
    dynamic_index: Vec<HashMap<Box<str>, NodeId>>,
    /// Whether some `$dynamicRef` resolves through the dynamic scope, so that a node's verdict
    /// may depend on the resources entered before it.
    pub(super) dynamic: bool,
}

/// One subschema position.
#[derive(Debug)]
pub(super) enum Node {
    /// `true` or `false`.
    Bool(bool),
    /// An object schema.
    Schema(Box<Keywords>),
}

/// Property names, in schema order.
pub(super) type Names = Box<[Box<str>]>;

/// A `$dynamicRef`: where it lands when nothing in the dynamic scope overrides it, and the
/// anchor name that the scope may override (when the initial target declares it).
#[derive(Debug)]
pub(super) struct DynamicRef {
    pub(super) initial: NodeId,
    pub(super) anchor: Option<Box<str>>,
}

/// A compiled `pattern`: the schema's text (for messages) and the linear-time regex.
#[derive(Debug)]
pub(super) struct Pattern {
    pub(super) source: Box<str>,
    pub(super) regex: Regex,
}

/// The keywords of an object schema that the evaluator enforces.
#[derive(Debug, Default)]
pub(super) struct Keywords {
    pub(super) resource: ResourceId,
    /// Whether two applicators lead here (so a value may meet it twice): its verdicts are
    /// memoised per instance value.
    pub(super) memoised: bool,
    /// Union of [`JsonType::bit`]; 0 when absent.
    pub(super) type_mask: u8,
    pub(super) types: Box<[JsonType]>,
    pub(super) enumeration: Option<Box<[Value]>>,
    pub(super) constant: Option<Value>,
    pub(super) multiple_of: Option<Number>,
    pub(super) maximum: Option<Number>,
    pub(super) exclusive_maximum: Option<Number>,
    pub(super) minimum: Option<Number>,
    pub(super) exclusive_minimum: Option<Number>,
    pub(super) max_length: Option<u64>,
    pub(super) min_length: Option<u64>,
    pub(super) pattern: Option<Pattern>,
    pub(super) max_items: Option<u64>,
    pub(super) min_items: Option<u64>,
    pub(super) unique_items: bool,
    pub(super) prefix_items: Box<[NodeId]>,
    pub(super) items: Option<NodeId>,
    pub(super) contains: Option<NodeId>,
    pub(super) min_contains: Option<u64>,
    pub(super) max_contains: Option<u64>,
    pub(super) max_properties: Option<u64>,
    pub(super) min_properties: Option<u64>,
    pub(super) required: Box<[Box<str>]>,
    /// Sorted by name.
    pub(super) dependent_required: Box<[(Box<str>, Names)]>,
    /// Sorted by name, for lookup by binary search.
    pub(super) properties: Box<[(Box<str>, NodeId)]>,
    pub(super) pattern_properties: Box<[(Pattern, NodeId)]>,
    pub(super) additional_properties: Option<NodeId>,
    pub(super) property_names: Option<NodeId>,
    /// Sorted by name.
    pub(super) dependent_schemas: Box<[(Box<str>, NodeId)]>,
    pub(super) reference: Option<NodeId>,
    pub(super) dynamic_reference: Option<DynamicRef>,
    pub(super) all_of: Box<[NodeId]>,
    pub(super) any_of: Box<[NodeId]>,
    pub(super) one_of: Box<[NodeId]>,
    pub(super) not: Option<NodeId>,
    pub(super) if_: Option<NodeId>,
    pub(super) then_: Option<NodeId>,
    pub(super) else_: Option<NodeId>,
    pub(super) unevaluated_items: Option<NodeId>,
    pub(super) unevaluated_properties: Option<NodeId>,
}

impl Keywords {
    /// The declared property's node, if `name` is one.
    pub(super) fn property(&self, name: &str) -> Option<NodeId> {
        self.properties
            .binary_search_by(|(k, _)| (**k).cmp(name))
            .ok()
            .map(|i| self.properties[i].1)
    }

    /// The subschemas applied in place to the same instance (what a reference cycle must not
    /// close over), with the keyword that applies each.
    fn in_place(
        &self,
        program_anchors: &[(ResourceId, Box<str>, NodeId)],
    ) -> Vec<(NodeId, &'static str)> {
        let mut out: Vec<(NodeId, &'static str)> = Vec::new();
        out.extend(self.all_of.iter().map(|&n| (n, "allOf")));
        out.extend(self.any_of.iter().map(|&n| (n, "anyOf")));
        out.extend(self.one_of.iter().map(|&n| (n, "oneOf")));
        out.extend(self.not.map(|n| (n, "not")));
        out.extend(self.if_.map(|n| (n, "if")));
        out.extend(self.then_.map(|n| (n, "then")));
        out.extend(self.else_.map(|n| (n, "else")));
        out.extend(
            self.dependent_schemas
                .iter()
                .map(|(_, n)| (*n, "dependentSchemas")),
        );
        out.extend(self.reference.map(|n| (n, "$ref")));
        if let Some(d) = &self.dynamic_reference {
            out.push((d.initial, "$dynamicRef"));
            if let Some(name) = &d.anchor {
                out.extend(
                    program_anchors
                        .iter()
                        .filter(|(_, a, _)| a == name)
                        .map(|(_, _, n)| (*n, "$dynamicRef")),
                );
            }
        }
        out
    }
}

impl Program {
    /// Compiles `raw`, which the scan and the meta-schema check have both passed.
    pub(super) fn compile(raw: &Value, scan: &Scan) -> Result<Program, SchemaError> {
        let mut positions = Positions::default();
        // The root is applied by the call itself.
        positions.walk(raw, String::new(), 0, true);
        let mut builder = Builder {
            raw,
            scan,
            ids: &positions.ids,
            resources: &positions.resources,
            references: vec![0; positions.values.len()],
            dynamic: false,
        };
        let mut nodes = Vec::with_capacity(positions.values.len());
        for (at, value, resource) in &positions.values {
            nodes.push(builder.node(at, value, *resource)?);
        }
        let dynamic_anchors: Vec<(ResourceId, Box<str>, NodeId)> = positions
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, (_, value, resource))| {
                let name = value.get("$dynamicAnchor")?.as_str()?;
                Some((*resource, Box::from(name), i as NodeId))
            })
            .collect();
        let dynamic_index = dynamic_anchors_index(&dynamic_anchors, positions.resources.len());
        let dynamic = builder.dynamic;
        // A value meets a node twice only where two paths of the graph meet: at a node that
        // two applicators lead to (a parent that applies it — the root's is the call — and a
        // reference, or two references). Memoising those alone keeps every (node, value) pair
        // to one evaluation; a `$defs` entry referenced once needs no table.
        let ways = builder
            .references
            .iter()
            .zip(&positions.applied)
            .map(|(r, applied)| r + u32::from(*applied));
        for (node, ways) in nodes.iter_mut().zip(ways) {
            if let (Node::Schema(k), true) = (node, ways >= 2) {
                k.memoised = true;
            }
        }
        let program = Program {
            nodes,
            dynamic_anchors,
            dynamic_index,
            dynamic,
        };
        program.refuse_cycles(&positions.values)?;
        Ok(program)
    }

    /// Where a `$dynamicRef` lands, given the resources entered so far, outermost first: one
    /// lookup per resource in scope.
    pub(super) fn dynamic_target(&self, d: &DynamicRef, scope: &[ResourceId]) -> NodeId {
        let Some(name) = &d.anchor else {
            return d.initial;
        };
        scope
            .iter()
            .find_map(|r| self.dynamic_index.get(*r as usize)?.get(&**name).copied())
            .unwrap_or(d.initial)
    }

    /// Refuses a cycle of in-place applicators (`$ref`, `allOf`, ...) that never moves into the
    /// instance: evaluating it would never end.
    fn refuse_cycles(&self, values: &[(String, &Value, ResourceId)]) -> Result<(), SchemaError> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        let edges: Vec<Vec<(NodeId, &'static str)>> = self
            .nodes
            .iter()
            .map(|n| match n {
                Node::Schema(k) => k.in_place(&self.dynamic_anchors),
                Node::Bool(_) => Vec::new(),
            })
            .collect();
        let mut marks = vec![Mark::New; self.nodes.len()];
        for start in 0..self.nodes.len() {
            if marks[start] != Mark::New {
                continue;
            }
            // Iterative depth-first search: (node, next edge to follow).
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            marks[start] = Mark::Open;
            while let Some(top) = stack.last_mut() {
                let (node, next) = *top;
                if let Some(&(to, keyword)) = edges[node].get(next) {
                    top.1 += 1;
                    let to = to as usize;
                    match marks[to] {
                        Mark::Open => {
                            return Err(SchemaError::malformed(
                                &values[node].0,
                                keyword,
                                "a cycle of references that never moves into the instance \
                                 (validation would never end)",
                            ));
                        }
                        Mark::New => {
                            marks[to] = Mark::Open;
                            stack.push((to, 0));
                        }
                        Mark::Done => {}
                    }
                } else {
                    marks[node] = Mark::Done;
                    stack.pop();
                }
            }
        }
        Ok(())
    }
}

/// Every subschema position of the raw schema, in document order, with its pointer and
/// resource.
#[derive(Default)]
struct Positions<'v> {
    values: Vec<(String, &'v Value, ResourceId)>,
    /// Whether the enclosing schema applies each position (a `$defs` entry or a
    /// `contentSchema` is applied only through a reference).
    applied: Vec<bool>,
    ids: HashMap<String, NodeId>,
    /// The pointer of each resource's root.
    resources: Vec<String>,
}

impl<'v> Positions<'v> {
    fn walk(&mut self, v: &'v Value, at: String, resource: ResourceId, applied: bool) {
        if self.resources.is_empty() {
            self.resources.push(String::new());
        }
        let Value::Object(map) = v else {
            if v.is_boolean() {
                self.ids.insert(at.clone(), self.values.len() as NodeId);
                self.values.push((at, v, resource));
                self.applied.push(applied);
            }
            return;
        };
        let resource = if !at.is_empty() && map.get("$id").is_some_and(Value::is_string) {
            self.resources.push(at.clone());
            (self.resources.len() - 1) as ResourceId
        } else {
            resource
        };
        self.ids.insert(at.clone(), self.values.len() as NodeId);
        self.values.push((at.clone(), v, resource));
        self.applied.push(applied);
        for (keyword, value) in map {
            let mut here = at.clone();
            pointer::push(&mut here, keyword);
            match (scan::shape(keyword), value) {
                (Some(Shape::Schema), _) => {
                    self.walk(value, here, resource, keyword != "contentSchema");
                }
                (Some(Shape::Map), Value::Object(subs)) => {
                    for (name, sub) in subs {
                        let mut p = here.clone();
                        pointer::push(&mut p, name);
                        self.walk(sub, p, resource, keyword != "$defs");
                    }
                }
                (Some(Shape::List), Value::Array(subs)) => {
                    for (i, sub) in subs.iter().enumerate() {
                        self.walk(sub, format!("{here}/{i}"), resource, true);
                    }
                }
                _ => {}
            }
        }
    }
}

struct Builder<'a, 'v> {
    raw: &'v Value,
    scan: &'a Scan,
    ids: &'a HashMap<String, NodeId>,
    resources: &'a [String],
    /// How many references land on each node.
    references: Vec<u32>,
    dynamic: bool,
}

impl Builder<'_, '_> {
    fn node(&mut self, at: &str, value: &Value, resource: ResourceId) -> Result<Node, SchemaError> {
        let map = match value {
            Value::Bool(b) => return Ok(Node::Bool(*b)),
            Value::Object(map) => map,
            // Positions holds only objects and booleans.
            _ => return Ok(Node::Bool(true)),
        };
        let mut k = Keywords {
            resource,
            ..Keywords::default()
        };
        let child = |keyword: &str| -> Option<NodeId> {
            let mut p = at.to_owned();
            pointer::push(&mut p, keyword);
            self.ids.get(&p).copied()
        };
        let list = |keyword: &str| -> Box<[NodeId]> {
            let Some(Value::Array(subs)) = map.get(keyword) else {
                return Box::new([]);
            };
            let mut p = at.to_owned();
            pointer::push(&mut p, keyword);
            (0..subs.len())
                .filter_map(|i| self.ids.get(&format!("{p}/{i}")).copied())
                .collect()
        };
        let named = |keyword: &str| -> Vec<(Box<str>, NodeId)> {
            let Some(Value::Object(subs)) = map.get(keyword) else {
                return Vec::new();
            };
            let mut p = at.to_owned();
            pointer::push(&mut p, keyword);
            subs.keys()
                .filter_map(|name| {
                    let mut q = p.clone();
                    pointer::push(&mut q, name);
                    self.ids.get(&q).map(|&id| (Box::from(name.as_str()), id))
                })
                .collect()
        };
        if let Some(t) = map.get("type") {
            k.types = match t {
                Value::String(s) => JsonType::from_name(s).into_iter().collect(),
                Value::Array(list) => list
                    .iter()
                    .filter_map(|t| t.as_str().and_then(JsonType::from_name))
                    .collect(),
                _ => Box::new([]),
            };
            k.type_mask = k.types.iter().fold(0, |m, t| m | t.bit());
        }
        k.enumeration = map
            .get("enum")
            .and_then(Value::as_array)
            .map(|a| a.clone().into_boxed_slice());
        k.constant = map.get("const").cloned();
        let number = |keyword: &str| match map.get(keyword) {
            Some(Value::Number(n)) => Some(n.clone()),
            _ => None,
        };
        k.multiple_of = number("multipleOf");
        k.maximum = number("maximum");
        k.exclusive_maximum = number("exclusiveMaximum");
        k.minimum = number("minimum");
        k.exclusive_minimum = number("exclusiveMinimum");
        let count = |keyword: &str| map.get(keyword).and_then(count_of);
        k.max_length = count("maxLength");
        k.min_length = count("minLength");
        k.max_items = count("maxItems");
        k.min_items = count("minItems");
        k.max_contains = count("maxContains");
        k.min_contains = count("minContains");
        k.max_properties = count("maxProperties");
        k.min_properties = count("minProperties");
        if let Some(Value::String(p)) = map.get("pattern") {
            k.pattern = Some(compile_pattern(p, at, "pattern")?);
        }
        k.unique_items = map.get("uniqueItems") == Some(&Value::Bool(true));
        k.prefix_items = list("prefixItems");
        k.items = child("items");
        k.contains = child("contains");
        k.required = names(map.get("required"));
        if let Some(Value::Object(deps)) = map.get("dependentRequired") {
            let mut deps: Vec<(Box<str>, Names)> = deps
                .iter()
                .map(|(name, list)| (Box::from(name.as_str()), names(Some(list))))
                .collect();
            deps.sort_by(|a, b| a.0.cmp(&b.0));
            k.dependent_required = deps.into_boxed_slice();
        }
        let mut properties = named("properties");
        properties.sort_by(|a, b| a.0.cmp(&b.0));
        k.properties = properties.into_boxed_slice();
        if let Some(Value::Object(pp)) = map.get("patternProperties") {
            let mut p = at.to_owned();
            pointer::push(&mut p, "patternProperties");
            let mut out = Vec::with_capacity(pp.len());
            for name in pp.keys() {
                let mut q = p.clone();
                pointer::push(&mut q, name);
                if let Some(&id) = self.ids.get(&q) {
                    out.push((compile_pattern(name, at, "patternProperties")?, id));
                }
            }
            k.pattern_properties = out.into_boxed_slice();
        }
        k.additional_properties = child("additionalProperties");
        k.property_names = child("propertyNames");
        let mut dependent_schemas = named("dependentSchemas");
        dependent_schemas.sort_by(|a, b| a.0.cmp(&b.0));
        k.dependent_schemas = dependent_schemas.into_boxed_slice();
        k.all_of = list("allOf");
        k.any_of = list("anyOf");
        k.one_of = list("oneOf");
        k.not = child("not");
        k.if_ = child("if");
        k.then_ = child("then");
        k.else_ = child("else");
        k.unevaluated_items = child("unevaluatedItems");
        k.unevaluated_properties = child("unevaluatedProperties");
        if let Some(fragment) = reference(map, "$ref") {
            k.reference = Some(self.resolve(at, resource, fragment, "$ref")?);
        }
        if let Some(fragment) = reference(map, "$dynamicRef") {
            let initial = self.resolve(at, resource, fragment, "$dynamicRef")?;
            let anchor = dynamic_anchor_name(fragment).filter(|name| {
                self.raw_at(initial)
                    .and_then(|v| v.get("$dynamicAnchor"))
                    .and_then(Value::as_str)
                    == Some(name.as_str())
            });
            if anchor.is_some() {
                self.dynamic = true;
            }
            k.dynamic_reference = Some(DynamicRef {
                initial,
                anchor: anchor.map(String::into_boxed_str),
            });
        }
        Ok(Node::Schema(Box::new(k)))
    }

    /// The node a `#` reference in `resource` lands on, marked as a reference target.
    fn resolve(
        &mut self,
        at: &str,
        resource: ResourceId,
        fragment: &str,
        keyword: &str,
    ) -> Result<NodeId, SchemaError> {
        let base = self
            .resources
            .get(resource as usize)
            .map_or("", String::as_str);
        let id = self
            .scan
            .resolve(self.raw, base, fragment)
            .and_then(|(target, _)| self.ids.get(&target).copied())
            .ok_or_else(|| {
                SchemaError::malformed(
                    at,
                    keyword,
                    "a `#` reference that resolves to no subschema in this document",
                )
            })?;
        self.references[id as usize] += 1;
        Ok(id)
    }

    fn raw_at(&self, id: NodeId) -> Option<&Value> {
        let pointer = self
            .ids
            .iter()
            .find(|(_, &n)| n == id)
            .map(|(p, _)| p.as_str())?;
        self.raw.pointer(pointer)
    }
}

fn dynamic_anchors_index(
    anchors: &[(ResourceId, Box<str>, NodeId)],
    resources: usize,
) -> Vec<HashMap<Box<str>, NodeId>> {
    let mut index = vec![HashMap::new(); resources];
    for (r, name, n) in anchors {
        if let Some(names) = index.get_mut(*r as usize) {
            // The first declaration in document order wins.
            names.entry(name.clone()).or_insert(*n);
        }
    }
    index
}

fn reference<'m>(map: &'m Map<String, Value>, keyword: &str) -> Option<&'m str> {
    map.get(keyword)?.as_str()?.strip_prefix('#')
}

/// The anchor a `$dynamicRef` fragment names (`#meta` names `meta`); `None` for a pointer.
fn dynamic_anchor_name(fragment: &str) -> Option<String> {
    (!fragment.is_empty() && !fragment.starts_with('/')).then(|| fragment.to_owned())
}

fn count_of(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        }),
        _ => None,
    }
}

fn names(v: Option<&Value>) -> Names {
    match v {
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_str)
            .map(Box::from)
            .collect(),
        _ => Box::new([]),
    }
}

/// An ECMA-262 pattern translated for the `regex` crate, whose matching is linear in the input.
fn compile_pattern(source: &str, at: &str, keyword: &str) -> Result<Pattern, SchemaError> {
    let refused = || {
        SchemaError::malformed(
            at,
            keyword,
            "not a regular expression the linear-time engine compiles \
             (ECMA-262 lookaround and backreferences are not supported)",
        )
    };
    let translated = jsonschema_regex::to_rust_regex(source).map_err(|()| refused())?;
    let regex = Regex::new(&translated).map_err(|_| refused())?;
    Ok(Pattern {
        source: Box::from(source),
        regex,
    })
}

//! Validation of an instance against a [`Program`], linear in the instance and under a budget.
//!
//! Three things keep the work bounded whatever the schema:
//!
//! - **Memoised meeting points.** A subschema is applied to a value more than once only where
//!   two applicators lead to it (a recursive `oneOf` tree reaches the same `children` schema
//!   from every branch). Such a node's verdict on a value is kept, per value and dynamic scope,
//!   for the rest of the validation, so each pair is evaluated once: the work is at most
//!   (subschemas × values of the instance), not exponential in the nesting. The table is capped
//!   at [`MEMO_BYTES`]; past it the budget bounds the work.
//! - **One violation.** A failing branch of `anyOf`/`oneOf`/`not`/`if` leaves a small failure
//!   (keyword, node, path) and nothing else; no error tree is built. Paths are assembled on the
//!   way out, from borrowed keys.
//! - **A budget.** Every subschema applied, item or member visited and 64 bytes of string
//!   looked at is a step; past the [`Budget`], validation stops with keyword `budget`.
//!
//! Annotations (which members and items were evaluated, for `unevaluatedProperties` and
//! `unevaluatedItems`) are collected only below a node that has one of those keywords.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use serde_json::{Map, Number, Value};

use super::super::budget::Budget;
use super::super::error::Violation;
use super::super::number;
use super::super::pointer;
use super::super::validate::{expected, kind_of, type_matches};
use super::equal;
use super::program::{Keywords, Node, NodeId, Program, ResourceId};
use super::MAX_INSTANCE_DEPTH;

/// How many subschema evaluations may nest: four in-place applicators at each of 64 instance
/// levels, and what a 2 MiB worker stack holds even in a debug build
/// (`tests/it/schema_general.rs::the_most_nested_evaluation_fits_a_two_mib_stack`).
pub(super) const MAX_NESTED: u32 = 256;

/// The most the memo table of one validation may hold: 4 MiB, some 100,000 verdicts. Past it a
/// value that meets a subschema again is evaluated again, charged to the budget.
pub(super) const MEMO_BYTES: usize = 4 << 20;

/// What one entry costs the table, its share of empty slots included.
const MEMO_ENTRY_BYTES: usize = 48;

/// Validates `instance` against `program`'s root.
pub(super) fn validate(
    program: &Program,
    instance: &Value,
    budget: &mut Budget,
) -> Result<(), Violation> {
    // The dynamic scope is kept only where a `$dynamicRef` reads it.
    let scope = if program.dynamic { vec![0] } else { Vec::new() };
    let mut eval = Eval::new(program, budget.remaining(), scope);
    let outcome = eval.node(0, instance, false);
    budget.spend(eval.work);
    match outcome {
        Ok(_) => Ok(()),
        Err(Stop::Fail(f)) => Err(f.into_violation(program)),
        Err(Stop::Abort(a)) => Err(a.into_violation(budget.limit())),
    }
}

/// What ended an evaluation early.
enum Stop<'v> {
    /// The value does not satisfy the subschema (a branch of `anyOf` may still pass).
    Fail(Box<Fail<'v>>),
    /// Validation as a whole cannot go on: no enclosing applicator may swallow it.
    Abort(Abort),
}

#[derive(Clone, Copy)]
enum Abort {
    Budget,
    /// Subschema evaluations nested past [`MAX_NESTED`].
    Nesting,
    /// The instance nests past [`MAX_INSTANCE_DEPTH`] where the validator would follow it.
    Depth,
}

impl Abort {
    fn into_violation(self, limit: u64) -> Violation {
        match self {
            Abort::Budget => Violation::new(
                String::new(),
                "budget",
                format!("needs more than the server's budget of {limit} validation steps"),
            ),
            Abort::Nesting => Violation::new(
                String::new(),
                "depth",
                format!("nests deeper than {MAX_NESTED} subschema evaluations"),
            ),
            Abort::Depth => Violation::new(
                String::new(),
                "depth",
                format!("nests deeper than {MAX_INSTANCE_DEPTH} levels"),
            ),
        }
    }
}

/// One step of an instance path, borrowed from the instance.
#[derive(Clone, Copy)]
enum Seg<'v> {
    Key(&'v str),
    Index(usize),
}

/// The keyword that failed, with what its message needs.
#[derive(Clone, Copy)]
enum Kw {
    Type,
    Enum,
    Const,
    MultipleOf,
    Maximum,
    ExclusiveMaximum,
    Minimum,
    ExclusiveMinimum,
    MaxLength,
    MinLength,
    Pattern,
    MaxItems,
    MinItems,
    UniqueItems,
    Contains,
    MaxProperties,
    MinProperties,
    /// The index into `required`.
    Required(usize),
    /// The indices into `dependentRequired` and its list.
    DependentRequired(usize, usize),
    AdditionalProperties,
    PropertyNames,
    AnyOf,
    OneOfNone,
    OneOfMany,
    Not,
    False,
    UnevaluatedItems,
    UnevaluatedProperties,
}

/// A failure: where (the path, innermost step first), which node and keyword, and the JSON type
/// of the value that failed (for `type` messages).
#[derive(Clone)]
struct Fail<'v> {
    node: NodeId,
    kw: Kw,
    got: &'static str,
    path: Vec<Seg<'v>>,
}

impl<'v> Fail<'v> {
    fn at(mut self: Box<Self>, seg: Seg<'v>) -> Box<Self> {
        self.path.push(seg);
        self
    }

    fn into_violation(self, program: &Program) -> Violation {
        let mut path = String::new();
        for seg in self.path.iter().rev() {
            match seg {
                Seg::Key(k) => pointer::push(&mut path, k),
                Seg::Index(i) => {
                    path.push('/');
                    path.push_str(&i.to_string());
                }
            }
        }
        let k = match &program.nodes[self.node as usize] {
            Node::Schema(k) => Some(&**k),
            Node::Bool(_) => None,
        };
        let n = |f: fn(&Keywords) -> Option<&Number>| {
            k.and_then(f).map_or_else(String::new, Number::to_string)
        };
        let c = |f: fn(&Keywords) -> Option<u64>| k.and_then(f).unwrap_or(0);
        let (keyword, message) = match self.kw {
            Kw::Type => (
                "type",
                format!(
                    "expected {}, got {}",
                    expected(k.map_or(&[][..], |k| &k.types)),
                    self.got
                ),
            ),
            Kw::Enum => ("enum", "must be one of the schema's `enum` values".into()),
            Kw::Const => ("const", "must equal the schema's `const` value".into()),
            Kw::MultipleOf => (
                "multipleOf",
                format!("must be a multiple of {}", n(|k| k.multiple_of.as_ref())),
            ),
            Kw::Maximum => (
                "maximum",
                format!("must be <= {}", n(|k| k.maximum.as_ref())),
            ),
            Kw::ExclusiveMaximum => (
                "exclusiveMaximum",
                format!("must be < {}", n(|k| k.exclusive_maximum.as_ref())),
            ),
            Kw::Minimum => (
                "minimum",
                format!("must be >= {}", n(|k| k.minimum.as_ref())),
            ),
            Kw::ExclusiveMinimum => (
                "exclusiveMinimum",
                format!("must be > {}", n(|k| k.exclusive_minimum.as_ref())),
            ),
            Kw::MaxLength => (
                "maxLength",
                format!(
                    "must have at most {} characters (Unicode code points)",
                    c(|k| k.max_length)
                ),
            ),
            Kw::MinLength => (
                "minLength",
                format!(
                    "must have at least {} characters (Unicode code points)",
                    c(|k| k.min_length)
                ),
            ),
            Kw::Pattern => (
                "pattern",
                format!(
                    "must match the pattern `{}`",
                    k.and_then(|k| k.pattern.as_ref())
                        .map_or("", |p| &*p.source)
                ),
            ),
            Kw::MaxItems => (
                "maxItems",
                format!("must have at most {} items", c(|k| k.max_items)),
            ),
            Kw::MinItems => (
                "minItems",
                format!("must have at least {} items", c(|k| k.min_items)),
            ),
            Kw::UniqueItems => ("uniqueItems", "items must be unique".into()),
            Kw::Contains => (
                "contains",
                "must contain items matching `contains` as many times as the schema says".into(),
            ),
            Kw::MaxProperties => (
                "maxProperties",
                format!("must have at most {} properties", c(|k| k.max_properties)),
            ),
            Kw::MinProperties => (
                "minProperties",
                format!("must have at least {} properties", c(|k| k.min_properties)),
            ),
            Kw::Required(i) => (
                "required",
                format!(
                    "missing required property `{}`",
                    k.and_then(|k| k.required.get(i)).map_or("", |s| &**s)
                ),
            ),
            Kw::DependentRequired(i, j) => (
                "required",
                format!(
                    "missing required property `{}`",
                    k.and_then(|k| k.dependent_required.get(i))
                        .and_then(|(_, list)| list.get(j))
                        .map_or("", |s| &**s)
                ),
            ),
            Kw::AdditionalProperties => (
                "additionalProperties",
                "property is not declared by the schema".into(),
            ),
            Kw::PropertyNames => (
                "propertyNames",
                "property name does not satisfy `propertyNames`".into(),
            ),
            Kw::AnyOf => (
                "anyOf",
                "must match at least one of the `anyOf` schemas".into(),
            ),
            Kw::OneOfNone => (
                "oneOf",
                "must match exactly one of the `oneOf` schemas, and matches none".into(),
            ),
            Kw::OneOfMany => (
                "oneOf",
                "must match exactly one of the `oneOf` schemas, and matches more than one".into(),
            ),
            Kw::Not => ("not", "must not match the `not` schema".into()),
            Kw::False => (
                "false",
                "is not allowed here (the schema is `false`)".into(),
            ),
            Kw::UnevaluatedItems => (
                "unevaluatedItems",
                "item is not evaluated by any subschema".into(),
            ),
            Kw::UnevaluatedProperties => (
                "unevaluatedProperties",
                "property is not evaluated by any subschema".into(),
            ),
        };
        Violation::new(path, keyword, message)
    }
}

/// Which members of an object, or items of an array, some keyword evaluated.
#[derive(Clone, Default)]
struct Bits {
    all: bool,
    words: Vec<u64>,
}

impl Bits {
    fn set(&mut self, i: usize) {
        if self.all {
            return;
        }
        let w = i / 64;
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (i % 64);
    }

    fn get(&self, i: usize) -> bool {
        self.all
            || self
                .words
                .get(i / 64)
                .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    fn merge(&mut self, other: &Bits) {
        if self.all {
            return;
        }
        if other.all {
            self.all = true;
            self.words = Vec::new();
            return;
        }
        if self.words.len() < other.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }
}

/// The annotations of a passing subschema: members and items it evaluated. `None` where nobody
/// asked for them.
#[derive(Clone, Default)]
struct Ann {
    members: Bits,
    items: Bits,
}

type Evaluated = Option<Box<Ann>>;

/// The words of bitset a merge of `from` reads.
fn merge_cost(from: &Evaluated) -> u64 {
    from.as_ref()
        .map_or(0, |a| (a.members.words.len() + a.items.words.len()) as u64)
}

fn merge(into: &mut Evaluated, from: Evaluated) {
    match (into.as_mut(), from) {
        (_, None) => {}
        (None, Some(a)) => *into = Some(a),
        (Some(a), Some(b)) => {
            a.members.merge(&b.members);
            a.items.merge(&b.items);
        }
    }
}

type Outcome<'v> = Result<Evaluated, Stop<'v>>;

/// An outcome as an applicator weighs it: `Some` annotations for a pass, `None` for a failure
/// it may swallow (a branch of `anyOf`, the subschema of `not`); an abort goes on up.
fn weigh(outcome: Outcome<'_>) -> Result<Option<Evaluated>, Stop<'_>> {
    match outcome {
        Ok(e) => Ok(Some(e)),
        Err(Stop::Fail(_)) => Ok(None),
        Err(abort) => Err(abort),
    }
}

/// A memoised verdict (16 bytes: the table holds one per reference target and value).
enum Memo<'v> {
    /// Passed; its annotations were not asked for.
    Passed,
    /// Passed, with the annotations it collected.
    Collected(Evaluated),
    Failed(Box<Fail<'v>>),
}

struct Eval<'p, 'v> {
    program: &'p Program,
    limit: u64,
    work: u64,
    nested: u32,
    /// How deep in the instance the value being evaluated lies (the root is 0).
    depth: usize,
    memo: HashMap<(NodeId, u32, usize), Memo<'v>>,
    /// What the memo holds, by [`MEMO_ENTRY_BYTES`] and what its entries point to.
    memo_bytes: usize,
    /// The resources entered so far, each once, outermost first (the dynamic scope as far as
    /// `$dynamicRef` can tell).
    scope: Vec<ResourceId>,
    /// An id per distinct scope, so that memoised verdicts are kept apart where a
    /// `$dynamicRef` could land differently. Always 0 without one.
    scope_id: u32,
    scopes: HashMap<Vec<ResourceId>, u32>,
    /// The hashes of `uniqueItems`, made at the first one.
    hashes: Option<equal::Hashes>,
}

impl<'p, 'v> Eval<'p, 'v> {
    fn new(program: &'p Program, limit: u64, scope: Vec<ResourceId>) -> Self {
        let mut eval = Eval {
            program,
            limit,
            work: 0,
            nested: 0,
            depth: 0,
            memo: HashMap::new(),
            memo_bytes: 0,
            scope,
            scope_id: 0,
            scopes: HashMap::new(),
            hashes: None,
        };
        if program.dynamic {
            eval.scope_id = eval.intern_scope();
        }
        eval
    }

    fn intern_scope(&mut self) -> u32 {
        self.work += self.scope.len() as u64;
        let next = self.scopes.len() as u32;
        *self.scopes.entry(self.scope.clone()).or_insert(next)
    }

    fn tick(&mut self, steps: u64) -> Result<(), Stop<'v>> {
        self.work += steps;
        if self.work > self.limit {
            Err(Stop::Abort(Abort::Budget))
        } else {
            Ok(())
        }
    }

    fn fail(node: NodeId, kw: Kw, v: &Value) -> Stop<'v> {
        Stop::Fail(Box::new(Fail {
            node,
            kw,
            got: kind_of(v),
            path: Vec::new(),
        }))
    }

    /// A failure of `node`'s keyword `kw`, reported at the member or item `seg` of the value.
    fn fail_at(node: NodeId, kw: Kw, member: &Value, seg: Seg<'v>) -> Stop<'v> {
        Stop::Fail(Box::new(Fail {
            node,
            kw,
            got: kind_of(member),
            path: vec![seg],
        }))
    }

    /// Applies node `id` to `v`; with `collect`, a pass returns the members and items evaluated.
    fn node(&mut self, id: NodeId, v: &'v Value, collect: bool) -> Outcome<'v> {
        self.tick(1)?;
        let program: &'p Program = self.program;
        let k = match &program.nodes[id as usize] {
            Node::Bool(true) => return Ok(None),
            Node::Bool(false) => return Err(Self::fail(id, Kw::False, v)),
            Node::Schema(k) => &**k,
        };
        let key = (id, self.scope_id, v as *const Value as usize);
        if k.memoised {
            match self.memo.get(&key) {
                Some(Memo::Failed(f)) => return Err(Stop::Fail(f.clone())),
                Some(Memo::Collected(e)) if collect => {
                    let e = e.clone();
                    self.tick(merge_cost(&e))?;
                    return Ok(e);
                }
                Some(Memo::Collected(_) | Memo::Passed) if !collect => return Ok(None),
                _ => {}
            }
        }
        if self.nested >= MAX_NESTED {
            return Err(Stop::Abort(Abort::Nesting));
        }
        self.nested += 1;
        let entered = self.program.dynamic && !self.scope.contains(&k.resource);
        let outer_scope = self.scope_id;
        if entered {
            self.scope.push(k.resource);
            self.scope_id = self.intern_scope();
        }
        let outcome = self.keywords(id, k, v, collect);
        if entered {
            self.scope.pop();
            self.scope_id = outer_scope;
        }
        self.nested -= 1;
        if k.memoised {
            self.remember(key, &outcome);
        }
        outcome
    }

    /// Keeps a reference target's verdict on a value, while the table has room: past
    /// [`MEMO_BYTES`] a repeated evaluation is done again, and the budget bounds it.
    fn remember(&mut self, key: (NodeId, u32, usize), outcome: &Outcome<'v>) {
        let (memo, bytes) = match outcome {
            Ok(e) => match e {
                Some(ann) => (
                    Memo::Collected(e.clone()),
                    MEMO_ENTRY_BYTES + 64 + 8 * (ann.members.words.len() + ann.items.words.len()),
                ),
                None => (Memo::Passed, MEMO_ENTRY_BYTES),
            },
            Err(Stop::Fail(f)) => (
                Memo::Failed(f.clone()),
                MEMO_ENTRY_BYTES + 64 + 16 * f.path.len(),
            ),
            Err(Stop::Abort(_)) => return,
        };
        if self.memo_bytes + bytes > MEMO_BYTES {
            return;
        }
        self.memo_bytes += bytes;
        self.memo.insert(key, memo);
    }

    fn keywords(&mut self, id: NodeId, k: &'p Keywords, v: &'v Value, want: bool) -> Outcome<'v> {
        let collect = want || k.unevaluated_items.is_some() || k.unevaluated_properties.is_some();
        if k.type_mask != 0 && !type_matches(k.type_mask, v) {
            return Err(Self::fail(id, Kw::Type, v));
        }
        if let Some(list) = &k.enumeration {
            let mut found = false;
            for e in list.iter() {
                if self.equal(e, v)? {
                    found = true;
                    break;
                }
            }
            if !found {
                return Err(Self::fail(id, Kw::Enum, v));
            }
        }
        if let Some(c) = &k.constant {
            let same = self.equal(c, v)?;
            if !same {
                return Err(Self::fail(id, Kw::Const, v));
            }
        }
        let mut evaluated: Evaluated = collect.then(Box::default);
        match v {
            Value::Number(n) => self.number(id, k, n, v)?,
            Value::String(s) => self.string(id, k, s, v)?,
            Value::Array(items) => self.array(id, k, items, v, &mut evaluated)?,
            Value::Object(map) => self.object(id, k, map, v, &mut evaluated)?,
            _ => {}
        }
        self.in_place(id, k, v, collect, &mut evaluated)?;
        if let Some(u) = k.unevaluated_items {
            if let (Value::Array(items), Some(e)) = (v, evaluated.as_mut()) {
                for (i, item) in items.iter().enumerate() {
                    if !e.items.get(i) {
                        self.tick(1)?;
                        self.unevaluated(id, u, item, Seg::Index(i), Kw::UnevaluatedItems)?;
                    }
                }
                e.items.all = true;
            }
        }
        if let Some(u) = k.unevaluated_properties {
            if let (Value::Object(map), Some(e)) = (v, evaluated.as_mut()) {
                for (i, (key, member)) in map.iter().enumerate() {
                    if !e.members.get(i) {
                        self.tick(1)?;
                        self.unevaluated(id, u, member, Seg::Key(key), Kw::UnevaluatedProperties)?;
                    }
                }
                e.members.all = true;
            }
        }
        Ok(if want { evaluated } else { None })
    }

    /// Merges a subschema's annotations into `evaluated`, charging the bitset words read.
    fn merge(&mut self, evaluated: &mut Evaluated, from: Evaluated) -> Result<(), Stop<'v>> {
        self.tick(merge_cost(&from))?;
        merge(evaluated, from);
        Ok(())
    }

    /// Applies `id` to a value one level below the current one, refusing past the instance
    /// depth the validator follows.
    fn below(&mut self, id: NodeId, v: &'v Value) -> Outcome<'v> {
        if self.depth >= MAX_INSTANCE_DEPTH {
            return Err(Stop::Abort(Abort::Depth));
        }
        self.depth += 1;
        let outcome = self.node(id, v, false);
        self.depth -= 1;
        outcome
    }

    /// Whether a schema's value equals the current instance value.
    fn equal(&mut self, schema_value: &Value, v: &Value) -> Result<bool, Stop<'v>> {
        let left = MAX_INSTANCE_DEPTH.saturating_sub(self.depth);
        let same = equal::equal(schema_value, v, &mut self.work, left);
        self.tick(0)?;
        same.ok_or(Stop::Abort(Abort::Depth))
    }

    /// Applies `id` to a child value; a failure is placed at `seg`, and a `false` schema reports
    /// `instead` (`additionalProperties` says more than `false`).
    fn child(
        &mut self,
        id: NodeId,
        v: &'v Value,
        seg: Seg<'v>,
        instead: Kw,
    ) -> Result<(), Stop<'v>> {
        match self.below(id, v) {
            Ok(_) => Ok(()),
            Err(Stop::Fail(mut f)) => {
                if f.path.is_empty() && matches!(f.kw, Kw::False) && !matches!(instead, Kw::False) {
                    f.kw = instead;
                }
                Err(Stop::Fail(f.at(seg)))
            }
            Err(abort) => Err(abort),
        }
    }

    /// Applies an `unevaluated*` schema to a member or item no other keyword evaluated; a
    /// failure is reported as that keyword's, at the member or item.
    fn unevaluated(
        &mut self,
        id: NodeId,
        u: NodeId,
        v: &'v Value,
        seg: Seg<'v>,
        kw: Kw,
    ) -> Result<(), Stop<'v>> {
        match weigh(self.below(u, v))? {
            Some(_) => Ok(()),
            None => Err(Self::fail_at(id, kw, v, seg)),
        }
    }

    fn number(&mut self, id: NodeId, k: &Keywords, n: &Number, v: &Value) -> Result<(), Stop<'v>> {
        use std::cmp::Ordering::{Equal, Greater, Less};
        if let Some(m) = &k.multiple_of {
            if !is_multiple(n, m) {
                return Err(Self::fail(id, Kw::MultipleOf, v));
            }
        }
        let checks: [(&Option<Number>, &[std::cmp::Ordering], Kw); 4] = [
            (&k.maximum, &[Less, Equal], Kw::Maximum),
            (&k.exclusive_maximum, &[Less], Kw::ExclusiveMaximum),
            (&k.minimum, &[Greater, Equal], Kw::Minimum),
            (&k.exclusive_minimum, &[Greater], Kw::ExclusiveMinimum),
        ];
        for (limit, allowed, kw) in checks {
            if let Some(limit) = limit {
                if !number::compare(n, limit).is_some_and(|o| allowed.contains(&o)) {
                    return Err(Self::fail(id, kw, v));
                }
            }
        }
        Ok(())
    }

    fn string(&mut self, id: NodeId, k: &Keywords, s: &str, v: &Value) -> Result<(), Stop<'v>> {
        if k.max_length.is_some() || k.min_length.is_some() {
            self.tick((s.len() / 64) as u64)?;
            let len = s.chars().count() as u64;
            if k.max_length.is_some_and(|m| len > m) {
                return Err(Self::fail(id, Kw::MaxLength, v));
            }
            if k.min_length.is_some_and(|m| len < m) {
                return Err(Self::fail(id, Kw::MinLength, v));
            }
        }
        if let Some(p) = &k.pattern {
            self.tick(1 + (s.len() / 64) as u64)?;
            if !p.regex.is_match(s) {
                return Err(Self::fail(id, Kw::Pattern, v));
            }
        }
        Ok(())
    }

    fn array(
        &mut self,
        id: NodeId,
        k: &'p Keywords,
        items: &'v [Value],
        v: &'v Value,
        evaluated: &mut Evaluated,
    ) -> Result<(), Stop<'v>> {
        let len = items.len() as u64;
        if k.max_items.is_some_and(|m| len > m) {
            return Err(Self::fail(id, Kw::MaxItems, v));
        }
        if k.min_items.is_some_and(|m| len < m) {
            return Err(Self::fail(id, Kw::MinItems, v));
        }
        if k.unique_items && !self.unique(items)? {
            return Err(Self::fail(id, Kw::UniqueItems, v));
        }
        for (i, (&p, item)) in k.prefix_items.iter().zip(items).enumerate() {
            self.tick(1)?;
            self.child(p, item, Seg::Index(i), Kw::False)?;
            if let Some(e) = evaluated.as_mut() {
                e.items.set(i);
            }
        }
        if let Some(each) = k.items {
            for (i, item) in items.iter().enumerate().skip(k.prefix_items.len()) {
                self.tick(1)?;
                self.child(each, item, Seg::Index(i), Kw::False)?;
            }
            if let Some(e) = evaluated.as_mut() {
                e.items.all = true;
                e.items.words = Vec::new();
            }
        }
        if let Some(c) = k.contains {
            let min = k.min_contains.unwrap_or(1);
            let mut found = 0u64;
            for (i, item) in items.iter().enumerate() {
                if evaluated.is_none() && k.max_contains.is_none() && found >= min {
                    break;
                }
                self.tick(1)?;
                if weigh(self.below(c, item))?.is_some() {
                    found += 1;
                    if let Some(e) = evaluated.as_mut() {
                        e.items.set(i);
                    }
                }
            }
            if found < min || k.max_contains.is_some_and(|m| found > m) {
                return Err(Self::fail(id, Kw::Contains, v));
            }
        }
        Ok(())
    }

    /// Whether the items are pairwise distinct: each hashed once, compared only with the items
    /// sharing its hash (a chain threaded through `next`, so one entry per item and no
    /// allocation per bucket).
    fn unique(&mut self, items: &[Value]) -> Result<bool, Stop<'v>> {
        let mut hashes = self.hashes.take().unwrap_or_else(equal::Hashes::new);
        let outcome = self.unique_with(&mut hashes, items);
        self.hashes = Some(hashes);
        outcome
    }

    fn unique_with(
        &mut self,
        hashes: &mut equal::Hashes,
        items: &[Value],
    ) -> Result<bool, Stop<'v>> {
        const END: usize = usize::MAX;
        // Keyed by hashes already keyed per process: hashed again for nothing.
        let mut heads: HashMap<u64, usize, BuildHasherDefault<equal::Prehashed>> =
            HashMap::with_capacity_and_hasher(items.len(), BuildHasherDefault::default());
        let mut next: Vec<usize> = Vec::with_capacity(items.len());
        // The items lie one level below the array.
        let left = MAX_INSTANCE_DEPTH.saturating_sub(self.depth + 1);
        for (i, item) in items.iter().enumerate() {
            let h = equal::hash(hashes, item, &mut self.work, left);
            self.tick(0)?;
            let h = h.ok_or(Stop::Abort(Abort::Depth))?;
            let head = heads.insert(h, i).unwrap_or(END);
            let mut j = head;
            while j != END {
                let same = equal::equal(&items[j], item, &mut self.work, left);
                self.tick(0)?;
                let same = same.ok_or(Stop::Abort(Abort::Depth))?;
                if same {
                    return Ok(false);
                }
                j = next[j];
            }
            next.push(head);
        }
        Ok(true)
    }

    fn object(
        &mut self,
        id: NodeId,
        k: &'p Keywords,
        map: &'v Map<String, Value>,
        v: &'v Value,
        evaluated: &mut Evaluated,
    ) -> Result<(), Stop<'v>> {
        let len = map.len() as u64;
        if k.max_properties.is_some_and(|m| len > m) {
            return Err(Self::fail(id, Kw::MaxProperties, v));
        }
        if k.min_properties.is_some_and(|m| len < m) {
            return Err(Self::fail(id, Kw::MinProperties, v));
        }
        // Names are distinct, so at most `len + 1` are looked up before one is missing.
        for (i, name) in k.required.iter().enumerate() {
            self.tick(1)?;
            if !map.contains_key(&**name) {
                return Err(Self::fail(id, Kw::Required(i), v));
            }
        }
        for i in self.dependents(&k.dependent_required, map)? {
            for (j, r) in k.dependent_required[i].1.iter().enumerate() {
                self.tick(1)?;
                if !map.contains_key(&**r) {
                    return Err(Self::fail(id, Kw::DependentRequired(i, j), v));
                }
            }
        }
        let per_member = evaluated.is_some()
            || k.additional_properties.is_some()
            || !k.pattern_properties.is_empty();
        if per_member {
            for (i, (key, member)) in map.iter().enumerate() {
                self.tick(1)?;
                let mut matched = false;
                if let Some(p) = k.property(key) {
                    matched = true;
                    self.child(p, member, Seg::Key(key), Kw::False)?;
                }
                for (pattern, p) in k.pattern_properties.iter() {
                    self.tick(1 + (key.len() / 64) as u64)?;
                    if pattern.regex.is_match(key) {
                        matched = true;
                        self.child(*p, member, Seg::Key(key), Kw::False)?;
                    }
                }
                if !matched {
                    if let Some(a) = k.additional_properties {
                        matched = true;
                        self.child(a, member, Seg::Key(key), Kw::AdditionalProperties)?;
                    }
                }
                if let (true, Some(e)) = (matched, evaluated.as_mut()) {
                    e.members.set(i);
                }
            }
        } else if map.len() < k.properties.len() {
            // Both sides are sorted by name: walking the smaller one finds the same failure
            // first, and an object with few members costs few steps whatever the schema declares.
            for (key, member) in map {
                self.tick(1)?;
                if let Some(p) = k.property(key) {
                    self.child(p, member, Seg::Key(key), Kw::False)?;
                }
            }
        } else {
            for (name, p) in k.properties.iter() {
                self.tick(1)?;
                if let Some((key, member)) = map.get_key_value(&**name) {
                    self.child(*p, member, Seg::Key(key), Kw::False)?;
                }
            }
        }
        if let Some(names) = k.property_names {
            for key in map.keys() {
                self.tick(1 + (key.len() / 64) as u64)?;
                // The name is a value of its own, outside the instance: evaluated apart, with
                // its own (empty) memo and this budget's remainder.
                let name = Value::String(key.clone());
                let mut apart = Eval::new(
                    self.program,
                    self.limit.saturating_sub(self.work),
                    self.scope.clone(),
                );
                // It nests where it is applied: the stack it runs on is this one.
                apart.nested = self.nested;
                apart.depth = self.depth + 1;
                let verdict = apart.node(names, &name, false);
                self.work += apart.work;
                match verdict {
                    Ok(_) => {}
                    Err(Stop::Fail(_)) => {
                        return Err(Self::fail_at(id, Kw::PropertyNames, &name, Seg::Key(key)));
                    }
                    Err(Stop::Abort(a)) => return Err(Stop::Abort(a)),
                }
            }
        }
        for i in self.dependents(&k.dependent_schemas, map)? {
            let e = self.node(k.dependent_schemas[i].1, v, evaluated.is_some())?;
            self.merge(evaluated, e)?;
        }
        Ok(())
    }

    /// The indices of the entries of `table` (sorted by name) whose name is a member of `map`,
    /// in name order, found by walking the smaller of the two.
    fn dependents<T>(
        &mut self,
        table: &[(Box<str>, T)],
        map: &Map<String, Value>,
    ) -> Result<Vec<usize>, Stop<'v>> {
        if table.is_empty() {
            return Ok(Vec::new());
        }
        let mut found = Vec::new();
        if map.len() < table.len() {
            for key in map.keys() {
                self.tick(1)?;
                if let Ok(i) = table.binary_search_by(|(name, _)| (**name).cmp(key.as_str())) {
                    found.push(i);
                }
            }
        } else {
            for (i, (name, _)) in table.iter().enumerate() {
                self.tick(1)?;
                if map.contains_key(&**name) {
                    found.push(i);
                }
            }
        }
        Ok(found)
    }

    /// The applicators that apply subschemas to `v` itself.
    fn in_place(
        &mut self,
        id: NodeId,
        k: &'p Keywords,
        v: &'v Value,
        collect: bool,
        evaluated: &mut Evaluated,
    ) -> Result<(), Stop<'v>> {
        if let Some(r) = k.reference {
            let e = self.node(r, v, collect)?;
            self.merge(evaluated, e)?;
        }
        if let Some(d) = &k.dynamic_reference {
            self.tick(self.scope.len() as u64)?;
            let target = self.program.dynamic_target(d, &self.scope);
            let e = self.node(target, v, collect)?;
            self.merge(evaluated, e)?;
        }
        for &s in k.all_of.iter() {
            let e = self.node(s, v, collect)?;
            self.merge(evaluated, e)?;
        }
        if !k.any_of.is_empty() {
            let mut any = false;
            for &s in k.any_of.iter() {
                if let Some(e) = weigh(self.node(s, v, collect))? {
                    any = true;
                    self.merge(evaluated, e)?;
                    if !collect {
                        break;
                    }
                }
            }
            if !any {
                return Err(Self::fail(id, Kw::AnyOf, v));
            }
        }
        if !k.one_of.is_empty() {
            let mut passed: Option<Evaluated> = None;
            for &s in k.one_of.iter() {
                if let Some(e) = weigh(self.node(s, v, collect))? {
                    if passed.is_some() {
                        return Err(Self::fail(id, Kw::OneOfMany, v));
                    }
                    passed = Some(e);
                }
            }
            match passed {
                Some(e) => self.merge(evaluated, e)?,
                None => return Err(Self::fail(id, Kw::OneOfNone, v)),
            }
        }
        if let Some(n) = k.not {
            if weigh(self.node(n, v, false))?.is_some() {
                return Err(Self::fail(id, Kw::Not, v));
            }
        }
        if let Some(i) = k.if_ {
            let branch = match weigh(self.node(i, v, collect))? {
                Some(e) => {
                    self.merge(evaluated, e)?;
                    k.then_
                }
                None => k.else_,
            };
            if let Some(b) = branch {
                let e = self.node(b, v, collect)?;
                self.merge(evaluated, e)?;
            }
        }
        Ok(())
    }
}

/// Whether `n` is an integer multiple of `m`, exactly, in the decimal the JSON text wrote:
/// `0.3` is a multiple of `0.1`, `9007199254740993` is not one of `2.0`, `1e20` is not one of
/// `0.3`. (Floats are read back as their shortest decimal, which is what a sender wrote.)
fn is_multiple(n: &Number, m: &Number) -> bool {
    let (Some((a, ea)), Some((b, eb))) = (decimal(n), decimal(m)) else {
        return false;
    };
    if b == 0 {
        return false;
    }
    if a == 0 {
        return true;
    }
    // a·10^ea = q · b·10^eb for an integer q.
    if ea >= eb {
        let k = (ea - eb) as u64;
        mul_mod(a % b, pow_mod(10, k, b), b) == 0
    } else {
        let k = (eb - ea) as u32;
        match 10u128.checked_pow(k).and_then(|p| p.checked_mul(b)) {
            Some(d) => a % d == 0,
            // b·10^k above 2^128 exceeds every mantissa a JSON number has here.
            None => false,
        }
    }
}

/// `|n|` as `mantissa × 10^exponent`, the mantissa without trailing zeros (below 2^64: a `u64`
/// or `i64` has at most 20 digits, a float's shortest decimal at most 17).
fn decimal(n: &Number) -> Option<(u128, i64)> {
    let text = n.to_string();
    let text = text.strip_prefix('-').unwrap_or(&text);
    let (digits, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let mut mantissa: u128 = 0;
    for c in whole.chars().chain(fraction.chars()) {
        let d = c.to_digit(10)?;
        mantissa = mantissa.checked_mul(10)?.checked_add(u128::from(d))?;
    }
    let mut exponent = exponent - fraction.len() as i64;
    while mantissa != 0 && mantissa.is_multiple_of(10) {
        mantissa /= 10;
        exponent += 1;
    }
    Some((mantissa, exponent))
}

/// `a · b mod m` for `a, b < m < 2^64`.
fn mul_mod(a: u128, b: u128, m: u128) -> u128 {
    (a * b) % m
}

/// `base^exp mod m` for `m < 2^64`.
fn pow_mod(base: u128, mut exp: u64, m: u128) -> u128 {
    let mut result = 1 % m;
    let mut base = base % m;
    while exp > 0 {
        if exp & 1 == 1 {
            result = mul_mod(result, base, m);
        }
        base = mul_mod(base, base, m);
        exp >>= 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn multiple(n: Value, m: Value) -> bool {
        match (n, m) {
            (Value::Number(n), Value::Number(m)) => is_multiple(&n, &m),
            _ => unreachable!("numbers only"),
        }
    }

    #[test]
    fn multiple_of_is_exact_in_decimal() {
        for (n, m, expected) in [
            (json!(0.3), json!(0.1), true),
            (json!(1.5), json!(0.5), true),
            (json!(0.3), json!(0.5), false),
            (json!(9_007_199_254_740_993_u64), json!(2.0), false),
            (json!(9_007_199_254_740_992_u64), json!(2.0), true),
            (json!(1e20), json!(0.3), false),
            (json!(9_007_199_254_740_993_u64), json!(1.5), true),
            (json!(-12), json!(4), true),
            (json!(-12), json!(5), false),
            (json!(0), json!(0.7), true),
            (json!(1e300), json!(1e-300), true),
            (json!(1e-300), json!(1e300), false),
            (json!(u64::MAX), json!(u64::MAX), true),
            (json!(i64::MIN), json!(2), true),
            (json!(4.0), json!(2), true),
            (json!(4.5), json!(2), false),
        ] {
            assert_eq!(
                multiple(n.clone(), m.clone()),
                expected,
                "{n} multipleOf {m}"
            );
        }
    }
}

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

use serde_json::Value;

use super::super::budget::Budget;
use super::super::error::Violation;
use super::super::validate::{kind_of, type_matches};
use super::equal;
use super::program::{Keywords, Node, NodeId, Program, ResourceId};
use super::MAX_INSTANCE_DEPTH;

mod array;
mod evaluated;
mod failure;
mod in_place;
mod multiple_of;
mod object;
mod scalar;

use evaluated::{merge, merge_cost, weigh, Evaluated, Outcome};
use failure::{Abort, Fail, Kw, Seg, Stop, MAX_NESTED};

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
}

//! The applicators that apply subschemas to the value itself: `$ref`, `$dynamicRef`, `allOf`,
//! `anyOf`, `oneOf`, `not`, `if`/`then`/`else`.

use serde_json::Value;

use super::super::program::{Keywords, NodeId};
use super::evaluated::{weigh, Evaluated};
use super::failure::{Kw, Stop};
use super::Eval;

impl<'p, 'v> Eval<'p, 'v> {
    /// The applicators that apply subschemas to `v` itself.
    pub(super) fn in_place(
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

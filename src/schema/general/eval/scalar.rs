//! The keywords of numbers and strings.

use serde_json::{Number, Value};

use super::super::super::number;
use super::super::program::{Keywords, NodeId};
use super::failure::{Kw, Stop};
use super::multiple_of::is_multiple;
use super::Eval;

impl<'v> Eval<'_, 'v> {
    pub(super) fn number(
        &mut self,
        id: NodeId,
        k: &Keywords,
        n: &Number,
        v: &Value,
    ) -> Result<(), Stop<'v>> {
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

    pub(super) fn string(
        &mut self,
        id: NodeId,
        k: &Keywords,
        s: &str,
        v: &Value,
    ) -> Result<(), Stop<'v>> {
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
}

//! The keywords of arrays: `maxItems`, `minItems`, `uniqueItems`, `prefixItems`, `items`,
//! `contains`.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use serde_json::Value;

use super::super::equal;
use super::super::program::{Keywords, NodeId};
use super::super::MAX_INSTANCE_DEPTH;
use super::evaluated::{weigh, Evaluated};
use super::failure::{Abort, Kw, Seg, Stop};
use super::Eval;

impl<'p, 'v> Eval<'p, 'v> {
    pub(super) fn array(
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
}

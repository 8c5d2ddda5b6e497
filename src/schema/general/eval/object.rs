//! The keywords of objects: `maxProperties`, `minProperties`, `required`,
//! `dependentRequired`, `properties`, `patternProperties`, `additionalProperties`,
//! `propertyNames`, `dependentSchemas`.

use serde_json::{Map, Value};

use super::super::program::{Keywords, NodeId};
use super::evaluated::Evaluated;
use super::failure::{Kw, Seg, Stop};
use super::Eval;

impl<'p, 'v> Eval<'p, 'v> {
    pub(super) fn object(
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
}

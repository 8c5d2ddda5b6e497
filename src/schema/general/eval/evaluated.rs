//! The annotations `unevaluatedItems` and `unevaluatedProperties` read: which items and members
//! of a value the subschemas that passed evaluated.

use super::failure::Stop;

/// Which members of an object, or items of an array, some keyword evaluated.
#[derive(Clone, Default)]
pub(super) struct Bits {
    pub(super) all: bool,
    pub(super) words: Vec<u64>,
}

impl Bits {
    pub(super) fn set(&mut self, i: usize) {
        if self.all {
            return;
        }
        let w = i / 64;
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (i % 64);
    }

    pub(super) fn get(&self, i: usize) -> bool {
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
pub(super) struct Ann {
    pub(super) members: Bits,
    pub(super) items: Bits,
}

pub(super) type Evaluated = Option<Box<Ann>>;

/// The words of bitset a merge of `from` reads.
pub(super) fn merge_cost(from: &Evaluated) -> u64 {
    from.as_ref()
        .map_or(0, |a| (a.members.words.len() + a.items.words.len()) as u64)
}

pub(super) fn merge(into: &mut Evaluated, from: Evaluated) {
    match (into.as_mut(), from) {
        (_, None) => {}
        (None, Some(a)) => *into = Some(a),
        (Some(a), Some(b)) => {
            a.members.merge(&b.members);
            a.items.merge(&b.items);
        }
    }
}

pub(super) type Outcome<'v> = Result<Evaluated, Stop<'v>>;

/// An outcome as an applicator weighs it: `Some` annotations for a pass, `None` for a failure
/// it may swallow (a branch of `anyOf`, the subschema of `not`); an abort goes on up.
pub(super) fn weigh(outcome: Outcome<'_>) -> Result<Option<Evaluated>, Stop<'_>> {
    match outcome {
        Ok(e) => Ok(Some(e)),
        Err(Stop::Fail(_)) => Ok(None),
        Err(abort) => Err(abort),
    }
}

//! A typed map of what a host attached to a call: the principal its authorize hook
//! authenticated, a tenant, a trace id. One value per type.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Values a host attached to a request, one per type, read back by type.
///
/// The HTTP transport's asynchronous authorize hook returns one (see
/// `HttpService::authorize_async`), a stdio connection carries one for all its requests, a host
/// dispatch may carry one; it reaches the tool as `CallContext::extensions`, and the
/// resource reader, the prompt renderer and the completer through their context.
///
/// Cheap to clone: the values are shared, not copied (a connection's context is handed to each
/// of its calls). Nothing the caller sends is ever put here by the crate.
///
/// ```
/// use beam_mcp::Extensions;
///
/// #[derive(Debug, PartialEq)]
/// struct Principal(String);
///
/// let mut ext = Extensions::new();
/// ext.insert(Principal("alice".into()));
/// assert_eq!(ext.get::<Principal>(), Some(&Principal("alice".into())));
/// assert_eq!(ext.get::<u32>(), None);
/// ```
#[derive(Clone, Default)]
pub struct Extensions {
    map: Option<Arc<HashMap<TypeId, Entry>>>,
}

#[derive(Clone)]
struct Entry {
    name: &'static str,
    value: Arc<dyn Any + Send + Sync>,
}

impl Extensions {
    /// An empty map (allocates nothing).
    pub fn new() -> Self {
        Extensions { map: None }
    }

    /// Inserts `value`, replacing the value of the same type if there was one; returns whether
    /// one was replaced.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) -> bool {
        let map = Arc::make_mut(self.map.get_or_insert_with(Default::default));
        let entry = Entry {
            name: std::any::type_name::<T>(),
            value: Arc::new(value),
        };
        map.insert(TypeId::of::<T>(), entry).is_some()
    }

    /// The same map with `value` inserted.
    #[must_use]
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// The value of type `T`, if one was inserted.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map
            .as_ref()?
            .get(&TypeId::of::<T>())?
            .value
            .downcast_ref::<T>()
    }

    /// Whether a value of type `T` was inserted.
    pub fn contains<T: Send + Sync + 'static>(&self) -> bool {
        self.get::<T>().is_some()
    }

    /// Removes the value of type `T`; returns whether there was one.
    pub fn remove<T: Send + Sync + 'static>(&mut self) -> bool {
        match self.map.as_mut() {
            Some(map) => Arc::make_mut(map).remove(&TypeId::of::<T>()).is_some(),
            None => false,
        }
    }

    /// Inserts every value of `other`, replacing those of the same types.
    pub fn extend(&mut self, other: Extensions) {
        let Some(theirs) = other.map else { return };
        if self.is_empty() {
            self.map = Some(theirs);
            return;
        }
        let map = Arc::make_mut(self.map.get_or_insert_with(Default::default));
        for (k, v) in theirs.iter() {
            map.insert(*k, v.clone());
        }
    }

    /// How many values there are.
    pub fn len(&self) -> usize {
        self.map.as_ref().map_or(0, |m| m.len())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Debug for Extensions {
    /// The type names only: a value (a token, a principal) is never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self
            .map
            .iter()
            .flat_map(|m| m.values().map(|e| e.name))
            .collect();
        names.sort_unstable();
        f.debug_set().entries(names).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_type_shared_by_clones() {
        let mut a = Extensions::new();
        assert!(a.is_empty());
        assert!(!a.insert(1u8));
        assert!(a.insert(2u8));
        let b = a.clone().with("s");
        assert_eq!(a.get::<u8>(), Some(&2));
        assert_eq!(
            a.get::<&str>(),
            None,
            "a clone's insert does not reach the original"
        );
        assert_eq!(b.get::<&str>(), Some(&"s"));
        assert_eq!(b.len(), 2);
        let mut c = Extensions::new().with(7u8).with(1u16);
        c.extend(b);
        assert_eq!(
            c.get::<u8>(),
            Some(&2),
            "extend replaces values of the same type"
        );
        assert_eq!(c.get::<u16>(), Some(&1));
        assert!(c.remove::<u16>());
        assert!(!c.remove::<u16>());
        assert_eq!(format!("{c:?}"), r#"{"&str", "u8"}"#);
    }
}

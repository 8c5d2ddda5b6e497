//! The name resolver: the module index the first two passes fill, and how a path written in a
//! module resolves against it (`crate`, `self`, `super`, items, children, `use` maps, globs,
//! other crates of the scope, dependencies, the prelude). Pure.

use std::collections::{BTreeMap, BTreeSet};

/// Crate roots that are never in the scope: paths under them are external.
const EXTERN_ROOTS: &[&str] = &["std", "core", "alloc", "proc_macro", "test"];

/// What the index knows of one module.
#[derive(Debug, Default)]
pub(super) struct ModuleInfo {
    /// The package the module belongs to.
    pub(super) package: String,
    /// Its child modules, by name.
    pub(super) children: BTreeSet<String>,
    /// Its items (functions, types, traits, consts, statics), by name.
    pub(super) items: BTreeSet<String>,
    /// Names its `use` declarations bring in, each to the path it names.
    pub(super) uses: BTreeMap<String, Vec<String>>,
    /// The prefixes of its glob imports.
    pub(super) globs: Vec<Vec<String>>,
    /// Crates it can name that are outside the scope (dependencies, `extern crate`).
    pub(super) externs: BTreeSet<String>,
}

impl ModuleInfo {
    /// Records one `use` tree: each name it brings in, mapped to the path it names (`prefix`
    /// and below), and each glob's prefix.
    pub(super) fn record_use(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.record_use(&p.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                if name == "self" {
                    if let Some(last) = prefix.last() {
                        self.uses.insert(last.clone(), prefix.clone());
                    }
                } else {
                    let mut target = prefix.clone();
                    target.push(name.clone());
                    self.uses.insert(name, target);
                }
            }
            syn::UseTree::Rename(r) => {
                let name = r.ident.to_string();
                let mut target = prefix.clone();
                if name != "self" {
                    target.push(name);
                }
                let alias = r.rename.to_string();
                if alias != "_" {
                    self.uses.insert(alias, target);
                }
            }
            syn::UseTree::Glob(_) => self.globs.push(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.record_use(t, prefix);
                }
            }
        }
    }
}

/// Where an indexed function lives.
#[derive(Debug)]
pub(super) struct FnInfo {
    /// The package it belongs to.
    pub(super) package: String,
    /// The module it is written in, `::`-joined.
    pub(super) module: String,
}

/// The index of the scope: its crates, modules and functions, the names functions go by,
/// and the struct fields typed `dyn Trait`.
#[derive(Debug, Default)]
pub(super) struct Index {
    /// The crates of the scope, by name.
    pub(super) crates: BTreeSet<String>,
    /// The modules, by `::`-joined path from the crate name.
    pub(super) modules: BTreeMap<String, ModuleInfo>,
    /// The functions read from source, by `::`-joined path (methods under their type's path).
    pub(super) fns: BTreeMap<String, FnInfo>,
    /// Every name an in-scope function or trait method goes by.
    pub(super) fn_names: BTreeSet<String>,
    /// Struct fields typed `dyn Trait`, as (struct path, field name).
    pub(super) dyn_fields: BTreeSet<(String, String)>,
}

/// What a path resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Res {
    /// An absolute path into the scope, from the crate name.
    InScope(Vec<String>),
    /// A path into another crate.
    External(Vec<String>),
    /// A single name found nowhere in the module: the prelude's.
    Prelude(Vec<String>),
    /// Nothing the index can name (too deep, a glob that names nothing, a bad `super`).
    Unresolved,
}

/// How many `use` and `super` hops a resolution may take before it gives up.
const MAX_DEPTH: usize = 16;

impl Index {
    /// Resolves `segs` as written in `module` (both from the crate name).
    pub(super) fn resolve(&self, module: &[String], segs: &[String], depth: usize) -> Res {
        if depth > MAX_DEPTH || segs.is_empty() || module.is_empty() {
            return Res::Unresolved;
        }
        let first = segs[0].as_str();
        match first {
            "crate" => {
                let mut abs = vec![module[0].clone()];
                abs.extend_from_slice(&segs[1..]);
                return self.canonical(abs, depth);
            }
            "self" => {
                let mut abs = module.to_vec();
                abs.extend_from_slice(&segs[1..]);
                return self.canonical(abs, depth);
            }
            "super" => {
                if module.len() < 2 {
                    return Res::Unresolved;
                }
                return self.resolve(
                    &module[..module.len() - 1],
                    &[&["self".to_owned()][..], &segs[1..]].concat(),
                    depth + 1,
                );
            }
            _ => {}
        }
        let key = module.join("::");
        let Some(info) = self.modules.get(&key) else {
            return Res::Unresolved;
        };
        if info.items.contains(first) || info.children.contains(first) {
            let mut abs = module.to_vec();
            abs.extend_from_slice(segs);
            return self.canonical(abs, depth);
        }
        if let Some(target) = info.uses.get(first) {
            let mut path = target.clone();
            path.extend_from_slice(&segs[1..]);
            return self.resolve(module, &path, depth + 1);
        }
        if self.crates.contains(first) {
            return self.canonical(segs.to_vec(), depth);
        }
        if info.externs.contains(first) || EXTERN_ROOTS.contains(&first) {
            return Res::External(segs.to_vec());
        }
        for glob in &info.globs {
            let mut path = glob.clone();
            path.extend_from_slice(segs);
            if let Res::InScope(abs) = self.resolve(module, &path, depth + 1) {
                if self.names_something(&abs) {
                    return Res::InScope(abs);
                }
            }
        }
        if info.globs.is_empty() {
            Res::Prelude(segs.to_vec())
        } else {
            Res::Unresolved
        }
    }

    /// The canonical form of an absolute path: the longest module prefix found, then the
    /// rest followed through that module's `use` map when the head is not its own.
    pub(super) fn canonical(&self, abs: Vec<String>, depth: usize) -> Res {
        if !self.crates.contains(&abs[0]) {
            return Res::External(abs);
        }
        let mut k = 1;
        while k < abs.len() && self.modules.contains_key(&abs[..=k].join("::")) {
            k += 1;
        }
        if k >= abs.len() {
            return Res::InScope(abs);
        }
        let module = &abs[..k];
        if let Some(info) = self.modules.get(&module.join("::")) {
            let head = abs[k].as_str();
            if !info.items.contains(head) && !info.children.contains(head) {
                if let Some(target) = info.uses.get(head) {
                    let mut path = target.clone();
                    path.extend_from_slice(&abs[k + 1..]);
                    return self.resolve(module, &path, depth + 1);
                }
            }
        }
        Res::InScope(abs)
    }

    /// Whether an absolute path names an indexed function, module, or a module's item.
    fn names_something(&self, abs: &[String]) -> bool {
        let joined = abs.join("::");
        if self.fns.contains_key(&joined) || self.modules.contains_key(&joined) {
            return true;
        }
        let (Some((last, parent)), true) = (abs.split_last(), abs.len() > 1) else {
            return false;
        };
        self.modules
            .get(&parent.join("::"))
            .is_some_and(|m| m.items.contains(last.as_str()))
    }
}

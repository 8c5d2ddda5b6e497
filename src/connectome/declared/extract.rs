//! Edge extraction over parsed files. Pure: no IO.
//!
//! Three passes over a [`SourceSet`]: index the modules (children, items, `use` maps, globs);
//! index the functions (free functions, methods under their type's resolved path, trait
//! default methods) and the struct fields typed `dyn Trait`; then visit every body and
//! classify each call site as an edge or as an entry of the completeness bound. The rules are
//! in `docs/connectome.md` ("How a call site is classified").

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::Span;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::source::{FileContent, SourceSet};
use super::{BoundEntry, BoundReason, CompletenessBound, Declared, ToolEntry};
use crate::connectome::model::{
    function_node_id, module_node_id, package_node_id, tool_node_id, EdgeKey, EdgeKind, Graph,
    Node, NodeKind,
};

/// The 1-based line and column of a span's start.
pub(crate) fn line_col(span: Span) -> (u32, u32) {
    let start = span.start();
    (
        u32::try_from(start.line).unwrap_or(u32::MAX),
        u32::try_from(start.column)
            .unwrap_or(u32::MAX)
            .saturating_add(1),
    )
}

/// Whether the attributes hold `#[cfg(test)]`: such items are not part of what can happen.
pub(crate) fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| match &a.meta {
        syn::Meta::List(list) if list.path.is_ident("cfg") => list.tokens.to_string() == "test",
        syn::Meta::Path(p) => p.is_ident("test"),
        _ => false,
    })
}

const EXTERN_ROOTS: &[&str] = &["std", "core", "alloc", "proc_macro", "test"];

const STD_DERIVES: &[&str] = &[
    "Debug",
    "Clone",
    "Copy",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Hash",
    "Default",
];

const BUILTIN_ATTRS: &[&str] = &[
    "allow",
    "automatically_derived",
    "cfg",
    "cfg_attr",
    "cold",
    "collapse_debuginfo",
    "crate_name",
    "crate_type",
    "debugger_visualizer",
    "deny",
    "deprecated",
    "derive",
    "doc",
    "expect",
    "export_name",
    "forbid",
    "global_allocator",
    "ignore",
    "inline",
    "link",
    "link_name",
    "link_section",
    "macro_export",
    "macro_use",
    "must_use",
    "no_implicit_prelude",
    "no_mangle",
    "no_std",
    "non_exhaustive",
    "path",
    "proc_macro",
    "proc_macro_attribute",
    "proc_macro_derive",
    "recursion_limit",
    "repr",
    "should_panic",
    "target_feature",
    "test",
    "track_caller",
    "type_length_limit",
    "unsafe",
    "used",
    "warn",
    "windows_subsystem",
];

const TOOL_ATTR_ROOTS: &[&str] = &["rustfmt", "clippy", "diagnostic", "rustdoc"];

#[derive(Debug, Default)]
struct ModuleInfo {
    package: String,
    children: BTreeSet<String>,
    items: BTreeSet<String>,
    uses: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
    externs: BTreeSet<String>,
}

#[derive(Debug)]
struct FnInfo {
    package: String,
    module: String,
}

#[derive(Debug, Default)]
struct Index {
    crates: BTreeSet<String>,
    modules: BTreeMap<String, ModuleInfo>,
    fns: BTreeMap<String, FnInfo>,
    fn_names: BTreeSet<String>,
    dyn_fields: BTreeSet<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Res {
    InScope(Vec<String>),
    External(Vec<String>),
    Prelude(Vec<String>),
    Unresolved,
}

const MAX_DEPTH: usize = 16;

impl Index {
    fn resolve(&self, module: &[String], segs: &[String], depth: usize) -> Res {
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

    fn canonical(&self, abs: Vec<String>, depth: usize) -> Res {
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

fn idents(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

fn use_tree(tree: &syn::UseTree, prefix: &mut Vec<String>, info: &mut ModuleInfo) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_tree(&p.tree, prefix, info);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                if let Some(last) = prefix.last() {
                    info.uses.insert(last.clone(), prefix.clone());
                }
            } else {
                let mut target = prefix.clone();
                target.push(name.clone());
                info.uses.insert(name, target);
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
                info.uses.insert(alias, target);
            }
        }
        syn::UseTree::Glob(_) => info.globs.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(t, prefix, info);
            }
        }
    }
}

struct Job<'a> {
    fn_id: String,
    module: Vec<String>,
    self_type: Option<Vec<String>>,
    file: &'a str,
    sig: &'a syn::Signature,
    block: &'a syn::Block,
}

struct Extractor<'a> {
    index: Index,
    bound: CompletenessBound,
    jobs: Vec<Job<'a>>,
}

impl<'a> Extractor<'a> {
    fn index_modules(
        &mut self,
        package: &str,
        deps: &[String],
        module: &[String],
        items: &'a [syn::Item],
    ) {
        let key = module.join("::");
        let info = self.index.modules.entry(key.clone()).or_default();
        info.package = package.to_owned();
        info.externs.extend(deps.iter().cloned());
        let mut inline = Vec::new();
        for item in items {
            let info = self.index.modules.entry(key.clone()).or_default();
            let name = match item {
                syn::Item::Mod(m) if !is_cfg_test(&m.attrs) => {
                    info.children.insert(m.ident.to_string());
                    if let Some((_, inner)) = &m.content {
                        inline.push((m.ident.to_string(), inner));
                    }
                    None
                }
                syn::Item::Fn(f) => Some(&f.sig.ident),
                syn::Item::Struct(s) => Some(&s.ident),
                syn::Item::Enum(e) => Some(&e.ident),
                syn::Item::Union(u) => Some(&u.ident),
                syn::Item::Trait(t) => Some(&t.ident),
                syn::Item::TraitAlias(t) => Some(&t.ident),
                syn::Item::Type(t) => Some(&t.ident),
                syn::Item::Const(c) => Some(&c.ident),
                syn::Item::Static(s) => Some(&s.ident),
                syn::Item::Use(u) if !is_cfg_test(&u.attrs) => {
                    use_tree(&u.tree, &mut Vec::new(), info);
                    None
                }
                syn::Item::ExternCrate(e) => {
                    let name = e.ident.to_string();
                    let alias = e
                        .rename
                        .as_ref()
                        .map_or_else(|| name.clone(), |(_, r)| r.to_string());
                    info.externs.insert(alias.clone());
                    if alias != name {
                        info.uses.insert(alias, vec![name]);
                    }
                    None
                }
                _ => None,
            };
            if let Some(ident) = name {
                info.items.insert(ident.to_string());
            }
        }
        for (name, inner) in inline {
            let mut child = module.to_vec();
            child.push(name);
            self.index_modules(package, deps, &child, inner);
        }
    }

    fn unreadable_attrs(&mut self, attrs: &[syn::Attribute], file: &str) {
        for attr in attrs {
            if matches!(attr.style, syn::AttrStyle::Inner(_)) {
                continue;
            }
            let path = attr.path();
            let segs = idents(path);
            if segs.len() == 1 && segs[0] == "derive" {
                let mut names = Vec::new();
                let _ = attr.parse_nested_meta(|meta| {
                    names.push((idents(&meta.path), meta.path.span()));
                    Ok(())
                });
                for (name, span) in names {
                    let last = name.last().map(String::as_str).unwrap_or_default();
                    if name.len() == 1 && STD_DERIVES.contains(&last) {
                        continue;
                    }
                    self.push(
                        BoundReason::DeriveMacro,
                        file,
                        span,
                        None,
                        format!("derive({})", name.join("::")),
                    );
                }
                continue;
            }
            let builtin = (segs.len() == 1 && BUILTIN_ATTRS.contains(&segs[0].as_str()))
                || segs
                    .first()
                    .is_some_and(|s| TOOL_ATTR_ROOTS.contains(&s.as_str()));
            if !builtin {
                self.push(
                    BoundReason::AttributeMacro,
                    file,
                    path.span(),
                    None,
                    format!("#[{}]", segs.join("::")),
                );
            }
        }
    }

    fn push(
        &mut self,
        reason: BoundReason,
        file: &str,
        span: Span,
        caller: Option<&str>,
        callee: String,
    ) {
        let (line, column) = line_col(span);
        self.bound.push(BoundEntry {
            file: Some(file.to_owned()),
            line,
            column,
            reason,
            caller: caller.map(str::to_owned),
            callee,
        });
    }

    /// An item-level macro: its expansion is not read, so it is a bound entry.
    fn macro_body(&mut self, file: &str, mac: &syn::Macro) {
        let callee = format!("{}!", idents(&mac.path).join("::"));
        self.push(BoundReason::MacroBody, file, mac.path.span(), None, callee);
    }

    fn add_fn(&mut self, path: &[String], package: &str, module: &[String]) -> String {
        let joined = path.join("::");
        if let Some(last) = path.last() {
            self.index.fn_names.insert(last.clone());
        }
        self.index.fns.insert(
            joined.clone(),
            FnInfo {
                package: package.to_owned(),
                module: module.join("::"),
            },
        );
        function_node_id(&joined)
    }

    fn type_path(&self, module: &[String], ty: &syn::Type) -> Vec<String> {
        if let syn::Type::Path(tp) = ty {
            if tp.qself.is_none() {
                let segs = idents(&tp.path);
                if let Res::InScope(abs) | Res::External(abs) = self.index.resolve(module, &segs, 0)
                {
                    return abs;
                }
                let mut local = module.to_vec();
                local.extend(segs.last().cloned());
                return local;
            }
        }
        let mut local = module.to_vec();
        local.push(format!("<{}>", compact(&ty.to_token_stream().to_string())));
        local
    }

    fn index_fns(
        &mut self,
        package: &str,
        module: &[String],
        file: &'a str,
        items: &'a [syn::Item],
    ) {
        for item in items {
            match item {
                syn::Item::Fn(f) if !is_cfg_test(&f.attrs) => {
                    self.unreadable_attrs(&f.attrs, file);
                    let mut path = module.to_vec();
                    path.push(f.sig.ident.to_string());
                    let fn_id = self.add_fn(&path, package, module);
                    self.jobs.push(Job {
                        fn_id,
                        module: module.to_vec(),
                        self_type: None,
                        file,
                        sig: &f.sig,
                        block: &f.block,
                    });
                }
                syn::Item::Impl(imp) if !is_cfg_test(&imp.attrs) => {
                    self.unreadable_attrs(&imp.attrs, file);
                    let ty = self.type_path(module, &imp.self_ty);
                    for ii in &imp.items {
                        match ii {
                            syn::ImplItem::Fn(m) if !is_cfg_test(&m.attrs) => {
                                self.unreadable_attrs(&m.attrs, file);
                                let mut path = ty.clone();
                                path.push(m.sig.ident.to_string());
                                let fn_id = self.add_fn(&path, package, module);
                                self.jobs.push(Job {
                                    fn_id,
                                    module: module.to_vec(),
                                    self_type: Some(ty.clone()),
                                    file,
                                    sig: &m.sig,
                                    block: &m.block,
                                });
                            }
                            syn::ImplItem::Macro(m) => self.macro_body(file, &m.mac),
                            _ => {}
                        }
                    }
                }
                syn::Item::Trait(t) if !is_cfg_test(&t.attrs) => {
                    self.unreadable_attrs(&t.attrs, file);
                    let mut trait_path = module.to_vec();
                    trait_path.push(t.ident.to_string());
                    for ti in &t.items {
                        if let syn::TraitItem::Fn(m) = ti {
                            self.index.fn_names.insert(m.sig.ident.to_string());
                            if let Some(block) = &m.default {
                                let mut path = trait_path.clone();
                                path.push(m.sig.ident.to_string());
                                let fn_id = self.add_fn(&path, package, module);
                                self.jobs.push(Job {
                                    fn_id,
                                    module: module.to_vec(),
                                    self_type: None,
                                    file,
                                    sig: &m.sig,
                                    block,
                                });
                            }
                        }
                    }
                }
                syn::Item::Struct(s) if !is_cfg_test(&s.attrs) => {
                    self.unreadable_attrs(&s.attrs, file);
                    let mut ty = module.to_vec();
                    ty.push(s.ident.to_string());
                    for field in &s.fields {
                        if let Some(name) = &field.ident {
                            if has_dyn(&field.ty) {
                                self.index
                                    .dyn_fields
                                    .insert((ty.join("::"), name.to_string()));
                            }
                        }
                    }
                }
                syn::Item::Enum(e) if !is_cfg_test(&e.attrs) => {
                    self.unreadable_attrs(&e.attrs, file)
                }
                syn::Item::Mod(m) if !is_cfg_test(&m.attrs) => {
                    self.unreadable_attrs(&m.attrs, file);
                    if let Some((_, inner)) = &m.content {
                        let mut child = module.to_vec();
                        child.push(m.ident.to_string());
                        self.index_fns(package, &child, file, inner);
                    }
                }
                syn::Item::Macro(m) if m.ident.is_none() && !is_cfg_test(&m.attrs) => {
                    self.macro_body(file, &m.mac)
                }
                _ => {}
            }
        }
    }
}

fn has_dyn(ty: &syn::Type) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_type_trait_object(&mut self, _: &'ast syn::TypeTraitObject) {
            self.0 = true;
        }
    }
    let mut f = Finder(false);
    f.visit_type(ty);
    f.0
}

fn compact(tokens: &str) -> String {
    tokens
        .replace(" :: ", "::")
        .replace(" . ", ".")
        .replace(" (", "(")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace("& ", "&")
}

struct Locals {
    all: BTreeSet<String>,
    dyn_typed: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for Locals {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.all.insert(p.ident.to_string());
        visit::visit_pat_ident(self, p);
    }
    fn visit_pat_type(&mut self, p: &'ast syn::PatType) {
        if has_dyn(&p.ty) {
            if let syn::Pat::Ident(id) = &*p.pat {
                self.dyn_typed.insert(id.ident.to_string());
            }
        }
        visit::visit_pat_type(self, p);
    }
}

struct Body<'i, 'b> {
    index: &'i Index,
    job: &'b Job<'b>,
    locals: Locals,
    edges: &'b mut BTreeSet<(String, String)>,
    bound: &'b mut CompletenessBound,
}

impl Body<'_, '_> {
    fn push(&mut self, reason: BoundReason, span: Span, callee: String) {
        let (line, column) = line_col(span);
        self.bound.push(BoundEntry {
            file: Some(self.job.file.to_owned()),
            line,
            column,
            reason,
            caller: Some(self.job.fn_id.clone()),
            callee,
        });
    }

    fn edge_to(&mut self, path: &str) {
        self.edges
            .insert((self.job.fn_id.clone(), function_node_id(path)));
    }

    fn call_path(&mut self, path: &syn::Path, span: Span) {
        let mut segs = idents(path);
        let Some(last) = segs.last().cloned() else {
            return;
        };
        if last.starts_with(|c: char| c.is_ascii_uppercase()) {
            return;
        }
        let text = segs.join("::");
        if segs.len() == 1 && self.locals.all.contains(&segs[0]) {
            self.push(BoundReason::FnPointerOrClosure, span, text);
            return;
        }
        let res = if path.leading_colon.is_some() {
            Res::External(segs)
        } else if segs[0] == "Self" {
            match &self.job.self_type {
                Some(t) => {
                    let mut abs = t.clone();
                    abs.extend_from_slice(&segs[1..]);
                    segs = abs;
                    self.index.canonical(segs.clone(), 0)
                }
                None => Res::Unresolved,
            }
        } else {
            self.index.resolve(&self.job.module, &segs, 0)
        };
        match res {
            Res::InScope(abs) => {
                let joined = abs.join("::");
                if self.index.fns.contains_key(&joined) {
                    self.edge_to(&joined);
                } else if abs.len() > 1 && !self.index.fn_names.contains(&last) {
                    self.push(BoundReason::MethodNotInScope, span, joined);
                } else {
                    self.push(BoundReason::UnresolvedPath, span, joined);
                }
            }
            Res::External(abs) => self.push(BoundReason::ExternalPath, span, abs.join("::")),
            Res::Prelude(segs) => self.push(BoundReason::Prelude, span, segs.join("::")),
            Res::Unresolved => self.push(BoundReason::UnresolvedPath, span, text),
        }
    }

    fn method_call(&mut self, call: &syn::ExprMethodCall) {
        let name = call.method.to_string();
        let span = call.method.span();
        let self_type = self.job.self_type.as_ref();
        match &*call.receiver {
            syn::Expr::Path(p) if p.path.is_ident("self") => {
                if let Some(t) = self_type {
                    let path = format!("{}::{name}", t.join("::"));
                    if self.index.fns.contains_key(&path) {
                        self.edge_to(&path);
                        return;
                    }
                }
            }
            syn::Expr::Path(p) => {
                if let Some(id) = p.path.get_ident() {
                    if self.locals.dyn_typed.contains(&id.to_string()) {
                        self.push(BoundReason::TraitObjectMethod, span, format!("{id}.{name}"));
                        return;
                    }
                }
            }
            syn::Expr::Field(f) => {
                if let (syn::Expr::Path(base), syn::Member::Named(field), Some(t)) =
                    (&*f.base, &f.member, self_type)
                {
                    if base.path.is_ident("self")
                        && self
                            .index
                            .dyn_fields
                            .contains(&(t.join("::"), field.to_string()))
                    {
                        self.push(
                            BoundReason::TraitObjectMethod,
                            span,
                            format!("self.{field}.{name}"),
                        );
                        return;
                    }
                }
            }
            _ => {}
        }
        if self.index.fn_names.contains(&name) {
            self.push(BoundReason::UnresolvedMethod, span, format!(".{name}"));
        } else {
            self.push(BoundReason::MethodNotInScope, span, format!(".{name}"));
        }
    }
}

impl<'ast> Visit<'ast> for Body<'_, '_> {
    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        match &*call.func {
            syn::Expr::Path(p) if p.qself.is_none() => self.call_path(&p.path, call.func.span()),
            syn::Expr::Path(p) => {
                let text = compact(&p.to_token_stream().to_string());
                self.push(BoundReason::UnresolvedPath, call.func.span(), text);
            }
            other => {
                let text = compact(&other.to_token_stream().to_string());
                self.push(BoundReason::CallExpression, other.span(), text);
                self.visit_expr(other);
            }
        }
        for arg in &call.args {
            self.visit_expr(arg);
        }
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        self.method_call(call);
        visit::visit_expr_method_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let callee = format!("{}!", idents(&mac.path).join("::"));
        self.push(BoundReason::MacroBody, mac.path.span(), callee);
        // Arguments that parse as expressions are read for their calls; the expansion is not.
        if let Ok(args) =
            mac.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
        {
            for arg in &args {
                self.visit_expr(arg);
            }
        }
    }
}

/// Builds the declared graph of `sources` with the catalog's `tools`.
pub(crate) fn extract(tools: &[ToolEntry], sources: &SourceSet) -> Declared {
    let mut ex = Extractor {
        index: Index::default(),
        bound: CompletenessBound::default(),
        jobs: Vec::new(),
    };
    let mut files: Vec<(&str, &str, &super::source::SourceFile)> = Vec::new();
    for krate in &sources.crates {
        ex.index.crates.insert(krate.crate_name.clone());
        for entry in &krate.unreadable {
            ex.bound.push(entry.clone());
        }
        for file in &krate.files {
            files.push((&krate.package, &krate.crate_name, file));
        }
    }
    files.sort_by(|a, b| a.2.module.cmp(&b.2.module).then(a.2.path.cmp(&b.2.path)));
    for (package, _, file) in &files {
        let krate = sources
            .crates
            .iter()
            .find(|k| &k.package == package && file.module.first() == Some(&k.crate_name));
        let deps = krate.map(|k| k.dependencies.as_slice()).unwrap_or_default();
        match &file.content {
            FileContent::Parsed(parsed) => {
                ex.index_modules(package, deps, &file.module, &parsed.items);
            }
            FileContent::Failed { line, column, .. } => {
                ex.index
                    .modules
                    .entry(file.module.join("::"))
                    .or_default()
                    .package = (*package).to_owned();
                ex.bound.push(BoundEntry {
                    file: Some(file.path.clone()),
                    line: *line,
                    column: *column,
                    reason: BoundReason::ParseError,
                    caller: None,
                    callee: file.module.join("::"),
                });
            }
        }
    }
    for (package, _, file) in &files {
        if let FileContent::Parsed(parsed) = &file.content {
            ex.index_fns(package, &file.module, &file.path, &parsed.items);
        }
    }

    let mut calls = BTreeSet::new();
    let Extractor {
        index,
        mut bound,
        jobs,
    } = ex;
    for job in &jobs {
        let mut locals = Locals {
            all: BTreeSet::new(),
            dyn_typed: BTreeSet::new(),
        };
        for input in &job.sig.inputs {
            locals.visit_fn_arg(input);
        }
        locals.visit_block(job.block);
        let mut body = Body {
            index: &index,
            job,
            locals,
            edges: &mut calls,
            bound: &mut bound,
        };
        body.visit_block(job.block);
    }

    let mut graph = Graph::new();
    for (path, info) in &index.modules {
        let mut node = Node::new(module_node_id(path), NodeKind::Module);
        node.package = Some(info.package.clone());
        node.module = Some(path.clone());
        graph.add_node(node);
        graph.add_node(Node::new(package_node_id(&info.package), NodeKind::Package));
    }
    for (path, info) in &index.fns {
        let mut node = Node::new(function_node_id(path), NodeKind::Function);
        node.package = Some(info.package.clone());
        node.module = Some(info.module.clone());
        graph.add_node(node);
    }
    for tool in tools {
        graph.add_dispatch_edge(&tool.name);
        let Some(target) = &tool.dispatch_target else {
            continue;
        };
        let segs: Vec<String> = target.split("::").map(str::to_owned).collect();
        let resolved = match index.canonical(segs, 0) {
            Res::InScope(abs) if index.fns.contains_key(&abs.join("::")) => Some(abs.join("::")),
            _ => None,
        };
        match resolved {
            Some(path) => graph.add_edge(EdgeKey::new(
                EdgeKind::Serves,
                tool_node_id(&tool.name),
                function_node_id(&path),
            )),
            None => bound.push(BoundEntry {
                file: None,
                line: 0,
                column: 0,
                reason: BoundReason::DispatchTargetNotInScope,
                caller: Some(tool_node_id(&tool.name)),
                callee: target.clone(),
            }),
        }
    }
    let module_of = |fn_id: &str| -> Option<String> {
        fn_id
            .strip_prefix("fn:")
            .and_then(|p| index.fns.get(p))
            .map(|i| i.module.clone())
    };
    for (from, to) in &calls {
        graph.add_edge(EdgeKey::new(EdgeKind::Call, from.clone(), to.clone()));
        if let (Some(a), Some(b)) = (module_of(from), module_of(to)) {
            if a != b {
                graph.add_edge(EdgeKey::new(
                    EdgeKind::ModuleCall,
                    module_node_id(&a),
                    module_node_id(&b),
                ));
            }
        }
    }
    Declared::from_parts(graph, bound)
}

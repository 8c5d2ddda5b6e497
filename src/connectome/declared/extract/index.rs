//! The indexer: the first two passes over the parsed files. Pass one records each module's
//! children, items, `use` maps and globs; pass two records the functions (free functions,
//! methods under their type's resolved path, trait default methods) and the struct fields
//! typed `dyn Trait`, queues each function body for the classifier, and enters the
//! attribute and derive macros and item-level macros met on the way in the bound. Pure.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;

use super::attributes::{is_builtin_attribute, is_std_derive};
use super::resolve::{FnInfo, Index, Res};
use crate::connectome::declared::bound::{BoundEntry, BoundReason, CompletenessBound};
use crate::connectome::declared::syntax::{compact, has_dyn, idents, is_cfg_test, line_col};
use crate::connectome::model::function_node_id;

/// One function body queued for the classifier, with what it needs to resolve paths.
pub(super) struct BodyJob<'a> {
    /// The function's node id.
    pub(super) fn_id: String,
    /// The module it is written in, from the crate name.
    pub(super) module: Vec<String>,
    /// The resolved path of `Self`, in an `impl` block.
    pub(super) self_type: Option<Vec<String>>,
    /// The file, as the bound names it.
    pub(super) file: &'a str,
    /// The signature (its arguments are locals of the body).
    pub(super) sig: &'a syn::Signature,
    /// The body.
    pub(super) block: &'a syn::Block,
}

/// The index being built, the bound entries met while indexing, and the queued bodies.
#[derive(Default)]
pub(super) struct Indexer<'a> {
    /// The index so far.
    pub(super) index: Index,
    /// The bound entries met so far.
    pub(super) bound: CompletenessBound,
    /// The bodies queued so far.
    pub(super) jobs: Vec<BodyJob<'a>>,
}

impl<'a> Indexer<'a> {
    /// Pass one over a file's (or an inline module's) items: children, items, `use` maps,
    /// globs, extern crates. Recurses into inline modules.
    pub(super) fn index_modules(
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
                    info.record_use(&u.tree, &mut Vec::new());
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

    /// Enters each outer attribute that is a macro, and each derive not the standard
    /// library's, in the bound.
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
                    if is_std_derive(&name) {
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
            if !is_builtin_attribute(&segs) {
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

    /// Enters a site met outside any body in the bound.
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

    /// Indexes a function at `path`, written in `module`; returns its node id.
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

    /// The path an `impl` block's self type is indexed under: resolved when it is a plain
    /// path, else the module's path with the type's text.
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

    /// Pass two over a file's (or an inline module's) items: functions, methods, trait
    /// default methods, `dyn` fields, attributes and item macros. Recurses into inline modules.
    pub(super) fn index_fns(
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
                    self.jobs.push(BodyJob {
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
                                self.jobs.push(BodyJob {
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
                                self.jobs.push(BodyJob {
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

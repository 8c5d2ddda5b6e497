//! The body classifier: the third pass. Visits one function body and classifies each call
//! site as a call edge (its callee resolves to an indexed function) or as an entry of the
//! completeness bound, by the rules of `docs/connectome.md` ("How a call site is
//! classified"). Pure.

use std::collections::BTreeSet;

use proc_macro2::Span;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::index::BodyJob;
use super::resolve::{Index, Res};
use crate::connectome::declared::bound::{BoundEntry, BoundReason, CompletenessBound};
use crate::connectome::declared::syntax::{compact, has_dyn, idents, line_col};
use crate::connectome::model::function_node_id;

/// Classifies every call site of `job`'s body: call edges, as (caller id, callee id), go
/// into `calls`, everything else into `bound`.
pub(super) fn classify_body(
    index: &Index,
    job: &BodyJob<'_>,
    calls: &mut BTreeSet<(String, String)>,
    bound: &mut CompletenessBound,
) {
    let mut locals = Locals {
        all: BTreeSet::new(),
        dyn_typed: BTreeSet::new(),
    };
    for input in &job.sig.inputs {
        locals.visit_fn_arg(input);
    }
    locals.visit_block(job.block);
    let mut classifier = BodyClassifier {
        index,
        job,
        locals,
        edges: calls,
        bound,
    };
    classifier.visit_block(job.block);
}

/// The local bindings of a body (arguments included), and those typed `dyn Trait`.
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

/// The visitor of one body.
struct BodyClassifier<'i, 'b> {
    index: &'i Index,
    job: &'b BodyJob<'b>,
    locals: Locals,
    edges: &'b mut BTreeSet<(String, String)>,
    bound: &'b mut CompletenessBound,
}

impl BodyClassifier<'_, '_> {
    /// Enters a site of this body in the bound.
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

    /// Records a call edge from this body's function to the function at `path`.
    fn edge_to(&mut self, path: &str) {
        self.edges
            .insert((self.job.fn_id.clone(), function_node_id(path)));
    }

    /// Classifies a call of a path (`f(x)`, `m::f(x)`, `Self::f(x)`, `T::new(x)`).
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

    /// Classifies a method call (`x.f()`): an edge only for `self.f()` on a known `Self`.
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

impl<'ast> Visit<'ast> for BodyClassifier<'_, '_> {
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

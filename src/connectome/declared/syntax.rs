//! Small readings of `syn` syntax shared by the loader and the extraction passes: where a span
//! starts, whether an item is `#[cfg(test)]`, a path's identifiers, whether a type holds a
//! `dyn Trait`, compact token text. Pure.

use proc_macro2::Span;
use syn::visit::Visit;

/// The 1-based line and column of a span's start.
pub(super) fn line_col(span: Span) -> (u32, u32) {
    let start = span.start();
    (
        u32::try_from(start.line).unwrap_or(u32::MAX),
        u32::try_from(start.column)
            .unwrap_or(u32::MAX)
            .saturating_add(1),
    )
}

/// Whether the attributes hold `#[cfg(test)]`: such items are not part of what can happen.
pub(super) fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| match &a.meta {
        syn::Meta::List(list) if list.path.is_ident("cfg") => list.tokens.to_string() == "test",
        syn::Meta::Path(p) => p.is_ident("test"),
        _ => false,
    })
}

/// The identifiers of a path's segments, in order (generic arguments dropped).
pub(super) fn idents(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// Whether a type mentions a trait object (`dyn Trait`) anywhere inside it.
pub(super) fn has_dyn(ty: &syn::Type) -> bool {
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

/// A token stream's text without the spaces `quote` puts around `::`, `.`, parentheses and
/// after `&`: the form callees and types are written in the bound.
pub(super) fn compact(tokens: &str) -> String {
    tokens
        .replace(" :: ", "::")
        .replace(" . ", ".")
        .replace(" (", "(")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace("& ", "&")
}

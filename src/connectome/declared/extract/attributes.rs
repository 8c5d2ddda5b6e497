//! The attributes and derives whose expansion the compiler or the standard library owns, kept
//! by hand: any other attribute or derive is a macro, and its expansion is not read (an
//! unreadable entry of the completeness bound).

/// Derives of the standard library: their expansions call nothing of the host's.
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

/// Attributes built into rustc (single-segment paths): not macros.
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

/// Roots of tool attributes (`#[rustfmt::skip]`, `#[clippy::…]`): not macros either.
const TOOL_ATTR_ROOTS: &[&str] = &["rustfmt", "clippy", "diagnostic", "rustdoc"];

/// Whether a derive, by its path's segments, is one of the standard library's.
pub(super) fn is_std_derive(path: &[String]) -> bool {
    matches!(path, [name] if STD_DERIVES.contains(&name.as_str()))
}

/// Whether an attribute, by its path's segments, is built in (rustc's own or a tool's), so
/// that it expands to nothing unread.
pub(super) fn is_builtin_attribute(path: &[String]) -> bool {
    match path {
        [name] if BUILTIN_ATTRS.contains(&name.as_str()) => true,
        [root, ..] => TOOL_ATTR_ROOTS.contains(&root.as_str()),
        [] => false,
    }
}

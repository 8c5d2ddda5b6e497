//! The completeness bound: every dynamic dispatch site, every callee outside the scope and
//! every unreadable entry, with file and line — what the declared graph cannot vouch for.

/// Why an entry is in the completeness bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BoundReason {
    /// Dynamic dispatch: a method called on a `dyn Trait` value.
    TraitObjectMethod,
    /// Dynamic dispatch: a method whose receiver type is not known from source, and some
    /// in-scope function has that name.
    UnresolvedMethod,
    /// Dynamic dispatch: a call through a local binding (fn pointer or closure).
    FnPointerOrClosure,
    /// Dynamic dispatch: a call of a computed expression (`(self.f)(x)`, `make()()`).
    CallExpression,
    /// Dynamic dispatch: a path into the scope that names no function read from source
    /// (generic `T::f`, glob imports, trait items).
    UnresolvedPath,
    /// Outside the scope: a path into another crate (std, a dependency).
    ExternalPath,
    /// Outside the scope: a method no in-scope function is named after.
    MethodNotInScope,
    /// Outside the scope: a single-name call found in no module of the scope (the prelude).
    Prelude,
    /// Outside the scope: a tool's dispatch target names no in-scope function.
    DispatchTargetNotInScope,
    /// Unreadable: a file that does not parse.
    ParseError,
    /// Unreadable: a macro invocation, whose expansion is not read.
    MacroBody,
    /// Unreadable: an attribute macro, whose expansion is not read.
    AttributeMacro,
    /// Unreadable: a derive other than the standard library's, whose expansion is not read.
    DeriveMacro,
    /// Unreadable: a `mod name;` whose file was not found.
    MissingModuleFile,
    /// Unreadable: a file that could not be read.
    IoError,
}

impl BoundReason {
    /// The name written in exports.
    pub fn as_str(self) -> &'static str {
        match self {
            BoundReason::TraitObjectMethod => "trait_object_method",
            BoundReason::UnresolvedMethod => "unresolved_method",
            BoundReason::FnPointerOrClosure => "fn_pointer_or_closure",
            BoundReason::CallExpression => "call_expression",
            BoundReason::UnresolvedPath => "unresolved_path",
            BoundReason::ExternalPath => "external_path",
            BoundReason::MethodNotInScope => "method_not_in_scope",
            BoundReason::Prelude => "prelude",
            BoundReason::DispatchTargetNotInScope => "dispatch_target_not_in_scope",
            BoundReason::ParseError => "parse_error",
            BoundReason::MacroBody => "macro_body",
            BoundReason::AttributeMacro => "attribute_macro",
            BoundReason::DeriveMacro => "derive_macro",
            BoundReason::MissingModuleFile => "missing_module_file",
            BoundReason::IoError => "io_error",
        }
    }

    /// The bound list an entry with this reason belongs to.
    pub fn class(self) -> BoundClass {
        use BoundReason::*;
        match self {
            TraitObjectMethod | UnresolvedMethod | FnPointerOrClosure | CallExpression
            | UnresolvedPath => BoundClass::DynamicDispatch,
            ExternalPath | MethodNotInScope | Prelude | DispatchTargetNotInScope => {
                BoundClass::OutsideScope
            }
            ParseError | MacroBody | AttributeMacro | DeriveMacro | MissingModuleFile | IoError => {
                BoundClass::Unreadable
            }
        }
    }
}

/// The three lists of the completeness bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BoundClass {
    /// Dynamic dispatch sites.
    DynamicDispatch,
    /// Callees outside the scope.
    OutsideScope,
    /// Unreadable entries.
    Unreadable,
}

/// One entry of the completeness bound.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BoundEntry {
    /// The file, relative to its package's manifest directory, with `/` separators.
    pub file: Option<String>,
    /// 1-based line (0 when there is no file).
    pub line: u32,
    /// 1-based column, in characters (0 when there is no file).
    pub column: u32,
    /// Why the entry is here.
    pub reason: BoundReason,
    /// The enclosing function's node id, when the site is in a function body.
    pub caller: Option<String>,
    /// The callee as written (a path, `.method`, a macro path, a module name, a tool).
    pub callee: String,
}

/// What the declared graph cannot vouch for, enumerated.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompletenessBound {
    /// Dynamic dispatch sites: trait-object and unresolved method calls, calls through fn
    /// pointers, closures and computed expressions, unresolved paths.
    pub dynamic_dispatch: Vec<BoundEntry>,
    /// Callees outside the scope.
    pub outside_scope: Vec<BoundEntry>,
    /// Unreadable entries: files that do not parse or are missing, macro bodies.
    pub unreadable: Vec<BoundEntry>,
}

impl CompletenessBound {
    /// Adds an entry to the list its reason names.
    pub fn push(&mut self, entry: BoundEntry) {
        match entry.reason.class() {
            BoundClass::DynamicDispatch => self.dynamic_dispatch.push(entry),
            BoundClass::OutsideScope => self.outside_scope.push(entry),
            BoundClass::Unreadable => self.unreadable.push(entry),
        }
    }

    /// Sorts each list (file, line, column, reason, caller, callee) and drops exact repeats.
    pub fn normalize(&mut self) {
        for list in [
            &mut self.dynamic_dispatch,
            &mut self.outside_scope,
            &mut self.unreadable,
        ] {
            list.sort();
            list.dedup();
        }
    }

    /// Whether all three lists are empty.
    pub fn is_empty(&self) -> bool {
        self.dynamic_dispatch.is_empty()
            && self.outside_scope.is_empty()
            && self.unreadable.is_empty()
    }

    /// Every entry, list by list.
    pub fn entries(&self) -> impl Iterator<Item = &BoundEntry> {
        self.dynamic_dispatch
            .iter()
            .chain(&self.outside_scope)
            .chain(&self.unreadable)
    }
}

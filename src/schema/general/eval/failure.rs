//! Why an evaluation stopped early: a failure an applicator may swallow, or an abort none may,
//! and how either becomes the one [`Violation`] a caller sees.

use serde_json::Number;

use super::super::super::error::Violation;
use super::super::super::pointer;
use super::super::super::validate::expected;
use super::super::program::{Keywords, Node, NodeId, Program};
use super::super::MAX_INSTANCE_DEPTH;

/// How many subschema evaluations may nest: four in-place applicators at each of 64 instance
/// levels, and what a 2 MiB worker stack holds even in a debug build
/// (`tests/it/schema_general.rs::the_most_nested_evaluation_fits_a_two_mib_stack`).
pub(super) const MAX_NESTED: u32 = 256;

/// What ended an evaluation early.
pub(super) enum Stop<'v> {
    /// The value does not satisfy the subschema (a branch of `anyOf` may still pass).
    Fail(Box<Fail<'v>>),
    /// Validation as a whole cannot go on: no enclosing applicator may swallow it.
    Abort(Abort),
}

#[derive(Clone, Copy)]
pub(super) enum Abort {
    Budget,
    /// Subschema evaluations nested past [`MAX_NESTED`].
    Nesting,
    /// The instance nests past [`MAX_INSTANCE_DEPTH`] where the validator would follow it.
    Depth,
}

impl Abort {
    pub(super) fn into_violation(self, limit: u64) -> Violation {
        match self {
            Abort::Budget => Violation::new(
                String::new(),
                "budget",
                format!("needs more than the server's budget of {limit} validation steps"),
            ),
            Abort::Nesting => Violation::new(
                String::new(),
                "depth",
                format!("nests deeper than {MAX_NESTED} subschema evaluations"),
            ),
            Abort::Depth => Violation::new(
                String::new(),
                "depth",
                format!("nests deeper than {MAX_INSTANCE_DEPTH} levels"),
            ),
        }
    }
}

/// One step of an instance path, borrowed from the instance.
#[derive(Clone, Copy)]
pub(super) enum Seg<'v> {
    Key(&'v str),
    Index(usize),
}

/// The keyword that failed, with what its message needs.
#[derive(Clone, Copy)]
pub(super) enum Kw {
    Type,
    Enum,
    Const,
    MultipleOf,
    Maximum,
    ExclusiveMaximum,
    Minimum,
    ExclusiveMinimum,
    MaxLength,
    MinLength,
    Pattern,
    MaxItems,
    MinItems,
    UniqueItems,
    Contains,
    MaxProperties,
    MinProperties,
    /// The index into `required`.
    Required(usize),
    /// The indices into `dependentRequired` and its list.
    DependentRequired(usize, usize),
    AdditionalProperties,
    PropertyNames,
    AnyOf,
    OneOfNone,
    OneOfMany,
    Not,
    False,
    UnevaluatedItems,
    UnevaluatedProperties,
}

/// A failure: where (the path, innermost step first), which node and keyword, and the JSON type
/// of the value that failed (for `type` messages).
#[derive(Clone)]
pub(super) struct Fail<'v> {
    pub(super) node: NodeId,
    pub(super) kw: Kw,
    pub(super) got: &'static str,
    pub(super) path: Vec<Seg<'v>>,
}

impl<'v> Fail<'v> {
    pub(super) fn at(mut self: Box<Self>, seg: Seg<'v>) -> Box<Self> {
        self.path.push(seg);
        self
    }

    pub(super) fn into_violation(self, program: &Program) -> Violation {
        let mut path = String::new();
        for seg in self.path.iter().rev() {
            match seg {
                Seg::Key(k) => pointer::push(&mut path, k),
                Seg::Index(i) => {
                    path.push('/');
                    path.push_str(&i.to_string());
                }
            }
        }
        let k = match &program.nodes[self.node as usize] {
            Node::Schema(k) => Some(&**k),
            Node::Bool(_) => None,
        };
        let n = |f: fn(&Keywords) -> Option<&Number>| {
            k.and_then(f).map_or_else(String::new, Number::to_string)
        };
        let c = |f: fn(&Keywords) -> Option<u64>| k.and_then(f).unwrap_or(0);
        let (keyword, message) = match self.kw {
            Kw::Type => (
                "type",
                format!(
                    "expected {}, got {}",
                    expected(k.map_or(&[][..], |k| &k.types)),
                    self.got
                ),
            ),
            Kw::Enum => ("enum", "must be one of the schema's `enum` values".into()),
            Kw::Const => ("const", "must equal the schema's `const` value".into()),
            Kw::MultipleOf => (
                "multipleOf",
                format!("must be a multiple of {}", n(|k| k.multiple_of.as_ref())),
            ),
            Kw::Maximum => (
                "maximum",
                format!("must be <= {}", n(|k| k.maximum.as_ref())),
            ),
            Kw::ExclusiveMaximum => (
                "exclusiveMaximum",
                format!("must be < {}", n(|k| k.exclusive_maximum.as_ref())),
            ),
            Kw::Minimum => (
                "minimum",
                format!("must be >= {}", n(|k| k.minimum.as_ref())),
            ),
            Kw::ExclusiveMinimum => (
                "exclusiveMinimum",
                format!("must be > {}", n(|k| k.exclusive_minimum.as_ref())),
            ),
            Kw::MaxLength => (
                "maxLength",
                format!(
                    "must have at most {} characters (Unicode code points)",
                    c(|k| k.max_length)
                ),
            ),
            Kw::MinLength => (
                "minLength",
                format!(
                    "must have at least {} characters (Unicode code points)",
                    c(|k| k.min_length)
                ),
            ),
            Kw::Pattern => (
                "pattern",
                format!(
                    "must match the pattern `{}`",
                    k.and_then(|k| k.pattern.as_ref())
                        .map_or("", |p| &*p.source)
                ),
            ),
            Kw::MaxItems => (
                "maxItems",
                format!("must have at most {} items", c(|k| k.max_items)),
            ),
            Kw::MinItems => (
                "minItems",
                format!("must have at least {} items", c(|k| k.min_items)),
            ),
            Kw::UniqueItems => ("uniqueItems", "items must be unique".into()),
            Kw::Contains => (
                "contains",
                "must contain items matching `contains` as many times as the schema says".into(),
            ),
            Kw::MaxProperties => (
                "maxProperties",
                format!("must have at most {} properties", c(|k| k.max_properties)),
            ),
            Kw::MinProperties => (
                "minProperties",
                format!("must have at least {} properties", c(|k| k.min_properties)),
            ),
            Kw::Required(i) => (
                "required",
                format!(
                    "missing required property `{}`",
                    k.and_then(|k| k.required.get(i)).map_or("", |s| &**s)
                ),
            ),
            Kw::DependentRequired(i, j) => (
                "required",
                format!(
                    "missing required property `{}`",
                    k.and_then(|k| k.dependent_required.get(i))
                        .and_then(|(_, list)| list.get(j))
                        .map_or("", |s| &**s)
                ),
            ),
            Kw::AdditionalProperties => (
                "additionalProperties",
                "property is not declared by the schema".into(),
            ),
            Kw::PropertyNames => (
                "propertyNames",
                "property name does not satisfy `propertyNames`".into(),
            ),
            Kw::AnyOf => (
                "anyOf",
                "must match at least one of the `anyOf` schemas".into(),
            ),
            Kw::OneOfNone => (
                "oneOf",
                "must match exactly one of the `oneOf` schemas, and matches none".into(),
            ),
            Kw::OneOfMany => (
                "oneOf",
                "must match exactly one of the `oneOf` schemas, and matches more than one".into(),
            ),
            Kw::Not => ("not", "must not match the `not` schema".into()),
            Kw::False => (
                "false",
                "is not allowed here (the schema is `false`)".into(),
            ),
            Kw::UnevaluatedItems => (
                "unevaluatedItems",
                "item is not evaluated by any subschema".into(),
            ),
            Kw::UnevaluatedProperties => (
                "unevaluatedProperties",
                "property is not evaluated by any subschema".into(),
            ),
        };
        Violation::new(path, keyword, message)
    }
}

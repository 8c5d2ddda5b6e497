//! A validator-crate error as a [`Violation`]: the instance path, the keyword, and a message
//! that names the schema's expectation and never the caller's value.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::ValidationError;

use super::super::error::Violation;
use super::super::pointer;
use super::super::validate::kind_of;

/// The keyword a violation reports (`'static`, as [`Violation::keyword`] promises).
fn keyword(kind: &ValidationErrorKind) -> &'static str {
    use ValidationErrorKind as K;
    match kind {
        K::AdditionalItems { .. } => "additionalItems",
        K::AdditionalProperties { .. } => "additionalProperties",
        K::AnyOf { .. } => "anyOf",
        K::BacktrackLimitExceeded { .. } | K::RegexEngineFailure { .. } | K::Pattern { .. } => {
            "pattern"
        }
        K::Constant { .. } => "const",
        K::Contains => "contains",
        K::ContentEncoding { .. } | K::FromUtf8 { .. } => "contentEncoding",
        K::ContentMediaType { .. } => "contentMediaType",
        // No custom keyword is ever registered.
        K::Custom { .. } => "custom",
        K::Enum { .. } => "enum",
        K::ExclusiveMaximum { .. } => "exclusiveMaximum",
        K::ExclusiveMinimum { .. } => "exclusiveMinimum",
        K::FalseSchema => "false",
        K::Format { .. } => "format",
        K::MaxItems { .. } => "maxItems",
        K::Maximum { .. } => "maximum",
        K::MaxLength { .. } => "maxLength",
        K::MaxProperties { .. } => "maxProperties",
        K::MinItems { .. } => "minItems",
        K::Minimum { .. } => "minimum",
        K::MinLength { .. } => "minLength",
        K::MinProperties { .. } => "minProperties",
        K::MultipleOf { .. } => "multipleOf",
        K::Not { .. } => "not",
        K::OneOfMultipleValid { .. } | K::OneOfNotValid { .. } => "oneOf",
        K::PropertyNames { .. } => "propertyNames",
        K::Required { .. } => "required",
        K::Type { .. } => "type",
        K::UnevaluatedItems { .. } => "unevaluatedItems",
        K::UnevaluatedProperties { .. } => "unevaluatedProperties",
        K::UniqueItems => "uniqueItems",
        K::Referencing(_) => "$ref",
    }
}

fn type_names(kind: &TypeKind) -> String {
    let names: Vec<String> = match kind {
        TypeKind::Single(t) => vec![t.to_string()],
        TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
    };
    let mut out = String::new();
    for (i, t) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == names.len() { " or " } else { ", " });
        }
        out.push_str(t);
    }
    out
}

fn message(e: &ValidationError<'_>) -> String {
    use ValidationErrorKind as K;
    match e.kind() {
        K::AdditionalItems { limit } => format!("must have at most {limit} items"),
        K::AdditionalProperties { .. } => "property is not declared by the schema".to_owned(),
        K::AnyOf { .. } => "must match at least one of the `anyOf` schemas".to_owned(),
        K::BacktrackLimitExceeded { .. } | K::RegexEngineFailure { .. } => {
            "could not be matched against the schema's pattern".to_owned()
        }
        K::Pattern { pattern } => format!("must match the pattern `{pattern}`"),
        K::Constant { .. } => "must equal the schema's `const` value".to_owned(),
        K::Contains => {
            "must contain items matching `contains` as many times as the schema says".to_owned()
        }
        K::ContentEncoding { content_encoding } => {
            format!("must be encoded as {content_encoding}")
        }
        K::FromUtf8 { .. } => "must decode to UTF-8".to_owned(),
        K::ContentMediaType { content_media_type } => {
            format!("must be of media type {content_media_type}")
        }
        K::Custom { .. } => "does not satisfy the schema".to_owned(),
        K::Enum { .. } => "must be one of the schema's `enum` values".to_owned(),
        K::ExclusiveMaximum { limit } => format!("must be < {limit}"),
        K::ExclusiveMinimum { limit } => format!("must be > {limit}"),
        K::FalseSchema => "is not allowed here (the schema is `false`)".to_owned(),
        K::Format { format } => format!("must be a valid {format}"),
        K::MaxItems { limit } => format!("must have at most {limit} items"),
        K::Maximum { limit } => format!("must be <= {limit}"),
        K::MaxLength { limit } => {
            format!("must have at most {limit} characters (Unicode code points)")
        }
        K::MaxProperties { limit } => format!("must have at most {limit} properties"),
        K::MinItems { limit } => format!("must have at least {limit} items"),
        K::Minimum { limit } => format!("must be >= {limit}"),
        K::MinLength { limit } => {
            format!("must have at least {limit} characters (Unicode code points)")
        }
        K::MinProperties { limit } => format!("must have at least {limit} properties"),
        K::MultipleOf { multiple_of } => format!("must be a multiple of {multiple_of}"),
        K::Not { .. } => "must not match the `not` schema".to_owned(),
        K::OneOfMultipleValid { .. } => {
            "must match exactly one of the `oneOf` schemas, and matches more than one".to_owned()
        }
        K::OneOfNotValid { .. } => {
            "must match exactly one of the `oneOf` schemas, and matches none".to_owned()
        }
        K::PropertyNames { .. } => "property name does not satisfy `propertyNames`".to_owned(),
        K::Required { property } => match property.as_str() {
            Some(name) => format!("missing required property `{name}`"),
            None => "missing a required property".to_owned(),
        },
        K::Type { kind } => format!(
            "expected {}, got {}",
            type_names(kind),
            kind_of(e.instance())
        ),
        K::UnevaluatedItems { .. } => "item is not evaluated by any subschema".to_owned(),
        K::UnevaluatedProperties { .. } => "property is not evaluated by any subschema".to_owned(),
        K::UniqueItems => "items must be unique".to_owned(),
        K::Referencing(_) => "a reference could not be resolved".to_owned(),
    }
}

/// The violation for `e`. A refused undeclared or unevaluated property, or a property name,
/// is reported at that property's path (as the subset reports `additionalProperties`).
pub(crate) fn from_error(e: &ValidationError<'_>) -> Violation {
    use ValidationErrorKind as K;
    let mut path = e.instance_path().as_str().to_owned();
    match e.kind() {
        K::AdditionalProperties { unexpected } | K::UnevaluatedProperties { unexpected } => {
            if let Some(key) = unexpected.first() {
                pointer::push(&mut path, key);
            }
        }
        K::PropertyNames { error } => {
            if let Some(key) = error.instance().as_str() {
                pointer::push(&mut path, key);
            }
        }
        _ => {}
    }
    Violation::new(path, keyword(e.kind()), message(e))
}

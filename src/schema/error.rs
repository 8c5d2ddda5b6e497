//! The two failures: a schema the server will not enforce, and an instance that violates one.

use std::fmt;

use serde_json::{json, Value};

/// What is wrong with a schema that [`Schema::compile`](super::Schema::compile) refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaErrorKind {
    /// A keyword that is not one of the JSON Schema 2020-12 keywords the server enforces or
    /// carries (a misspelling, a draft-07 `definitions`, `$vocabulary`, an unknown `x-` extension).
    UnsupportedKeyword,
    /// A keyword whose value is not what the keyword takes (`"minLength": -1`,
    /// `"type": "strin"`, a `pattern` the linear-time regex engine cannot compile, a `#`
    /// reference that points at nothing), or a root that is not a JSON object.
    Malformed,
    /// A `$ref` or `$dynamicRef` that is not a `#` reference within the schema itself
    /// (`https://…`, `other.json#/x`): nothing is ever fetched, so it is refused.
    RemoteReference,
    /// Subschemas nested deeper than [`MAX_DEPTH`](super::MAX_DEPTH), or raw JSON (annotations
    /// included) nested deeper than four times that.
    TooDeep,
}

/// A schema refused at compile time, naming where.
///
/// [`pointer`](SchemaError::pointer) is the JSON Pointer (RFC 6901) into the raw schema of the
/// offending value: for a keyword, the keyword itself (`/properties/place/pattern`); for a
/// subschema that is not an object, or one nested too deep, the subschema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    kind: SchemaErrorKind,
    /// Pointer to the schema object holding the problem.
    at: String,
    keyword: Option<String>,
    /// Pointer segments below the keyword (`/1` for the second `required` name), usually empty.
    detail: String,
    reason: &'static str,
}

impl SchemaError {
    pub(crate) fn unsupported(at: &str, keyword: &str) -> Self {
        Self {
            kind: SchemaErrorKind::UnsupportedKeyword,
            at: at.to_owned(),
            keyword: Some(keyword.to_owned()),
            detail: String::new(),
            reason: "not a JSON Schema 2020-12 keyword the server enforces",
        }
    }

    pub(crate) fn remote_reference(at: &str, keyword: &str) -> Self {
        Self {
            kind: SchemaErrorKind::RemoteReference,
            at: at.to_owned(),
            keyword: Some(keyword.to_owned()),
            detail: String::new(),
            reason: "only `#` references within the schema resolve; nothing is fetched",
        }
    }

    /// A malformed value somewhere below `keyword` (`detail` is the rest of the pointer).
    pub(crate) fn malformed_within(
        at: &str,
        keyword: Option<&str>,
        detail: String,
        reason: &'static str,
    ) -> Self {
        Self {
            kind: SchemaErrorKind::Malformed,
            at: at.to_owned(),
            keyword: keyword.map(str::to_owned),
            detail,
            reason,
        }
    }

    pub(crate) fn malformed(at: &str, keyword: &str, reason: &'static str) -> Self {
        Self {
            kind: SchemaErrorKind::Malformed,
            at: at.to_owned(),
            keyword: Some(keyword.to_owned()),
            detail: String::new(),
            reason,
        }
    }

    pub(crate) fn not_a_schema(at: &str, reason: &'static str) -> Self {
        Self {
            kind: SchemaErrorKind::Malformed,
            at: at.to_owned(),
            keyword: None,
            detail: String::new(),
            reason,
        }
    }

    pub(crate) fn too_deep(at: &str) -> Self {
        Self {
            kind: SchemaErrorKind::TooDeep,
            at: at.to_owned(),
            keyword: None,
            detail: String::new(),
            reason: "nested too deep (more than 64 subschemas, or 256 JSON levels)",
        }
    }

    /// What kind of refusal this is.
    pub fn kind(&self) -> SchemaErrorKind {
        self.kind
    }

    /// Whether a keyword the server neither enforces nor carries was refused.
    pub fn is_unsupported_keyword(&self) -> bool {
        self.kind == SchemaErrorKind::UnsupportedKeyword
    }

    /// Whether a `$ref` or `$dynamicRef` outside the schema itself was refused.
    pub fn is_remote_reference(&self) -> bool {
        self.kind == SchemaErrorKind::RemoteReference
    }

    /// Whether a keyword's value (or a subschema) was not well formed.
    pub fn is_malformed(&self) -> bool {
        self.kind == SchemaErrorKind::Malformed
    }

    /// Whether the schema nests deeper than the validator allows.
    pub fn is_too_deep(&self) -> bool {
        self.kind == SchemaErrorKind::TooDeep
    }

    /// The offending keyword, when the refusal is about one.
    pub fn keyword(&self) -> Option<&str> {
        self.keyword.as_deref()
    }

    /// JSON Pointer to the offending value in the raw schema (`/properties/place/pattern`,
    /// `/properties/place/$ref`, `/required/1`).
    pub fn pointer(&self) -> String {
        let mut p = self.at.clone();
        if let Some(k) = &self.keyword {
            super::pointer::push(&mut p, k);
        }
        p.push_str(&self.detail);
        p
    }

    /// Why the value was refused, without the location (`only `#` references within the schema
    /// resolve; nothing is fetched`).
    pub fn reason(&self) -> &'static str {
        self.reason
    }

    /// JSON Pointer to the schema object that holds the offending keyword (`/properties/place`);
    /// `""` is the root schema.
    pub fn schema_pointer(&self) -> &str {
        &self.at
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.at.is_empty() {
            "the root"
        } else {
            &self.at
        };
        match (&self.kind, &self.keyword) {
            (SchemaErrorKind::UnsupportedKeyword, Some(k)) => {
                write!(f, "unsupported keyword `{k}` at {at}")
            }
            (SchemaErrorKind::RemoteReference, Some(k)) => {
                write!(f, "remote `{k}` at {at}: {}", self.reason)
            }
            (_, Some(k)) if !self.detail.is_empty() => write!(
                f,
                "malformed keyword `{k}` at {at} ({}): {}",
                self.pointer(),
                self.reason
            ),
            (_, Some(k)) => write!(f, "malformed keyword `{k}` at {at}: {}", self.reason),
            (_, None) => write!(f, "invalid schema at {at}: {}", self.reason),
        }
    }
}

impl std::error::Error for SchemaError {}

/// The first way an instance fails a schema.
///
/// Messages name the schema's expectation, never the caller's value; the instance path may contain
/// the caller's keys (it points into what the caller sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    path: String,
    keyword: &'static str,
    message: String,
}

impl Violation {
    pub(crate) fn new(path: String, keyword: &'static str, message: String) -> Self {
        Self {
            path,
            keyword,
            message,
        }
    }

    /// JSON Pointer into the instance; `""` is the instance itself.
    pub fn instance_path(&self) -> &str {
        &self.path
    }

    /// The schema keyword that failed (`type`, `required`, `maxLength`, ...).
    pub fn keyword(&self) -> &'static str {
        self.keyword
    }

    /// What was expected, without the path (`expected string, got number`).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// `{"path": ..., "keyword": ..., "message": ...}`, for JSON-RPC error `data`.
    pub fn to_data(&self) -> Value {
        json!({
            "path": self.path,
            "keyword": self.keyword,
            "message": self.message,
        })
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "(root): {}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for Violation {}

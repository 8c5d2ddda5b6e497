//! The `x-mcp-header` annotation rules: which top-level properties of a tool's input schema
//! travel as `Mcp-Param-*` headers, and what makes an annotation forbidden.

use crate::error::HeaderFault;
use crate::schema::{JsonType, Schema};
use serde_json::Value;
use std::sync::Arc;

/// HTTP token characters (RFC 9110 `tchar`): what a header name may be made of.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

pub(super) fn header_annotations(schema: &Schema) -> Result<Vec<(String, Arc<str>)>, HeaderFault> {
    if let Some(pointer) = nested_header(schema.raw(), "", 0) {
        return Err(HeaderFault::NotTopLevel { pointer });
    }
    let mut out: Vec<(String, Arc<str>)> = Vec::new();
    for (prop, info) in schema.properties() {
        let Some(raw) = info.mcp_header() else {
            continue;
        };
        let Some(name) = raw.as_str().filter(|n| is_token(n)) else {
            return Err(HeaderFault::InvalidName {
                property: prop.to_string(),
            });
        };
        let types = info.types();
        let primitive = types.len() == 1
            && matches!(
                types[0],
                JsonType::Integer | JsonType::String | JsonType::Boolean
            );
        if !types.is_empty() && !primitive {
            return Err(HeaderFault::NotPrimitive {
                property: prop.to_string(),
            });
        }
        if out.iter().any(|(h, _)| h.eq_ignore_ascii_case(name)) {
            return Err(HeaderFault::Duplicate {
                header: name.to_string(),
            });
        }
        out.push((name.to_string(), prop.clone()));
    }
    Ok(out)
}

/// Finds an `x-mcp-header` anywhere but on a top-level property.
fn nested_header(v: &Value, pointer: &str, depth: usize) -> Option<String> {
    if let Value::Array(items) = v {
        // Subschema lists (`allOf`, `prefixItems`, ...): no item is a top-level property.
        return items
            .iter()
            .enumerate()
            .find_map(|(i, child)| nested_header(child, &format!("{pointer}/{i}"), depth + 1));
    }
    let obj = v.as_object()?;
    for (k, child) in obj {
        let here = format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1"));
        let top_level_property = depth == 2 && pointer.starts_with("/properties/");
        if k == "x-mcp-header" && !top_level_property {
            return Some(here);
        }
        let annotation_data = matches!(k.as_str(), "default" | "examples" | "const" | "enum");
        if (child.is_object() || child.is_array()) && !annotation_data {
            if let Some(p) = nested_header(child, &here, depth + 1) {
                return Some(p);
            }
        }
    }
    None
}

//! The `_meta` key naming rules of the MCP schema, and the `icons` and `_meta` setters every
//! listed item shares.
//!
//! The rules, from the `MetaObject` definition of the 2026-07-28 schema (the 2025-11-25 schema
//! points to the same text in its specification's "General fields: `_meta`"):
//!
//! - A key is an optional **prefix** and a **name**. The prefix, when present, is a series of
//!   labels separated by dots, followed by a slash. Each label starts with a letter, ends with
//!   a letter or a digit, and has only letters, digits and hyphens inside.
//! - A prefix whose *second* label is `modelcontextprotocol` or `mcp` is reserved for MCP
//!   (`io.modelcontextprotocol/`, `dev.mcp/`, `com.mcp.tools/`; `com.example.mcp/` is not).
//! - The name, unless empty, starts and ends with an alphanumeric character (`[a-zA-Z0-9]`) and
//!   has only alphanumerics, hyphens, underscores and dots inside.
//!
//! "Letter" and "digit" are read as ASCII, as in the DNS names the prefix mirrors. The schema
//! allows an empty name, so `com.example/` is a valid key; so, read literally, is the empty
//! key. The reserved labels are compared ASCII case-insensitively (`io.MCP/` is refused as
//! `io.mcp/` is): DNS names, which the prefix mirrors, do not tell case apart.

use crate::error::MetaKeyFault;

/// A key that follows the naming rules, split into its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MetaKey<'a> {
    /// The prefix without its slash, when the key has one.
    pub(crate) prefix: Option<&'a str>,
    /// The name (possibly empty).
    pub(crate) name: &'a str,
}

impl MetaKey<'_> {
    /// Whether the prefix is reserved for MCP: its second label is `modelcontextprotocol` or
    /// `mcp`, compared ASCII case-insensitively.
    pub(crate) fn is_reserved(&self) -> bool {
        self.prefix
            .and_then(|p| p.split('.').nth(1))
            .is_some_and(|l| {
                l.eq_ignore_ascii_case("modelcontextprotocol") || l.eq_ignore_ascii_case("mcp")
            })
    }
}

/// Splits `key` into prefix and name and checks both against the naming rules. Reservation is
/// not checked here: [`MetaKey::is_reserved`] says it, and each use decides.
pub(crate) fn parse_meta_key(key: &str) -> Result<MetaKey<'_>, MetaKeyFault> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        if let Some(label) = prefix.split('.').find(|l| !is_label(l)) {
            return Err(MetaKeyFault::Label {
                label: label.to_owned(),
            });
        }
    }
    if !is_name(name) {
        return Err(MetaKeyFault::Name {
            name: name.to_owned(),
        });
    }
    Ok(MetaKey { prefix, name })
}

/// A key a host may put in an item's `_meta`: the naming rules, and no reserved prefix.
pub(crate) fn check_host_meta_key(key: &str) -> Result<(), MetaKeyFault> {
    let parsed = parse_meta_key(key)?;
    match parsed.prefix {
        Some(prefix) if parsed.is_reserved() => Err(MetaKeyFault::Reserved {
            prefix: prefix.to_owned(),
        }),
        _ => Ok(()),
    }
}

/// An extension identifier (a key of the 2026-07-28 `capabilities.extensions`): the naming
/// rules with a mandatory prefix. A reserved prefix is accepted: it names an extension MCP
/// itself defines (`io.modelcontextprotocol/ui`, `io.modelcontextprotocol/tasks`), which is
/// exactly what a server declares support for.
pub(crate) fn check_extension_id(id: &str) -> Result<(), MetaKeyFault> {
    match parse_meta_key(id)?.prefix {
        Some(_) => Ok(()),
        None => Err(MetaKeyFault::MissingPrefix),
    }
}

/// A prefix label: a letter first, a letter or digit last, letters, digits and hyphens inside.
fn is_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphabetic()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    }
}

/// A name: empty, or an alphanumeric first and last with alphanumerics, `-`, `_`, `.` inside.
fn is_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (None, _) | (_, None) => true,
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
    }
}

/// `with_icon`, `icons`, `with_meta` and `meta` for a spec with `icons: Vec<Icon>` and
/// `meta: serde_json::Map<String, Value>` fields.
macro_rules! icons_and_meta {
    () => {
        /// Adds an icon (each call adds one, in order), listed as `icons` at both revisions.
        /// [`crate::Server::new`] refuses a `src` that is not an `https:`, `http:` or `data:`
        /// URI ([`crate::catalog::Icon`]).
        #[must_use]
        pub fn with_icon(mut self, icon: crate::catalog::Icon) -> Self {
            self.icons.push(icon);
            self
        }

        /// Sets `_meta[key]` to `value` (a second call with the same key replaces the value),
        /// listed as `_meta` at both revisions. The key must follow the MCP `_meta` naming
        /// rules (an optional reverse-DNS prefix ending in `/`, then a name) and must not use
        /// a prefix reserved for MCP (second label `modelcontextprotocol` or `mcp`):
        /// [`crate::Server::new`] refuses it otherwise, naming the item and the key
        /// ([`crate::ConfigError::MetaKey`]).
        #[must_use]
        pub fn with_meta(mut self, key: impl Into<String>, value: serde_json::Value) -> Self {
            self.meta.insert(key.into(), value);
            self
        }

        /// The icons, in the order added.
        pub fn icons(&self) -> &[crate::catalog::Icon] {
            &self.icons
        }

        /// The `_meta` members, by key.
        pub fn meta(&self) -> &serde_json::Map<String, serde_json::Value> {
            &self.meta
        }
    };
}

pub(crate) use icons_and_meta;

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(key: &str) -> MetaKeyFault {
        match check_host_meta_key(key) {
            Err(f) => f,
            Ok(()) => panic!("{key:?} was accepted"),
        }
    }

    #[test]
    fn keys_the_schema_names_as_examples_are_read_as_it_reads_them() {
        for reserved in [
            "io.modelcontextprotocol/x",
            "dev.mcp/x",
            "org.modelcontextprotocol.api/x",
            "com.mcp.tools/x",
        ] {
            assert!(
                matches!(fault(reserved), MetaKeyFault::Reserved { .. }),
                "{reserved}"
            );
        }
        assert_eq!(check_host_meta_key("com.example.mcp/x"), Ok(()));
        assert_eq!(
            fault("io.MCP/x"),
            MetaKeyFault::Reserved {
                prefix: "io.MCP".into()
            }
        );
        // A one-label prefix has no second label, so `mcp/` is not reserved.
        assert_eq!(check_host_meta_key("mcp/x"), Ok(()));
    }

    #[test]
    fn names_without_a_prefix() {
        for ok in ["ui", "a", "A9", "x.y_z-w", "0", "", "9lives"] {
            assert_eq!(check_host_meta_key(ok), Ok(()), "{ok:?}");
        }
        for bad in ["-a", "a-", "_a", "a_", ".a", "a.", "a b", "é", "a:b", "a\n"] {
            assert_eq!(
                fault(bad),
                MetaKeyFault::Name { name: bad.into() },
                "{bad:?}"
            );
        }
    }

    #[test]
    fn prefixes_and_their_labels() {
        for ok in [
            "com.example/x",
            "com.example/",
            "a/b",
            "a1.b-2.c/d",
            "Com.Example/x",
        ] {
            assert_eq!(check_host_meta_key(ok), Ok(()), "{ok:?}");
        }
        for (bad, label) in [
            ("/x", ""),
            ("com..example/x", ""),
            ("com./x", ""),
            ("1com.example/x", "1com"),
            ("com.example-/x", "example-"),
            ("com.ex_ample/x", "ex_ample"),
            ("com.-example/x", "-example"),
            ("c m/x", "c m"),
        ] {
            assert_eq!(
                fault(bad),
                MetaKeyFault::Label {
                    label: label.into()
                },
                "{bad:?}"
            );
        }
        // A second slash is part of the name, where no slash may be.
        assert_eq!(
            fault("com.example/a/b"),
            MetaKeyFault::Name { name: "a/b".into() }
        );
    }

    #[test]
    fn extension_identifiers_need_a_prefix_and_may_be_reserved() {
        assert_eq!(check_extension_id("io.modelcontextprotocol/ui"), Ok(()));
        assert_eq!(check_extension_id("com.example/maps"), Ok(()));
        assert_eq!(check_extension_id("ui"), Err(MetaKeyFault::MissingPrefix));
        assert_eq!(check_extension_id(""), Err(MetaKeyFault::MissingPrefix));
        assert_eq!(
            check_extension_id("com.example/-x"),
            Err(MetaKeyFault::Name { name: "-x".into() })
        );
        assert_eq!(
            check_extension_id("com.exa mple/x"),
            Err(MetaKeyFault::Label {
                label: "exa mple".into()
            })
        );
    }

    #[test]
    fn a_parsed_key_has_its_parts() {
        let k = parse_meta_key("org.modelcontextprotocol.api/v1.x").unwrap();
        assert_eq!(k.prefix, Some("org.modelcontextprotocol.api"));
        assert_eq!(k.name, "v1.x");
        assert!(k.is_reserved());
        let k = parse_meta_key("plain").unwrap();
        assert_eq!((k.prefix, k.name, k.is_reserved()), (None, "plain", false));
    }
}

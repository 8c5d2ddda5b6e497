//! One opaque keyset cursor for every list.
//!
//! A cursor names the list it belongs to and the key of the last item of the page it ended,
//! never an offset: the next page starts after that key, so a list that gains or loses items
//! between pages never skips an item that was there before. The cursor is tagged with
//! HMAC-SHA-256 under the server's cursor key, so a forged or corrupted cursor is refused
//! rather than followed. The key comes from the caller: [`crate::Server::new`] draws one from
//! the OS per process unless the host sets one (hosts running several replicas behind one
//! address set the same key on each). This module does no IO.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use std::fmt;

/// The lists a cursor can belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListKind {
    /// `tools/list`
    Tools,
    /// `resources/list`
    Resources,
    /// `resources/templates/list`
    ResourceTemplates,
    /// `prompts/list`
    Prompts,
}

impl ListKind {
    fn tag(self) -> u8 {
        match self {
            ListKind::Tools => b't',
            ListKind::Resources => b'r',
            ListKind::ResourceTemplates => b'u',
            ListKind::Prompts => b'p',
        }
    }

    fn from_tag(b: u8) -> Option<ListKind> {
        Some(match b {
            b't' => ListKind::Tools,
            b'r' => ListKind::Resources,
            b'u' => ListKind::ResourceTemplates,
            b'p' => ListKind::Prompts,
            _ => return None,
        })
    }

    /// The method the list is served by.
    pub fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "tools/list",
            ListKind::Resources => "resources/list",
            ListKind::ResourceTemplates => "resources/templates/list",
            ListKind::Prompts => "prompts/list",
        }
    }
}

/// Why a cursor was refused (-32602).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CursorError {
    /// Not a cursor this server could have written: bad encoding, bad tag, truncated.
    Corrupt,
    /// A valid cursor of another list.
    WrongList {
        /// The list it belongs to.
        belongs_to: ListKind,
    },
}

impl fmt::Display for CursorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CursorError::Corrupt => f.write_str("invalid cursor"),
            CursorError::WrongList { belongs_to } => {
                write!(f, "cursor belongs to {}", belongs_to.method())
            }
        }
    }
}

impl std::error::Error for CursorError {}

const TAG_LEN: usize = 16;

/// Writes and reads cursors under one key.
#[derive(Clone)]
pub struct CursorCodec {
    key: [u8; 32],
}

impl fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CursorCodec { key: <redacted> }")
    }
}

impl CursorCodec {
    /// A codec under `key`.
    pub fn new(key: [u8; 32]) -> Self {
        CursorCodec { key }
    }

    fn mac(&self, payload: &[u8]) -> [u8; TAG_LEN] {
        let mut out = [0u8; TAG_LEN];
        // HMAC accepts keys of any length, so this cannot fail for a 32-byte key.
        if let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.key) {
            mac.update(payload);
            out.copy_from_slice(&mac.finalize().into_bytes()[..TAG_LEN]);
        }
        out
    }

    /// A cursor positioned after `last_key` in `list`.
    pub fn encode(&self, list: ListKind, last_key: &str) -> String {
        let mut payload = Vec::with_capacity(1 + last_key.len() + TAG_LEN);
        payload.push(list.tag());
        payload.extend_from_slice(last_key.as_bytes());
        let tag = self.mac(&payload);
        payload.extend_from_slice(&tag);
        URL_SAFE_NO_PAD.encode(payload)
    }

    /// The key a cursor of `list` resumes after.
    ///
    /// # Errors
    /// [`CursorError::Corrupt`] for anything this codec did not write;
    /// [`CursorError::WrongList`] for a cursor of another list.
    pub fn decode(&self, list: ListKind, cursor: &str) -> Result<String, CursorError> {
        let bytes = URL_SAFE_NO_PAD
            .decode(cursor)
            .map_err(|_| CursorError::Corrupt)?;
        if bytes.len() < 1 + TAG_LEN {
            return Err(CursorError::Corrupt);
        }
        let (payload, tag) = bytes.split_at(bytes.len() - TAG_LEN);
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.key).map_err(|_| CursorError::Corrupt)?;
        mac.update(payload);
        mac.verify_truncated_left(tag)
            .map_err(|_| CursorError::Corrupt)?;
        let kind = ListKind::from_tag(payload[0]).ok_or(CursorError::Corrupt)?;
        if kind != list {
            return Err(CursorError::WrongList { belongs_to: kind });
        }
        String::from_utf8(payload[1..].to_vec()).map_err(|_| CursorError::Corrupt)
    }
}

/// One page of a sorted list: the index range to serve, and the key the next page resumes after.
///
/// `items` must be sorted ascending by `key`, keys unique. The page starts at the first item
/// whose key is strictly greater than `after` (the whole list when `after` is `None`).
pub(crate) fn page<'a, T>(
    items: &'a [T],
    key: impl Fn(&T) -> &str,
    after: Option<&str>,
    size: usize,
) -> (std::ops::Range<usize>, Option<&'a str>) {
    let start = match after {
        None => 0,
        Some(k) => items.partition_point(|x| key(x) <= k),
    };
    let end = start.saturating_add(size.max(1)).min(items.len());
    let next = if end < items.len() && end > start {
        Some(key(&items[end - 1]))
    } else {
        None
    };
    (start..end, next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    #[test]
    fn a_page_ends_where_the_next_resumes() {
        let keys = ["a", "b", "c"];
        let (range, next) = page(&keys, |k| k, None, 2);
        assert_eq!((range, next), (0..2, Some("b")));
        let (range, next) = page(&keys, |k| k, Some("b"), 2);
        assert_eq!((range, next), (2..3, None));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        /// Between every two page fetches the list gains and loses items; every item that was there
        /// at the start and never deleted is still served exactly once, in order.
        #[test]
        fn a_changing_list_never_skips_a_pre_existing_item(
            initial in prop::collection::btree_set("[a-z]{1,4}", 0..60),
            edits in prop::collection::vec((prop::collection::vec("[a-z]{1,4}", 0..4), prop::collection::vec(0usize..100, 0..3)), 0..40),
            size in 1usize..8,
        ) {
            let codec = CursorCodec::new([7; 32]);
            let mut list: BTreeSet<String> = initial.clone();
            let mut deleted = BTreeSet::new();
            let mut served = Vec::new();
            let mut cursor: Option<String> = None;
            let mut round = 0;
            loop {
                let keys: Vec<&String> = list.iter().collect();
                let after = cursor.as_deref().map(|c| codec.decode(ListKind::Tools, c).unwrap());
                let (range, next) = page(&keys, |k| k.as_str(), after.as_deref(), size);
                served.extend(keys[range].iter().map(|k| (*k).clone()));
                let next = next.map(|k| codec.encode(ListKind::Tools, k));
                drop(keys);
                let Some(n) = next else { break };
                cursor = Some(n);
                if let Some((adds, dels)) = edits.get(round) {
                    for a in adds { list.insert(a.clone()); }
                    for d in dels {
                        if let Some(k) = list.iter().nth(*d % list.len().max(1)).cloned() {
                            list.remove(&k);
                            deleted.insert(k);
                        }
                    }
                }
                round += 1;
                prop_assert!(round < 10_000);
            }
            for k in initial.difference(&deleted) {
                prop_assert!(served.contains(k), "skipped {k}");
            }
            let mut sorted = served.clone();
            sorted.sort();
            sorted.dedup();
            prop_assert_eq!(sorted, served, "served out of order or twice");
        }
    }
}

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

/// One page of a sorted list: its entries, and the key the next page resumes after.
///
/// `rest` yields the items the caller may see whose key is strictly greater than the
/// cursor's (the whole list without one), ascending by `key`, keys unique. The page is the
/// first `size` of them (at least one), each mapped by `entry`; the next cursor's key is the
/// page's last, only when another item follows it: a list never ends on a page that promises
/// more and holds nothing, which would tell a caller that items it cannot see exist.
pub(crate) fn page<'a, T: ?Sized + 'a, E>(
    mut rest: impl Iterator<Item = &'a T>,
    key: impl Fn(&'a T) -> &'a str,
    entry: impl Fn(&'a T) -> E,
    size: usize,
) -> (Vec<E>, Option<&'a str>) {
    let size = size.max(1);
    let mut entries = Vec::with_capacity(size.min(64));
    let mut last = None;
    for item in rest.by_ref().take(size) {
        entries.push(entry(item));
        last = Some(item);
    }
    let next = last.filter(|_| rest.next().is_some()).map(key);
    (entries, next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    #[test]
    fn a_page_ends_where_the_next_resumes() {
        let keys = ["a", "b", "c"];
        let (entries, next) = page(keys.iter().copied(), |k| k, |k| k, 2);
        assert_eq!((entries, next), (vec!["a", "b"], Some("b")));
        let (entries, next) = page(keys[2..].iter().copied(), |k| k, |k| k, 2);
        assert_eq!((entries, next), (vec!["c"], None));
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
                let after = cursor.as_deref().map(|c| codec.decode(ListKind::Tools, c).unwrap());
                let rest = list.iter().filter(|k| after.as_ref().is_none_or(|a| *k > a));
                let (entries, next) = page(rest, |k| k.as_str(), |k| k.clone(), size);
                served.extend(entries);
                let next = next.map(|k| codec.encode(ListKind::Tools, k));
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

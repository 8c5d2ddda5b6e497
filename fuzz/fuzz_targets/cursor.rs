//! The keyset cursor codec: `CursorCodec::decode` on any string.
//!
//! Invariants: decoding never panics; what it accepts re-encodes to a cursor that decodes to
//! the same key; a cursor is bound to its list (decoding it for another list is refused); any
//! key round-trips through encode and decode; a cursor with one character changed is refused.
#![no_main]

use beam_mcp::__fuzz::{CursorCodec, ListKind};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

const LISTS: [ListKind; 4] = [
    ListKind::Tools,
    ListKind::Resources,
    ListKind::ResourceTemplates,
    ListKind::Prompts,
];

#[derive(Arbitrary, Debug)]
struct Input {
    list: u8,
    cursor: String,
    key: String,
    flip: usize,
}

fuzz_target!(|input: Input| {
    let codec = CursorCodec::new([7; 32]);
    let list = LISTS[usize::from(input.list) % LISTS.len()];
    let other = LISTS[(usize::from(input.list) + 1) % LISTS.len()];
    if let Ok(key) = codec.decode(list, &input.cursor) {
        let again = codec.encode(list, &key);
        assert_eq!(
            codec.decode(list, &again).ok().as_deref(),
            Some(key.as_str())
        );
        assert!(codec.decode(other, &input.cursor).is_err());
    }
    let cursor = codec.encode(list, &input.key);
    assert_eq!(
        codec.decode(list, &cursor).ok().as_deref(),
        Some(input.key.as_str())
    );
    assert!(
        codec.decode(other, &cursor).is_err(),
        "a cursor crossed lists"
    );
    let mut bytes = cursor.clone().into_bytes();
    if !bytes.is_empty() {
        let i = input.flip % bytes.len();
        let replacement = if bytes[i] == b'A' { b'B' } else { b'A' };
        bytes[i] = replacement;
        if let Ok(tampered) = String::from_utf8(bytes) {
            // Base64 padding bits can differ without changing the bytes decoded; any other
            // change must break the tag.
            if let Ok(key) = codec.decode(list, &tampered) {
                assert_eq!(key, input.key, "a tampered cursor decoded to another key");
            }
        }
    }
});

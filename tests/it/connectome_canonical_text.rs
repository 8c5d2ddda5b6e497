//! `canonicalize_json` on JSON *texts*, against an independent derivation of
//! docs/connectome-canonical.md §1 in Python (`tests/it/support/canonical_reference.py`, standard
//! library only): long floats (17–25 significant digits), repeated keys, escapes with surrogate
//! pairs and lone surrogates, astral-plane keys and NFC-equal key pairs. Both must write the
//! same bytes, or both refuse (and a refusal for a repeated key is one on both sides).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

use beam_mcp::connectome::canonical::{
    canonicalize_json, seal, verify, CanonicalError, DigestAlgorithm, MAX_PARSE_DEPTH,
};
use proptest::prelude::*;

/// One python3 process for the whole test binary, answering one line per input.
struct Reference {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

static REFERENCE: Mutex<Option<Reference>> = Mutex::new(None);

#[derive(Debug, PartialEq, Eq)]
enum Answer {
    Bytes(Vec<u8>),
    Refused(String),
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn reference(text: &[u8]) -> Answer {
    let mut guard = REFERENCE.lock().unwrap_or_else(|e| e.into_inner());
    let r = guard.get_or_insert_with(|| {
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/it/support/canonical_reference.py"
        );
        let mut child = Command::new("python3")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        Reference {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            _child: child,
        }
    });
    writeln!(r.stdin, "{}", hex(text)).unwrap();
    r.stdin.flush().unwrap();
    let mut line = String::new();
    r.stdout.read_line(&mut line).unwrap();
    let line = line.trim_end();
    match line.split_once(' ') {
        Some(("ok", h)) => Answer::Bytes(unhex(h)),
        Some(("refused", why)) => Answer::Refused(why.to_owned()),
        _ => panic!("reference answered {line:?}"),
    }
}

fn crate_answer(text: &[u8]) -> Answer {
    match canonicalize_json(text) {
        Ok(bytes) => Answer::Bytes(bytes),
        Err(e) if e.is_duplicate_key() => Answer::Refused("duplicate".to_owned()),
        Err(e) if e.is_out_of_range() => Answer::Refused("range".to_owned()),
        Err(e) if e.is_parse() => Answer::Refused("parse".to_owned()),
        Err(e) => panic!("unexpected refusal {e}"),
    }
}

/// Same bytes, or both refuse; a repeated key is a repeated key on both sides.
fn agree(text: &[u8]) -> Result<(), String> {
    let ours = crate_answer(text);
    let theirs = reference(text);
    let same = match (&ours, &theirs) {
        (Answer::Bytes(a), Answer::Bytes(b)) => a == b,
        (Answer::Refused(a), Answer::Refused(b)) => (a == "duplicate") == (b == "duplicate"),
        _ => false,
    };
    if same {
        Ok(())
    } else {
        Err(format!(
            "input {:?}: crate {:?}, reference {:?}",
            String::from_utf8_lossy(text),
            show(&ours),
            show(&theirs)
        ))
    }
}

fn show(a: &Answer) -> String {
    match a {
        Answer::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Answer::Refused(why) => format!("refused ({why})"),
    }
}

// ---- generated JSON texts ----

/// A number token: long mantissas (17–25 significant digits) with exponents, integers around
/// ±2^53, short decimals, negative zeros.
fn number() -> impl Strategy<Value = String> {
    let long = (
        any::<bool>(),
        prop::collection::vec(0u8..10, 17..=25),
        0usize..26,
        prop::option::of(-30i32..30),
    )
        .prop_map(|(neg, digits, point, exp)| {
            let mut d: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
            if d.starts_with('0') {
                d.replace_range(0..1, "5");
            }
            let point = point.min(d.len());
            let mut s = String::new();
            if neg {
                s.push('-');
            }
            if point == 0 {
                s.push_str("0.");
                s.push_str(&d);
            } else if point == d.len() {
                s.push_str(&d);
                if exp.is_none() {
                    s.push_str(".0");
                }
            } else {
                s.push_str(&d[..point]);
                s.push('.');
                s.push_str(&d[point..]);
            }
            if let Some(e) = exp {
                s.push_str(&format!("e{e}"));
            }
            s
        });
    let near_limit = (-3i64..=3, any::<bool>(), 0u8..10).prop_map(|(off, neg, frac)| {
        let v = 9_007_199_254_740_991i64 + off;
        let sign = if neg { "-" } else { "" };
        if frac == 0 {
            format!("{sign}{v}")
        } else {
            format!("{sign}{v}.{frac}")
        }
    });
    prop_oneof![
        4 => long,
        2 => near_limit,
        1 => any::<i32>().prop_map(|i| i.to_string()),
        1 => (any::<i16>(), 1u32..1000, -8i32..8).prop_map(|(a, b, e)| format!("{a}.{b}e{e}")),
        1 => prop::sample::select(vec![
            "-0", "-0.0", "0e5", "-0e-5", "1e400", "-1e400", "1e-400", "5e-324", "2.5e-324",
            "1E2", "1e+2", "0.000001", "1e-7", "123456789012345680000", "1.5e16",
            "9007199254740993", "18446744073709551616", "-9223372036854775809",
            "1509805100944860.25", "NaN", "01", "1.", ".5", "+1",
        ])
        .prop_map(str::to_owned),
    ]
}

/// One piece of a string literal's body, as written in the JSON text.
fn string_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::char::range('a', 'z').prop_map(String::from),
        1 => prop::char::range('\u{a0}', '\u{2fff}').prop_map(String::from),
        1 => prop::char::range('\u{10000}', '\u{1faff}').prop_map(String::from),
        1 => any::<char>()
            .prop_filter("not a JSON control or quote", |c| *c >= ' ' && *c != '"' && *c != '\\')
            .prop_map(String::from),
        // escapes: the short ones, \u of any BMP non-surrogate, surrogate pairs, lone ones
        1 => prop::sample::select(vec![
            "\\n", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t", "\\u0000", "\\u001F",
            "\\u007f", "\\u2028", "\\u00E9", "e\\u0301", "\\u212b", "A\\u030a", "\\u1e0b\\u0323",
        ])
        .prop_map(str::to_owned),
        1 => prop::char::range('\u{10000}', '\u{10ffff}').prop_map(|c| {
            let mut units = [0u16; 2];
            c.encode_utf16(&mut units);
            format!("\\u{:04x}\\u{:04X}", units[0], units[1])
        }),
        1 => prop::char::range('\u{20}', '\u{d7ff}').prop_map(|c| format!("\\u{:04x}", u32::from(c))),
        // a lone surrogate, rarely: almost every text holding one is refused whole
        1 => (0xd800u32..0xe000).prop_filter("rare", |u| u % 16 == 0).prop_map(|u| format!("\\u{u:04x}")),
    ]
}

fn string_body() -> impl Strategy<Value = String> {
    prop::collection::vec(string_piece(), 0..5).prop_map(|p| p.concat())
}

/// Keys from a small pool (so repeats and NFC-equal pairs are common), or generated.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "a", "b", "A", "\u{e9}", "e\u{301}", "\\u00e9", "e\\u0301", "\u{c5}", "\u{212b}",
            "\\u212B", "\u{1f600}", "\\ud83d\\ude00", "\u{ff61}", "\u{10000}", "",
        ])
        .prop_map(str::to_owned),
        2 => string_body(),
    ]
}

fn ws() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "", "", " ", "\n", "\t ", "\r\n"])
}

fn text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        1 => Just("null".to_owned()),
        1 => Just("true".to_owned()),
        1 => Just("false".to_owned()),
        4 => number(),
        3 => string_body().prop_map(|b| format!("\"{b}\"")),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec((ws(), inner.clone()), 0..5).prop_map(|items| {
                let body: Vec<String> = items.into_iter().map(|(w, v)| format!("{w}{v}")).collect();
                format!("[{}]", body.join(","))
            }),
            prop::collection::vec((ws(), key(), ws(), inner), 0..5).prop_map(|members| {
                let body: Vec<String> = members
                    .into_iter()
                    .map(|(w, k, w2, v)| format!("{w}\"{k}\"{w2}:{v}"))
                    .collect();
                format!("{{{}}}", body.join(","))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn agrees_with_the_independent_derivation(t in text(), w in ws()) {
        let text = format!("{w}{t}{w}");
        agree(text.as_bytes()).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn every_long_number_agrees(n in number()) {
        agree(n.as_bytes()).map_err(TestCaseError::fail)?;
    }
}

// ---- decided cases, each stated on the page ----

fn canon(text: &str) -> Result<String, CanonicalError> {
    canonicalize_json(text.as_bytes()).map(|b| String::from_utf8(b).unwrap())
}

#[test]
fn long_decimals_are_read_correctly_rounded() {
    assert_eq!(
        canon("0.56321223307924402685995e10").unwrap(),
        "5632122330.79244"
    );
    for text in [
        "0.56321223307924402685995e10",
        "2.2250738585072011e-308",
        "9007199254740991.4",
        "1.00000000000000011102230246251565404236316680908203125",
        "1.00000000000000011102230246251565404236316680908203124",
        "1.00000000000000011102230246251565404236316680908203126",
    ] {
        agree(text.as_bytes()).unwrap();
    }
}

#[test]
fn the_range_rule_applies_to_the_binary64_value_of_a_fraction() {
    // 9007199254740991.4 reads as the double 9007199254740991: in range, written as such.
    assert_eq!(canon("9007199254740991.4").unwrap(), "9007199254740991");
    // .5 is a tie that rounds to the even 9007199254740992: out of range.
    assert!(canon("9007199254740991.5").unwrap_err().is_out_of_range());
    // An integer token is judged by its exact value.
    assert!(canon("9007199254740992").unwrap_err().is_out_of_range());
    assert!(canon("-9007199254740992").unwrap_err().is_out_of_range());
    assert_eq!(canon("-9007199254740991").unwrap(), "-9007199254740991");
}

#[test]
fn repeated_keys_are_refused_verbatim_or_after_nfc() {
    for text in [
        r#"{"a":1,"a":2}"#,
        r#"{"a":1,"a":1}"#,
        r#"{"x":{"a":1,"b":2,"a":3}}"#,
        "{\"\u{e9}\":1,\"e\u{301}\":2}",
        r#"{"\u00e9":1,"e\u0301":2}"#,
        "{\"\u{212b}\":1,\"\u{c5}\":2}",
        r#"{"\ud83d\ude00":1,"😀":2}"#,
    ] {
        let e = canon(text).unwrap_err();
        assert!(e.is_duplicate_key(), "{text}: {e}");
        agree(text.as_bytes()).unwrap();
    }
    assert_eq!(
        canon(r#"{"a":{"a":1},"b":{"a":2}}"#).unwrap(),
        r#"{"a":{"a":1},"b":{"a":2}}"#
    );
}

#[test]
fn verify_refuses_a_repeated_member() {
    let sealed = seal(
        "observed",
        serde_json::json!({"n": 1}),
        DigestAlgorithm::Sha256,
    )
    .unwrap();
    let text = String::from_utf8(sealed.bytes.clone()).unwrap();
    // The repeat comes last, so a last-one-wins reader would see the original document.
    let twice = text.replacen("{\"body\":", "{\"body\":{\"n\":2},\"body\":", 1);
    assert!(verify(twice.as_bytes()).unwrap_err().is_duplicate_key());
    assert!(verify(&sealed.bytes).is_ok());
}

#[test]
fn lone_surrogates_a_byte_order_mark_and_non_numbers_are_parse_refusals() {
    for text in [
        r#""\ud800""#,
        r#""\udc00""#,
        r#""\ud83d\u0041""#,
        r#""\ud83d""#,
        r#"{"\udfff":1}"#,
        "\u{feff}{}",
        "NaN",
        "Infinity",
        "-Infinity",
        "1e400",
        "-1e400",
        "01",
        "",
    ] {
        let e = canon(text).unwrap_err();
        assert!(e.is_parse(), "{text}: {e}");
        assert_eq!(
            reference(text.as_bytes()),
            Answer::Refused("parse".into()),
            "{text}"
        );
    }
    assert_eq!(canon(r#""\ud83d\ude00""#).unwrap(), "\"\u{1f600}\"");
}

#[test]
fn noncharacters_are_written_not_refused() {
    for (text, written) in [
        (r#""\uffff""#, "\"\u{ffff}\""),
        (r#"{"\ufdd0":"\ufffe"}"#, "{\"\u{fdd0}\":\"\u{fffe}\"}"),
    ] {
        assert_eq!(canon(text).unwrap(), written, "{text}");
        agree(text.as_bytes()).unwrap();
    }
}

#[test]
fn negative_zero_is_written_zero_whatever_its_spelling() {
    for text in ["-0", "-0.0", "-0e3", "-1e-400", "0.0"] {
        assert_eq!(canon(text).unwrap(), "0", "{text}");
        agree(text.as_bytes()).unwrap();
    }
}

#[test]
fn of_two_equally_close_shortest_strings_the_even_one_is_written() {
    // 1509805100944860.25 is a double: 1509805100944860.2 and …860.3 both read back as it.
    assert_eq!(canon("1509805100944860.25").unwrap(), "1509805100944860.2");
    agree(b"1509805100944860.25").unwrap();
}

#[test]
fn nesting_is_read_to_the_stated_depth_and_no_deeper() {
    let at = format!(
        "{}{}",
        "[".repeat(MAX_PARSE_DEPTH),
        "]".repeat(MAX_PARSE_DEPTH)
    );
    let over = format!(
        "{}{}",
        "[".repeat(MAX_PARSE_DEPTH + 1),
        "]".repeat(MAX_PARSE_DEPTH + 1)
    );
    assert_eq!(canon(&at).unwrap(), at);
    assert!(canon(&over).unwrap_err().is_parse());
    agree(at.as_bytes()).unwrap();
    agree(over.as_bytes()).unwrap();
}

#[test]
fn the_page_states_the_unicode_version_of_nfc() {
    let (major, minor, patch) = unicode_normalization::UNICODE_VERSION;
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/connectome-canonical.md"
    ))
    .unwrap();
    let stated = format!("Unicode {major}.{minor}.{patch}");
    assert!(
        page.contains(&stated),
        "docs/connectome-canonical.md must name {stated}"
    );
}

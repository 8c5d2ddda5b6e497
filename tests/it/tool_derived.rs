//! Where a derived schema and its type meet at the edges. Held: each integer and `f32` is
//! bounded by its width (tightening a host's wider `range`), a `serde_json::Value` field derives
//! a schema both revisions list, a second handler replaces the first's derived schemas, the
//! SEP-2106 shapes validate at both revisions, icon sources are RFC 3986 URIs or base64 image
//! data. And what schemars cannot say — an integer map key's width, `format`s such as `ip`, a
//! `Duration`'s overflow, an alias sent beside its name, integer-keyed maps through serde's
//! buffered paths — is admitted and refused by decoding: -32603 with nothing of the value
//! ("Typed tools" in docs/embedding.md names these and what a host does instead).

use crate::support::spec;

use beam_mcp::catalog::Icon;
use beam_mcp::{Answer, Args, Carrier, Catalog, Json, Server, ServerConfig, ToolOutput, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use spec::Spec;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroI8;
use std::time::{Duration, SystemTime};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

async fn ask(server: &Server, revision: &str, method: &str, mut params: Value) -> Value {
    if revision == MODERN {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}
        });
    }
    let frame = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    match server
        .answer(&serde_json::to_vec(&frame).unwrap(), Carrier::Stdio)
        .await
    {
        Answer::Reply(r) => serde_json::from_slice(r.bytes()).unwrap(),
        other => panic!("{method}: no reply: {other:?}"),
    }
}

async fn call(server: &Server, tool: &str, args: Value) -> Value {
    ask(
        server,
        MODERN,
        "tools/call",
        json!({"name": tool, "arguments": args}),
    )
    .await
}

/// The JSON-RPC error code, if the reply is an error.
fn code(reply: &Value) -> Option<i64> {
    reply["error"]["code"].as_i64()
}

/// Sends each `(tool, args)`, each admitted by the derived schema and refused by decoding: the
/// host's type says what its schema could not, answered -32603 with no data.
async fn assert_refused_by_decoding(s: &Server, cases: &[(&str, Value)]) {
    for (tool, args) in cases {
        let r = call(s, tool, args.clone()).await;
        assert_eq!(code(&r), Some(-32603), "{tool} {args}: {r}");
        assert!(r["error"].get("data").is_none(), "{tool} {args}: {r}");
    }
}

// ---------------------------------------------------------------------------------------------
// Maps keyed by integers, bools or chars: schemars's key pattern has no width, and a bool or
// char key no pattern at all.

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct U8Keys {
    m: HashMap<u8, String>,
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct I8Keys {
    m: BTreeMap<i8, u8>,
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct BoolKeys {
    m: HashMap<bool, u8>,
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct CharKeys {
    m: HashMap<char, u8>,
}

#[tokio::test(flavor = "current_thread")]
async fn limit_a_map_key_the_key_type_cannot_hold() {
    let s = Server::new(ServerConfig::new(
        Catalog::new()
            .tool(
                ToolSpec::new("u8keys", "d")
                    .with_handler(|Args(v): Args<U8Keys>| async { Json(v) }),
            )
            .tool(
                ToolSpec::new("i8keys", "d")
                    .with_handler(|Args(v): Args<I8Keys>| async { Json(v) }),
            )
            .tool(
                ToolSpec::new("boolkeys", "d")
                    .with_handler(|Args(v): Args<BoolKeys>| async { Json(v) }),
            )
            .tool(
                ToolSpec::new("charkeys", "d")
                    .with_handler(|Args(v): Args<CharKeys>| async { Json(v) }),
            ),
    ))
    .unwrap();
    assert_refused_by_decoding(
        &s,
        &[
            ("u8keys", json!({"m": {"300": "x"}})),
            ("i8keys", json!({"m": {"-129": 1}})),
            ("boolkeys", json!({"m": {"maybe": 1}})),
            ("charkeys", json!({"m": {"ab": 1}})),
        ],
    )
    .await;
    let r = call(&s, "u8keys", json!({"m": {"255": "x"}})).await;
    assert_eq!(
        r["result"]["structuredContent"],
        json!({"m": {"255": "x"}}),
        "{r}"
    );
}

// ---------------------------------------------------------------------------------------------
// An integer-keyed map reached through serde's buffered paths (flatten, internally tagged,
// untagged) never decodes, even with a key the type holds: serde's limit, the host's type.

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct FlatIntMap {
    id: u8,
    #[serde(flatten)]
    rest: BTreeMap<u16, String>,
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind")]
enum TaggedMap {
    A { m: HashMap<u8, String> },
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct HoldsTagged {
    t: TaggedMap,
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
enum UntaggedMap {
    A { m: HashMap<u8, String> },
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct HoldsUntagged {
    t: UntaggedMap,
}

#[tokio::test(flavor = "current_thread")]
async fn limit_an_integer_keyed_map_behind_flatten_or_an_enum() {
    let s = Server::new(ServerConfig::new(
        Catalog::new()
            .tool(
                ToolSpec::new("flat", "d")
                    .with_handler(|Args(v): Args<FlatIntMap>| async { Json(v) }),
            )
            .tool(
                ToolSpec::new("tagged", "d")
                    .with_handler(|Args(v): Args<HoldsTagged>| async { Json(v) }),
            )
            .tool(
                ToolSpec::new("untagged", "d")
                    .with_handler(|Args(v): Args<HoldsUntagged>| async { Json(v) }),
            ),
    ))
    .unwrap();
    assert_refused_by_decoding(
        &s,
        &[
            ("flat", json!({"id": 1, "7": "x"})),
            ("tagged", json!({"t": {"kind": "A", "m": {"7": "x"}}})),
            ("untagged", json!({"t": {"m": {"7": "x"}}})),
        ],
    )
    .await;
}

// ---------------------------------------------------------------------------------------------
// std types whose schema is a plain (or `format`-annotated) string or an unbounded pair.

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct StdTypes {
    ip: Option<IpAddr>,
    sock: Option<SocketAddr>,
    d: Option<Duration>,
    st: Option<SystemTime>,
    os: Option<std::ffi::OsString>,
}

#[tokio::test(flavor = "current_thread")]
async fn limit_std_types_whose_schema_cannot_say_what_they_refuse() {
    let s = Server::new(ServerConfig::new(Catalog::new().tool(
        ToolSpec::new("std", "d").with_handler(|Args(v): Args<StdTypes>| async { Json(v) }),
    )))
    .unwrap();
    assert_refused_by_decoding(
        &s,
        &[
            ("std", json!({"ip": "not-an-ip"})),
            ("std", json!({"sock": "nope"})),
            ("std", json!({"d": {"secs": 18446744073709551615u64, "nanos": 1000000000u64}})),
            ("std", json!({"st": {"secs_since_epoch": 18446744073709551615u64, "nanos_since_epoch": 0}})),
            ("std", json!({"os": {"Windows": [65]}})),
        ],
    )
    .await;
    let r = call(
        &s,
        "std",
        json!({"ip": "127.0.0.1", "d": {"secs": 1, "nanos": 0}}),
    )
    .await;
    assert_eq!(r["result"]["structuredContent"]["ip"], "127.0.0.1", "{r}");
}

// ---------------------------------------------------------------------------------------------
// An alias sent beside its name (schemars lists no alias; the pair is a duplicate to serde); a
// host's `range` wider than the integer's width, tightened to the width.

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Aliased {
    #[serde(alias = "nm")]
    name: String,
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Ranged {
    #[schemars(range(max = 1000))]
    n: u8,
}

#[tokio::test(flavor = "current_thread")]
async fn an_alias_beside_its_name_is_refused_by_decoding_and_a_wide_range_is_tightened() {
    let s = Server::new(ServerConfig::new(
        Catalog::new()
            .tool(
                ToolSpec::new("aliased", "d")
                    .with_handler(|Args(v): Args<Aliased>| async { Json(v) }),
            )
            .tool(
                ToolSpec::new("ranged", "d")
                    .with_handler(|Args(v): Args<Ranged>| async { Json(v) }),
            ),
    ))
    .unwrap();
    assert_refused_by_decoding(&s, &[("aliased", json!({"name": "a", "nm": "b"}))]).await;
    let r = call(&s, "ranged", json!({"n": 300})).await;
    assert_eq!(code(&r), Some(-32602), "{r}");
    assert_eq!(r["error"]["data"]["keyword"], "maximum", "{r}");
    let listed = ask(&s, MODERN, "tools/list", json!({})).await;
    let ranged = &listed["result"]["tools"][1];
    assert_eq!(ranged["name"], "ranged");
    assert_eq!(
        ranged["inputSchema"]["properties"]["n"]["maximum"], 255,
        "{ranged}"
    );
}

// ---------------------------------------------------------------------------------------------
// `f32` is bounded by its range: 1e300 would decode as infinity.

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Single {
    x: f32,
}

#[tokio::test(flavor = "current_thread")]
async fn an_f32_is_bounded_by_its_range() {
    let s = Server::new(ServerConfig::new(Catalog::new().tool(
        ToolSpec::new("single", "d").with_handler(|Args(v): Args<Single>| async move {
            format!("finite: {}", v.x.is_finite())
        }),
    )))
    .unwrap();
    let r = call(&s, "single", json!({"x": 1e300})).await;
    assert_eq!(
        code(&r),
        Some(-32602),
        "1e300 should be refused for an f32, not handed over as inf: {r}"
    );
}

// ---------------------------------------------------------------------------------------------
// A second `with_handler` replaces the first one's derived schemas; a hand-set one stays.

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct First {
    n: u8,
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Second {
    place: String,
}

#[tokio::test(flavor = "current_thread")]
async fn a_replaced_handler_brings_its_own_schemas() {
    let s = Server::new(ServerConfig::new(
        Catalog::new().tool(
            ToolSpec::new("t", "d")
                .with_handler(|Args(v): Args<First>| async { Json(v) })
                .with_handler(|Args(v): Args<Second>| async move { v.place }),
        ),
    ))
    .unwrap();
    let valid_for_the_handler = call(&s, "t", json!({"place": "Oslo"})).await;
    assert_eq!(
        valid_for_the_handler["result"]["content"][0]["text"], "Oslo",
        "{valid_for_the_handler}"
    );
    assert!(
        valid_for_the_handler["result"]
            .get("structuredContent")
            .is_none(),
        "the first handler's output schema went with it: {valid_for_the_handler}"
    );
    let stale = call(&s, "t", json!({"n": 3})).await;
    assert_eq!(code(&stale), Some(-32602), "{stale}");
    // A schema set by hand stays whatever handler follows.
    let hand =
        json!({"type": "object", "properties": {"place": {"type": "string", "maxLength": 3}}});
    let spec = ToolSpec::new("h", "d")
        .with_input_schema(hand.clone())
        .with_handler(|Args(v): Args<First>| async { Json(v) })
        .with_handler(|Args(v): Args<Second>| async move { v.place });
    assert_eq!(spec.input_schema(), Some(&hand));
    assert!(spec.output_schema().is_none());
}

// ---------------------------------------------------------------------------------------------
// A `serde_json::Value` field derives `{}` rather than `true`, which the 2025-11-25 Tool schema
// refuses (its inputSchema/outputSchema `properties` members must be objects).

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Free {
    v: Value,
}

#[tokio::test(flavor = "current_thread")]
async fn a_value_field_is_listed_at_both_revisions() {
    let s = Server::new(ServerConfig::new(Catalog::new().tool(
        ToolSpec::new("free", "d").with_handler(|Args(v): Args<Free>| async { Json(v) }),
    )))
    .unwrap();
    assert!(Spec::load(MODERN)
        .errors(
            "ListToolsResult",
            &ask(&s, MODERN, "tools/list", json!({})).await["result"]
        )
        .is_empty());
    let legacy = ask(&s, LEGACY, "tools/list", json!({})).await;
    let errors = Spec::load(LEGACY).errors("ListToolsResult", &legacy["result"]);
    assert!(errors.is_empty(), "{errors:?}\n{legacy}");
}

// ---------------------------------------------------------------------------------------------
// A schema-less tool's non-object structured value is sent at 2026-07-28 and left out at
// 2025-11-25, where the content blocks the host wrote travel alone (as the docs say).

#[tokio::test(flavor = "current_thread")]
async fn a_non_object_structured_value_is_left_out_at_2025_11_25() {
    let s = Server::new(ServerConfig::new(
        Catalog::new()
            .tool(ToolSpec::new("five", "d").with_handler(|| async {
                ToolOutput::text("see structured").and_structured(json!(5))
            }))
            .tool(ToolSpec::new("empty", "d").with_handler(|| async {
                ToolOutput::blocks(Vec::new()).and_structured(json!([1, 2, 3]))
            })),
    ))
    .unwrap();
    let spec = Spec::load(LEGACY);
    let five = ask(
        &s,
        LEGACY,
        "tools/call",
        json!({"name": "five", "arguments": {}}),
    )
    .await;
    let empty = ask(
        &s,
        LEGACY,
        "tools/call",
        json!({"name": "empty", "arguments": {}}),
    )
    .await;
    spec.check_response("CallToolResult", &five);
    spec.check_response("CallToolResult", &empty);
    assert_eq!(
        five["result"],
        json!({"content": [{"type": "text", "text": "see structured"}]}),
        "{five}"
    );
    assert_eq!(empty["result"], json!({"content": []}), "{empty}");
    let modern = call(&s, "five", json!({})).await;
    assert_eq!(modern["result"]["structuredContent"], 5, "{modern}");
}

// ---------------------------------------------------------------------------------------------
// Icon sources that are not URIs (the vendored `Icon.src` is `format: uri`) or not base64 image
// data are refused at startup.

#[test]
fn icon_sources_that_are_not_uris_or_image_data_are_refused() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/spec/2026-07-28/schema.json"
    ))
    .unwrap();
    let root: Value = serde_json::from_str(&text).unwrap();
    let icon = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&json!({"$ref": "#/$defs/Icon", "$defs": root["$defs"]}))
        .unwrap();
    let mut accepted = Vec::new();
    for src in [
        "https://[::1",
        "https://example.com:abc/i.png",
        "https://ex[ample.com/i.png",
        "https://example.com/%",
        "https://example.com/#a#b",
    ] {
        let started = Server::new(
            ServerConfig::new(
                Catalog::new().tool(ToolSpec::new("t", "d").with_icon(Icon::new(src))),
            )
            .dispatch(|_c| async { Ok(ToolOutput::text("ok")) }),
        )
        .is_ok();
        let schema_ok = icon.is_valid(&json!({ "src": src }));
        if started && !schema_ok {
            accepted.push(src);
        }
    }
    // Not a URI problem but the schema's prose: "a `data:` URI with Base64-encoded image data".
    for src in [
        "data:text/html;base64,PHNjcmlwdD4=",
        "data:image/png;base64,!!!",
    ] {
        if Server::new(
            ServerConfig::new(
                Catalog::new().tool(ToolSpec::new("t", "d").with_icon(Icon::new(src))),
            )
            .dispatch(|_c| async { Ok(ToolOutput::text("ok")) }),
        )
        .is_ok()
        {
            accepted.push(src);
        }
    }
    assert!(accepted.is_empty(), "accepted: {accepted:?}");
}

// ---------------------------------------------------------------------------------------------
// Edges that hold.

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Wide {
    a: u64,
    b: i64,
    c: i128,
    e: Option<u8>,
    f: char,
    g: Vec<Vec<u8>>,
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct NonZero {
    n: NonZeroI8,
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Set {
    s: HashSet<u8>,
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Node {
    name: String,
    children: Vec<Node>,
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct InnerS {
    k: u8,
}
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DenyFlat {
    a: u8,
    #[serde(flatten)]
    inner: InnerS,
}
#[derive(Debug, Serialize, JsonSchema)]
struct NanOut {
    x: f64,
}

#[tokio::test(flavor = "current_thread")]
async fn edge_numbers_and_shapes_decode_or_are_refused_by_the_schema() {
    let s = Server::new(ServerConfig::new(
        Catalog::new()
            .tool(ToolSpec::new("wide", "d").with_handler(|Args(v): Args<Wide>| async { Json(v) }))
            .tool(ToolSpec::new("nz", "d").with_handler(|Args(v): Args<NonZero>| async { Json(v) }))
            .tool(ToolSpec::new("set", "d").with_handler(|Args(v): Args<Set>| async { Json(v) }))
            .tool(ToolSpec::new("node", "d").with_handler(|Args(v): Args<Node>| async { Json(v) }))
            .tool(
                ToolSpec::new("deny", "d")
                    .with_handler(|Args(v): Args<DenyFlat>| async { Json(v) }),
            )
            .tool(
                ToolSpec::new("u8keys", "d")
                    .with_handler(|Args(v): Args<U8Keys>| async { Json(v) }),
            )
            .tool(ToolSpec::new("nan", "d").with_handler(|| async { Json(NanOut { x: f64::NAN }) }))
            .tool(
                ToolSpec::new("anyof", "d")
                    .with_output_schema(json!({"anyOf": [{"type": "object"}, {"type": "array"}]}))
                    .with_handler(|| async { ToolOutput::structured(json!([1, 2])) }),
            )
            .tool(
                ToolSpec::new("refroot", "d")
                    .with_output_schema(
                        json!({"$ref": "#/$defs/R", "$defs": {"R": {"type": "object"}}}),
                    )
                    .with_handler(|| async { ToolOutput::structured(json!({"a": 1})) }),
            ),
    ))
    .unwrap();
    let ok = call(
        &s,
        "wide",
        json!({"a": 1.8e19, "b": -9.223_372_036_854_776e18, "c": -0.0,
        "e": null, "f": "\u{1F44D}", "g": [[1.0, 2.0], [3e0]]}),
    )
    .await;
    assert_eq!(
        ok["result"]["structuredContent"]["a"],
        json!(18_000_000_000_000_000_000u64),
        "{ok}"
    );
    assert_eq!(
        ok["result"]["structuredContent"]["g"],
        json!([[1, 2], [3]]),
        "{ok}"
    );
    for (tool, args) in [
        (
            "wide",
            json!({"a": 1.8446744073709552e19, "b": 0, "c": 0, "f": "x", "g": []}),
        ),
        (
            "wide",
            json!({"a": 0, "b": 0, "c": 1e300, "f": "x", "g": []}),
        ),
        (
            "wide",
            json!({"a": 0, "b": 0, "c": 0, "f": "e\u{301}", "g": []}),
        ),
        ("nz", json!({"n": 0.0})),
        ("nz", json!({"n": -0.0})),
        ("set", json!({"s": [1, 1.0]})),
        ("deny", json!({"a": 1, "k": 2, "z": 3})),
        ("u8keys", json!({"m": {"\u{663}": "x"}})),
    ] {
        let r = call(&s, tool, args.clone()).await;
        assert_eq!(code(&r), Some(-32602), "{tool} {args}: {r}");
    }
    for (tool, args) in [
        (
            "node",
            json!({"name": "a", "children": [{"name": "b", "children": []}]}),
        ),
        ("deny", json!({"a": 1, "k": 2})),
    ] {
        let r = call(&s, tool, args.clone()).await;
        assert!(r.get("result").is_some(), "{tool} {args}: {r}");
    }
    // NaN serialises as null: a tool error naming nothing of the value.
    let nan = call(&s, "nan", json!({})).await;
    assert_eq!(nan["result"]["isError"], true, "{nan}");
    // SEP-2106 shapes validate at both revisions, listing and call.
    for rev in [LEGACY, MODERN] {
        let spec = Spec::load(rev);
        let list = ask(&s, rev, "tools/list", json!({})).await;
        spec.check_response("ListToolsResult", &list);
        for tool in ["anyof", "refroot", "nan"] {
            let r = ask(
                &s,
                rev,
                "tools/call",
                json!({"name": tool, "arguments": {}}),
            )
            .await;
            spec.check_response("CallToolResult", &r);
        }
    }
}

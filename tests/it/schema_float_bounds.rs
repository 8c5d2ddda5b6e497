//! Numbers with 17–25 significant digits are read correctly rounded wherever the crate reads
//! JSON: a schema's bounds and the arguments of a decoded `tools/call` meet at the exact
//! binary64 value `str::parse::<f64>` (correctly rounded) gives, on the subset and on the
//! general validator.

use beam_mcp::schema::Schema;
use beam_mcp::{Answer, Carrier, Catalog, Server, ServerConfig, ToolCall, ToolOutput, ToolSpec};
use serde_json::{json, Value};

/// Read by serde_json's default (not correctly rounded) parse, each of these lands one
/// binary64 step away from its value.
const LONG: &[&str] = &[
    "0.56321223307924402685995e10",
    "2.2250738585072011e-308",
    "1.00000000000000011102230246251565404236316680908203126",
    "9007199254740991.4",
    "0.1000000000000000055511151231257827",
];

/// The argument `x` as the tool is handed it, `text` written in a `tools/call` frame: decoded,
/// validated and normalised by the core, and echoed back in its shortest round-trip form.
fn argument(text: &str) -> Value {
    let catalog = Catalog::new().tool(
        ToolSpec::new("t", "Echo x.")
            .with_input_schema(json!({"type": "object", "properties": {"x": {"type": "number"}}})),
    );
    let server = Server::new(
        ServerConfig::new(catalog).dispatch(|call: ToolCall| async move {
            let x = call
                .arguments
                .get("x")
                .map(Value::to_string)
                .unwrap_or_default();
            Ok(ToolOutput::text(x))
        }),
    )
    .unwrap();
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{{"x":{text}}}}}}}"#
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let Answer::Reply(reply) = rt.block_on(server.answer(frame.as_bytes(), Carrier::Stdio)) else {
        panic!("a tools/call is answered")
    };
    let v: Value = serde_json::from_slice(reply.bytes()).unwrap();
    let echoed = v["result"]["content"][0]["text"].as_str().unwrap();
    serde_json::from_str(echoed).unwrap()
}

#[test]
fn decoded_arguments_are_correctly_rounded() {
    for text in LONG {
        let exact: f64 = text.parse().unwrap();
        assert_eq!(argument(text).as_f64(), Some(exact), "{text}");
    }
}

#[test]
fn schema_bounds_are_correctly_rounded_and_meet_the_argument_exactly() {
    for text in LONG {
        let exact: f64 = text.parse().unwrap();
        let above = f64::from_bits(exact.to_bits() + 1);
        for general in [false, true] {
            let extra = if general { r#","$defs":{"u":{}}"# } else { "" };
            let raw: Value = serde_json::from_str(&format!(
                r#"{{"type":"object","properties":{{"x":{{"type":"number","maximum":{text}}}}}{extra}}}"#
            ))
            .unwrap();
            let schema = Schema::compile(&raw).unwrap();
            assert_eq!(schema.is_subset(), !general);
            let at = serde_json::json!({ "x": argument(text) });
            assert!(schema.validate(&at).is_ok(), "{text} at its own bound");
            let over = serde_json::json!({ "x": above });
            assert!(schema.validate(&over).is_err(), "{text}: one step above");
        }
    }
}

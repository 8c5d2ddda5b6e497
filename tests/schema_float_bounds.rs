//! Numbers with 17–25 significant digits are read correctly rounded wherever the crate reads
//! JSON: a schema's bounds and the arguments of a decoded `tools/call` meet at the exact
//! binary64 value `str::parse::<f64>` (correctly rounded) gives, on the subset and on the
//! general validator.

use beam_mcp::protocol::decode;
use beam_mcp::schema::Schema;
use serde_json::Value;

/// Read by serde_json's default (not correctly rounded) parse, each of these lands one
/// binary64 step away from its value.
const LONG: &[&str] = &[
    "0.56321223307924402685995e10",
    "2.2250738585072011e-308",
    "1.00000000000000011102230246251565404236316680908203126",
    "9007199254740991.4",
    "0.1000000000000000055511151231257827",
];

fn argument(text: &str) -> Value {
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{{"x":{text}}}}}}}"#
    );
    let m = decode(frame.as_bytes()).unwrap();
    m.params.unwrap()["arguments"]["x"].clone()
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

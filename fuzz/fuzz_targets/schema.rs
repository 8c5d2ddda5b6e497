//! Schema compile and validate, the subset and the general (2020-12) validator.
//!
//! Input: a schema's JSON text, a NUL byte, an instance's JSON text. Invariants: nothing
//! panics; `arguments` and `arguments_owned` agree with `validate` on object instances; a
//! schema the subset compiles, given an unused `$defs` (which takes it to the general
//! validator), compiles there too and gives every instance the same verdict.
#![no_main]

use beam_mcp::schema::Schema;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

fuzz_target!(|data: &[u8]| {
    let (schema_text, instance_text) = match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b"{}"[..]),
    };
    let Ok(raw) = serde_json::from_slice::<Value>(schema_text) else {
        return;
    };
    let Ok(instance) = serde_json::from_slice::<Value>(instance_text) else {
        return;
    };
    let Ok(schema) = Schema::compile(&raw) else {
        return;
    };
    let verdict = schema.validate(&instance);
    if instance.is_object() {
        let args = schema.arguments(&instance);
        assert_eq!(
            args.is_ok(),
            verdict.is_ok(),
            "arguments and validate disagree"
        );
        let owned = schema.arguments_owned(instance.clone());
        assert_eq!(
            owned.is_ok(),
            verdict.is_ok(),
            "arguments_owned and validate disagree"
        );
        if let (Ok(a), Ok(b)) = (&args, &owned) {
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
    } else {
        assert!(schema.arguments(&instance).is_err());
    }
    if schema.is_subset() {
        if let Value::Object(mut map) = raw {
            if map.contains_key("$defs") {
                return;
            }
            map.insert("$defs".to_owned(), json!({"fuzz_unused": {}}));
            let general = Schema::compile(&Value::Object(map))
                .expect("the general validator compiles a schema the subset compiles");
            assert!(!general.is_subset());
            assert_eq!(
                general.validate(&instance).is_ok(),
                verdict.is_ok(),
                "subset and general disagree on {instance}"
            );
        }
    }
});

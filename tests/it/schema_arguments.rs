//! The normaliser: declared keys come from the schema, keys it admits undeclared are forwarded
//! apart as the caller spelled them (and dropped with the arguments), values are untouched.

use std::sync::Arc;

use beam_mcp::schema::{Arguments, Schema};
use serde_json::{json, Map, Value};

fn weather() -> Schema {
    Schema::compile(&json!({
        "type": "object",
        "properties": {
            "place": {"type": "string"},
            "days": {"type": "integer", "minimum": 1},
            "opts": {"type": "object"}
        },
        "required": ["place"]
    }))
    .unwrap()
}

#[test]
fn keys_are_the_schemas_own_arcs() {
    let schema = weather();
    let declared: Vec<Arc<str>> = schema.properties().map(|(k, _)| Arc::clone(k)).collect();
    let args = schema
        .arguments(&json!({"days": 3, "place": "Oslo"}))
        .unwrap();
    assert_eq!(args.len(), 2);
    for (key, _) in args.entries() {
        let original = declared.iter().find(|d| **d == *key).unwrap();
        assert!(
            Arc::ptr_eq(key, original),
            "key `{key}` was allocated, not shared with the schema"
        );
    }
    // The caller's key strings are not the ones held.
    let instance = json!({"place": "Oslo"});
    let caller_key = instance
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .as_str();
    let args = schema.arguments(&instance).unwrap();
    let (held, _) = args.entries().next().unwrap();
    assert_ne!(held.as_ptr(), caller_key.as_ptr());
    let place = declared.iter().find(|d| &***d == "place").unwrap();
    assert!(Arc::ptr_eq(held, place));
}

#[test]
fn owned_path_shares_keys_too() {
    let schema = weather();
    let declared: Vec<Arc<str>> = schema.properties().map(|(k, _)| Arc::clone(k)).collect();
    let args = schema
        .arguments_owned(json!({"place": "Oslo", "x": 1}))
        .unwrap();
    let (key, value) = args.entries().next().unwrap();
    let place = declared.iter().find(|d| &***d == "place").unwrap();
    assert!(Arc::ptr_eq(key, place));
    assert_eq!(value, &json!("Oslo"));
    assert_eq!(args.entries().count(), 1);
    assert_eq!(args.undeclared(), json!({"x": 1}).as_object().unwrap());
    assert_eq!(args.len(), 2);
}

#[test]
fn undeclared_keys_are_forwarded_apart() {
    let schema = weather();
    let args = schema
        .arguments(&json!({"place": "Oslo", "evil": "x", "__proto__": {}, "": 1}))
        .unwrap();
    assert_eq!(
        args.iter().map(|(k, _)| k).collect::<Vec<_>>(),
        vec!["place"],
        "the declared ones, keyed by the schema"
    );
    let mut undeclared: Vec<&str> = args.undeclared().keys().map(String::as_str).collect();
    undeclared.sort_unstable();
    assert_eq!(undeclared, ["", "__proto__", "evil"]);
    assert_eq!(args.get("evil"), Some(&json!("x")));
    assert_eq!(args.get("__proto__"), Some(&json!({})));
    assert_eq!(args.get(""), Some(&json!(1)));
}

#[test]
fn undeclared_keys_are_validated_before_being_forwarded() {
    let schema = Schema::compile(&json!({
        "type": "object",
        "properties": {"a": {}},
        "additionalProperties": {"type": "string"}
    }))
    .unwrap();
    let v = schema.arguments(&json!({"a": 1, "b": 2})).unwrap_err();
    assert_eq!((v.instance_path(), v.keyword()), ("/b", "type"));
    let args = schema.arguments(&json!({"a": 1, "b": "ok"})).unwrap();
    assert_eq!(
        args.into_map(),
        json!({"a": 1, "b": "ok"}).as_object().unwrap().clone()
    );
}

#[test]
fn values_are_untouched() {
    let schema = weather();
    let opts = json!({"nested": [1, 2.0, "три", null, {"k": true}], "big": u64::MAX});
    let instance = json!({"place": "Oslo", "days": 2.0, "opts": opts});
    let args = schema.arguments(&instance).unwrap();
    assert_eq!(args.get("opts"), Some(&opts));
    // 2.0 stays a float: the normaliser does not coerce
    let days = args.get("days").unwrap();
    assert!(days.is_f64(), "{days}");
    assert_eq!(args.get("place"), Some(&json!("Oslo")));
}

#[test]
fn order_is_schema_order() {
    let schema = weather();
    let args = schema
        .arguments(&json!({"opts": {}, "days": 1, "place": "x"}))
        .unwrap();
    // The order of the compiled schema's properties, whatever order the caller sent.
    let keys: Vec<&str> = args.iter().map(|(k, _)| k).collect();
    let declared: Vec<&str> = schema.properties().map(|(k, _)| &**k).collect();
    assert_eq!(keys, declared);
    assert_eq!(keys.len(), 3);
}

#[test]
fn invalid_instances_give_violations() {
    let schema = weather();
    let v = schema.arguments(&json!({"days": 1})).unwrap_err();
    assert_eq!(v.keyword(), "required");
    let v = schema
        .arguments(&json!({"place": "x", "days": 0}))
        .unwrap_err();
    assert_eq!((v.instance_path(), v.keyword()), ("/days", "minimum"));
}

#[test]
fn non_object_instance_is_a_root_type_violation() {
    // Even a schema that does not say "object" normalises objects only.
    for schema in [
        weather(),
        Schema::open_object(),
        Schema::compile(&json!({})).unwrap(),
    ] {
        for inst in [json!([]), json!("x"), json!(null), json!(1)] {
            let v = schema.arguments(&inst).unwrap_err();
            assert_eq!((v.instance_path(), v.keyword()), ("", "type"), "{inst}");
            let v = schema.arguments_owned(inst).unwrap_err();
            assert_eq!(v.keyword(), "type");
        }
    }
}

#[test]
fn open_object_gives_empty_arguments() {
    let open = Schema::open_object();
    assert_eq!(open.raw(), &json!({"type": "object"}));
    assert_eq!(open.properties().count(), 0);
    let args = open.arguments(&json!({"x": 1, "place": "Oslo"})).unwrap();
    assert!(args.is_empty());
    assert_eq!(args, Arguments::empty());
    assert_eq!(args.into_map(), Map::new());
}

#[test]
fn schema_without_properties_forwards_what_it_admits() {
    let schema = Schema::compile(&json!({"type": "object", "required": ["a"]})).unwrap();
    let args = schema.arguments(&json!({"a": 1})).unwrap();
    assert_eq!(args.entries().count(), 0);
    assert_eq!(args.get("a"), Some(&json!(1)));
    assert_eq!(args.len(), 1);
}

#[test]
fn schema_keeps_nothing_from_callers() {
    // Ten thousand distinct caller keys: the schema's shared keys are the only long-lived
    // strings, and their strong counts return to baseline once the Arguments are dropped.
    let schema = weather();
    let baseline: Vec<usize> = schema
        .properties()
        .map(|(k, _)| Arc::strong_count(k))
        .collect();
    let mut kept = Vec::new();
    for i in 0..10_000 {
        let mut m = Map::new();
        m.insert(format!("caller-key-{i}"), json!(i));
        m.insert("place".into(), json!("x"));
        let args = schema.arguments(&Value::Object(m)).unwrap();
        assert_eq!(args.entries().count(), 1);
        kept.push(args);
    }
    let at = schema
        .properties()
        .position(|(k, _)| &**k == "place")
        .unwrap();
    let place_count = Arc::strong_count(schema.properties().nth(at).unwrap().0);
    assert_eq!(place_count, baseline[at] + 10_000);
    drop(kept);
    let after: Vec<usize> = schema
        .properties()
        .map(|(k, _)| Arc::strong_count(k))
        .collect();
    assert_eq!(after, baseline);
    assert_eq!(schema.raw(), weather().raw());
}

#[test]
fn arguments_are_send_sync_clone_default() {
    fn check<T: Send + Sync + Clone + Default + PartialEq + std::fmt::Debug>() {}
    check::<Arguments>();
}

//! The subset, keyword by keyword: what is accepted, what is refused, and where.

use beam_mcp::schema::{JsonType, Schema, SchemaErrorKind, MAX_DEPTH};
use serde_json::{json, Value};

fn compile(raw: Value) -> Schema {
    match Schema::compile(&raw) {
        Ok(s) => s,
        Err(e) => panic!("refused {raw}: {e}"),
    }
}

fn accepts(schema: &Schema, instance: Value) {
    if let Err(v) = schema.validate(&instance) {
        panic!("{instance} refused by {}: {v}", schema.raw());
    }
}

/// Asserts a refusal and returns (path, keyword).
fn refuses(schema: &Schema, instance: Value) -> (String, &'static str) {
    match schema.validate(&instance) {
        Ok(()) => panic!("{instance} accepted by {}", schema.raw()),
        Err(v) => (v.instance_path().to_owned(), v.keyword()),
    }
}

// ---- type ----

#[test]
fn type_single_names_each_kind() {
    let cases = [
        ("object", json!({}), json!([])),
        ("array", json!([]), json!({})),
        ("string", json!("x"), json!(1)),
        ("number", json!(1.5), json!("1.5")),
        ("integer", json!(42), json!(42.5)),
        ("boolean", json!(false), json!(0)),
        ("null", json!(null), json!(false)),
    ];
    for (name, good, bad) in cases {
        let s = compile(json!({ "type": name }));
        accepts(&s, good);
        assert_eq!(refuses(&s, bad), (String::new(), "type"), "type {name}");
    }
}

#[test]
fn integer_accepts_zero_fraction_floats() {
    let s = compile(json!({"type": "integer"}));
    accepts(&s, json!(42));
    accepts(&s, json!(42.0));
    accepts(&s, json!(-7.0));
    accepts(&s, json!(u64::MAX));
    refuses(&s, json!(42.000_001));
}

#[test]
fn number_includes_integers() {
    let s = compile(json!({"type": "number"}));
    accepts(&s, json!(3));
    accepts(&s, json!(-3));
    accepts(&s, json!(3.25));
}

#[test]
fn type_array_is_a_union() {
    let s = compile(json!({"type": ["string", "null"]}));
    accepts(&s, json!("x"));
    accepts(&s, json!(null));
    let v = s.validate(&json!(1)).unwrap_err();
    assert_eq!(v.keyword(), "type");
    assert_eq!(v.message(), "expected string or null, got number");
}

#[test]
fn absent_type_accepts_anything() {
    let s = compile(json!({}));
    for v in [json!(null), json!(1), json!("s"), json!([]), json!({})] {
        accepts(&s, v);
    }
}

#[test]
fn type_mismatch_display_and_data() {
    let s = compile(json!({"type": "object", "properties": {"place": {"type": "string"}}}));
    let v = s.validate(&json!({"place": 1})).unwrap_err();
    assert_eq!(v.to_string(), "/place: expected string, got number");
    assert_eq!(
        v.to_data(),
        json!({"path": "/place", "keyword": "type", "message": "expected string, got number"})
    );
    let root = s.validate(&json!([])).unwrap_err();
    assert_eq!(root.instance_path(), "");
    assert_eq!(root.to_string(), "(root): expected object, got array");
}

// ---- properties, required, additionalProperties ----

#[test]
fn properties_validate_present_values_only() {
    let s = compile(json!({"properties": {"n": {"type": "integer"}}}));
    accepts(&s, json!({}));
    accepts(&s, json!({"n": 1}));
    assert_eq!(refuses(&s, json!({"n": "1"})), ("/n".into(), "type"));
}

#[test]
fn required_names_missing_property() {
    let s = compile(json!({"type": "object", "required": ["place", "when"]}));
    accepts(&s, json!({"place": 1, "when": 2}));
    let v = s.validate(&json!({"place": 1})).unwrap_err();
    assert_eq!(v.instance_path(), "");
    assert_eq!(v.keyword(), "required");
    assert!(v.message().contains("`when`"), "{v}");
    // required does not apply to non-objects
    let untyped = compile(json!({"required": ["x"]}));
    accepts(&untyped, json!("not an object"));
}

#[test]
fn additional_properties_false_refuses_undeclared() {
    let s = compile(json!({
        "type": "object",
        "properties": {"place": {"type": "string"}},
        "additionalProperties": false
    }));
    accepts(&s, json!({"place": "Oslo"}));
    assert_eq!(
        refuses(&s, json!({"place": "Oslo", "x/y": 1})),
        ("/x~1y".into(), "additionalProperties")
    );
}

#[test]
fn additional_properties_true_and_absent_allow() {
    for extra in [json!({"additionalProperties": true}), json!({})] {
        let mut raw = json!({"type": "object", "properties": {"a": {}}});
        if let (Some(m), Some(e)) = (raw.as_object_mut(), extra.as_object()) {
            m.extend(e.clone());
        }
        accepts(&compile(raw), json!({"a": 1, "b": 2}));
    }
}

#[test]
fn additional_properties_schema_validates_undeclared() {
    let s = compile(json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": {"type": "integer", "minimum": 0}
    }));
    accepts(&s, json!({"a": "x", "b": 1, "c": 2.0}));
    assert_eq!(
        refuses(&s, json!({"a": "x", "b": -1})),
        ("/b".into(), "minimum")
    );
    assert_eq!(refuses(&s, json!({"b": "no"})), ("/b".into(), "type"));
}

// ---- items ----

#[test]
fn items_and_nested_violation_path() {
    let s = compile(json!({
        "type": "object",
        "properties": {"items": {"type": "array", "items": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"]
        }}}
    }));
    accepts(&s, json!({"items": [{"name": "a"}, {"name": "b"}]}));
    assert_eq!(
        refuses(&s, json!({"items": [{"name": 0}]})),
        ("/items/0/name".into(), "type")
    );
    assert_eq!(
        refuses(&s, json!({"items": [{"name": "a"}, {}]})),
        ("/items/1".into(), "required")
    );
}

#[test]
fn min_max_items() {
    let s = compile(json!({"type": "array", "minItems": 1, "maxItems": 2}));
    accepts(&s, json!([1]));
    accepts(&s, json!([1, 2]));
    assert_eq!(refuses(&s, json!([])), (String::new(), "minItems"));
    assert_eq!(refuses(&s, json!([1, 2, 3])), (String::new(), "maxItems"));
}

// ---- numeric bounds ----

#[test]
fn inclusive_bounds() {
    let s = compile(json!({"type": "number", "minimum": 1, "maximum": 2.5}));
    accepts(&s, json!(1));
    accepts(&s, json!(1.0));
    accepts(&s, json!(2.5));
    assert_eq!(refuses(&s, json!(0.999)), (String::new(), "minimum"));
    assert_eq!(refuses(&s, json!(2.500_001)), (String::new(), "maximum"));
}

#[test]
fn exclusive_bounds_2020_12() {
    let s = compile(json!({"exclusiveMinimum": 0, "exclusiveMaximum": 10}));
    accepts(&s, json!(0.5));
    accepts(&s, json!(9));
    assert_eq!(refuses(&s, json!(0)), (String::new(), "exclusiveMinimum"));
    assert_eq!(
        refuses(&s, json!(10.0)),
        (String::new(), "exclusiveMaximum")
    );
}

#[test]
fn bounds_compare_large_integers_exactly() {
    let s = compile(json!({"maximum": 9_007_199_254_740_992_u64}));
    accepts(&s, json!(9_007_199_254_740_992_u64));
    // As f64 both sides would round to 2^53 and compare equal.
    refuses(&s, json!(9_007_199_254_740_993_u64));
}

#[test]
fn bounds_ignore_other_types() {
    let s = compile(json!({"minimum": 5, "minLength": 3, "minItems": 2}));
    accepts(&s, json!("ab1"));
    accepts(&s, json!(7));
    accepts(&s, json!([1, 2]));
    accepts(&s, json!(null));
    refuses(&s, json!("ab"));
}

// ---- string lengths ----

#[test]
fn length_counts_code_points() {
    let s = compile(json!({"type": "string", "minLength": 1, "maxLength": 1}));
    accepts(&s, json!("é")); // U+00E9, 2 bytes
    accepts(&s, json!("👍")); // U+1F44D, 4 bytes, 2 UTF-16 units
    accepts(&s, json!("a"));
    // e + combining acute: one grapheme, two code points
    assert_eq!(refuses(&s, json!("e\u{301}")), (String::new(), "maxLength"));
    assert_eq!(refuses(&s, json!("")), (String::new(), "minLength"));
    let three = compile(json!({"maxLength": 3}));
    accepts(&three, json!("👍👍👍"));
    refuses(&three, json!("👍👍👍👍"));
}

// ---- annotations ----

#[test]
fn annotations_pass_untouched() {
    let raw = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$comment": "c",
        "title": "t",
        "description": "d",
        "type": "object",
        "default": {"place": 1},
        "examples": [42, "x"],
        "deprecated": false,
        "readOnly": true,
        "writeOnly": false,
        "properties": {"place": {"type": "string", "x-mcp-header": "Place", "default": 7}}
    });
    let s = compile(raw.clone());
    assert_eq!(s.raw(), &raw);
    // `default` is not validated against the type
    accepts(&s, json!({"place": "Oslo"}));
    let (name, prop) = s.properties().next().unwrap();
    assert_eq!(&**name, "place");
    assert_eq!(prop.types(), &[JsonType::String]);
    assert_eq!(prop.mcp_header(), Some(&json!("Place")));
}

#[test]
fn properties_report_types_in_schema_key_order() {
    let s = compile(json!({"type": "object", "properties": {
        "z": {"type": ["integer", "null"]},
        "a": {},
        "m": {"type": "boolean"}
    }}));
    let got: Vec<(String, Vec<&str>)> = s
        .properties()
        .map(|(n, p)| {
            (
                n.to_string(),
                p.types().iter().map(|t| t.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("a".into(), vec![]),
            ("m".into(), vec!["boolean"]),
            ("z".into(), vec!["integer", "null"])
        ]
    );
    assert!(s.properties().all(|(_, p)| p.mcp_header().is_none()));
}

#[test]
fn object_root_means_exactly_the_string() {
    assert!(compile(json!({"type": "object"})).is_object_root());
    assert!(Schema::open_object().is_object_root());
    assert!(!compile(json!({"type": ["object", "null"]})).is_object_root());
    assert!(!compile(json!({})).is_object_root());
    assert!(!compile(json!({"type": "string"})).is_object_root());
}

// ---- refusals ----

#[test]
fn keywords_outside_2020_12_refused_with_pointer() {
    let unsupported = [
        ("definitions", json!({})),
        ("dependencies", json!({})),
        ("additionalItems", json!({})),
        ("$recursiveRef", json!("#")),
        ("$vocabulary", json!({})),
        ("x-other", json!(1)),
        ("requried", json!(["typo"])),
        ("a/b~c", json!(1)),
    ];
    for (kw, value) in unsupported {
        let raw = json!({
            "type": "object",
            "properties": {"place": {"type": "string", kw: value}}
        });
        let err = Schema::compile(&raw).unwrap_err();
        assert!(err.is_unsupported_keyword(), "{kw}: {err}");
        assert_eq!(err.kind(), SchemaErrorKind::UnsupportedKeyword);
        assert_eq!(err.keyword(), Some(kw));
        let mut expected = "/properties/place/".to_owned();
        expected.push_str(&kw.replace('~', "~0").replace('/', "~1"));
        assert_eq!(err.pointer(), expected, "{kw}");
        assert_eq!(err.schema_pointer(), "/properties/place");
        assert_eq!(
            err.to_string(),
            format!("unsupported keyword `{kw}` at /properties/place")
        );
    }
}

#[test]
fn keywords_beyond_the_subset_take_the_general_validator() {
    let general = [
        ("pattern", json!("^a")),
        ("format", json!("email")),
        ("$ref", json!("#/$defs/x")),
        ("$id", json!("urn:example:x")),
        ("$anchor", json!("a")),
        ("oneOf", json!([{}])),
        ("anyOf", json!([{}])),
        ("allOf", json!([{}])),
        ("not", json!({})),
        ("if", json!({})),
        ("then", json!({})),
        ("else", json!({})),
        ("enum", json!(["a"])),
        ("const", json!("a")),
        ("multipleOf", json!(2)),
        ("patternProperties", json!({})),
        ("propertyNames", json!({})),
        ("dependentRequired", json!({})),
        ("dependentSchemas", json!({})),
        ("prefixItems", json!([{}])),
        ("contains", json!({})),
        ("uniqueItems", json!(true)),
        ("unevaluatedProperties", json!(false)),
        ("minProperties", json!(1)),
        ("contentEncoding", json!("base64")),
    ];
    for (kw, value) in general {
        let raw = json!({
            "type": "object",
            "$defs": {"x": {}},
            "properties": {"place": {kw: value}}
        });
        let schema = Schema::compile(&raw).unwrap_or_else(|e| panic!("{kw}: {e}"));
        assert!(!schema.is_subset(), "{kw}");
        assert_eq!(schema.raw(), &raw);
    }
    // Within the subset, the fast path.
    assert!(
        compile(json!({"type": "object", "properties": {"a": {"type": "string"}}})).is_subset()
    );
}

#[test]
fn unsupported_keyword_at_root_and_deep() {
    let err = Schema::compile(&json!({"definitions": {}})).unwrap_err();
    assert_eq!(err.pointer(), "/definitions");
    assert_eq!(
        err.to_string(),
        "unsupported keyword `definitions` at the root"
    );

    let err = Schema::compile(&json!({
        "properties": {"a/b": {"items": {"additionalProperties": {"formt": "uri"}}}}
    }))
    .unwrap_err();
    assert_eq!(
        err.pointer(),
        "/properties/a~1b/items/additionalProperties/formt"
    );
}

#[test]
fn malformed_values_refused_with_pointer() {
    let malformed = [
        ("minLength", json!(-1)),
        ("minLength", json!(1.5)),
        ("maxLength", json!("3")),
        ("minItems", json!(null)),
        ("maxItems", json!(-0.5)),
        ("minimum", json!("1")),
        ("maximum", json!(null)),
        ("exclusiveMinimum", json!(true)),
        ("exclusiveMaximum", json!(false)),
        ("required", json!("x")),
        ("required", json!([1])),
        ("required", json!(["x", "x"])),
        ("type", json!("strin")),
        ("type", json!([])),
        ("type", json!(["string", "string"])),
        ("type", json!(["string", 3])),
        ("type", json!(7)),
        ("properties", json!([])),
        ("properties", json!({"x": 3})),
        ("additionalProperties", json!("no")),
        ("additionalProperties", json!(0)),
        ("items", json!([{}])),
        ("items", json!(1)),
    ];
    for (kw, value) in malformed {
        let raw = json!({"properties": {"p": {kw: value.clone()}}});
        let err = Schema::compile(&raw).unwrap_err();
        assert!(err.is_malformed(), "{kw}={value}: {err}");
        assert!(!err.is_unsupported_keyword());
        assert!(
            err.pointer().starts_with(&format!("/properties/p/{kw}")),
            "{kw}={value}: pointer {}",
            err.pointer()
        );
        assert!(err.to_string().contains("/properties/p"), "{err}");
    }
}

#[test]
fn integral_float_counts_are_accepted() {
    let s = compile(json!({"maxLength": 2.0, "minItems": 0}));
    accepts(&s, json!("ab"));
    refuses(&s, json!("abc"));
}

#[test]
fn root_must_be_an_object_schema() {
    for raw in [
        json!(true),
        json!(false),
        json!(null),
        json!("object"),
        json!([]),
    ] {
        let err = Schema::compile(&raw).unwrap_err();
        assert!(err.is_malformed(), "{raw}");
        assert_eq!(err.pointer(), "");
        assert_eq!(err.keyword(), None);
    }
}

#[test]
fn nesting_beyond_max_depth_refused() {
    fn nested(depth: usize) -> Value {
        let mut v = json!({"type": "string"});
        for _ in 0..depth {
            v = json!({"type": "array", "items": v});
        }
        v
    }
    let ok = compile(nested(MAX_DEPTH));
    let mut inst = json!("leaf");
    for _ in 0..MAX_DEPTH {
        inst = json!([inst]);
    }
    accepts(&ok, inst);

    let err = Schema::compile(&nested(MAX_DEPTH + 1)).unwrap_err();
    assert!(err.is_too_deep(), "{err}");
    assert_eq!(err.pointer(), "/items".repeat(MAX_DEPTH + 1));
}

#[test]
fn deeply_nested_annotation_refused_before_cloning() {
    let mut deep = json!(1);
    for _ in 0..100_000 {
        deep = Value::Array(vec![deep]);
    }
    let mut map = serde_json::Map::new();
    map.insert("default".to_owned(), deep);
    let raw = std::mem::ManuallyDrop::new(Value::Object(map));
    let err = Schema::compile(&raw).unwrap_err();
    assert!(err.is_too_deep(), "{err}");
    assert_eq!(err.pointer(), "");

    // A legitimate annotation nested a few levels is fine.
    compile(json!({"default": {"a": [[[{"b": [1]}]]]}}));
}

#[test]
fn deep_instances_do_not_recurse_past_the_schema() {
    // A 100k-deep instance against shallow schemas: validation never descends where the schema
    // has no subschema. ManuallyDrop because serde_json drops a Value recursively.
    let mut deep = json!(1);
    for _ in 0..100_000 {
        deep = Value::Array(vec![deep]);
    }
    // Not json!: it would serialise `deep` recursively.
    let mut map = serde_json::Map::new();
    map.insert("a".to_owned(), deep);
    let inst = std::mem::ManuallyDrop::new(Value::Object(map));
    accepts(&compile(json!({"type": "object"})), (*inst).clone_shallow());
    let s = compile(json!({
        "type": "object",
        "properties": {"a": {"type": "array", "maxItems": 1}},
        "additionalProperties": {"type": "array"}
    }));
    assert!(s.validate(&inst).is_ok());
    assert_eq!(s.arguments(&json!({"b": []})).unwrap().entries().count(), 0);
    let one_level = compile(json!({"items": {"type": "integer"}}));
    assert_eq!(
        one_level.validate(&inst["a"]).unwrap_err().instance_path(),
        "/0"
    );
}

trait CloneShallow {
    fn clone_shallow(&self) -> Value;
}

impl CloneShallow for Value {
    /// An object with the same keys and null values (cloning the deep value would recurse).
    fn clone_shallow(&self) -> Value {
        match self {
            Value::Object(m) => Value::Object(m.keys().map(|k| (k.clone(), Value::Null)).collect()),
            other => other.clone(),
        }
    }
}

#[test]
fn first_violation_order_is_deterministic() {
    let s = compile(json!({
        "type": "object",
        "properties": {"b": {"type": "string"}, "a": {"type": "string"}},
        "required": ["b", "c"],
        "additionalProperties": false
    }));
    // required is checked before properties, properties in the compiled schema's key order,
    // then undeclared keys.
    assert_eq!(
        refuses(&s, json!({"a": 1, "b": 1})),
        (String::new(), "required")
    );
    assert_eq!(
        refuses(&s, json!({"a": 1, "b": 1, "c": 1})),
        ("/a".into(), "type")
    );
    assert_eq!(
        refuses(&s, json!({"z": 1, "a": "", "b": "", "c": 1})),
        ("/c".into(), "additionalProperties")
    );
}

#[test]
fn schema_is_cheap_to_share() {
    fn assert_send_sync<T: Send + Sync + Clone + std::fmt::Debug>() {}
    assert_send_sync::<Schema>();
    let s = compile(json!({"type": "object"}));
    let t = s.clone();
    assert!(std::ptr::eq(s.raw(), t.raw()));
}

/// Annotations are never validated, but their values must have the 2020-12 meta-schema's
/// types, on the subset path as on the general one (a fuzz finding: the subset carried
/// `"examples": "object"`, which the general validator's meta-schema check refuses).
#[test]
fn annotations_of_the_wrong_type_are_refused_on_both_paths() {
    let cases = [
        (json!({"examples": "object"}), "examples"),
        (json!({"title": 1}), "title"),
        (json!({"description": ["x"]}), "description"),
        (json!({"$comment": {}}), "$comment"),
        (json!({"deprecated": "yes"}), "deprecated"),
        (json!({"readOnly": 0}), "readOnly"),
        (json!({"writeOnly": null}), "writeOnly"),
        (
            json!({"properties": {"place": {"type": "string", "examples": 3}}}),
            "examples",
        ),
    ];
    for (annotations, keyword) in cases {
        let mut raw = json!({"type": "object"});
        for (k, v) in annotations.as_object().unwrap() {
            raw[k] = v.clone();
        }
        let subset = Schema::compile(&raw).expect_err(&raw.to_string());
        assert_eq!(subset.kind(), SchemaErrorKind::Malformed, "{raw}");
        assert_eq!(subset.keyword(), Some(keyword), "{raw}");
        raw["$defs"] = json!({"unused": {}});
        let general = Schema::compile(&raw).expect_err(&raw.to_string());
        assert_eq!(general.kind(), SchemaErrorKind::Malformed, "{raw}");
    }
    // What the meta-schema allows is still carried.
    let fine = compile(json!({
        "type": "object",
        "title": "t", "description": "d", "$comment": "c", "examples": [{}],
        "default": 5, "deprecated": false, "readOnly": true, "writeOnly": false,
    }));
    accepts(&fine, json!({}));
}

//! The general path: JSON Schema 2020-12 beyond the subset, compiled once and enforced, with
//! every refusal carrying a pointer.

use std::mem::ManuallyDrop;
use std::sync::Arc;

use beam_mcp::schema::{Schema, SchemaErrorKind, MAX_INSTANCE_DEPTH};
use serde_json::{json, Value};

fn compile(raw: Value) -> Schema {
    let s = Schema::compile(&raw).unwrap_or_else(|e| panic!("refused: {e}: {raw}"));
    assert!(!s.is_subset(), "expected the general path: {raw}");
    s
}

fn refuses(schema: &Schema, instance: Value) -> (String, &'static str) {
    let v = schema
        .validate(&instance)
        .expect_err(&format!("accepted {instance}"));
    (v.instance_path().to_owned(), v.keyword())
}

/// The `json-schema-2020-12` conformance fixture, as the suite writes it.
fn fixture() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

#[test]
fn the_conformance_fixture_is_kept_exactly_and_enforced() {
    let raw = fixture();
    let s = compile(raw.clone());
    assert_eq!(s.raw(), &raw);
    assert!(s.is_object_root());
    let ok = [
        json!({"phone": "1", "email": "a@b"}),
        json!({"contactMethod": "phone", "phone": "1"}),
        json!({"contactMethod": "email", "email": "a@b"}),
        json!({"email": "a@b", "address": {"street": "Main", "city": "Oslo"}}),
    ];
    for inst in ok {
        assert!(s.validate(&inst).is_ok(), "{inst}: {:?}", s.validate(&inst));
    }
    assert_eq!(
        refuses(&s, json!({"contactMethod": "fax", "email": "a"})),
        ("/contactMethod".into(), "enum")
    );
    assert_eq!(
        refuses(&s, json!({"email": "a", "address": {"street": 5}})),
        ("/address/street".into(), "type")
    );
    assert_eq!(
        refuses(&s, json!({"email": "a", "fax": "1"})),
        ("/fax".into(), "additionalProperties")
    );
    // if contactMethod is phone, then phone is required.
    let (path, keyword) = refuses(&s, json!({"contactMethod": "phone", "email": "a"}));
    assert_eq!((path.as_str(), keyword), ("", "required"));
    // Without contactMethod the else branch asks for email; neither phone nor email fails the
    // allOf/anyOf too.
    assert_eq!(refuses(&s, json!({"phone": "1"})), ("".into(), "required"));
    assert!(s.validate(&json!({"name": "x"})).is_err());
}

#[test]
fn declared_names_reach_arguments_keyed_by_the_schema() {
    let s = compile(json!({
        "type": "object",
        "properties": {"a": {"type": "string", "enum": ["x"]}},
        "allOf": [{"properties": {"b": {"type": "integer"}}}],
        "$ref": "#/$defs/more",
        "$defs": {"more": {"properties": {"c": {"type": ["string", "null"]}}}},
        "patternProperties": {"^p-": {"type": "integer"}},
        "unevaluatedProperties": {"type": "boolean"}
    }));
    let names: Vec<&str> = s.properties().map(|(k, _)| &**k).collect();
    assert_eq!(names, ["a", "b", "c"]);
    let declared: Vec<Arc<str>> = s.properties().map(|(k, _)| Arc::clone(k)).collect();
    let instance = json!({"a": "x", "b": 2, "c": null, "p-1": 3, "other": true});
    let args = s.arguments(&instance).unwrap();
    assert_eq!(
        args.clone().into_map(),
        json!({"a": "x", "b": 2, "c": null, "p-1": 3, "other": true})
            .as_object()
            .unwrap()
            .clone()
    );
    assert_eq!(
        args.undeclared().keys().collect::<Vec<_>>(),
        ["other", "p-1"],
        "admitted undeclared: forwarded apart"
    );
    for (key, _) in args.entries() {
        assert!(
            declared.iter().any(|d| Arc::ptr_eq(d, key)),
            "{key} allocated"
        );
    }
    let owned = s.arguments_owned(instance).unwrap();
    assert_eq!((owned.entries().count(), owned.len()), (3, 5));
    assert_eq!(
        s.arguments(&json!({"p-1": "no"}))
            .unwrap_err()
            .instance_path(),
        "/p-1"
    );
    let v = s.arguments(&json!({"other": 1})).unwrap_err();
    assert_eq!(
        (v.instance_path(), v.keyword()),
        ("/other", "unevaluatedProperties")
    );
    let types: Vec<_> = s.properties().map(|(_, p)| p.types().len()).collect();
    assert_eq!(types, [1, 1, 2]);
}

#[test]
fn remote_references_are_refused_with_a_pointer() {
    for (raw, pointer) in [
        (
            json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
            "/properties/a/$ref",
        ),
        (
            json!({"$defs": {"x": {"items": {"$ref": "other.json#/x"}}}}),
            "/$defs/x/items/$ref",
        ),
        (
            json!({"anyOf": [{}, {"$dynamicRef": "meta.json#m"}]}),
            "/anyOf/1/$dynamicRef",
        ),
        (json!({"enum": [1], "$ref": "/absolute"}), "/$ref"),
    ] {
        let err = Schema::compile(&raw).unwrap_err();
        assert!(err.is_remote_reference(), "{raw}: {err}");
        assert_eq!(err.kind(), SchemaErrorKind::RemoteReference);
        assert_eq!(err.pointer(), pointer, "{raw}");
        assert!(err.to_string().contains("nothing is fetched"), "{err}");
    }
}

#[test]
fn local_references_resolve_by_pointer_and_anchor_or_are_refused() {
    let s = compile(json!({
        "properties": {
            "a": {"$ref": "#addressDef"},
            "b": {"$ref": "#/$defs/with%20space"},
            "c": {"$ref": "#/$defs/t~1u"}
        },
        "$defs": {
            "address": {"$anchor": "addressDef", "type": "object"},
            "with space": {"type": "integer"},
            "t/u": {"type": "boolean"}
        }
    }));
    assert_eq!(refuses(&s, json!({"a": 1})), ("/a".into(), "type"));
    assert_eq!(refuses(&s, json!({"b": "x"})), ("/b".into(), "type"));
    assert_eq!(refuses(&s, json!({"c": "x"})), ("/c".into(), "type"));

    for (raw, pointer) in [
        (
            json!({"properties": {"a": {"$ref": "#/$defs/missing"}}}),
            "/properties/a/$ref",
        ),
        (json!({"items": {"$ref": "#nowhere"}}), "/items/$ref"),
        (
            json!({"$defs": {"n": 3}, "not": {"$ref": "#/$defs/n"}}),
            "/not/$ref",
        ),
    ] {
        let err = Schema::compile(&raw).unwrap_err();
        assert!(err.is_malformed(), "{raw}: {err}");
        assert_eq!(err.pointer(), pointer, "{raw}");
    }
}

#[test]
fn a_recursive_schema_is_enforced_at_depth() {
    let s = compile(json!({
        "$ref": "#/$defs/node",
        "$defs": {"node": {
            "type": "object",
            "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
            "required": ["children"]
        }}
    }));
    // 31 nodes: 62 levels, as deep as the wire lets arguments nest.
    let mut inst = json!({"children": []});
    for _ in 0..30 {
        inst = json!({"children": [inst]});
    }
    assert!(s.validate(&inst).is_ok());
    let mut bad = json!({"children": [{"kids": []}]});
    for _ in 0..3 {
        bad = json!({"children": [bad]});
    }
    assert_eq!(
        refuses(&s, bad),
        (
            "/children/0/children/0/children/0/children/0".into(),
            "required"
        )
    );
}

#[test]
fn deep_instances_are_refused_before_the_validator_recurses() {
    // 100k levels: the validator would follow the recursive $ref, hash the items for uniqueness
    // or compare with a deep `enum` value all the way down. ManuallyDrop: serde_json drops a
    // Value recursively.
    let mut deep = json!(1);
    for _ in 0..100_000 {
        deep = Value::Array(vec![deep]);
    }
    let inst = ManuallyDrop::new(Value::Array(vec![deep]));
    let mut deep_enum = json!(1);
    for _ in 0..(MAX_INSTANCE_DEPTH + 8) {
        deep_enum = Value::Array(vec![deep_enum]);
    }
    for raw in [
        json!({"$ref": "#/$defs/a", "$defs": {"a": {"items": {"$ref": "#/$defs/a"}}}}),
        json!({"uniqueItems": true}),
        json!({"items": {"uniqueItems": true}}),
        json!({"enum": [deep_enum]}),
    ] {
        let s = compile(raw.clone());
        let v = s.validate(&inst).unwrap_err();
        assert_eq!((v.instance_path(), v.keyword()), ("", "depth"), "{raw}");
        assert!(v.message().contains(&MAX_INSTANCE_DEPTH.to_string()));
    }
    // Where the validator need not follow it, a deep instance is no harm: a shallow `enum`
    // tells it apart in three levels, and `type` looks at the root only.
    let s = compile(json!({"enum": [[[1]]]}));
    assert_eq!(s.validate(&inst).unwrap_err().keyword(), "enum");
    assert!(compile(json!({"type": "array", "$defs": {}}))
        .validate(&inst)
        .is_ok());
}

#[test]
fn the_deepest_accepted_instance_fits_a_two_mib_stack() {
    // What a tokio worker has by default; the recursion follows the instance here.
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let s = compile(json!({
                "$ref": "#/$defs/a",
                "$defs": {"a": {"anyOf": [
                    {"type": "integer"},
                    {"type": "array", "items": {"$ref": "#/$defs/a"}, "uniqueItems": true}
                ]}}
            }));
            let mut inst = json!(1);
            for _ in 0..MAX_INSTANCE_DEPTH {
                inst = json!([inst, 2]);
            }
            assert!(s.validate(&inst).is_ok());
            let mut bad = json!("x");
            for _ in 0..MAX_INSTANCE_DEPTH {
                bad = json!([bad]);
            }
            assert!(s.validate(&bad).is_err());
        })
        .unwrap();
    handle.join().unwrap();
}

#[test]
fn the_most_nested_evaluation_fits_a_two_mib_stack() {
    // In-place applicators nested 40 deep at every level of a recursive `items`: evaluations
    // nest 41 per instance level, so the validator's own bound on nested evaluations (256)
    // is what stops it, on the stack a tokio worker has (in a debug build too).
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let mut inner = json!({"type": "array", "items": {"$ref": "#/$defs/a"}});
            for _ in 0..40 {
                inner = json!({"allOf": [inner]});
            }
            let s = compile(json!({"$ref": "#/$defs/a", "$defs": {"a": inner}}));
            let mut shallow = json!([]);
            for _ in 0..4 {
                shallow = json!([shallow]);
            }
            assert!(s.validate(&shallow).is_ok());
            let mut deep = json!([]);
            for _ in 0..100 {
                deep = json!([deep]);
            }
            let v = s.validate(&deep).unwrap_err();
            assert_eq!((v.instance_path(), v.keyword()), ("", "depth"));
            assert!(v.message().contains("256"), "{v}");
        })
        .unwrap();
    handle.join().unwrap();
}

#[test]
fn patterns_use_the_linear_time_engine() {
    let s = compile(json!({"properties": {"code": {"type": "string", "pattern": "^(a+)+$"}}}));
    // Catastrophic for a backtracking engine; linear here.
    let evil = format!("{}!", "a".repeat(50_000));
    assert_eq!(
        refuses(&s, json!({"code": evil})),
        ("/code".into(), "pattern")
    );
    assert!(s.validate(&json!({"code": "aaa"})).is_ok());
    // Unicode-aware classes behave as ECMA-262 with the u flag.
    let s = compile(json!({"pattern": "^\\d{3}$"}));
    assert!(s.validate(&json!("123")).is_ok());

    for (raw, pointer) in [
        (
            json!({"properties": {"p": {"pattern": "(?=a)b"}}}),
            "/properties/p/pattern",
        ),
        (json!({"pattern": "(a)\\1"}), "/pattern"),
        (json!({"pattern": "("}), "/pattern"),
    ] {
        let err = Schema::compile(&raw).unwrap_err();
        assert!(err.is_malformed(), "{raw}: {err}");
        assert_eq!(err.pointer(), pointer, "{raw}");
    }
}

#[test]
fn format_and_content_are_annotations() {
    let s = compile(json!({"properties": {
        "email": {"type": "string", "format": "email"},
        "n": {"type": "integer", "format": "uint32", "minimum": 0},
        "blob": {"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png"}
    }}));
    assert!(s
        .validate(&json!({"email": "not an email", "n": 3, "blob": "%%%"}))
        .is_ok());
    assert_eq!(refuses(&s, json!({"n": -1})), ("/n".into(), "minimum"));
}

#[test]
fn the_meta_schema_refuses_malformed_values_with_their_pointer() {
    for (raw, pointer) in [
        (
            json!({"properties": {"a": {"enum": "x"}}}),
            "/properties/a/enum",
        ),
        (json!({"oneOf": []}), "/oneOf"),
        (
            json!({"properties": {"a": {"minLength": -1, "const": 1}}}),
            "/properties/a/minLength",
        ),
        (json!({"allOf": [{"type": "strin"}]}), "/allOf/0/type"),
        (json!({"prefixItems": {"type": "string"}}), "/prefixItems"),
        (json!({"required": ["a", "a"], "enum": [1]}), "/required"),
        (
            json!({"$defs": {"x": {"maxContains": "2"}}}),
            "/$defs/x/maxContains",
        ),
    ] {
        let err = Schema::compile(&raw).unwrap_err();
        assert!(err.is_malformed(), "{raw}: {err}");
        assert_eq!(err.pointer(), pointer, "{raw}: {err}");
        assert!(err.reason().contains("meta-schema"), "{err}");
    }
}

#[test]
fn boolean_subschemas_and_the_rest_of_2020_12_are_enforced() {
    let s = compile(json!({
        "type": "object",
        "properties": {
            "never": false,
            "any": true,
            "tuple": {"prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false},
            "tags": {"type": "array", "uniqueItems": true, "contains": {"const": "x"}, "maxContains": 1},
            "n": {"type": "number", "multipleOf": 0.5},
            "choice": {"oneOf": [{"type": "integer"}, {"minimum": 2}]},
            "neg": {"not": {"type": "string"}},
            "m": {"type": "object", "minProperties": 1, "maxProperties": 2,
                  "propertyNames": {"pattern": "^[a-z]+$"}}
        },
        "dependentRequired": {"tuple": ["n"]},
        "dependentSchemas": {"tags": {"required": ["n"]}},
        "unevaluatedProperties": false
    }));
    let cases = [
        (json!({"never": 1}), "/never", "false"),
        (json!({"tuple": [1, 2], "n": 1}), "/tuple/1", "type"),
        (json!({"tuple": [1, "a", 3], "n": 1}), "/tuple/2", "false"),
        (json!({"tuple": [1]}), "", "required"),
        (json!({"tags": ["x", "x"], "n": 1}), "/tags", "uniqueItems"),
        (json!({"tags": ["y"], "n": 1}), "/tags", "contains"),
        (json!({"n": 0.3}), "/n", "multipleOf"),
        (json!({"choice": 3}), "/choice", "oneOf"),
        (json!({"neg": "s"}), "/neg", "not"),
        (json!({"m": {}}), "/m", "minProperties"),
        (json!({"m": {"A": 1}}), "/m/A", "propertyNames"),
        (json!({"zzz": 1}), "/zzz", "unevaluatedProperties"),
    ];
    for (inst, path, keyword) in cases {
        let v = s.validate(&inst).expect_err(&inst.to_string());
        assert_eq!(
            (v.instance_path(), v.keyword()),
            (path, keyword),
            "{inst}: {v}"
        );
    }
    assert!(s
        .validate(
            &json!({"any": [1], "tuple": [1, "a"], "tags": ["x", "y"], "n": 1.5,
                          "choice": 1, "neg": 1, "m": {"a": 1}})
        )
        .is_ok());
}

#[test]
fn messages_name_the_schema_never_the_callers_value() {
    let s = compile(json!({"properties": {
        "a": {"enum": ["x", "y"]},
        "b": {"const": "c"},
        "c": {"type": "integer", "multipleOf": 3},
        "d": {"pattern": "^[a-z]+$"},
        "e": {"not": {"type": "string"}},
        "f": {"oneOf": [{"type": "string"}, {"type": "string"}]},
        "g": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}
    }}));
    let secret = "CALLER-SECRET-VALUE";
    for key in ["a", "b", "d", "e", "f", "g"] {
        let v = s.validate(&json!({ key: secret })).unwrap_err();
        assert_eq!(v.instance_path(), format!("/{key}"));
        assert!(!v.to_string().contains(secret), "{v}");
        assert!(!v.to_data().to_string().contains(secret), "{v}");
    }
    let v = s.validate(&json!({"c": secret})).unwrap_err();
    assert_eq!(v.message(), "expected integer, got string");
    let v = s.validate(&json!({"c": 4})).unwrap_err();
    assert_eq!(v.message(), "must be a multiple of 3");
}

#[test]
fn dialect_is_2020_12_whatever_schema_says() {
    // A draft-07 `$schema` does not switch semantics, and nothing is fetched for it.
    let s = compile(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "prefixItems": [{"type": "integer"}]
    }));
    assert_eq!(refuses(&s, json!(["x"])), ("/0".into(), "type"));
    let s = compile(json!({"$schema": "https://example.com/custom-meta", "enum": [1]}));
    assert!(s.validate(&json!(1)).is_ok());
}

#[test]
fn nested_resources_resolve_their_own_references() {
    let s = compile(json!({
        "$id": "https://example.com/root",
        "properties": {"inner": {"$ref": "#/$defs/inner"}},
        "$defs": {"inner": {
            "$id": "https://example.com/inner",
            "properties": {"x": {"$ref": "#/$defs/leaf"}},
            "$defs": {"leaf": {"type": "string"}}
        }}
    }));
    assert_eq!(
        refuses(&s, json!({"inner": {"x": 1}})),
        ("/inner/x".into(), "type")
    );
}

#[test]
fn the_validator_crate_is_built_without_a_way_to_fetch() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let line = manifest
        .lines()
        .find(|l| l.starts_with("jsonschema = "))
        .expect("jsonschema is a dependency");
    assert!(line.contains("default-features = false"), "{line}");
    assert!(!line.contains("resolve-"), "{line}");
    // No HTTP client or TLS stack below the validator in the locked graph (the `cluster`
    // feature's `ractor_cluster` links a TLS stack of its own, for links between nodes).
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap();
    let below = locked_closure(&lock, "jsonschema");
    assert!(below.contains("regex"), "the closure is read: {below:?}");
    for name in [
        "reqwest",
        "rustls",
        "ureq",
        "hyper-tls",
        "native-tls",
        "hyper",
    ] {
        assert!(
            !below.contains(name),
            "{name} is below jsonschema in Cargo.lock"
        );
    }
}

/// Every package name reachable from `root` through the `dependencies` lists of Cargo.lock.
fn locked_closure(lock: &str, root: &str) -> std::collections::BTreeSet<String> {
    let mut deps: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for block in lock.split("[[package]]").skip(1) {
        let Some(name) = block
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|l| l.strip_suffix('"'))
        else {
            continue;
        };
        let list = deps.entry(name.to_owned()).or_default();
        if let Some(start) = block.find("dependencies = [") {
            let rest = &block[start..];
            let end = rest.find(']').unwrap_or(rest.len());
            for dep in rest[..end].split('"').skip(1).step_by(2) {
                // `name` or `name version` when two versions are locked.
                list.push(dep.split(' ').next().unwrap_or(dep).to_owned());
            }
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = vec![root.to_owned()];
    while let Some(name) = todo.pop() {
        if seen.insert(name.clone()) {
            todo.extend(deps.get(&name).into_iter().flatten().cloned());
        }
    }
    seen
}

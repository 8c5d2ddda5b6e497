//! `Server::new` refuses a bad catalog at startup, naming the item.

use beam_mcp::catalog::{PromptArgument, PromptSpec, ResourceSpec, ResourceTemplateSpec};
use beam_mcp::{
    Catalog, ConfigError, HeaderFault, HeaderFaultPolicy, Server, ServerConfig, ToolOutput,
    ToolSpec,
};
use serde_json::{json, Value};

fn with_dispatch(c: Catalog) -> ServerConfig {
    ServerConfig::new(c).dispatch(|_c| async { Ok(ToolOutput::text("ok")) })
}

fn refuse(c: Catalog) -> ConfigError {
    Server::new(with_dispatch(c)).expect_err("catalog should be refused")
}

fn tool(name: &str, schema: Value) -> ToolSpec {
    ToolSpec::new(name, "t").with_input_schema(schema)
}

#[test]
fn duplicate_tool_names_are_refused_by_name() {
    let e = refuse(
        Catalog::new()
            .tool(ToolSpec::new("a", "x"))
            .tool(ToolSpec::new("a", "y")),
    );
    assert_eq!(e, ConfigError::DuplicateTool { name: "a".into() });
    assert!(e.to_string().contains("`a`"));
}

#[test]
fn tool_names_outside_the_recommended_alphabet_are_refused() {
    for bad in ["", "has space", "slash/name", &"x".repeat(129)] {
        let e = refuse(Catalog::new().tool(ToolSpec::new(bad, "x")));
        assert!(matches!(e, ConfigError::ToolName { .. }), "{bad:?}: {e}");
    }
}

#[test]
fn schema_keywords_outside_2020_12_are_refused_naming_tool_and_pointer() {
    let e = refuse(Catalog::new().tool(tool(
        "t",
        json!({"type":"object","properties":{"p":{"type":"string","patern":"^a"}}}),
    )));
    match &e {
        ConfigError::ToolSchema { tool, source } => {
            assert_eq!(tool, "t");
            assert!(source.is_unsupported_keyword());
            assert_eq!(source.keyword(), Some("patern"));
        }
        other => panic!("{other}"),
    }
    assert!(e.to_string().contains("/properties/p"), "{e}");
}

#[test]
fn an_annotation_of_the_wrong_type_is_refused_naming_tool_and_keyword() {
    let e = refuse(Catalog::new().tool(tool(
        "t",
        json!({"type":"object","examples":"object","properties":{"p":{"type":"string"}}}),
    )));
    match &e {
        ConfigError::ToolSchema { tool, source } => {
            assert_eq!(tool, "t");
            assert!(source.is_malformed(), "{source}");
            assert_eq!(source.keyword(), Some("examples"));
        }
        other => panic!("{other}"),
    }
    assert!(e.to_string().contains("`t`"), "{e}");
}

#[test]
fn a_remote_ref_is_refused_at_startup_with_its_pointer() {
    let e = refuse(Catalog::new().tool(tool(
        "t",
        json!({"type":"object","properties":{"p":{"$ref":"https://example.com/p.json"}}}),
    )));
    match &e {
        ConfigError::ToolSchema { tool, source } => {
            assert_eq!(tool, "t");
            assert!(source.is_remote_reference(), "{source}");
            assert_eq!(source.pointer(), "/properties/p/$ref");
        }
        other => panic!("{other}"),
    }
    assert!(e.to_string().contains("nothing is fetched"), "{e}");
}

#[test]
fn a_2020_12_schema_is_accepted_and_advertised_unchanged() {
    let raw = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"units": {"enum": ["celsius", "fahrenheit"]}, "at": {"$ref": "#/$defs/t"}},
        "$defs": {"t": {"type": "string", "format": "date-time"}},
        "additionalProperties": false
    });
    let server = Server::new(with_dispatch(Catalog::new().tool(tool("t", raw.clone())))).unwrap();
    assert_eq!(server.advertised_tool("t").unwrap()["inputSchema"], raw);
}

#[test]
fn schema_root_must_be_an_object() {
    let e = refuse(Catalog::new().tool(tool("t", json!({"type":"string"}))));
    assert_eq!(e, ConfigError::SchemaRootNotObject { tool: "t".into() });
}

#[test]
fn forbidden_mcp_header_annotations_are_refused() {
    let cases = [
        (
            json!({"type":"object","properties":{"p":{"type":"object","x-mcp-header":"P"}}}),
            "NotPrimitive",
        ),
        (
            json!({"type":"object","properties":{"p":{"type":"number","x-mcp-header":"P"}}}),
            "NotPrimitive",
        ),
        (
            json!({"type":"object","properties":{"p":{"type":["string","null"],"x-mcp-header":"P"}}}),
            "NotPrimitive",
        ),
        (
            json!({"type":"object","properties":{"p":{"type":"string","x-mcp-header":"Bad Name"}}}),
            "InvalidName",
        ),
        (
            json!({"type":"object","properties":{
            "p":{"type":"string","x-mcp-header":"Region"},
            "q":{"type":"integer","x-mcp-header":"region"}}}),
            "Duplicate",
        ),
        (
            json!({"type":"object","properties":{"p":{"type":"object","properties":{
            "q":{"type":"string","x-mcp-header":"Q"}}}}}),
            "NotTopLevel",
        ),
        (
            json!({"type":"object","allOf":[{"properties":{
            "q":{"type":"string","x-mcp-header":"Q"}}}]}),
            "NotTopLevel",
        ),
    ];
    for (schema, want) in cases {
        let e = refuse(Catalog::new().tool(tool("t", schema.clone())));
        let ConfigError::McpHeader { tool, fault } = &e else {
            panic!("{schema}: {e}")
        };
        assert_eq!(tool, "t");
        let got = match fault {
            HeaderFault::NotPrimitive { .. } => "NotPrimitive",
            HeaderFault::InvalidName { .. } => "InvalidName",
            HeaderFault::Duplicate { .. } => "Duplicate",
            HeaderFault::NotTopLevel { .. } => "NotTopLevel",
        };
        assert_eq!(got, want, "{schema}");
    }
    // Allowed: primitives, distinct names, and a property with no declared type.
    let ok = tool(
        "t",
        json!({"type":"object","properties":{
        "a":{"type":"string","x-mcp-header":"A"},
        "b":{"type":"integer","x-mcp-header":"B"},
        "c":{"type":"boolean","x-mcp-header":"C"},
        "d":{"x-mcp-header":"D"}}}),
    );
    assert!(Server::new(with_dispatch(Catalog::new().tool(ok))).is_ok());
}

#[test]
fn a_header_fault_can_be_deferred_to_refusing_the_tools_calls() {
    let bad = tool(
        "t",
        json!({"type":"object","properties":{"p":{"type":"object","x-mcp-header":"P"}}}),
    );
    let s = Server::new(
        with_dispatch(Catalog::new().tool(bad)).header_faults(HeaderFaultPolicy::RefuseCalls),
    );
    assert!(s.is_ok());
}

#[test]
fn resources_templates_and_prompts_are_checked() {
    let reader = |_u: String| async { Ok(vec![]) };
    let e = refuse(Catalog::new().resource(ResourceSpec::new("a://x", "x")));
    assert_eq!(e, ConfigError::MissingReader);
    let e = refuse(Catalog::new().prompt(PromptSpec::new("p")));
    assert_eq!(e, ConfigError::MissingRenderer);
    let e = refuse(
        Catalog::new()
            .resource(ResourceSpec::new("a://x", "x"))
            .resource(ResourceTemplateSpec::new("a://x", "y"))
            .reader(reader),
    );
    assert_eq!(
        e,
        ConfigError::DuplicateResource {
            uri: "a://x".into()
        }
    );
    for bad in [
        "a://{?q}",
        "a://{x,y}",
        "a://{#f}",
        "a://}",
        "a://{x",
        "a://{x}{y}",
        "a://{x*}",
    ] {
        let e = refuse(
            Catalog::new()
                .resource(ResourceTemplateSpec::new(bad, "t"))
                .reader(reader),
        );
        assert!(
            matches!(&e, ConfigError::Template { uri_template, .. } if uri_template == bad),
            "{bad}: {e}"
        );
    }
    let renderer = |_n: String, _a: beam_mcp::Arguments| async {
        Ok(beam_mcp::catalog::RenderedPrompt::default())
    };
    let e = refuse(
        Catalog::new()
            .prompt(PromptSpec::new("p"))
            .prompt(PromptSpec::new("p"))
            .renderer(renderer),
    );
    assert_eq!(e, ConfigError::DuplicatePrompt { name: "p".into() });
    let e = refuse(
        Catalog::new()
            .prompt(
                PromptSpec::new("p")
                    .with_argument(PromptArgument::new("a"))
                    .with_argument(PromptArgument::new("a")),
            )
            .renderer(renderer),
    );
    assert_eq!(
        e,
        ConfigError::DuplicatePromptArgument {
            prompt: "p".into(),
            argument: "a".into()
        }
    );
}

#[test]
fn tools_need_a_dispatch_and_pages_need_a_size() {
    let e = Server::new(ServerConfig::new(
        Catalog::new().tool(ToolSpec::new("a", "x")),
    ))
    .unwrap_err();
    assert_eq!(e, ConfigError::MissingDispatch { tool: "a".into() });
    // A tool with its own handler needs no dispatch function; the one beside it without does.
    let e = Server::new(ServerConfig::new(
        Catalog::new()
            .tool(ToolSpec::new("served", "x").with_handler(|| async { "ok" }))
            .tool(ToolSpec::new("unserved", "x")),
    ))
    .unwrap_err();
    assert_eq!(
        e,
        ConfigError::MissingDispatch {
            tool: "unserved".into()
        }
    );
    assert!(Server::new(ServerConfig::new(
        Catalog::new().tool(ToolSpec::new("served", "x").with_handler(|| async { "ok" }))
    ))
    .is_ok());
    let e = Server::new(with_dispatch(Catalog::new()).page_size(0)).unwrap_err();
    assert!(matches!(
        e,
        ConfigError::InvalidOption {
            option: "page_size",
            ..
        }
    ));
}

#[test]
fn what_tools_list_advertises_is_the_schema_tools_call_enforces() {
    let schema = json!({"type":"object","properties":{"n":{"type":"integer","minimum":1,"description":"count"}},
        "required":["n"],"additionalProperties":false});
    let s = Server::new(with_dispatch(
        Catalog::new().tool(tool("t", schema.clone())),
    ))
    .unwrap();
    assert_eq!(s.advertised_tool("t").unwrap()["inputSchema"], schema);
    let bare = Server::new(with_dispatch(Catalog::new().tool(ToolSpec::new("u", "x")))).unwrap();
    assert_eq!(
        bare.advertised_tool("u").unwrap()["inputSchema"],
        json!({"type":"object"})
    );
}

#[test]
fn output_schemas_are_compiled_at_startup_and_refused_naming_tool_and_pointer() {
    let e = refuse(
        Catalog::new().tool(ToolSpec::new("t", "x").with_output_schema(
            json!({"type":"object","properties":{"celsius":{"type":"number","minimumm":0}}}),
        )),
    );
    match &e {
        ConfigError::OutputSchema { tool, source } => {
            assert_eq!(tool, "t");
            assert_eq!(source.pointer(), "/properties/celsius/minimumm");
        }
        other => panic!("{other}"),
    }
    assert!(e.to_string().contains("output schema"), "{e}");
    assert!(e.to_string().contains("/properties/celsius"), "{e}");

    let e = refuse(Catalog::new().tool(
        ToolSpec::new("t", "x").with_output_schema(json!({"type":"object","required":"celsius"})),
    ));
    assert!(matches!(e, ConfigError::OutputSchema { .. }), "{e}");
}

#[test]
fn an_output_schema_of_any_root_is_accepted_and_advertised_as_given() {
    // SEP-2106: 2026-07-28 admits any root; `advertised_tool` is that revision's entry (the
    // 2025-11-25 listing, without a non-object root, is driven in tests/it/tool_typed.rs).
    for schema in [
        json!({"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}),
        json!({"type":"array","items":{"type":"number"}}),
        json!({}),
        json!({"type":["object","null"]}),
    ] {
        let server = Server::new(with_dispatch(
            Catalog::new().tool(ToolSpec::new("t", "x").with_output_schema(schema.clone())),
        ))
        .unwrap();
        assert_eq!(server.advertised_tool("t").unwrap()["outputSchema"], schema);
    }
}

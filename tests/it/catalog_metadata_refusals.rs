//! `Server::new` refuses metadata that breaks the schemas' rules, naming the item and the
//! value at fault: a read-only tool that says it is destructive, an icon that is not an https,
//! http or data URI, a `_meta` key outside the naming rules or under a prefix reserved for MCP,
//! a `websiteUrl` that is not a web URL, and an extension with a bad identifier, settings
//! that are not an object, or declared twice.

use beam_mcp::catalog::{
    Icon, MetaKeyFault, Mode, PromptSpec, RenderedPrompt, ResourceContents, ResourceSpec,
    ResourceTemplateSpec, UriFault,
};
use beam_mcp::{
    Arguments, Catalog, ConfigError, ConfigItem, Server, ServerConfig, ToolOutput, ToolSpec,
};
use serde_json::{json, Value};

fn config(catalog: Catalog) -> ServerConfig {
    let catalog = catalog
        .reader(|uri: String| async move { Ok(vec![ResourceContents::text(uri, "")]) })
        .renderer(|_n: String, _a: Arguments| async { Ok(RenderedPrompt::default()) });
    ServerConfig::new(catalog).dispatch(|_c| async { Ok(ToolOutput::text("ok")) })
}

fn refuse(config: ServerConfig) -> ConfigError {
    Server::new(config).expect_err("the configuration should be refused")
}

/// One catalog per kind of item, each carrying `icon` and `_meta[key]`, with the item the
/// refusal must name.
fn each_item(icon: Option<Icon>, key: Option<&str>) -> Vec<(Catalog, ConfigItem)> {
    let meta = |key: Option<&str>| key.map(|k| (k.to_owned(), json!(true)));
    let mut tool = ToolSpec::new("t", "x");
    let mut resource = ResourceSpec::new("a://r", "r");
    let mut template = ResourceTemplateSpec::new("a://t/{id}", "t");
    let mut prompt = PromptSpec::new("p");
    if let Some(icon) = icon {
        tool = tool.with_icon(icon.clone());
        resource = resource.with_icon(icon.clone());
        template = template.with_icon(icon.clone());
        prompt = prompt.with_icon(icon);
    }
    if let Some((k, v)) = meta(key) {
        tool = tool.with_meta(k.clone(), v.clone());
        resource = resource.with_meta(k.clone(), v.clone());
        template = template.with_meta(k.clone(), v.clone());
        prompt = prompt.with_meta(k, v);
    }
    vec![
        (Catalog::new().tool(tool), ConfigItem::Tool("t".into())),
        (
            Catalog::new().resource(resource),
            ConfigItem::Resource("a://r".into()),
        ),
        (
            Catalog::new().resource(template),
            ConfigItem::ResourceTemplate("a://t/{id}".into()),
        ),
        (
            Catalog::new().prompt(prompt),
            ConfigItem::Prompt("p".into()),
        ),
    ]
}

#[test]
fn a_read_only_tool_that_says_it_is_destructive_is_refused_by_name() {
    let e = refuse(config(
        Catalog::new().tool(
            ToolSpec::new("wipe", "x")
                .with_mode(Mode::ReadOnly)
                .with_destructive_hint(true),
        ),
    ));
    assert_eq!(
        e,
        ConfigError::ContradictoryAnnotations {
            tool: "wipe".into()
        }
    );
    assert!(e.to_string().contains("`wipe`"), "{e}");
    // Either half alone is fine.
    for tool in [
        ToolSpec::new("wipe", "x")
            .with_mode(Mode::ReadOnly)
            .with_destructive_hint(false),
        ToolSpec::new("wipe", "x")
            .with_mode(Mode::ReadWrite)
            .with_destructive_hint(true),
    ] {
        assert!(Server::new(config(Catalog::new().tool(tool))).is_ok());
    }
}

#[test]
fn an_icon_that_is_not_an_https_http_or_data_uri_is_refused_naming_the_item() {
    let cases = [
        (
            "javascript:alert(1)",
            UriFault::Scheme {
                scheme: "javascript".into(),
            },
        ),
        (
            "file:///etc/passwd",
            UriFault::Scheme {
                scheme: "file".into(),
            },
        ),
        ("icons/sun.png", UriFault::NotAUri),
        ("https://exa mple.com/sun.png", UriFault::NotAUri),
        ("https:/sun.png", UriFault::MissingHost),
        ("data:image/png;base64", UriFault::DataSyntax),
    ];
    for (src, fault) in cases {
        for (catalog, item) in each_item(Some(Icon::new(src)), None) {
            let e = refuse(config(catalog));
            assert_eq!(
                e,
                ConfigError::IconSource {
                    item: item.clone(),
                    src: src.into(),
                    fault: fault.clone()
                }
            );
            assert!(e.to_string().contains(&item.to_string()), "{e}");
        }
        let e = refuse(config(Catalog::new()).server_icon(Icon::new(src)));
        assert_eq!(
            e,
            ConfigError::IconSource {
                item: ConfigItem::Server,
                src: src.into(),
                fault
            }
        );
    }
    for ok in [
        "https://example.com/sun.png",
        "http://localhost:8080/sun.png",
        "data:image/png;base64,iVBORw0KGgo=",
    ] {
        for (catalog, item) in each_item(Some(Icon::new(ok)), None) {
            assert!(Server::new(config(catalog)).is_ok(), "{ok} on {item}");
        }
        assert!(Server::new(config(Catalog::new()).server_icon(Icon::new(ok))).is_ok());
    }
}

#[test]
fn a_meta_key_outside_the_naming_rules_is_refused_naming_the_item_and_the_key() {
    let cases = [
        (
            "io.modelcontextprotocol/ui",
            MetaKeyFault::Reserved {
                prefix: "io.modelcontextprotocol".into(),
            },
        ),
        (
            "dev.mcp/x",
            MetaKeyFault::Reserved {
                prefix: "dev.mcp".into(),
            },
        ),
        (
            "com.mcp.tools/x",
            MetaKeyFault::Reserved {
                prefix: "com.mcp.tools".into(),
            },
        ),
        (
            "1com.example/x",
            MetaKeyFault::Label {
                label: "1com".into(),
            },
        ),
        (
            "com.example-/x",
            MetaKeyFault::Label {
                label: "example-".into(),
            },
        ),
        ("/x", MetaKeyFault::Label { label: "".into() }),
        ("-x", MetaKeyFault::Name { name: "-x".into() }),
        ("com.example/x_", MetaKeyFault::Name { name: "x_".into() }),
        ("com.example/a/b", MetaKeyFault::Name { name: "a/b".into() }),
        (
            "has space",
            MetaKeyFault::Name {
                name: "has space".into(),
            },
        ),
    ];
    for (key, fault) in cases {
        for (catalog, item) in each_item(None, Some(key)) {
            let e = refuse(config(catalog));
            assert_eq!(
                e,
                ConfigError::MetaKey {
                    item: item.clone(),
                    key: key.into(),
                    fault: fault.clone()
                }
            );
            let text = e.to_string();
            assert!(
                text.contains(&item.to_string()) && text.contains(key),
                "{text}"
            );
        }
    }
    for ok in [
        "ui",
        "com.example/audit",
        "com.example.mcp/x",
        "com.example/",
        "x.y_z-1",
    ] {
        for (catalog, item) in each_item(None, Some(ok)) {
            assert!(Server::new(config(catalog)).is_ok(), "{ok} on {item}");
        }
    }
}

#[test]
fn a_website_url_that_is_not_an_https_or_http_url_is_refused() {
    for (url, fault) in [
        (
            "javascript:alert(1)",
            UriFault::Scheme {
                scheme: "javascript".into(),
            },
        ),
        (
            "data:text/html,hi",
            UriFault::Scheme {
                scheme: "data".into(),
            },
        ),
        ("example.com", UriFault::NotAUri),
        ("https://", UriFault::MissingHost),
    ] {
        let e = refuse(config(Catalog::new()).server_website_url(url));
        assert_eq!(
            e,
            ConfigError::WebsiteUrl {
                url: url.into(),
                fault
            }
        );
        assert!(e.to_string().contains(url), "{e}");
    }
    assert!(Server::new(config(Catalog::new()).server_website_url("https://example.com")).is_ok());
}

#[test]
fn an_extension_identifier_needs_the_key_rules_and_a_prefix() {
    for (id, fault) in [
        ("ui", MetaKeyFault::MissingPrefix),
        ("", MetaKeyFault::MissingPrefix),
        ("com..example/x", MetaKeyFault::Label { label: "".into() }),
        ("com.example/-x", MetaKeyFault::Name { name: "-x".into() }),
    ] {
        let e = refuse(config(Catalog::new()).extension(id, json!({})));
        assert_eq!(
            e,
            ConfigError::ExtensionId {
                id: id.into(),
                fault
            }
        );
    }
    // A reserved prefix names an extension MCP defines: a server declares support for it.
    for id in [
        "io.modelcontextprotocol/ui",
        "com.example/maps",
        "com.example/",
    ] {
        assert!(
            Server::new(config(Catalog::new()).extension(id, json!({}))).is_ok(),
            "{id}"
        );
    }
}

#[test]
fn extension_settings_must_be_an_object_and_an_extension_is_declared_once() {
    for settings in [json!(null), json!(true), json!([]), json!("{}"), json!(1)] {
        let e = refuse(config(Catalog::new()).extension("com.example/x", settings.clone()));
        assert_eq!(
            e,
            ConfigError::ExtensionSettings {
                id: "com.example/x".into()
            },
            "{settings}"
        );
    }
    let e = refuse(
        config(Catalog::new())
            .extension("com.example/x", json!({}))
            .extension("com.example/x", json!({"v": 2})),
    );
    assert_eq!(
        e,
        ConfigError::DuplicateExtension {
            id: "com.example/x".into()
        }
    );
    assert!(e.to_string().contains("`com.example/x`"), "{e}");
}

#[test]
fn the_refusals_carry_their_fault_as_the_error_source() {
    use std::error::Error as _;
    let e = refuse(config(Catalog::new()).server_icon(Icon::new("file:///x.png")));
    let source = e.source().expect("a source").to_string();
    assert!(source.contains("`file`"), "{source}");
    let e = refuse(config(Catalog::new()).extension("x", Value::Object(Default::default())));
    assert!(e.source().is_some());
}

//! Every content block the builders make, checked against the vendored MCP schemas at both
//! revisions: alone, inside a `CallToolResult`, and inside a `PromptMessage`.

use crate::support::spec;

use base64::Engine as _;
use beam_mcp::catalog::{ResourceContents, Role};
use beam_mcp::content::{Annotations, Content, ContentKind, ResourceLink};
use beam_mcp::ToolOutput;
use serde_json::{json, Value};
use spec::Spec;

const REVISIONS: [&str; 2] = ["2026-07-28", "2025-11-25"];

fn wire(c: &Content) -> Value {
    serde_json::to_value(c).unwrap()
}

fn every_block() -> Vec<(Content, &'static str)> {
    let full = Annotations::new()
        .with_audience([Role::User, Role::Assistant])
        .with_priority(0.25)
        .unwrap()
        .with_last_modified("2026-01-12T15:00:58Z");
    vec![
        (Content::text("hello"), "TextContent"),
        (
            Content::text("").with_annotations(full.clone()),
            "TextContent",
        ),
        (
            Content::image(vec![0u8, 1, 2, 255], "image/png"),
            "ImageContent",
        ),
        (
            Content::image(Vec::new(), "image/jpeg").with_annotations(full.clone()),
            "ImageContent",
        ),
        (Content::audio(vec![7u8; 33], "audio/wav"), "AudioContent"),
        (
            Content::audio(vec![1u8], "audio/ogg").with_annotations(full.clone()),
            "AudioContent",
        ),
        (
            Content::resource_text("file:///a.txt", "text body"),
            "EmbeddedResource",
        ),
        (
            Content::resource(
                ResourceContents::text("file:///a.md", "# hi").with_mime_type("text/markdown"),
            )
            .with_annotations(full.clone()),
            "EmbeddedResource",
        ),
        (
            Content::resource_blob("file:///a.bin", vec![0u8, 159, 146, 150]),
            "EmbeddedResource",
        ),
        (
            Content::resource(
                ResourceContents::blob("file:///a.png", vec![0x89u8]).with_mime_type("image/png"),
            ),
            "EmbeddedResource",
        ),
        (
            Content::resource_link(ResourceLink::new("file:///big.csv", "big.csv")),
            "ResourceLink",
        ),
        (
            Content::resource_link(
                ResourceLink::new("https://example.com/r/1", "r1")
                    .with_title("Report one")
                    .with_description("The first report.")
                    .with_mime_type("application/pdf")
                    .with_size(48_213),
            )
            .with_annotations(full),
            "ResourceLink",
        ),
    ]
}

#[test]
fn each_block_is_valid_at_both_revisions_alone_in_a_tool_result_and_in_a_prompt_message() {
    for rev in REVISIONS {
        let spec = Spec::load(rev);
        for (block, def) in every_block() {
            let v = wire(&block);
            spec.check(def, &v);
            spec.check("ContentBlock", &v);
            spec.check("PromptMessage", &json!({"role": "user", "content": v}));
            let mut result = json!({"content": [v]});
            if rev == "2026-07-28" {
                result["resultType"] = json!("complete");
            }
            spec.check("CallToolResult", &result);
        }
    }
}

#[test]
fn the_checker_is_not_vacuous() {
    let spec = Spec::load("2026-07-28");
    let image = wire(&Content::image(vec![1u8], "image/png"));
    let mut no_mime = image.clone();
    no_mime.as_object_mut().unwrap().remove("mimeType");
    assert!(!spec.errors("ImageContent", &no_mime).is_empty());
    let mut bad_priority = image;
    bad_priority["annotations"] = json!({"priority": 2});
    assert!(!spec.errors("ImageContent", &bad_priority).is_empty());
    assert!(!spec
        .errors("ContentBlock", &json!({"type": "video", "data": ""}))
        .is_empty());
}

#[test]
fn bytes_travel_as_standard_base64_and_decode_back() {
    let bytes: Vec<u8> = (0..=255).collect();
    for (c, field) in [
        (Content::image(bytes.clone(), "image/png"), "/data"),
        (Content::audio(bytes.clone(), "audio/wav"), "/data"),
        (
            Content::resource_blob("file:///b", bytes.clone()),
            "/resource/blob",
        ),
    ] {
        let v = wire(&c);
        let text = v.pointer(field).and_then(Value::as_str).unwrap();
        let back = base64::engine::general_purpose::STANDARD
            .decode(text)
            .unwrap();
        assert_eq!(back, bytes, "{field}");
    }
    assert_eq!(
        Content::image(bytes.clone(), "image/png").data(),
        Some(&bytes[..])
    );
}

#[test]
fn wire_forms_are_exact() {
    assert_eq!(
        wire(&Content::text("hi")),
        json!({"type": "text", "text": "hi"})
    );
    assert_eq!(
        wire(&Content::audio(b"abc".to_vec(), "audio/wav")),
        json!({"type": "audio", "data": "YWJj", "mimeType": "audio/wav"})
    );
    assert_eq!(
        wire(&Content::resource(
            ResourceContents::text("test://r", "x").with_mime_type("text/plain")
        )),
        json!({"type": "resource", "resource": {"uri": "test://r", "mimeType": "text/plain", "text": "x"}})
    );
    assert_eq!(
        wire(&Content::resource_link(
            ResourceLink::new("test://r", "r").with_size(3)
        )),
        json!({"type": "resource_link", "uri": "test://r", "name": "r", "size": 3})
    );
    let annotated = Content::text("x").with_annotations(
        Annotations::new()
            .with_audience([Role::Assistant, Role::Assistant, Role::User])
            .with_priority(0.0)
            .unwrap(),
    );
    assert_eq!(
        wire(&annotated)["annotations"],
        json!({"audience": ["assistant", "user"], "priority": 0.0})
    );
    // Empty annotations are not sent at all.
    assert_eq!(
        wire(&Content::text("x").with_annotations(Annotations::new())),
        json!({"type": "text", "text": "x"})
    );
}

#[test]
fn a_priority_outside_zero_to_one_is_refused() {
    for bad in [-0.01, 1.01, f64::NAN, f64::INFINITY] {
        let e = Annotations::new().with_priority(bad).unwrap_err();
        assert!(e.to_string().contains("outside [0, 1]"), "{e}");
    }
    for good in [0.0, 0.5, 1.0] {
        assert_eq!(
            Annotations::new().with_priority(good).unwrap().priority(),
            Some(good)
        );
    }
}

#[test]
fn a_tool_output_keeps_its_blocks_in_order() {
    let out = ToolOutput::text("first")
        .and(Content::image(vec![1u8], "image/png"))
        .and_text("third")
        .and(Content::resource_link(ResourceLink::new("test://x", "x")));
    let kinds: Vec<ContentKind> = out.content().iter().map(Content::kind).collect();
    assert_eq!(
        kinds,
        [
            ContentKind::Text,
            ContentKind::Image,
            ContentKind::Text,
            ContentKind::ResourceLink
        ]
    );
    assert_eq!(out.texts().collect::<Vec<_>>(), ["first", "third"]);
    let blocks = ToolOutput::blocks([Content::audio(vec![2u8], "audio/wav"), "tail".into()]);
    assert_eq!(blocks.content()[1].as_text(), Some("tail"));
}

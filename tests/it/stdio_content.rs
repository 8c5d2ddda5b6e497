//! Content blocks, prompts with images and embedded resources, and `completion/complete`,
//! driven over stdio against the conformance harness as a real subprocess
//! (`conformance_server --stdio`), at both revisions; every response is checked against the
//! MCP schema of the revision it answers at.

use crate::support::child;
use crate::support::spec;

use base64::Engine as _;
use child::ChildClient;
use serde_json::{json, Value};
use spec::Spec;

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

/// One era's client: modern requests carry `_meta`; legacy ones follow an `initialize`.
struct Era {
    rev: &'static str,
    spec: Spec,
    client: ChildClient,
    next: i64,
}

impl Era {
    async fn open(rev: &'static str) -> Era {
        let mut era = Era {
            rev,
            spec: Spec::load(rev),
            client: ChildClient::spawn("conformance_server", &["--stdio"]),
            next: 100,
        };
        if rev == LEGACY {
            let r = era
                .client
                .request(
                    json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
                    "protocolVersion": LEGACY, "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}}),
                )
                .await;
            era.spec.check_response("InitializeResult", &r);
            assert_eq!(r["result"]["capabilities"]["completions"], json!({}));
            era.client
                .send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
                .await;
        }
        era
    }

    /// Sends `method` and returns the response, checked against `result_def` (or the error
    /// response schema).
    async fn call(&mut self, method: &str, mut params: Value, result_def: &str) -> Value {
        if self.rev == MODERN {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {}
            });
        }
        self.next += 1;
        let r = self
            .client
            .request(json!({"jsonrpc":"2.0","id":self.next,"method":method,"params":params}))
            .await;
        self.spec.check_response(result_def, &r);
        if self.rev == MODERN && r.get("result").is_some() {
            assert_eq!(r["result"]["resultType"], "complete", "{r}");
        }
        r
    }

    async fn tool(&mut self, name: &str) -> Value {
        let r = self
            .call(
                "tools/call",
                json!({"name": name, "arguments": {}}),
                "CallToolResult",
            )
            .await;
        assert!(r["result"].get("isError").is_none(), "{r}");
        r["result"]["content"].clone()
    }
}

fn bytes(b64: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(b64.as_str().unwrap())
        .unwrap()
}

fn types(blocks: &Value) -> Vec<&str> {
    blocks
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn tools_return_images_audio_embedded_resources_and_mixed_content_at_both_revisions() {
    for rev in [MODERN, LEGACY] {
        let mut e = Era::open(rev).await;

        let image = e.tool("test_image_content").await;
        assert_eq!(types(&image), ["image"]);
        assert_eq!(image[0]["mimeType"], "image/png");
        assert!(bytes(&image[0]["data"]).starts_with(&PNG_SIGNATURE));

        let audio = e.tool("test_audio_content").await;
        assert_eq!(types(&audio), ["audio"]);
        assert_eq!(audio[0]["mimeType"], "audio/wav");
        let wav = bytes(&audio[0]["data"]);
        assert_eq!((&wav[..4], &wav[8..12]), (&b"RIFF"[..], &b"WAVE"[..]));

        let embedded = e.tool("test_embedded_resource").await;
        assert_eq!(
            embedded,
            json!([{"type": "resource", "resource": {
                "uri": "test://embedded-resource", "mimeType": "text/plain",
                "text": "This is an embedded resource content."}}])
        );

        let mixed = e.tool("test_multiple_content_types").await;
        assert_eq!(types(&mixed), ["text", "image", "resource"], "{rev}");
        assert_eq!(mixed[0]["text"], "Multiple content types test:");
        assert_eq!(
            mixed[2]["resource"]["text"],
            r#"{"test":"data","value":123}"#
        );
    }
}

#[tokio::test]
async fn prompts_carry_images_and_embedded_resources_at_both_revisions() {
    for rev in [MODERN, LEGACY] {
        let mut e = Era::open(rev).await;
        let r = e
            .call(
                "prompts/get",
                json!({"name": "test_prompt_with_embedded_resource",
                       "arguments": {"resourceUri": "test://example-resource"}}),
                "GetPromptResult",
            )
            .await;
        let m = &r["result"]["messages"];
        assert_eq!(
            m[0]["content"]["resource"],
            json!({"uri": "test://example-resource", "mimeType": "text/plain",
                   "text": "Embedded resource content for testing."})
        );
        assert_eq!(
            m[1]["content"],
            json!({"type": "text", "text": "Please process the embedded resource above."})
        );

        let r = e
            .call(
                "prompts/get",
                json!({"name": "test_prompt_with_image"}),
                "GetPromptResult",
            )
            .await;
        let m = &r["result"]["messages"];
        assert_eq!(m[0]["role"], "user");
        assert_eq!(m[0]["content"]["type"], "image");
        assert!(bytes(&m[0]["content"]["data"]).starts_with(&PNG_SIGNATURE));
        assert_eq!(m[1]["content"]["text"], "Please analyze the image above.");
    }
}

#[tokio::test]
async fn completion_is_advertised_and_answered_for_prompts_and_templates_at_both_revisions() {
    let m = Spec::load(MODERN);
    let mut c = ChildClient::spawn("conformance_server", &["--stdio"]);
    let d = c
        .request(json!({"jsonrpc":"2.0","id":1,"method":"server/discover"}))
        .await;
    m.check_response("DiscoverResult", &d);
    assert_eq!(d["result"]["capabilities"]["completions"], json!({}));

    for rev in [MODERN, LEGACY] {
        let mut e = Era::open(rev).await;
        let r = e
            .call(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                       "argument": {"name": "arg1", "value": "test"}}),
                "CompleteResult",
            )
            .await;
        assert_eq!(
            r["result"]["completion"],
            json!({"values": ["test", "testing", "tested"], "total": 3, "hasMore": false})
        );
        // The context's resolved arguments are accepted beside the partial value.
        let r = e
            .call(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                       "argument": {"name": "arg2", "value": "wor"},
                       "context": {"arguments": {"arg1": "test"}}}),
                "CompleteResult",
            )
            .await;
        assert_eq!(
            r["result"]["completion"]["values"],
            json!(["world", "word", "work"])
        );
        let r = e
            .call(
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
                       "argument": {"name": "id", "value": "12"}}),
                "CompleteResult",
            )
            .await;
        assert_eq!(r["result"]["completion"]["values"], json!(["12", "123"]));
    }
}

#[tokio::test]
async fn completion_refusals_name_the_field_or_the_reference() {
    for rev in [MODERN, LEGACY] {
        let mut e = Era::open(rev).await;
        let prompt = json!({"type": "ref/prompt", "name": "test_prompt_with_arguments"});
        let cases = [
            (
                json!({"ref": {"type": "ref/prompt", "name": "nope"},
                       "argument": {"name": "arg1", "value": ""}}),
                json!({"ref": {"type": "ref/prompt", "name": "nope"}}),
            ),
            (
                json!({"ref": {"type": "ref/resource", "uri": "test://template/{other}"},
                       "argument": {"name": "id", "value": ""}}),
                json!({"ref": {"type": "ref/resource", "uri": "test://template/{other}"}}),
            ),
            // A listed resource is not a template: it has nothing to complete.
            (
                json!({"ref": {"type": "ref/resource", "uri": "test://static-text"},
                       "argument": {"name": "id", "value": ""}}),
                json!({"ref": {"type": "ref/resource", "uri": "test://static-text"}}),
            ),
            (
                json!({"ref": prompt, "argument": {"name": "arg9", "value": ""}}),
                json!({"ref": prompt, "argument": "arg9"}),
            ),
            (
                json!({"ref": {"type": "ref/tool", "name": "x"},
                       "argument": {"name": "arg1", "value": ""}}),
                json!({"field": "ref.type", "expected": ["ref/prompt", "ref/resource"]}),
            ),
            (
                json!({"argument": {"name": "arg1", "value": ""}}),
                json!({"field": "ref"}),
            ),
            (json!({"ref": prompt}), json!({"field": "argument"})),
            (
                json!({"ref": prompt, "argument": {"name": "arg1"}}),
                json!({"field": "argument.value"}),
            ),
            (
                json!({"ref": prompt, "argument": {"name": 1, "value": ""}}),
                json!({"field": "argument.name"}),
            ),
            (
                json!({"ref": prompt, "argument": {"name": "arg1", "value": ""},
                       "context": {"arguments": {"arg2": 7}}}),
                json!({"field": "context.arguments", "argument": "arg2"}),
            ),
            (
                json!({"ref": prompt, "argument": {"name": "arg1", "value": ""},
                       "context": []}),
                json!({"field": "context"}),
            ),
        ];
        for (params, data) in cases {
            let r = e
                .call("completion/complete", params.clone(), "CompleteResult")
                .await;
            assert_eq!(r["error"]["code"], -32602, "{rev} {params}: {r}");
            assert_eq!(r["error"]["data"], data, "{rev} {params}");
        }
    }
}

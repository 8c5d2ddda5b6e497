//! The conformance harness's catalog: the fixtures the official suite's server scenarios name,
//! with the strings its reference server returns. Included by `examples/conformance_server.rs`
//! through `#[path]`; the crate itself holds no tools.
//!
//! Only what the core serves is here: every content block in tool results and prompt
//! messages, text and blob resources, completion of prompt arguments and template variables.
//! Scenarios needing more are baselined in `conformance/baseline-*.yml`.

use beam_mcp::catalog::{
    CompleteError, Completion, CompletionRef, CompletionRequest, Mode, PromptArgument,
    PromptMessage, PromptSpec, ReadError, RenderError, RenderedPrompt, ResourceContents,
    ResourceSpec, ResourceTemplateSpec, Role,
};
use beam_mcp::{Arguments, Catalog, Content, ToolCall, ToolError, ToolOutput, ToolSpec};

/// A 1x1 transparent PNG, the suite's binary fixture.
const PNG_1X1: [u8; 67] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

/// A 16-bit mono PCM WAV file at 8 kHz holding four samples of silence: the audio fixture.
fn wav() -> Vec<u8> {
    const SAMPLES: u32 = 4;
    let data_len = SAMPLES * 2;
    let mut w = Vec::with_capacity(44 + data_len as usize);
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + data_len).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&1u16.to_le_bytes()); // mono
    w.extend_from_slice(&8000u32.to_le_bytes()); // sample rate
    w.extend_from_slice(&16000u32.to_le_bytes()); // byte rate
    w.extend_from_slice(&2u16.to_le_bytes()); // block align
    w.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    w.extend_from_slice(b"data");
    w.extend_from_slice(&data_len.to_le_bytes());
    w.resize(44 + data_len as usize, 0);
    w
}

const STATIC_TEXT: &str = "test://static-text";
const STATIC_BINARY: &str = "test://static-binary";
const TEMPLATE: &str = "test://template/{id}/data";

fn tool(name: &'static str, description: &'static str) -> ToolSpec {
    ToolSpec::new(name, description).with_mode(Mode::ReadOnly)
}

/// Every tool, resource, template and prompt the harness serves.
pub(crate) fn catalog() -> Catalog {
    Catalog::new()
        .tool(tool(
            "test_simple_text",
            "Returns a simple text response for testing.",
        ))
        .tool(tool(
            "test_image_content",
            "Returns an image (a 1x1 PNG) for testing.",
        ))
        .tool(tool(
            "test_audio_content",
            "Returns audio (a short WAV) for testing.",
        ))
        .tool(tool(
            "test_embedded_resource",
            "Returns an embedded text resource for testing.",
        ))
        .tool(tool(
            "test_multiple_content_types",
            "Returns text, an image and an embedded resource, in that order.",
        ))
        .tool(tool(
            "test_error_handling",
            "Always fails, as a tool error the client can read.",
        ))
        .tool(
            tool(
                "test_missing_capability",
                "Needs the client's sampling capability; refused -32021 without it.",
            )
            .with_required_client_capability("sampling"),
        )
        .tool(tool(
            "test_streaming_elicitation",
            "Answers with its result alone: the server sends no request on a response stream.",
        ))
        .tool(tool(
            "test_logging_tool",
            "Answers without log notifications: none are sent unless a log level is asked for.",
        ))
        .tool(tool(
            "test_trigger_tool_change",
            "Would change the tool list; the server advertises no list changes, so nothing is sent.",
        ))
        .tool(tool(
            "test_trigger_prompt_change",
            "Would change the prompt list; the server advertises no list changes, so nothing is sent.",
        ))
        .tool(
            tool(
                "test_custom_header",
                "Echoes a message that travels in the Mcp-Param-Message header too.",
            )
            .with_input_schema(serde_json::json!({
                "type": "object",
                "properties": {"message": {"type": "string", "x-mcp-header": "Message"}},
                "required": ["message"],
                "additionalProperties": false
            })),
        )
        .tool(
            tool(
                "json_schema_2020_12_tool",
                "Tool with JSON Schema 2020-12 features",
            )
            .with_input_schema(json_schema_2020_12()),
        )
        .resource(
            ResourceSpec::new(STATIC_TEXT, "Static Text Resource")
                .with_description("A static text resource for testing.")
                .with_mime_type("text/plain"),
        )
        .resource(
            ResourceSpec::new(STATIC_BINARY, "Static Binary Resource")
                .with_description("A static binary resource (a 1x1 PNG) for testing.")
                .with_mime_type("image/png"),
        )
        .resource(
            ResourceTemplateSpec::new(TEMPLATE, "Template Resource")
                .with_description("A resource template with one parameter, id.")
                .with_mime_type("application/json"),
        )
        .prompt(
            PromptSpec::new("test_simple_prompt")
                .with_description("A simple prompt without arguments."),
        )
        .prompt(
            PromptSpec::new("test_prompt_with_arguments")
                .with_description("A prompt with two required arguments.")
                .with_argument(
                    PromptArgument::new("arg1")
                        .with_description("First test argument")
                        .with_required(true),
                )
                .with_argument(
                    PromptArgument::new("arg2")
                        .with_description("Second test argument")
                        .with_required(true),
                ),
        )
        .prompt(
            PromptSpec::new("test_prompt_with_embedded_resource")
                .with_description("A prompt that embeds a resource.")
                .with_argument(
                    PromptArgument::new("resourceUri")
                        .with_description("URI of the resource to embed")
                        .with_required(true),
                ),
        )
        .prompt(
            PromptSpec::new("test_prompt_with_image").with_description("A prompt that carries an image."),
        )
        .reader(read)
        .renderer(render)
        .completer(complete)
}

/// The `json-schema-2020-12` scenario's input schema, as the suite writes it: `$schema`,
/// `$defs` with an `$anchor`, a `$ref`, `enum`, `allOf`/`anyOf`, `if`/`then`/`else` and
/// `additionalProperties`. Advertised unchanged and enforced by the general validator.
fn json_schema_2020_12() -> serde_json::Value {
    serde_json::json!({
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

/// The dispatch: one arm per tool.
pub(crate) async fn dispatch(call: ToolCall) -> Result<ToolOutput, ToolError> {
    match &*call.tool {
        "test_simple_text" => Ok(ToolOutput::text(
            "This is a simple text response for testing.",
        )),
        "test_image_content" => Ok(ToolOutput::block(Content::image(PNG_1X1, "image/png"))),
        "test_audio_content" => Ok(ToolOutput::block(Content::audio(wav(), "audio/wav"))),
        "test_embedded_resource" => Ok(ToolOutput::block(Content::resource(
            ResourceContents::text(
                "test://embedded-resource",
                "This is an embedded resource content.",
            )
            .with_mime_type("text/plain"),
        ))),
        "test_multiple_content_types" => Ok(ToolOutput::text("Multiple content types test:")
            .and(Content::image(PNG_1X1, "image/png"))
            .and(Content::resource(
                ResourceContents::text(
                    "test://mixed-content-resource",
                    r#"{"test":"data","value":123}"#,
                )
                .with_mime_type("application/json"),
            ))),
        "test_error_handling" => Err(ToolError::new(
            "This tool intentionally returns an error for testing",
        )),
        "test_missing_capability" => Ok(ToolOutput::text(
            "The client declared sampling: the call is served.",
        )),
        "test_streaming_elicitation" => Ok(ToolOutput::text(
            "No elicitation request is sent on the response stream.",
        )),
        "test_logging_tool" => Ok(ToolOutput::text("Done, without log notifications.")),
        "test_trigger_tool_change" | "test_trigger_prompt_change" => Ok(ToolOutput::text(
            "Nothing changed: list changes are not advertised.",
        )),
        "test_custom_header" => {
            let message = call.arguments.get("message").and_then(|v| v.as_str());
            Ok(ToolOutput::text(message.unwrap_or_default()))
        }
        "json_schema_2020_12_tool" => {
            let name = call.arguments.get("name").and_then(|v| v.as_str());
            Ok(ToolOutput::text(format!(
                "Accepted contact for {}.",
                name.unwrap_or("an unnamed caller")
            )))
        }
        other => Err(ToolError::new(format!("no such tool: {other}"))),
    }
}

async fn read(uri: String) -> Result<Vec<ResourceContents>, ReadError> {
    if uri == STATIC_TEXT {
        return Ok(vec![ResourceContents::text(
            uri,
            "This is the content of the static text resource.",
        )
        .with_mime_type("text/plain")]);
    }
    if uri == STATIC_BINARY {
        return Ok(vec![
            ResourceContents::blob(uri, PNG_1X1).with_mime_type("image/png")
        ]);
    }
    let id = uri
        .strip_prefix("test://template/")
        .and_then(|rest| rest.strip_suffix("/data"))
        .ok_or_else(|| ReadError::new(format!("no such resource: {uri}")))?;
    // Written by hand to keep the reference's key order; the id is escaped as a JSON string.
    let quoted = serde_json::Value::from(id).to_string();
    let data = serde_json::Value::from(format!("Data for ID: {id}")).to_string();
    let body = format!(r#"{{"id":{quoted},"templateTest":true,"data":{data}}}"#);
    Ok(vec![
        ResourceContents::text(uri.clone(), body).with_mime_type("application/json")
    ])
}

async fn render(name: String, args: Arguments) -> Result<RenderedPrompt, RenderError> {
    let arg = |k: &str| {
        args.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    let messages = match name.as_str() {
        "test_simple_prompt" => vec![PromptMessage::new(
            Role::User,
            "This is a simple prompt for testing.",
        )],
        "test_prompt_with_arguments" => vec![PromptMessage::new(
            Role::User,
            format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                arg("arg1"),
                arg("arg2")
            ),
        )],
        "test_prompt_with_embedded_resource" => vec![
            PromptMessage::with_content(
                Role::User,
                Content::resource(
                    ResourceContents::text(
                        arg("resourceUri"),
                        "Embedded resource content for testing.",
                    )
                    .with_mime_type("text/plain"),
                ),
            ),
            PromptMessage::new(Role::User, "Please process the embedded resource above."),
        ],
        "test_prompt_with_image" => vec![
            PromptMessage::with_content(Role::User, Content::image(PNG_1X1, "image/png")),
            PromptMessage::new(Role::User, "Please analyze the image above."),
        ],
        other => return Err(RenderError::new(format!("no such prompt: {other}"))),
    };
    Ok(RenderedPrompt::new(messages))
}

/// The completer: the candidates of each argument that start with the caller's partial value.
async fn complete(request: CompletionRequest) -> Result<Completion, CompleteError> {
    let candidates: &[&str] = match (&request.target, &*request.argument) {
        (CompletionRef::Prompt(_), "arg1") => &["test", "testing", "tested", "other"],
        (CompletionRef::Prompt(_), "arg2") => &["world", "word", "work"],
        (CompletionRef::ResourceTemplate(_), "id") => &["1", "12", "123"],
        _ => &[],
    };
    let values: Vec<&str> = candidates
        .iter()
        .copied()
        .filter(|c| c.starts_with(request.value.as_str()))
        .collect();
    let total = values.len() as u64;
    Ok(Completion::new(values).with_total(total))
}

//! The MCP Apps host's configuration, shared by `examples/mcp_app/main.rs` and the test that
//! drives it in-process over HTTP (`tests/it/extension_mcp_apps.rs`).
//!
//! The server declares the MCP Apps extension (`io.modelcontextprotocol/ui`) in its 2026-07-28
//! capabilities, lists its view as a resource of MIME type `text/html;profile=mcp-app`, and
//! points its tool at the view through the tool's `_meta`:
//! `{"ui": {"resourceUri": "ui://weather/view.html"}}`. A host that renders apps reads the
//! resource and shows it beside the tool's result.

use beam_mcp::catalog::{Icon, Mode, ReadError, ResourceContents, ResourceSpec};
use beam_mcp::{Catalog, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec};
use serde_json::{json, Value};

/// The MCP Apps extension identifier.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP App view.
pub(crate) const APP_MIME: &str = "text/html;profile=mcp-app";
/// The view's uri.
pub(crate) const VIEW_URI: &str = "ui://weather/view.html";
/// The view: a page the client renders in a sandbox.
pub(crate) const VIEW_HTML: &str = "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Weather</title></head>\n<body><main id=\"weather\">Waiting for a forecast.</main></body></html>\n";

/// The extension's settings: the view MIME types this server serves.
pub(crate) fn extension_settings() -> Value {
    json!({ "mimeTypes": [APP_MIME] })
}

/// The configuration: one tool whose `_meta` names the view, the view as a resource, the
/// extension declared.
pub(crate) fn config() -> ServerConfig {
    let catalog = Catalog::new()
        .tool(
            ToolSpec::new("get_weather", "Read the current weather for a place.")
                .with_mode(Mode::ReadOnly)
                .with_open_world_hint(true)
                .with_input_schema(json!({
                    "type": "object",
                    "properties": {"place": {"type": "string"}},
                    "required": ["place"],
                    "additionalProperties": false
                }))
                .with_meta("ui", json!({ "resourceUri": VIEW_URI })),
        )
        .resource(
            ResourceSpec::new(VIEW_URI, "weather-view")
                .with_title("Weather view")
                .with_mime_type(APP_MIME)
                .with_icon(Icon::new("data:image/svg+xml;base64,PHN2Zy8+").with_sizes(["any"])),
        )
        .reader(|uri: String| async move {
            if uri == VIEW_URI {
                Ok(vec![
                    ResourceContents::text(uri, VIEW_HTML).with_mime_type(APP_MIME)
                ])
            } else {
                Err(ReadError::new("no such view"))
            }
        });
    ServerConfig::new(catalog)
        .server_name("mcp-app-weather")
        .server_title("Weather (MCP App)")
        .extension(EXTENSION, extension_settings())
        .dispatch(|call: ToolCall| async move {
            let place = call
                .arguments
                .get("place")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            Ok::<_, ToolError>(ToolOutput::text(format!("12°C and clear in {place}")))
        })
}

//! The README's host: the seed's weather catalog served over stdio.
//!
//! ```text
//! cargo run --example weather
//! ```
//!
//! One tool (`get_weather`), two resources (a list and a template) and one prompt. The
//! weather itself is canned: this is an example of embedding, not of meteorology.

use beam_mcp::catalog::{
    CommandClass, Mode, PromptArgument, PromptMessage, PromptSpec, ReadError, RenderError,
    RenderedPrompt, ResourceContents, ResourceSpec, ResourceTemplateSpec, Role,
};
use beam_mcp::{
    Arguments, Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec,
};
use serde_json::json;
use std::process::ExitCode;

const PLACES: [(&str, &str); 2] = [("Oslo", "12°C, light rain"), ("Lima", "19°C, overcast")];

fn catalog() -> Catalog {
    Catalog::new()
        .tool(
            ToolSpec::new("get_weather", "Read the current weather for a place.")
                .command_class(CommandClass::OBSERVE)
                .mode(Mode::ReadOnly)
                .input_schema(json!({
                    "type": "object",
                    "properties": {"place": {"type": "string", "minLength": 1, "maxLength": 64}},
                    "required": ["place"],
                    "additionalProperties": false
                })),
        )
        .resource(ResourceSpec::new("weather://places", "places").mime_type("text/plain"))
        .resource(ResourceTemplateSpec::new("weather://place/{name}", "place"))
        .prompt(
            PromptSpec::new("forecast")
                .description("Ask for a forecast.")
                .argument(PromptArgument::new("place").required(true)),
        )
        .reader(read_resource)
        .renderer(get_prompt)
}

async fn get_weather(call: ToolCall) -> Result<ToolOutput, ToolError> {
    // The schema requires `place` as a string, so validation has already refused anything else.
    let place = call
        .arguments
        .get("place")
        .and_then(|v| v.as_str())
        .unwrap_or_default();
    match PLACES.iter().find(|(p, _)| p.eq_ignore_ascii_case(place)) {
        Some((p, w)) => Ok(ToolOutput::text(format!("{p}: {w}"))),
        None => Err(ToolError::new(format!("no weather station for {place}"))),
    }
}

async fn read_resource(uri: String) -> Result<Vec<ResourceContents>, ReadError> {
    if uri == "weather://places" {
        let names: Vec<&str> = PLACES.iter().map(|(p, _)| *p).collect();
        return Ok(vec![
            ResourceContents::text(uri, names.join("\n")).mime_type("text/plain")
        ]);
    }
    let name = uri.strip_prefix("weather://place/").unwrap_or_default();
    match PLACES.iter().find(|(p, _)| *p == name) {
        Some((_, w)) => Ok(vec![ResourceContents::text(uri.clone(), *w)]),
        None => Err(ReadError::new(format!("no such place: {name}"))),
    }
}

async fn get_prompt(_name: String, args: Arguments) -> Result<RenderedPrompt, RenderError> {
    let place = args
        .get("place")
        .and_then(|v| v.as_str())
        .unwrap_or_default();
    Ok(RenderedPrompt::new(vec![PromptMessage::new(
        Role::User,
        format!("What is the forecast for {place}?"),
    )])
    .description("A forecast request."))
}

#[tokio::main]
async fn main() -> ExitCode {
    // Logs go to stderr: stdout carries protocol frames only.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let config = ServerConfig::new(catalog())
        .server_name("weather")
        .dispatch(get_weather);
    let server = match Server::new(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("weather: {e}");
            return ExitCode::FAILURE;
        }
    };
    match beam_mcp::transport::stdio::serve_stdio(server).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("weather: {e}");
            ExitCode::FAILURE
        }
    }
}

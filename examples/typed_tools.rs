//! Typed tools: each tool one async function whose argument and result types give its schemas
//! (`schemars`), served over stdio, or over HTTP at `/mcp`.
//!
//! ```text
//! cargo run --example typed_tools
//! cargo run --example typed_tools -- --http 127.0.0.1:0 --print-addr
//! cargo run --example typed_tools -- --print-schema
//! ```
//!
//! - `forecast`: nested structs (`$defs` and `$ref`), a unit enum (`enum`), an `Option` of a
//!   referenced type (`anyOf` with `null`), a `Vec` (`items`), a `u8` with its bounds; a text
//!   result.
//! - `label`: a `#[serde(flatten)]` map beside declared fields, and a `u8` a caller may send as
//!   `3.0`; its structured result (`Json<Labelled>`) echoes what the handler decoded.
//! - `whoami`: the call's context (revision and carrier) as a structured result.
//! - `hourly`: a structured result that is not an object (`Json<Vec<i16>>`): listed with its
//!   array `outputSchema` and sent as `structuredContent` at 2026-07-28; at 2025-11-25, which
//!   admits only objects there, listed without one and sent as the text block alone.
//! - `strict_count`: a schema set by hand that admits what the handler's type cannot hold (an
//!   `integer` without bounds into a `u8`): a call above 255 passes validation and fails to
//!   decode, the host's bug, answered -32603 and logged.
//!
//! `--print-schema` prints `forecast`'s input schema as the tool advertises it, and exits.

use std::process::ExitCode;

use beam_mcp::catalog::Mode;
use beam_mcp::{Args, CallContext, Carrier, Catalog, Json, Server, ServerConfig, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;

/// Temperature units.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Units {
    Celsius,
    Fahrenheit,
}

/// Where the forecast is for.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Place {
    /// The place's name.
    #[schemars(length(min = 1, max = 64))]
    name: String,
    /// ISO 3166-1 alpha-2 country code.
    #[schemars(regex(pattern = r"^[A-Z]{2}$"))]
    country: Option<String>,
}

/// A weather alert to subscribe to.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Alert {
    /// What the alert is about.
    kind: AlertKind,
    /// Where to send it.
    #[schemars(email)]
    notify: String,
}

/// Alert kinds.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum AlertKind {
    Storm,
    Heat,
    Frost,
}

/// The arguments of `forecast`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Forecast {
    /// Where.
    place: Place,
    /// For how many days (1 to 14).
    #[schemars(range(min = 1, max = 14))]
    days: u8,
    /// Units; Celsius when absent.
    units: Option<Units>,
    /// Alerts to subscribe to alongside.
    #[serde(default)]
    alerts: Vec<Alert>,
}

/// `label`'s arguments: two declared fields and any other string-valued keys.
#[derive(Debug, Deserialize, JsonSchema)]
struct Label {
    /// The thing labelled.
    name: String,
    /// Its level, 0 to 255.
    level: u8,
    /// Every other key, as labels.
    #[serde(flatten)]
    labels: BTreeMap<String, String>,
}

/// What `label` decoded.
#[derive(Debug, Serialize, JsonSchema)]
struct Labelled {
    name: String,
    level: u8,
    labels: BTreeMap<String, String>,
}

/// Who asked.
#[derive(Debug, Serialize, JsonSchema)]
struct Caller {
    /// The revision the call was served at.
    revision: String,
    /// The transport: `stdio`, `http` or `host`.
    carrier: String,
}

/// `strict_count`'s arguments: a `u8` under a hand-set schema that does not bound it.
#[derive(Debug, Deserialize, JsonSchema)]
struct Count {
    n: u8,
}

async fn forecast(Args(f): Args<Forecast>) -> String {
    let units = match f.units {
        None | Some(Units::Celsius) => "°C",
        Some(Units::Fahrenheit) => "°F",
    };
    let country = f.place.country.as_deref().unwrap_or("--");
    let alerts: Vec<String> = f
        .alerts
        .iter()
        .map(|a| format!("{:?} to {}", a.kind, a.notify))
        .collect();
    format!(
        "{} ({country}): {} days of 12{units}; alerts: [{}]",
        f.place.name,
        f.days,
        alerts.join(", ")
    )
}

async fn label(Args(l): Args<Label>) -> Json<Labelled> {
    Json(Labelled {
        name: l.name,
        level: l.level,
        labels: l.labels,
    })
}

async fn whoami(context: CallContext) -> Json<Caller> {
    let carrier = match context.carrier {
        Carrier::Stdio => "stdio",
        Carrier::Http => "http",
        _ => "host",
    };
    Json(Caller {
        revision: context.revision.to_string(),
        carrier: carrier.into(),
    })
}

/// `hourly`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct Hours {
    /// How many hours ahead (1 to 24).
    #[schemars(range(min = 1, max = 24))]
    hours: u8,
}

async fn hourly(Args(h): Args<Hours>) -> Json<Vec<i16>> {
    Json((0..i16::from(h.hours)).map(|i| 12 - i % 5).collect())
}

async fn strict_count(Args(c): Args<Count>) -> String {
    format!("counted {}", c.n)
}

fn catalog() -> Catalog {
    Catalog::new()
        .tool(
            ToolSpec::new("forecast", "A canned forecast for a place.")
                .with_mode(Mode::ReadOnly)
                .with_handler(forecast),
        )
        .tool(ToolSpec::new("label", "Label a thing.").with_handler(label))
        .tool(
            ToolSpec::new("whoami", "Say how the call arrived.")
                .with_mode(Mode::ReadOnly)
                .with_handler(whoami),
        )
        .tool(
            ToolSpec::new("hourly", "Hourly temperatures ahead, in °C.")
                .with_mode(Mode::ReadOnly)
                .with_handler(hourly),
        )
        .tool(
            ToolSpec::new("strict_count", "Count, under a hand-set schema.")
                .with_input_schema(json!({
                    "type": "object",
                    "properties": {"n": {"type": "integer"}},
                    "required": ["n"]
                }))
                .with_handler(strict_count),
        )
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = match args.as_slice() {
        [] => None,
        [flag] if flag == "--print-schema" => {
            let tools = catalog();
            let schema = tools.tools()[0].input_schema().cloned().unwrap_or_default();
            println!("{schema}");
            return ExitCode::SUCCESS;
        }
        [flag, addr] if flag == "--http" => Some((addr.clone(), false)),
        [flag, addr, p] if flag == "--http" && p == "--print-addr" => Some((addr.clone(), true)),
        _ => {
            eprintln!("usage: typed_tools [--print-schema | --http ADDR [--print-addr]]");
            return ExitCode::FAILURE;
        }
    };
    let config = ServerConfig::new(catalog()).server_name("typed-tools");
    let server = match Server::new(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("typed_tools: {e}");
            return ExitCode::FAILURE;
        }
    };
    match http {
        None => match beam_mcp::transport::stdio::serve_stdio(server).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("typed_tools: {e}");
                ExitCode::FAILURE
            }
        },
        Some((addr, print)) => serve_http(server, &addr, print).await,
    }
}

#[cfg(feature = "http")]
async fn serve_http(server: Server, addr: &str, print: bool) -> ExitCode {
    use beam_mcp::transport::http::{serve, AllowedOrigins, HttpService};
    use std::io::Write;
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("typed_tools: cannot bind {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let bound = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("typed_tools: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Meant for loopback: every caller that reaches the socket is accepted.
    let service = HttpService::new(
        server,
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost", "http://127.0.0.1"]),
    )
    .path("/mcp");
    if print {
        let mut out = std::io::stdout();
        if writeln!(out, "{bound}").and_then(|()| out.flush()).is_err() {
            return ExitCode::FAILURE;
        }
    }
    match serve(listener, service).await {}
}

#[cfg(not(feature = "http"))]
async fn serve_http(_server: Server, _addr: &str, _print: bool) -> ExitCode {
    eprintln!("typed_tools: built without the `http` feature");
    ExitCode::FAILURE
}

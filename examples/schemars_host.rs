//! A host whose tool schemas are derived from Rust types with `schemars`, served over stdio, or
//! over HTTP at `/mcp`.
//!
//! ```text
//! cargo run --example schemars_host
//! cargo run --example schemars_host -- --http 127.0.0.1:0 --print-addr
//! cargo run --example schemars_host -- --print-schema
//! ```
//!
//! `schemars` writes JSON Schema 2020-12: a nested struct becomes `$defs` and `$ref`, a unit
//! enum `enum`, an `Option` of a referenced type `anyOf` with `null`, a `Vec` `items`, an
//! integer `format` with its bounds. The schema is handed to the tool exactly as derived:
//! `tools/list` advertises it unchanged and `tools/call` enforces it before the host's
//! deserialisation runs. `--print-schema` prints that schema and exits.

use std::process::ExitCode;

use beam_mcp::{Catalog, Server, ServerConfig, ToolCall, ToolError, ToolOutput, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

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

/// The input schema of `forecast`, exactly as `schemars` derives it.
fn forecast_schema() -> Value {
    schemars::schema_for!(Forecast).to_value()
}

fn catalog() -> Catalog {
    Catalog::new().tool(
        ToolSpec::new("forecast", "A canned forecast for a place.")
            .with_input_schema(forecast_schema()),
    )
}

async fn dispatch(call: ToolCall) -> Result<ToolOutput, ToolError> {
    // Validation has already enforced the derived schema; the typed view cannot fail on a
    // value it admitted, but a host still handles the error rather than unwrap.
    let args = Value::Object(call.arguments.into_map());
    let f: Forecast = serde_json::from_value(args)
        .map_err(|e| ToolError::new(format!("arguments do not fit the type: {e}")))?;
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
    Ok(ToolOutput::text(format!(
        "{} ({country}): {} days of 12{units}; alerts: [{}]",
        f.place.name,
        f.days,
        alerts.join(", ")
    )))
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
            println!("{}", forecast_schema());
            return ExitCode::SUCCESS;
        }
        [flag, addr] if flag == "--http" => Some((addr.clone(), false)),
        [flag, addr, p] if flag == "--http" && p == "--print-addr" => Some((addr.clone(), true)),
        _ => {
            eprintln!("usage: schemars_host [--print-schema | --http ADDR [--print-addr]]");
            return ExitCode::FAILURE;
        }
    };
    let config = ServerConfig::new(catalog())
        .server_name("schemars-host")
        .dispatch(dispatch);
    let server = match Server::new(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("schemars_host: {e}");
            return ExitCode::FAILURE;
        }
    };
    match http {
        None => match beam_mcp::transport::stdio::serve_stdio(server).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("schemars_host: {e}");
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
            eprintln!("schemars_host: cannot bind {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let bound = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("schemars_host: {e}");
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
    eprintln!("schemars_host: built without the `http` feature");
    ExitCode::FAILURE
}

//! The README's host: the weather catalog of the Elixir original's README, served over stdio, or over HTTP at `/mcp`.
//!
//! ```text
//! cargo run --example weather
//! cargo run --example weather -- --http 127.0.0.1:4000
//! cargo run --example weather -- --runtime-restarts 20 --restart-every-ms 25
//! cargo run --example weather -- --http 127.0.0.1:4000 --metrics 127.0.0.1:9464
//! cargo run --example weather -- --http 127.0.0.1:4000 --no-runtime
//! cargo run --example weather -- --http 127.0.0.1:4000 --cors http://localhost:5173
//! cargo run --example weather -- --http 127.0.0.1:4000 --otlp http://127.0.0.1:4317
//! ```
//!
//! Over HTTP, `/livez` and `/readyz` answer liveness and readiness (`HttpService::health_paths`;
//! under the runtime, `ApplicationRef::health`: unready while the catalog actor restarts or the
//! tree stops).
//!
//! `--metrics ADDR` serves what the crate records (`beam_mcp::metrics`) in Prometheus's text
//! format at `http://ADDR/metrics`.
//!
//! `--cors ORIGIN` (repeatable, or a comma list) lets a page served from ORIGIN
//! (`scheme://host[:port]`, exactly as a browser sends it in `Origin`) call the endpoint:
//! ORIGIN joins the allowed origins and CORS is on for them (`HttpService::cors`, `docs/http.md`
//! "CORS"). `tools/browser_interop.sh` runs the TypeScript SDK in Chromium against it.
//!
//! `--otlp URL` exports the crate's request and dispatch spans (feature `otel`,
//! `docs/tracing.md`) over OTLP/gRPC to `URL` (a Jaeger or an OpenTelemetry Collector, port
//! 4317), as service `weather`: a `tracing-opentelemetry` layer over the OpenTelemetry SDK's
//! batch span processor, over stdio or HTTP. What is still batched is flushed when the example
//! exits (stdin closed, or Ctrl-C over HTTP).
//!
//! `--runtime-restarts N` serves stdio under the supervised runtime instead of the bare
//! transport, and restarts the stdio connection N times, every `--restart-every-ms` (default
//! 25) milliseconds, logging `stdio transport restarted` on stderr after each; it exits once
//! stdin is closed and the connection has answered what it read. `tests/it/runtime_stdio_restarts.rs`
//! drives it to show that a restart loses no request.
//!
//! `--http ADDR` serves under the supervised runtime: the listener is an actor under the
//! transports supervisor and each connection a task it owns, tool calls run in the dispatch
//! pool under its deadline. With `--no-runtime` it
//! serves the bare transport instead (`transport::http::serve`, as stdio is served by
//! default): the same endpoint and protocol refusals, and nothing of the runtime's — no bound
//! on concurrent host work (so no `overloaded` refusal), no per-call deadline (a host that
//! blocks holds its worker thread and its connection), no replaced workers, no ordered stop
//! (Ctrl-C drops calls in flight), no `mcp_pool_*` metrics. Host work runs on each
//! connection's own task. `tools/cost_per_call.sh` measures the two side by side.
//!
//! One tool (`get_weather`, with a structured result under an output schema), two resources
//! (a list and a template), one prompt, and a completer for the prompt's `place` and the
//! template's `name`. Each item and the server carry the metadata clients show: titles, the
//! tool's annotations, an icon, and a host `_meta` entry (`tools/interop.sh` checks that real
//! clients see them as declared). The weather itself is canned: this is an example of
//! embedding, not of meteorology.

use beam_mcp::catalog::{
    CompleteError, Completion, CompletionRequest, Icon, Mode, PromptArgument, PromptMessage,
    PromptSpec, ReadError, RenderError, RenderedPrompt, ResourceContents, ResourceSpec,
    ResourceTemplateSpec, Role,
};
use beam_mcp::{Args, Arguments, Catalog, Json, Server, ServerConfig, ToolError, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::process::ExitCode;

// The binary picks its allocator, as a host may; the library never sets one. mimalloc's
// per-thread free lists serve the many small, short-lived allocations of a request for less
// CPU than the system allocator, at the same resident memory (both by `tools/cost_per_call.sh`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Each station: its place, the temperature in °C, the conditions.
const PLACES: [(&str, i64, &str); 2] = [("Oslo", 12, "light rain"), ("Lima", 19, "overcast")];

/// The one icon every item and the server show: a sun, inline, so no client fetches anything.
fn sun() -> Icon {
    const SVG: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PGNpcmNsZSBjeD0iOCIgY3k9IjgiIHI9IjYiIGZpbGw9IiNmNWI0MDAiLz48L3N2Zz4=";
    Icon::new(SVG)
        .with_mime_type("image/svg+xml")
        .with_sizes(["any"])
}

// side-by-side: begin
/// Where to read the weather.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Query {
    /// The place, as its station is named (any case).
    #[schemars(length(min = 1, max = 64))]
    place: String,
}

/// The weather at a station.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Report {
    /// The station's place.
    place: &'static str,
    /// The temperature, in °C.
    celsius: i64,
    /// The conditions, in words.
    conditions: &'static str,
}

/// The tool: its name, description and hints once; its schemas from `Query` and `Report`.
async fn get_weather(Args(query): Args<Query>) -> Result<Json<Report>, ToolError> {
    let found = PLACES
        .iter()
        .find(|(p, ..)| p.eq_ignore_ascii_case(&query.place));
    let (place, celsius, conditions) =
        found.ok_or_else(|| ToolError::new(format!("no weather station for {}", query.place)))?;
    Ok(Json(Report {
        place,
        celsius: *celsius,
        conditions,
    }))
}

fn catalog() -> Catalog {
    Catalog::new()
        .tool(
            ToolSpec::new("get_weather", "Read the current weather for a place.")
                .with_title("Current weather")
                .with_mode(Mode::ReadOnly)
                .with_idempotent_hint(true)
                .with_open_world_hint(false)
                .with_icon(sun())
                .with_meta("org.example/units", json!("metric"))
                .with_handler(get_weather),
        )
        // side-by-side: end
        .resource(
            ResourceSpec::new("weather://places", "places")
                .with_title("Stations")
                .with_mime_type("text/plain")
                .with_icon(sun())
                .with_meta("org.example/refresh", json!("static")),
        )
        .resource(
            ResourceTemplateSpec::new("weather://place/{name}", "place")
                .with_title("A station's weather")
                .with_icon(sun())
                .with_meta("org.example/refresh", json!("hourly")),
        )
        .prompt(
            PromptSpec::new("forecast")
                .with_title("Forecast")
                .with_description("Ask for a forecast.")
                .with_argument(PromptArgument::new("place").with_required(true))
                .with_icon(sun())
                .with_meta("org.example/audience", json!("traveller")),
        )
        .reader(read_resource)
        .renderer(get_prompt)
        .completer(complete_place)
}

async fn read_resource(uri: String) -> Result<Vec<ResourceContents>, ReadError> {
    if uri == "weather://places" {
        let names: Vec<&str> = PLACES.iter().map(|(p, ..)| *p).collect();
        return Ok(vec![
            ResourceContents::text(uri, names.join("\n")).with_mime_type("text/plain")
        ]);
    }
    let name = uri.strip_prefix("weather://place/").unwrap_or_default();
    match PLACES.iter().find(|(p, ..)| *p == name) {
        Some((_, celsius, conditions)) => Ok(vec![ResourceContents::text(
            uri.clone(),
            format!("{celsius}°C, {conditions}"),
        )]),
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
    .with_description("A forecast request."))
}

/// Completes a place (the prompt's `place`, the template's `name`): the stations whose name
/// starts with what the caller typed, ignoring case.
async fn complete_place(request: CompletionRequest) -> Result<Completion, CompleteError> {
    let typed = request.value.to_lowercase();
    let matches: Vec<&str> = PLACES
        .iter()
        .map(|(p, ..)| *p)
        .filter(|p| p.to_lowercase().starts_with(&typed))
        .collect();
    let total = matches.len() as u64;
    Ok(Completion::new(matches).with_total(total))
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut otlp = None;
    let mut http_addr = None;
    let mut cors: Vec<String> = Vec::new();
    let mut runtime = true;
    let mut connectome = false;
    let mut restarts: Option<u32> = None;
    let mut every_ms: u64 = 25;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match (flag.as_str(), cfg!(feature = "http")) {
            ("--http", true) => match args.next() {
                Some(addr) => http_addr = Some(addr),
                None => return usage(),
            },
            ("--no-runtime", true) => runtime = false,
            ("--cors", true) => match args.next().map(|list| origins(&list)) {
                Some(Ok(list)) => cors.extend(list),
                Some(Err(bad)) => {
                    eprintln!(
                        "weather: --cors takes origins as a browser sends them, scheme://host[:port] \
                         (no path, no trailing slash): {bad:?}"
                    );
                    return ExitCode::FAILURE;
                }
                None => return usage(),
            },
            ("--connectome", _) => connectome = true,
            ("--metrics", _) => match args.next().map(|a| a.parse::<std::net::SocketAddr>()) {
                Some(Ok(addr)) => {
                    // The library records through the `metrics` facade; the host picks the
                    // exporter. Here, Prometheus's text format on its own loopback port.
                    let installed = metrics_exporter_prometheus::PrometheusBuilder::new()
                        .with_http_listener(addr)
                        .install();
                    if let Err(e) = installed {
                        eprintln!("weather: cannot serve metrics on {addr}: {e}");
                        return ExitCode::FAILURE;
                    }
                }
                _ => return usage(),
            },
            ("--otlp", _) => match args.next() {
                Some(url) => otlp = Some(url),
                None => return usage(),
            },
            ("--runtime-restarts", _) => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => restarts = Some(n),
                None => return usage(),
            },
            ("--restart-every-ms", _) => match args.next().and_then(|n| n.parse().ok()) {
                Some(ms) => every_ms = ms,
                None => return usage(),
            },
            _ => return usage(),
        }
    }
    // With `--otlp`, the guard flushes the spans still batched when `main` returns, whichever
    // way it does.
    let exporting = match otlp.map(|url| Otlp::start(&url)).transpose() {
        Ok(otlp) => otlp,
        Err(e) => {
            eprintln!("weather: cannot export OTLP: {e}");
            return ExitCode::FAILURE;
        }
    };
    if exporting.is_none() {
        subscriber(None);
    }
    let server = match Server::new(config(connectome)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("weather: {e}");
            return ExitCode::FAILURE;
        }
    };
    #[cfg(feature = "http")]
    match http_addr {
        Some(addr) => return serve_http(server, &addr, runtime, cors).await,
        // `--no-runtime` and `--cors` choose how HTTP is served; stdio is served bare already.
        None if !runtime || !cors.is_empty() => return usage(),
        None => {}
    }
    #[cfg(not(feature = "http"))]
    let _ = (http_addr, runtime, cors);
    if let Some(restarts) = restarts {
        let every = std::time::Duration::from_millis(every_ms);
        return serve_stdio_restarting(server, restarts, every).await;
    }
    match beam_mcp::transport::stdio::serve_stdio(server).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("weather: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: weather [--http ADDR [--no-runtime] [--cors ORIGIN[,ORIGIN…]]…] [--metrics ADDR] [--otlp URL] [--connectome] [--runtime-restarts N [--restart-every-ms K]]"
    );
    ExitCode::FAILURE
}

/// The example's `tracing` subscriber, with OpenTelemetry export when `--otlp` asked for it;
/// the SDK's provider is shut down (what it still holds exported) when this is dropped.
struct Otlp(opentelemetry_sdk::trace::SdkTracerProvider);

impl Otlp {
    /// Installs the subscriber: logs on stderr, and the crate's spans exported to `otlp`, an
    /// OTLP/gRPC endpoint.
    fn start(otlp: &str) -> Result<Otlp, opentelemetry_otlp::ExporterBuildError> {
        use opentelemetry::trace::TracerProvider as _;
        use opentelemetry_otlp::WithExportConfig as _;
        // The tonic exporter's channel runs on the tokio runtime it is built in (this one);
        // the batch processor exports from a thread of its own.
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_tonic()
            .with_endpoint(otlp)
            .build()?;
        let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(
                opentelemetry_sdk::Resource::builder()
                    .with_service_name("weather")
                    .build(),
            )
            .build();
        subscriber(Some(provider.tracer("weather")));
        Ok(Otlp(provider))
    }
}

impl Drop for Otlp {
    fn drop(&mut self) {
        // Blocks until the batch is exported (or the exporter's timeout): `main`'s own thread,
        // not a runtime worker, so the tonic channel's tasks run on meanwhile.
        if let Err(e) = self.0.shutdown() {
            eprintln!("weather: OTLP export at exit: {e}");
        }
    }
}

/// Logs go to stderr: stdout carries protocol frames only. The request and dispatch spans are
/// for an observing layer (OpenTelemetry's with `--otlp`, the connectome's); a log of every
/// call is not wanted here, and a span no layer wants costs nothing (an enabled one costs a
/// formatted field per call).
fn subscriber(tracer: Option<opentelemetry_sdk::trace::SdkTracer>) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;
    let wanted = Targets::new()
        .with_default(LevelFilter::INFO)
        .with_target(beam_mcp::DISPATCH_TARGET, LevelFilter::OFF)
        .with_target(beam_mcp::otel::REQUEST_TARGET, LevelFilter::OFF);
    // The crate's spans, and the events logged inside them (a panicking tool's), as span events.
    let exported = Targets::new().with_target("beam_mcp", LevelFilter::INFO);
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_filter(wanted);
    // Two stacks, not one with an `Option` layer: a `None` layer answers every callsite
    // "always", which would make the registry build the request and dispatch spans on every
    // call for no layer (about 12,000 instructions a call, `tools/cost_per_call.sh`).
    match tracer {
        Some(t) => {
            let otel = tracing_opentelemetry::layer()
                .with_tracer(t)
                .with_filter(exported);
            tracing_subscriber::registry().with(logs).with(otel).init();
        }
        None => tracing_subscriber::registry().with(logs).init(),
    }
}

/// The server's configuration. With `--connectome`, the four read-only `connectome://`
/// resources sit beside the weather ones and the dispatch site records into an attached
/// collector. The declared graph here is the catalog's own dispatch edges (a host in CI would
/// build it from its sources with `Declared::build` or the `connectome` CLI).
fn config(connectome: bool) -> ServerConfig {
    let described = |catalog| {
        ServerConfig::new(catalog)
            .server_name("weather")
            .server_title("Weather")
            .server_description("Canned weather for two stations: an example of embedding.")
            .server_website_url("https://example.org/weather")
            .server_icon(sun())
    };
    if !connectome {
        return described(catalog());
    }
    use beam_mcp::connectome::canonical::DigestAlgorithm;
    use beam_mcp::connectome::declared::Declared;
    use beam_mcp::connectome::model::Graph;
    use beam_mcp::connectome::observed::Collector;
    use beam_mcp::connectome::surface::Surface;
    let mut graph = Graph::new();
    graph.add_dispatch_edge("get_weather");
    let collector = Collector::new();
    collector.attach();
    let surface = Surface::new(
        Declared::from_parts(graph, Default::default()),
        collector.clone(),
        DigestAlgorithm::Sha256,
    );
    // The host's reader delegates the surface's uris to it and serves its own otherwise.
    let reader = {
        let surface = surface.clone();
        move |uri: String| {
            let surface = surface.clone();
            async move {
                match surface.read(&uri) {
                    Some(answer) => answer,
                    None => read_resource(uri).await,
                }
            }
        }
    };
    let catalog = surface.add_to(catalog()).reader(reader);
    described(catalog).collector(collector)
}

/// stdio under the supervised runtime, its connection restarted `restarts` times, `every`
/// apart, while the client writes; then served until stdin ends.
async fn serve_stdio_restarting(
    server: Server,
    restarts: u32,
    every: std::time::Duration,
) -> ExitCode {
    use beam_mcp::runtime::{Application, ApplicationConfig, STDIO};
    let runtime = match Application::start(server, ApplicationConfig::new().process_stdio()).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("weather: {e}");
            return ExitCode::FAILURE;
        }
    };
    for restart in 1..=restarts {
        tokio::time::sleep(every).await;
        if let Err(e) = runtime.restart_transport(STDIO).await {
            eprintln!("weather: {e}");
            return ExitCode::FAILURE;
        }
        tracing::info!(restart, "stdio transport restarted");
    }
    // The connection ends at EOF (or `exit`): a transient child that ended is listed without
    // an actor.
    loop {
        let running = match runtime.transports().await {
            Ok(t) => t
                .which_children()
                .await
                .map(|cs| cs.iter().any(|c| c.id == STDIO && c.cell.is_some()))
                .unwrap_or(false),
            Err(_) => false,
        };
        if !running {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    match runtime.stop(std::time::Duration::from_secs(5)).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("weather: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The origins of one `--cors` argument, a comma list: each `scheme://host[:port]`, as a
/// browser writes `Origin` (an origin with a path or a trailing slash would never match one).
fn origins(list: &str) -> Result<Vec<String>, String> {
    list.split(',')
        .map(str::trim)
        .map(|origin| {
            let rest = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"));
            match rest {
                Some(authority)
                    if !authority.is_empty() && !authority.contains(['/', '?', '#']) =>
                {
                    Ok(origin.to_owned())
                }
                _ => Err(origin.to_owned()),
            }
        })
        .collect()
}

/// HTTP under the supervised runtime: the listener an actor under the transports supervisor,
/// each connection a task it owns, tool calls in the dispatch pool. Without the runtime, the bare
/// transport: the same service on plain tasks. With `cors` origins, pages from them may call it
/// (CORS on). Runs until the process is stopped.
#[cfg(feature = "http")]
async fn serve_http(server: Server, addr: &str, supervised: bool, cors: Vec<String>) -> ExitCode {
    use beam_mcp::runtime::{Application, ApplicationConfig};
    use beam_mcp::transport::http::{AllowedOrigins, Cors, HttpService, ServeOptions};
    let listener = match std::net::TcpListener::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("weather: cannot bind {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // What is logged is the address bound: with port 0 in `--http`, the one the system chose
    // (`tools/browser_interop.sh` reads it from the log line).
    let addr = listener
        .local_addr()
        .map_or_else(|_| addr.to_owned(), |a| a.to_string());
    // This example accepts every caller that reaches the socket: it is meant to be bound to
    // loopback. A real host checks a credential here, from the request head alone.
    let authorize = |_: &http::request::Parts| Ok(());
    let mut allowed = vec!["http://localhost".to_owned(), "http://127.0.0.1".to_owned()];
    allowed.extend(cors.iter().cloned());
    // Liveness and readiness for a load balancer, beside the endpoint.
    let mut service = HttpService::new(server.clone(), authorize, AllowedOrigins::list(allowed))
        .path("/mcp")
        .health_paths("/livez", "/readyz");
    if !cors.is_empty() {
        // The pages' origins are allowed above; CORS lets those pages read the answers.
        tracing::info!(origins = ?cors, "CORS on for browser clients");
        service = service.cors(Cors::new());
    }
    if !supervised {
        let listener = match listener
            .set_nonblocking(true)
            .and_then(|()| tokio::net::TcpListener::from_std(listener))
        {
            Ok(l) => l,
            Err(e) => {
                eprintln!("weather: cannot listen on {addr}: {e}");
                return ExitCode::FAILURE;
            }
        };
        tracing::info!(%addr, "serving MCP over HTTP at /mcp, without the runtime");
        // Served until the process is stopped (or Ctrl-C): nothing here needs stopping in order.
        tokio::select! {
            never = beam_mcp::transport::http::serve(listener, service) => match never {},
            Ok(()) = tokio::signal::ctrl_c() => return ExitCode::SUCCESS,
        }
    }
    let config = ApplicationConfig::new().http(listener, service, ServeOptions::default());
    let runtime = match Application::start(server, config).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("weather: {e}");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(%addr, "serving MCP over HTTP at /mcp");
    // Served until the process is stopped; a Ctrl-C stops the tree in order first.
    let _ = tokio::signal::ctrl_c().await;
    let _ = runtime.stop(std::time::Duration::from_secs(5)).await;
    ExitCode::SUCCESS
}

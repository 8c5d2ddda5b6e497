//! An MCP Apps host: a tool whose result a client may show in an HTML view the server serves.
//!
//! ```text
//! cargo run --example mcp_app                          # stdio, both revisions
//! cargo run --example mcp_app -- --http 127.0.0.1:4000  # stateless HTTP at /mcp
//! ```
//!
//! `app.rs` holds the configuration: the extension `io.modelcontextprotocol/ui` declared in the
//! 2026-07-28 capabilities, the view `ui://weather/view.html` (`text/html;profile=mcp-app`) as a
//! resource, and the tool `get_weather` whose `_meta` names it. `tests/it/extension_mcp_apps.rs`
//! drives this binary over stdio and the same configuration over HTTP.

mod app;

use beam_mcp::Server;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let server = match Server::new(app::config()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("mcp_app: {e}");
            return ExitCode::FAILURE;
        }
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => match beam_mcp::transport::stdio::serve_stdio(server).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("mcp_app: {e}");
                ExitCode::FAILURE
            }
        },
        #[cfg(feature = "http")]
        [flag, addr] if flag == "--http" => http(server, addr).await,
        _ => {
            eprintln!("usage: mcp_app [--http ADDR]");
            ExitCode::FAILURE
        }
    }
}

#[cfg(feature = "http")]
async fn http(server: Server, addr: &str) -> ExitCode {
    use beam_mcp::transport::http::{serve, AllowedOrigins, HttpService};
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("mcp_app: cannot bind {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let port = match listener.local_addr() {
        Ok(a) => a.port(),
        Err(e) => {
            eprintln!("mcp_app: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Browsers are held to the loopback origins, with and without the bound port.
    let origins = AllowedOrigins::list([
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}"),
        "http://localhost".to_owned(),
        "http://127.0.0.1".to_owned(),
    ]);
    let service = HttpService::new(server, |_| Ok(()), origins).path("/mcp");
    match serve(listener, service).await {}
}

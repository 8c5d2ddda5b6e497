//! The harness the official MCP conformance suite runs against (`tools/conformance.sh`).
//!
//! ```text
//! cargo run --example conformance_server -- --http 127.0.0.1:3917
//! cargo run --example conformance_server -- --http 127.0.0.1:0 --print-addr
//! cargo run --example conformance_server -- --stdio
//! ```
//!
//! Serves `conformance/catalog.rs` over stateless HTTP at `/mcp`. With `--print-addr` the
//! bound address is printed on stdout once the socket listens (port 0 picks a free one).
//! With `--stdio` the same catalog is served over stdio at both revisions, which the suite
//! cannot reach: the project's own tests drive it there (`tests/it/stdio_content.rs`).

#[path = "../conformance/catalog.rs"]
mod catalog;

use beam_mcp::{Server, ServerConfig};
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config = ServerConfig::new(catalog::catalog())
        .server_name("beam-mcp-conformance")
        .dispatch(catalog::dispatch);
    let server = match Server::new(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("conformance_server: {e}");
            return ExitCode::FAILURE;
        }
    };
    match args.as_slice() {
        [flag] if flag == "--stdio" => {
            match beam_mcp::transport::stdio::serve_stdio(server).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("conformance_server: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        #[cfg(feature = "http")]
        [flag, addr] if flag == "--http" => http(server, addr, false).await,
        #[cfg(feature = "http")]
        [flag, addr, p] if flag == "--http" && p == "--print-addr" => {
            http(server, addr, true).await
        }
        _ => {
            eprintln!("usage: conformance_server --http ADDR [--print-addr] | --stdio");
            ExitCode::FAILURE
        }
    }
}

#[cfg(feature = "http")]
async fn http(server: Server, addr: &str, print: bool) -> ExitCode {
    use beam_mcp::transport::http::{serve, AllowedOrigins, HttpService};
    use std::io::Write;

    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("conformance_server: cannot bind {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let bound = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("conformance_server: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Bound to loopback, so every caller that reaches the socket is accepted; browsers are
    // held to the loopback origins, with and without the bound port.
    let origins = AllowedOrigins::list([
        format!("http://localhost:{}", bound.port()),
        format!("http://127.0.0.1:{}", bound.port()),
        "http://localhost".to_owned(),
        "http://127.0.0.1".to_owned(),
    ]);
    let service = HttpService::new(server, |_| Ok(()), origins).path("/mcp");
    if print {
        let mut out = std::io::stdout();
        if writeln!(out, "{bound}").and_then(|()| out.flush()).is_err() {
            return ExitCode::FAILURE;
        }
    }
    tracing::info!(%bound, "serving the conformance harness at /mcp");
    match serve(listener, service).await {}
}

//! Cancellation: a caller that leaves is heard. Tools that run until they are cancelled,
//! served over stdio or over HTTP at `/mcp`, on the bare transport or under the supervised
//! runtime (one worker, so a slot that did not come back would show at once).
//!
//! ```text
//! cargo run --example cancellation
//! cargo run --example cancellation -- --runtime
//! cargo run --example cancellation -- --http 127.0.0.1:0 --print-addr [--runtime]
//! cargo run --example cancellation -- --metrics 127.0.0.1:9464
//! ```
//!
//! `--metrics ADDR` serves what the crate records in Prometheus's text format at
//! `http://ADDR/metrics`: `mcp_cancellations_total` by transport, `mcp_tool_calls_total`
//! with `outcome="cancelled"`.
//!
//! - `wait`: awaits for ever. Its future is dropped when the caller cancels (stdio
//!   `notifications/cancelled`), closes its HTTP connection or resets its h2 stream.
//! - `crunch`: hands its work to a thread of its own, which the dropped future cannot stop;
//!   the thread reads the call's cancellation token between rounds and stops when it fires.
//! - `echo`: answers at once.
//!
//! Each tool says on stderr when it starts, and when it is dropped or stopped, naming the
//! call's `tag`: `wait a: started`, `wait a: dropped`, `crunch b: stopped by cancellation`.

use std::process::ExitCode;
use std::time::Duration;

use beam_mcp::runtime::{Application, ApplicationConfig};
use beam_mcp::{Args, CancellationToken, Catalog, Server, ServerConfig, ToolError, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;

/// Names a call in the log lines.
#[derive(Debug, Deserialize, JsonSchema)]
struct Tagged {
    /// The call's tag.
    #[schemars(length(max = 32))]
    tag: String,
}

/// Says on stderr when the future that owns it is dropped.
struct SaysDropped(String);

impl Drop for SaysDropped {
    fn drop(&mut self) {
        eprintln!("wait {}: dropped", self.0);
    }
}

async fn wait(Args(call): Args<Tagged>) -> String {
    let _dropped = SaysDropped(call.tag.clone());
    eprintln!("wait {}: started", call.tag);
    std::future::pending::<()>().await;
    unreachable!("a pending future never resolves")
}

async fn crunch(Args(call): Args<Tagged>, cancel: CancellationToken) -> Result<String, ToolError> {
    let (done, result) = tokio::sync::oneshot::channel();
    let tag = call.tag;
    eprintln!("crunch {tag}: started");
    std::thread::spawn(move || {
        let mut rounds = 0u64;
        let mut acc = 0u64;
        // Work that never ends by itself: only the token stops it.
        while !cancel.is_cancelled() {
            for i in 0..10_000u64 {
                acc = acc.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
            }
            rounds += 1;
            std::thread::yield_now();
        }
        eprintln!("crunch {tag}: stopped by cancellation after {rounds} rounds ({acc:x})");
        let _ = done.send(rounds);
    });
    let rounds = result
        .await
        .map_err(|_| ToolError::new("the worker thread went away"))?;
    Ok(format!("{rounds} rounds"))
}

async fn echo(Args(call): Args<Tagged>) -> String {
    call.tag
}

fn server() -> Server {
    let catalog = Catalog::new()
        .tool(ToolSpec::new("wait", "Waits for ever, until cancelled.").with_handler(wait))
        .tool(ToolSpec::new("crunch", "Works on a thread until cancelled.").with_handler(crunch))
        .tool(ToolSpec::new("echo", "Answers with its tag.").with_handler(echo));
    match Server::new(ServerConfig::new(catalog)) {
        Ok(s) => s,
        Err(e) => panic!("the example catalog is valid: {e}"),
    }
}

/// One worker and one place in the queue; a deadline no test reaches, so that only a
/// cancellation ends a call.
fn runtime_config() -> ApplicationConfig {
    ApplicationConfig::new()
        .workers(1)
        .queue(1)
        .deadline(Duration::from_secs(3600))
}

/// Why the example could not serve.
type Failure = Box<dyn std::error::Error>;

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cancellation: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
    };
    let supervised = args.iter().any(|a| a == "--runtime");
    if let Some(addr) = value_of("--metrics") {
        let addr: std::net::SocketAddr = addr.parse()?;
        metrics_exporter_prometheus::PrometheusBuilder::new()
            .with_http_listener(addr)
            .install()
            .map_err(|e| format!("cannot serve metrics on {addr}: {e}"))?;
    }
    match value_of("--http") {
        Some(addr) => serve_http(addr, supervised, args.iter().any(|a| a == "--print-addr")).await,
        None if supervised => supervise(runtime_config().process_stdio()).await,
        None => Ok(beam_mcp::transport::stdio::serve_stdio(server()).await?),
    }
}

/// Serves under the runtime until the process is stopped (on stdio, stdin's end ends the
/// connection, not the process); a Ctrl-C stops the tree in order first.
async fn supervise(config: ApplicationConfig) -> Result<(), Failure> {
    let runtime = Application::start(server(), config).await?;
    let _ = tokio::signal::ctrl_c().await;
    runtime.stop(Duration::from_secs(5)).await?;
    Ok(())
}

async fn serve_http(addr: &str, supervised: bool, print_addr: bool) -> Result<(), Failure> {
    use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
    let listener =
        std::net::TcpListener::bind(addr).map_err(|e| format!("cannot bind {addr}: {e}"))?;
    if print_addr {
        println!("{}", listener.local_addr()?);
    }
    // Loopback only: every caller that reaches the socket is accepted.
    let service = HttpService::new(server(), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    if !supervised {
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        match beam_mcp::transport::http::serve(listener, service).await {}
    }
    supervise(runtime_config().http(listener, service, ServeOptions::default())).await
}

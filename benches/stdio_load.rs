//! Load driver for the stdio transport, over the real stdin and stdout of a child process.
//!
//! `cargo bench --bench stdio_load` starts this same binary again as the server (an
//! environment variable tells it so), serving the process's stdin and stdout either with the
//! bare transport (`serve_stdio`) or under the supervised runtime (`process_stdio`, host work
//! in the dispatch pool), and measures `tools/call` at 2026-07-28:
//! - one at a time: requests/s and p50/p99 latency over 20,000 calls;
//! - pipelined: requests/s over 100,000 calls with 64 in flight.
//!
//! Every loop is bounded by its count (and ends early, failing, if the child closes stdout).

use beam_mcp::runtime::{Application, ApplicationConfig, STDIO};
use beam_mcp::{Catalog, Server, ServerConfig, ToolOutput, ToolSpec};
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SERVE: &str = "BEAM_MCP_STDIO_LOAD_SERVE";
const SEQUENTIAL: usize = 20_000;
const PIPELINED: usize = 100_000;
const WINDOW: usize = 64;
const RUNS: usize = 3;

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"place":"Oslo"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

fn server() -> Server {
    let catalog = Catalog::new().tool(ToolSpec::new("get_weather", "Weather.").with_input_schema(
        json!({
            "type":"object","properties":{"place":{"type":"string"}},"required":["place"]
        }),
    ));
    Server::new(ServerConfig::new(catalog).dispatch(|_c| async { Ok(ToolOutput::text("12°C")) }))
        .expect("valid catalog")
}

/// The child: serves stdin until EOF, then exits.
async fn serve(mode: &str) {
    if mode == "direct" {
        beam_mcp::transport::stdio::serve_stdio(server())
            .await
            .expect("stdio served");
        return;
    }
    let runtime = Application::start(server(), ApplicationConfig::new().process_stdio())
        .await
        .expect("runtime started");
    // The connection ends at EOF; a transient child that ended is listed without an actor.
    loop {
        let children = runtime
            .transports()
            .await
            .expect("transports")
            .which_children()
            .await
            .expect("children");
        if !children.iter().any(|c| c.id == STDIO && c.cell.is_some()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    runtime.stop(Duration::from_secs(5)).await.expect("stopped");
}

struct Child {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

fn spawn(mode: &str) -> Child {
    let mut child = Command::new(std::env::current_exe().expect("this binary"))
        .env(SERVE, mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the server");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    Child {
        child,
        stdin,
        stdout,
    }
}

fn answered(line: &str) -> bool {
    line.contains("12°C")
}

fn line() -> Vec<u8> {
    let mut line = BODY.as_bytes().to_vec();
    line.push(b'\n');
    line
}

/// One call at a time: requests/s and the latencies.
fn sequential(mode: &str) -> (f64, Vec<Duration>) {
    let mut c = spawn(mode);
    let frame = line();
    let mut reply = String::new();
    let mut latencies = Vec::with_capacity(SEQUENTIAL);
    let started = Instant::now();
    for _ in 0..SEQUENTIAL {
        let t = Instant::now();
        c.stdin.write_all(&frame).expect("write");
        c.stdin.flush().expect("flush");
        reply.clear();
        let n = c.stdout.read_line(&mut reply).expect("read");
        assert!(n > 0 && answered(&reply), "reply: {reply:?}");
        latencies.push(t.elapsed());
    }
    let rps = SEQUENTIAL as f64 / started.elapsed().as_secs_f64();
    drop(c.stdin);
    c.child.wait().expect("child exits");
    (rps, latencies)
}

/// `WINDOW` calls in flight: requests/s.
fn pipelined(mode: &str) -> f64 {
    let Child {
        mut child,
        mut stdin,
        mut stdout,
    } = spawn(mode);
    let (tokens, window) = std::sync::mpsc::sync_channel::<()>(WINDOW);
    for _ in 0..WINDOW {
        tokens.send(()).expect("window");
    }
    let started = Instant::now();
    let writer = std::thread::spawn(move || {
        let frame = line();
        for _ in 0..PIPELINED {
            window.recv().expect("a free place in the window");
            stdin.write_all(&frame).expect("write");
            stdin.flush().expect("flush");
        }
        stdin
    });
    let mut reply = String::new();
    for _ in 0..PIPELINED {
        reply.clear();
        let n = stdout.read_line(&mut reply).expect("read");
        assert!(n > 0 && answered(&reply), "reply: {reply:?}");
        let _ = tokens.try_send(());
    }
    let rps = PIPELINED as f64 / started.elapsed().as_secs_f64();
    drop(writer.join().expect("writer"));
    child.wait().expect("child exits");
    rps
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() {
    if let Ok(mode) = std::env::var(SERVE) {
        let rt = tokio::runtime::Runtime::new().expect("a tokio runtime");
        rt.block_on(serve(&mode));
        return;
    }
    // `cargo bench` passes `--bench`; any other argument filters nothing here.
    for mode in ["direct", "runtime"] {
        for run in 1..=RUNS {
            let (rps, mut lat) = sequential(mode);
            lat.sort();
            println!(
                "stdio {mode} one-at-a-time run {run}: {rps:.0} requests/s, p50 {:.1} µs, p99 {:.1} µs",
                percentile(&lat, 0.5).as_secs_f64() * 1e6,
                percentile(&lat, 0.99).as_secs_f64() * 1e6
            );
        }
        for run in 1..=RUNS {
            let rps = pipelined(mode);
            println!("stdio {mode} pipelined ({WINDOW} in flight) run {run}: {rps:.0} requests/s");
        }
    }
}

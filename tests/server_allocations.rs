//! The heap under the core, counted by a counting allocator: allocations per validated
//! `tools/call` — decode, route, validate and normalise, the host's future, the encoded reply —
//! held to the number reached (a change that allocates more on the hot path fails here; one
//! that allocates less should lower the bound); and the live heap across 10,000 add/call/remove
//! cycles of a live catalog, held flat.
//!
//! Each test runs on its own thread (a current-thread runtime, or none), and counts only that
//! thread's allocations: the test harness's own threads (its output, its timers) allocate now
//! and then, more so on a loaded machine, and are not the cost measured.
//!
//! A binary of its own, not a module of `tests/it`: its `#[global_allocator]` sees every
//! allocation of the process, so it is one per binary.
#![allow(unsafe_code)] // the counting allocator below; test-only

use beam_mcp::{Carrier, Catalog, Server, ServerConfig, Step, ToolCall, ToolOutput, ToolSpec};
use serde_json::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    /// Allocations made by this thread. A `const` `Cell` of an integer: reading or bumping it
    /// never allocates, and it has no destructor to run at thread exit.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    /// Bytes this thread allocated less bytes it freed.
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

fn count(grown: isize) {
    // `try_with`: a thread being torn down may still allocate after its locals are gone.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    live(grown);
}

fn live(grown: isize) {
    let _ = LIVE.try_with(|n| n.set(n.get() + grown));
}

fn counted() -> usize {
    ALLOCATIONS.with(Cell::get)
}

fn live_bytes() -> isize {
    LIVE.with(Cell::get)
}

// SAFETY: forwards to the system allocator unchanged, only counting calls and bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count(l.size() as isize);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        live(-(l.size() as isize));
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        count(new as isize - l.size() as isize);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// The most allocations one `tools/call` may cost, as measured when the bound was set: 10,
/// then 11 when a call's context gained its cancellation token (issue 26: the signal shared
/// between the host's work and whoever drops it needs one shared allocation per call).
const BOUND: usize = 11;

fn server() -> Server {
    let catalog = Catalog::new().tool(
        ToolSpec::new("get_weather", "Read the weather.").with_input_schema(json!({
            "type": "object",
            "properties": {
                "place": {"type": "string", "maxLength": 64},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
                "metric": {"type": "boolean"}
            },
            "required": ["place"],
            "additionalProperties": false
        })),
    );
    Server::new(
        ServerConfig::new(catalog).dispatch(|call: ToolCall| async move {
            let place = call.arguments.get("place").and_then(|v| v.as_str());
            Ok(ToolOutput::text(match place {
                Some("Oslo") => "Oslo: 12 C, light rain",
                _ => "somewhere",
            }))
        }),
    )
    .expect("a valid catalog")
}

async fn call(server: &Server, frame: &[u8]) -> usize {
    let reply = match server.handle(frame, Carrier::Http) {
        Step::Pending(p) => p.run().await,
        _ => panic!("a tools/call is host work"),
    };
    assert!(
        reply.bytes().windows(4).any(|w| w == b"Oslo"),
        "{}",
        String::from_utf8_lossy(reply.bytes())
    );
    reply.bytes().len()
}

#[tokio::test(flavor = "current_thread")]
async fn a_validated_tools_call_allocates_within_its_bound() {
    let server = server();
    let frame = serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {
            "name": "get_weather",
            "arguments": {"place": "Oslo", "days": 3, "metric": true},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    }))
    .unwrap();
    // The first calls settle what is set up once (callsites, the metrics facade's no-op).
    for _ in 0..3 {
        call(&server, &frame).await;
    }
    const CALLS: usize = 100;
    let before = counted();
    for _ in 0..CALLS {
        call(&server, &frame).await;
    }
    let per_call = (counted() - before) as f64 / CALLS as f64;
    eprintln!("allocations per tools/call: {per_call}");
    assert!(
        per_call <= BOUND as f64,
        "{per_call} allocations per tools/call; the bound is {BOUND}"
    );
}

/// What one churn cycle adds and removes: a tool with a schema of its own.
fn churned(name: &str) -> ToolSpec {
    ToolSpec::new(name, "Churned.").with_input_schema(json!({
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0}},
        "additionalProperties": false
    }))
}

fn frame(method: &str, params: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .unwrap()
}

async fn answer(server: &Server, frame: &[u8]) -> serde_json::Value {
    let reply = match server.handle(frame, Carrier::Stdio) {
        Step::Pending(p) => p.run().await,
        Step::Reply(r) => r,
        _ => panic!("a request is answered"),
    };
    serde_json::from_slice(reply.bytes()).unwrap()
}

/// One cycle: a tool of a name never seen before added, called, and removed.
async fn cycle(server: &Server, i: usize) {
    use beam_mcp::catalog::CatalogChange;
    let name = format!("churn_{i:05}");
    server
        .change(CatalogChange::new().add_tool(churned(&name)))
        .unwrap();
    let v = answer(
        server,
        &frame("tools/call", json!({"name": name, "arguments": {"n": 1}})),
    )
    .await;
    assert_eq!(v["result"]["content"][0]["text"], "somewhere", "{v}");
    server
        .change(CatalogChange::new().remove_tool(name))
        .unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn ten_thousand_add_remove_cycles_leave_the_live_heap_flat() {
    let server = server();
    let mut catalog = beam_mcp::catalog::CatalogChange::new();
    for i in 0..50 {
        catalog = catalog.add_tool(churned(&format!("base_{i:02}")));
    }
    server.change(catalog).unwrap();
    // A cursor minted now, after `base_49` (the first page of 50): every tool on that page is
    // removed below, and it still pages.
    let listed = |cursor: Option<&str>| {
        let params = cursor.map_or(json!({}), |c| json!({ "cursor": c }));
        frame("tools/list", params)
    };
    let first = answer(&server, &listed(None)).await;
    let cursor = first["result"]["nextCursor"].as_str().map(str::to_owned);

    // The first cycles settle what is set up once (callsites, capacity the maps keep).
    for i in 0..1_000 {
        cycle(&server, i).await;
    }
    let before = live_bytes();
    for i in 1_000..11_000 {
        cycle(&server, i).await;
    }
    let grown = live_bytes() - before;
    eprintln!("live heap after 10,000 add/call/remove cycles: {grown:+} bytes");
    // Flat: what one cycle holds (a tool entry, its schema, its list bytes) is a few KiB;
    // a leak of one byte per cycle would already pass 10 KB.
    assert!(
        grown.abs() < 8 * 1024,
        "the live heap grew by {grown} bytes"
    );

    let mut removal = beam_mcp::catalog::CatalogChange::new();
    for i in 0..50 {
        removal = removal.remove_tool(format!("base_{i:02}"));
    }
    server
        .change(
            removal
                .add_tool(churned("after_all"))
                .add_tool(churned("zz_last")),
        )
        .unwrap();
    let v = answer(&server, &listed(cursor.as_deref())).await;
    let names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["get_weather", "zz_last"], "{v}");
}

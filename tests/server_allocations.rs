//! Heap allocations per validated `tools/call` through the core — decode, route, validate and
//! normalise, the host's future, the encoded reply — counted by a counting allocator and held
//! to the number reached. A change that allocates more on the hot path fails here; one that
//! allocates less should lower the bound.
//!
//! The one test in this file runs on a current-thread runtime, so the whole call runs on the
//! test's thread, and only that thread's allocations are counted: the test harness's own
//! threads (its output, its timers) allocate now and then, more so on a loaded machine, and
//! are not the call's cost.
//!
//! A binary of its own, not a module of `tests/it`: its `#[global_allocator]` counts every
//! allocation of the process, so it is one per binary and no other test may allocate beside it.
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
}

fn count() {
    // `try_with`: a thread being torn down may still allocate after its locals are gone.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

fn counted() -> usize {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: forwards to the system allocator unchanged, only counting calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        count();
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

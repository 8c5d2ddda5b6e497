//! The sans-IO handle path: tools/list, and a validated tools/call with a 3-property schema
//! through the core (decode, route, validate, normalise, dispatch, encode).
//!
//! `cargo bench --bench core_handle`. Target: the tools/call under 2 µs median.

use beam_mcp::{Carrier, Catalog, Server, ServerConfig, Step, ToolOutput, ToolSpec};
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

fn server() -> Server {
    let tool = ToolSpec::new("get_weather", "Read the weather.").with_input_schema(json!({
        "type": "object",
        "properties": {
            "place": {"type": "string", "minLength": 1, "maxLength": 64},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "metric": {"type": "boolean"}
        },
        "required": ["place"],
        "additionalProperties": false
    }));
    let catalog = (0..20).fold(Catalog::new().tool(tool), |c, i| {
        c.tool(ToolSpec::new(format!("t{i}"), "x"))
    });
    Server::new(ServerConfig::new(catalog).dispatch(|_c| async { Ok(ToolOutput::text("12°C")) }))
        .unwrap()
}

/// Polls a future that never waits (the bench host is synchronous), without a runtime.
fn ready<F: std::future::Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    match f.as_mut().poll(&mut cx) {
        Poll::Ready(v) => v,
        Poll::Pending => unreachable!("the bench dispatch is synchronous"),
    }
}

fn bench(c: &mut Criterion) {
    let s = server();
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let call = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"place":"Oslo","days":3,"metric":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    c.bench_function("core/tools_list_21_tools", |b| {
        b.iter(|| match s.handle(black_box(list), Carrier::Stdio) {
            Step::Reply(r) => black_box(r),
            _ => unreachable!(),
        })
    });
    c.bench_function("core/tools_call_3_props", |b| {
        b.iter(|| match s.handle(black_box(call), Carrier::Stdio) {
            Step::Pending(p) => black_box(ready(p.run())),
            _ => unreachable!(),
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);

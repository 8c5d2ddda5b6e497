//! The declared graph of the fixture host crate and of this crate itself.

use std::path::{Path, PathBuf};

use beam_mcp::connectome::declared::{BoundEntry, BoundReason, Declared, DeclaredInput, ToolEntry};
use beam_mcp::connectome::model::{EdgeKey, EdgeKind};

fn fixture_manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host_crate/Cargo.toml")
}

fn fixture() -> Declared {
    let mut input = DeclaredInput::new(fixture_manifest());
    input.tools = vec![
        ToolEntry::new("get_weather", Some("host_crate::weather::api::get_weather")),
        ToolEntry::new(
            "get_forecast",
            Some("host_crate::weather::api::get_forecast"),
        ),
        ToolEntry::new("ghost", Some("host_crate::nowhere::ghost")),
    ];
    Declared::build(&input).expect("fixture builds")
}

fn call(from: &str, to: &str) -> EdgeKey {
    EdgeKey::new(EdgeKind::Call, format!("fn:{from}"), format!("fn:{to}"))
}

fn find<'a>(entries: &'a [BoundEntry], reason: BoundReason, callee: &str) -> &'a BoundEntry {
    entries
        .iter()
        .find(|e| e.reason == reason && e.callee == callee)
        .unwrap_or_else(|| panic!("no {reason:?} entry for {callee:?} in {entries:#?}"))
}

#[test]
fn fixture_static_edges_are_read() {
    let d = fixture();
    let g = d.graph();
    for key in [
        EdgeKey::dispatch("get_weather"),
        EdgeKey::new(
            EdgeKind::Serves,
            "tool:get_weather",
            "fn:host_crate::weather::api::get_weather",
        ),
        call("host_crate::serve", "host_crate::weather::api::get_weather"),
        call("host_crate::serve", "host_crate::log_line"),
        call(
            "host_crate::weather::api::get_weather",
            "host_crate::weather::backend::Station::new",
        ),
        call(
            "host_crate::weather::api::get_forecast",
            "host_crate::weather::api::summarize",
        ),
        call(
            "host_crate::weather::backend::Station::temperature",
            "host_crate::weather::backend::Station::read",
        ),
        // A call inside a macro's arguments is read; the macro itself is in the bound.
        call("host_crate::log_line", "host_crate::render"),
        // The call inside the closure is attributed to the enclosing function.
        call(
            "host_crate::weather::api::get_weather",
            "host_crate::weather::kelvin_to_celsius",
        ),
        EdgeKey::new(
            EdgeKind::ModuleCall,
            "module:host_crate",
            "module:host_crate::weather::api",
        ),
    ] {
        assert!(g.contains_edge(&key), "missing {key}");
    }
    let pkg = g
        .node("fn:host_crate::weather::api::get_weather")
        .and_then(|n| n.package.clone());
    assert_eq!(pkg.as_deref(), Some("host-crate"));
}

#[test]
fn fixture_bound_enumerates_dynamic_sites_with_lines() {
    let d = fixture();
    let dynamic = &d.bound().dynamic_dispatch;
    let api = "src/weather/api.rs";
    let e = find(
        dynamic,
        BoundReason::TraitObjectMethod,
        "backend.temperature",
    );
    assert_eq!((e.file.as_deref(), e.line), (Some(api), 10));
    let e = find(dynamic, BoundReason::FnPointerOrClosure, "scale");
    assert_eq!((e.file.as_deref(), e.line), (Some(api), 12));
    let e = find(dynamic, BoundReason::FnPointerOrClosure, "format_fn");
    assert_eq!((e.file.as_deref(), e.line), (Some(api), 14));
    let e = find(dynamic, BoundReason::CallExpression, "(self.probe)");
    assert_eq!(e.file.as_deref(), Some("src/weather/backend.rs"));
    assert_eq!(
        e.caller.as_deref(),
        Some("fn:host_crate::weather::backend::Station::read")
    );
}

#[test]
fn fixture_bound_enumerates_outside_scope_and_unreadable() {
    let d = fixture();
    let b = d.bound();
    let e = find(
        &b.outside_scope,
        BoundReason::ExternalPath,
        "serde_json::to_string",
    );
    assert_eq!(
        (e.file.as_deref(), e.line),
        (Some("src/weather/api.rs"), 15)
    );
    find(
        &b.outside_scope,
        BoundReason::ExternalPath,
        "std::mem::drop",
    );
    find(
        &b.outside_scope,
        BoundReason::MethodNotInScope,
        ".to_uppercase",
    );
    let e = find(
        &b.outside_scope,
        BoundReason::DispatchTargetNotInScope,
        "host_crate::nowhere::ghost",
    );
    assert_eq!(e.caller.as_deref(), Some("tool:ghost"));

    let e = find(&b.unreadable, BoundReason::ParseError, "host_crate::broken");
    assert_eq!((e.file.as_deref(), e.line), (Some("src/broken.rs"), 7));
    let e = find(
        &b.unreadable,
        BoundReason::MissingModuleFile,
        "host_crate::missing",
    );
    assert_eq!((e.file.as_deref(), e.line), (Some("src/lib.rs"), 4));
    find(&b.unreadable, BoundReason::MacroBody, "celsius!");
    find(&b.unreadable, BoundReason::MacroBody, "thread_local!");
    find(&b.unreadable, BoundReason::MacroBody, "println!");
    find(
        &b.unreadable,
        BoundReason::DeriveMacro,
        "derive(serde::Serialize)",
    );
    // Every entry but the tool's carries a file and a line.
    for entry in b.entries() {
        if entry.reason != BoundReason::DispatchTargetNotInScope {
            assert!(entry.file.is_some() && entry.line > 0, "{entry:?}");
        }
    }
}

#[test]
fn this_crate_has_a_non_empty_bound_with_dynamic_dispatch() {
    let mut input = DeclaredInput::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
    input.packages = vec!["beam-mcp".into()];
    let d = Declared::build(&input).expect("this crate builds");
    assert!(!d.bound().dynamic_dispatch.is_empty());
    assert!(d.graph().edge_count() > 0);
    // The collector's hot path counts through its bounded counter, which calls its cold
    // insert: direct, resolved edges.
    assert!(d.graph().contains_edge(&call(
        "beam_mcp::connectome::observed::collector::Collector::record_dispatch",
        "beam_mcp::connectome::observed::collector::Collector::count",
    )));
    assert!(d.graph().contains_edge(&call(
        "beam_mcp::connectome::observed::collector::Collector::count",
        "beam_mcp::connectome::observed::collector::Collector::insert",
    )));
}

#[test]
fn a_missing_package_is_an_error() {
    let mut input = DeclaredInput::new(fixture_manifest());
    input.packages = vec!["no-such-package".into()];
    let err = Declared::build(&input).unwrap_err();
    assert!(err.to_string().contains("no-such-package"), "{err}");
}

//! The integration tests, in one binary (rust-analyzer's `tests/it` layout: one link, not one
//! per file). Each module is one area and one thing, `<area>_<thing>`; `support` holds what
//! several of them share. Run one area with `cargo test --test it http_`, one test with
//! `cargo test --test it http_access::a_foreign_host_is_403`.
//!
//! Beside this binary, and apart from it for a reason each states in its own `//!`: the three
//! counting-allocator binaries (`tests/schema_bounded.rs`, `tests/server_allocations.rs`,
//! `tests/server_arguments.rs`: a `#[global_allocator]` is per process), `tests/soak_http.rs`
//! (it measures the process's own resident memory and descriptors), and `tests/cluster/`
//! (feature `cluster`).

mod support;

mod cancel_stdio;
mod cancel_subprocess;
mod catalog_http;
mod catalog_live;
mod catalog_live_subprocess;
mod catalog_metadata;
mod catalog_metadata_refusals;
mod catalog_pagination;
mod catalog_review;
mod catalog_startup;
mod catalog_view_panics;
mod catalog_views;
mod census_boundary;
mod cluster_cursor_key;
mod connectome_canonical;
mod connectome_canonical_text;
mod connectome_cli;
mod connectome_declared;
mod connectome_diff;
mod connectome_dispatch;
mod connectome_effective;
mod connectome_effective_rules;
mod connectome_federation;
mod connectome_golden;
mod connectome_golden_inputs;
mod connectome_observed;
mod connectome_reach;
mod connectome_surface;
mod connectome_surface_stdio;
mod content_blocks;
mod docs_boundary;
mod docs_conformance_table;
mod docs_interop_table;
mod docs_threat_model;
mod extension_mcp_apps;
mod http_access;
mod http_authorize_async_attacks;
mod http_bounds;
mod http_caller_context;
mod http_connections;
mod http_content;
mod http_cors;
mod http_headers;
mod http_legacy;
mod http_mount;
mod http_oauth;
mod http_oauth_review;
mod http_refusals;
mod http_routing;
mod http_validation;
mod http_write_deadline;
mod metrics_prometheus;
mod otel_otlp;
mod otel_spans;
mod runtime_caller_context;
mod runtime_dispatch_error_wire;
mod runtime_embedding;
mod runtime_faults;
mod runtime_health;
mod runtime_http;
mod runtime_pool;
mod runtime_reporter;
mod runtime_stdio_restarts;
mod runtime_transport_restart;
mod runtime_tree;
mod runtime_typed;
mod runtime_validation;
mod schema_arguments;
mod schema_crosscheck;
mod schema_float_bounds;
mod schema_general;
mod schema_oracle;
mod schema_schemars;
mod schema_subset;
mod server_cache_hints;
mod server_client_capabilities;
mod server_dispatch_span;
mod server_outcome_bytes;
mod soak_cancellation;
mod soak_stdio;
mod stdio_content;
mod stdio_host_faults;
mod stdio_weather;
mod tool_decode;
mod tool_derived;
mod tool_typed;

//! The cluster tests (feature `cluster`, `required-features` in Cargo.toml), in one binary of
//! their own: `cargo test --features cluster --test cluster`. Apart from `tests/it` because the
//! feature changes every actor message type (a default build does not build them), and because
//! `ractor`'s process-group registry is process-wide: the two tests that start nodes in this
//! process take `NODES` in turn, so neither sees the other's nodes.

#[allow(dead_code)] // shared with `tests/it`; these tests use part of it
#[path = "../it/support/child.rs"]
mod child;
#[allow(dead_code)] // shared with `tests/it`; these tests use part of it
#[path = "../it/support/runtime_host.rs"]
mod host;

mod cluster_dispatch;
mod cluster_example;
mod cluster_federation;

/// Held by each test that starts `ractor_cluster` nodes in this process, for its whole run.
static NODES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

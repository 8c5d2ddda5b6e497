//! The connectome: the host system's call graph, declared (read from source) and observed
//! (recorded at run time), written as canonical bytes and diffed.
//!
//! - [`model`]: nodes, edges, signs, graphs — the vocabulary of `docs/connectome.md`.
//! - [`canonical`]: the one writer of exported bytes (`docs/connectome-canonical.md`).
//! - [`declared`]: [`declared::Declared::build`], the static graph and its completeness bound.
//! - [`observed`]: the [`observed::Collector`], its actor and the optional tracing layer.
//! - [`diff`]: [`diff::Diff::run`], four classes and ten coverage counts (`docs/connectome-diff.md`).
//! - [`effective`]: effective connectivity, the declared graph weighted by observed counts
//!   (`docs/connectome-effective.md`).
//! - [`export`]: the three export documents (declared, observed, diff).
//! - [`federation`]: the observed graphs of several nodes merged into one export.
//! - [`import`]: sealed exports verified and read back as graphs (the command line's inputs).
//! - [`reporter`]: the actor that builds exports on demand, off the hot path.
//! - [`surface`]: the exports on the wire — four read-only resources and the `observe` tool's
//!   answer.
//! - [`reach`]: reachability, gate-avoiding witness paths and dominators (`docs/connectome-reach.md`).
//!
//! This module never writes a sign other than [`model::Sign::Unset`]: signs are the consumer's.
//!
//! ```
//! use beam_mcp::connectome::diff::Diff;
//! use beam_mcp::connectome::model::{EdgeKind, Graph};
//! use beam_mcp::connectome::observed::Collector;
//!
//! let mut declared = Graph::new();
//! declared.add_dispatch_edge("get_weather");
//! declared.add_dispatch_edge("get_forecast");
//!
//! let collector = Collector::new();
//! collector.attach();
//! collector.record_dispatch("get_weather");
//! let observed = collector.snapshot();
//!
//! let diff = Diff::run(&declared, &observed);
//! assert_eq!(diff.coverage().matched_edges, 1);
//! assert_eq!(diff.coverage().dead_authority_edges, 1);
//! assert_eq!(diff.dead_authority()[0].kind, EdgeKind::Dispatch);
//! ```

pub mod canonical;
pub mod declared;
pub mod diff;
pub mod effective;
pub mod export;
pub mod federation;
pub mod import;
pub mod model;
pub mod observed;
pub mod reach;
pub mod reporter;
pub mod surface;

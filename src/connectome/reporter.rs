//! The reporter actor: builds the exports on demand, off the hot path.

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};

use super::canonical::{CanonicalError, DigestAlgorithm, Sealed};
use super::declared::Declared;
use super::diff::Diff;
use super::effective::effective_export;
use super::export::{declared_export, diff_export, observed_export, ExportKind};
use super::model::{EdgeKind, Graph};
use super::observed::Collector;
use std::collections::BTreeSet;

/// What a [`Reporter`] starts with.
#[derive(Debug, Clone)]
pub struct ReporterArgs {
    /// The declared graph (built by the host, e.g. with
    /// [`Declared::build`](super::declared::Declared::build), before the reporter starts).
    pub declared: Declared,
    /// The collector whose snapshot is the observed graph.
    pub collector: Collector,
    /// The digest algorithm every export names.
    pub algorithm: DigestAlgorithm,
    /// The live catalog whose tools the declared graph follows at each export
    /// ([`Declared::following`]: the catalog's tools now, and every tool the collector saw
    /// called); `None` exports the declared graph as built.
    pub catalog: Option<crate::Server>,
}

/// The tools a declared graph follows: those the catalog holds now, and those the collector
/// saw called (each was in the catalog when it ran). A removed tool's past calls stay declared
/// for as long as the observed graph holds them, so they never read as drift; the collector's
/// bound bounds them.
pub(crate) fn tools_served(catalog: &crate::Server, observed: &Graph) -> BTreeSet<String> {
    let mut tools: BTreeSet<String> = catalog.tool_names().into_iter().collect();
    tools.extend(
        observed
            .edges()
            .filter(|(k, _)| k.kind == EdgeKind::Dispatch)
            .filter_map(|(k, _)| k.to.strip_prefix("tool:").map(str::to_owned)),
    );
    tools
}

/// Messages to a [`Reporter`].
#[derive(Debug)]
pub enum ReporterMsg {
    /// Build an export and reply with its sealed bytes.
    Export(ExportKind, RpcReplyPort<Result<Sealed, CanonicalError>>),
}

// Local only: under ractor's `cluster` feature (which removes ractor's blanket impl) it says
// so; the federated export asks other nodes through its own message (`cluster` module).
#[cfg(feature = "cluster")]
impl ractor::Message for ReporterMsg {}

/// Builds one export from a declared graph and a collector's current snapshot. Pure but for
/// reading the collector's counters.
///
/// # Errors
/// [`CanonicalError`] when the document cannot be written canonically (a count beyond
/// 2^53 − 1).
pub fn build_export(
    kind: ExportKind,
    declared: &Declared,
    collector: &Collector,
    algorithm: DigestAlgorithm,
) -> Result<Sealed, CanonicalError> {
    match kind {
        ExportKind::Declared => declared_export(declared, algorithm),
        _ => export_of(kind, declared, &collector.snapshot(), algorithm),
    }
}

/// One export from a declared graph and an observed one.
fn export_of(
    kind: ExportKind,
    declared: &Declared,
    observed: &Graph,
    algorithm: DigestAlgorithm,
) -> Result<Sealed, CanonicalError> {
    match kind {
        ExportKind::Declared => declared_export(declared, algorithm),
        ExportKind::Observed => observed_export(observed, algorithm),
        ExportKind::Diff => diff_export(&Diff::run(declared.graph(), observed), algorithm),
        ExportKind::Effective => effective_export(declared.graph(), observed, algorithm),
    }
}

/// The reporter actor, meant to run under the Root supervisor.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use beam_mcp::connectome::canonical::{verify, DigestAlgorithm};
/// use beam_mcp::connectome::declared::Declared;
/// use beam_mcp::connectome::export::ExportKind;
/// use beam_mcp::connectome::observed::Collector;
/// use beam_mcp::connectome::reporter::{Reporter, ReporterArgs, ReporterMsg};
/// let args = ReporterArgs {
///     declared: Declared::default(),
///     collector: Collector::new(),
///     algorithm: DigestAlgorithm::Sha512,
///     catalog: None,
/// };
/// let (reporter, handle) = ractor::Actor::spawn(None, Reporter, args).await.unwrap();
/// let sealed = ractor::call!(reporter, ReporterMsg::Export, ExportKind::Diff).unwrap().unwrap();
/// assert_eq!(verify(&sealed.bytes).unwrap().kind, "diff");
/// reporter.stop(None);
/// handle.await.unwrap();
/// # });
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Reporter;

impl Actor for Reporter {
    type Msg = ReporterMsg;
    type State = ReporterArgs;
    type Arguments = ReporterArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<Self::Msg>,
        args: ReporterArgs,
    ) -> Result<ReporterArgs, ActorProcessingErr> {
        Ok(args)
    }

    async fn handle(
        &self,
        _myself: ActorRef<Self::Msg>,
        message: ReporterMsg,
        state: &mut ReporterArgs,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            ReporterMsg::Export(kind, reply) => {
                let result = match &state.catalog {
                    // One snapshot for both: the tools the declared graph follows and the
                    // observed graph it is compared with.
                    Some(server) => {
                        let observed = state.collector.snapshot();
                        let tools = tools_served(server, &observed);
                        let declared = state.declared.following(tools.iter().map(String::as_str));
                        export_of(kind, &declared, &observed, state.algorithm)
                    }
                    None => build_export(kind, &state.declared, &state.collector, state.algorithm),
                };
                // A caller that gave up waiting is no fault of the reporter's.
                let _ = reply.send(result);
            }
        }
        Ok(())
    }
}

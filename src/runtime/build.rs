//! Building the tree: the shared state every child reads, each child's spec in its place, and
//! the root supervisor spawned over them (`Application::start` and `start_linked` call this).

use super::catalog::DispatcherSlot;
#[cfg(feature = "http")]
use super::http;
use super::pool::{Pool, PoolSettings};
use super::{
    children, probe, Application, ApplicationConfig, ApplicationError, ApplicationRef, Shared,
};
use crate::server::Server;
use beam_mcp_supervisors::{Strategy, SupervisorRef, SupervisorSpec};
use ractor::ActorCell;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

impl Application {
    /// Builds the tree and starts it: Root (rest_for_one) over the catalog, the dispatch
    /// pool, the collector and the reporter (with `connectome`, each when configured) and the
    /// transports supervisor (one_for_one) over stdio, HTTP and the host's own transports, in
    /// that order. Each child's spec is in `runtime/children.rs`.
    pub(super) async fn spawn(
        server: Server,
        config: ApplicationConfig,
        parent: Option<ActorCell>,
    ) -> Result<ApplicationRef, ApplicationError> {
        if config.workers == 0 {
            return Err(ApplicationError::InvalidOption {
                option: "workers",
                reason: "must be at least 1",
            });
        }
        if config.deadline.is_zero() {
            return Err(ApplicationError::InvalidOption {
                option: "deadline",
                reason: "must be longer than zero",
            });
        }
        let settings = PoolSettings {
            workers: config.workers,
            queue: config.queue,
            deadline: config.deadline,
        };
        let pool = Pool::new(settings);
        let dispatcher: DispatcherSlot = Arc::new(RwLock::new(None));
        let mut shared = Shared {
            server: server.clone(),
            probe: Arc::new(probe::RuntimeProbe::new(dispatcher.clone(), pool.clone())),
            pool,
            dispatcher,
            call_timeout: config.deadline + Duration::from_secs(10),
            #[cfg(feature = "connectome")]
            reporter: Arc::new(RwLock::new(None)),
            #[cfg(feature = "connectome")]
            federation_inputs: (
                config.reporter.clone(),
                server.collector().unwrap_or_default(),
            ),
            transports: HashMap::new(),
            #[cfg(feature = "http")]
            http_open: http::OpenConnections::default(),
        };

        let mut transports = Vec::new();
        if let Some((connect, options)) = config.stdio.clone() {
            let (server, pool) = (shared.server.clone(), shared.pool.clone());
            transports.push(children::stdio(
                server,
                pool,
                connect,
                options,
                config.deadline,
            ));
        }
        #[cfg(feature = "http")]
        if let Some(slot) = config.http.clone() {
            let (server, pool) = (shared.server.clone(), shared.pool.clone());
            let open = shared.http_open.clone();
            let probe: Arc<dyn crate::health::Probe> = shared.probe.clone();
            transports.push(children::http(
                slot,
                server,
                pool,
                probe,
                open,
                config.deadline,
            ));
        }
        transports.extend(config.transports.iter().cloned());
        for spec in &transports {
            shared.transports.insert(spec.id().to_owned(), spec.clone());
        }

        let (max, period) = config.intensity;
        let mut root = SupervisorSpec::new(Strategy::RestForOne)
            .intensity(max, period)
            .child(children::catalog(
                server.clone(),
                shared.pool.clone(),
                shared.dispatcher.clone(),
            ))
            .child(children::dispatch_pool(
                shared.pool.clone(),
                config.deadline,
            ));
        // The collector the server's dispatch site records into, when it has one.
        #[cfg(feature = "connectome")]
        if let Some(collector) = server.collector() {
            root = root.child(children::collector(collector));
        }
        #[cfg(feature = "connectome")]
        if let Some((declared, algorithm)) = config.reporter.clone() {
            let collector = server.collector().unwrap_or_default();
            let slot = shared.reporter.clone();
            root = root.child(children::reporter(
                declared,
                algorithm,
                collector,
                server.clone(),
                slot,
            ));
        }
        root = root.child(children::transports(transports, config.intensity));

        let spawned = match parent {
            Some(parent) => SupervisorRef::spawn_linked(config.name.clone(), root, parent).await,
            None => SupervisorRef::spawn(config.name.clone(), root).await,
        };
        let (root, _join) = spawned.map_err(ApplicationError::Start)?;
        let _ = shared.probe.root.set(root.cell());
        Ok(ApplicationRef {
            root,
            shared: Arc::new(shared),
        })
    }
}

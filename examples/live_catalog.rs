//! A live catalog: a plugin host whose tools change while it serves, under the supervised
//! runtime, over stdio or over HTTP at `/mcp`.
//!
//! ```text
//! cargo run --example live_catalog
//! cargo run --example live_catalog -- --http 127.0.0.1:0 --print-addr
//! cargo run --example live_catalog -- --seed 30 --page-size 7 --admin
//! ```
//!
//! This is host code. The crate holds no tools of its own and has no notion of a plugin:
//! it offers a change to the catalog (`CatalogChange`, applied whole or not at all by
//! `ApplicationRef::change` through the catalog actor), and what may be installed, by whom and
//! under which name is this host's policy.
//!
//! - `plugins.install {name}`: adds a tool `plugin.<name>` (the name is 1 to 32 of `a-z 0-9 _`,
//!   which its schema says and the server enforces before the handler runs). The new tool
//!   answers `plugin <name> installed at generation <g>`, `g` being the catalog's generation
//!   its install made. A name already installed is refused, as a tool error carrying the
//!   catalog's reason.
//! - `plugins.remove {name}`: removes `plugin.<name>`; one not installed is refused the same
//!   way. A call to a removed plugin is then an unknown tool (-32602), as one never installed.
//!
//! `--seed N` starts with `N` plugins, `seed_000` and on, installed (generation 0);
//! `--page-size K` sets the page size of every list (lists are keyset-paginated, so a client
//! paging while plugins come and go sees every plugin that stays exactly once).
//!
//! `--admin` adds two tools for watching the catalog's state outlive its actor:
//!
//! - `runtime.kill_catalog`: kills the catalog actor, waits for it to exit and answers its id.
//!   Its supervisor then restarts it, and with it (rest_for_one) the dispatch pool and the
//!   transports: the connection that carried this very call is stopped once the call is
//!   answered. The call cannot wait for the new actor, which is started only after the
//!   transports have stopped, and they wait for the calls in flight; so a task of the host's
//!   waits for the restart instead and says on stderr
//!   `catalog actor <old> replaced by <new>` once the tree is whole again.
//! - `runtime.catalog_actor`: answers the id of the catalog actor serving now.
//!
//! The catalog is not the actor's state but the server's one shared cell, so the restarted
//! actor, pool and transports serve every change made before the kill.
//!
//! On stdio, stdin's end ends the connection, not the process (as in the `cancellation`
//! example); a Ctrl-C stops the tree in order.

use std::process::ExitCode;
use std::time::Duration;

use beam_mcp::catalog::CatalogChange;
use beam_mcp::runtime::{Application, ApplicationConfig, ApplicationRef, CATALOG};
use beam_mcp::{Args, Catalog, Server, ServerConfig, ToolError, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::sync::watch;

/// A plugin, by name.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Plugin {
    /// The plugin's name: 1 to 32 of `a-z 0-9 _`. Its tool is `plugin.<name>`.
    #[schemars(regex(pattern = r"^[a-z0-9_]{1,32}$"))]
    name: String,
}

/// How long the host waits for the killed catalog actor to exit, and for its supervisor to
/// answer once the restart is done: bounds, not timings (both take far less).
const BOUND: Duration = Duration::from_secs(30);

/// What the host's own tools reach: the running application, known once it has started.
///
/// The transports start inside `Application::start`, so a request may reach a tool before the
/// handle is published: the tool waits for it rather than refuse.
#[derive(Clone)]
struct Host {
    app: watch::Receiver<Option<ApplicationRef>>,
}

impl Host {
    async fn app(&self) -> Result<ApplicationRef, ToolError> {
        let mut app = self.app.clone();
        let started = app
            .wait_for(Option::is_some)
            .await
            .map_err(|_| ToolError::new("the host did not start"))?;
        started
            .clone()
            .ok_or_else(|| ToolError::new("the host did not start"))
    }

    async fn install(&self, name: String) -> Result<String, ToolError> {
        let app = self.app().await?;
        // The plugin's answer names the generation its install made, known once the change
        // is answered; a call that reaches it before then waits for it.
        let (made, generation) = watch::channel(None);
        let change = CatalogChange::new().add_tool(plugin(&name, generation));
        let g = app
            .change(change)
            .await
            .map_err(|e| ToolError::new(e.to_string()))?;
        made.send_replace(Some(g));
        Ok(format!("installed plugin.{name} at generation {g}"))
    }

    async fn remove(&self, name: String) -> Result<String, ToolError> {
        let app = self.app().await?;
        let change = CatalogChange::new().remove_tool(format!("plugin.{name}"));
        let g = app
            .change(change)
            .await
            .map_err(|e| ToolError::new(e.to_string()))?;
        Ok(format!("removed plugin.{name} at generation {g}"))
    }

    async fn kill_catalog(&self) -> Result<String, ToolError> {
        let app = self.app().await?;
        let old = app
            .dispatcher()
            .ok_or_else(|| ToolError::new("the catalog actor is restarting"))?;
        let old_id = old.get_id();
        old.kill();
        old.wait(Some(BOUND))
            .await
            .map_err(|_| ToolError::new(format!("catalog actor {old_id} outlived its kill")))?;
        // Not awaited here: the restart stops the transports, which wait for this call.
        tokio::spawn(async move {
            // The supervisor was sent the exit before the actor was marked stopped, and it
            // handles an exit, the restarts it causes included, before any call sent after:
            // its answer comes once the catalog, the pool and the transports are back.
            let root = app.root().clone().with_call_timeout(BOUND);
            match root.restart_count(CATALOG).await {
                Ok(_) => match app.dispatcher() {
                    Some(new) => {
                        eprintln!("catalog actor {old_id} replaced by {}", new.get_id());
                    }
                    None => eprintln!("catalog actor {old_id} was not replaced"),
                },
                Err(e) => eprintln!("catalog actor {old_id}: the supervisor did not answer: {e}"),
            }
        });
        Ok(old_id.to_string())
    }

    async fn catalog_actor(&self) -> Result<String, ToolError> {
        let app = self.app().await?;
        app.dispatcher()
            .map(|d| d.get_id().to_string())
            .ok_or_else(|| ToolError::new("the catalog actor is restarting"))
    }
}

/// The tool of plugin `name`; it answers once `generation` holds its install's generation.
fn plugin(name: &str, generation: watch::Receiver<Option<u64>>) -> ToolSpec {
    let answer = name.to_owned();
    ToolSpec::new(format!("plugin.{name}"), format!("The plugin {name}.")).with_handler(move || {
        let mut generation = generation.clone();
        let name = answer.clone();
        async move {
            let g = generation
                .wait_for(Option::is_some)
                .await
                .map_err(|_| ToolError::new(format!("plugin {name} was never installed")))?;
            let g = g.unwrap_or_default();
            Ok::<_, ToolError>(format!("plugin {name} installed at generation {g}"))
        }
    })
}

/// The host's command line.
#[derive(Debug, Default)]
struct Options {
    http: Option<String>,
    print_addr: bool,
    seed: usize,
    page_size: Option<usize>,
    admin: bool,
}

impl Options {
    fn parse() -> Option<Options> {
        let mut options = Options::default();
        let mut args = std::env::args().skip(1);
        while let Some(flag) = args.next() {
            match flag.as_str() {
                "--http" => options.http = Some(args.next()?),
                "--print-addr" => options.print_addr = true,
                "--seed" => options.seed = args.next()?.parse().ok()?,
                "--page-size" => options.page_size = Some(args.next()?.parse().ok()?),
                "--admin" => options.admin = true,
                _ => return None,
            }
        }
        Some(options)
    }
}

fn server(options: &Options, host: &Host) -> Result<Server, Failure> {
    let tool = |name: &str, description: &str| ToolSpec::new(name, description);
    let mut catalog = Catalog::new()
        .tool(
            tool("plugins.install", "Installs a plugin: adds its tool.").with_handler({
                let host = host.clone();
                move |Args(p): Args<Plugin>| {
                    let host = host.clone();
                    async move { host.install(p.name).await }
                }
            }),
        )
        .tool(
            tool("plugins.remove", "Removes a plugin: removes its tool.").with_handler({
                let host = host.clone();
                move |Args(p): Args<Plugin>| {
                    let host = host.clone();
                    async move { host.remove(p.name).await }
                }
            }),
        );
    for i in 0..options.seed {
        catalog = catalog.tool(plugin(&format!("seed_{i:03}"), watch::channel(Some(0)).1));
    }
    if options.admin {
        catalog = catalog
            .tool(
                tool("runtime.kill_catalog", "Kills the catalog actor.").with_handler({
                    let host = host.clone();
                    move || {
                        let host = host.clone();
                        async move { host.kill_catalog().await }
                    }
                }),
            )
            .tool(
                tool("runtime.catalog_actor", "The catalog actor's id.").with_handler({
                    let host = host.clone();
                    move || {
                        let host = host.clone();
                        async move { host.catalog_actor().await }
                    }
                }),
            );
    }
    let mut config = ServerConfig::new(catalog).server_name("live_catalog");
    if let Some(size) = options.page_size {
        config = config.page_size(size);
    }
    Ok(Server::new(config)?)
}

/// Why the example could not serve.
type Failure = Box<dyn std::error::Error>;

#[tokio::main]
async fn main() -> ExitCode {
    let Some(options) = Options::parse() else {
        eprintln!(
            "usage: live_catalog [--http ADDR [--print-addr]] [--seed N] [--page-size K] [--admin]"
        );
        return ExitCode::FAILURE;
    };
    match run(options).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("live_catalog: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(options: Options) -> Result<(), Failure> {
    let (publish, app) = watch::channel(None);
    let server = server(&options, &Host { app })?;
    let config = match &options.http {
        None => ApplicationConfig::new().process_stdio(),
        Some(addr) => {
            use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
            let listener = std::net::TcpListener::bind(addr)
                .map_err(|e| format!("cannot bind {addr}: {e}"))?;
            if options.print_addr {
                println!("{}", listener.local_addr()?);
            }
            // Loopback only: every caller that reaches the socket is accepted.
            let service =
                HttpService::new(server.clone(), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
            ApplicationConfig::new().http(listener, service, ServeOptions::default())
        }
    };
    let runtime = Application::start(server, config).await?;
    publish.send_replace(Some(runtime.clone()));
    // Served until the process is stopped; a Ctrl-C stops the tree in order first.
    let _ = tokio::signal::ctrl_c().await;
    runtime.stop(Duration::from_secs(5)).await?;
    Ok(())
}

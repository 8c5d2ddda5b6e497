//! Health and readiness, from the runtime (`ApplicationRef::health`) and over a real HTTP
//! listener on the paths the host chose (HTTP/1.1 and h2c): ready once started; unready,
//! naming the catalog, while the catalog actor is dead and its restart is held; unready,
//! "stopping", during a graceful stop; ready again after the restart. A host transport whose
//! stop waits for the test holds the tree in the moment the test asserts on (the transports
//! supervisor stops it before the HTTP listener, which keeps answering). The bare transport's
//! health, the Host and Origin rules on the paths, and the endpoint's `GET` and `OPTIONS`
//! still 405.

use crate::support::http::{self as rig, Client, Proto, Resp, BOTH};
use crate::support::runtime_host::eventually;

use beam_mcp::health::Unready;
use beam_mcp::runtime::{Application, ApplicationConfig, ApplicationRef};
use beam_mcp::transport::http::{AllowedOrigins, HttpService, ServeOptions};
use beam_mcp_supervisors::{ChildSpec, Shutdown};
use bytes::Bytes;
use http_body_util::Full;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

const LIMIT: Duration = Duration::from_secs(20);

/// A host transport whose stop says it began and then waits for the test's release.
struct Held;

#[derive(Clone)]
struct Hold {
    stopping: mpsc::UnboundedSender<()>,
    released: watch::Receiver<bool>,
}

impl Actor for Held {
    type Msg = ();
    type State = Hold;
    type Arguments = Hold;

    async fn pre_start(&self, _: ActorRef<()>, hold: Hold) -> Result<Hold, ActorProcessingErr> {
        Ok(hold)
    }

    async fn post_stop(&self, _: ActorRef<()>, hold: &mut Hold) -> Result<(), ActorProcessingErr> {
        let _ = hold.stopping.send(());
        let _ = hold.released.wait_for(|r| *r).await;
        Ok(())
    }
}

struct Rig {
    app: ApplicationRef,
    addr: SocketAddr,
    stopping: mpsc::UnboundedReceiver<()>,
    release: watch::Sender<bool>,
}

async fn start() -> Rig {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let service = rig::service().health_paths("/livez", "/readyz");
    let (stopping_tx, stopping) = mpsc::unbounded_channel();
    let (release, released) = watch::channel(false);
    let hold = Hold {
        stopping: stopping_tx,
        released,
    };
    let held = ChildSpec::new("held", move |sup| {
        let hold = hold.clone();
        async move {
            let (actor, _) = Actor::spawn_linked(None, Held, hold, sup).await?;
            Ok(actor.get_cell())
        }
    })
    .shutdown(Shutdown::Timeout(LIMIT));
    let config = ApplicationConfig::new()
        .workers(2)
        .http(listener, service, ServeOptions::default())
        .transport(held);
    let app = Application::start(rig::server(), config).await.unwrap();
    Rig {
        app,
        addr,
        stopping,
        release,
    }
}

async fn get(c: &Client, path: &str) -> Resp {
    let req = c.builder("GET", path, None).body(Full::new(Bytes::new()));
    c.send(req.unwrap()).await
}

/// Both paths over both protocols: (status, body) of `/livez` and `/readyz`.
async fn probe(addr: SocketAddr) -> Vec<(u16, Value, u16, Value)> {
    let mut seen = Vec::new();
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let live = get(&c, "/livez").await;
        let ready = get(&c, "/readyz").await;
        assert_eq!(ready.headers["cache-control"], "no-store");
        seen.push((
            live.status.as_u16(),
            live.json(),
            ready.status.as_u16(),
            ready.json(),
        ));
    }
    seen
}

fn ready_answers() -> Vec<(u16, Value, u16, Value)> {
    let one = (
        200,
        json!({"status": "live"}),
        200,
        json!({"status": "ready"}),
    );
    vec![one.clone(), one]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_catalog_actor_makes_the_runtime_unready_until_it_is_back() {
    let mut r = start().await;
    let health = r.app.health();
    assert!(health.is_live() && health.is_ready(), "{health:?}");
    assert_eq!(probe(r.addr).await, ready_answers());

    // Killed: rest_for_one stops what follows the catalog (the transports, the held one
    // first) before it restarts anything, and the held stop keeps it there.
    r.app.dispatcher().unwrap().kill();
    tokio::time::timeout(LIMIT, r.stopping.recv())
        .await
        .unwrap()
        .unwrap();
    let health = r.app.health();
    assert!(health.is_live(), "{health:?}");
    assert!(!health.is_ready());
    assert_eq!(health.unready(), &[Unready::Catalog]);
    let unready = (
        200,
        json!({"status": "live"}),
        503,
        json!({"status": "unready", "unready": ["catalog"]}),
    );
    assert_eq!(probe(r.addr).await, vec![unready.clone(), unready]);

    // Released: the tree restarts in order and serves again, on the same port.
    r.release.send(true).unwrap();
    let back = eventually(LIMIT, || async { r.app.health().is_ready() }).await;
    assert!(back, "{:?}", r.app.health());
    // Why a poll: the listener's restart has no event the runtime offers.
    let serving = eventually(LIMIT, || async {
        tokio::net::TcpStream::connect(r.addr).await.is_ok()
    })
    .await;
    assert!(serving);
    assert_eq!(probe(r.addr).await, ready_answers());
    r.app.stop(LIMIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_stop_makes_the_runtime_unready_at_once() {
    let mut r = start().await;
    assert_eq!(probe(r.addr).await, ready_answers());
    let app = r.app.clone();
    let stop = tokio::spawn(async move { app.stop(LIMIT).await });
    tokio::time::timeout(LIMIT, r.stopping.recv())
        .await
        .unwrap()
        .unwrap();
    let health = r.app.health();
    assert!(health.is_live(), "{health:?}");
    assert_eq!(health.unready(), &[Unready::Stopping]);
    // The listener still answers while the stop drains: load balancers learn to go away.
    let stopping = (
        200,
        json!({"status": "live"}),
        503,
        json!({"status": "unready", "unready": ["stopping"]}),
    );
    assert_eq!(probe(r.addr).await, vec![stopping.clone(), stopping]);
    r.release.send(true).unwrap();
    tokio::time::timeout(LIMIT, stop)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let health = r.app.health();
    assert!(!health.is_live(), "{health:?}");
    assert_eq!(
        health.unready(),
        &[
            Unready::Down,
            Unready::Stopping,
            Unready::Catalog,
            Unready::Pool
        ]
    );
}

#[tokio::test]
async fn the_bare_transport_is_live_and_ready_while_it_answers_under_the_same_rules() {
    let service = HttpService::new(
        rig::server(),
        |_| {
            Err(beam_mcp::transport::http::Forbidden::new(
                "no hook runs here",
            ))
        },
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp")
    .health_paths("/livez", "/readyz");
    let addr = rig::spawn(service).await;
    assert_eq!(probe(addr).await, ready_answers());
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let head = c
            .send(
                c.builder("HEAD", "/readyz", None)
                    .body(Full::new(Bytes::new()))
                    .unwrap(),
            )
            .await;
        assert_eq!(head.status, 200);
        assert!(head.body.is_empty());
        let post = c
            .send(
                c.builder("POST", "/readyz", None)
                    .body(Full::new(Bytes::new()))
                    .unwrap(),
            )
            .await;
        assert_eq!(post.status, 405);
        assert_eq!(post.headers["allow"], "GET, HEAD");
        let foreign = c
            .send(
                c.builder("GET", "/readyz", Some("evil.example"))
                    .body(Full::new(Bytes::new()))
                    .unwrap(),
            )
            .await;
        assert_eq!(foreign.status, 403, "{proto:?}: DNS rebinding");
        let cross = c
            .send(
                c.builder("GET", "/livez", None)
                    .header("origin", "http://evil.example")
                    .body(Full::new(Bytes::new()))
                    .unwrap(),
            )
            .await;
        assert_eq!(cross.status, 403, "{proto:?}: a foreign origin");
        // The MCP endpoint is unchanged: GET and OPTIONS are 405.
        for method in ["GET", "OPTIONS"] {
            let r = c
                .send(
                    c.builder(method, "/mcp", None)
                        .body(Full::new(Bytes::new()))
                        .unwrap(),
                )
                .await;
            assert_eq!(r.status, 405, "{proto:?} {method}");
            assert_eq!(r.headers["allow"], "POST");
        }
    }
    // Without health paths, they are just paths the endpoint does not serve.
    let plain = rig::spawn(rig::service()).await;
    let r = get(&Client::new(Proto::H1, plain), "/readyz").await;
    assert_eq!(r.status, 404);
}

//! The HTTP service mounted inside a host's own axum router, under a path prefix, beside the
//! host's other routes; served through a real listener on 127.0.0.1.

use crate::support::http as rig;

use axum::routing::get;
use axum::Router;
use beam_mcp::transport::http::{AllowedOrigins, HttpService};
use rig::{call, Client, BOTH};
use serde_json::json;
use tokio::net::TcpListener;

#[tokio::test]
async fn mounted_under_a_prefix_in_an_axum_router() {
    // The host's router owns the prefix; the service answers for everything under it.
    let mcp = HttpService::new(
        rig::server(),
        |_| Ok(()),
        AllowedOrigins::list(["http://localhost"]),
    );
    let app = Router::new()
        .route("/health", get(|| async { "ok" }))
        .nest_service("/mcp", mcp);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = c
            .post_with(&call(json!({"place": "Oslo"})), |h| {
                rig::set(h, "Mcp-Param-Place", "Oslo")
            })
            .await;
        assert_eq!(
            r.status,
            200,
            "{proto:?}: {:?}",
            String::from_utf8_lossy(&r.body)
        );
        assert_eq!(r.json()["result"]["content"][0]["text"], "sunny in Oslo");
        let health = c
            .send(
                c.builder("GET", "/health", None)
                    .body(http_body_util::Empty::<bytes::Bytes>::new())
                    .unwrap(),
            )
            .await;
        assert_eq!(health.status, 200);
        assert_eq!(&health.body[..], b"ok");
    }
}

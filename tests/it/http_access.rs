//! Who may ask: Host (DNS rebinding), Origin, and the caller's authorize hooks, over
//! HTTP/1.1 and h2c through a real listener.

use crate::support::http as rig;

use beam_mcp::transport::http::{AllowedOrigins, Forbidden, HttpService};
use bytes::Bytes;
use http_body_util::Full;
use rig::{rpc, spawn, Client, BOTH, MODERN};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn tools_list(c: &Client, host: Option<&str>, origin: Option<&str>) -> http::Request<Full<Bytes>> {
    let mut b = c
        .builder("POST", "/mcp", host)
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/list");
    if let Some(o) = origin {
        b = b.header("origin", o);
    }
    let body = serde_json::to_vec(&rpc("tools/list", json!({}))).unwrap();
    b.body(Full::new(Bytes::from(body))).unwrap()
}

#[tokio::test]
async fn a_foreign_host_is_403() {
    let addr = spawn(rig::service()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = c.send(tools_list(&c, Some("evil.example"), None)).await;
        assert_eq!(r.status.as_u16(), 403, "{proto:?}");
        assert!(r.json()["error"]["code"].is_i64());
        let r = c.send(tools_list(&c, Some("localhost:4000"), None)).await;
        assert_eq!(r.status.as_u16(), 200, "{proto:?}");
        let r = c.send(tools_list(&c, Some("[::1]:4000"), None)).await;
        assert_eq!(r.status.as_u16(), 200, "{proto:?}");
    }
    let addr = spawn(rig::service().allowed_hosts(["mcp.example"])).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = c.send(tools_list(&c, Some("mcp.example:443"), None)).await;
        assert_eq!(r.status.as_u16(), 200, "{proto:?}");
        let r = c.send(tools_list(&c, Some("localhost"), None)).await;
        assert_eq!(r.status.as_u16(), 403, "{proto:?}");
    }
}

#[tokio::test]
async fn an_origin_not_allowed_is_403() {
    let addr = spawn(rig::service()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = c
            .send(tools_list(&c, None, Some("http://evil.example")))
            .await;
        assert_eq!(r.status.as_u16(), 403, "{proto:?}");
        assert!(r.json()["error"]["code"].is_i64());
        if proto == rig::Proto::H2 {
            assert!(r.headers.get("connection").is_none());
        } else {
            assert!(r.closes(), "refused before the body: close");
        }
        let r = c.send(tools_list(&c, None, Some("http://localhost"))).await;
        assert_eq!(r.status.as_u16(), 200);
        let r = c.send(tools_list(&c, None, None)).await;
        assert_eq!(r.status.as_u16(), 200);
    }
    let any = HttpService::new(rig::server(), |_| Ok(()), AllowedOrigins::Any).path("/mcp");
    let addr = spawn(any).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = c
            .send(tools_list(&c, None, Some("http://evil.example")))
            .await;
        assert_eq!(r.status.as_u16(), 200, "{proto:?}");
    }
}

fn token_service() -> HttpService {
    HttpService::new(
        rig::server(),
        |parts| match parts.headers.get("authorization") {
            Some(v) if v == "Bearer good" => Ok(()),
            _ => Err(Forbidden::new("secret-reason: no bearer token")),
        },
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp")
}

#[tokio::test]
async fn an_authorize_refusal_is_an_opaque_403_before_the_body() {
    let addr = spawn(token_service()).await;
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let r = c.send(tools_list(&c, None, None)).await;
        assert_eq!(r.status.as_u16(), 403, "{proto:?}");
        assert!(!String::from_utf8_lossy(&r.body).contains("secret-reason"));
        assert!(r.json()["error"].get("data").is_none());
        let mut req = tools_list(&c, None, None);
        req.headers_mut()
            .insert("authorization", "Bearer good".parse().unwrap());
        assert_eq!(c.send(req).await.status.as_u16(), 200);
    }
    // A declared body that never comes: the refusal does not wait for it.
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\nmcp-protocol-version: {MODERN}\r\n\
         mcp-method: tools/list\r\ncontent-length: 1000\r\n\r\n"
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(2), s.read_to_end(&mut out))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("HTTP/1.1 403"), "{text}");
}

#[tokio::test]
async fn authorize_body_sees_the_raw_bytes_and_may_refuse() {
    let seen = Arc::new(Mutex::new(Vec::<Vec<u8>>::new()));
    let log = seen.clone();
    let service = rig::service().authorize_body(move |_, bytes| {
        log.lock().unwrap().push(bytes.to_vec());
        if bytes.windows(9).any(|w| w == b"forbidden") {
            return Err(Forbidden::new("body names a forbidden thing"));
        }
        Ok(())
    });
    let addr = spawn(service).await;
    let raw: &[u8] = b"  {\"jsonrpc\":\"2.0\", \"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n";
    for proto in BOTH {
        let c = Client::new(proto, addr);
        let send = |body: Vec<u8>| {
            c.builder("POST", "/mcp", None)
                .header("mcp-protocol-version", MODERN)
                .header("mcp-method", "tools/list")
                .body(Full::new(Bytes::from(body)))
                .unwrap()
        };
        let r = c.send(send(raw.to_vec())).await;
        assert_eq!(r.status.as_u16(), 200, "{proto:?}");
        assert_eq!(seen.lock().unwrap().last().unwrap(), raw);
        let mut bad = raw.to_vec();
        bad.extend_from_slice(b" \"forbidden\"");
        let r = c.send(send(bad)).await;
        assert_eq!(r.status.as_u16(), 403);
        assert!(r.json()["error"].get("data").is_none());
        assert!(!String::from_utf8_lossy(&r.body).contains("forbidden thing"));
        // Refused after the read: the HTTP/1.1 connection may live on.
        assert!(!r.closes());
    }
}

#[tokio::test]
async fn a_panicking_authorize_hook_is_500_with_nothing_said() {
    let body_hook = rig::service().authorize_body(|_, _| panic!("hook bug: secret"));
    let head_hook = HttpService::new(
        rig::server(),
        |_| panic!("hook bug: secret"),
        AllowedOrigins::list(["http://localhost"]),
    )
    .path("/mcp");
    for service in [body_hook, head_hook] {
        let addr = spawn(service).await;
        for proto in BOTH {
            let c = Client::new(proto, addr);
            let r = c.send(tools_list(&c, None, None)).await;
            assert_eq!(r.status.as_u16(), 500, "{proto:?}");
            assert_eq!(r.json()["error"]["code"], -32603);
            assert!(r.json()["error"].get("data").is_none());
            assert!(!String::from_utf8_lossy(&r.body).contains("secret"));
        }
    }
}

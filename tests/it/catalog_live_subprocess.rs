//! The live catalog through the real entry points: `examples/live_catalog` (a plugin host
//! under the supervised runtime) as a subprocess, over stdio and over HTTP/1.1 on 127.0.0.1,
//! at 2026-07-28 (each request carries its protocol version in `_meta`).
//!
//! - A plugin installed mid-run is listed and callable; once removed it is an unknown tool
//!   (-32602, `Unknown tool: plugin.x`, data `{"tool": "plugin.x"}`) and gone from the list;
//!   refused changes (a duplicate, an absent plugin) are tool errors carrying the catalog's
//!   reason and move nothing, not even the generation.
//! - A client paging `tools/list` while plugins are installed and removed between its pages
//!   is served exactly the keyset model's pages: every seed there at the start and never
//!   removed seen once, nothing twice, ascending.
//! - The catalog outlives its actor: three changes, the catalog actor killed (its supervisor
//!   restarts it and, rest_for_one, the pool and the transports), and the new actor serves
//!   exactly the third state and takes the next change.
//!
//! Deterministic: every change is answered only once published, every request waits for the
//! one before it, and the restart is waited for on the event the host announces on stderr
//! (its supervisor's answer after the restart), never on a clock. Reads are bounded by
//! [`WAIT`].

use crate::support::child::{example_path, lines, WAIT};
use crate::support::http::{rpc, Client, Proto};
use beam_mcp::{ConfigError, ConfigItem};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::ops::Bound;
use std::process::Stdio;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

#[derive(Debug, Clone, Copy)]
enum Transport {
    Stdio,
    Http,
}

/// The example as a subprocess, and the one way this test talks to it.
struct Host {
    _child: Child,
    /// The stdio transport's input (`None` over HTTP).
    stdin: Option<ChildStdin>,
    stdout: mpsc::UnboundedReceiver<String>,
    stderr: mpsc::UnboundedReceiver<String>,
    /// The HTTP transport's address (`None` over stdio).
    http: Option<SocketAddr>,
    next_id: u64,
}

async fn next(rx: &mut mpsc::UnboundedReceiver<String>, what: &str) -> String {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .unwrap_or_else(|_| panic!("no {what} line within {WAIT:?}"))
        .unwrap_or_else(|| panic!("{what} closed"))
}

impl Host {
    async fn spawn(transport: Transport, args: &[&str]) -> Host {
        let mut all: Vec<&str> = match transport {
            Transport::Stdio => vec![],
            Transport::Http => vec!["--http", "127.0.0.1:0", "--print-addr"],
        };
        all.extend_from_slice(args);
        let mut child = Command::new(example_path("live_catalog"))
            .args(&all)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn examples/live_catalog (cargo test builds examples)");
        let stdin = child.stdin.take();
        let mut stdout = lines(child.stdout.take().unwrap());
        let stderr = lines(child.stderr.take().unwrap());
        let http = match transport {
            Transport::Stdio => None,
            Transport::Http => Some(next(&mut stdout, "address").await.trim().parse().unwrap()),
        };
        Host {
            _child: child,
            stdin,
            stdout,
            stderr,
            http,
            next_id: 0,
        }
    }

    /// One 2026-07-28 request, answered before the next is sent.
    async fn ask(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let mut body = rpc(method, params);
        body["id"] = json!(self.next_id);
        let v = match self.http {
            Some(addr) => {
                let resp = tokio::time::timeout(WAIT, Client::new(Proto::H1, addr).post(&body))
                    .await
                    .unwrap_or_else(|_| panic!("{method}: no HTTP answer within {WAIT:?}"));
                assert_eq!(resp.status, 200, "{method}: {:?}", resp.body);
                resp.json()
            }
            None => {
                let stdin = self.stdin.as_mut().unwrap();
                let mut line = serde_json::to_vec(&body).unwrap();
                line.push(b'\n');
                stdin.write_all(&line).await.unwrap();
                stdin.flush().await.unwrap();
                let line = next(&mut self.stdout, "stdout").await;
                serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"))
            }
        };
        assert_eq!(v["id"], self.next_id, "{method}: {v}");
        v
    }

    async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.ask("tools/call", json!({"name": tool, "arguments": arguments}))
            .await
    }

    /// A call's one text block, asserting it is a result and whether it is a tool error.
    async fn text(&mut self, tool: &str, arguments: Value, is_error: bool) -> String {
        let v = self.call(tool, arguments).await;
        let result = &v["result"];
        assert_eq!(
            result["isError"].as_bool().unwrap_or(false),
            is_error,
            "{tool}: {v}"
        );
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{tool}: no text: {v}"))
            .to_owned()
    }

    async fn install(&mut self, name: &str) -> String {
        self.text("plugins.install", json!({"name": name}), false)
            .await
    }

    async fn remove(&mut self, name: &str) -> String {
        self.text("plugins.remove", json!({"name": name}), false)
            .await
    }

    /// One page of `tools/list`: its names, and its next cursor.
    async fn page(&mut self, cursor: Option<&str>) -> (Vec<String>, Option<String>) {
        let params = cursor.map_or(json!({}), |c| json!({"cursor": c}));
        let v = self.ask("tools/list", params).await;
        let tools = v["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("tools/list: {v}"));
        let names = tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect();
        let next = match &v["result"]["nextCursor"] {
            Value::String(c) => Some(c.clone()),
            Value::Null => None,
            other => panic!("nextCursor {other}"),
        };
        (names, next)
    }

    /// The whole tool list, paged through (at most 100 pages).
    async fn names(&mut self) -> Vec<String> {
        let mut names = Vec::new();
        let mut cursor = None;
        for _ in 0..100 {
            let (page, next) = self.page(cursor.as_deref()).await;
            names.extend(page);
            match next {
                Some(c) => cursor = Some(c),
                None => return names,
            }
        }
        panic!("tools/list did not end within 100 pages")
    }

    /// Waits for a stderr line containing `needle`; returns it.
    async fn heard(&mut self, needle: &str) -> String {
        loop {
            let line = next(&mut self.stderr, "stderr").await;
            if line.contains(needle) {
                return line;
            }
        }
    }
}

/// Asserts `v` is the refusal of a call to a tool the catalog does not hold.
fn assert_unknown_tool(v: &Value, tool: &str) {
    assert!(v.get("result").is_none(), "{v}");
    assert_eq!(v["error"]["code"], -32602, "{v}");
    assert_eq!(
        v["error"]["message"],
        format!("Unknown tool: {tool}"),
        "{v}"
    );
    assert_eq!(v["error"]["data"], json!({"tool": tool}), "{v}");
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|&s| s.to_owned()).collect()
}

async fn install_call_remove(transport: Transport) {
    let mut host = Host::spawn(transport, &[]).await;
    let host_tools = ["plugins.install", "plugins.remove"];
    assert_eq!(host.names().await, strings(&host_tools));
    assert_unknown_tool(&host.call("plugin.x", json!({})).await, "plugin.x");

    assert_eq!(
        host.install("x").await,
        "installed plugin.x at generation 1"
    );
    assert_eq!(
        host.names().await,
        strings(&["plugin.x", "plugins.install", "plugins.remove"])
    );
    assert_eq!(
        host.text("plugin.x", json!({}), false).await,
        "plugin x installed at generation 1"
    );

    // Refused, and nothing moves: a duplicate, a name outside the schema's pattern.
    let duplicate = host
        .text("plugins.install", json!({"name": "x"}), true)
        .await;
    let why = ConfigError::DuplicateTool {
        name: "plugin.x".into(),
    };
    assert!(duplicate.contains(&why.to_string()), "{duplicate}");
    let v = host.call("plugins.install", json!({"name": "X-y"})).await;
    assert_eq!(v["error"]["code"], -32602, "{v}");
    assert_eq!(v["error"]["data"]["keyword"], "pattern", "{v}");

    assert_eq!(host.remove("x").await, "removed plugin.x at generation 2");
    assert_unknown_tool(&host.call("plugin.x", json!({})).await, "plugin.x");
    assert_eq!(host.names().await, strings(&host_tools));
    let absent = host
        .text("plugins.remove", json!({"name": "x"}), true)
        .await;
    let why = ConfigError::NotInCatalog {
        item: ConfigItem::Tool("plugin.x".into()),
    };
    assert!(absent.contains(&why.to_string()), "{absent}");

    // The refusals left the generation where it was.
    assert_eq!(
        host.install("y").await,
        "installed plugin.y at generation 3"
    );
    assert_eq!(
        host.text("plugin.y", json!({}), false).await,
        "plugin y installed at generation 3"
    );
}

#[tokio::test]
async fn stdio_a_plugin_installed_mid_run_is_called_and_once_removed_is_unknown() {
    install_call_remove(Transport::Stdio).await;
}

#[tokio::test]
async fn http_a_plugin_installed_mid_run_is_called_and_once_removed_is_unknown() {
    install_call_remove(Transport::Http).await;
}

/// What a client changes before asking for its next page.
enum Change {
    Install(&'static str),
    Remove(&'static str),
}

/// The changes made before page `i + 1` (the first page is asked for before any change).
/// Names sort before the cursor (not served again), after it (served when reached), and at
/// it: the last item served is removed, a removed seed is installed again ahead of the cursor.
fn schedule() -> Vec<Vec<Change>> {
    use Change::{Install, Remove};
    vec![
        // Page 1 ended at seed_006.
        vec![
            Install("aaa"),
            Install("seed_010x"),
            Remove("seed_008"),
            Remove("seed_002"),
        ],
        // Page 2 ended at seed_013, which goes.
        vec![
            Install("seed_005x"),
            Install("zzz"),
            Remove("seed_020"),
            Remove("seed_027"),
            Remove("seed_012"),
            Remove("seed_013"),
        ],
        // Page 3 ended at seed_021, which goes; seed_027 comes back ahead of the cursor.
        vec![
            Install("seed_027"),
            Remove("seed_021"),
            Install("seed_000x"),
            Remove("seed_025"),
        ],
        // Page 4 ended at seed_029; seed_020 comes back behind it.
        vec![Remove("zzz"), Install("zzy"), Install("seed_020")],
    ]
}

/// The page after `after` of `catalog`, as a keyset list of `size` serves it.
fn model_page(catalog: &BTreeSet<String>, after: Option<&str>, size: usize) -> (Vec<String>, bool) {
    let start = after.map_or(Bound::Unbounded, Bound::Excluded);
    let mut rest = catalog.range::<str, _>((start, Bound::Unbounded));
    let page: Vec<String> = rest.by_ref().take(size).cloned().collect();
    (page, rest.next().is_some())
}

async fn paging_across_changes(transport: Transport) {
    const SEEDS: usize = 30;
    const SIZE: usize = 7;
    let mut host = Host::spawn(transport, &["--seed", "30", "--page-size", "7"]).await;
    let plugin = |name: &str| format!("plugin.{name}");
    let seeds: Vec<String> = (0..SEEDS)
        .map(|i| plugin(&format!("seed_{i:03}")))
        .collect();
    let mut catalog: BTreeSet<String> = seeds.iter().cloned().collect();
    catalog.extend(strings(&["plugins.install", "plugins.remove"]));

    let mut schedule = schedule().into_iter();
    let mut removed = BTreeSet::new();
    let mut seen: Vec<String> = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let (page, next) = host.page(cursor.as_deref()).await;
        let (want, more) = model_page(&catalog, seen.last().map(String::as_str), SIZE);
        assert_eq!(page, want, "page {pages}");
        assert_eq!(next.is_some(), more, "page {pages}: {next:?}");
        seen.extend(page);
        pages += 1;
        let Some(next) = next else { break };
        cursor = Some(next);
        for change in schedule.next().unwrap_or_default() {
            match change {
                Change::Install(name) => {
                    host.install(name).await;
                    catalog.insert(plugin(name));
                }
                Change::Remove(name) => {
                    host.remove(name).await;
                    catalog.remove(&plugin(name));
                    removed.insert(plugin(name));
                }
            }
        }
        assert!(pages < 100, "the list did not end");
    }
    assert!(
        schedule.next().is_none(),
        "the list ended before every change"
    );
    assert_eq!(pages, 5);

    // Ascending, so nothing twice.
    assert!(
        seen.windows(2).all(|w| w[0] < w[1]),
        "not strictly ascending: {seen:?}"
    );
    // Every seed there at the start and never removed, exactly once.
    for seed in seeds.iter().filter(|s| !removed.contains(*s)) {
        let times = seen.iter().filter(|s| *s == seed).count();
        assert_eq!(times, 1, "{seed} seen {times} times: {seen:?}");
    }
    // Installed behind the cursor: not served. Ahead of it: served.
    for behind in ["aaa", "seed_005x", "seed_000x", "seed_020"] {
        assert!(!seen.contains(&plugin(behind)), "{behind}: {seen:?}");
    }
    for ahead in ["seed_010x", "seed_027", "zzy"] {
        assert!(seen.contains(&plugin(ahead)), "{ahead}: {seen:?}");
    }
    // Removed before its page: never served (`zzz` came and went ahead of the cursor).
    for gone in ["seed_008", "seed_025", "zzz"] {
        assert!(!seen.contains(&plugin(gone)), "{gone}: {seen:?}");
    }
    // A fresh listing is the final catalog.
    assert_eq!(host.names().await, catalog.into_iter().collect::<Vec<_>>());
}

#[tokio::test]
async fn stdio_a_paging_client_across_changes_sees_every_surviving_seed_once() {
    paging_across_changes(Transport::Stdio).await;
}

#[tokio::test]
async fn http_a_paging_client_across_changes_sees_every_surviving_seed_once() {
    paging_across_changes(Transport::Http).await;
}

async fn the_catalog_outlives_its_actor(transport: Transport) {
    let mut host = Host::spawn(transport, &["--admin"]).await;
    assert_eq!(
        host.install("a").await,
        "installed plugin.a at generation 1"
    );
    assert_eq!(
        host.install("b").await,
        "installed plugin.b at generation 2"
    );
    assert_eq!(host.remove("a").await, "removed plugin.a at generation 3");

    let old = host.text("runtime.catalog_actor", json!({}), false).await;
    let killed = host.text("runtime.kill_catalog", json!({}), false).await;
    assert_eq!(killed, old);
    // The host's announcement comes once its supervisor has answered after the restart: the
    // catalog actor, the pool and the transports are all back.
    let said = host
        .heard(&format!("catalog actor {old} replaced by "))
        .await;
    let new = said
        .rsplit_once("replaced by ")
        .map(|(_, id)| id.trim().to_owned())
        .unwrap();
    assert_ne!(new, old, "{said}");
    assert_eq!(
        host.text("runtime.catalog_actor", json!({}), false).await,
        new
    );

    // Exactly the third state: b present, a absent.
    assert_eq!(
        host.names().await,
        strings(&[
            "plugin.b",
            "plugins.install",
            "plugins.remove",
            "runtime.catalog_actor",
            "runtime.kill_catalog",
        ])
    );
    assert_eq!(
        host.text("plugin.b", json!({}), false).await,
        "plugin b installed at generation 2"
    );
    assert_unknown_tool(&host.call("plugin.a", json!({})).await, "plugin.a");
    // The new actor takes the next change, on the generation the old one left.
    assert_eq!(
        host.install("c").await,
        "installed plugin.c at generation 4"
    );
    assert_eq!(
        host.text("plugin.c", json!({}), false).await,
        "plugin c installed at generation 4"
    );
}

#[tokio::test]
async fn stdio_the_catalog_outlives_its_killed_actor() {
    the_catalog_outlives_its_actor(Transport::Stdio).await;
}

#[tokio::test]
async fn http_the_catalog_outlives_its_killed_actor() {
    the_catalog_outlives_its_actor(Transport::Http).await;
}

//! The connectome surface through the README's host as a real subprocess over stdio: the five
//! advertising methods differ by exactly the four `connectome://` resources, and a read
//! answers canonical bytes that verify, byte-identical to the file export of the same graph.

use crate::support::child;

use beam_mcp::connectome::canonical::{verify, DigestAlgorithm};
use beam_mcp::connectome::declared::Declared;
use beam_mcp::connectome::export::declared_export;
use beam_mcp::connectome::model::Graph;
use child::ChildClient;
use serde_json::{json, Value};

const ADVERTISING: [&str; 5] = [
    "server/discover",
    "tools/list",
    "resources/list",
    "resources/templates/list",
    "prompts/list",
];

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})
}

async fn record(args: &[&str]) -> Vec<Value> {
    let mut c = ChildClient::spawn("weather", args);
    let mut out = Vec::new();
    for (i, m) in ADVERTISING.iter().enumerate() {
        let r = c
            .request(json!({"jsonrpc":"2.0","id":i,"method":m,"params":{"_meta":meta()}}))
            .await;
        out.push(r["result"].clone());
    }
    out
}

#[tokio::test]
async fn adding_the_surface_changes_the_advertising_by_exactly_four_resources() {
    let before = record(&[]).await;
    let after = record(&["--connectome"]).await;
    for (i, method) in ADVERTISING.iter().enumerate() {
        if *method == "resources/list" {
            let uris = |v: &Value| -> Vec<String> {
                v["resources"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["uri"].as_str().unwrap().to_owned())
                    .collect()
            };
            let (b, a) = (uris(&before[i]), uris(&after[i]));
            let added: Vec<&String> = a.iter().filter(|u| !b.contains(u)).collect();
            assert_eq!(
                added,
                [
                    "connectome://declared",
                    "connectome://diff",
                    "connectome://effective",
                    "connectome://observed"
                ]
            );
            assert!(
                b.iter().all(|u| a.contains(u)),
                "nothing the host listed is gone"
            );
            let untouched: Vec<&Value> = after[i]["resources"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| !r["uri"].as_str().unwrap().starts_with("connectome://"))
                .collect();
            assert_eq!(
                untouched,
                before[i]["resources"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .collect::<Vec<_>>()
            );
        } else {
            assert_eq!(before[i], after[i], "{method} moved");
        }
    }
}

#[tokio::test]
async fn a_read_answers_the_canonical_bytes_of_the_file_export() {
    let mut c = ChildClient::spawn("weather", &["--connectome"]);
    let r = c
        .request(json!({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"connectome://declared","_meta":meta()}}))
        .await;
    let text = r["result"]["contents"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let verified = verify(text.as_bytes()).unwrap();
    assert_eq!(verified.algorithm, DigestAlgorithm::Sha256);
    let mut g = Graph::new();
    g.add_dispatch_edge("get_weather");
    let file = declared_export(
        &Declared::from_parts(g, Default::default()),
        DigestAlgorithm::Sha256,
    )
    .unwrap();
    assert_eq!(
        text.as_bytes(),
        &file.bytes[..],
        "byte-identical to the file export"
    );
    // A tool call is a dispatch the attached collector records: the observed export shows it.
    c.request(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"place":"Oslo"},"_meta":meta()}})).await;
    let o = c
        .request(json!({"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"connectome://observed","_meta":meta()}}))
        .await;
    let observed = o["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(observed.contains("tool:get_weather"), "{observed}");
}

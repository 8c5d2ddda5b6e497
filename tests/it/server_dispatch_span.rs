//! The dispatch site's span, without the connectome: a subscriber of the host's own sees one
//! `tools/call` span per validated call, at target `beam_mcp::DISPATCH_TARGET`, carrying the
//! catalog's tool name and nothing else; a refused call opens none. The span is emitted by the
//! core whatever features are built, so a collector needs no code in the host.

use beam_mcp::{Answer, Carrier, Catalog, Server, ServerConfig, ToolOutput, ToolSpec};
use serde_json::json;
use std::sync::{Arc, Mutex};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

/// A span as opened: target, name, fields.
type Opened = (String, String, Vec<(String, String)>);

#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<Opened>>>);

struct Fields(Vec<(String, String)>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

impl<S: Subscriber> Layer<S> for Seen {
    fn on_new_span(&self, attrs: &Attributes<'_>, _id: &Id, _cx: Context<'_, S>) {
        let mut fields = Fields(Vec::new());
        attrs.record(&mut fields);
        let m = attrs.metadata();
        self.0
            .lock()
            .unwrap()
            .push((m.target().to_owned(), m.name().to_owned(), fields.0));
    }
}

#[tokio::test]
async fn every_validated_call_opens_one_dispatch_span_naming_the_tool() {
    let seen = Seen::default();
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(seen.clone()));
    let catalog = Catalog::new().tool(ToolSpec::new("get_weather", "w").with_input_schema(json!({
        "type": "object", "properties": {"place": {"type": "string"}}, "required": ["place"]
    })));
    let server =
        Server::new(ServerConfig::new(catalog).dispatch(|_c| async { Ok(ToolOutput::text("ok")) }))
            .unwrap();
    for args in [json!({"place": "Oslo"}), json!({"place": 5})] {
        let f = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_weather", "arguments": args}});
        let Answer::Reply(_) = server
            .answer(&serde_json::to_vec(&f).unwrap(), Carrier::Stdio)
            .await
        else {
            panic!("answered")
        };
    }
    let spans: Vec<_> = seen
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|(target, _, _)| target == beam_mcp::DISPATCH_TARGET)
        .cloned()
        .collect();
    assert_eq!(
        spans,
        [(
            beam_mcp::DISPATCH_TARGET.to_owned(),
            "tools/call".to_owned(),
            vec![("tool".to_owned(), "get_weather".to_owned())]
        )],
        "one span, for the call that passed validation, naming the tool only"
    );
}

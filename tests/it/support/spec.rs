//! Validates wire messages against the MCP schema of their revision (vendored under tests/spec).

use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Mutex;

pub(crate) struct Spec {
    defs: Value,
    cache: Mutex<HashMap<String, std::sync::Arc<jsonschema::Validator>>>,
}

impl Spec {
    pub(crate) fn load(revision: &str) -> Spec {
        let path = format!(
            "{}/tests/spec/{revision}/schema.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let root: Value = serde_json::from_str(&text).unwrap();
        Spec {
            defs: root["$defs"].clone(),
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn validator(&self, def: &str) -> std::sync::Arc<jsonschema::Validator> {
        let mut cache = self.cache.lock().unwrap();
        cache
            .entry(def.to_owned())
            .or_insert_with(|| {
                assert!(self.defs.get(def).is_some(), "no definition {def}");
                let schema = json!({ "$ref": format!("#/$defs/{def}"), "$defs": self.defs });
                std::sync::Arc::new(
                    jsonschema::options()
                        .with_draft(jsonschema::Draft::Draft202012)
                        .build(&schema)
                        .unwrap(),
                )
            })
            .clone()
    }

    /// Every violation of `def` by `instance` (empty when it is valid).
    pub(crate) fn errors(&self, def: &str, instance: &Value) -> Vec<String> {
        self.validator(def)
            .iter_errors(instance)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect()
    }

    /// Panics unless `instance` is valid against `def`.
    pub(crate) fn check(&self, def: &str, instance: &Value) {
        let errors = self.errors(def, instance);
        assert!(
            errors.is_empty(),
            "{def} rejects {instance}:\n{}",
            errors.join("\n")
        );
    }

    /// Checks a whole response: an error response, or a result response whose result is `def`.
    pub(crate) fn check_response(&self, result_def: &str, response: &Value) {
        if response.get("error").is_some() {
            self.check("JSONRPCErrorResponse", response);
        } else {
            self.check("JSONRPCResultResponse", response);
            self.check(result_def, &response["result"]);
        }
    }
}

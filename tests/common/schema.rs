//! Every JSON report a test produces is checked against `docs/json-schema.json`, the schema
//! the documentation promises.

use std::sync::OnceLock;

/// The schema, compiled once per test binary.
fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let text = include_str!("../../docs/json-schema.json");
        let schema: serde_json::Value = serde_json::from_str(text).expect("the schema is JSON");
        jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema")
    })
}

/// Panics with every violation if `report` does not follow the schema.
pub fn check(report: &serde_json::Value) {
    let errors: Vec<String> = validator()
        .iter_errors(report)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the report does not follow docs/json-schema.json:\n{}",
        errors.join("\n")
    );
}

/// [`check`] on a report's text, if it is JSON with a `schema` field (other output is left to
/// the test).
#[allow(dead_code)]
pub fn check_text(text: &[u8]) {
    if let Ok(j) = serde_json::from_slice::<serde_json::Value>(text) {
        if j.get("schema").is_some() {
            check(&j);
        }
    }
}

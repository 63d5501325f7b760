//! The committed JSON Schema is exactly what `sycl-analyzer schema` generates.

use assert_cmd::Command;

#[test]
fn committed_schema_equals_the_generated_one() {
    let out = Command::cargo_bin("sycl-analyzer")
        .unwrap()
        .arg("schema")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config/device-config.schema.json");
    let committed = std::fs::read_to_string(&path).unwrap();
    assert!(
        committed == String::from_utf8(out.clone()).unwrap(),
        "config/device-config.schema.json is stale: run `cargo run -- schema > config/device-config.schema.json`"
    );
    let schema: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let aspects = schema["definitions"]["aspect"]["anyOf"][0]["enum"]
        .as_array()
        .unwrap();
    assert_eq!(aspects.len(), 101);
    assert!(aspects.iter().any(|a| a == "ext_oneapi_atomic16"));
    assert_eq!(schema["properties"].as_object().unwrap().len(), 101);
    let entry = &schema["definitions"]["entry"];
    assert_eq!(entry["required"], serde_json::json!(["aspects"]));
    let fields: Vec<&String> = entry["properties"].as_object().unwrap().keys().collect();
    assert_eq!(
        fields,
        [
            "aspects",
            "may_support_other_aspects",
            "sub-group-sizes",
            "aot-toolchain",
            "aot-toolchain-options"
        ]
    );
}

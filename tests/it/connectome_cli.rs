//! The `connectome` binary, run as a host's CI would.

use std::path::Path;
use std::process::Command;

use beam_mcp::connectome::canonical::{verify, DigestAlgorithm};

#[test]
fn declared_writes_a_verifiable_export() {
    let dir = std::env::temp_dir().join(format!("connectome-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tools = dir.join("tools.json");
    std::fs::write(
        &tools,
        r#"[{"name":"get_weather","dispatch_target":"host_crate::weather::api::get_weather"},{"name":"bare"}]"#,
    )
    .unwrap();
    let out = dir.join("declared.json");
    let manifest =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host_crate/Cargo.toml");
    let status = Command::new(env!("CARGO_BIN_EXE_connectome"))
        .args(["declared", "--manifest-path"])
        .arg(&manifest)
        .arg("--tools")
        .arg(&tools)
        .args(["--digest", "sha384", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let bytes = std::fs::read(&out).unwrap();
    let verified = verify(&bytes).unwrap();
    assert_eq!(verified.kind, "declared");
    assert_eq!(verified.algorithm, DigestAlgorithm::Sha384);
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.contains("\"from\":\"tool:get_weather\""));
    assert!(text.contains("\"to\":\"tool:bare\""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn usage_errors_exit_2() {
    let output = Command::new(env!("CARGO_BIN_EXE_connectome"))
        .args(["declared", "--digest", "md5", "--manifest-path", "x"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("md5"));
    let output = Command::new(env!("CARGO_BIN_EXE_connectome"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

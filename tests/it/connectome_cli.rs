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

fn golden(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// Runs the binary with `args` (paths under `tests/golden/`), its output on standard out.
fn connectome(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_connectome"))
        .current_dir(golden(""))
        .args(args)
        .output()
        .unwrap()
}

fn assert_reproduces(args: &[&str], golden_name: &str) {
    let output = connectome(args);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&std::fs::read(golden(golden_name)).unwrap()),
        "{args:?} does not reproduce {golden_name}"
    );
}

#[test]
fn effective_reproduces_both_effective_goldens_from_the_committed_inputs() {
    assert_reproduces(
        &[
            "effective",
            "--declared",
            "inputs/effective_declared.json",
            "--observed",
            "inputs/effective_observed.json",
        ],
        "connectome_effective.json",
    );
    assert_reproduces(
        &[
            "effective",
            "--declared",
            "inputs/effective_declared.json",
            "--observed",
            "inputs/effective_federated_observed.json",
        ],
        "connectome_effective_federated.json",
    );
}

#[test]
fn federated_reproduces_the_federated_goldens_from_node_snapshots() {
    // Node order on the command line does not matter, nor a node given twice.
    assert_reproduces(
        &[
            "federated",
            "--node",
            "node_c=inputs/effective_node_c.json",
            "--node",
            "node_b=inputs/effective_node_b.json",
            "--node",
            "node_a=inputs/effective_node_a.json",
            "--node",
            "node_b=inputs/effective_node_b.json",
        ],
        "inputs/effective_federated_observed.json",
    );
    assert_reproduces(
        &[
            "federated",
            "--node",
            "node_a=inputs/federated_node_a.json",
            "--node",
            "node_b=inputs/federated_node_b.json",
            "--node",
            "node_c=inputs/federated_node_c.json",
        ],
        "connectome_federated_observed.json",
    );
}

#[test]
fn diff_reproduces_the_diff_golden_from_the_declared_and_observed_goldens() {
    assert_reproduces(
        &[
            "diff",
            "--declared",
            "connectome_declared.json",
            "--observed",
            "connectome_observed.json",
        ],
        "connectome_diff.json",
    );
}

#[test]
fn the_output_digest_is_the_flag_s_never_an_input_s() {
    // connectome_observed_sha512.json is a sha512 input; the output is sha256 by default.
    let output = connectome(&[
        "diff",
        "--declared",
        "connectome_declared.json",
        "--observed",
        "connectome_observed_sha512.json",
    ]);
    assert!(output.status.success());
    assert_eq!(
        output.stdout,
        std::fs::read(golden("connectome_diff.json")).unwrap()
    );
    let output = connectome(&[
        "diff",
        "--declared",
        "connectome_declared.json",
        "--observed",
        "connectome_observed.json",
        "--digest",
        "sha384",
    ]);
    assert_eq!(
        verify(&output.stdout).unwrap().algorithm,
        DigestAlgorithm::Sha384
    );
}

/// Writes `bytes` to a fresh temporary file and runs `effective` with it as the observed input.
fn refused_observed(tag: &str, bytes: &[u8]) -> String {
    let path =
        std::env::temp_dir().join(format!("connectome-cli-{tag}-{}.json", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    let declared = golden("inputs/effective_declared.json");
    let output = Command::new(env!("CARGO_BIN_EXE_connectome"))
        .arg("effective")
        .arg("--declared")
        .arg(&declared)
        .arg("--observed")
        .arg(&path)
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(output.status.code(), Some(1), "{tag} was accepted");
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    stderr
}

#[test]
fn sealed_inputs_are_verified_and_refused_by_name() {
    let good = std::fs::read(golden("inputs/effective_observed.json")).unwrap();
    let text = String::from_utf8(good.clone()).unwrap();
    // A count changed under an unchanged digest.
    let tampered = text.replacen("\"count\":3", "\"count\":4", 1);
    assert!(refused_observed("tampered", tampered.as_bytes()).contains("digest"));
    // The same document with whitespace: not canonical.
    let spaced = text.replacen("{\"body\"", "{ \"body\"", 1);
    assert!(refused_observed("spaced", spaced.as_bytes()).contains("canonical"));
    // A declared export where an observed one is taken: refused by its kind.
    let declared = std::fs::read(golden("inputs/effective_declared.json")).unwrap();
    assert!(refused_observed("kind", &declared).contains("\"declared\""));
}

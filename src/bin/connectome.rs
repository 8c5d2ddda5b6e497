//! `connectome`: builds a host's declared connectome export from the command line (for CI).
//!
//! ```text
//! connectome declared --manifest-path P [--package NAME]... [--target-kind KIND]...
//!                     [--tools FILE] [--digest sha256|sha384|sha512] [--out F]
//! ```
//!
//! `--tools FILE` is a JSON array of `{"name": "...", "dispatch_target": "krate::path::f"}`
//! (`dispatch_target` optional). The sealed canonical bytes go to `--out` or standard output.
//! Exit status: 0 on success, 2 on a usage error, 1 on any other failure.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use beam_mcp::connectome::canonical::DigestAlgorithm;
use beam_mcp::connectome::declared::{Declared, DeclaredInput, ToolEntry};
use beam_mcp::connectome::export::declared_export;

const USAGE: &str = "usage: connectome declared --manifest-path P [--package NAME]... \
[--target-kind KIND]... [--tools FILE] [--digest sha256|sha384|sha512] [--out F]";

struct Args {
    input: DeclaredInput,
    tools: Option<PathBuf>,
    digest: DigestAlgorithm,
    out: Option<PathBuf>,
}

fn parse(mut argv: impl Iterator<Item = String>) -> Result<Args, String> {
    if argv.next().as_deref() != Some("declared") {
        return Err(USAGE.to_owned());
    }
    let mut manifest = None;
    let mut input = DeclaredInput::new("Cargo.toml");
    let mut tools = None;
    let mut digest = DigestAlgorithm::Sha256;
    let mut out = None;
    while let Some(flag) = argv.next() {
        let mut value = || {
            argv.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--manifest-path" => manifest = Some(PathBuf::from(value()?)),
            "--package" => input.packages.push(value()?),
            "--target-kind" => input.target_kinds.push(value()?),
            "--tools" => tools = Some(PathBuf::from(value()?)),
            "--digest" => {
                digest = value()?
                    .parse::<DigestAlgorithm>()
                    .map_err(|e| e.to_string())?;
            }
            "--out" => out = Some(PathBuf::from(value()?)),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    input.manifest_path =
        manifest.ok_or_else(|| format!("--manifest-path is required\n{USAGE}"))?;
    Ok(Args {
        input,
        tools,
        digest,
        out,
    })
}

fn read_tools(path: &PathBuf) -> Result<Vec<ToolEntry>, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let items = value
        .as_array()
        .ok_or_else(|| format!("{}: expected a JSON array of tools", path.display()))?;
    items
        .iter()
        .map(|t| {
            let name = t
                .get("name")
                .and_then(serde_json::Value::as_str)
                .ok_or_else(|| format!("{}: a tool lacks a string \"name\"", path.display()))?;
            let target = t.get("dispatch_target").and_then(serde_json::Value::as_str);
            Ok(ToolEntry::new(name, target))
        })
        .collect()
}

fn run(mut args: Args) -> Result<(), String> {
    if let Some(path) = &args.tools {
        args.input.tools = read_tools(path)?;
    }
    let declared = Declared::build(&args.input).map_err(|e| e.to_string())?;
    let sealed = declared_export(&declared, args.digest).map_err(|e| e.to_string())?;
    match &args.out {
        Some(path) => {
            std::fs::write(path, &sealed.bytes).map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => std::io::stdout()
            .write_all(&sealed.bytes)
            .map_err(|e| format!("stdout: {e}"))?,
    }
    eprintln!(
        "declared: {} nodes, {} edges; bound: {} dynamic, {} outside scope, {} unreadable; {} {}",
        declared.graph().node_count(),
        declared.graph().edge_count(),
        declared.bound().dynamic_dispatch.len(),
        declared.bound().outside_scope.len(),
        declared.bound().unreadable.len(),
        sealed.algorithm,
        sealed.digest
    );
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("connectome: {msg}");
            ExitCode::FAILURE
        }
    }
}

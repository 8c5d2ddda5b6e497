//! `connectome`: builds a host's connectome exports from the command line (for CI), from a
//! crate or from files.
//!
//! ```text
//! connectome declared  --manifest-path P [--package NAME]... [--target-kind KIND]...
//!                      [--tools FILE] [--digest ALG] [--out F]
//! connectome effective --declared F --observed F [--digest ALG] [--out F]
//! connectome federated --node NAME=F [--node NAME=F]... [--digest ALG] [--out F]
//! connectome diff      --declared F --observed F [--digest ALG] [--out F]
//! ```
//!
//! `--tools FILE` is a JSON array of `{"name": "...", "dispatch_target": "krate::path::f"}`
//! (`dispatch_target` optional). Every other input file is a sealed export, verified before
//! use (`beam_mcp::connectome::import`): `--declared` a `declared` export, `--observed` an
//! `observed` export (for `effective`, a `federated_observed` one too), each `--node` one
//! node's `observed` export. `ALG` is `sha256` (the default), `sha384` or `sha512`; the
//! output's algorithm is `--digest`'s, never an input's. The sealed canonical bytes go to
//! `--out` or standard output.
//! Exit status: 0 on success, 2 on a usage error, 1 on any other failure (a refused input
//! is named, with why, on standard error).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use beam_mcp::connectome::canonical::{DigestAlgorithm, Sealed};
use beam_mcp::connectome::declared::{Declared, DeclaredInput, ToolEntry};
use beam_mcp::connectome::diff::Diff;
use beam_mcp::connectome::effective::{contributed_effective_export, effective_export};
use beam_mcp::connectome::export::{declared_export, diff_export};
use beam_mcp::connectome::federation::{federated_observed_export, Federation};
use beam_mcp::connectome::import::{import, Imported, Role};

const USAGE: &str = "usage: connectome declared --manifest-path P [--package NAME]... \
[--target-kind KIND]... [--tools FILE] [--digest ALG] [--out F]
       connectome effective --declared F --observed F [--digest ALG] [--out F]
       connectome federated --node NAME=F [--node NAME=F]... [--digest ALG] [--out F]
       connectome diff --declared F --observed F [--digest ALG] [--out F]
ALG: sha256 (default), sha384, sha512";

/// What to build.
enum Command {
    Declared {
        input: Box<DeclaredInput>,
        tools: Option<PathBuf>,
    },
    Effective {
        declared: PathBuf,
        observed: PathBuf,
    },
    Federated {
        nodes: Vec<(String, PathBuf)>,
    },
    Diff {
        declared: PathBuf,
        observed: PathBuf,
    },
}

struct Args {
    command: Command,
    digest: DigestAlgorithm,
    out: Option<PathBuf>,
}

fn required(v: Option<PathBuf>, flag: &str) -> Result<PathBuf, String> {
    v.ok_or_else(|| format!("{flag} is required\n{USAGE}"))
}

fn parse(mut argv: impl Iterator<Item = String>) -> Result<Args, String> {
    let sub = argv.next().ok_or_else(|| USAGE.to_owned())?;
    if !matches!(
        sub.as_str(),
        "declared" | "effective" | "federated" | "diff"
    ) {
        return Err(format!("unknown command {sub:?}\n{USAGE}"));
    }
    let mut manifest = None;
    let mut input = DeclaredInput::new("Cargo.toml");
    let mut tools = None;
    let (mut declared, mut observed) = (None, None);
    let mut nodes = Vec::new();
    let mut digest = DigestAlgorithm::Sha256;
    let mut out = None;
    while let Some(flag) = argv.next() {
        let mut value = || {
            argv.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match (sub.as_str(), flag.as_str()) {
            ("declared", "--manifest-path") => manifest = Some(PathBuf::from(value()?)),
            ("declared", "--package") => input.packages.push(value()?),
            ("declared", "--target-kind") => input.target_kinds.push(value()?),
            ("declared", "--tools") => tools = Some(PathBuf::from(value()?)),
            ("effective" | "diff", "--declared") => declared = Some(PathBuf::from(value()?)),
            ("effective" | "diff", "--observed") => observed = Some(PathBuf::from(value()?)),
            ("federated", "--node") => {
                let v = value()?;
                let (name, file) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--node takes NAME=FILE, got {v:?}\n{USAGE}"))?;
                nodes.push((name.to_owned(), PathBuf::from(file)));
            }
            (_, "--digest") => {
                digest = value()?
                    .parse::<DigestAlgorithm>()
                    .map_err(|e| e.to_string())?;
            }
            (_, "--out") => out = Some(PathBuf::from(value()?)),
            (_, other) => return Err(format!("unknown argument {other:?} to {sub}\n{USAGE}")),
        }
    }
    let command = match sub.as_str() {
        "declared" => {
            input.manifest_path = required(manifest, "--manifest-path")?;
            Command::Declared {
                input: Box::new(input),
                tools,
            }
        }
        "effective" => Command::Effective {
            declared: required(declared, "--declared")?,
            observed: required(observed, "--observed")?,
        },
        "diff" => Command::Diff {
            declared: required(declared, "--declared")?,
            observed: required(observed, "--observed")?,
        },
        _ => {
            if nodes.is_empty() {
                return Err(format!("federated needs at least one --node\n{USAGE}"));
            }
            Command::Federated { nodes }
        }
    };
    Ok(Args {
        command,
        digest,
        out,
    })
}

fn read_tools(path: &Path) -> Result<Vec<ToolEntry>, String> {
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

/// Reads and verifies one sealed input; a refusal names the file and why.
fn read_export(path: &Path, role: Role) -> Result<Imported, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    import(&bytes, role).map_err(|e| format!("{}: refused: {e}", path.display()))
}

fn build_declared(
    input: &mut DeclaredInput,
    tools: Option<&Path>,
    digest: DigestAlgorithm,
) -> Result<Sealed, String> {
    if let Some(path) = tools {
        input.tools = read_tools(path)?;
    }
    let declared = Declared::build(input).map_err(|e| e.to_string())?;
    let sealed = declared_export(&declared, digest).map_err(|e| e.to_string())?;
    eprintln!(
        "declared: {} nodes, {} edges; bound: {} dynamic, {} outside scope, {} unreadable",
        declared.graph().node_count(),
        declared.graph().edge_count(),
        declared.bound().dynamic_dispatch.len(),
        declared.bound().outside_scope.len(),
        declared.bound().unreadable.len(),
    );
    Ok(sealed)
}

fn build(command: Command, digest: DigestAlgorithm) -> Result<Sealed, String> {
    let sealed = match command {
        Command::Declared { mut input, tools } => {
            return build_declared(&mut input, tools.as_deref(), digest)
        }
        Command::Effective { declared, observed } => {
            let d = read_export(&declared, Role::Declared)?;
            let o = read_export(&observed, Role::ObservedOrFederated)?;
            match o.contributors {
                Some(names) => contributed_effective_export(&d.graph, &o.graph, names, digest),
                None => effective_export(&d.graph, &o.graph, digest),
            }
        }
        Command::Federated { nodes } => {
            let mut federation = Federation::new();
            for (name, path) in &nodes {
                federation.contribute(name, &read_export(path, Role::Observed)?.graph);
            }
            federated_observed_export(&federation, digest)
        }
        Command::Diff { declared, observed } => {
            let d = read_export(&declared, Role::Declared)?;
            let o = read_export(&observed, Role::Observed)?;
            diff_export(&Diff::run(&d.graph, &o.graph), digest)
        }
    };
    sealed.map_err(|e| e.to_string())
}

fn run(args: Args) -> Result<(), String> {
    let sealed = build(args.command, args.digest)?;
    match &args.out {
        Some(path) => {
            std::fs::write(path, &sealed.bytes).map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => std::io::stdout()
            .write_all(&sealed.bytes)
            .map_err(|e| format!("stdout: {e}"))?,
    }
    eprintln!("{} {}", sealed.algorithm, sealed.digest);
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

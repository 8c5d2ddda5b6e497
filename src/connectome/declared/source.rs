//! The source loader: the declared graph's only IO. It runs `cargo metadata --format-version 1
//! --no-deps`, follows each target's `mod` declarations from its root file, and reads and
//! parses every file it reaches. Parsing itself ([`parse_file`]) is pure.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::bound::{BoundEntry, BoundReason};
use super::error::DeclaredError;
use super::input::DeclaredInput;
use super::syntax::{is_cfg_test, line_col};

/// Every crate in scope, loaded.
#[derive(Debug, Clone, Default)]
pub(crate) struct SourceSet {
    /// The crates, in load order.
    pub(crate) crates: Vec<CrateSource>,
}

/// One crate (a target of a package) in scope.
#[derive(Debug, Clone)]
pub(crate) struct CrateSource {
    /// The package that groups it.
    pub(crate) package: String,
    /// The crate's name as paths spell it (`-` made `_`).
    pub(crate) crate_name: String,
    /// Names the package's dependencies are spelled by in paths.
    pub(crate) dependencies: Vec<String>,
    /// Its files, root first.
    pub(crate) files: Vec<SourceFile>,
    /// Entries found while loading (missing module files, unreadable files).
    pub(crate) unreadable: Vec<BoundEntry>,
}

/// One source file of a crate.
#[derive(Debug, Clone)]
pub(crate) struct SourceFile {
    /// Path relative to the package's manifest directory, with `/` separators.
    pub(crate) path: String,
    /// The module the file is, from the crate name down.
    pub(crate) module: Vec<String>,
    /// The parsed file, or where parsing failed.
    pub(crate) content: FileContent,
}

/// A file's content.
#[derive(Debug, Clone)]
pub(crate) enum FileContent {
    /// The file parsed.
    Parsed(syn::File),
    /// The file did not parse.
    Failed {
        /// 1-based line of the error.
        line: u32,
        /// 1-based column of the error.
        column: u32,
    },
}

/// Parses one file's text. Pure.
pub(crate) fn parse_file(path: &str, module: Vec<String>, text: &str) -> SourceFile {
    let content = match syn::parse_file(text) {
        Ok(file) => FileContent::Parsed(file),
        Err(e) => {
            let (line, column) = line_col(e.span());
            FileContent::Failed { line, column }
        }
    };
    SourceFile {
        path: path.to_owned(),
        module,
        content,
    }
}

/// Loads every crate in scope of `input`.
///
/// # Errors
/// [`DeclaredError`] when `cargo metadata` fails or a requested package is absent.
pub(crate) fn load(input: &DeclaredInput) -> Result<SourceSet, DeclaredError> {
    let metadata = cargo_metadata(&input.manifest_path)?;
    let packages = metadata
        .get("packages")
        .and_then(Value::as_array)
        .ok_or_else(|| DeclaredError::Metadata {
            detail: "no packages array".into(),
        })?;
    for wanted in &input.packages {
        if !packages
            .iter()
            .any(|p| p.get("name").and_then(Value::as_str) == Some(wanted))
        {
            return Err(DeclaredError::PackageNotFound {
                package: wanted.clone(),
            });
        }
    }
    let kinds: Vec<&str> = if input.target_kinds.is_empty() {
        vec!["lib", "bin"]
    } else {
        input.target_kinds.iter().map(String::as_str).collect()
    };
    let mut set = SourceSet::default();
    for package in packages {
        let name = str_field(package, "name")?;
        if !input.packages.is_empty() && !input.packages.iter().any(|p| p == name) {
            continue;
        }
        let manifest = PathBuf::from(str_field(package, "manifest_path")?);
        let root_dir = manifest.parent().unwrap_or(Path::new(".")).to_path_buf();
        let dependencies: Vec<String> = package
            .get("dependencies")
            .and_then(Value::as_array)
            .map(|deps| {
                deps.iter()
                    .filter_map(|d| {
                        d.get("rename")
                            .and_then(Value::as_str)
                            .or_else(|| d.get("name").and_then(Value::as_str))
                    })
                    .map(|n| n.replace('-', "_"))
                    .collect()
            })
            .unwrap_or_default();
        let targets = package
            .get("targets")
            .and_then(Value::as_array)
            .ok_or_else(|| DeclaredError::Metadata {
                detail: format!("package {name} has no targets array"),
            })?;
        for target in targets {
            let target_kinds: Vec<&str> = target
                .get("kind")
                .and_then(Value::as_array)
                .map(|k| k.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let in_scope = target_kinds.iter().any(|k| {
                kinds.contains(k) || (*k != "bin" && k.ends_with("lib") && kinds.contains(&"lib"))
            });
            if !in_scope {
                continue;
            }
            let crate_name = str_field(target, "name")?.replace('-', "_");
            let src_path = PathBuf::from(str_field(target, "src_path")?);
            set.crates.push(load_crate(
                name,
                &crate_name,
                dependencies.clone(),
                &root_dir,
                &src_path,
            ));
        }
    }
    Ok(set)
}

fn str_field<'a>(v: &'a Value, key: &str) -> Result<&'a str, DeclaredError> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| DeclaredError::Metadata {
            detail: format!("missing string field {key:?}"),
        })
}

fn cargo_metadata(manifest_path: &Path) -> Result<Value, DeclaredError> {
    let program = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(&program)
        .arg("metadata")
        .arg("--format-version")
        .arg("1")
        .arg("--no-deps")
        .arg("--offline")
        .arg("--manifest-path")
        .arg(manifest_path)
        .output()
        .map_err(|source| DeclaredError::CargoSpawn {
            program: program.clone(),
            source,
        })?;
    if !output.status.success() {
        return Err(DeclaredError::CargoFailed {
            manifest_path: manifest_path.to_path_buf(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    serde_json::from_slice(&output.stdout).map_err(|e| DeclaredError::Metadata {
        detail: e.to_string(),
    })
}

/// Loads one crate from its root file, following `mod` declarations.
pub(crate) fn load_crate(
    package: &str,
    crate_name: &str,
    dependencies: Vec<String>,
    package_dir: &Path,
    root_file: &Path,
) -> CrateSource {
    let mut krate = CrateSource {
        package: package.to_owned(),
        crate_name: crate_name.to_owned(),
        dependencies,
        files: Vec::new(),
        unreadable: Vec::new(),
    };
    let mut queue: Vec<(PathBuf, Vec<String>, bool)> =
        vec![(root_file.to_path_buf(), vec![crate_name.to_owned()], true)];
    while let Some((file, module, mod_rs)) = queue.pop() {
        let rel = relative(package_dir, &file);
        let text = match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(e) => {
                krate.unreadable.push(BoundEntry {
                    file: Some(rel),
                    line: 0,
                    column: 0,
                    reason: BoundReason::IoError,
                    caller: None,
                    callee: e.kind().to_string(),
                });
                continue;
            }
        };
        let parsed = parse_file(&rel, module.clone(), &text);
        if let FileContent::Parsed(syn_file) = &parsed.content {
            let file_dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
            let child_dir = if mod_rs {
                file_dir.clone()
            } else {
                file_dir.join(file.file_stem().unwrap_or_default())
            };
            let mut found = Vec::new();
            collect_mod_decls(&syn_file.items, &[], &mut found);
            for decl in found {
                let candidates: Vec<(PathBuf, bool)> = match &decl.path_attr {
                    Some(p) if decl.inline.is_empty() => vec![(file_dir.join(p), true)],
                    Some(p) => {
                        let mut dir = child_dir.clone();
                        dir.extend(&decl.inline);
                        vec![(dir.join(p), true)]
                    }
                    None => {
                        let mut dir = child_dir.clone();
                        dir.extend(&decl.inline);
                        vec![
                            (dir.join(format!("{}.rs", decl.name)), false),
                            (dir.join(&decl.name).join("mod.rs"), true),
                        ]
                    }
                };
                let mut child_module = module.clone();
                child_module.extend(decl.inline.iter().cloned());
                child_module.push(decl.name.clone());
                match candidates.into_iter().find(|(p, _)| p.is_file()) {
                    Some((path, is_mod_rs)) => queue.push((path, child_module, is_mod_rs)),
                    None => krate.unreadable.push(BoundEntry {
                        file: Some(rel.clone()),
                        line: decl.line,
                        column: decl.column,
                        reason: BoundReason::MissingModuleFile,
                        caller: None,
                        callee: child_module.join("::"),
                    }),
                }
            }
        }
        krate.files.push(parsed);
    }
    krate
}

struct ModDecl {
    name: String,
    inline: Vec<String>,
    path_attr: Option<String>,
    line: u32,
    column: u32,
}

fn collect_mod_decls(items: &[syn::Item], inline: &[String], out: &mut Vec<ModDecl>) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        if is_cfg_test(&m.attrs) {
            continue;
        }
        let name = m.ident.to_string();
        match &m.content {
            Some((_, inner)) => {
                let mut nested = inline.to_vec();
                nested.push(name);
                collect_mod_decls(inner, &nested, out);
            }
            None => {
                let path_attr = m.attrs.iter().find_map(|a| {
                    if !a.path().is_ident("path") {
                        return None;
                    }
                    match &a.meta {
                        syn::Meta::NameValue(nv) => match &nv.value {
                            syn::Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Str(s),
                                ..
                            }) => Some(s.value()),
                            _ => None,
                        },
                        _ => None,
                    }
                });
                let (line, column) = line_col(m.ident.span());
                out.push(ModDecl {
                    name,
                    inline: inline.to_vec(),
                    path_attr,
                    line,
                    column,
                });
            }
        }
    }
}

fn relative(base: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

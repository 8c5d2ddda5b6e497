//! Edge extraction over parsed files: runs the three passes and assembles the graph. Pure: no
//! IO.
//!
//! Three passes over a [`SourceSet`]: index the modules (children, items, `use` maps, globs);
//! index the functions (free functions, methods under their type's resolved path, trait
//! default methods) and the struct fields typed `dyn Trait` (both in `index`, names resolved
//! by `resolve`); then visit every body and classify each call site as an edge or as an entry
//! of the completeness bound (`classify`). The rules are in `docs/connectome.md` ("How a call
//! site is classified"). The graph is assembled here: module, package and function nodes,
//! the tools' dispatch and serves edges, the call edges and the module-call edges they imply.

mod attributes;
mod classify;
mod index;
mod resolve;

use std::collections::BTreeSet;

use classify::classify_body;
use index::Indexer;
use resolve::{Index, Res};

use super::bound::{BoundEntry, BoundReason, CompletenessBound};
use super::input::ToolEntry;
use super::source::{FileContent, SourceFile, SourceSet};
use crate::connectome::model::{
    function_node_id, module_node_id, package_node_id, tool_node_id, EdgeKey, EdgeKind, Graph,
    Node, NodeKind,
};

/// Builds the declared graph of `sources` with the catalog's `tools`, and its completeness
/// bound (not yet normalized).
pub(super) fn extract(tools: &[ToolEntry], sources: &SourceSet) -> (Graph, CompletenessBound) {
    let mut indexer = Indexer::default();
    let mut files: Vec<(&str, &str, &SourceFile)> = Vec::new();
    for krate in &sources.crates {
        indexer.index.crates.insert(krate.crate_name.clone());
        for entry in &krate.unreadable {
            indexer.bound.push(entry.clone());
        }
        for file in &krate.files {
            files.push((&krate.package, &krate.crate_name, file));
        }
    }
    files.sort_by(|a, b| a.2.module.cmp(&b.2.module).then(a.2.path.cmp(&b.2.path)));
    for (package, _, file) in &files {
        let krate = sources
            .crates
            .iter()
            .find(|k| &k.package == package && file.module.first() == Some(&k.crate_name));
        let deps = krate.map(|k| k.dependencies.as_slice()).unwrap_or_default();
        match &file.content {
            FileContent::Parsed(parsed) => {
                indexer.index_modules(package, deps, &file.module, &parsed.items);
            }
            FileContent::Failed { line, column, .. } => {
                indexer
                    .index
                    .modules
                    .entry(file.module.join("::"))
                    .or_default()
                    .package = (*package).to_owned();
                indexer.bound.push(BoundEntry {
                    file: Some(file.path.clone()),
                    line: *line,
                    column: *column,
                    reason: BoundReason::ParseError,
                    caller: None,
                    callee: file.module.join("::"),
                });
            }
        }
    }
    for (package, _, file) in &files {
        if let FileContent::Parsed(parsed) = &file.content {
            indexer.index_fns(package, &file.module, &file.path, &parsed.items);
        }
    }

    let mut calls = BTreeSet::new();
    let Indexer {
        index,
        mut bound,
        jobs,
    } = indexer;
    for job in &jobs {
        classify_body(&index, job, &mut calls, &mut bound);
    }
    let graph = assemble(tools, &index, &calls, &mut bound);
    (graph, bound)
}

/// The graph of an index and its call edges, with the tools' dispatch edges and each tool's
/// serves edge to its dispatch target (a target that names no indexed function is a bound
/// entry instead).
fn assemble(
    tools: &[ToolEntry],
    index: &Index,
    calls: &BTreeSet<(String, String)>,
    bound: &mut CompletenessBound,
) -> Graph {
    let mut graph = Graph::new();
    for (path, info) in &index.modules {
        let mut node = Node::new(module_node_id(path), NodeKind::Module);
        node.package = Some(info.package.clone());
        node.module = Some(path.clone());
        graph.add_node(node);
        graph.add_node(Node::new(package_node_id(&info.package), NodeKind::Package));
    }
    for (path, info) in &index.fns {
        let mut node = Node::new(function_node_id(path), NodeKind::Function);
        node.package = Some(info.package.clone());
        node.module = Some(info.module.clone());
        graph.add_node(node);
    }
    for tool in tools {
        graph.add_dispatch_edge(&tool.name);
        let Some(target) = &tool.dispatch_target else {
            continue;
        };
        let segs: Vec<String> = target.split("::").map(str::to_owned).collect();
        let resolved = match index.canonical(segs, 0) {
            Res::InScope(abs) if index.fns.contains_key(&abs.join("::")) => Some(abs.join("::")),
            _ => None,
        };
        match resolved {
            Some(path) => graph.add_edge(EdgeKey::new(
                EdgeKind::Serves,
                tool_node_id(&tool.name),
                function_node_id(&path),
            )),
            None => bound.push(BoundEntry {
                file: None,
                line: 0,
                column: 0,
                reason: BoundReason::DispatchTargetNotInScope,
                caller: Some(tool_node_id(&tool.name)),
                callee: target.clone(),
            }),
        }
    }
    let module_of = |fn_id: &str| -> Option<String> {
        fn_id
            .strip_prefix("fn:")
            .and_then(|p| index.fns.get(p))
            .map(|i| i.module.clone())
    };
    for (from, to) in calls {
        graph.add_edge(EdgeKey::new(EdgeKind::Call, from.clone(), to.clone()));
        if let (Some(a), Some(b)) = (module_of(from), module_of(to)) {
            if a != b {
                graph.add_edge(EdgeKey::new(
                    EdgeKind::ModuleCall,
                    module_node_id(&a),
                    module_node_id(&b),
                ));
            }
        }
    }
    graph
}

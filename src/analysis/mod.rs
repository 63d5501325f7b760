//! Workspace analysis: the static call graph of device code across files, used aspects
//! propagated up that graph, and the checks (`aspect-mismatch`, the AOT-target checks).
//!
//! Input is per-file facts plus the device table; output is domain diagnostics. No IO.

mod features;
mod graph;
mod types;
mod visibility;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use features::features;
use graph::{Graph, NodeId};

use crate::devices::{registry, AspectId, AspectSet, DeviceTable, ResolvedTarget};
use crate::diagnostics::{suggest, with_did_you_mean, ChainStep, Code, Diagnostic, Severity};
use crate::syntax::{AspectRef, DeclForm, FileFacts, Span};

/// One analysed file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub path: Arc<str>,
    /// Shared: a snapshot of the workspace is a vector of cheap clones.
    pub facts: Arc<FileFacts>,
}

/// What the checks are run against.
pub struct Settings<'a> {
    pub table: &'a DeviceTable,
    /// The configured `-fsycl-targets`; `None` for the implicit `spir64`, which never warns.
    pub targets: Option<&'a [ResolvedTarget]>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    pub files: usize,
    pub functions: usize,
    pub kernels: usize,
}

#[derive(Debug, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    pub stats: Stats,
    /// Kernels and functions that declare aspects: what they declare and use, for editors.
    pub summaries: Vec<FunctionSummary>,
}

/// Declared versus used aspects of a kernel or decorated function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSummary {
    pub file: Arc<str>,
    /// Where its name (or a lambda's introducer) is.
    pub name_span: Span,
    pub name: String,
    pub kernel: bool,
    /// `None` when it declares nothing; names as written (unknown ones included).
    pub declared: Option<Vec<String>>,
    pub used: AspectSet,
}

pub fn analyze(files: &[SourceFile], settings: &Settings) -> Report {
    let graph = Graph::build(files);
    let mut diagnostics = Vec::new();
    check_aspect_names(&graph, &mut diagnostics);
    check_mismatches(&graph, &mut diagnostics);
    if let Some(targets) = settings.targets {
        check_targets(&graph, settings.table, targets, &mut diagnostics);
    }
    diagnostics.sort_by(|a, b| {
        (&a.file, a.pos.line, a.pos.column, &a.aspect, &a.message).cmp(&(
            &b.file,
            b.pos.line,
            b.pos.column,
            &b.aspect,
            &b.message,
        ))
    });
    diagnostics.dedup();
    let summaries = graph
        .nodes()
        .filter(|&n| graph.is_kernel(n) || graph.device_has(n).is_some())
        .map(|n| {
            let (file, name_span) = graph.name_span(n);
            FunctionSummary {
                file: graph.path(file).clone(),
                name_span,
                name: graph.display_name(n),
                kernel: graph.is_kernel(n),
                declared: graph.device_has(n).map(|d| {
                    d.aspects
                        .iter()
                        .map(|a| match a {
                            AspectRef::Named { name, .. } => name.clone(),
                            AspectRef::Unknown { text, .. } => text.clone(),
                        })
                        .collect()
                }),
                used: graph.used(n),
            }
        })
        .collect();
    Report {
        diagnostics,
        stats: Stats {
            files: files.len(),
            functions: graph.function_count(),
            kernels: graph.kernels().count(),
        },
        summaries,
    }
}

fn diagnostic(
    graph: &Graph,
    file: u32,
    span: Span,
    severity: Severity,
    code: Code,
    message: String,
) -> Diagnostic {
    Diagnostic {
        file: graph.path(file).clone(),
        range: span.range,
        pos: span.pos,
        severity,
        code,
        message,
        suggestions: Vec::new(),
        function: None,
        aspect: None,
        chain: Vec::new(),
    }
}

/// Aspect names written in `device_has` / `uses_aspects` that the registry does not know.
fn check_aspect_names(graph: &Graph, out: &mut Vec<Diagnostic>) {
    let reg = registry();
    for (file, refs) in graph.all_aspect_refs() {
        for r in refs {
            if let AspectRef::Named { name, span } = r {
                if reg.by_name(name).is_none() {
                    let suggestions = suggest(name, reg.names(), 3);
                    let mut d = diagnostic(
                        graph,
                        file,
                        *span,
                        Severity::Error,
                        Code::UnknownAspect,
                        with_did_you_mean(format!("unknown aspect '{name}'"), &suggestions),
                    );
                    d.suggestions = suggestions;
                    out.push(d);
                }
            }
        }
    }
}

/// The chain of a finding as diagnostic steps.
fn chain_steps(graph: &Graph, from: NodeId, aspect: AspectId) -> Vec<ChainStep> {
    let Some((calls, found)) = graph.chain(from, aspect) else {
        return Vec::new();
    };
    let mut steps: Vec<ChainStep> = calls
        .into_iter()
        .map(|(caller, edge)| {
            let callee = graph.display_name(edge.to);
            let file = graph.node_file(caller);
            ChainStep {
                function: Some(callee.clone()),
                use_: None,
                file: graph.path(file).clone(),
                range: edge.span.range,
                pos: edge.span.pos,
                message: format!("propagated from call to function '{callee}'"),
            }
        })
        .collect();
    steps.push(ChainStep {
        function: None,
        use_: Some(found.what.clone()),
        file: graph.path(found.file).clone(),
        range: found.span.range,
        pos: found.span.pos,
        message: format!("uses '{}' here", found.what),
    });
    steps
}

fn check_mismatches(graph: &Graph, out: &mut Vec<Diagnostic>) {
    let reg = registry();
    for node in graph.nodes() {
        let Some(decl) = graph.device_has(node) else {
            continue;
        };
        // An aspect the source cannot name could be any aspect: never warn from it.
        if decl
            .aspects
            .iter()
            .any(|a| matches!(a, AspectRef::Unknown { .. }))
        {
            continue;
        }
        let declared: AspectSet = decl
            .aspects
            .iter()
            .filter_map(|a| match a {
                AspectRef::Named { name, .. } => reg.by_name(name),
                AspectRef::Unknown { .. } => None,
            })
            .collect();
        let missing: BTreeMap<&str, AspectId> = graph
            .used(node)
            .iter()
            .filter(|a| !declared.contains(*a))
            .map(|a| (reg.name(a), a))
            .collect();
        let name = graph.display_name(node);
        let what = match decl.form {
            DeclForm::Attribute => "'sycl::device_has' attribute",
            DeclForm::Property => "'device_has' property",
        };
        for (aspect_name, aspect) in missing {
            let (file, span) = graph.name_span(node);
            let mut d = diagnostic(
                graph,
                file,
                span,
                Severity::Warning,
                Code::AspectMismatch,
                format!("function '{name}' uses aspect '{aspect_name}' not listed in its {what}"),
            );
            d.function = Some(name.clone());
            d.aspect = Some(aspect_name.to_string());
            d.chain = chain_steps(graph, node, aspect);
            out.push(d);
        }
    }
}

fn check_targets(
    graph: &Graph,
    table: &DeviceTable,
    targets: &[ResolvedTarget],
    out: &mut Vec<Diagnostic>,
) {
    let reg = registry();
    let entries: Vec<(&ResolvedTarget, &crate::devices::TargetInfo)> = targets
        .iter()
        .filter_map(|t| Some((t, table.get(t.entry.as_deref()?)?)))
        .collect();
    for node in graph
        .nodes()
        .filter(|n| graph.is_kernel(*n) || graph.is_sycl_external(*n))
    {
        let name = graph.display_name(node);
        let kind = if graph.is_kernel(node) {
            "kernel"
        } else {
            "SYCL_EXTERNAL function"
        };
        let mut aspects = graph.used(node);
        if let Some(decl) = graph.device_has(node) {
            for a in &decl.aspects {
                if let AspectRef::Named { name, .. } = a {
                    if let Some(id) = reg.by_name(name) {
                        aspects.insert(id);
                    }
                }
            }
        }
        let mut by_aspect: BTreeMap<&str, (AspectId, Vec<&str>)> = BTreeMap::new();
        for (t, info) in &entries {
            if info.may_support_other_aspects {
                continue;
            }
            for a in aspects.iter().filter(|a| !info.aspects.contains(*a)) {
                by_aspect
                    .entry(reg.name(a))
                    .or_insert((a, Vec::new()))
                    .1
                    .push(t.canonical.as_str());
            }
        }
        for (aspect_name, (aspect, lacking)) in by_aspect {
            let (file, span) = graph.name_span(node);
            let quoted: Vec<String> = lacking.iter().map(|t| format!("'{t}'")).collect();
            let mut d = diagnostic(
                graph,
                file,
                span,
                Severity::Warning,
                Code::TargetUnsupportedAspect,
                format!(
                    "{kind} '{name}' uses aspect '{aspect_name}', which no device of target {} has: \
                     the AOT image for it will not contain this {kind}, and launching it there \
                     throws errc::kernel_not_supported",
                    quoted.join(", ")
                ),
            );
            d.function = Some(name.clone());
            d.aspect = Some(aspect_name.to_string());
            d.chain = chain_steps(graph, node, aspect);
            out.push(d);
        }
        if let Some((size, span)) = graph.reqd_sub_group_size(node) {
            for (t, info) in &entries {
                if info.sub_group_sizes.is_empty()
                    || info.sub_group_sizes.iter().any(|&s| i64::from(s) == size)
                {
                    continue;
                }
                let sizes: Vec<String> = info.sub_group_sizes.iter().map(u32::to_string).collect();
                let mut d = diagnostic(
                    graph,
                    graph.node_file(node),
                    span,
                    Severity::Warning,
                    Code::TargetUnsupportedSubGroupSize,
                    format!(
                        "{kind} '{name}' requires sub-group size {size}, which target '{}' does not \
                         support (its sizes: {})",
                        t.canonical,
                        sizes.join(", ")
                    ),
                );
                d.function = Some(name.clone());
                out.push(d);
            }
        }
    }
    if let Some(plain) = targets.iter().find(|t| t.macro_name.is_none()) {
        for node in graph.nodes().filter(|n| graph.is_device(*n)) {
            for span in graph.arch_checks(node) {
                out.push(diagnostic(
                    graph,
                    graph.node_file(node),
                    *span,
                    Severity::Error,
                    Code::IfArchitectureNotAot,
                    format!(
                        "The if_architecture_is function may only be used when AOT compiling with \
                         '-fsycl-targets=spir64_x86_64' or '-fsycl-targets=*_gpu_*' (target '{}' \
                         is not)",
                        plain.canonical
                    ),
                ));
            }
        }
    }
}

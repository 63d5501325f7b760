//! Workspace analysis: the static call graph of device code across files, used aspects
//! propagated up that graph, and the checks (`aspect-mismatch`, the AOT-target checks).
//!
//! Input is per-file facts plus the device table; output is domain diagnostics. No IO.

mod compiles;
mod graph;
pub mod matrix;
mod parts;
mod types;
pub mod visibility;

pub use crate::base::SourceFile;
pub use compiles::Engine;
pub use parts::{analyze_parts, parts};

use std::collections::BTreeMap;
use std::sync::Arc;

pub use crate::semantic::features::features;
use graph::{Bodies, Collector, Derived, Graph, NodeId, Skeleton};
use types::TypeIndex;

use crate::devices::{registry, AspectId, AspectSet, DeviceTable, ResolvedTarget};
use crate::diagnostics::{suggest, with_did_you_mean, ChainStep, Code, Diagnostic, Severity};
use crate::syntax::{AspectRef, DeclForm, Located};

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
    /// Distinct device compiles analysed: 1 unless some file compiles differently for some
    /// of the targets.
    pub device_compiles: usize,
    /// Files that compile differently for some targets.
    pub varying_files: usize,
}

#[derive(Debug, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    pub stats: Stats,
    /// Kernels and functions that declare aspects: what they declare and use, for editors.
    pub summaries: Vec<FunctionSummary>,
    /// With several device compiles: each target's compile's functions and kernels (the stats
    /// hold the largest), so that reports of independent parts add up exactly.
    pub per_target: Vec<TargetCounts>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetCounts {
    pub target: String,
    pub functions: usize,
    pub kernels: usize,
}

/// Declared versus used aspects of a kernel or decorated function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSummary {
    pub file: Arc<str>,
    /// Where its name (or a lambda's introducer) is.
    pub name_span: Located,
    pub name: String,
    pub kernel: bool,
    /// `None` when it declares nothing; names as written (unknown ones included).
    pub declared: Option<Vec<String>>,
    pub used: AspectSet,
}

pub fn analyze(files: &[SourceFile], settings: &Settings) -> Report {
    Engine::new(files.to_vec()).report(settings)
}

/// The analysis of one device compile of a workspace, kept between edits. An edit that keeps every changed file's
/// interface (see `FileFacts::interface_hash`) re-reads only the bodies of the functions in
/// those files, and re-derives the graph (kernels, device code, propagation) only when what
/// those bodies use or call changed; anything else rebuilds it all.
#[derive(Clone)]
pub(crate) struct OneCompile {
    files: Vec<SourceFile>,
    interfaces: Vec<u64>,
    /// Declarations by name, for the semantic layer's lookups.
    decls: crate::semantic::Decls,
    skeleton: Skeleton,
    bodies: Bodies,
    derived: Derived,
    /// Per file, its unknown aspect names.
    unknown_aspects: Vec<Vec<Diagnostic>>,
    findings: Findings,
}

/// The findings of each checked node, kept while the settings, the derived graph and the
/// bodies of every node their chains pass through stay the same.
#[derive(Clone, Default)]
struct Findings {
    key: Option<u64>,
    per_node: rustc_hash::FxHashMap<NodeId, NodeFindings>,
}

#[derive(Clone)]
struct NodeFindings {
    /// The node, and every node of its findings' chains.
    deps: Vec<NodeId>,
    diagnostics: Vec<Diagnostic>,
}

/// What the checks read from the settings: the targets and their table entries.
fn settings_key(settings: &Settings) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    for t in settings.targets.into_iter().flatten() {
        format!("{t:?}").hash(&mut h);
        if let Some(info) = t.entry.as_deref().and_then(|e| settings.table.get(e)) {
            format!("{info:?}").hash(&mut h);
        }
    }
    settings.targets.is_some().hash(&mut h);
    h.finish()
}

/// What an update had to redo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Update {
    Unchanged,
    /// The bodies of the functions of `files` changed files were re-read (`nodes` call-graph
    /// nodes); `derived` when the graph's kernels, device code or propagated aspects had to be
    /// recomputed.
    Bodies {
        files: usize,
        nodes: usize,
        derived: bool,
    },
    /// Some interfaces changed: the skeleton was built again and `nodes` call-graph nodes whose
    /// bodies may bind differently were collected again; the rest kept theirs.
    Relinked {
        files: usize,
        nodes: usize,
    },
    Full,
}

impl Update {
    /// What two compiles' updates redid together.
    fn merge(self, other: Update) -> Update {
        use Update::*;
        match (self, other) {
            (Full, _) | (_, Full) => Full,
            (Unchanged, u) | (u, Unchanged) => u,
            (
                Bodies {
                    files,
                    nodes,
                    derived,
                },
                Bodies {
                    files: f,
                    nodes: n,
                    derived: d,
                },
            ) => Bodies {
                files: files.max(f),
                nodes: nodes + n,
                derived: derived || d,
            },
            (Relinked { files, nodes } | Bodies { files, nodes, .. }, other) => {
                let (f, n) = match other {
                    Relinked { files, nodes } | Bodies { files, nodes, .. } => (files, nodes),
                    _ => (0, 0),
                };
                Relinked {
                    files: files.max(f),
                    nodes: nodes + n,
                }
            }
        }
    }
}

impl OneCompile {
    pub fn new(files: Vec<SourceFile>) -> Self {
        let interfaces = {
            use rayon::prelude::*;
            files.par_iter().map(|f| f.facts.interface_hash()).collect()
        };
        let decls = crate::semantic::Decls::new(files.iter().map(|f| &*f.facts));
        let skeleton = Skeleton::build(&files, &decls);
        let types = TypeIndex::new(&files, &decls);
        let sem = crate::semantic::Index::new(
            files.iter().map(|f| &*f.facts).collect(),
            skeleton.visibility().lists(),
            &decls,
        );
        let bodies = Collector::new(&files, &skeleton, &types, &sem).collect_all();
        drop(sem);
        drop(types);
        let derived = Derived::compute(&skeleton, &bodies);
        let unknown_aspects = files.iter().map(unknown_aspects).collect();
        Self {
            files,
            interfaces,
            decls,
            skeleton,
            bodies,
            derived,
            unknown_aspects,
            findings: Findings::default(),
        }
    }

    /// Builds the analysis of `files` anew, the old one dropped first: holding both was the
    /// language server's peak of memory on an interface-changing edit.
    fn rebuild(&mut self, files: Vec<SourceFile>) {
        *self = Self::new(Vec::new());
        *self = Self::new(files);
    }

    /// Moves to a new set of files. Files are compared by their facts' identity (`Arc`), so a
    /// caller passes the facts it already gave for files that did not change.
    pub fn update(&mut self, files: Vec<SourceFile>) -> Update {
        let same_paths = files.len() == self.files.len()
            && files.iter().zip(&self.files).all(|(a, b)| a.path == b.path);
        if !same_paths {
            self.rebuild(files);
            return Update::Full;
        }
        let changed: Vec<usize> = (0..files.len())
            .filter(|&i| !Arc::ptr_eq(&files[i].facts, &self.files[i].facts))
            .collect();
        if changed.is_empty() {
            return Update::Unchanged;
        }
        let hashes: Vec<(usize, u64)> = changed
            .iter()
            .map(|&i| (i, files[i].facts.interface_hash()))
            .filter(|&(i, h)| h != self.interfaces[i])
            .collect();
        if !hashes.is_empty() {
            let iface: Vec<usize> = hashes.iter().map(|&(i, _)| i).collect();
            for &i in &iface {
                self.decls
                    .replace(i as u32, &self.files[i].facts, &files[i].facts);
            }
            let old = std::mem::take(&mut self.bodies);
            let Some(r) = graph::relink(
                &self.files,
                &files,
                &self.skeleton,
                old,
                &changed,
                &iface,
                &self.decls,
            ) else {
                self.rebuild(files);
                return Update::Full;
            };
            for (i, h) in hashes {
                self.interfaces[i] = h;
            }
            self.files = files;
            for &i in &changed {
                self.unknown_aspects[i] = unknown_aspects(&self.files[i]);
            }
            // Freeing the old skeleton's many small blocks was a tenth of an interface edit's
            // time: it is dropped on the pool, after the answer.
            let old = std::mem::replace(&mut self.skeleton, r.skeleton);
            rayon::spawn(move || drop(old));
            self.bodies = r.bodies;
            self.derived = Derived::compute(&self.skeleton, &self.bodies);
            self.findings.per_node.clear();
            return Update::Relinked {
                files: changed.len(),
                nodes: r.collected,
            };
        }
        self.files = files;
        for &i in &changed {
            self.unknown_aspects[i] = unknown_aspects(&self.files[i]);
        }
        let types = TypeIndex::new(&self.files, &self.decls);
        // The interfaces are the same: so are the declarations by name.
        let sem = crate::semantic::Index::new(
            self.files.iter().map(|f| &*f.facts).collect(),
            self.skeleton.visibility().lists(),
            &self.decls,
        );
        let collector = Collector::new(&self.files, &self.skeleton, &types, &sem)
            .with_instances(&mut self.bodies);
        let mut nodes: Vec<NodeId> = changed
            .iter()
            .flat_map(|&i| {
                self.skeleton
                    .nodes_in_file(i as u32, self.files[i].facts.functions.len())
            })
            .collect();
        // Nodes elsewhere (instances of templates defined here, callers of an `auto` function
        // defined here) whose typing read an edited body.
        let edited: rustc_hash::FxHashSet<u32> = changed.iter().map(|&i| i as u32).collect();
        nodes.extend(self.bodies.reading(&edited));
        nodes.sort_unstable();
        nodes.dedup();
        let mut derived = false;
        let mut at = 0;
        while at < nodes.len() {
            let n = nodes[at];
            let c = collector.collect(n);
            if n < self.bodies.len() {
                derived |= self.bodies.replace(n, c);
            } else {
                self.bodies.push(c);
                derived = true;
            }
            at += 1;
            let total = self.skeleton.node_count() + collector.instance_count();
            if at == nodes.len() && total > self.bodies.len() {
                nodes.extend(self.bodies.len()..total);
            }
        }
        self.bodies.set_instances(collector);
        drop(sem);
        drop(types);
        // An instance nothing binds any more would be checked though no code makes it. Only a
        // body whose calls or launches changed can have dropped the last binding of one.
        if derived && !self.bodies.instances_all_referenced() {
            let files = std::mem::take(&mut self.files);
            self.rebuild(files);
            return Update::Full;
        }
        if derived {
            self.derived = Derived::compute(&self.skeleton, &self.bodies);
            self.findings.per_node.clear();
        } else {
            let touched: rustc_hash::FxHashSet<NodeId> = nodes.iter().copied().collect();
            self.findings
                .per_node
                .retain(|_, f| !f.deps.iter().any(|n| touched.contains(n)));
        }
        Update::Bodies {
            files: changed.len(),
            nodes: nodes.len(),
            derived,
        }
    }

    /// The kernel × target rows of this compile, for the settings' targets.
    pub fn matrix_rows(
        &self,
        settings: &Settings,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Vec<matrix::Row> {
        let graph = Graph::new(&self.files, &self.skeleton, &self.bodies, &self.derived);
        matrix::rows(&graph, settings, wanted)
    }

    /// Runs the checks on the current state, with summaries of the kernels and decorated
    /// functions of the files `summarize` accepts.
    pub fn report_for(&mut self, settings: &Settings, summarize: &dyn Fn(&str) -> bool) -> Report {
        let graph = Graph::new(&self.files, &self.skeleton, &self.bodies, &self.derived);
        let mut diagnostics: Vec<Diagnostic> =
            self.unknown_aspects.iter().flatten().cloned().collect();
        let key = settings_key(settings);
        if self.findings.key != Some(key) {
            self.findings = Findings {
                key: Some(key),
                ..Findings::default()
            };
        }
        let targets = settings.targets.unwrap_or_default();
        let entries: Vec<_> = targets
            .iter()
            .filter_map(|t| Some((t, settings.table.get(t.entry.as_deref()?)?)))
            .collect();
        let plain = targets.iter().find(|t| t.macro_name.is_none());
        let mut nodes: Vec<NodeId> = graph.decorated().to_vec();
        if settings.targets.is_some() {
            nodes.extend(graph.entry_points());
        }
        if plain.is_some() {
            nodes.extend(graph.arch_checking());
        }
        nodes.sort_unstable();
        nodes.dedup();
        for node in nodes {
            let found = self.findings.per_node.entry(node).or_insert_with(|| {
                let mut f = NodeFindings {
                    deps: vec![node],
                    diagnostics: Vec::new(),
                };
                check_mismatch(&graph, node, &mut f.diagnostics, &mut f.deps);
                if settings.targets.is_some() && graph.entry_points().binary_search(&node).is_ok() {
                    check_target(&graph, node, &entries, &mut f.diagnostics, &mut f.deps);
                }
                if let Some(plain) = plain {
                    check_arch(&graph, node, plain, &mut f.diagnostics);
                }
                f
            });
            diagnostics.extend(found.diagnostics.iter().cloned());
        }
        sort_findings(&mut diagnostics);
        diagnostics.dedup();
        let mut summarized: Vec<NodeId> = graph
            .entry_points()
            .iter()
            .filter(|&&n| graph.is_kernel(n))
            .chain(graph.decorated())
            .copied()
            .collect();
        summarized.sort_unstable();
        summarized.dedup();
        // Instances are numbered as they are found, which differs between a fresh build and
        // an updated one: they go after their pattern, ordered by what they use.
        summarized.sort_by_cached_key(|&n| {
            let (file, start) = graph.name_start(n);
            let instance = graph.is_instance(n);
            (file, start, instance, graph.used(n), n)
        });
        let summaries = summarized
            .into_iter()
            .filter(|&n| summarize(graph.path(graph.node_file(n))))
            .map(|n| {
                let (file, name_span) = graph.name_span(n);
                FunctionSummary {
                    file: graph.path(file).clone(),
                    name_span,
                    name: graph.display_name(n),
                    kernel: graph.is_kernel(n),
                    declared: graph.device_has(n).map(declared_names),
                    used: graph.used(n),
                }
            })
            .collect();
        Report {
            diagnostics,
            stats: Stats {
                files: self.files.len(),
                functions: graph.function_count(),
                kernels: graph.kernel_count(),
                device_compiles: 1,
                varying_files: 0,
            },
            summaries,
            per_target: Vec::new(),
        }
    }
}

/// A `device_has` list's aspects as written (unknown ones included).
fn declared_names(d: &crate::syntax::DeviceHas) -> Vec<String> {
    d.aspects
        .iter()
        .map(|a| match a {
            AspectRef::Named { name, .. } => name.clone(),
            AspectRef::Unknown { text, .. } => text.clone(),
        })
        .collect()
}

/// Findings in the order they are reported: by place, then aspect and text.
fn sort_findings(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (&a.file, a.pos.line, a.pos.column, &a.aspect, &a.message).cmp(&(
            &b.file,
            b.pos.line,
            b.pos.column,
            &b.aspect,
            &b.message,
        ))
    });
}

fn diagnostic(
    graph: &Graph,
    file: u32,
    at: Located,
    severity: Severity,
    code: Code,
    message: String,
) -> Diagnostic {
    Diagnostic::new(
        graph.path(file).clone(),
        at.range,
        at.pos,
        severity,
        code,
        message,
    )
}

/// Aspect names written in `device_has` / `uses_aspects` of a file that the registry does not
/// know.
fn unknown_aspects(file: &SourceFile) -> Vec<Diagnostic> {
    let reg = registry();
    let mut out = Vec::new();
    for refs in file.facts.aspect_refs() {
        for r in refs {
            if let AspectRef::Named { name, span } = r {
                if reg.by_name(name).is_none() {
                    let suggestions = suggest(name, reg.names(), 3);
                    let at = file.facts.locate(*span);
                    let mut d = Diagnostic::new(
                        file.path.clone(),
                        at.range,
                        at.pos,
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
    out
}

/// The chain of a finding as diagnostic steps; the nodes it passes through go to `deps`.
fn chain_steps(
    graph: &Graph,
    from: NodeId,
    aspect: AspectId,
    deps: &mut Vec<NodeId>,
) -> Vec<ChainStep> {
    let Some((calls, found)) = graph.chain(from, aspect) else {
        return Vec::new();
    };
    deps.extend(calls.iter().flat_map(|(caller, edge)| [*caller, edge.to]));
    let mut steps: Vec<ChainStep> = calls
        .into_iter()
        .map(|(caller, edge)| {
            let callee = graph.display_name(edge.to);
            let file = graph.node_file(caller);
            let at = graph.locate(file, edge.span);
            ChainStep {
                function: Some(callee.clone()),
                use_: None,
                file: graph.path(file).clone(),
                range: at.range,
                pos: at.pos,
                message: format!("propagated from call to function '{callee}'"),
            }
        })
        .collect();
    let at = graph.locate(found.file, found.span);
    steps.push(ChainStep {
        function: None,
        use_: Some(found.what.clone()),
        file: graph.path(found.file).clone(),
        range: at.range,
        pos: at.pos,
        message: match graph.macro_at(found.file, at.range) {
            Some(m) if m.starts_with("#include") => {
                format!("uses '{}' here, in the text of {m}", found.what)
            }
            Some(m) => format!(
                "uses '{}' here, in the expansion of macro '{m}'",
                found.what
            ),
            None => format!("uses '{}' here", found.what),
        },
    });
    steps
}

fn check_mismatch(graph: &Graph, node: NodeId, out: &mut Vec<Diagnostic>, deps: &mut Vec<NodeId>) {
    let reg = registry();
    {
        let Some(decl) = graph.device_has(node) else {
            return;
        };
        // An aspect the source cannot name could be any aspect: never warn from it.
        if decl
            .aspects
            .iter()
            .any(|a| matches!(a, AspectRef::Unknown { .. }))
        {
            return;
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
            d.chain = chain_steps(graph, node, aspect, deps);
            out.push(d);
        }
    }
}

/// The targets' device-table entries.
type Entries<'t> = [(&'t ResolvedTarget, &'t crate::devices::TargetInfo)];

fn check_target(
    graph: &Graph,
    node: NodeId,
    entries: &Entries,
    out: &mut Vec<Diagnostic>,
    deps: &mut Vec<NodeId>,
) {
    let reg = registry();
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
        for (t, info) in entries {
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
            let mut d = diagnostic(
                graph,
                file,
                span,
                Severity::Warning,
                Code::TargetUnsupportedAspect,
                target_unsupported_message(kind, &name, aspect_name, &lacking),
            );
            d.function = Some(name.clone());
            d.aspect = Some(aspect_name.to_string());
            d.targets = lacking.iter().map(|t| t.to_string()).collect();
            d.chain = chain_steps(graph, node, aspect, deps);
            out.push(d);
        }
        if let Some((size, span)) = graph.reqd_sub_group_size(node) {
            for (t, info) in entries {
                if info.sub_group_sizes.is_empty()
                    || info.sub_group_sizes.iter().any(|&s| i64::from(s) == size)
                {
                    continue;
                }
                let sizes: Vec<String> = info.sub_group_sizes.iter().map(u32::to_string).collect();
                let file = graph.node_file(node);
                let mut d = diagnostic(
                    graph,
                    file,
                    graph.locate(file, span),
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
                d.targets = vec![t.canonical.clone()];
                out.push(d);
            }
        }
    }
}

/// The message of a `target-unsupported-aspect` finding; `kind` is `kernel` or
/// `SYCL_EXTERNAL function`.
fn target_unsupported_message(
    kind: &str,
    name: &str,
    aspect: &str,
    lacking: &[impl AsRef<str>],
) -> String {
    let quoted: Vec<String> = lacking
        .iter()
        .map(|t| format!("'{}'", t.as_ref()))
        .collect();
    format!(
        "{kind} '{name}' uses aspect '{aspect}', which no device of target {} has: the AOT image \
         for it will not contain this {kind}, and launching it there throws \
         errc::kernel_not_supported",
        quoted.join(", ")
    )
}

/// `if_architecture_is` in device code when a target is not AOT-compiled.
fn check_arch(graph: &Graph, node: NodeId, plain: &ResolvedTarget, out: &mut Vec<Diagnostic>) {
    for span in graph.arch_checks(node) {
        let file = graph.node_file(node);
        out.push(diagnostic(
            graph,
            file,
            graph.locate(file, *span),
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

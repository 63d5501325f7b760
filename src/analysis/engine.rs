//! The analysis of one device compile, kept between edits: what an edit redoes (`Update`),
//! and the per-node findings kept while their inputs stay the same.

use std::sync::Arc;

use super::checks::{check_arch, check_mismatch, check_target, unknown_aspects};
use super::graph::{self, Bodies, Collector, Derived, Graph, NodeId, Skeleton};
use super::library_kernels::check_library_kernels;
use super::matrix;
use super::report::{declared_names, sort_findings, FunctionSummary, Report, Settings, Stats};
use super::types::TypeIndex;
use super::visibility::{Units, Visibility};
use crate::base::SourceFile;
use crate::diagnostics::Diagnostic;

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
    /// The translation units this compile stands for (which includer a header sees).
    units: Units,
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
    settings.image.hash(&mut h);
    settings.units_elsewhere.hash(&mut h);
    settings.implementation.hash(&mut h);
    settings.names_from.hash(&mut h);
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
    pub(super) fn merge(self, other: Update) -> Update {
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
    pub fn new(files: Vec<SourceFile>, units: Units) -> Self {
        let interfaces = {
            use rayon::prelude::*;
            files.par_iter().map(|f| f.facts.interface_hash()).collect()
        };
        let decls = crate::semantic::Decls::new(files.iter().map(|f| &*f.facts));
        let skeleton = Skeleton::build(&files, &units, &decls);
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
            units,
        }
    }

    /// Stands for `units` from now on; the caller checked they see as this compile's do.
    pub fn set_units(&mut self, units: Units) {
        self.units = units;
    }

    /// Whether `units` would give the files another visibility than this compile's.
    pub fn sees_otherwise(&self, files: &[SourceFile], units: &Units) -> bool {
        units != &self.units && Visibility::for_units(files, units) != *self.skeleton.visibility()
    }

    /// Builds the analysis of `files` anew, the old one dropped first: holding both was the
    /// language server's peak of memory on an interface-changing edit.
    fn rebuild(&mut self, files: Vec<SourceFile>) {
        let units = std::mem::take(&mut self.units);
        *self = Self::new(Vec::new(), units.clone());
        *self = Self::new(files, units);
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
        let graph = Graph::new(&self.files, &self.skeleton, &self.bodies, &self.derived)
            .naming_from(settings.names_from);
        matrix::rows(&graph, settings, wanted)
    }

    /// Runs the checks on the current state, with summaries of the kernels and decorated
    /// functions of the files `summarize` accepts.
    pub fn report_for(&mut self, settings: &Settings, summarize: &dyn Fn(&str) -> bool) -> Report {
        let graph = Graph::new(&self.files, &self.skeleton, &self.bodies, &self.derived)
            .naming_from(settings.names_from);
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
        nodes.retain(|&n| graph.is_compiled(n, settings.units_elsewhere));
        for node in nodes {
            let found = self.findings.per_node.entry(node).or_insert_with(|| {
                let mut f = NodeFindings {
                    deps: vec![node],
                    diagnostics: Vec::new(),
                };
                if settings.implementation.reads_device_has() {
                    check_mismatch(
                        &graph,
                        node,
                        settings.image.declared(),
                        &mut f.diagnostics,
                        &mut f.deps,
                    );
                }
                if settings.targets.is_some() && graph.entry_points().binary_search(&node).is_ok() {
                    check_target(
                        &graph,
                        node,
                        &entries,
                        settings,
                        &mut f.diagnostics,
                        &mut f.deps,
                    );
                }
                if let Some(plain) = plain {
                    check_arch(&graph, node, plain, &mut f.diagnostics);
                }
                f
            });
            diagnostics.extend(found.diagnostics.iter().cloned());
        }
        if settings.targets.is_some() {
            check_library_kernels(&graph, &entries, settings, &mut diagnostics);
        }
        for base in self.bodies.saturated(|n| graph.is_device(n)) {
            let (file, at) = graph.name_span(base);
            // The note is a finding; the log says it to whoever reads the server's log.
            tracing::warn!(
                template = %graph.display_name(base),
                limit = super::graph::MAX_INSTANCES_PER_TEMPLATE,
                "instance limit reached: further instances are analysed as the generic pattern"
            );
            diagnostics.push(Diagnostic::new(
                graph.path(file).clone(),
                at.range,
                at.pos,
                crate::diagnostics::Severity::Note,
                crate::diagnostics::Code::InstantiationLimit,
                format!(
                    "'{}' reaches the limit of {} instances the analysis makes of one template: \
                     further instances reached from device code are analysed as the generic \
                     pattern, and findings that depend on their template arguments may be missing",
                    graph.display_name(base),
                    super::graph::MAX_INSTANCES_PER_TEMPLATE,
                ),
            ));
        }
        sort_findings(&mut diagnostics);
        diagnostics.dedup();
        let declared = settings.image.declared();
        let mut summarized: Vec<NodeId> = graph
            .entry_points()
            .iter()
            .filter(|&&n| graph.is_kernel(n))
            .chain(graph.decorated())
            .copied()
            .filter(|&n| graph.is_compiled(n, settings.units_elsewhere))
            // Before the sort, whose keys cost a name each: an editor asks for a few files.
            .filter(|&n| summarize(graph.path(graph.node_file(n))))
            .collect();
        summarized.sort_unstable();
        summarized.dedup();
        // Instances are numbered as they are found, which differs between a fresh build and
        // an updated one: they go after their pattern, ordered by what they use, then by name.
        summarized.sort_by_cached_key(|&n| {
            let (file, start) = graph.name_start(n);
            let instance = graph.is_instance(n);
            let name = instance.then(|| graph.display_name(n));
            (file, start, instance, graph.used_in(n, declared), name, n)
        });
        let summaries = summarized
            .into_iter()
            .map(|n| {
                let (file, name_span) = graph.name_span(n);
                FunctionSummary {
                    file: graph.path(file).clone(),
                    name_span,
                    name: graph.display_name(n),
                    kernel: graph.is_kernel(n),
                    declared: graph.device_has(n).map(declared_names),
                    used: graph.used_in(n, declared),
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

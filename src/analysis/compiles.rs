//! One analysis per device compile. DPC++ compiles device code once per target; a file whose
//! preprocessing reads a macro that only some compiles define (`__SYCL_TARGET_*__`,
//! `__NVPTX__`) has one set of facts per distinct compile (`PpFacts::variants`). Targets whose
//! files are all the same share one analysis, so a workspace without target conditionals is
//! analysed once whatever the number of targets; the findings of several are merged, each
//! saying which targets it holds for when not all.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::checks::target_unsupported_message;
use super::engine::{OneCompile, Update};
use super::matrix;
use super::report::{
    merge_instances, sort_findings, FunctionSummary, Report, Settings, TargetCounts,
};
use crate::base::SourceFile;
use crate::devices::ResolvedTarget;
use crate::diagnostics::{Code, Diagnostic};

/// The analysis of a workspace, kept between edits (see `OneCompile` for what an edit redoes).
pub struct Engine {
    files: Vec<SourceFile>,
    compiles: Vec<Compile>,
}

struct Compile {
    /// Canonical names of the targets compiled this way; empty when there is one compile.
    targets: Vec<String>,
    analysis: OneCompile,
}

/// The files of each distinct device compile: the targets and the file set, substituting each
/// file's variant for those targets.
pub(super) fn split(files: &[SourceFile]) -> Vec<(Vec<String>, Vec<SourceFile>)> {
    let varying: Vec<usize> = (0..files.len())
        .filter(|&i| !files[i].facts.preprocessor.variants.is_empty())
        .collect();
    if varying.is_empty() {
        return vec![(Vec::new(), files.to_vec())];
    }
    // Per target, in order of first mention, which variant of each varying file it compiles.
    let mut signatures: Vec<(String, Vec<usize>)> = Vec::new();
    for (k, &i) in varying.iter().enumerate() {
        let pp = &files[i].facts.preprocessor;
        let lists = std::iter::once(&pp.targets).chain(pp.variants.iter().map(|v| &v.targets));
        for (variant, targets) in lists.enumerate() {
            for t in targets {
                let at = match signatures.iter().position(|(n, _)| n == t) {
                    Some(at) => at,
                    None => {
                        signatures.push((t.clone(), vec![0; varying.len()]));
                        signatures.len() - 1
                    }
                };
                signatures[at].1[k] = variant;
            }
        }
    }
    let mut groups: Vec<(Vec<String>, Vec<usize>)> = Vec::new();
    for (t, sig) in signatures {
        match groups.iter_mut().find(|(_, s)| *s == sig) {
            Some(g) => g.0.push(t),
            None => groups.push((vec![t], sig)),
        }
    }
    if groups.len() < 2 {
        return vec![(Vec::new(), files.to_vec())];
    }
    groups
        .into_iter()
        .map(|(targets, sig)| {
            let mut set = files.to_vec();
            for (k, &i) in varying.iter().enumerate() {
                if sig[k] > 0 {
                    set[i].facts = files[i].facts.preprocessor.variants[sig[k] - 1]
                        .facts
                        .clone();
                }
            }
            (targets, set)
        })
        .collect()
}

impl Engine {
    pub fn new(files: Vec<SourceFile>) -> Self {
        let mut parts = split(&files).into_iter();
        let (targets, set) = parts.next().expect("one compile at least");
        let first = Compile {
            targets,
            analysis: OneCompile::new(set),
        };
        // The other compiles differ in a few files: each starts from the first and re-reads
        // what those files change, as an edit would.
        let rest: Vec<Compile> = parts
            .map(|(targets, set)| {
                let mut analysis = first.analysis.clone();
                analysis.update(set);
                Compile { targets, analysis }
            })
            .collect();
        let mut compiles = vec![first];
        compiles.extend(rest);
        Engine { files, compiles }
    }

    /// Moves to a new set of files. Files are compared by their facts' identity (`Arc`), so a
    /// caller passes the facts it already gave for files that did not change.
    pub fn update(&mut self, files: Vec<SourceFile>) -> Update {
        let parts = split(&files);
        let same = parts.len() == self.compiles.len()
            && parts
                .iter()
                .zip(&self.compiles)
                .all(|((t, _), c)| *t == c.targets);
        if !same {
            *self = Self::new(files);
            return Update::Full;
        }
        let mut out = Update::Unchanged;
        for ((_, set), c) in parts.into_iter().zip(&mut self.compiles) {
            out = out.merge(c.analysis.update(set));
        }
        self.files = files;
        out
    }

    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// How many device compiles are analysed (1 unless some file compiles differently for some
    /// targets).
    pub fn compile_count(&self) -> usize {
        self.compiles.len()
    }

    /// Runs the checks on the current state, with summaries of every kernel and decorated
    /// function.
    pub fn report(&mut self, settings: &Settings) -> Report {
        self.report_for(settings, |_| true)
    }

    /// The same, with summaries only for the files `summarize` accepts (an editor needs them
    /// for its open documents only).
    pub fn report_for(&mut self, settings: &Settings, summarize: impl Fn(&str) -> bool) -> Report {
        let varying = self
            .files
            .iter()
            .filter(|f| !f.facts.preprocessor.variants.is_empty())
            .count();
        let (Some(all), true) = (settings.targets, self.compiles.len() > 1) else {
            let mut report = self.compiles[0].analysis.report_for(settings, &summarize);
            report.stats.varying_files = varying;
            merge_instances(&mut report.diagnostics);
            return report;
        };
        let mut reports: Vec<(Vec<String>, Report)> = Vec::new();
        for k in 0..self.compiles.len() {
            let mine = self.targets_of(k, all);
            let c = &mut self.compiles[k];
            let names = mine.iter().map(|t| t.canonical.clone()).collect();
            let s = Settings {
                table: settings.table,
                targets: Some(&mine),
                image: settings.image,
                units_elsewhere: settings.units_elsewhere,
            };
            reports.push((names, c.analysis.report_for(&s, &summarize)));
        }
        let mut report = merge(reports, self.files.len());
        report.stats.varying_files = varying;
        merge_instances(&mut report.diagnostics);
        report
    }
}

/// What makes two compiles' findings one: file, range, code, function, aspect, message.
type FindingKey = (Arc<str>, usize, usize, String, String, String, String);

impl Engine {
    /// The targets of `all` that compile `k` answers for: its own, and for the first one those
    /// the facts do not know yet (settings changed before the files were preprocessed again).
    fn targets_of(&self, k: usize, all: &[ResolvedTarget]) -> Vec<ResolvedTarget> {
        let known = |t: &String| self.compiles.iter().any(|c| c.targets.contains(t));
        all.iter()
            .filter(|t| {
                self.compiles[k].targets.contains(&t.canonical) || (k == 0 && !known(&t.canonical))
            })
            .cloned()
            .collect()
    }

    /// Which kernel each target's image holds, and why not (`analysis::matrix`).
    pub fn matrix(&self, settings: &Settings) -> matrix::Matrix {
        self.matrix_of(settings, &|_| true)
    }

    /// The same, for the kernels of the files `wanted` accepts (an editor's open document).
    pub fn matrix_of(&self, settings: &Settings, wanted: &dyn Fn(&str) -> bool) -> matrix::Matrix {
        let all = settings.targets.unwrap_or_default();
        let order: Vec<String> = all.iter().map(|t| t.canonical.clone()).collect();
        let parts = self
            .compiles
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let mine = self.targets_of(k, all);
                let names = mine.iter().map(|t| t.canonical.clone()).collect();
                let s = Settings {
                    table: settings.table,
                    targets: Some(&mine),
                    image: settings.image,
                    units_elsewhere: settings.units_elsewhere,
                };
                (names, c.analysis.matrix_rows(&s, wanted))
            })
            .collect();
        matrix::merge(&order, parts)
    }
}

/// One report from those of the compiles (with their targets).
fn merge(reports: Vec<(Vec<String>, Report)>, files: usize) -> Report {
    let compiles = reports.len();
    let mut out = Report::default();
    out.stats.files = files;
    out.stats.device_compiles = compiles;
    for (targets, report) in &reports {
        out.stats.functions = out.stats.functions.max(report.stats.functions);
        out.stats.kernels = out.stats.kernels.max(report.stats.kernels);
        out.per_target.extend(targets.iter().map(|t| TargetCounts {
            target: t.clone(),
            functions: report.stats.functions,
            kernels: report.stats.kernels,
        }));
    }
    let found = same_findings(
        reports
            .iter()
            .enumerate()
            .flat_map(|(k, (_, r))| r.diagnostics.iter().map(move |d| (k, d.clone()))),
    );
    for (mut d, ks) in found {
        if d.code != Code::TargetUnsupportedAspect
            && d.code != Code::TargetUnsupportedSubGroupSize
            && ks.len() < compiles
        {
            d.targets = ks.iter().flat_map(|&k| reports[k].0.clone()).collect();
            let quoted: Vec<String> = d.targets.iter().map(|t| format!("'{t}'")).collect();
            d.message = format!(
                "{} (in the device compile for {})",
                d.message,
                quoted.join(", ")
            );
        }
        out.diagnostics.push(d);
    }
    sort_findings(&mut out.diagnostics);
    out.summaries = same_summaries(reports.into_iter().flat_map(|(_, r)| r.summaries));
    out
}

/// Findings that are one (`FindingKey`), with the sources (compiles) that made each: an AOT
/// finding's targets are joined, its message says them all.
pub(super) fn same_findings(
    all: impl Iterator<Item = (usize, Diagnostic)>,
) -> Vec<(Diagnostic, Vec<usize>)> {
    let mut found: Vec<(Diagnostic, Vec<usize>)> = Vec::new();
    let mut by_key: BTreeMap<FindingKey, usize> = BTreeMap::new();
    for (k, d) in all {
        // An AOT finding names its targets: one per function and aspect, their targets
        // joined; any other is the same finding when its text is.
        let text = if d.code == Code::TargetUnsupportedAspect {
            String::new()
        } else {
            d.message.clone()
        };
        let key = (
            d.file.clone(),
            d.range.start,
            d.range.end,
            format!("{:?}", d.code),
            d.function.clone().unwrap_or_default(),
            d.aspect.clone().unwrap_or_default(),
            text,
        );
        match by_key.get(&key) {
            Some(&at) => {
                let (kept, ks) = &mut found[at];
                if !ks.contains(&k) {
                    ks.push(k);
                }
                for t in &d.targets {
                    if !kept.targets.contains(t) {
                        kept.targets.push(t.clone());
                    }
                }
            }
            None => {
                by_key.insert(key, found.len());
                found.push((d, vec![k]));
            }
        }
    }
    for (d, _) in &mut found {
        if d.code == Code::TargetUnsupportedAspect {
            let kind = if d.message.starts_with("kernel ") {
                "kernel"
            } else {
                "SYCL_EXTERNAL function"
            };
            d.message = target_unsupported_message(
                kind,
                d.function.as_deref().unwrap_or_default(),
                d.aspect.as_deref().unwrap_or_default(),
                &d.targets,
            );
        }
    }
    found
}

/// Summaries of one function (file and name range) made one: used aspects joined.
pub(super) fn same_summaries(all: impl Iterator<Item = FunctionSummary>) -> Vec<FunctionSummary> {
    let mut summaries: BTreeMap<(Arc<str>, usize, usize), FunctionSummary> = BTreeMap::new();
    for s in all {
        let key = (
            s.file.clone(),
            s.name_span.range.start,
            s.name_span.range.end,
        );
        summaries
            .entry(key)
            .and_modify(|m| {
                m.used = m.used.union(s.used);
                m.kernel |= s.kernel;
            })
            .or_insert(s);
    }
    summaries.into_values().collect()
}

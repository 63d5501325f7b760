//! One analysis per device compile. DPC++ compiles device code once per target; a file whose
//! preprocessing reads a macro that only some compiles define (`__SYCL_TARGET_*__`,
//! `__NVPTX__`) has one set of facts per distinct compile (`PpFacts::variants`). Targets whose
//! files are all the same share one analysis, so a workspace without target conditionals is
//! analysed once whatever the number of targets; the findings of several are merged, each
//! saying which targets it holds for when not all.
//!
//! A header some translation units compile differently (their `-D` flags, a `#define` before
//! the `#include`) has variants for those units too: the units that compile every such header
//! alike are one unit group, analysed on their own. A group's analysis holds only for the files
//! its units compile (another unit's source sees the header in the wrong meaning there), so its
//! findings elsewhere are dropped; a finding some groups make and others do not names the units.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use super::checks::target_unsupported_message;
use super::engine::{OneCompile, Update};
use super::matrix;
use super::report::{
    merge_instances, sort_findings, FunctionSummary, Report, Settings, TargetCounts,
};
use super::visibility::Units;
use crate::base::{is_header, PathIndex, SourceFile};
use crate::devices::ResolvedTarget;
use crate::diagnostics::{Code, Diagnostic};
use crate::syntax::PpFacts;

/// The analysis of a workspace, kept between edits (see `OneCompile` for what an edit redoes).
pub struct Engine {
    files: Vec<SourceFile>,
    /// The translation units of each unit group; the first group also has every unit the
    /// others do not name (and so is the only one when no header varies by unit).
    groups: Vec<Vec<String>>,
    compiles: Vec<Compile>,
    /// Made on the first report with several unit groups, kept while no file's includes or
    /// path change: resolving every include of the workspace was a tenth of a save's answer.
    unit_map: OnceLock<UnitMap>,
}

struct Compile {
    /// Canonical names of the targets compiled this way; empty: every target.
    targets: Vec<String>,
    /// Its unit group.
    group: usize,
    analysis: OneCompile,
}

/// The files of one distinct device compile: for `targets` (none: all) in the units of
/// `group`, each varying file's variant for those substituted.
pub(super) struct CompileSet {
    pub targets: Vec<String>,
    pub group: usize,
    pub files: Vec<SourceFile>,
}

/// The unit groups (as `Engine::groups`) and the compiles of each, group by group.
pub(super) struct Split {
    pub groups: Vec<Vec<String>>,
    pub compiles: Vec<CompileSet>,
}

/// Which facts a file has in the compile of `target` in translation unit `unit` (`None`: a
/// unit no variant names): 0 its own, `k + 1` its variant `k`.
fn meaning(pp: &PpFacts, target: &str, unit: Option<&str>) -> usize {
    let fits = |v: &crate::syntax::TargetVariant| {
        v.targets.is_empty() || v.targets.iter().any(|t| t == target)
    };
    let of_unit = unit.and_then(|u| {
        pp.variants
            .iter()
            .position(|v| v.units.iter().any(|x| x == u) && fits(v))
    });
    of_unit
        .or_else(|| {
            pp.variants
                .iter()
                .position(|v| v.units.is_empty() && !v.targets.is_empty() && fits(v))
        })
        .map_or(0, |k| k + 1)
}

/// The translation units the compiles of unit group `g` stand for.
fn units_of(groups: &[Vec<String>], g: usize) -> Units {
    match g {
        _ if groups.len() < 2 => Units::all(),
        0 => Units::except(groups[1..].concat()),
        _ => Units::only(groups[g].clone()),
    }
}

/// The distinct device compiles of `files`: per unit group, per set of targets whose files are
/// the same, the file set with each varying file's variant substituted.
pub(super) fn split(files: &[SourceFile]) -> Split {
    let varying: Vec<usize> = (0..files.len())
        .filter(|&i| !files[i].facts.preprocessor.variants.is_empty())
        .collect();
    if varying.is_empty() {
        return Split {
            groups: vec![Vec::new()],
            compiles: vec![CompileSet {
                targets: Vec::new(),
                group: 0,
                files: files.to_vec(),
            }],
        };
    }
    // The targets and units the variants name, in order of first mention; `""` stands for
    // every target when none varies, `None` for the units no variant names.
    let mut targets: Vec<&str> = Vec::new();
    let mut units: Vec<Option<&str>> = vec![None];
    for &i in &varying {
        let pp = &files[i].facts.preprocessor;
        for t in pp
            .targets
            .iter()
            .chain(pp.variants.iter().flat_map(|v| &v.targets))
        {
            if !targets.contains(&t.as_str()) {
                targets.push(t);
            }
        }
        for u in pp.variants.iter().flat_map(|v| &v.units) {
            if !units.contains(&Some(u.as_str())) {
                units.push(Some(u));
            }
        }
    }
    if targets.is_empty() {
        targets.push("");
    }
    let signature = |u: Option<&str>, t: &str| -> Vec<usize> {
        varying
            .iter()
            .map(|&i| meaning(&files[i].facts.preprocessor, t, u))
            .collect()
    };
    // Units that compile every varying file alike for every target are one group.
    let mut groups: Vec<(Vec<Vec<usize>>, Vec<String>)> = Vec::new();
    for u in units {
        let sig: Vec<Vec<usize>> = targets.iter().map(|t| signature(u, t)).collect();
        let name = u.map(String::from);
        match groups.iter_mut().find(|g| g.0 == sig) {
            Some(g) => g.1.extend(name),
            None => groups.push((sig, name.into_iter().collect())),
        }
    }
    let mut out = Split {
        groups: Vec::new(),
        compiles: Vec::new(),
    };
    for (g, (sigs, members)) in groups.into_iter().enumerate() {
        out.groups.push(members);
        let mut by_sig: Vec<(Vec<String>, &Vec<usize>)> = Vec::new();
        for (t, sig) in targets.iter().zip(&sigs) {
            match by_sig.iter_mut().find(|(_, s)| *s == sig) {
                Some(b) => b.0.push(t.to_string()),
                None => by_sig.push((vec![t.to_string()], sig)),
            }
        }
        let every = by_sig.len() == 1;
        for (ts, sig) in by_sig {
            let mut set = files.to_vec();
            for (k, &i) in varying.iter().enumerate() {
                if sig[k] > 0 {
                    set[i].facts = files[i].facts.preprocessor.variants[sig[k] - 1]
                        .facts
                        .clone();
                }
            }
            out.compiles.push(CompileSet {
                targets: if every { Vec::new() } else { ts },
                group: g,
                files: set,
            });
        }
    }
    out
}

impl Engine {
    pub fn new(files: Vec<SourceFile>) -> Self {
        let Split { groups, compiles } = split(&files);
        let mut parts = compiles.into_iter();
        let c = parts.next().expect("one compile at least");
        let first = Compile {
            targets: c.targets,
            group: c.group,
            analysis: OneCompile::new(c.files, units_of(&groups, c.group)),
        };
        // The other compiles differ in a few files: each starts from the first and re-reads
        // what those files change, as an edit would; unless a header sees another unit there.
        let rest: Vec<Compile> = parts
            .map(|c| {
                let units = units_of(&groups, c.group);
                let analysis = if first.analysis.sees_otherwise(&c.files, &units) {
                    OneCompile::new(c.files, units)
                } else {
                    let mut analysis = first.analysis.clone();
                    analysis.set_units(units);
                    analysis.update(c.files);
                    analysis
                };
                Compile {
                    targets: c.targets,
                    group: c.group,
                    analysis,
                }
            })
            .collect();
        let mut compiles = vec![first];
        compiles.extend(rest);
        Engine {
            files,
            groups,
            compiles,
            unit_map: OnceLock::new(),
        }
    }

    /// Moves to a new set of files. Files are compared by their facts' identity (`Arc`), so a
    /// caller passes the facts it already gave for files that did not change.
    pub fn update(&mut self, files: Vec<SourceFile>) -> Update {
        let parts = split(&files);
        let same = parts.groups == self.groups
            && parts.compiles.len() == self.compiles.len()
            && parts
                .compiles
                .iter()
                .zip(&self.compiles)
                .all(|(p, c)| p.targets == c.targets && p.group == c.group);
        if !same {
            *self = Self::new(files);
            return Update::Full;
        }
        let mut out = Update::Unchanged;
        for (p, c) in parts.compiles.into_iter().zip(&mut self.compiles) {
            out = out.merge(c.analysis.update(p.files));
        }
        if !same_includes(&self.files, &files) {
            self.unit_map = OnceLock::new();
        }
        self.files = files;
        out
    }

    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// How many device compiles are analysed (1 unless some file compiles differently for some
    /// targets or translation units).
    pub fn compile_count(&self) -> usize {
        self.compiles.len()
    }

    /// Runs the checks on the current state, with summaries of every kernel and decorated
    /// function.
    pub fn report(&mut self, settings: &Settings) -> Report {
        self.report_for(settings, |_| true)
    }

    /// The compiles that answer: all with targets, else the first of each unit group (the
    /// others differ only for targets not asked about).
    fn answering(&self, with_targets: bool) -> Vec<usize> {
        (0..self.compiles.len())
            .filter(|&k| {
                with_targets
                    || self
                        .compiles
                        .iter()
                        .position(|c| c.group == self.compiles[k].group)
                        == Some(k)
            })
            .collect()
    }

    /// The same, with summaries only for the files `summarize` accepts (an editor needs them
    /// for its open documents only).
    pub fn report_for(&mut self, settings: &Settings, summarize: impl Fn(&str) -> bool) -> Report {
        let varying = self
            .files
            .iter()
            .filter(|f| !f.facts.preprocessor.variants.is_empty())
            .count();
        let answering = self.answering(settings.targets.is_some());
        if answering.len() == 1 {
            let mut report = self.compiles[0].analysis.report_for(settings, &summarize);
            report.stats.varying_files = varying;
            merge_instances(&mut report.diagnostics);
            return report;
        }
        let mine: Vec<Option<Vec<ResolvedTarget>>> = answering
            .iter()
            .map(|&k| settings.targets.map(|all| self.targets_of(k, all)))
            .collect();
        let units = unit_map(&self.unit_map, &self.files, &self.groups);
        let mut reports: Vec<Made> = Vec::new();
        for (&k, mine) in answering.iter().zip(&mine) {
            let c = &mut self.compiles[k];
            let s = Settings {
                table: settings.table,
                targets: mine.as_deref(),
                image: settings.image,
                units_elsewhere: settings.units_elsewhere,
                implementation: settings.implementation,
                names_from: settings.names_from,
            };
            let mut report = c.analysis.report_for(&s, &summarize);
            if let Some(u) = units {
                u.keep(&mut report, c.group);
            }
            reports.push(Made {
                targets: mine
                    .as_ref()
                    .map(|m| m.iter().map(|t| t.canonical.clone()).collect()),
                group: c.group,
                report,
            });
        }
        let mut report = merge(reports, self.files.len(), units);
        report.stats.varying_files = varying;
        merge_instances(&mut report.diagnostics);
        report
    }
}

/// One compile's report, with its targets (`None`: every target, none configured) and unit
/// group.
struct Made {
    targets: Option<Vec<String>>,
    group: usize,
    report: Report,
}

/// Which translation units compile each file, when a header means different things in
/// different units. A unit is a source file no workspace file includes.
struct UnitMap {
    paths: Vec<Arc<str>>,
    index: FxHashMap<Arc<str>, usize>,
    /// Per file, the units that compile it.
    compilers: Vec<Vec<u32>>,
    /// Per file, its unit group when it is a named unit (else the first).
    group_of: Vec<usize>,
}

impl UnitMap {
    fn new(files: &[SourceFile], groups: &[Vec<String>]) -> Self {
        let paths = PathIndex::new(files.iter().map(|f| &*f.path));
        // Every variant's includes too: a unit may include more in some meaning.
        let direct: Vec<Vec<u32>> = files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let pp = &f.facts.preprocessor;
                let mut out: Vec<u32> = std::iter::once(&f.facts)
                    .chain(pp.variants.iter().map(|v| &v.facts))
                    .flat_map(|facts| &facts.includes)
                    .filter_map(|inc| paths.resolve(i as u32, inc, &[]))
                    .filter(|&j| j as usize != i)
                    .collect();
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        let mut included = vec![false; files.len()];
        for &j in direct.iter().flatten() {
            included[j as usize] = true;
        }
        let mut compilers: Vec<Vec<u32>> = vec![Vec::new(); files.len()];
        for u in (0..files.len()).filter(|&u| !included[u] && !is_header(&files[u].path)) {
            let mut seen = vec![u as u32];
            let mut stack = vec![u as u32];
            while let Some(f) = stack.pop() {
                compilers[f as usize].push(u as u32);
                for &g in &direct[f as usize] {
                    if !seen.contains(&g) {
                        seen.push(g);
                        stack.push(g);
                    }
                }
            }
        }
        let index: FxHashMap<Arc<str>, usize> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.path.clone(), i))
            .collect();
        let mut group_of = vec![0; files.len()];
        for (g, units) in groups.iter().enumerate() {
            for u in units {
                if let Some(&i) = index.get(u.as_str()) {
                    group_of[i] = g;
                }
            }
        }
        UnitMap {
            paths: files.iter().map(|f| f.path.clone()).collect(),
            index,
            compilers,
            group_of,
        }
    }

    /// Whether a unit of `group` compiles `file` (a file no unit compiles is the first
    /// group's: headers checked on their own).
    fn compiles(&self, group: usize, file: &str) -> bool {
        let units = self
            .index
            .get(file)
            .map_or(&[][..], |&f| &self.compilers[f]);
        match units.is_empty() {
            true => group == 0,
            false => units.iter().any(|&u| self.group_of[u as usize] == group),
        }
    }

    /// The units of `groups` that compile `file`, by path.
    fn units(&self, groups: &[usize], file: &str) -> Vec<&str> {
        let units = self
            .index
            .get(file)
            .map_or(&[][..], |&f| &self.compilers[f]);
        let mut out: Vec<&str> = units
            .iter()
            .filter(|&&u| groups.contains(&self.group_of[u as usize]))
            .map(|&u| &*self.paths[u as usize])
            .collect();
        out.sort_unstable();
        out
    }

    /// Drops what `report` (the analysis of unit group `group`) says of files none of the
    /// group's units compiles: they were analysed with another unit's meaning of a header.
    fn keep(&self, report: &mut Report, group: usize) {
        report.diagnostics.retain(|d| self.compiles(group, &d.file));
        report.summaries.retain(|s| self.compiles(group, &s.file));
    }
}

/// What makes two compiles' findings one: file, range, code, function, aspect, message.
type FindingKey = (Arc<str>, usize, usize, String, String, String, String);

impl Engine {
    /// The targets of `all` that compile `k` answers for: every one when it is its unit
    /// group's only compile, else its own, and for the group's first those the facts do not
    /// know yet (settings changed before the files were preprocessed again).
    fn targets_of(&self, k: usize, all: &[ResolvedTarget]) -> Vec<ResolvedTarget> {
        let me = &self.compiles[k];
        if me.targets.is_empty() {
            return all.to_vec();
        }
        let group = || self.compiles.iter().filter(|c| c.group == me.group);
        let first = self.compiles.iter().position(|c| c.group == me.group) == Some(k);
        let known = |t: &String| group().any(|c| c.targets.contains(t));
        all.iter()
            .filter(|t| me.targets.contains(&t.canonical) || (first && !known(&t.canonical)))
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
        let units = unit_map(&self.unit_map, &self.files, &self.groups);
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
                    implementation: settings.implementation,
                    names_from: settings.names_from,
                };
                let wanted = |f: &str| wanted(f) && units.is_none_or(|u| u.compiles(c.group, f));
                (names, c.analysis.matrix_rows(&s, &wanted))
            })
            .collect();
        matrix::merge(&order, parts)
    }
}

/// Which units compile each file, when there are several unit groups (`Engine::unit_map`).
fn unit_map<'e>(
    cached: &'e OnceLock<UnitMap>,
    files: &[SourceFile],
    groups: &[Vec<String>],
) -> Option<&'e UnitMap> {
    (groups.len() > 1).then(|| cached.get_or_init(|| UnitMap::new(files, groups)))
}

/// Whether two states of the same files include the same files (what `UnitMap` reads): paths,
/// and every meaning's includes.
fn same_includes(old: &[SourceFile], new: &[SourceFile]) -> bool {
    fn includes(f: &SourceFile) -> impl Iterator<Item = &Vec<String>> {
        let pp = &f.facts.preprocessor;
        std::iter::once(&f.facts.includes).chain(pp.variants.iter().map(|v| &v.facts.includes))
    }
    old.len() == new.len()
        && old.iter().zip(new).all(|(a, b)| {
            a.path == b.path && (Arc::ptr_eq(&a.facts, &b.facts) || includes(a).eq(includes(b)))
        })
}

/// One report from those of the compiles.
fn merge(reports: Vec<Made>, files: usize, units: Option<&UnitMap>) -> Report {
    let mut out = Report::default();
    out.stats.files = files;
    out.stats.device_compiles = reports.len();
    for m in &reports {
        let r = &m.report;
        out.stats.functions = out.stats.functions.max(r.stats.functions);
        out.stats.kernels = out.stats.kernels.max(r.stats.kernels);
        for t in m.targets.iter().flatten() {
            match out.per_target.iter_mut().find(|p| p.target == *t) {
                Some(p) => {
                    p.functions = p.functions.max(r.stats.functions);
                    p.kernels = p.kernels.max(r.stats.kernels);
                }
                None => out.per_target.push(TargetCounts {
                    target: t.clone(),
                    functions: r.stats.functions,
                    kernels: r.stats.kernels,
                }),
            }
        }
    }
    let found = same_findings(
        reports
            .iter()
            .enumerate()
            .flat_map(|(k, m)| m.report.diagnostics.iter().map(move |d| (k, d.clone()))),
    );
    for (mut d, ks) in found {
        let aot = matches!(
            d.code,
            Code::TargetUnsupportedAspect
                | Code::TargetUnsupportedSubGroupSize
                | Code::LibraryKernelUnsupportedAspect
        );
        let (units, targets) = made_in(&reports, &ks, &d.file, units);
        if let Some(units) = units {
            let quoted: Vec<String> = units.iter().map(|u| format!("'{u}'")).collect();
            d.message = format!("{} (when compiled in {})", d.message, quoted.join(", "));
        }
        if let (Some(targets), false) = (targets, aot) {
            let quoted: Vec<String> = targets.iter().map(|t| format!("'{t}'")).collect();
            d.message = format!(
                "{} (in the device compile for {})",
                d.message,
                quoted.join(", ")
            );
            d.targets = targets;
        }
        out.diagnostics.push(d);
    }
    sort_findings(&mut out.diagnostics);
    out.summaries = same_summaries(reports.into_iter().flat_map(|m| m.report.summaries));
    out
}

/// Where a finding of `file` made by compiles `ks` holds when not in every compile that
/// analyses `file`: the translation units (when some unit group that compiles `file` did not
/// make it), the targets (when some target's compile did not).
fn made_in(
    reports: &[Made],
    ks: &[usize],
    file: &str,
    units: Option<&UnitMap>,
) -> (Option<Vec<String>>, Option<Vec<String>>) {
    let analysing: Vec<usize> = (0..reports.len())
        .filter(|&k| units.is_none_or(|u| u.compiles(reports[k].group, file)))
        .collect();
    let groups = |ks: &mut dyn Iterator<Item = &usize>| -> Vec<usize> {
        let mut g: Vec<usize> = ks.map(|&k| reports[k].group).collect();
        g.sort_unstable();
        g.dedup();
        g
    };
    let made_groups = groups(&mut ks.iter());
    let unit_names = match (units, made_groups != groups(&mut analysing.iter())) {
        (Some(u), true) => Some(
            u.units(&made_groups, file)
                .iter()
                .map(|s| s.to_string())
                .collect(),
        ),
        _ => None,
    };
    // `None` in a set of targets: every target.
    let targets_of = |ks: &mut dyn Iterator<Item = &usize>| -> Option<Vec<String>> {
        let mut out: Vec<String> = Vec::new();
        for &k in ks {
            for t in reports[k].targets.as_ref()? {
                if !out.contains(t) {
                    out.push(t.clone());
                }
            }
        }
        Some(out)
    };
    let made = targets_of(&mut ks.iter());
    let all = targets_of(&mut analysing.iter());
    let target_names = match (made, all) {
        (Some(made), Some(all)) if made.len() < all.len() => Some(made),
        _ => None,
    };
    (unit_names, target_names)
}

/// Findings that are one (`FindingKey`), with the sources (compiles) that made each: an AOT
/// finding's targets are joined, its message says them all.
pub(super) fn same_findings(
    all: impl Iterator<Item = (usize, Diagnostic)>,
) -> Vec<(Diagnostic, Vec<usize>)> {
    let mut found: Vec<(Diagnostic, Vec<usize>)> = Vec::new();
    // AOT findings that took another's targets: their message is written again.
    let mut joined: Vec<bool> = Vec::new();
    let mut by_key: BTreeMap<FindingKey, usize> = BTreeMap::new();
    for (k, d) in all {
        // An AOT finding names its targets: one per function and aspect, their targets
        // joined; any other is the same finding when its text is.
        let text = if d.code == Code::TargetUnsupportedAspect {
            String::new()
        } else if d.code == Code::LibraryKernelUnsupportedAspect {
            // One per call and aspect; the element type is the chain's use.
            format!("{:?}", d.chain.last().and_then(|s| s.use_.as_deref()))
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
                        joined[at] = true;
                    }
                }
            }
            None => {
                by_key.insert(key, found.len());
                found.push((d, vec![k]));
                joined.push(false);
            }
        }
    }
    // Only those: a message that holds already keeps what was added to it (the other
    // instances of a template, the units it is made in).
    for ((d, _), _) in found.iter_mut().zip(&joined).filter(|(_, j)| **j) {
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
                d.message
                    .contains("' in 'sycl::device_has' (its code does not use it)"),
            );
        } else if d.code == Code::LibraryKernelUnsupportedAspect {
            d.message = super::library_kernels::reworded(d);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> SourceFile {
        SourceFile {
            path: path.into(),
            facts: Arc::new(crate::syntax::extract(text)),
        }
    }

    /// The unit map is kept across a save of a body and made again when an include changes.
    #[test]
    fn the_unit_map_is_kept_until_an_include_changes() {
        let before = vec![
            file("a.cpp", "#include \"h.hpp\"\nvoid f() {}\n"),
            file("h.hpp", "void g();\n"),
        ];
        let body = vec![
            file("a.cpp", "#include \"h.hpp\"\nvoid f() { int x = 1; }\n"),
            before[1].clone(),
        ];
        let include = vec![
            file(
                "a.cpp",
                "#include \"h.hpp\"\n#include \"i.hpp\"\nvoid f() {}\n",
            ),
            before[1].clone(),
        ];
        let renamed = vec![before[0].clone(), file("g.hpp", "void g();\n")];
        assert!(same_includes(&before, &before));
        assert!(same_includes(&before, &body));
        assert!(!same_includes(&before, &include));
        assert!(!same_includes(&before, &renamed));
        assert!(!same_includes(&before, &before[..1]));
    }
}

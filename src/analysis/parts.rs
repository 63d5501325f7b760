//! A workspace in independent parts: sets of files none of whose analysis reads another's.
//! `check` analyses a large workspace (a repository of samples, a benchmark suite: hundreds
//! of programs) a batch of parts at a time, so that only that batch's facts are decoded, and
//! the batches on every core. The report is the one of the whole workspace at once.
//!
//! Two files are in one part when, in some device compile, one sees the other (includes),
//! their declarations make one call-graph node, or a class with kernel properties is found by
//! name from the other (a launch of it, its `operator()`). Aliases that declare aspects are
//! looked up by name across the workspace: with any, the workspace is one part.
//!
//! An include resolves among the files analysed together (`base::PathIndex`): one that
//! names several equally near headers of the workspace resolves to none of them, but could to
//! the one of them a part holds. Such includes are dropped from the facts a part is analysed
//! with, so that a part sees what it sees in the whole.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::compiles::{self, Engine};
use super::graph;
use super::matrix::{self, Matrix};
use super::report::{sort_findings, Report, Settings, TargetCounts};
use super::visibility::Visibility;
use crate::base::{PathIndex, SourceFile, UnionFind};
use crate::semantic::known_aspects;
use crate::semantic::names::{base_name, split_type};
use crate::syntax::{FileFacts, KernelRef};

/// The independent parts of `files` (their facts may be outlines, `FileFacts::outline`).
pub fn parts(files: &[SourceFile]) -> Vec<Vec<usize>> {
    let n = files.len();
    let mut sets = UnionFind::new(n);
    for set in compiles::split(files).compiles.into_iter().map(|c| c.files) {
        let tagged = set.iter().any(|f| {
            f.facts
                .aliases
                .iter()
                .any(|a| !known_aspects(&a.uses_aspects).is_empty())
        });
        if tagged {
            return vec![(0..n).collect()];
        }
        let visibility = Visibility::new(&set);
        for (i, seen) in visibility.lists().iter().enumerate() {
            for &j in seen {
                sets.union(i, j as usize);
            }
        }
        let sigs = graph::signature_hashes(&set, None);
        for node in graph::group_functions(&set, &sigs, &visibility) {
            for &(f, _) in &node[1..] {
                sets.union(node[0].0 as usize, f as usize);
            }
        }
        // Classes with kernel properties, by the names launches and members find them by.
        let mut props: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
        for (fi, f) in set.iter().enumerate() {
            for c in f
                .facts
                .classes
                .iter()
                .filter(|c| c.kernel_properties.is_some())
            {
                let last = base_name(&c.name);
                props.entry(c.name.as_str()).or_default().push(fi);
                if last != c.name {
                    props.entry(last).or_default().push(fi);
                }
            }
        }
        if props.is_empty() {
            continue;
        }
        for (fi, f) in set.iter().enumerate() {
            for func in &f.facts.functions {
                let launched = func.launches.iter().filter_map(|l| match &l.kernel {
                    KernelRef::Functor(t) => Some(split_type(t).1),
                    KernelRef::Lambda(_) => None,
                });
                for name in func.class.iter().map(|c| c.as_str()).chain(launched) {
                    for &c in props.get(name).into_iter().flatten() {
                        sets.union(fi, c);
                    }
                }
            }
        }
    }
    sets.groups()
}

/// Parts analysed together: about this share of the workspace's functions at most (a larger
/// part is a batch of its own). oneAPI-samples' `check` peaked at 294 MB with 24 batches, 281
/// with 64: the packed facts of the whole are the floor.
const BATCHES: usize = 64;

/// The parts of `files` gathered into batches of about `1 / BATCHES` of its functions.
fn batches(files: &[SourceFile]) -> Vec<Vec<usize>> {
    let weight = |i: usize| files[i].facts.functions.len() + 1;
    let total: usize = (0..files.len()).map(weight).sum();
    let limit = total.div_ceil(BATCHES);
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut size = usize::MAX;
    let parts = parts(files);
    tracing::debug!(
        parts = parts.len(),
        largest = parts.iter().map(Vec::len).max().unwrap_or(0),
        "analysis in parts"
    );
    for part in parts {
        let w: usize = part.iter().map(|&i| weight(i)).sum();
        if size.saturating_add(w) > limit {
            batches.push(Vec::new());
            size = 0;
        }
        size += w;
        batches.last_mut().expect("a batch").extend(part);
    }
    batches
}

/// The analysis of each batch of parts of `files`, in parallel: `facts(i)` gives file `i`'s
/// facts, `answer` what a batch's engine answers under the settings a share of the workspace
/// is analysed with.
fn per_batch<T: Send>(
    files: &[SourceFile],
    facts: impl Fn(usize) -> Arc<FileFacts> + Sync,
    settings: &Settings,
    answer: impl Fn(Engine, &Settings) -> T + Sync,
) -> Vec<T> {
    let batches = batches(files);
    let index = PathIndex::new(files.iter().map(|f| &*f.path));
    // A batch of headers only, in a workspace with sources, is compiled by nobody.
    let settings = &Settings {
        units_elsewhere: settings.units_elsewhere
            || files.iter().any(|f| !crate::base::is_header(&f.path)),
        ..*settings
    };
    batches
        .par_iter()
        .map(|batch| {
            let set: Vec<SourceFile> = batch
                .iter()
                .map(|&i| SourceFile {
                    path: files[i].path.clone(),
                    facts: without_ambiguous_includes(facts(i), i as u32, &index),
                })
                .collect();
            answer(Engine::new(set), settings)
        })
        .collect()
}

/// `Engine::matrix_of` of `files`, a batch of parts at a time (as `analyze_parts`): a
/// kernel's row is made by the batch that holds its file.
pub fn matrix_parts(
    files: &[SourceFile],
    facts: impl Fn(usize) -> Arc<FileFacts> + Sync,
    settings: &Settings,
    wanted: &(dyn Fn(&str) -> bool + Sync),
) -> Matrix {
    let targets: Vec<String> = settings
        .targets
        .unwrap_or_default()
        .iter()
        .map(|t| t.canonical.clone())
        .collect();
    let rows = per_batch(files, facts, settings, |engine, settings| {
        (targets.clone(), engine.matrix_of(settings, wanted).rows)
    });
    matrix::merge(&targets, rows)
}

/// `analyze` of `files`, a batch of parts at a time: `facts(i)` gives file `i`'s facts (the
/// facts in `files` may be outlines).
pub fn analyze_parts(
    files: &[SourceFile],
    facts: impl Fn(usize) -> Arc<FileFacts> + Sync,
    settings: &Settings,
) -> Report {
    let reports: Vec<Report> = per_batch(files, facts, settings, |mut engine, settings| {
        engine.report(settings)
    });
    // The analyses the whole makes: per compile with targets, else per unit group.
    let split = compiles::split(files);
    let compiles = match settings.targets {
        Some(_) => split.compiles.len(),
        None => split.groups.len(),
    };
    let mut out = Report::default();
    count_functions(&mut out, &reports);
    let (diagnostics, summaries): (Vec<_>, Vec<_>) = reports
        .into_iter()
        .map(|r| (r.diagnostics, r.summaries))
        .unzip();
    let diagnostics = diagnostics.into_iter().flatten();
    let summaries = summaries.into_iter().flatten();
    if compiles > 1 {
        // As the whole's compiles are merged (`compiles::merge`): a batch may have had one.
        out.diagnostics = compiles::same_findings(diagnostics.map(|d| (0, d)))
            .into_iter()
            .map(|(d, _)| d)
            .collect();
        out.summaries = compiles::same_summaries(summaries);
    } else {
        out.diagnostics = diagnostics.collect();
        out.summaries = summaries.collect();
        // The whole's order (`OneCompile::report_for`): by file, then name; a batch has
        // the rest of it.
        let index: FxHashMap<&str, usize> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (&*f.path, i))
            .collect();
        out.summaries
            .sort_by_key(|s| (index.get(&*s.file).copied(), s.name_span.range.start));
    }
    sort_findings(&mut out.diagnostics);
    out.stats.files = files.len();
    out.stats.device_compiles = compiles;
    out.stats.varying_files = files
        .iter()
        .filter(|f| !f.facts.preprocessor.variants.is_empty())
        .count();
    out
}

/// The whole's functions and kernels are its largest compile's: with several compiles, each
/// target's compile is summed over the batches (a batch with one compile answers for every
/// target), and the largest taken.
fn count_functions(out: &mut Report, reports: &[Report]) {
    let mut per_target: Vec<TargetCounts> = Vec::new();
    for r in reports {
        for t in &r.per_target {
            if !per_target.iter().any(|p| p.target == t.target) {
                per_target.push(TargetCounts {
                    target: t.target.clone(),
                    functions: 0,
                    kernels: 0,
                });
            }
        }
    }
    if per_target.is_empty() {
        out.stats.functions = reports.iter().map(|r| r.stats.functions).sum();
        out.stats.kernels = reports.iter().map(|r| r.stats.kernels).sum();
        return;
    }
    for p in &mut per_target {
        for r in reports {
            let (f, k) = r
                .per_target
                .iter()
                .find(|t| t.target == p.target)
                .map_or((r.stats.functions, r.stats.kernels), |t| {
                    (t.functions, t.kernels)
                });
            p.functions += f;
            p.kernels += k;
        }
    }
    out.stats.functions = per_target.iter().map(|p| p.functions).max().unwrap_or(0);
    out.stats.kernels = per_target.iter().map(|p| p.kernels).max().unwrap_or(0);
    out.per_target = per_target;
}

/// `facts` without the includes that name several equally near files of the workspace (and so
/// none of them), its variants' too.
fn without_ambiguous_includes(facts: Arc<FileFacts>, i: u32, index: &PathIndex) -> Arc<FileFacts> {
    let ambiguous = |f: &FileFacts| {
        f.includes
            .iter()
            .any(|inc| index.candidates(i, inc, &[]).len() > 1)
    };
    let variants = facts.preprocessor.variants.iter().map(|v| &*v.facts);
    if !ambiguous(&facts) && !variants.into_iter().any(ambiguous) {
        return facts;
    }
    let mut facts = Arc::unwrap_or_clone(facts);
    facts
        .includes
        .retain(|inc| index.candidates(i, inc, &[]).len() <= 1);
    for v in &mut facts.preprocessor.variants {
        v.facts = without_ambiguous_includes(v.facts.clone(), i, index);
    }
    Arc::new(facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_include_of_several_equally_near_headers_is_dropped_for_a_part() {
        let file = |path: &str, text: &str| SourceFile {
            path: Arc::from(path),
            facts: Arc::new(crate::syntax::extract(text)),
        };
        let files = [
            file("p/main.cpp", "#include \"common.h\"\n#include \"own.h\"\n"),
            file("p/own.h", ""),
            file("x/common.h", ""),
            file("y/common.h", ""),
        ];
        let index = PathIndex::new(files.iter().map(|f| &*f.path));
        let kept = without_ambiguous_includes(files[0].facts.clone(), 0, &index);
        assert_eq!(kept.includes, ["own.h"]);
        // Analysed with one of the two headers only, `p/main.cpp` would have seen it.
        let two = [files[0].clone(), files[2].clone()];
        let alone = PathIndex::new(two.iter().map(|f| &*f.path));
        assert_eq!(alone.resolve(0, "common.h", &[]), Some(1));
        assert_eq!(index.resolve(0, "common.h", &[]), None);
        let unchanged = without_ambiguous_includes(files[1].facts.clone(), 1, &index);
        assert!(Arc::ptr_eq(&unchanged, &files[1].facts));
    }
}

//! Kernel × target compatibility: for every kernel and `SYCL_EXTERNAL` function, whether each
//! target's device compile puts it in the image, leaves it out (an AOT target whose devices all
//! lack an aspect it uses or declares, or a required sub-group size they do not have), or
//! keeps it while some devices may lack an aspect (a JIT target: the run time throws
//! `errc::kernel_not_supported` there). Domain data only: `proto` and the CLI render it.

use std::sync::Arc;

use super::checks::chain_steps_in;
use super::graph::{Graph, NodeId};
use super::report::{declared_names, Settings};
use crate::devices::{registry, AspectSet};
use crate::diagnostics::ChainStep;
use crate::syntax::{AspectRef, Located};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Compatible,
    /// An AOT target: the image for it will not contain the kernel.
    NotInImage,
    /// A JIT target whose devices may lack an aspect: launching may throw at run time.
    MayFail,
    /// The target's device compile does not compile this kernel (a per-target `#if`).
    NotCompiled,
}

impl Status {
    /// How bad: a kernel's instances make one row with each target's worst cell.
    fn rank(self) -> u8 {
        match self {
            Status::NotCompiled => 0,
            Status::Compatible => 1,
            Status::MayFail => 2,
            Status::NotInImage => 3,
        }
    }
}

/// Why a cell is not `compatible`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// An aspect the kernel uses (`chain` to the use) or only declares (`chain` empty).
    Aspect {
        aspect: String,
        chain: Vec<ChainStep>,
    },
    SubGroupSize {
        required: i64,
        supported: Vec<u32>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub target: String,
    pub status: Status,
    pub reasons: Vec<Reason>,
}

impl Cell {
    /// The reasons in a few words: `fp64, fp16 (declared), sub-group 8`.
    pub fn why(&self) -> String {
        self.reasons
            .iter()
            .map(|r| match r {
                Reason::Aspect { aspect, chain } if chain.is_empty() => {
                    format!("{aspect} (declared)")
                }
                Reason::Aspect { aspect, .. } => aspect.clone(),
                Reason::SubGroupSize { required, .. } => format!("sub-group {required}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub file: Arc<str>,
    pub name_span: Located,
    pub name: String,
    pub kernel: bool,
    /// Its `device_has` list, as written.
    pub declared: Option<Vec<String>>,
    pub used: AspectSet,
    /// Aspects used only behind `if_device_has` guards: checked at run time, never a failure.
    pub guarded: AspectSet,
    /// In the order of the targets asked for.
    pub cells: Vec<Cell>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Matrix {
    pub targets: Vec<String>,
    pub rows: Vec<Row>,
}

/// One target's column summed up: how many kernels in each state, and per aspect how many
/// kernels it keeps out or may fail.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub kernels: usize,
    pub compatible: usize,
    pub not_in_image: usize,
    pub may_fail: usize,
    pub not_compiled: usize,
    pub aspects: std::collections::BTreeMap<String, usize>,
}

impl Summary {
    /// `4 of 5 kernels run; 1 not in its image (1 use fp64)`.
    pub fn line(&self) -> String {
        let mut out = format!("{} of {} kernels run", self.compatible, self.kernels);
        if self.not_in_image > 0 {
            out.push_str(&format!("; {} not in its image", self.not_in_image));
        }
        if self.may_fail > 0 {
            out.push_str(&format!("; {} may fail on some devices", self.may_fail));
        }
        if !self.aspects.is_empty() {
            let uses: Vec<String> = self
                .aspects
                .iter()
                .map(|(a, k)| format!("{k} use {a}"))
                .collect();
            out.push_str(&format!(" ({})", uses.join(", ")));
        }
        out
    }
}

impl Matrix {
    /// The summary of target `i` (an index into `targets`).
    pub fn summary(&self, i: usize) -> Summary {
        let mut s = Summary {
            kernels: self.rows.len(),
            ..Summary::default()
        };
        for r in &self.rows {
            let c = &r.cells[i];
            match c.status {
                Status::Compatible => s.compatible += 1,
                Status::NotInImage => s.not_in_image += 1,
                Status::MayFail => s.may_fail += 1,
                Status::NotCompiled => s.not_compiled += 1,
            }
            for why in &c.reasons {
                if let Reason::Aspect { aspect, .. } = why {
                    *s.aspects.entry(aspect.clone()).or_default() += 1;
                }
            }
        }
        s
    }
}

/// The rows of one device compile, for its targets, of the kernels it compiles
/// (`Graph::is_compiled`, as the checks) in the files `wanted` accepts.
pub(super) fn rows(graph: &Graph, settings: &Settings, wanted: &dyn Fn(&str) -> bool) -> Vec<Row> {
    let reg = registry();
    let targets = settings.targets.unwrap_or_default();
    let mut deps: Vec<NodeId> = Vec::new();
    graph
        .entry_points()
        .iter()
        .filter(|&&node| wanted(graph.path(graph.node_file(node))))
        .filter(|&&node| graph.is_compiled(node, settings.units_elsewhere))
        .map(|&node| {
            let decl = graph.device_has(node);
            // AdaptiveCpp reads no `device_has` and leaves no kernel out of a device's code: a
            // device lacking an aspect may fail at run time, whatever the target.
            let acpp = !settings.implementation.reads_device_has();
            let declared: AspectSet = decl
                .iter()
                .filter(|_| !acpp)
                .flat_map(|d| &d.aspects)
                .filter_map(|a| match a {
                    AspectRef::Named { name, .. } => reg.by_name(name),
                    AspectRef::Unknown { .. } => None,
                })
                .collect();
            let cells = targets
                .iter()
                .map(|t| {
                    let mut reasons = Vec::new();
                    let info = t.entry.as_deref().and_then(|e| settings.table.get(e));
                    let rule = info.map_or(settings.image, |i| settings.image_for(i));
                    let used = graph.used_in(node, rule);
                    let (guaranteed, jit) = match info {
                        Some(i) => (i.aspects, i.may_support_other_aspects),
                        // No entry: nothing is known of its devices.
                        None => (AspectSet::default(), true),
                    };
                    for a in used.union(declared).iter() {
                        if guaranteed.contains(a) {
                            continue;
                        }
                        let chain = if used.contains(a) {
                            chain_steps_in(graph, node, a, rule, &mut deps)
                        } else {
                            Vec::new()
                        };
                        reasons.push(Reason::Aspect {
                            aspect: reg.name(a).to_string(),
                            chain,
                        });
                    }
                    if let (Some((size, _)), Some(info)) = (graph.reqd_sub_group_size(node), info) {
                        let fits = info.sub_group_sizes.is_empty()
                            || info.sub_group_sizes.iter().any(|&s| i64::from(s) == size);
                        if !fits {
                            reasons.push(Reason::SubGroupSize {
                                required: size,
                                supported: info.sub_group_sizes.clone(),
                            });
                        }
                    }
                    // The driver filters an image by a kernel's features only for the
                    // device-table names of `-fsycl-targets`: an image for an ocloc `-device`
                    // (`spir64_gen:DEVICE`) keeps every kernel (intel/llvm PR #12727), as the
                    // `target-unsupported-aspect` finding for it says.
                    let keeps_all =
                        acpp || t.canonical.starts_with(crate::devices::DEVICE_BOUND_PREFIX);
                    let status = match (reasons.is_empty(), jit || keeps_all) {
                        (true, _) => Status::Compatible,
                        // A JIT image keeps the kernel; a device may still lack the aspect.
                        (false, true)
                            if keeps_all
                                || reasons.iter().all(|r| matches!(r, Reason::Aspect { .. })) =>
                        {
                            Status::MayFail
                        }
                        (false, _) => Status::NotInImage,
                    };
                    Cell {
                        target: t.canonical.clone(),
                        status,
                        reasons,
                    }
                })
                .collect();
            let (file, name_span) = graph.name_span(node);
            Row {
                file: graph.path(file).clone(),
                name_span,
                name: graph.display_name(node),
                kernel: graph.is_kernel(node),
                declared: decl.map(declared_names),
                used: graph.used_in(node, settings.image.declared()),
                guarded: graph.guarded(node, settings.image.declared()),
                cells,
            }
        })
        .collect()
}

/// One matrix from the rows of several compiles (each for its targets): a kernel a compile does
/// not have is `not_compiled` for that compile's targets.
pub(super) fn merge(order: &[String], parts: Vec<(Vec<String>, Vec<Row>)>) -> Matrix {
    let mut rows: Vec<Row> = Vec::new();
    for (_, part) in &parts {
        for r in part {
            let same = |x: &Row| x.file == r.file && x.name_span.range == r.name_span.range;
            match rows.iter_mut().find(|x| same(x)) {
                // Another instance of the same kernel (a template's), or the same kernel in
                // another compile: one row, each target's worst cell.
                Some(x) => {
                    x.used = x.used.union(r.used);
                    x.guarded = x.guarded.union(r.guarded);
                    for c in &r.cells {
                        match x.cells.iter_mut().find(|y| y.target == c.target) {
                            Some(y) => {
                                if c.status.rank() > y.status.rank() {
                                    y.status = c.status;
                                }
                                // One reason per aspect: the first instance's chain shows it.
                                for why in &c.reasons {
                                    let known = y.reasons.iter().any(|k| match (k, why) {
                                        (
                                            Reason::Aspect { aspect: a, .. },
                                            Reason::Aspect { aspect: b, .. },
                                        ) => a == b,
                                        _ => k == why,
                                    });
                                    if !known {
                                        y.reasons.push(why.clone());
                                    }
                                }
                            }
                            None => x.cells.push(c.clone()),
                        }
                    }
                }
                None => rows.push(r.clone()),
            }
        }
    }
    for row in &mut rows {
        for t in order {
            if !row.cells.iter().any(|c| &c.target == t) {
                row.cells.push(Cell {
                    target: t.clone(),
                    status: Status::NotCompiled,
                    reasons: Vec::new(),
                });
            }
        }
        row.cells
            .sort_by_key(|c| order.iter().position(|t| *t == c.target));
    }
    rows.sort_by(|a, b| {
        (&a.file, a.name_span.range.start).cmp(&(&b.file, b.name_span.range.start))
    });
    Matrix {
        targets: order.to_vec(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(targets: &[(&str, Status, &str)]) -> Row {
        Row {
            file: Arc::from("k.cpp"),
            name_span: Located::default(),
            name: "lambda".into(),
            kernel: true,
            declared: None,
            used: AspectSet::default(),
            guarded: AspectSet::default(),
            cells: targets
                .iter()
                .map(|(t, s, a)| Cell {
                    target: t.to_string(),
                    status: *s,
                    reasons: a
                        .split(',')
                        .filter(|a| !a.is_empty())
                        .map(|a| Reason::Aspect {
                            aspect: a.into(),
                            chain: Vec::new(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn instances_of_a_kernel_make_one_row_with_each_targets_worst_cell() {
        let order = vec!["dg1".to_string(), "pvc".to_string(), "sm_80".to_string()];
        let m = merge(
            &order,
            vec![
                (
                    vec!["dg1".into(), "pvc".into()],
                    vec![
                        row(&[
                            ("dg1", Status::Compatible, ""),
                            ("pvc", Status::Compatible, ""),
                        ]),
                        row(&[
                            ("dg1", Status::NotInImage, "fp64"),
                            ("pvc", Status::Compatible, ""),
                        ]),
                        row(&[
                            ("dg1", Status::NotInImage, "fp64"),
                            ("pvc", Status::Compatible, ""),
                        ]),
                    ],
                ),
                // sm_80's compile has no such kernel.
                (vec!["sm_80".into()], Vec::new()),
            ],
        );
        assert_eq!(m.rows.len(), 1);
        let cells = &m.rows[0].cells;
        let got: Vec<(&str, Status, usize)> = cells
            .iter()
            .map(|c| (c.target.as_str(), c.status, c.reasons.len()))
            .collect();
        assert_eq!(
            got,
            [
                ("dg1", Status::NotInImage, 1),
                ("pvc", Status::Compatible, 0),
                ("sm_80", Status::NotCompiled, 0)
            ]
        );
    }
}

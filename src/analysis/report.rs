//! What an analysis answers: the findings, counts and summaries of a workspace, and the
//! settings (device table, targets) the checks are run against.

use std::sync::Arc;

use super::graph::ImageRule;
use crate::devices::{AspectSet, DeviceTable, ResolvedTarget};
use crate::diagnostics::Diagnostic;
use crate::syntax::{AspectRef, Located};

/// What the checks are run against.
pub struct Settings<'a> {
    pub table: &'a DeviceTable,
    /// The configured `-fsycl-targets`; `None` for the implicit `spir64`, which never warns.
    pub targets: Option<&'a [ResolvedTarget]>,
    /// How the device images are built (optimisation, `-fsycl-fp64-conv-emu`).
    pub image: ImageRule,
    /// The files analysed are a share of a workspace that has source files elsewhere (a
    /// batch of `analyze_parts`): headers among them that none of theirs includes are
    /// compiled by nobody even when the share holds no source file.
    pub units_elsewhere: bool,
    /// Whose rules the checks follow (AdaptiveCpp reads no `device_has`).
    pub implementation: crate::devices::Implementation,
    /// The directory the names of lambdas (`lambda at FILE:L:C`) name their files from, when
    /// the files are named otherwise (the language server's absolute paths): the project
    /// root, so a message reads as `check`'s. `None`: as the files are named.
    pub names_from: Option<&'a std::path::Path>,
}

impl Settings<'_> {
    /// The rule of `info`'s image: conversion emulation only where ocloc compiles it.
    pub fn image_for(&self, info: &crate::devices::TargetInfo) -> ImageRule {
        ImageRule {
            optimised: self.image.optimised,
            fp64_conv_emu: self.image.fp64_conv_emu
                && info.aot_toolchain.as_deref() == Some("ocloc"),
            typed_pointers: self.image.typed_pointers,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

#[derive(Clone, Debug, Default)]
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

/// A `device_has` list's aspects as written (unknown ones included).
pub(super) fn declared_names(d: &crate::syntax::DeviceHas) -> Vec<String> {
    d.aspects
        .iter()
        .map(|a| match a {
            AspectRef::Named { name, .. } => name.clone(),
            AspectRef::Unknown { text, .. } => text.clone(),
        })
        .collect()
}

/// Findings in the order they are reported: by place, then aspect and text.
/// One finding per kernel lambda written in a template, whatever number of instances of it
/// use the aspect: the first instance is named, the message lists the others (17 instances of
/// a SYCL-CTS test template made 17 findings on one line).
pub(super) fn merge_instances(diagnostics: &mut Vec<Diagnostic>) {
    const IN: &str = " in ";
    let base = |d: &Diagnostic| -> Option<String> {
        let f = d.function.as_deref()?;
        (f.starts_with("lambda at ") || f.starts_with("oneDPL "))
            .then(|| f.split_once(IN).map(|(b, _)| b.to_string()))
            .flatten()
    };
    let mut first: std::collections::HashMap<_, usize> = Default::default();
    let mut others: Vec<Vec<String>> = vec![Vec::new(); diagnostics.len()];
    let mut keep = vec![true; diagnostics.len()];
    for (i, d) in diagnostics.iter().enumerate() {
        let Some(b) = base(d) else { continue };
        let key = (
            d.file.clone(),
            d.range.start,
            d.code,
            d.aspect.clone(),
            d.targets.clone(),
            b,
        );
        match first.get(&key) {
            Some(&f) => {
                keep[i] = false;
                let inst = d
                    .function
                    .as_deref()
                    .and_then(|f| f.split_once(IN))
                    .map(|x| x.1);
                others[f].extend(inst.map(String::from));
            }
            None => {
                first.insert(key, i);
            }
        }
    }
    for (d, more) in diagnostics.iter_mut().zip(&others) {
        if more.is_empty() {
            continue;
        }
        let shown: Vec<&str> = more.iter().take(3).map(String::as_str).collect();
        let rest = more.len() - shown.len();
        d.message = format!(
            "{} (also in {} other instance{} of the template: {}{})",
            d.message,
            more.len(),
            if more.len() == 1 { "" } else { "s" },
            shown.join("; "),
            if rest > 0 {
                format!("; and {rest} more")
            } else {
                String::new()
            }
        );
    }
    let mut i = 0;
    diagnostics.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

pub(super) fn sort_findings(diagnostics: &mut [Diagnostic]) {
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

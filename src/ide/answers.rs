//! The editor features as answers of an [`Analysis`] snapshot: each takes what only the
//! editor knows (the text under edit, the cursor, the last published summaries) and reads the
//! rest (device table, targets, compile environment, the engine for lenses) from the snapshot.
//! Domain data out; `lsp` converts it.

use std::sync::Arc;

use super::host::Analysis;
use super::{Completion, HoverAnswer, HoverQuery, HoverText, MacroValue};
use crate::analysis::FunctionSummary;
use crate::devices::{parse_target_list, ResolvedTarget};
use crate::text::TextRange;
use crate::workspace::Sources;

/// Where the cursor is: a document's text (unsaved edits in) and a byte offset in it.
#[derive(Clone, Copy, Debug)]
pub struct Position<'a> {
    pub text: &'a str,
    pub offset: usize,
    /// The document's path; `None` when it is not a file.
    pub file: Option<&'a str>,
    /// A device-config YAML, not C++.
    pub yaml: bool,
}

/// A line above a kernel: on how many targets it runs, and the kernel it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelLens {
    pub range: TextRange,
    pub title: String,
    pub kernel: String,
    pub file: Arc<str>,
}

impl Analysis {
    /// The configured targets, else the implicit `spir64`: what the editor features describe.
    pub fn effective_targets(&self) -> Vec<ResolvedTarget> {
        match self.targets() {
            Some(t) => t.to_vec(),
            None => parse_target_list("", self.table()).targets,
        }
    }

    /// What to show on hover at `at` (`functions`: the kernels and decorated functions the
    /// editor last published). A word of a C++ file may need its value as a macro in each
    /// device compile: [`Analysis::macro_value`] gives it, where blocking is allowed.
    pub fn hover(&self, at: Position<'_>, functions: &[FunctionSummary]) -> HoverAnswer {
        let targets = self.effective_targets();
        super::hover(&HoverQuery {
            text: at.text,
            offset: at.offset,
            file: at.file,
            yaml: at.yaml,
            table: self.table(),
            targets: &targets,
            implementation: self.config().implementation,
            functions,
        })
    }

    /// The sources `paths` with their `texts` (`None`: read through the caller's fetching),
    /// preprocessed in this snapshot's compile environment.
    pub fn sources(&self, paths: Vec<Arc<str>>, texts: Vec<Option<Arc<str>>>) -> Sources<'_> {
        Sources::new(&self.config().env, paths, texts, None)
    }

    /// The hover of a word whose value as a macro decides it: what it is at its place in
    /// `path` in each device compile (preprocessing `sources`, expensive).
    pub fn macro_value(
        &self,
        pending: MacroValue,
        sources: &Sources<'_>,
        path: &str,
        offset: usize,
    ) -> Option<HoverText> {
        let per_compile = sources
            .position(path)
            .map(|i| sources.macro_at(i, offset, &pending.word));
        pending.answer(per_compile.as_deref(), self.table())
    }

    /// Completions at `at`: aspect names in C++, keys and values in a device config.
    pub fn completions(&self, at: Position<'_>) -> Vec<Completion> {
        if at.yaml {
            super::yaml_completions(at.text, at.offset, self.table())
        } else {
            super::cpp_completions(at.text, at.offset)
        }
    }

    /// The value of each `any_device_has` / `all_devices_have` in `text` for the targets, as
    /// (offset, label).
    pub fn inlay_hints(&self, text: &str) -> Vec<(usize, String)> {
        let sets = crate::devices::trait_sets_under(
            self.config().implementation,
            &self.effective_targets(),
            self.table(),
        );
        super::inlay_hints::trait_hints_under(text, sets)
    }

    /// A lens above each kernel and `SYCL_EXTERNAL` function of `path` whose name lies within
    /// `text_len`; `None` before the first analysis.
    pub fn kernel_lenses(&self, path: &str, text_len: usize) -> Option<Vec<KernelLens>> {
        let targets = self.effective_targets();
        let matrix = self.matrix_if_analysed(&targets, &|f| f == path)?;
        Some(
            matrix
                .rows
                .iter()
                .filter(|r| r.name_span.range.end <= text_len)
                .map(|r| KernelLens {
                    range: r.name_span.range,
                    title: super::kernel_lens(r),
                    kernel: r.name.clone(),
                    file: r.file.clone(),
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::host::{AnalysisConfig, AnalysisHost, Change};
    use super::*;
    use crate::base::SourceFile;

    const KERNEL: &str = "#include <sycl/sycl.hpp>\nvoid run(sycl::queue &q, float *o) {\n  \
        q.single_task([=] { double d = 1.5; *o = d; });\n}\n";

    fn analysed(targets: &str) -> Analysis {
        let table = crate::devices::DeviceTable::builtin().clone();
        let targets = parse_target_list(targets, &table).targets;
        let env = crate::workspace::CompileEnv::for_targets(Some(&targets), &table, Vec::new());
        let mut host = AnalysisHost::new(AnalysisConfig::new(table, Some(targets), env));
        let mut change = Change::new();
        change.set_files(vec![SourceFile {
            path: Arc::from("k.cpp"),
            facts: Arc::new(crate::syntax::extract(KERNEL)),
        }]);
        host.apply_change(change);
        host.analysis()
    }

    #[test]
    fn lenses_wait_for_the_first_analysis_then_say_where_kernels_run() {
        let analysis = analysed("intel_gpu_dg1,nvidia_gpu_sm_80");
        assert_eq!(analysis.kernel_lenses("k.cpp", KERNEL.len()), None);
        let _ = analysis.findings();
        let lenses = analysis.kernel_lenses("k.cpp", KERNEL.len()).unwrap();
        assert_eq!(lenses.len(), 1, "{lenses:?}");
        assert!(lenses[0].title.contains("1/2"), "{}", lenses[0].title);
        assert_eq!(analysis.kernel_lenses("other.cpp", 100), Some(Vec::new()));
    }

    #[test]
    fn features_describe_the_snapshots_targets() {
        let analysis = analysed("intel_gpu_dg1");
        let text = "bool b = sycl::any_device_has_v<sycl::aspect::fp64>;";
        let hints = analysis.inlay_hints(text);
        assert_eq!(hints.len(), 1, "{hints:?}");
        assert!(hints[0].1.contains("false"), "{hints:?}");
        let offset = text.find("fp64").unwrap() + 1;
        let at = Position {
            text,
            offset,
            file: Some("k.cpp"),
            yaml: false,
        };
        let HoverAnswer::Ready(Some(h)) = analysis.hover(at, &[]) else {
            panic!("an aspect name is answered at once");
        };
        assert!(h.markdown.contains("intel_gpu_dg1"), "{}", h.markdown);
        let completions = analysis.completions(Position {
            text: "[[sycl::device_has(sycl::aspect::",
            offset: 33,
            file: None,
            yaml: false,
        });
        assert!(
            completions.iter().any(|c| c.label == "fp64"),
            "{completions:?}"
        );
    }
}

//! The analysis API every front end calls, in the spirit of rust-analyzer's `ide` crate: an
//! [`AnalysisHost`] owns the inputs (each file's facts, the device table, the targets, the
//! compile environment, notices of unusable files) and applies [`Change`]s; an [`Analysis`] is
//! an immutable snapshot of those inputs that answers findings, the kernel × target matrix and
//! the editor features.
//!
//! What is expensive to recompute (the call graph, bodies, propagated aspects, findings) lives
//! in one incremental `analysis::Engine` that the host and all its snapshots share, behind a
//! lock: a snapshot brings the engine to its own inputs before it answers findings, so the
//! answer depends on the snapshot's inputs only, and an edit costs what the engine's update
//! costs. No IO here: the front ends (through `project`) read files and hand facts in.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::analysis::{self, matrix::Matrix, Engine, ImageRule, Report, Settings, Update};
use crate::base::SourceFile;
use crate::devices::{DeviceTable, ResolvedTarget};
use crate::diagnostics::Diagnostic;
use crate::syntax::PackedFacts;
use crate::workspace::CompileEnv;

/// A question given up because the inputs it was about were overtaken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

/// What the checks run against: the device table, the configured targets and how sources are
/// preprocessed for them.
#[derive(Clone)]
pub struct AnalysisConfig {
    pub table: Arc<DeviceTable>,
    /// The configured `-fsycl-targets`; `None` for the implicit `spir64`, which never warns.
    pub targets: Option<Arc<[ResolvedTarget]>>,
    pub env: Arc<CompileEnv>,
    /// How the device images are built (`-O0`, `-fsycl-fp64-conv-emu` in the compile flags).
    pub image: ImageRule,
    /// Problems of the device-config files, published with the findings (an editor shows
    /// them on the YAML); empty where the front end reports them itself.
    pub diagnostics: Arc<[Diagnostic]>,
    /// Whose rules the checks follow: DPC++'s, or AdaptiveCpp's for an `acpp` project.
    pub implementation: crate::devices::Implementation,
    /// The project root lambdas' names name their files from (`Settings::names_from`).
    pub names_from: Option<Arc<std::path::Path>>,
}

impl AnalysisConfig {
    pub fn new(table: DeviceTable, targets: Option<Vec<ResolvedTarget>>, env: CompileEnv) -> Self {
        Self {
            table: Arc::new(table),
            targets: targets.map(Arc::from),
            env: Arc::new(env),
            image: ImageRule {
                optimised: true,
                fp64_conv_emu: false,
                typed_pointers: false,
            },
            diagnostics: Arc::from(Vec::new()),
            implementation: crate::devices::Implementation::Dpcpp,
            names_from: None,
        }
    }

    /// The same, with images built under `image`.
    pub fn with_image(mut self, image: ImageRule) -> Self {
        self.image = image;
        self
    }

    pub fn with_implementation(mut self, implementation: crate::devices::Implementation) -> Self {
        self.implementation = implementation;
        self
    }

    /// The same, lambdas named by their files relative to `root` when under it: for a front
    /// end whose files are absolute paths, so its messages read as `check`'s.
    pub fn with_names_from(mut self, root: Option<&std::path::Path>) -> Self {
        self.names_from = root.map(Arc::from);
        self
    }

    /// The embedded device table, no targets, no compile flags.
    pub fn builtin() -> Self {
        let table = DeviceTable::builtin().clone();
        let env = CompileEnv::for_targets(None, &table, Vec::new());
        Self::new(table, None, env)
    }

    pub fn settings(&self) -> Settings<'_> {
        Settings {
            table: &self.table,
            targets: self.targets.as_deref(),
            image: self.image,
            units_elsewhere: false,
            implementation: self.implementation,
            names_from: self.names_from.as_deref(),
        }
    }
}

/// A set of changes to the inputs, applied at once by [`AnalysisHost::apply_change`].
#[derive(Default)]
pub struct Change {
    files: Option<Vec<SourceFile>>,
    packed: Option<Vec<PackedFacts>>,
    config: Option<AnalysisConfig>,
    notices: Option<Vec<Diagnostic>>,
}

impl Change {
    pub fn new() -> Self {
        Self::default()
    }

    /// The whole file set. Facts are compared by identity (`Arc`): a caller passes the facts
    /// it already gave for files that did not change, and only the others are read again.
    pub fn set_files(&mut self, files: Vec<SourceFile>) {
        self.files = Some(files);
    }

    /// The file set as `check` loads it: outlines (`FileFacts::outline`) with each file's
    /// facts packed, decoded a part of the workspace at a time (`analysis::analyze_parts`).
    /// Answers findings once; made for a one-shot run, never for edits.
    pub fn set_packed_files(&mut self, outlines: Vec<SourceFile>, packed: Vec<PackedFacts>) {
        self.files = Some(outlines);
        self.packed = Some(packed);
    }

    pub fn set_config(&mut self, config: AnalysisConfig) {
        self.config = Some(config);
    }

    /// Notes on files that could not be analysed (unreadable, binary, over the budgets).
    pub fn set_notices(&mut self, notices: Vec<Diagnostic>) {
        self.notices = Some(notices);
    }
}

/// The engine shared by a host and its snapshots, with the generation of the inputs it was
/// last brought to.
#[derive(Default)]
struct Shared {
    engine: Mutex<Kept>,
    generations: AtomicU64,
}

#[derive(Default)]
struct Kept {
    engine: Option<Engine>,
    generation: u64,
}

/// The inputs of one generation, immutable once made.
struct Inputs {
    generation: u64,
    files: Arc<Vec<SourceFile>>,
    /// With packed files: taken by the first findings, whose answer is then kept; a change
    /// that keeps the files moves them to the new generation.
    packed: Option<Mutex<Option<Vec<PackedFacts>>>>,
    packed_report: OnceLock<Report>,
    config: AnalysisConfig,
    notices: Arc<Vec<Diagnostic>>,
}

/// Owns the analysis inputs and applies changes to them; hands out snapshots.
#[derive(Clone)]
pub struct AnalysisHost {
    inputs: Arc<Inputs>,
    shared: Arc<Shared>,
}

impl AnalysisHost {
    pub fn new(config: AnalysisConfig) -> Self {
        let shared = Arc::new(Shared::default());
        Self {
            inputs: Arc::new(Inputs {
                generation: shared.generations.fetch_add(1, Ordering::Relaxed) + 1,
                files: Arc::new(Vec::new()),
                packed: None,
                packed_report: OnceLock::new(),
                config,
                notices: Arc::new(Vec::new()),
            }),
            shared,
        }
    }

    /// Applies `change`: a new generation of inputs, cheap (the engine catches up when a
    /// snapshot asks).
    pub fn apply_change(&mut self, change: Change) {
        let old = &self.inputs;
        let packed = match (change.packed, &change.files) {
            (Some(p), _) => Some(Mutex::new(Some(p))),
            // A new file set replaces packed facts; other changes keep them.
            (None, Some(_)) => None,
            (None, None) => old.packed.as_ref().map(|m| Mutex::new(lock(m).take())),
        };
        self.inputs = Arc::new(Inputs {
            generation: self.shared.generations.fetch_add(1, Ordering::Relaxed) + 1,
            files: change.files.map_or_else(|| old.files.clone(), Arc::new),
            packed,
            packed_report: OnceLock::new(),
            config: change.config.unwrap_or_else(|| old.config.clone()),
            notices: change.notices.map_or_else(|| old.notices.clone(), Arc::new),
        });
    }

    /// A snapshot of the current inputs.
    pub fn analysis(&self) -> Analysis {
        Analysis {
            inputs: self.inputs.clone(),
            shared: self.shared.clone(),
        }
    }

    pub fn config(&self) -> &AnalysisConfig {
        &self.inputs.config
    }

    pub fn files(&self) -> &Arc<Vec<SourceFile>> {
        &self.inputs.files
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| {
        m.clear_poison();
        e.into_inner()
    })
}

/// An immutable snapshot of the inputs; every answer is a function of them.
#[derive(Clone)]
pub struct Analysis {
    inputs: Arc<Inputs>,
    shared: Arc<Shared>,
}

impl Analysis {
    pub fn files(&self) -> &[SourceFile] {
        &self.inputs.files
    }

    pub fn config(&self) -> &AnalysisConfig {
        &self.inputs.config
    }

    pub fn table(&self) -> &DeviceTable {
        &self.inputs.config.table
    }

    pub fn targets(&self) -> Option<&[ResolvedTarget]> {
        self.inputs.config.targets.as_deref()
    }

    /// Whether an analysis has run (of these inputs or earlier ones): answering from this
    /// snapshot then costs an update, not a first build.
    pub fn is_analysed(&self) -> bool {
        lock(&self.shared.engine).engine.is_some()
    }

    fn engine(&self) -> (MutexGuard<'_, Kept>, Update) {
        self.engine_unless(&|| false)
            .unwrap_or_else(|Cancelled| unreachable!("never cancelled"))
    }

    /// The engine, brought to this snapshot's files, unless `cancelled` once it is locked. A
    /// panic in an earlier holder leaves it suspect: it is built again.
    fn engine_unless(
        &self,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<(MutexGuard<'_, Kept>, Update), Cancelled> {
        let poisoned = self.shared.engine.is_poisoned();
        let mut kept = lock(&self.shared.engine);
        if poisoned {
            *kept = Kept::default();
        }
        if cancelled() {
            return Err(Cancelled);
        }
        let files = || (*self.inputs.files).clone();
        let current = kept.generation == self.inputs.generation;
        let how = match kept.engine.as_mut() {
            Some(_) if current => Update::Unchanged,
            Some(e) => e.update(files()),
            None => {
                kept.engine = Some(Engine::new(files()));
                Update::Full
            }
        };
        kept.generation = self.inputs.generation;
        Ok((kept, how))
    }

    /// The findings of the analysis (no notices), with summaries of every kernel and decorated
    /// function.
    pub fn findings(&self) -> Report {
        self.findings_for(&|_| true).0
    }

    /// The same, with summaries only for the files `summarize` accepts (an editor needs them
    /// for its open documents only), and what the engine had to redo.
    pub fn findings_for(&self, summarize: &dyn Fn(&str) -> bool) -> (Report, Update) {
        self.findings_unless(summarize, &|| false)
            .unwrap_or_else(|Cancelled| unreachable!("never cancelled"))
    }

    /// The same, given up when `cancelled` says so once the engine is this snapshot's (an
    /// editor's run that a newer edit overtook while it waited for the engine).
    pub fn findings_unless(
        &self,
        summarize: &dyn Fn(&str) -> bool,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<(Report, Update), Cancelled> {
        let settings = self.inputs.config.settings();
        if let Some(packed) = &self.inputs.packed {
            let report = self.inputs.packed_report.get_or_init(|| {
                // Packed facts are moved to a newer generation by a change that keeps the files
                // (`apply_change`); an older snapshot asking after that would analyse outlines
                // alone and answer wrongly, so it is refused loudly. `check` asks once.
                let taken = lock(packed)
                    .take()
                    .expect("packed facts are answered by one snapshot, before any change");
                analysis::analyze_parts(
                    &self.inputs.files,
                    PackedFacts::unpack_once(taken),
                    &settings,
                )
            });
            return Ok((report.clone(), Update::Full));
        }
        let (mut kept, how) = self.engine_unless(cancelled)?;
        let engine = kept.engine.as_mut().expect("brought up to date");
        Ok((engine.report_for(&settings, summarize), how))
    }

    /// The findings, then the config files' problems, then the notices: what a front end
    /// publishes.
    pub fn report(&self) -> Report {
        let mut report = self.findings();
        self.add_notices(&mut report);
        report
    }

    /// Appends the config problems and notices to findings (computed, or kept from a run).
    pub fn add_notices(&self, report: &mut Report) {
        report
            .diagnostics
            .extend(self.inputs.config.diagnostics.iter().cloned());
        report
            .diagnostics
            .extend(self.inputs.notices.iter().cloned());
    }

    /// Which kernel each of `targets`' images holds, and why not.
    pub fn matrix(&self, targets: &[ResolvedTarget]) -> Matrix {
        self.matrix_of(targets, &|_| true)
    }

    /// The same, for the kernels of the files `wanted` accepts (an editor's open document).
    /// An engine already at newer inputs (an edit analysed since this snapshot) answers from
    /// those: a lens or a matrix view wants the newest state, never an older one.
    pub fn matrix_of(
        &self,
        targets: &[ResolvedTarget],
        wanted: &(dyn Fn(&str) -> bool + Sync),
    ) -> Matrix {
        let settings = Settings {
            table: &self.inputs.config.table,
            targets: Some(targets),
            image: self.inputs.config.image,
            units_elsewhere: false,
            implementation: self.inputs.config.implementation,
            names_from: self.inputs.config.names_from.as_deref(),
        };
        if let Some(packed) = &self.inputs.packed {
            // Packed facts (`report`): by parts, as `check` finds, the facts left packed.
            let packed = lock(packed);
            let packed = packed
                .as_ref()
                .expect("packed facts are answered by one snapshot, before any change");
            return analysis::matrix_parts(
                &self.inputs.files,
                |i| Arc::new(packed[i].unpack()),
                &settings,
                wanted,
            );
        }
        {
            let kept = lock(&self.shared.engine);
            if let Some(e) = kept.engine.as_ref() {
                if kept.generation > self.inputs.generation {
                    return e.matrix_of(&settings, wanted);
                }
            }
        }
        let (kept, _) = self.engine();
        kept.engine
            .as_ref()
            .expect("brought up to date")
            .matrix_of(&settings, wanted)
    }

    /// The same, or `None` while no analysis has run (an editor's lens before the first
    /// answer: building the engine there would race the first run for the same work).
    pub fn matrix_if_analysed(
        &self,
        targets: &[ResolvedTarget],
        wanted: &(dyn Fn(&str) -> bool + Sync),
    ) -> Option<Matrix> {
        lock(&self.shared.engine).engine.as_ref()?;
        Some(self.matrix_of(targets, wanted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const USES_DOUBLE: &str = "#include <sycl/sycl.hpp>\nvoid run(sycl::queue &q, float *o) {\n  \
        q.single_task([=]() [[sycl::device_has()]] { double d = 1.5; *o = d; });\n}\n";
    const FLOAT_ONLY: &str = "#include <sycl/sycl.hpp>\nvoid run(sycl::queue &q, float *o) {\n  \
        q.single_task([=]() [[sycl::device_has()]] { float d = 1.5f; *o = d; });\n}\n";

    fn file(text: &str) -> SourceFile {
        SourceFile {
            path: Arc::from("a.cpp"),
            facts: Arc::new(crate::syntax::extract(text)),
        }
    }

    fn host_with(text: &str) -> AnalysisHost {
        let mut host = AnalysisHost::new(AnalysisConfig::builtin());
        let mut change = Change::new();
        change.set_files(vec![file(text)]);
        host.apply_change(change);
        host
    }

    fn aspects(report: &Report) -> Vec<String> {
        report
            .diagnostics
            .iter()
            .filter_map(|d| d.aspect.clone())
            .collect()
    }

    #[test]
    fn a_snapshot_answers_for_its_own_inputs_after_the_host_moved_on() {
        let mut host = host_with(USES_DOUBLE);
        let before = host.analysis();
        assert_eq!(aspects(&before.findings()), ["fp64"]);
        let mut change = Change::new();
        change.set_files(vec![file(FLOAT_ONLY)]);
        host.apply_change(change);
        let after = host.analysis();
        assert_eq!(aspects(&after.findings()), Vec::<String>::new());
        // The shared engine is at the new inputs; the old snapshot brings it back to its own.
        assert_eq!(aspects(&before.findings()), ["fp64"]);
        assert_eq!(aspects(&after.findings()), Vec::<String>::new());
    }

    #[test]
    fn a_config_change_keeps_the_files_and_changes_the_answers() {
        let mut host = host_with(USES_DOUBLE);
        assert!(host.analysis().findings().diagnostics.len() == 1);
        let table = DeviceTable::builtin().clone();
        let targets = crate::devices::parse_target_list("intel_gpu_dg1", &table).targets;
        let env = CompileEnv::for_targets(Some(&targets), &table, Vec::new());
        let mut change = Change::new();
        change.set_config(AnalysisConfig::new(table, Some(targets), env));
        host.apply_change(change);
        let analysis = host.analysis();
        assert_eq!(analysis.files().len(), 1);
        let codes: Vec<&str> = analysis
            .findings()
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert_eq!(codes, ["aspect-mismatch", "target-unsupported-aspect"]);
    }

    #[test]
    fn notices_and_config_problems_follow_the_findings() {
        let mut host = host_with(USES_DOUBLE);
        let notice = *crate::workspace::notice(&Arc::from("big.cpp"), "skipped".into());
        let mut change = Change::new();
        change.set_notices(vec![notice]);
        host.apply_change(change);
        let report = host.analysis().report();
        let files: Vec<&str> = report.diagnostics.iter().map(|d| &*d.file).collect();
        assert_eq!(files, ["a.cpp", "big.cpp"]);
    }

    #[test]
    fn an_overtaken_question_is_given_up_and_the_engine_stays_usable() {
        let host = host_with(USES_DOUBLE);
        let analysis = host.analysis();
        assert_eq!(
            analysis.findings_unless(&|_| true, &|| true).err(),
            Some(Cancelled)
        );
        let (report, how) = analysis.findings_for(&|_| true);
        assert_eq!(aspects(&report), ["fp64"]);
        assert_eq!(how, Update::Full);
        let (_, how) = analysis.findings_for(&|_| true);
        assert_eq!(how, Update::Unchanged);
    }

    #[test]
    fn packed_facts_are_analysed_by_parts_and_the_answer_kept() {
        let f = file(USES_DOUBLE);
        let packed = PackedFacts::pack(&f.facts);
        let outline = SourceFile {
            path: f.path.clone(),
            facts: Arc::new(f.facts.outline()),
        };
        let mut host = AnalysisHost::new(AnalysisConfig::builtin());
        let mut change = Change::new();
        change.set_packed_files(vec![outline], vec![packed]);
        host.apply_change(change);
        let analysis = host.analysis();
        assert_eq!(aspects(&analysis.findings()), ["fp64"]);
        // Asked again, the kept answer (the packed facts were decoded and let go of).
        assert_eq!(aspects(&analysis.findings()), ["fp64"]);
        assert!(analysis.matrix_if_analysed(&[], &|_| true).is_none());
    }
}

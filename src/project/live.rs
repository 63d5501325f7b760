//! A project kept loaded and current with the disk, for a long-running front end that owns no
//! documents (the daemon): the sources' facts in an [`AnalysisHost`], brought up to date by
//! re-extracting only the files that changed and the files that read them, as the language
//! server does for an edit. The engine behind the host is incremental, so an answer after a
//! change costs what the change costs, not a reload.
//!
//! Synchronous and blocking (it reads and parses files): callers run it off any async runtime.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::inputs::{Readers, RunInputs};
use super::Project;
use crate::analysis::Report;
use crate::base::SourceFile;
use crate::diagnostics::Diagnostic;
use crate::ide::{Analysis, AnalysisConfig, AnalysisHost, Change};
use crate::{syntax, workspace};

/// A changed file read from the disk: its text, else why it is skipped (`None`: it is gone).
pub type ChangedSource = Result<String, Option<String>>;

/// A loaded project that follows the disk.
pub struct Live {
    project: Project,
    /// Each root as given (files are named under it, as every front end names them) and as
    /// an absolute path (as a watcher reports changes).
    roots: Vec<(PathBuf, PathBuf)>,
    host: AnalysisHost,
    files: Arc<Vec<SourceFile>>,
    index_of: Arc<HashMap<String, usize>>,
    /// Content hash of each source's text as last extracted: a file read again with the same
    /// hash needs nothing.
    hashes: HashMap<String, u64>,
    readers: Readers,
    notices: HashMap<String, Diagnostic>,
    fragments: Vec<(Arc<str>, Arc<str>)>,
    external: Vec<PathBuf>,
    /// The findings of the current state, once asked for; dropped by any change.
    report: Option<Arc<Report>>,
}

impl Live {
    /// Loads `project` for `config` (unchanged files' facts from the persisted index).
    pub fn load(project: Project, config: AnalysisConfig) -> Result<Self, String> {
        let options = super::LoadOptions {
            cache: true,
            ..Default::default()
        };
        let loaded = super::load(&project, config.clone(), &options)?.loaded;
        let mut readers = Readers::default();
        let mut index_of = HashMap::with_capacity(loaded.files.len());
        let mut hashes = HashMap::with_capacity(loaded.files.len());
        for (i, f) in loaded.files.iter().enumerate() {
            readers.replace(i, &syntax::FileFacts::default(), &f.facts);
            index_of.insert(f.path.to_string(), i);
            if let Some(h) = loaded.hashes.get(i) {
                hashes.insert(f.path.to_string(), *h);
            }
        }
        let notices = loaded
            .notices
            .iter()
            .map(|n| (n.file.to_string(), n.clone()))
            .collect();
        let mut host = AnalysisHost::new(config);
        let mut change = Change::new();
        change.set_files(loaded.files.clone());
        change.set_notices(loaded.notices.clone());
        host.apply_change(change);
        let roots = project
            .roots
            .iter()
            .map(|r| (r.clone(), r.canonicalize().unwrap_or_else(|_| r.clone())))
            .collect();
        Ok(Self {
            project,
            roots,
            host,
            files: Arc::new(loaded.files),
            index_of: Arc::new(index_of),
            hashes,
            readers,
            notices,
            fragments: loaded.fragments,
            external: loaded
                .external
                .iter()
                .map(|p| PathBuf::from(&**p))
                .collect(),
            report: None,
        })
    }

    pub fn project(&self) -> &Project {
        &self.project
    }

    /// The headers outside the roots that sources include: a watcher watches them too.
    pub fn external(&self) -> &[PathBuf] {
        &self.external
    }

    /// A snapshot of the current state.
    pub fn analysis(&self) -> Analysis {
        self.host.analysis()
    }

    /// The findings of the current state, notices included (no summaries: no editor asks
    /// for hovers here), computed once per state.
    pub fn report(&mut self) -> Arc<Report> {
        let analysis = self.host.analysis();
        self.report
            .get_or_insert_with(|| {
                let started = std::time::Instant::now();
                let (mut report, how) = analysis.findings_for(&|_| false);
                tracing::debug!(?how, elapsed = ?started.elapsed(), "findings");
                analysis.add_notices(&mut report);
                // The update and the analysis before it freed tens of megabytes (at 500 k
                // lines) that glibc would keep and the next update grow from; trimming after
                // every state, not only from 1 000 files, lowered the 100 k-line daemon's peak
                // from 69-73 to 66 MiB (two arenas, loaded machine; BENCHMARKS.md, 2026-12-05).
                crate::memory::trim_and_log("state");
                Arc::new(report)
            })
            .clone()
    }

    /// `path` named as this project names its files: under a root as the root was given.
    fn local(&self, path: &Path) -> PathBuf {
        for (given, absolute) in &self.roots {
            if let Ok(rest) = path.strip_prefix(absolute) {
                return workspace::tidy(&given.join(rest));
            }
        }
        path.to_path_buf()
    }

    /// Whether `path` is a file this project analyses or could (a C++ file under its roots, or
    /// an external header it reads).
    pub fn covers(&self, path: &Path) -> bool {
        workspace::is_cpp(path)
            && (self.project.roots.iter().any(|r| {
                // The root `.` names its files without a `./`.
                let r = workspace::tidy(r);
                path.starts_with(&r) || (r == Path::new(".") && path.is_relative())
            }) || self.external.iter().any(|e| e == path))
    }

    /// Reads `path` again, and the workspace headers it read, and takes in those whose text
    /// differs from the one last extracted: a request about a file just saved answers for
    /// the saved text, whether or not the watcher has told of it yet. Returns whether
    /// anything changed.
    pub fn refresh(&mut self, path: &Path) -> bool {
        let path = self.local(path);
        let key = path.display().to_string();
        let mut paths = vec![path.clone()];
        if let Some(&i) = self.index_of.get(&key) {
            paths.extend(
                self.files[i]
                    .facts
                    .preprocessor
                    .deps
                    .iter()
                    .map(PathBuf::from),
            );
        }
        self.changed_on_disk(&paths) > 0
    }

    /// Does `source`, just read for `path`, differ from what was last taken in?
    fn differs(&self, path: &str, source: &ChangedSource) -> bool {
        match source {
            Ok(text) => self.hashes.get(path) != Some(&crate::cache::content_hash(text)),
            Err(None) => self.index_of.contains_key(path) || self.notices.contains_key(path),
            Err(Some(why)) => self.notices.get(path).is_none_or(|n| n.message != *why),
        }
    }

    /// Reads the C++ files among `paths` that this project covers and takes in those that
    /// changed. Returns how many did.
    pub fn changed_on_disk(&mut self, paths: &[PathBuf]) -> usize {
        use rayon::prelude::*;
        let mut paths: Vec<PathBuf> = paths.iter().map(|p| self.local(p)).collect();
        paths.sort();
        paths.dedup();
        let changes: Vec<(String, ChangedSource)> = paths
            .par_iter()
            .filter(|p| self.covers(p))
            .map(|p| {
                let source = match p.exists() {
                    true => workspace::read_source(p).map_err(Some),
                    false => Err(None),
                };
                (p.display().to_string(), source)
            })
            .filter(|(p, s)| self.differs(p, s))
            .collect();
        let n = changes.len();
        if n > 0 {
            self.update(changes);
        }
        n
    }

    /// Events were lost: every source under the roots is compared with the disk.
    pub fn rescan(&mut self) -> usize {
        let mut paths = workspace::discover(&self.project.roots).unwrap_or_default();
        paths.extend(self.external.iter().cloned());
        // Known files no longer found are gone.
        let found: std::collections::HashSet<String> =
            paths.iter().map(|p| p.display().to_string()).collect();
        paths.extend(
            self.index_of
                .keys()
                .chain(self.notices.keys())
                .filter(|p| !found.contains(*p))
                .map(PathBuf::from),
        );
        self.changed_on_disk(&paths)
    }

    /// Takes in `changes`: the changed sources are extracted again, with the sources that
    /// read their macros, and the host gets the new file set.
    pub fn update(&mut self, changes: Vec<(String, ChangedSource)>) {
        let started = std::time::Instant::now();
        let mut dirty: Vec<(String, Arc<str>)> = Vec::new();
        let mut emptied = Vec::new();
        for (path, source) in changes {
            match source {
                Ok(text) => {
                    self.hashes
                        .insert(path.clone(), crate::cache::content_hash(&text));
                    dirty.push((path, Arc::from(text)));
                }
                Err(why) => {
                    self.hashes.remove(&path);
                    match why {
                        Some(why) => {
                            let name: Arc<str> = Arc::from(path.as_str());
                            self.notices
                                .insert(path.clone(), *workspace::notice(&name, why));
                        }
                        None => {
                            self.notices.remove(&path);
                        }
                    }
                    // A file once known keeps its place, with no facts (as the server does).
                    if self.index_of.contains_key(&path) {
                        emptied.push((path, Arc::new(syntax::FileFacts::default())));
                    }
                }
            }
        }
        let inputs = RunInputs {
            base: self.files.clone(),
            index_of: self.index_of.clone(),
            // The disk is the truth here: texts are read from it when needed.
            texts: Arc::new(HashMap::new()),
            open: HashMap::new(),
            readers: RunInputs::readers_of(&self.readers, &dirty),
            dirty,
            fragments: self.fragments.clone(),
        };
        let env = self.host.config().env.clone();
        let results = inputs.extract(&env, None);
        let parsed_count = results.len();
        let extracted = started.elapsed();
        let mut parsed = emptied;
        for (path, result) in results {
            let facts = match result {
                Ok(facts) => {
                    self.notices.remove(&path);
                    facts
                }
                Err(why) => {
                    tracing::info!(file = %path, "{why}");
                    let name: Arc<str> = Arc::from(path.as_str());
                    self.notices
                        .insert(path.clone(), *workspace::notice(&name, why));
                    syntax::FileFacts::default()
                }
            };
            parsed.push((path, Arc::new(facts)));
        }
        self.store(parsed);
        let mut change = Change::new();
        change.set_files((*self.files).clone());
        change.set_notices(self.notices.values().cloned().collect());
        self.host.apply_change(change);
        self.report = None;
        tracing::debug!(parsed = parsed_count, ?extracted, elapsed = ?started.elapsed(), "update");
    }

    fn store(&mut self, parsed: Vec<(String, Arc<syntax::FileFacts>)>) {
        super::inputs::store(
            &mut self.files,
            &mut self.index_of,
            &mut self.readers,
            parsed,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::ProjectConfig;

    fn live(dir: &Path, targets: &str) -> Live {
        let project = Project::discover(&ProjectConfig {
            roots: vec![dir.to_path_buf()],
            targets: Some(targets.into()),
            ..Default::default()
        })
        .unwrap();
        let table = crate::devices::DeviceTable::builtin().clone();
        let targets = project.targets(&table).ok().flatten();
        let env = project.compile_env(targets.as_deref(), &table);
        let config = AnalysisConfig::new(table, targets, env);
        Live::load(project, config).unwrap()
    }

    fn aspects_flagged(live: &Live) -> Vec<String> {
        let mut v: Vec<String> = live
            .analysis()
            .findings()
            .diagnostics
            .iter()
            .map(|d| {
                format!(
                    "{}:{}",
                    Path::new(&*d.file).file_name().unwrap().to_string_lossy(),
                    d.pos.line
                )
            })
            .collect();
        v.sort();
        v
    }

    const KERNEL: &str = "#include <sycl/sycl.hpp>\n#include \"helpers.hpp\"\nvoid run(sycl::queue &q) {\n  q.single_task([=] { helper(); });\n}\n";

    #[test]
    fn a_header_changed_on_disk_changes_the_findings_of_its_includer() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("main.cpp"), KERNEL).unwrap();
        let header = root.join("helpers.hpp");
        std::fs::write(
            &header,
            "inline void helper() { float x = 1.0f; (void)x; }\n",
        )
        .unwrap();
        let mut live = live(&root, "intel_gpu_dg1");
        assert!(aspects_flagged(&live).is_empty());
        std::fs::write(
            &header,
            "inline void helper() { double x = 1.0; (void)x; }\n",
        )
        .unwrap();
        assert_eq!(live.changed_on_disk(std::slice::from_ref(&header)), 1);
        let flagged = aspects_flagged(&live);
        assert!(!flagged.is_empty(), "fp64 in the header is not seen");
        // Nothing changed: nothing is read in.
        assert_eq!(live.changed_on_disk(std::slice::from_ref(&header)), 0);
        assert!(!live.refresh(&header));
        std::fs::write(&header, "inline void helper() {}\n").unwrap();
        assert!(live.refresh(&header));
        assert!(aspects_flagged(&live).is_empty());
    }

    #[test]
    fn files_appear_and_disappear() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut live = live(&root, "intel_gpu_dg1");
        assert!(aspects_flagged(&live).is_empty());
        let file = root.join("k.cpp");
        std::fs::write(
            &file,
            "#include <sycl/sycl.hpp>\nvoid run(sycl::queue &q, double *p) {\n  q.single_task([=] { p[0] = 2.0 * p[1]; });\n}\n",
        )
        .unwrap();
        assert_eq!(live.rescan(), 1);
        assert!(!aspects_flagged(&live).is_empty());
        std::fs::remove_file(&file).unwrap();
        assert_eq!(live.rescan(), 1);
        assert!(aspects_flagged(&live).is_empty());
        // Binary junk is a notice, not a crash.
        std::fs::write(&file, b"\0\x01\x02binary").unwrap();
        assert!(live.refresh(&file));
        let report = live.analysis().report();
        assert!(report
            .diagnostics
            .iter()
            .any(|d| d.message.contains("binary")));
    }
}

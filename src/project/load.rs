//! Loading a project: its sources found and extracted (unchanged files' facts from the
//! persisted index), ready for an [`AnalysisHost`]; and `check`'s persisted report, reused
//! when nothing it depends on changed.

use std::path::PathBuf;

use super::Project;
use crate::analysis::Report;
use crate::ide::{AnalysisConfig, AnalysisHost, Change};
use crate::workspace;

/// How a project is loaded.
pub struct LoadOptions<'a> {
    /// Read and write the persisted index (and `check`'s report) of the first root.
    pub cache: bool,
    /// Keep the sources' texts (an editor converts positions with them).
    pub keep_texts: bool,
    /// Keep facts packed until the analysis asks for a part of the workspace (`check`).
    pub pack: bool,
    /// `(k, n)`: extract only the k-th of n shards' files (`check --shard`); nothing is saved.
    pub shard: Option<(usize, usize)>,
    /// Facts files of shards, merged into the index: their files are not parsed again.
    pub facts: &'a [PathBuf],
    /// Called once per file extracted.
    pub progress: &'a (dyn Fn() + Sync),
    /// Told how many files were found, before any is read.
    pub found: &'a dyn Fn(usize),
}

impl Default for LoadOptions<'_> {
    fn default() -> Self {
        Self {
            cache: false,
            keep_texts: false,
            pack: false,
            shard: None,
            facts: &[],
            progress: &|| {},
            found: &|_| {},
        }
    }
}

/// A loaded project: the sources' facts and what came with them.
pub struct Workspace {
    pub config: AnalysisConfig,
    pub loaded: workspace::Loaded,
    /// Where the last report of this workspace is kept (with a cache, whole workspaces only).
    report: Option<PathBuf>,
}

/// Finds, reads and extracts the project's sources for `config` (its table, targets and
/// compile environment).
pub fn load(
    project: &Project,
    config: AnalysisConfig,
    options: &LoadOptions,
) -> Result<Workspace, String> {
    let files = workspace::discover(&project.roots)?;
    (options.found)(files.len());
    let index_path = if options.cache {
        project
            .roots
            .first()
            .and_then(|p| crate::cache::index_path(p))
    } else {
        None
    };
    let mut index = index_path
        .as_deref()
        .map(crate::cache::Index::load)
        .unwrap_or_default();
    for f in options.facts {
        index.extend(crate::cache::Index::load_strict(f)?);
    }
    let mine = options
        .shard
        .map(|(k, n)| workspace::shard_of(&files, k, n));
    let mode = workspace::LoadMode {
        keep_texts: options.keep_texts,
        pack: options.pack,
        roots: &project.roots,
    };
    let loaded =
        workspace::load_selected(&files, &index, mode, &config.env, options.progress, |i| {
            mine.as_ref().is_none_or(|m| m[i])
        });
    // A shard's files alone would replace the whole workspace's index; facts merged from
    // shards are not in the index on disk yet.
    let unchanged = options.facts.is_empty() && loaded.same_as(&index);
    if let (Some(p), None, false) = (&index_path, options.shard, unchanged) {
        let _ = loaded.save_index(p);
    }
    drop(index);
    // Parsing left its trees and texts freed: given back before the analysis grows.
    crate::memory::trim();
    let report = match (index_path, options.shard) {
        (Some(p), None) => Some(crate::cache::report_path(&p)),
        _ => None,
    };
    Ok(Workspace {
        config,
        loaded,
        report,
    })
}

impl Workspace {
    /// A host holding the loaded facts (packed ones stay packed), notices included.
    pub fn host(&mut self) -> AnalysisHost {
        host_of(self.config.clone(), &mut self.loaded)
    }

    /// `check`'s answer: the report persisted by the last run when nothing it depends on
    /// changed (a warm start), else the analysis' (then persisted), notices last. The host is
    /// returned so that a process about to exit can skip freeing it (freeing every file's
    /// facts one block at a time was a quarter of a warm `check`).
    pub fn report(&mut self) -> (Report, AnalysisHost) {
        let key = self.report.clone().map(|path| {
            let key = crate::cache::report_key(
                &self.loaded.files,
                &self.loaded.hashes,
                &self.config.settings(),
                self.config.env.key(),
            );
            (path, key)
        });
        let kept = key
            .as_ref()
            .and_then(|(path, key)| crate::cache::load_report(path, *key));
        let host = self.host();
        let analysis = host.analysis();
        let mut report = kept.unwrap_or_else(|| {
            let report = analysis.findings();
            if let Some((path, key)) = &key {
                let _ = crate::cache::save_report(path, *key, &report);
            }
            report
        });
        analysis.add_notices(&mut report);
        (report, host)
    }
}

/// A host over loaded facts: the files and notices shared (`Arc`s), packed facts moved in.
pub fn host_of(config: AnalysisConfig, loaded: &mut workspace::Loaded) -> AnalysisHost {
    let mut host = AnalysisHost::new(config);
    let mut change = Change::new();
    if loaded.outlined {
        change.set_packed_files(loaded.files.clone(), std::mem::take(&mut loaded.packed));
    } else {
        change.set_files(loaded.files.clone());
    }
    change.set_notices(loaded.notices.clone());
    host.apply_change(change);
    host
}

//! A header's other meanings: the translation units other than its first that include it,
//! and the readings of it they compile differently (their `-D`, a `#define` before the
//! `#include`, their `-I`), compared on the macros the first reading looked up. Also the
//! per-device-compile readings the units share.

use super::*;

impl Sources<'_> {
    /// The translation units other than `unit` that compile file `i` (source files nothing
    /// includes), nearest first, each with its includer chain down to `i` (as `chain`'s). At
    /// most `MAX_UNITS`: a header most of a large project includes is compared with those.
    pub(super) fn other_units(&self, i: usize, unit: usize) -> Vec<Vec<(usize, usize)>> {
        // Per file reached, the file it includes on the way to `i` and where.
        let mut step: FxHashMap<usize, (usize, usize)> = FxHashMap::default();
        step.insert(i, (i, 0));
        let mut queue = std::collections::VecDeque::from([i]);
        let mut out = Vec::new();
        while let Some(f) = queue.pop_front() {
            let ins = self.includers_of(f);
            if ins.is_empty() && f != i && f != unit && !is_header(&self.paths[f]) {
                out.push(Self::chain_down(f, i, &step));
                if out.len() == MAX_UNITS {
                    break;
                }
            }
            for &(g, at) in ins {
                if let std::collections::hash_map::Entry::Vacant(e) = step.entry(g as usize) {
                    e.insert((f, at));
                    queue.push_back(g as usize);
                }
            }
        }
        out
    }

    /// The chain from `top` down to `i` along `step`.
    pub(super) fn chain_down(
        top: usize,
        i: usize,
        step: &FxHashMap<usize, (usize, usize)>,
    ) -> Vec<(usize, usize)> {
        let mut chain = Vec::new();
        let mut at = top;
        while at != i {
            let (next, offset) = step[&at];
            chain.push((at, offset));
            at = next;
        }
        chain.push((i, 0));
        chain
    }

    /// File `i` from `chain` in every device compile, given its reading in compile 0: per
    /// compile, the key of the compiled text and the text where the key is new. A reading that
    /// looked up no per-target macro is the same in every compile.
    pub(super) fn per_compile(
        &self,
        i: usize,
        text: &str,
        chain: &[(usize, usize)],
        includes: &FileIncludes,
        first: (u64, Option<pp::Preprocessed>),
        dependent: bool,
    ) -> PerCompile {
        let key0 = first.0;
        let mut out = vec![first];
        for c in 1..self.env.compile_count() {
            if !dependent {
                out.push((key0, None));
                continue;
            }
            let ((pre, key), _) = self.preprocess(i, text, chain, includes, c);
            let new = !out.iter().any(|o| o.0 == key);
            out.push((key, new.then_some(pre)));
        }
        out
    }

    /// The distinct texts of `per` in order, each with the targets of the compiles that
    /// compile it and its facts (`None` for a text that came without: extracted already).
    pub(super) fn meanings(
        &self,
        text: &str,
        per: PerCompile,
        budget: Option<std::time::Duration>,
    ) -> Result<Vec<Meaning>, String> {
        let mut seen: Vec<Meaning> = Vec::new();
        for (c, (key, pre)) in per.into_iter().enumerate() {
            let targets = self.env.compile_targets(c);
            match seen.iter_mut().find(|s| s.0 == key) {
                Some(s) => s.1.extend(targets.iter().cloned()),
                None => {
                    let facts = match pre {
                        Some(pre) => Some(syntax::extract_preprocessed(text, pre, budget)?),
                        None => None,
                    };
                    seen.push((key, targets.to_vec(), facts));
                }
            }
        }
        Ok(seen)
    }

    /// The variants of header `i` in the translation units `others`, beside its first source
    /// includer's reading (`first`). A unit whose macros where it includes the header agree
    /// on every name that reading looked up, with the same `-I` directories, compiles the same
    /// text; the others are preprocessed again, and grouped by the texts they compile.
    pub(super) fn unit_variants(
        &self,
        i: usize,
        text: &str,
        others: &[Vec<(usize, usize)>],
        first: &FirstReading,
        budget: Option<std::time::Duration>,
    ) -> Result<Vec<crate::syntax::TargetVariant>, String> {
        // Per compile the key of the text, the units, their meanings.
        type Group = (Vec<u64>, Vec<String>, Vec<Meaning>);
        let mut groups: Vec<Group> = Vec::new();
        for chain in others {
            let u = chain[0].0;
            let includes = FileIncludes {
                sources: self,
                dirs: self.dirs(u),
            };
            let entry = self.start(chain, &includes, 0);
            // Entries compared in compile 0 only say nothing of the others when one of them
            // looked up a per-target macro.
            let per_target =
                self.env.compile_count() > 1 && (first.entry_dependent || entry.read_watched());
            let agree = includes.dirs == first.dirs
                && first
                    .reads
                    .iter()
                    .all(|(n, v)| pp::memo::same(&entry.peek(n), v));
            if agree && !per_target {
                continue;
            }
            let ((pre, key), macros) = self.preprocess_from(i, text, entry, &includes);
            let dependent = macros.read_watched();
            // The same compiled text in every compile: the same facts. Only skipped directive
            // lines differ (an include guard another header defined first, HeCBench's
            // diamond): not a meaning of its own.
            if !per_target && !dependent && !first.dependent && hash_of(&pre.text) == first.text {
                continue;
            }
            let per = self.per_compile(i, text, chain, &includes, (key, Some(pre)), dependent);
            let keys: Vec<u64> = per.iter().map(|p| p.0).collect();
            if keys == first.keys {
                continue;
            }
            let unit = self.paths[u].to_string();
            match groups.iter_mut().find(|g| g.0 == keys) {
                Some(g) => g.1.push(unit),
                None => groups.push((keys, vec![unit], self.meanings(text, per, budget)?)),
            }
        }
        let mut out = Vec::new();
        for (_, units, seen) in groups {
            // The same text in every compile: one variant for every target.
            let every = seen.len() == 1;
            for (_, targets, facts) in seen {
                out.push(crate::syntax::TargetVariant {
                    targets: if every { Vec::new() } else { targets },
                    units: units.clone(),
                    facts: Arc::new(facts.unwrap_or_default()),
                });
            }
        }
        Ok(out)
    }
}

//! `#include`: resolving the target, `#pragma once`, remembered header readings, and headers
//! spliced into a function body.

use std::sync::Arc;

use super::directives::Directive;
use super::expand::{self, Expander, Input, PTok};
use super::lex;
use super::memo;
use super::run::Pp;

/// How deep includes nest before the rest is not read (clang stops at 200; real code at ~10).
const MAX_INCLUDE_DEPTH: usize = 40;

impl Pp<'_> {
    pub(super) fn include(&mut self, d: &Directive, text: &str, path: &str, line: u32) {
        let Some((spelled, angled)) = self.include_target(d, text, path, line) else {
            return;
        };
        let Some(src) = self.includes.resolve(path, &spelled, angled) else {
            if is_sycl_header(&spelled) {
                self.sycl_trait_defaults();
            }
            return;
        };
        let import = text[d.range.start..d.args.start].contains("import");
        let once = self.once.contains(&src.path);
        for f in self.macros.frames() {
            f.once_read(&src.path, once);
        }
        if once || self.depth >= MAX_INCLUDE_DEPTH {
            return;
        }
        if import {
            self.once_add(src.path.clone());
        }
        self.dep(&src.path);
        let Some((memo, key)) = self.includes.memo(&src) else {
            self.depth += 1;
            self.headers(&src, None);
            self.depth -= 1;
            return;
        };
        let agrees = |r: &memo::Recording| {
            r.reads
                .iter()
                .all(|(n, v)| memo::same(&self.macros.peek(n), v))
                && r.once_reads
                    .iter()
                    .all(|(p, state)| self.once.contains(p) == *state)
        };
        if let Some(r) = memo.find(key, agrees) {
            self.macros.replay(&r);
            for p in &r.once_added {
                self.once_add(p.clone());
            }
            for p in &r.deps {
                self.dep(p);
            }
            return;
        }
        self.macros.begin_recording();
        self.depth += 1;
        self.headers(&src, None);
        self.depth -= 1;
        memo.keep(key, self.macros.end_recording());
    }

    /// What `<sycl/sycl.hpp>` does to the trait macros (its `device_aspect_macros.hpp`):
    /// every `__SYCL_ALL_DEVICES_HAVE_<a>__` and `__SYCL_ANY_DEVICE_HAS_<a>__` the driver left
    /// undefined is 0 from here on (`Macros` answers for them once this marker is defined, so
    /// only the files that read one depend on the driver's set).
    fn sycl_trait_defaults(&mut self) {
        let origin = super::macros::Origin::Predefined(Arc::from("the SYCL headers"));
        if let Some((n, m)) = super::macros::parse_define(super::macros::SYCL_HEADERS, origin) {
            self.macros.define(n, m);
        }
    }

    pub(super) fn once_add(&mut self, path: Arc<str>) {
        for f in self.macros.frames() {
            f.once_add(&path);
        }
        self.once.insert(path);
    }

    fn dep(&mut self, path: &Arc<str>) {
        for f in self.macros.frames() {
            f.dep(path);
        }
        if !self.deps.contains(path) {
            self.deps.push(path.clone());
        }
    }

    /// The compiled text of the header an `#include` inside a function body names, with the
    /// include as written: the compiler compiles it there, as statements of the function.
    /// `None` when it is not a workspace file (it is then an include like any other).
    pub(super) fn splice(
        &mut self,
        d: &Directive,
        text: &str,
        path: &str,
        line: u32,
    ) -> Option<(String, String)> {
        let (spelled, angled) = self.include_target(d, text, path, line)?;
        let src = self.includes.resolve(path, &spelled, angled)?;
        let written = if angled {
            format!("<{spelled}>")
        } else {
            format!("\"{spelled}\"")
        };
        if self.once.contains(&src.path) || self.depth >= MAX_INCLUDE_DEPTH {
            return Some((written, String::new()));
        }
        // The header's own errors and dependencies are the file's: keep them across `main`.
        let errors = std::mem::take(&mut self.errors);
        let mut deps = std::mem::take(&mut self.deps);
        if !deps.contains(&src.path) {
            deps.push(src.path.clone());
        }
        if !self.spliced.contains(&src.path) {
            self.spliced.push(src.path.clone());
        }
        self.depth += 1;
        let inner = self.main(&src.text, &src.path, &src.directives);
        self.depth -= 1;
        self.errors = errors;
        for d in inner.deps {
            if !deps.contains(&d) {
                deps.push(d);
            }
        }
        self.deps = deps;
        Some((written, inner.text))
    }

    /// `"name"` or `<name>` of an include, expanding macros for a computed one.
    fn include_target(
        &self,
        d: &Directive,
        text: &str,
        path: &str,
        line: u32,
    ) -> Option<(String, bool)> {
        let raw = text[d.args.start..d.args.end].trim();
        let spelled = |s: &str| -> Option<(String, bool)> {
            if let Some(r) = s.strip_prefix('"') {
                return Some((r[..r.find('"')?].to_string(), false));
            }
            if let Some(r) = s.strip_prefix('<') {
                return Some((r[..r.find('>')?].to_string(), true));
            }
            None
        };
        spelled(raw).or_else(|| {
            let toks: Vec<PTok> = lex::lex(text, d.args.start, d.args.end)
                .iter()
                .map(|t| PTok::of(t, text))
                .collect();
            let mut input = Input::new(Default::default(), &toks);
            let expanded = Expander::new(&self.macros, false, line, path).run(&mut input, true);
            let mut s = String::new();
            expand::render(&expanded, &mut s);
            spelled(&s)
        })
    }
}

/// The SYCL headers that bring `device_aspect_macros.hpp` with them.
fn is_sycl_header(spelled: &str) -> bool {
    matches!(
        spelled,
        "sycl/sycl.hpp" | "CL/sycl.hpp" | "sycl.hpp" | "sycl/device_aspect_macros.hpp"
    )
}

//! The entry points and the preprocessor's state: directives applied in order (conditionals,
//! `#define`, `#undef`, `#pragma once`), `#if` conditions evaluated, headers read for macros.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use crate::text::TextRange;

use super::directives::{directives, fingerprint, DirKind, Directive, Includes, Source};
use super::expand::{Expander, Input, PTok};
use super::expr;
use super::lex::{self, Kind};
use super::macros::{parse_define, Macros, Origin};
use super::output::{LineCounter, Preprocessed};

/// Preprocesses `text` (the file `path`) starting from `macros`, which it leaves as they are at
/// the end of the file.
pub fn preprocess(
    text: &str,
    path: &str,
    macros: &mut Macros,
    includes: &dyn Includes,
) -> Preprocessed {
    let dirs = directives(text);
    let mut pp = Pp::new(macros, includes);
    let mut out = pp.main(text, path, &dirs);
    out.directives = fingerprint(text, &dirs);
    out.spliced = std::mem::take(&mut pp.spliced);
    *macros = pp.macros;
    out
}

/// The macros in effect where the directive starting at `offset` of `src` stands: what a
/// header included there sees.
pub fn macros_at(src: &Source, offset: usize, macros: &mut Macros, includes: &dyn Includes) {
    macros_before(src, offset, macros, includes, None);
}

/// The same, for compiling `header` where `src` includes it: reading `src` up to there does not
/// read `header` (through an earlier include of another header), or its guard would leave it
/// empty; its contents count where it is compiled.
pub fn macros_before(
    src: &Source,
    offset: usize,
    macros: &mut Macros,
    includes: &dyn Includes,
    header: Option<&str>,
) {
    let mut pp = Pp::new(macros, includes);
    pp.once.insert(src.path.clone());
    if let Some(h) = header {
        pp.once.insert(Arc::from(h));
    }
    pp.headers(src, Some(offset));
    *macros = pp.macros;
}

pub(super) struct Frame {
    /// Code here is compiled.
    active: bool,
    /// Some group of this `#if` was taken already.
    taken: bool,
    /// The enclosing group is active.
    parent: bool,
    pub(super) start: usize,
}

pub(super) struct Pp<'a> {
    pub(super) macros: Macros,
    pub(super) includes: &'a dyn Includes,
    /// Headers with `#pragma once` (or `#import`ed) already read.
    pub(super) once: FxHashSet<Arc<str>>,
    pub(super) deps: Vec<Arc<str>>,
    pub(super) spliced: Vec<Arc<str>>,
    pub(super) errors: Vec<(TextRange, String)>,
    pub(super) depth: usize,
}

impl<'a> Pp<'a> {
    fn new(macros: &Macros, includes: &'a dyn Includes) -> Self {
        Pp {
            macros: macros.clone(),
            includes,
            once: FxHashSet::default(),
            deps: Vec::new(),
            spliced: Vec::new(),
            errors: Vec::new(),
            depth: 0,
        }
    }

    pub(super) fn active(stack: &[Frame]) -> bool {
        stack.last().is_none_or(|f| f.active)
    }

    /// Applies one directive; `report` keeps the errors (those of the file itself).
    pub(super) fn directive(
        &mut self,
        d: &Directive,
        text: &str,
        path: &str,
        line: u32,
        stack: &mut Vec<Frame>,
        report: bool,
    ) {
        let active = Self::active(stack);
        let args = d.args;
        match d.kind {
            DirKind::If | DirKind::Ifdef | DirKind::Ifndef => {
                let v = active && self.condition(d, text, path, line, report);
                stack.push(Frame {
                    active: v,
                    taken: v,
                    parent: active,
                    start: d.range.start,
                });
            }
            DirKind::Elif | DirKind::Elifdef | DirKind::Elifndef => {
                let Some(f) = stack.last() else {
                    self.error(report, d.range, "#elif without #if");
                    return;
                };
                let (parent, taken) = (f.parent, f.taken);
                let v = parent && !taken && self.condition(d, text, path, line, report);
                let f = stack.last_mut().expect("checked above");
                f.active = v;
                f.taken |= v;
            }
            DirKind::Else => match stack.last_mut() {
                Some(f) => {
                    f.active = f.parent && !f.taken;
                    f.taken = true;
                }
                None => self.error(report, d.range, "#else without #if"),
            },
            DirKind::Endif => {
                if stack.pop().is_none() {
                    self.error(report, d.range, "#endif without #if");
                }
            }
            _ if !active => {}
            DirKind::Define => {
                let body = &text[args.start..args.end];
                match parse_define(
                    body,
                    Origin::File {
                        path: Arc::from(path),
                        line,
                    },
                ) {
                    Some((name, m)) => self.macros.define(name, m),
                    None => self.error(report, d.range, "macro name must be an identifier"),
                }
            }
            DirKind::Undef => {
                let toks = lex::lex(text, args.start, args.end);
                if let Some(t) = toks.first().filter(|t| t.kind == Kind::Ident) {
                    self.macros.undef(t.text(text));
                }
            }
            DirKind::Include => self.include(d, text, path, line),
            DirKind::Pragma => {
                let toks = lex::lex(text, args.start, args.end);
                if toks.first().is_some_and(|t| t.text(text) == "once") {
                    self.once_add(Arc::from(path));
                }
            }
            DirKind::Other => {}
        }
    }

    fn error(&mut self, report: bool, range: TextRange, message: &str) {
        if report {
            self.errors.push((range, message.to_string()));
        }
    }

    fn condition(
        &mut self,
        d: &Directive,
        text: &str,
        path: &str,
        line: u32,
        report: bool,
    ) -> bool {
        let toks = lex::lex(text, d.args.start, d.args.end);
        let name = || {
            toks.first()
                .filter(|t| t.kind == Kind::Ident)
                .map(|t| t.text(text))
        };
        match d.kind {
            DirKind::Ifdef | DirKind::Elifdef | DirKind::Ifndef | DirKind::Elifndef => {
                let Some(n) = name() else {
                    self.error(report, d.range, "macro name missing");
                    return false;
                };
                let defined = self.macros.is_defined(n);
                defined == matches!(d.kind, DirKind::Ifdef | DirKind::Elifdef)
            }
            _ => {
                let toks: Vec<PTok> = toks.iter().map(|t| PTok::of(t, text)).collect();
                let toks = self.has_checks(&toks, path);
                let mut input = Input::new(Default::default(), &toks);
                let mut ex = Expander::new(&self.macros, true, line, path);
                let expanded = self.has_checks(&ex.run(&mut input, true), path);
                let macros = &self.macros;
                match expr::evaluate(&expanded, &|n| macros.is_defined(n)) {
                    Ok(v) => v,
                    Err(e) => {
                        self.error(report, d.range, &e);
                        false
                    }
                }
            }
        }
    }

    /// `__has_include(...)` and the other `__has_*` queries: a quoted include is there if the
    /// workspace has it, a system one is assumed there (they are not read); builtins, features
    /// and attributes are unknown, so not there. Answered before expansion (the operand is
    /// not expanded) and again after it, for the queries a macro's replacement holds
    /// (`#define HAVE_SYCL __has_include(<sycl/sycl.hpp>)`), as clang and GCC do.
    fn has_checks(&self, toks: &[PTok], path: &str) -> Vec<PTok> {
        let mut out = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            let query = t.kind == Kind::Ident
                && t.text.starts_with("__has_")
                && toks.get(i + 1).is_some_and(|n| n.is("("));
            if !query {
                out.push(t.clone());
                i += 1;
                continue;
            }
            let mut depth = 0;
            let mut close = i + 1;
            while close < toks.len() {
                if toks[close].is("(") {
                    depth += 1;
                } else if toks[close].is(")") {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                close += 1;
            }
            let inner: String = toks[(i + 2).min(close)..close.min(toks.len())]
                .iter()
                .map(|t| &*t.text)
                .collect();
            let v = match &*t.text {
                "__has_include" | "__has_include_next" => {
                    let inner = inner.trim();
                    if let Some(q) = inner.strip_prefix('"') {
                        let spelled = q.trim_end_matches('"');
                        self.includes.resolve(path, spelled, false).is_some()
                    } else {
                        true
                    }
                }
                _ => false,
            };
            out.push(PTok::new(Kind::Number, if v { "1" } else { "0" }, t.space));
            i = close + 1;
        }
        out
    }

    /// Reads the directives of a header (or of a file up to `stop`) for their macros.
    pub(super) fn headers(&mut self, src: &Source, stop: Option<usize>) {
        let mut stack = Vec::new();
        let mut lines = LineCounter::default();
        for d in &src.directives {
            if stop.is_some_and(|s| d.range.start >= s) {
                break;
            }
            let line = lines.at(&src.text, d.range.start);
            self.directive(d, &src.text, &src.path, line, &mut stack, false);
        }
    }
}

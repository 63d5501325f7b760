//! What preprocessing a file produces (`Preprocessed`, its `SourceMap`) and how the walk over
//! its directives builds it: active code copied with its macros expanded, the rest blanked.

use std::sync::Arc;

use crate::text::TextRange;

use super::directives::{find, skip_literal, DirKind, Directive};
use super::expand::{self, Expander, Input, PTok};
use super::lex::{self, Kind, Tok};
use super::run::{Frame, Pp};
use super::scope;

/// Maps ranges of the preprocessed text back to the file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// Expansions in order: (range in the output, range of the use in the file).
    spans: Vec<(TextRange, TextRange)>,
}

impl SourceMap {
    pub fn is_identity(&self) -> bool {
        self.spans.is_empty()
    }

    fn start(&self, at: usize) -> usize {
        let k = self.spans.partition_point(|(o, _)| o.start <= at);
        match k.checked_sub(1).map(|k| self.spans[k]) {
            None => at,
            Some((o, s)) if at < o.end => s.start,
            Some((o, s)) => at - o.end + s.end,
        }
    }

    fn end(&self, at: usize) -> usize {
        let k = self.spans.partition_point(|(o, _)| o.start < at);
        match k.checked_sub(1).map(|k| self.spans[k]) {
            None => at,
            Some((o, s)) if at <= o.end => s.end,
            Some((o, s)) => at - o.end + s.end,
        }
    }

    /// Whether `new`, the map of an output edited in `[from, old_to)` (now `[from, new_to)`),
    /// is this one with the expansions after the edit moved by its length, in the output and in
    /// the file alike, and none touching it: every position outside the edit then moves by the
    /// edit's length or not at all.
    pub fn same_outside(&self, new: &SourceMap, from: usize, old_to: usize, new_to: usize) -> bool {
        let delta = new_to as i64 - old_to as i64;
        let before = |m: &SourceMap| m.spans.partition_point(|(o, _)| o.end <= from);
        let after = |m: &SourceMap, to: usize| m.spans.partition_point(|(o, _)| o.start < to);
        let (b_old, b_new) = (before(self), before(new));
        let (a_old, a_new) = (after(self, old_to), after(new, new_to));
        let moved = |r: TextRange| {
            TextRange::new(
                (r.start as i64 + delta) as usize,
                (r.end as i64 + delta) as usize,
            )
        };
        b_old == a_old
            && b_new == a_new
            && self.spans[..b_old] == new.spans[..b_new]
            && self.spans.len() - a_old == new.spans.len() - a_new
            && self.spans[a_old..]
                .iter()
                .zip(&new.spans[a_new..])
                .all(|(&(o, s), &(no, ns))| moved(o) == no && moved(s) == ns)
    }

    /// The file range an output range comes from.
    pub fn to_source(&self, r: TextRange) -> TextRange {
        if self.spans.is_empty() {
            return r;
        }
        let start = self.start(r.start);
        TextRange::new(start, self.end(r.end).max(start))
    }
}

/// A macro used in active code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    /// The use in the file: the name, and its arguments for a function-like macro.
    pub range: TextRange,
    pub name: Arc<str>,
}

#[derive(Clone, Debug, Default)]
pub struct Preprocessed {
    /// What the parser reads.
    pub text: String,
    pub map: SourceMap,
    /// Skipped groups, in file offsets, directive lines excluded.
    pub inactive: Vec<TextRange>,
    pub expansions: Vec<Expansion>,
    /// What a compiler would report (`#if` it cannot evaluate, an unterminated `#if`).
    pub errors: Vec<(TextRange, String)>,
    /// Workspace headers whose directives were read.
    pub deps: Vec<Arc<str>>,
    /// Those of them compiled inside a function: their whole text counts, not only their
    /// directives.
    pub spliced: Vec<Arc<str>>,
    /// [`directive_fingerprint`](super::directive_fingerprint) of the text.
    pub directives: u64,
}

impl Pp<'_> {
    pub(super) fn main(&mut self, text: &str, path: &str, dirs: &[Directive]) -> Preprocessed {
        let mut out = Output {
            text: String::with_capacity(text.len()),
            spans: Vec::new(),
            expansions: Vec::new(),
            budget: text.len() * 4 + (1 << 20),
        };
        let mut inactive = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        let mut lines = LineCounter::default();
        let mut pos = 0;
        let mut inactive_from: Option<usize> = None;
        let mut scope = scope::Scope::default();
        for d in dirs {
            let start = d.range.start;
            if Self::active(&stack) {
                self.code(text, path, pos, start, &mut out, &mut lines);
            } else {
                blank(&mut out.text, &text[pos..start]);
            }
            let line = lines.at(text, start);
            if d.kind == DirKind::Include && Self::active(&stack) {
                // Read lazily: most files include only before their first function.
                scope.feed(&out.text);
                if scope.in_function() {
                    if let Some(spliced) = self.splice(d, text, path, line) {
                        let o = out.text.len();
                        out.text.push_str(&spliced.1);
                        out.spans.push((TextRange::new(o, out.text.len()), d.range));
                        out.expansions.push(Expansion {
                            range: d.range,
                            name: Arc::from(format!("#include {}", spliced.0)),
                        });
                        scope.feed(&out.text);
                        pos = d.range.end;
                        continue;
                    }
                }
            }
            self.directive(d, text, path, line, &mut stack, true);
            let now = Self::active(&stack);
            // The directive line itself: an include stays for the parser, the rest is spent.
            if now && d.kind == DirKind::Include {
                out.text.push_str(&text[start..d.range.end]);
            } else {
                blank(&mut out.text, &text[start..d.range.end]);
            }
            match (inactive_from, now) {
                (None, false) => inactive_from = Some(next_line(text, d.range.end)),
                (Some(from), true) => {
                    inactive.push(TextRange::new(from, start.max(from)));
                    inactive_from = None;
                }
                (Some(from), false) if d.range.start > from => {
                    // A directive inside a skipped group: the group goes on past it.
                }
                _ => {}
            }
            pos = d.range.end;
        }
        if Self::active(&stack) {
            self.code(text, path, pos, text.len(), &mut out, &mut lines);
        } else {
            blank(&mut out.text, &text[pos..]);
        }
        if let Some(from) = inactive_from {
            inactive.push(TextRange::new(from, text.len()));
        }
        for f in &stack {
            self.errors.push((
                TextRange::new(f.start, f.start + 1),
                "unterminated conditional directive".into(),
            ));
        }
        // Skipped groups inside skipped groups are one region.
        inactive.dedup_by(|b, a| {
            if b.start <= a.end {
                a.end = a.end.max(b.end);
                true
            } else {
                false
            }
        });
        Preprocessed {
            text: out.text,
            map: SourceMap { spans: out.spans },
            inactive,
            expansions: out.expansions,
            errors: std::mem::take(&mut self.errors),
            deps: std::mem::take(&mut self.deps),
            spliced: Vec::new(),
            directives: 0,
        }
    }

    /// Copies the active code `text[from..to]`, expanding the macros used in it.
    fn code(
        &mut self,
        text: &str,
        path: &str,
        from: usize,
        to: usize,
        out: &mut Output,
        lines: &mut LineCounter,
    ) {
        let Some(first) = self.first_use(text, from, to) else {
            out.text.push_str(&text[from..to]);
            return;
        };
        let toks: Vec<Tok> = lex::lex(text, first, to);
        let ptoks: Vec<PTok> = toks.iter().map(|t| PTok::of(t, text)).collect();
        let mut copied = from;
        let mut k = 0;
        while k < toks.len() {
            let t = &toks[k];
            let is_macro = t.kind == Kind::Ident
                && out.text.len() < out.budget
                && self.macros.is_defined(t.text(text));
            if !is_macro {
                k += 1;
                continue;
            }
            let line = lines.at(text, t.start);
            let mut input = Input::new([ptoks[k].clone()].into(), &ptoks[k + 1..]);
            let mut ex = Expander::new(&self.macros, false, line, path);
            let expanded = ex.run(&mut input, false);
            let used = 1 + input.taken;
            let unchanged = used == 1
                && expanded.len() == 1
                && expanded[0].kind == Kind::Ident
                && *expanded[0].text == *t.text(text);
            if unchanged || ex.overflow {
                if ex.overflow {
                    self.errors.push((
                        TextRange::new(t.start, t.end),
                        format!("the expansion of '{}' is too large to read", t.text(text)),
                    ));
                }
                k += 1;
                continue;
            }
            let end = toks[k + used - 1].end;
            out.text.push_str(&text[copied..t.start]);
            let o = out.text.len();
            expand::render(&expanded, &mut out.text);
            out.spans.push((
                TextRange::new(o, out.text.len()),
                TextRange::new(t.start, end),
            ));
            out.expansions.push(Expansion {
                range: TextRange::new(t.start, end),
                name: Arc::from(t.text(text)),
            });
            copied = end;
            k += used;
        }
        out.text.push_str(&text[copied..to]);
    }

    /// The first identifier in `text[from..to]` that names a macro, skipping comments and
    /// literals: most code uses none, and is copied as it is.
    fn first_use(&self, text: &str, from: usize, to: usize) -> Option<usize> {
        let b = text.as_bytes();
        let mut i = from;
        while i < to {
            let c = b[i];
            if lex::is_ident_start(c) {
                let e = lex::ident_end(b, i, to);
                if matches!(b.get(e), Some(b'"' | b'\'')) {
                    // A literal's prefix (`u8"..."`, `R"(...)"`): the literal follows.
                    i = e;
                    continue;
                }
                if self.macros.is_defined(&text[i..e]) {
                    return Some(i);
                }
                i = e;
            } else if c.is_ascii_digit() {
                while i < to && (lex::is_ident(b[i]) || b[i] == b'.' || b[i] == b'\'') {
                    i += 1;
                }
            } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
                while i < to && b[i] != b'\n' {
                    i += 1;
                }
            } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
                i = find(&b[..to], i + 2, b"*/").map_or(to, |e| e + 2);
            } else if c == b'"' || c == b'\'' {
                let raw = c == b'"' && i > 0 && b[i - 1] == b'R';
                i = skip_literal(&b[..to], i, raw);
            } else {
                i += 1;
            }
        }
        None
    }
}

struct Output {
    text: String,
    spans: Vec<(TextRange, TextRange)>,
    expansions: Vec<Expansion>,
    /// Past this size no more macros are expanded: a guard against macro bombs.
    budget: usize,
}

/// The start of the line after the one ending at `end`.
fn next_line(text: &str, end: usize) -> usize {
    match text.as_bytes().get(end) {
        Some(b'\r') if text.as_bytes().get(end + 1) == Some(&b'\n') => end + 2,
        Some(b'\n' | b'\r') => end + 1,
        _ => end,
    }
}

/// Spaces for every byte but line breaks: offsets and lines stay.
fn blank(out: &mut String, s: &str) {
    out.extend(s.bytes().map(|b| {
        if b == b'\n' || b == b'\r' {
            b as char
        } else {
            ' '
        }
    }));
}

/// 1-based line numbers of increasing offsets, counted once.
#[derive(Default)]
pub(super) struct LineCounter {
    pos: usize,
    line: u32,
}

impl LineCounter {
    pub(super) fn at(&mut self, text: &str, offset: usize) -> u32 {
        if offset < self.pos {
            *self = LineCounter::default();
        }
        let end = offset.min(text.len());
        self.line += text.as_bytes()[self.pos.min(end)..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u32;
        self.pos = end;
        self.line + 1
    }
}

//! What preprocessing a file produces (`Preprocessed`, its `SourceMap`) and how the walk over
//! its directives builds it: active code copied with its macros expanded, the rest blanked.

use std::sync::Arc;

use crate::text::TextRange;

use super::directives::{find, skip_literal, DirKind, Directive};
use super::expand::{self, Expander, Input, PTok, NOWHERE};
use super::lex::{self, Kind, Tok};
use super::run::{Frame, Pp};
use super::scope;

/// Maps ranges of the preprocessed text back to the file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// The expansions' pieces in order. Each expansion ends with a piece mapped to its use
    /// (empty if need be), so text after it moves by that piece's ends.
    spans: Vec<Piece>,
}

/// A piece of an expansion: text of the macro (mapped to the whole use), or text of an
/// argument, copied as written (`own`: mapped byte for byte to `src`, its spelling).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece {
    out: TextRange,
    src: TextRange,
    own: bool,
}

impl SourceMap {
    pub fn is_identity(&self) -> bool {
        self.spans.is_empty()
    }

    /// Where the output offset `at` is in the file, as a range's start (`end`: as its end),
    /// and the use it maps to when it is text of a macro's body.
    fn place(&self, at: usize, end: bool) -> (usize, Option<TextRange>) {
        let k = self
            .spans
            .partition_point(|p| p.out.start < at || (!end && p.out.start == at));
        let Some(p) = k.checked_sub(1).map(|k| self.spans[k]) else {
            return (at, None);
        };
        let inside = at < p.out.end || (end && at == p.out.end);
        match (inside, p.own) {
            (true, true) => (p.src.start + (at - p.out.start), None),
            (true, false) => (if end { p.src.end } else { p.src.start }, Some(p.src)),
            (false, _) => (at - p.out.end + p.src.end, None),
        }
    }

    /// Whether `new`, the map of an output edited in `[from, old_to)` (now `[from, new_to)`),
    /// is this one with the expansions after the edit moved by its length, in the output and in
    /// the file alike, and none touching it: every position outside the edit then moves by the
    /// edit's length or not at all.
    pub fn same_outside(&self, new: &SourceMap, from: usize, old_to: usize, new_to: usize) -> bool {
        let delta = new_to as i64 - old_to as i64;
        let before = |m: &SourceMap| m.spans.partition_point(|p| p.out.end <= from);
        let after = |m: &SourceMap, to: usize| m.spans.partition_point(|p| p.out.start < to);
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
                .all(|(p, n)| moved(p.out) == n.out && moved(p.src) == n.src && p.own == n.own)
    }

    /// The file range an output range comes from. A range from an argument's text into the
    /// macro's (or back) is the whole use, as clang makes a file range of it.
    pub fn to_source(&self, r: TextRange) -> TextRange {
        if self.spans.is_empty() {
            return r;
        }
        let (mut start, in_start) = self.place(r.start, false);
        let (mut end, in_end) = self.place(r.end, true);
        if let Some(u) = in_end.filter(|u| in_start.is_none() && u.start <= start && start < u.end)
        {
            start = u.start;
        }
        if let Some(u) = in_start.filter(|u| in_end.is_none() && u.start < end && end <= u.end) {
            end = u.end;
        }
        TextRange::new(start, end.max(start))
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
        // A function-like macro use whose arguments go on past a directive.
        let mut pending: Option<Pending> = None;
        for d in dirs {
            let start = d.range.start;
            if Self::active(&stack) {
                pending =
                    self.code_or_arguments(text, path, pos, start, pending, &mut out, &mut lines);
            } else if let Some(p) = pending.as_mut() {
                p.parts.push((TextRange::new(pos, start), false));
            } else {
                blank(&mut out.text, &text[pos..start]);
            }
            let line = lines.at(text, start);
            if let Some(p) = pending.as_mut() {
                // A directive inside a macro's arguments: applied where it stands, as GCC and
                // clang do (an extension), and written as part of the use's expansion.
                self.directive(d, text, path, line, &mut stack, true);
                p.parts.push((d.range, false));
                track_inactive(
                    &mut inactive,
                    &mut inactive_from,
                    text,
                    d,
                    Self::active(&stack),
                );
                pos = d.range.end;
                continue;
            }
            if d.kind == DirKind::Include && Self::active(&stack) {
                // Read lazily: most files include only before their first function.
                scope.feed(&out.text);
                if scope.in_function() {
                    if let Some(spliced) = self.splice(d, text, path, line) {
                        let o = out.text.len();
                        out.text.push_str(&spliced.1);
                        out.spans.push(Piece {
                            out: TextRange::new(o, out.text.len()),
                            src: d.range,
                            own: false,
                        });
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
            track_inactive(&mut inactive, &mut inactive_from, text, d, now);
            pos = d.range.end;
        }
        if Self::active(&stack) {
            pending =
                self.code_or_arguments(text, path, pos, text.len(), pending, &mut out, &mut lines);
        } else if let Some(p) = pending.as_mut() {
            p.parts.push((TextRange::new(pos, text.len()), false));
        } else {
            blank(&mut out.text, &text[pos..]);
        }
        if let Some(p) = pending {
            // Arguments never closed: no use, as the compiler would say; the text stays.
            for (r, code) in p.parts {
                if code {
                    out.text.push_str(&text[r.start..r.end]);
                } else {
                    blank(&mut out.text, &text[r.start..r.end]);
                }
            }
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

    /// The active code `text[from..to]`, which continues the arguments of `pending` if there
    /// is one: they take tokens until their parenthesis closes, then the use is expanded and
    /// the rest of the code copied. What is left pending is returned.
    #[allow(clippy::too_many_arguments)]
    fn code_or_arguments(
        &mut self,
        text: &str,
        path: &str,
        from: usize,
        to: usize,
        pending: Option<Pending>,
        out: &mut Output,
        lines: &mut LineCounter,
    ) -> Option<Pending> {
        let Some(mut p) = pending else {
            return self.code(text, path, from, to, out, lines);
        };
        p.parts.push((TextRange::new(from, to), true));
        for t in lex::lex(text, from, to) {
            p.push(&t, text);
        }
        if !p.closed {
            return Some(p);
        }
        // The expansion may take more of the file than the use (a deferred macro's arguments
        // written after it), even past the next directive.
        let Some(end) = self.expand_use(&p, text, path, out, to < text.len()) else {
            return Some(p);
        };
        self.code(text, path, end.max(from), to, out, lines)
    }

    /// Expands the use `p` (arguments closed), written where it stands; returns where it ends
    /// in the file. With `more` (text follows the next directive), a use whose expansion wants
    /// arguments past the tokens read so far is not expanded: None.
    fn expand_use(
        &mut self,
        p: &Pending,
        text: &str,
        path: &str,
        out: &mut Output,
        more: bool,
    ) -> Option<usize> {
        let mut input = Input::new([p.toks[0].clone()].into(), &p.toks[1..]);
        let mut ex = Expander::new(&self.macros, false, p.line, path);
        let expanded = ex.run(&mut input, false);
        if ex.starved && more {
            return None;
        }
        let end = p.ends[input.taken];
        out.expansion(&expanded, text, TextRange::new(p.start, end));
        out.expansions.push(Expansion {
            range: TextRange::new(p.start, end),
            name: Arc::from(&*p.toks[0].text),
        });
        Some(end)
    }

    /// Copies the active code `text[from..to]`, expanding the macros used in it; a
    /// function-like macro whose arguments do not close before `to` is returned pending.
    fn code(
        &mut self,
        text: &str,
        path: &str,
        from: usize,
        to: usize,
        out: &mut Output,
        lines: &mut LineCounter,
    ) -> Option<Pending> {
        let Some(first) = self.first_use(text, from, to) else {
            out.text.push_str(&text[from..to]);
            return None;
        };
        let toks: Vec<Tok> = lex::lex(text, first, to);
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
            let function_like = self
                .macros
                .get(t.text(text))
                .is_some_and(|m| m.params.is_some());
            if function_like && toks.get(k + 1).is_some_and(|n| n.text(text) == "(") {
                let mut p = Pending::new(t.start, line, to);
                for t in &toks[k..] {
                    p.push(t, text);
                    if p.closed {
                        break;
                    }
                }
                if !p.closed {
                    // The arguments go on past the next directive.
                    out.text.push_str(&text[copied..t.start]);
                    return Some(p);
                }
            }
            let mut input = Input::lexed([PTok::of(t, text)].into(), &toks[k + 1..], text);
            let mut ex = Expander::new(&self.macros, false, line, path);
            let expanded = ex.run(&mut input, false);
            if ex.starved && to < text.len() {
                // A macro out of the expansion takes arguments that go on past the next
                // directive (`DEFER(M)(x)` leaves `M`, whose arguments follow the use).
                let mut p = Pending::new(t.start, line, to);
                for t in &toks[k..] {
                    p.push(t, text);
                }
                out.text.push_str(&text[copied..t.start]);
                return Some(p);
            }
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
            out.expansion(&expanded, text, TextRange::new(t.start, end));
            out.expansions.push(Expansion {
                range: TextRange::new(t.start, end),
                name: Arc::from(t.text(text)),
            });
            copied = end;
            k += used;
        }
        out.text.push_str(&text[copied..to]);
        None
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

/// A function-like macro use whose arguments, or the arguments of a macro its expansion
/// leaves, cross directive lines: its tokens so far.
struct Pending {
    /// The macro's name in the file.
    start: usize,
    line: u32,
    /// The name, `(`, and the tokens of active code read since.
    toks: Vec<PTok>,
    /// Where each of `toks` ends in the file.
    ends: Vec<usize>,
    /// Open parentheses after the name.
    depth: usize,
    /// The use's own parenthesis has closed.
    closed: bool,
    /// The file since the name: active code, or directives and skipped groups (blanked if the
    /// use never closes).
    parts: Vec<(TextRange, bool)>,
}

impl Pending {
    fn new(start: usize, line: u32, to: usize) -> Self {
        Pending {
            start,
            line,
            toks: Vec::new(),
            ends: Vec::new(),
            depth: 0,
            closed: false,
            parts: vec![(TextRange::new(start, to), true)],
        }
    }

    fn push(&mut self, t: &Tok, text: &str) {
        match t.text(text) {
            "(" if t.kind == Kind::Punct => self.depth += 1,
            ")" if t.kind == Kind::Punct => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        self.toks.push(PTok::of(t, text));
        self.ends.push(t.end);
        self.closed |= self.depth == 0 && self.toks.len() > 2;
    }
}

/// Follows the skipped groups over directive `d`, after which code is active or not (`now`).
fn track_inactive(
    inactive: &mut Vec<TextRange>,
    inactive_from: &mut Option<usize>,
    text: &str,
    d: &Directive,
    now: bool,
) {
    match (*inactive_from, now) {
        (None, false) => *inactive_from = Some(next_line(text, d.range.end)),
        (Some(from), true) => {
            inactive.push(TextRange::new(from, d.range.start.max(from)));
            *inactive_from = None;
        }
        (Some(from), false) if d.range.start > from => {
            // A directive inside a skipped group: the group goes on past it.
        }
        _ => {}
    }
}

struct Output {
    text: String,
    spans: Vec<Piece>,
    expansions: Vec<Expansion>,
    /// Past this size no more macros are expanded: a guard against macro bombs.
    budget: usize,
}

impl Output {
    /// Writes the expansion `toks` of the use `at` in `file`, and its pieces. A run of tokens
    /// out of an argument that follow each other in the file, whitespace apart, is copied as
    /// written and mapped to itself: what is written in an argument is found at its own place
    /// (a kernel's lambda in `TWICE(a, b)`), and keeps its spelling (`[[` of an attribute).
    /// The rest is rendered as [`expand::render`] does and mapped to the use.
    fn expansion(&mut self, toks: &[PTok], file: &str, at: TextRange) {
        let piece = |from: usize, to: usize, own: Option<usize>| match own {
            Some(s) => Piece {
                out: TextRange::new(from, to),
                src: TextRange::new(s, s + (to - from)),
                own: true,
            },
            None => Piece {
                out: TextRange::new(from, to),
                src: at,
                own: false,
            },
        };
        // The piece being written: where it starts in the output, and in the file if own.
        let (mut from, mut own) = (self.text.len(), None::<usize>);
        let mut prev: Option<&PTok> = None;
        for t in toks {
            let here = (t.at != NOWHERE).then_some(t.at as usize);
            let follows = match (prev, here) {
                (Some(p), Some(h)) if own.is_some() => {
                    let e = p.at as usize + p.text.len();
                    e <= h && file.as_bytes()[e..h].iter().all(u8::is_ascii_whitespace)
                }
                _ => false,
            };
            if follows {
                let e = prev.map_or(0, |p| p.at as usize + p.text.len());
                self.text.push_str(&file[e..t.at as usize]);
            } else {
                let space = prev.is_some_and(|p| t.space || expand::joins(p, t));
                if own.is_some() {
                    // The space, if any, goes with a macro piece, never an argument's.
                    self.spans.push(piece(from, self.text.len(), own));
                    from = self.text.len();
                }
                if space {
                    self.text.push(' ');
                }
                if here.is_some() {
                    if self.text.len() > from && own.is_none() {
                        self.spans.push(piece(from, self.text.len(), None));
                    }
                    from = self.text.len();
                } else if own.is_some() {
                    from = self.text.len() - usize::from(space);
                }
                own = here;
            }
            self.text.push_str(&t.text);
            prev = Some(t);
        }
        if own.is_some() {
            self.spans.push(piece(from, self.text.len(), own));
            from = self.text.len();
        }
        self.spans.push(piece(from, self.text.len(), None));
    }
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

//! A C preprocessor for device code: conditionals evaluated, object- and function-like macros
//! expanded, workspace headers read for their macros. The parser then reads the text the
//! compiler would compile, and every range it reports maps back to the file through
//! [`SourceMap`] (a range inside a macro expansion maps to the macro's use).
//!
//! What it does not read it tolerates: system and SYCL headers are not in the workspace, so
//! their macros are only the predefined ones the caller passes in; an include it cannot find is
//! no error. Pure: headers come through [`Includes`].

mod expand;
mod expr;
pub mod lex;
pub mod memo;
mod scope;

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::text::TextRange;
use expand::{Expander, Input, PTok};
use lex::{Kind, Tok};

/// Where a macro was defined, for hover and for diagnostics that name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Predefined by the compiler for this compile (`why` says for what: a target, the SYCL
    /// headers, the platform).
    Predefined(Arc<str>),
    /// `-D` on the command line.
    CommandLine,
    File {
        path: Arc<str>,
        line: u32,
    },
}

/// A macro in the device compiles of `targets` (none named: every compile).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroAt {
    pub targets: Vec<String>,
    /// `None`: not defined there.
    pub definition: Option<MacroDef>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroDef {
    /// `NAME` or `NAME(a, b)`.
    pub signature: String,
    pub replacement: String,
    pub origin: Origin,
}

/// A replacement-list token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MTok {
    pub kind: Kind,
    pub text: Arc<str>,
    pub space: bool,
}

impl MTok {
    pub fn is(&self, p: &str) -> bool {
        self.kind == Kind::Punct && &*self.text == p
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Macro {
    /// `None` for an object-like macro.
    pub params: Option<Vec<Arc<str>>>,
    /// The last parameter takes the remaining arguments (`...` or `args...`).
    pub variadic: bool,
    pub body: Vec<MTok>,
    pub origin: Origin,
}

impl Macro {
    /// The replacement list as text (`double`, `(a) * (b)`).
    pub fn replacement(&self) -> String {
        let mut s = String::new();
        for (k, t) in self.body.iter().enumerate() {
            if k > 0 && t.space {
                s.push(' ');
            }
            s.push_str(&t.text);
        }
        s
    }

    /// `NAME(a, b)` or `NAME`.
    pub fn signature(&self, name: &str) -> String {
        match &self.params {
            None => name.to_string(),
            Some(p) => {
                let mut list: Vec<String> = p.iter().map(|x| x.to_string()).collect();
                if self.variadic {
                    if let Some(last) = list.last_mut() {
                        *last = if last == "__VA_ARGS__" {
                            "...".into()
                        } else {
                            format!("{last}...")
                        };
                    }
                }
                format!("{name}({})", list.join(", "))
            }
        }
    }
}

/// Macros by name.
pub type MacroTable = FxHashMap<Arc<str>, Arc<Macro>>;

/// The macros in effect: a shared base (predefined and command-line macros, the same for many
/// files) under the file's own definitions.
#[derive(Clone, Debug, Default)]
pub struct Macros {
    base: Arc<MacroTable>,
    /// `None`: `#undef`ined here.
    local: FxHashMap<Arc<str>, Option<Arc<Macro>>>,
    /// Base names whose definition differs between the compiles a text is preprocessed for.
    watched: Option<Arc<FxHashSet<Arc<str>>>>,
    /// A watched name was looked up in the base (defined or not): the text may compile
    /// differently in another compile.
    read_watched: std::cell::Cell<bool>,
    /// Header readings under way, innermost last: each records what it reads and writes.
    recording: std::cell::RefCell<Vec<memo::Recording>>,
}

impl Macros {
    pub fn new(base: Arc<MacroTable>) -> Self {
        Macros {
            base,
            local: FxHashMap::default(),
            watched: None,
            read_watched: std::cell::Cell::new(false),
            recording: Default::default(),
        }
    }

    /// Records from now on whether one of `names` (reserved names, `__X`) is looked up in the
    /// base table.
    pub fn watch(&mut self, names: Arc<FxHashSet<Arc<str>>>) {
        debug_assert!(names.iter().all(|n| n.starts_with("__")));
        self.watched = Some(names);
    }

    /// Whether a watched name was looked up in the base table.
    pub fn read_watched(&self) -> bool {
        self.read_watched.get()
    }

    /// Macros from `NAME` / `NAME=value` pairs (the `-D` form), later ones replacing earlier
    /// ones, a `None` value meaning `-U`.
    pub fn table(defs: &[(String, Option<String>, Origin)]) -> MacroTable {
        let mut t = FxHashMap::default();
        for (spec, value, origin) in defs {
            match value {
                None => {
                    t.remove(spec.as_str());
                }
                Some(v) => {
                    if let Some((name, m)) = parse_define(&format!("{spec} {v}"), origin.clone()) {
                        t.insert(name, Arc::new(m));
                    }
                }
            }
        }
        t
    }

    fn lookup(&self, name: &str) -> (Option<&Arc<Macro>>, bool) {
        match self.local.get(name) {
            Some(m) => (m.as_ref(), false),
            None => (self.base.get(name), true),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Macro> {
        let (found, from_base) = self.lookup(name);
        // Watched names are reserved ones (`__NVPTX__`): most lookups skip the hash.
        let watched = from_base
            && name.starts_with("__")
            && self.watched.as_ref().is_some_and(|w| w.contains(name));
        if watched {
            self.read_watched.set(true);
        }
        if let Ok(mut frames) = self.recording.try_borrow_mut() {
            for f in frames.iter_mut() {
                f.read(name, || found.cloned());
                f.watched |= watched;
            }
        }
        found.map(|m| &**m)
    }

    /// The value of a macro, recording nothing.
    pub fn peek(&self, name: &str) -> memo::Value {
        self.lookup(name).0.cloned()
    }

    pub fn is_defined(&self, name: &str) -> bool {
        self.get(name).is_some() || matches!(name, "__LINE__" | "__FILE__" | "__COUNTER__")
    }

    pub fn define(&mut self, name: Arc<str>, m: Macro) {
        self.set(name, Some(Arc::new(m)));
    }

    pub fn undef(&mut self, name: &str) {
        self.set(Arc::from(name), None);
    }

    /// Defines (`Some`) or undefines a macro.
    pub fn set(&mut self, name: Arc<str>, value: memo::Value) {
        for f in self.recording.get_mut().iter_mut() {
            f.write(&name, value.clone());
        }
        self.local.insert(name, value);
    }

    fn begin_recording(&mut self) {
        self.recording.get_mut().push(memo::Recording::default());
    }

    fn end_recording(&mut self) -> memo::Recording {
        self.recording.get_mut().pop().unwrap_or_default()
    }

    fn frames(&mut self) -> &mut Vec<memo::Recording> {
        self.recording.get_mut()
    }

    /// Applies a remembered reading: what it read counts as read here, then its definitions.
    fn replay(&mut self, r: &memo::Recording) {
        for f in self.recording.get_mut().iter_mut() {
            for (n, v) in &r.reads {
                f.read(n, || v.clone());
            }
            for (p, state) in &r.once_reads {
                f.once_read(p, *state);
            }
            f.watched |= r.watched;
        }
        if r.watched {
            self.read_watched.set(true);
        }
        for (n, v) in &r.writes {
            self.set(n.clone(), v.clone());
        }
    }

    /// The definitions made since the base: a fingerprint of what a file saw from its
    /// includes, for caching.
    pub fn local_hash(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut entries: Vec<(&Arc<str>, Option<String>)> = self
            .local
            .iter()
            .map(|(k, v)| {
                let text = v
                    .as_ref()
                    .map(|m| format!("{}={}", m.signature(k), m.replacement()));
                (k, text)
            })
            .collect();
        entries.sort();
        let mut h = std::hash::DefaultHasher::new();
        entries.hash(&mut h);
        h.finish()
    }
}

/// `NAME body`, `NAME(a, b) body`, `NAME(...) body` as after `#define`.
pub fn parse_define(text: &str, origin: Origin) -> Option<(Arc<str>, Macro)> {
    let toks = lex::lex(text, 0, text.len());
    let name = toks.first().filter(|t| t.kind == Kind::Ident)?;
    let mut at = 1;
    let mut params = None;
    let mut variadic = false;
    if toks
        .get(1)
        .is_some_and(|t| t.text(text) == "(" && !t.space_before)
    {
        let mut list = Vec::new();
        at = 2;
        loop {
            let t = toks.get(at)?;
            at += 1;
            match (t.kind, t.text(text)) {
                (_, ")") => break,
                (_, ",") => {}
                (_, "...") => {
                    variadic = true;
                    list.push(Arc::from("__VA_ARGS__"));
                }
                (Kind::Ident, p) => {
                    if toks.get(at).is_some_and(|n| n.text(text) == "...") {
                        variadic = true;
                        at += 1;
                    }
                    list.push(Arc::from(p));
                }
                _ => return None,
            }
        }
        params = Some(list);
    }
    let body = toks[at..]
        .iter()
        .enumerate()
        .map(|(k, t)| MTok {
            kind: t.kind,
            text: Arc::from(t.text(text)),
            space: k > 0 && t.space_before,
        })
        .collect();
    Some((
        Arc::from(name.text(text)),
        Macro {
            params,
            variadic,
            body,
            origin,
        },
    ))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirKind {
    If,
    Ifdef,
    Ifndef,
    Elif,
    Elifdef,
    Elifndef,
    Else,
    Endif,
    Define,
    Undef,
    Include,
    Pragma,
    Other,
}

/// A directive line (with its continuations).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    /// From `#` to the end of its last line, newline excluded.
    pub range: TextRange,
    pub kind: DirKind,
    /// What follows the directive's name.
    pub args: TextRange,
}

/// A workspace file as the preprocessor reads it.
#[derive(Debug)]
pub struct Source {
    pub path: Arc<str>,
    pub text: Arc<str>,
    pub directives: Vec<Directive>,
}

impl Source {
    pub fn new(path: Arc<str>, text: Arc<str>) -> Self {
        let directives = directives(&text);
        Source {
            path,
            text,
            directives,
        }
    }
}

/// How `#include` reaches workspace files.
pub trait Includes: Sync {
    /// The file `spelled` names from `from`; `None` when it is not in the workspace.
    fn resolve(&self, from: &str, spelled: &str, angled: bool) -> Option<Arc<Source>>;

    /// Where readings of `header` are remembered, and its key there (which must tell apart
    /// its texts and the include directories it is read with); `None`: not remembered.
    fn memo(&self, _header: &Source) -> Option<(&memo::HeaderMemo, u64)> {
        None
    }
}

/// No workspace headers: a file alone.
pub struct NoIncludes;

impl Includes for NoIncludes {
    fn resolve(&self, _: &str, _: &str, _: bool) -> Option<Arc<Source>> {
        None
    }
}

/// Directive lines of a text, skipping comments and literals (a `#` inside a block comment
/// is no directive).
pub fn directives(text: &str) -> Vec<Directive> {
    let b = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
            }
            b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b' => i += 1,
            b'#' if line_start => {
                let end = directive_end(b, i);
                found.push(directive_at(text, i, end));
                i = end;
                line_start = false;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = find(b, i + 2, b"*/").map_or(b.len(), |e| e + 2);
                line_start = false;
            }
            b'"' | b'\'' => {
                // A digit separator (1'000) is not a character literal.
                let separator = c == b'\'' && i > 0 && b[i - 1].is_ascii_alphanumeric();
                i = if separator {
                    i + 1
                } else {
                    let raw = c == b'"' && i > 0 && b[i - 1] == b'R';
                    skip_literal(b, i, raw)
                };
                line_start = false;
            }
            _ => {
                line_start = false;
                i += 1;
            }
        }
    }
    found
}

/// The end of the directive starting at `at`: its line, continued by backslashes and by block
/// comments that span lines.
fn directive_end(b: &[u8], at: usize) -> usize {
    let mut i = at;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                let before = if i > 0 && b[i - 1] == b'\r' { i - 1 } else { i };
                if before > 0 && b[before - 1] == b'\\' {
                    i += 1;
                    continue;
                }
                return before;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = find(b, i + 2, b"*/").map_or(b.len(), |e| e + 2);
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    b.len()
}

fn directive_at(text: &str, hash: usize, end: usize) -> Directive {
    let toks = lex::lex(text, hash + 1, end);
    let (kind, args_start) = match toks.first() {
        Some(t) if t.kind == Kind::Ident => {
            let kind = match t.text(text) {
                "if" => DirKind::If,
                "ifdef" => DirKind::Ifdef,
                "ifndef" => DirKind::Ifndef,
                "elif" => DirKind::Elif,
                "elifdef" => DirKind::Elifdef,
                "elifndef" => DirKind::Elifndef,
                "else" => DirKind::Else,
                "endif" => DirKind::Endif,
                "define" => DirKind::Define,
                "undef" => DirKind::Undef,
                "include" | "include_next" | "import" => DirKind::Include,
                "pragma" => DirKind::Pragma,
                _ => DirKind::Other,
            };
            (kind, t.end)
        }
        _ => (DirKind::Other, hash + 1),
    };
    Directive {
        range: TextRange::new(hash, end),
        kind,
        args: TextRange::new(args_start.min(end), end),
    }
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

fn skip_literal(b: &[u8], i: usize, raw: bool) -> usize {
    let quote = b[i];
    if raw {
        if let Some(open) = b[i + 1..].iter().take(20).position(|&c| c == b'(') {
            let mut close = vec![b')'];
            close.extend_from_slice(&b[i + 1..i + 1 + open]);
            close.push(b'"');
            return find(b, i + 2 + open, &close).map_or(b.len(), |e| e + close.len());
        }
    }
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

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
    /// [`directive_fingerprint`] of the text.
    pub directives: u64,
}

/// A fingerprint of a text's directives, as written and in order, not where they are: all a
/// file that includes it (or is compiled through it) reads of it, unless it splices it into a
/// function. An edit inside function bodies leaves it unchanged.
pub fn directive_fingerprint(text: &str) -> u64 {
    fingerprint(text, &directives(text))
}

fn fingerprint(text: &str, dirs: &[Directive]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    for d in dirs {
        text[d.range.start..d.range.end].hash(&mut h);
    }
    h.finish()
}

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

struct Frame {
    /// Code here is compiled.
    active: bool,
    /// Some group of this `#if` was taken already.
    taken: bool,
    /// The enclosing group is active.
    parent: bool,
    start: usize,
}

/// How deep includes nest before the rest is not read (clang stops at 200; real code at ~10).
const MAX_INCLUDE_DEPTH: usize = 40;

struct Pp<'a> {
    macros: Macros,
    includes: &'a dyn Includes,
    /// Headers with `#pragma once` (or `#import`ed) already read.
    once: FxHashSet<Arc<str>>,
    deps: Vec<Arc<str>>,
    spliced: Vec<Arc<str>>,
    errors: Vec<(TextRange, String)>,
    depth: usize,
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

    fn active(stack: &[Frame]) -> bool {
        stack.last().is_none_or(|f| f.active)
    }

    /// Applies one directive; `report` keeps the errors (those of the file itself).
    fn directive(
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
                let toks = self.has_checks(&toks, text, path);
                let mut input = Input::new(Default::default(), &toks);
                let mut ex = Expander::new(&self.macros, true, line, path);
                let expanded = ex.run(&mut input, true);
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

    /// `__has_include(...)` and the other `__has_*` queries, answered before expansion: a
    /// quoted include is there if the workspace has it, a system one is assumed there (they
    /// are not read); builtins, features and attributes are unknown, so not there.
    fn has_checks(&self, toks: &[Tok], text: &str, path: &str) -> Vec<PTok> {
        let mut out = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            let word = t.text(text);
            let query = t.kind == Kind::Ident
                && word.starts_with("__has_")
                && toks.get(i + 1).is_some_and(|n| n.text(text) == "(");
            if !query {
                out.push(PTok::of(t, text));
                i += 1;
                continue;
            }
            let mut depth = 0;
            let mut close = i + 1;
            while close < toks.len() {
                match toks[close].text(text) {
                    "(" => depth += 1,
                    ")" => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                close += 1;
            }
            let inner = match (toks.get(i + 2), toks.get(close.saturating_sub(1))) {
                (Some(a), Some(b)) if close > i + 2 => &text[a.start..b.end],
                _ => "",
            };
            let v = match word {
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
            out.push(PTok::new(
                Kind::Number,
                if v { "1" } else { "0" },
                t.space_before,
            ));
            i = close + 1;
        }
        out
    }

    fn include(&mut self, d: &Directive, text: &str, path: &str, line: u32) {
        let Some((spelled, angled)) = self.include_target(d, text, path, line) else {
            return;
        };
        let Some(src) = self.includes.resolve(path, &spelled, angled) else {
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

    fn once_add(&mut self, path: Arc<str>) {
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
    fn splice(
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

    /// Reads the directives of a header (or of a file up to `stop`) for their macros.
    fn headers(&mut self, src: &Source, stop: Option<usize>) {
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

    fn main(&mut self, text: &str, path: &str, dirs: &[Directive]) -> Preprocessed {
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
struct LineCounter {
    pos: usize,
    line: u32,
}

impl LineCounter {
    fn at(&mut self, text: &str, offset: usize) -> u32 {
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

#[cfg(test)]
mod tests;

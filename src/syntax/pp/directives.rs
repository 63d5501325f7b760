//! Directive lines found without preprocessing (comments and literals skipped), their
//! fingerprint, and the files they are read from (`Source`, `Includes`).

use std::sync::Arc;

use crate::text::TextRange;

use super::lex::{self, Kind};
use super::memo;

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

pub(super) fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

pub(super) fn skip_literal(b: &[u8], i: usize, raw: bool) -> usize {
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

/// A fingerprint of a text's directives, as written and in order, not where they are: all a
/// file that includes it (or is compiled through it) reads of it, unless it splices it into a
/// function. An edit inside function bodies leaves it unchanged.
pub fn directive_fingerprint(text: &str) -> u64 {
    fingerprint(text, &directives(text))
}

pub(super) fn fingerprint(text: &str, dirs: &[Directive]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    for d in dirs {
        text[d.range.start..d.range.end].hash(&mut h);
    }
    h.finish()
}

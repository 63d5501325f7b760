//! Whether a place in compiled text is inside a function body: an `#include` there is spliced
//! into the function (HeCBench's `#include "constants.h"` inside a kernel), while one at
//! namespace scope is a header analysed on its own.

/// Braces of the text read so far; fed the compiled text in order, a piece at a time (pieces
/// end at directive lines, never inside a comment or literal).
#[derive(Default)]
pub struct Scope {
    /// Per open brace: it opens a function body, or a block inside one.
    open: Vec<bool>,
    /// The last significant character, and the identifier it ends, if any.
    last: u8,
    last_word: String,
    read: usize,
}

/// Words after which `{` opens a function body: `f() const {`, `[]() mutable {`, `try {`.
const BEFORE_BODY: &[&str] = &["const", "noexcept", "override", "final", "mutable", "try"];

impl Scope {
    pub fn in_function(&self) -> bool {
        self.open.last().copied().unwrap_or(false)
    }

    /// Reads `text[self.read..]` (the compiled text grows; only what is new is read).
    pub fn feed(&mut self, text: &str) {
        let b = text.as_bytes();
        let mut i = self.read.min(b.len());
        while i < b.len() {
            let c = b[i];
            match c {
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    i = memchr(b, i, b'\n');
                    continue;
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                    continue;
                }
                b'"' | b'\'' => {
                    let raw = c == b'"' && i > 0 && b[i - 1] == b'R';
                    i = super::directives::skip_literal(b, i, raw);
                    self.last = c;
                    self.last_word.clear();
                    continue;
                }
                b'{' => {
                    let body = self.in_function()
                        || matches!(self.last, b')' | b']')
                        || BEFORE_BODY.contains(&self.last_word.as_str());
                    self.open.push(body);
                }
                b'}' => {
                    self.open.pop();
                }
                _ => {}
            }
            if c.is_ascii_digit() {
                // A number, digit separators (`1'000`) included.
                while i < b.len() && (super::lex::is_ident(b[i]) || matches!(b[i], b'.' | b'\'')) {
                    i += 1;
                }
                self.last = b'0';
                self.last_word.clear();
                continue;
            }
            if super::lex::is_ident_start(c) {
                let e = super::lex::ident_end(b, i, b.len());
                self.last_word.clear();
                self.last_word.push_str(&text[i..e]);
                self.last = b[e - 1];
                i = e;
                continue;
            }
            if !c.is_ascii_whitespace() {
                self.last = c;
                self.last_word.clear();
            }
            i += 1;
        }
        self.read = b.len();
    }
}

fn memchr(b: &[u8], from: usize, c: u8) -> usize {
    b[from..]
        .iter()
        .position(|&x| x == c)
        .map_or(b.len(), |p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inside(text: &str) -> bool {
        let mut s = Scope::default();
        s.feed(text);
        s.in_function()
    }

    #[test]
    fn function_bodies_and_blocks_in_them_are_inside() {
        assert!(inside("void f() {\n"));
        assert!(inside("void f() const noexcept {\n  if (x) {\n"));
        assert!(inside("auto k = [=]() mutable {\n"));
        assert!(inside("q.submit([&](handler &h) { h.single_task([=] {\n"));
        assert!(inside("struct S { int g() {\n"));
        assert!(!inside("namespace a {\n"));
        assert!(!inside("struct S {\n"));
        assert!(!inside("extern \"C\" {\n"));
        assert!(!inside("void f() {\n}\n"));
        assert!(!inside("int a[] = {1, 2};\n"));
        assert!(!inside("int n = 1'000; void f() {}\n"));
        assert!(!inside(
            "void f() { // }\n}\n/* { */ const char* s = \"{\";\n"
        ));
    }

    #[test]
    fn pieces_are_read_once_in_order() {
        let mut s = Scope::default();
        let mut text = String::from("void f() {\n");
        s.feed(&text);
        assert!(s.in_function());
        text.push_str("}\n");
        s.feed(&text);
        assert!(!s.in_function());
    }
}

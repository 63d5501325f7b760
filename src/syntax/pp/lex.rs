//! Preprocessing tokens of C++ text: identifiers, pp-numbers, literals and punctuators, with
//! their byte offsets. Comments and line continuations are whitespace.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Number,
    /// A string or character literal, prefix included.
    Literal,
    Punct,
    /// A byte no token starts with (`@`, a stray backslash).
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tok {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
    /// Whitespace (or a comment) precedes it: `#define F(x)` and `#define F (x)` differ.
    pub space_before: bool,
}

impl Tok {
    pub fn text<'s>(&self, src: &'s str) -> &'s str {
        src.get(self.start..self.end).unwrap_or("")
    }
}

const SINGLE: &[u8] = b"!=<>,#";

/// The length of the longest punctuator `rest` starts with (`...`, `<<=`, `::`, `+`...),
/// `SINGLE` characters aside. Matched on bytes: comparing against a list of strings was a
/// twentieth of an edit's extraction on a large file.
fn punct_len(rest: &[u8]) -> Option<usize> {
    let at = |k: usize| rest.get(k).copied().unwrap_or(0);
    let (a, b, c) = (at(0), at(1), at(2));
    if matches!(
        (a, b, c),
        (b'.', b'.', b'.')
            | (b'<', b'<', b'=')
            | (b'>', b'>', b'=')
            | (b'-', b'>', b'*')
            | (b'<', b'=', b'>')
    ) {
        return Some(3);
    }
    if matches!(
        (a, b),
        (b':', b':')
            | (b'-', b'>' | b'-' | b'=')
            | (b'+', b'+' | b'=')
            | (b'<', b'<' | b'=')
            | (b'>', b'>' | b'=')
            | (b'=' | b'!' | b'*' | b'/' | b'%' | b'^', b'=')
            | (b'&', b'&' | b'=')
            | (b'|', b'|' | b'=')
            | (b'#', b'#')
            | (b'.', b'*')
    ) {
        return Some(2);
    }
    matches!(
        a,
        b'{' | b'}'
            | b'['
            | b']'
            | b'('
            | b')'
            | b';'
            | b':'
            | b'?'
            | b'.'
            | b'+'
            | b'-'
            | b'*'
            | b'/'
            | b'%'
            | b'^'
            | b'&'
            | b'|'
            | b'~'
    )
    .then_some(1)
}

pub fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

pub fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// Tokens of `src[start..end]`.
pub fn lex(src: &str, start: usize, end: usize) -> Vec<Tok> {
    let b = src.as_bytes();
    let end = end.min(b.len());
    let mut toks = Vec::new();
    let mut i = start;
    let mut space = false;
    while i < end {
        let c = b[i];
        if c.is_ascii_whitespace() {
            space = true;
            i += 1;
            continue;
        }
        if c == b'\\' && matches!(b.get(i + 1), Some(b'\n' | b'\r')) {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < end && b[i] != b'\n' {
                i += 1;
            }
            space = true;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = find(b, i + 2, end, b"*/").map_or(end, |e| e + 2);
            space = true;
            continue;
        }
        let s = i;
        let kind = if is_ident_start(c) {
            i = ident_end(b, i, end);
            if matches!(b.get(i), Some(b'"' | b'\'')) && is_literal_prefix(&b[s..i]) {
                i = literal_end(b, i, end, b[i - 1] == b'R');
                Kind::Literal
            } else {
                Kind::Ident
            }
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i = number_end(b, i, end);
            Kind::Number
        } else if c == b'"' || c == b'\'' {
            i = literal_end(b, i, end, false);
            Kind::Literal
        } else if let Some(len) = punct_len(&b[i..end]) {
            i += len;
            Kind::Punct
        } else if SINGLE.contains(&c) {
            i += 1;
            Kind::Punct
        } else {
            i += 1;
            Kind::Other
        };
        toks.push(Tok {
            kind,
            start: s,
            end: i,
            space_before: space,
        });
        space = false;
    }
    toks
}

fn is_literal_prefix(p: &[u8]) -> bool {
    matches!(
        p,
        b"u8" | b"u" | b"U" | b"L" | b"R" | b"u8R" | b"uR" | b"UR" | b"LR"
    )
}

pub fn ident_end(b: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && is_ident(b[i]) {
        i += 1;
    }
    i
}

/// A pp-number: digits, letters, `_`, `.`, digit separators and exponent signs.
fn number_end(b: &[u8], mut i: usize, end: usize) -> usize {
    i += 1;
    while i < end {
        let c = b[i];
        if matches!(c, b'+' | b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P') {
            i += 1;
        } else if c == b'\'' && b.get(i + 1).is_some_and(|&n| is_ident(n)) {
            i += 2;
        } else if is_ident(c) || c == b'.' {
            i += 1;
        } else {
            break;
        }
    }
    i.min(end)
}

/// End of the literal whose quote is at `i`; an unterminated one ends at the line's end.
fn literal_end(b: &[u8], i: usize, end: usize, raw: bool) -> usize {
    let quote = b[i];
    if raw && quote == b'"' {
        if let Some(open) = b[i + 1..end].iter().position(|&c| c == b'(') {
            let mut close = vec![b')'];
            close.extend_from_slice(&b[i + 1..i + 1 + open]);
            close.push(b'"');
            return find(b, i + 2 + open, end, &close).map_or(end, |e| e + close.len());
        }
    }
    let mut j = i + 1;
    while j < end {
        match b[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    end
}

fn find(b: &[u8], from: usize, end: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..end)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<&str> {
        lex(src, 0, src.len()).iter().map(|t| t.text(src)).collect()
    }

    /// C++'s punctuators (besides the `SINGLE` ones), longest first.
    const PUNCTS: [&str; 46] = [
        "...", "<<=", ">>=", "->*", "<=>", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
        "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", ".*", "{", "}",
        "[", "]", "(", ")", ";", ":", "?", ".", "+", "-", "*", "/", "%", "^", "&", "|", "~",
    ];

    /// The byte matcher finds the punctuator the list finds, for every string of up to three
    /// punctuation characters (and a letter after).
    #[test]
    fn punctuators_match_the_list() {
        let alphabet = b"!#%&()*+,-./:;<=>?[]^{|}~a";
        let mut s = Vec::new();
        for &x in alphabet {
            for &y in alphabet {
                for &z in alphabet {
                    s.clear();
                    s.extend([x, y, z, b'a']);
                    let listed = PUNCTS
                        .iter()
                        .find(|p| s.starts_with(p.as_bytes()))
                        .map(|p| p.len());
                    assert_eq!(punct_len(&s), listed, "{:?}", String::from_utf8_lossy(&s));
                    assert_eq!(
                        punct_len(&s[..1]),
                        PUNCTS
                            .iter()
                            .find(|p| s[..1] == *p.as_bytes())
                            .map(|p| p.len())
                    );
                }
            }
        }
    }

    #[test]
    fn tokens_of_cpp() {
        assert_eq!(
            texts("a::b->c <<= 1'000 1.5e-3f u8\"x\" 'c' R\"d(a)\"b)d\" /* c */ x // y"),
            [
                "a",
                "::",
                "b",
                "->",
                "c",
                "<<=",
                "1'000",
                "1.5e-3f",
                "u8\"x\"",
                "'c'",
                "R\"d(a)\"b)d\"",
                "x"
            ]
        );
        assert_eq!(
            texts("#define F(x) x##1"),
            ["#", "define", "F", "(", "x", ")", "x", "##", "1"]
        );
        let t = lex("F (x)", 0, 5);
        assert!(t[1].space_before && !t[0].space_before);
    }

    #[test]
    fn unterminated_input_stops_at_the_end() {
        for src in ["\"abc", "/* x", "R\"(abc", "'", "1e+", "\\"] {
            let t = lex(src, 0, src.len());
            assert!(t.iter().all(|t| t.end <= src.len()));
        }
    }
}

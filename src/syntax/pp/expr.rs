//! `#if` expressions after macro expansion: integer arithmetic in `intmax_t`/`uintmax_t` with
//! the usual conversions, `defined`, and 0 for any identifier left.

use super::expand::PTok;
use super::lex::Kind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Val {
    v: u64,
    unsigned: bool,
}

impl Val {
    fn int(v: i64) -> Self {
        Val {
            v: v as u64,
            unsigned: false,
        }
    }
    fn truth(self) -> bool {
        self.v != 0
    }
    fn signed(self) -> i64 {
        self.v as i64
    }
}

/// Evaluates the expanded tokens of a condition; `defined(X)` asks `is_defined`.
pub fn evaluate(toks: &[PTok], is_defined: &dyn Fn(&str) -> bool) -> Result<bool, String> {
    // `defined` first, then every identifier left is 0 (`true` is 1 in C++).
    let mut flat: Vec<PTok> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        if t.kind == Kind::Ident && &*t.text == "defined" {
            let (name, next) = match (toks.get(i + 1), toks.get(i + 2), toks.get(i + 3)) {
                (Some(o), Some(n), Some(c)) if o.is("(") && c.is(")") => (n, i + 4),
                (Some(n), _, _) if n.kind == Kind::Ident => (n, i + 2),
                _ => return Err("macro name missing after 'defined'".into()),
            };
            if name.kind != Kind::Ident {
                return Err("macro name must be an identifier".into());
            }
            let v = is_defined(&name.text) as i64;
            flat.push(PTok::new(Kind::Number, &v.to_string(), true));
            i = next;
            continue;
        }
        // C++'s alternative spellings are operators, not identifiers (`#if A and not B`).
        let alternative = match &*t.text {
            "and" => "&&",
            "or" => "||",
            "not" => "!",
            "bitand" => "&",
            "bitor" => "|",
            "xor" => "^",
            "compl" => "~",
            "not_eq" => "!=",
            _ => "",
        };
        if t.kind == Kind::Ident && !alternative.is_empty() {
            flat.push(PTok::new(Kind::Punct, alternative, t.space));
        } else {
            flat.push(t.clone());
        }
        i += 1;
    }
    if flat.is_empty() {
        return Err("#if with no expression".into());
    }
    let mut p = Parser { toks: &flat, at: 0 };
    let v = p.comma(true)?;
    if let Some(t) = flat.get(p.at) {
        return Err(format!(
            "token is not a valid binary operator in a preprocessor subexpression: '{}'",
            t.text
        ));
    }
    Ok(v.truth())
}

struct Parser<'t> {
    toks: &'t [PTok],
    at: usize,
}

const BINARY: [(&str, u8); 18] = [
    ("*", 10),
    ("/", 10),
    ("%", 10),
    ("+", 9),
    ("-", 9),
    ("<<", 8),
    (">>", 8),
    ("<", 7),
    (">", 7),
    ("<=", 7),
    (">=", 7),
    ("==", 6),
    ("!=", 6),
    ("&", 5),
    ("^", 4),
    ("|", 3),
    ("&&", 2),
    ("||", 1),
];

impl Parser<'_> {
    fn peek(&self) -> Option<&PTok> {
        self.toks.get(self.at)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.peek().is_some_and(|t| t.is(p)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn comma(&mut self, live: bool) -> Result<Val, String> {
        let mut v = self.conditional(live)?;
        while self.eat(",") {
            v = self.conditional(live)?;
        }
        Ok(v)
    }

    fn conditional(&mut self, live: bool) -> Result<Val, String> {
        let c = self.binary(0, live)?;
        if !self.eat("?") {
            return Ok(c);
        }
        let a = self.comma(live && c.truth())?;
        if !self.eat(":") {
            return Err("expected ':' in a conditional expression".into());
        }
        let b = self.conditional(live && !c.truth())?;
        let unsigned = a.unsigned || b.unsigned;
        let v = if c.truth() { a } else { b };
        Ok(Val { v: v.v, unsigned })
    }

    fn binary(&mut self, min: u8, live: bool) -> Result<Val, String> {
        let mut lhs = self.unary(live)?;
        loop {
            let Some((op, prec)) = self.peek().and_then(|t| {
                (t.kind == Kind::Punct)
                    .then(|| BINARY.iter().find(|(o, _)| **o == *t.text))
                    .flatten()
                    .copied()
            }) else {
                return Ok(lhs);
            };
            if prec <= min {
                return Ok(lhs);
            }
            self.at += 1;
            let rhs_live = match op {
                "&&" => live && lhs.truth(),
                "||" => live && !lhs.truth(),
                _ => live,
            };
            let rhs = self.binary(prec, rhs_live)?;
            lhs = apply(op, lhs, rhs, rhs_live)?;
        }
    }

    fn unary(&mut self, live: bool) -> Result<Val, String> {
        let Some(t) = self.peek().cloned() else {
            return Err("expected value in expression".into());
        };
        self.at += 1;
        match (t.kind, &*t.text) {
            (Kind::Punct, "+") => self.unary(live),
            (Kind::Punct, "-") => {
                let v = self.unary(live)?;
                Ok(Val {
                    v: v.v.wrapping_neg(),
                    ..v
                })
            }
            (Kind::Punct, "~") => {
                let v = self.unary(live)?;
                Ok(Val { v: !v.v, ..v })
            }
            (Kind::Punct, "!") => Ok(Val::int(!self.unary(live)?.truth() as i64)),
            (Kind::Punct, "(") => {
                let v = self.comma(live)?;
                if !self.eat(")") {
                    return Err("expected ')' in preprocessor expression".into());
                }
                Ok(v)
            }
            (Kind::Number, text) => number(text),
            (Kind::Literal, text) => character(text),
            (Kind::Ident, "true") => Ok(Val::int(1)),
            (Kind::Ident, _) => Ok(Val::int(0)),
            (_, text) => Err(format!(
                "invalid token at start of a preprocessor expression: '{text}'"
            )),
        }
    }
}

fn apply(op: &str, a: Val, b: Val, live: bool) -> Result<Val, String> {
    let unsigned = a.unsigned || b.unsigned;
    let bool_of = |x: bool| Val::int(x as i64);
    let cmp = |ord: std::cmp::Ordering| -> std::cmp::Ordering { ord };
    let order = if unsigned {
        cmp(a.v.cmp(&b.v))
    } else {
        cmp(a.signed().cmp(&b.signed()))
    };
    let arith = |v: u64| Val { v, unsigned };
    Ok(match op {
        "*" => arith(a.v.wrapping_mul(b.v)),
        "/" | "%" => {
            if b.v == 0 {
                if live {
                    return Err(if op == "/" {
                        "division by zero in preprocessor expression".into()
                    } else {
                        "remainder by zero in preprocessor expression".into()
                    });
                }
                return Ok(arith(0));
            }
            let v = match (op, unsigned) {
                ("/", true) => a.v / b.v,
                ("%", true) => a.v % b.v,
                ("/", false) => a.signed().wrapping_div(b.signed()) as u64,
                _ => a.signed().wrapping_rem(b.signed()) as u64,
            };
            arith(v)
        }
        "+" => arith(a.v.wrapping_add(b.v)),
        "-" => arith(a.v.wrapping_sub(b.v)),
        "<<" | ">>" => {
            let s = b.v.min(63) as u32;
            let v = match (op, a.unsigned) {
                ("<<", _) => a.v.wrapping_shl(s),
                (_, true) => a.v >> s,
                _ => (a.signed() >> s) as u64,
            };
            Val {
                v,
                unsigned: a.unsigned,
            }
        }
        "<" => bool_of(order.is_lt()),
        ">" => bool_of(order.is_gt()),
        "<=" => bool_of(order.is_le()),
        ">=" => bool_of(order.is_ge()),
        "==" => bool_of(a.v == b.v),
        "!=" => bool_of(a.v != b.v),
        "&" => arith(a.v & b.v),
        "^" => arith(a.v ^ b.v),
        "|" => arith(a.v | b.v),
        "&&" => bool_of(a.truth() && b.truth()),
        _ => bool_of(a.truth() || b.truth()),
    })
}

fn number(text: &str) -> Result<Val, String> {
    let clean: String = text.chars().filter(|&c| c != '\'').collect();
    let lower = clean.to_ascii_lowercase();
    let (radix, digits) = if let Some(h) = lower.strip_prefix("0x") {
        (16, h)
    } else if let Some(b) = lower.strip_prefix("0b") {
        (2, b)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let (body, suffix) = digits.split_at(end);
    let float = radix != 16 && (suffix.starts_with('.') || suffix.starts_with('e'))
        || radix == 16 && suffix.starts_with(['.', 'p']);
    if float {
        return Err("floating point literal in preprocessor expression".into());
    }
    if !suffix.chars().all(|c| matches!(c, 'u' | 'l' | 'z')) {
        return Err(format!("invalid suffix '{suffix}' on integer constant"));
    }
    let v = u64::from_str_radix(if body.is_empty() { "0" } else { body }, radix)
        .map_err(|_| "integer literal is too large to be represented in any integer type")?;
    // A decimal literal too large for intmax_t is unsigned; so is any with a `u`.
    let unsigned = suffix.contains('u') || v > i64::MAX as u64;
    Ok(Val { v, unsigned })
}

fn character(text: &str) -> Result<Val, String> {
    let Some(inner) = text
        .find('\'')
        .and_then(|q| text[q + 1..].strip_suffix('\''))
    else {
        return Err(format!(
            "invalid token at start of a preprocessor expression: '{text}'"
        ));
    };
    let v = match inner.as_bytes() {
        [c] => *c as i64,
        [b'\\', e] => match e {
            b'n' => 10,
            b't' => 9,
            b'r' => 13,
            b'0' => 0,
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            other => *other as i64,
        },
        bytes if bytes.first() == Some(&b'\\') && bytes.get(1) == Some(&b'x') => {
            i64::from_str_radix(&inner[2..], 16).unwrap_or(0)
        }
        bytes if bytes.first() == Some(&b'\\') => i64::from_str_radix(&inner[1..], 8).unwrap_or(0),
        // Multi-character constants: as clang, the bytes in order, the last lowest.
        bytes => bytes.iter().fold(0i64, |a, &c| (a << 8) | c as i64) & 0xffff_ffff,
    };
    // A plain `char` is signed on x86-64.
    let v = if inner.len() == 1 && v > 127 {
        v - 256
    } else {
        v
    };
    Ok(Val::int(v))
}

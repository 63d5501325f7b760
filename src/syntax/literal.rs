//! Numeric literal texts read once (digit separators, case, hex, the floating suffix): the
//! extractor asks whether a literal is a double (`is_double_literal`), the lowering which
//! literal it is (`number_literal`); both read the text with `Number`.

use super::ir::{FloatLit, IntValue, Lit};

/// A numeric literal's text as read: digit separators dropped, lower-cased.
struct Number {
    text: String,
    hex: bool,
    floating: bool,
}

impl Number {
    fn read(text: &str) -> Self {
        let t = text.replace('\'', "").to_ascii_lowercase();
        let hex = t.starts_with("0x");
        let floating = if hex {
            t.contains('p')
        } else {
            t.contains('.') || t.contains('e')
        };
        Number {
            text: t,
            hex,
            floating,
        }
    }

    /// A floating literal's suffix: what follows its last digit or `.`.
    fn float_suffix(&self) -> &str {
        let t = &self.text;
        let start = t
            .rfind(|c: char| c.is_ascii_digit() || c == '.')
            .map_or(t.len(), |i| i + 1);
        &t[start..]
    }
}

/// Whether a numeric literal is a `double` or `long double`.
pub(super) fn is_double_literal(text: &str) -> bool {
    let n = Number::read(text);
    if !n.floating {
        return false;
    }
    // Suffix: none or `l` means double / long double; `f`, `f16`, `bf16`, user-defined do not.
    let suffix = n.float_suffix();
    let suffix = if !n.hex && suffix.starts_with('e') {
        ""
    } else {
        suffix
    };
    matches!(suffix, "" | "l")
}

/// The type of a numeric literal from its suffix.
pub fn number_literal(text: &str) -> Lit {
    let n = Number::read(text);
    if n.floating {
        return Lit::Float(match n.float_suffix() {
            "f" | "f32" => FloatLit::Float,
            "l" => FloatLit::LongDouble,
            "f16" | "bf16" => FloatLit::Half,
            _ => FloatLit::Double,
        });
    }
    let t = n.text;
    let suffix: String = t
        .chars()
        .rev()
        .take_while(|c| matches!(c, 'u' | 'l' | 'z'))
        .collect();
    let digits = &t[..t.len() - suffix.len()];
    let value = if let Some(h) = digits.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(b) = digits.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8).ok()
    } else {
        digits.parse().ok()
    };
    Lit::Int {
        longs: suffix.matches('l').count().min(2) as u8,
        unsigned: suffix.contains('u'),
        value: value.map(IntValue::from),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_are_floating_literals_without_a_float_suffix() {
        for t in ["1.0", "1.", ".5", "1e5", "1.0L", "1'000.5", "0x1p3"] {
            assert!(is_double_literal(t), "{t}");
        }
        for t in ["1.0f", "1.0F", "10", "0x1f", "0x1p3f", "1.0_km"] {
            assert!(!is_double_literal(t), "{t}");
        }
    }

    #[test]
    fn literals_read_their_kind_and_value() {
        assert_eq!(number_literal("2.0f"), Lit::Float(FloatLit::Float));
        assert_eq!(number_literal("2.0L"), Lit::Float(FloatLit::LongDouble));
        assert_eq!(number_literal("2e3"), Lit::Float(FloatLit::Double));
        let int = |longs, unsigned, v: i64| Lit::Int {
            longs,
            unsigned,
            value: Some(v.into()),
        };
        assert_eq!(number_literal("010"), int(0, false, 8));
        assert_eq!(number_literal("0b11"), int(0, false, 3));
        assert_eq!(number_literal("0x10u"), int(0, true, 16));
        assert_eq!(number_literal("1'000ULL"), int(2, true, 1000));
    }
}

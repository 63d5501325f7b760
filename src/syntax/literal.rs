//! Numeric literal texts read once (digit separators, case, hex, the floating suffix): the
//! extractor asks whether a literal is a double (`is_double_literal`), the lowering which
//! literal it is (`number_literal`); both read the text with `Number`.

use super::ir::{Exact, FloatLit, IntValue, Lit};

/// A numeric literal's text as read: digit separators dropped, lower-cased.
struct Number {
    text: String,
    hex: bool,
    floating: bool,
}

impl Number {
    fn read(text: &str) -> Self {
        // A sign written before the literal (`-1.0`, as some callers pass it) is no suffix.
        let text = text.trim_start_matches(['-', '+', ' ']);
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

    /// A floating literal's suffix: what follows its mantissa and exponent (`f`, `l`, `f16`,
    /// `bf16`, `f32`, a user-defined one).
    fn float_suffix(&self) -> &str {
        let b = self.text.as_bytes();
        let (mut i, exp) = if self.hex { (2, b'p') } else { (0, b'e') };
        let mantissa = |c: u8| {
            c == b'.'
                || if self.hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
        };
        while i < b.len() && mantissa(b[i]) {
            i += 1;
        }
        if i < b.len() && b[i] == exp {
            i += 1;
            if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                i += 1;
            }
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        &self.text[i..]
    }
}

/// Whether a numeric literal is a `double` or `long double`.
pub(super) fn is_double_literal(text: &str) -> bool {
    let n = Number::read(text);
    if !n.floating {
        return false;
    }
    // Suffix: none or `l` means double / long double; `f`, `f16`, `bf16`, user-defined do not.
    matches!(n.float_suffix(), "" | "l" | "f64" | "f128")
}

/// The narrowest format holding a decimal floating literal's value (hexadecimal ones are
/// not read: `Wider`).
fn exactness(digits: &str) -> Exact {
    let Some(v) = digits.parse::<f64>().ok().filter(|v| v.is_finite()) else {
        return Exact::Wider;
    };
    if f64::from(v as f32) != v {
        return Exact::Wider;
    }
    let a = v.abs();
    if a == 0.0 {
        return Exact::Half;
    }
    // Half: 11 significant bits, normals up to 65504, subnormals multiples of 2^-24.
    let exp = a.log2().floor().max(-14.0) as i32;
    let in_half =
        (2f64.powi(-24)..=65504.0).contains(&a) && (a * 2f64.powi(10 - exp)).fract() == 0.0;
    if in_half {
        Exact::Half
    } else {
        Exact::Float
    }
}

/// The type of a numeric literal from its suffix.
pub fn number_literal(text: &str) -> Lit {
    let n = Number::read(text);
    if n.floating {
        let suffix = n.float_suffix();
        let kind = match suffix {
            // `bf16` is `std::bfloat16_t`: no fp16; `f16` is `std::float16_t`, a half.
            "f" | "f32" | "bf16" => FloatLit::Float,
            "l" | "f128" => FloatLit::LongDouble,
            "f16" => FloatLit::Half,
            "" | "f64" => FloatLit::Double,
            // A user-defined literal: its operator decides; no aspect is guessed.
            _ => FloatLit::Float,
        };
        let digits = &n.text[..n.text.len() - suffix.len()];
        return Lit::Float(kind, exactness(digits));
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
        for t in [
            "1.0", "1.", ".5", "1e5", "1.0L", "1'000.5", "0x1p3", "-1.0", "- 2.5",
        ] {
            assert!(is_double_literal(t), "{t}");
        }
        for t in [
            "1.0f", "1.0F", "10", "0x1f", "0x1p3f", "1.0_km", "1.0f16", "1.0bf16", "1.0f32",
            "2e-3f16",
        ] {
            assert!(!is_double_literal(t), "{t}");
        }
    }

    #[test]
    fn literals_read_their_kind_and_value() {
        assert_eq!(
            number_literal("2.0f"),
            Lit::Float(FloatLit::Float, Exact::Half)
        );
        assert_eq!(
            number_literal("2.0L"),
            Lit::Float(FloatLit::LongDouble, Exact::Half)
        );
        assert_eq!(
            number_literal("2e3"),
            Lit::Float(FloatLit::Double, Exact::Half)
        );
        assert_eq!(
            number_literal("1.0f16"),
            Lit::Float(FloatLit::Half, Exact::Half)
        );
        assert_eq!(
            number_literal("1.0bf16"),
            Lit::Float(FloatLit::Float, Exact::Half)
        );
        assert_eq!(
            number_literal("1.0f32"),
            Lit::Float(FloatLit::Float, Exact::Half)
        );
        assert_eq!(
            number_literal("1.0f64"),
            Lit::Float(FloatLit::Double, Exact::Half)
        );
        assert_eq!(
            number_literal("0x1.8p3"),
            Lit::Float(FloatLit::Double, Exact::Wider)
        );
        // Exactness, as LLVM narrows with it: 0.1 and 1e-6 are no float; 2049 no half.
        assert_eq!(
            number_literal("0.1"),
            Lit::Float(FloatLit::Double, Exact::Wider)
        );
        assert_eq!(
            number_literal("1e-6"),
            Lit::Float(FloatLit::Double, Exact::Wider)
        );
        assert_eq!(
            number_literal("16777217.0"),
            Lit::Float(FloatLit::Double, Exact::Wider)
        );
        assert_eq!(
            number_literal("2049."),
            Lit::Float(FloatLit::Double, Exact::Float)
        );
        assert_eq!(
            number_literal("1'000.5"),
            Lit::Float(FloatLit::Double, Exact::Half)
        );
        assert_eq!(
            number_literal("1024.5"),
            Lit::Float(FloatLit::Double, Exact::Float)
        );
        assert_eq!(
            number_literal("-0.25"),
            Lit::Float(FloatLit::Double, Exact::Half)
        );
        assert_eq!(
            number_literal("1e5"),
            Lit::Float(FloatLit::Double, Exact::Float)
        );
        assert_eq!(
            number_literal("3.0e-8"),
            Lit::Float(FloatLit::Double, Exact::Wider)
        );
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

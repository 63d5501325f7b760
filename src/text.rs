//! Byte ranges and line/column conversion, shared by every front end.
//!
//! Ranges are byte offsets into UTF-8 text; line and column numbers exist only at the edges
//! (diagnostic output, editor protocols), computed from a [`LineIndex`].

use serde::Serialize;

/// Half-open byte range `[start, end)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextRange {
    pub start: usize,
    pub end: usize,
}

impl TextRange {
    pub fn new(start: usize, end: usize) -> Self {
        debug_assert!(start <= end);
        Self { start, end }
    }

    pub fn empty(at: usize) -> Self {
        Self { start: at, end: at }
    }

    pub fn cover(self, other: TextRange) -> Self {
        Self::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// 1-based line and column positions of a range. Columns count Unicode scalar values, so a
/// position means the same thing whatever the editor's encoding; `end_column` is exclusive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LineCol {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

/// Start offsets of every line of a text.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self {
            line_starts,
            len: text.len(),
        }
    }

    /// 0-based line and 0-based column in chars of a byte offset (clamped to the text and
    /// moved back to a char boundary).
    pub fn position(&self, text: &str, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(self.len);
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let col = text[self.line_starts[line]..offset].chars().count();
        (line as u32, col as u32)
    }

    pub fn line_col(&self, text: &str, range: TextRange) -> LineCol {
        let (l0, c0) = self.position(text, range.start);
        let (l1, c1) = self.position(text, range.end);
        LineCol {
            line: l0 + 1,
            column: c0 + 1,
            end_line: l1 + 1,
            end_column: c1 + 1,
        }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }
}

/// Byte range of the character at `offset`, or an empty range at the end of the text; used to
/// give point diagnostics (a syntax error) a visible width.
pub fn char_range_at(text: &str, offset: usize) -> TextRange {
    let offset = offset.min(text.len());
    match text[offset..].chars().next() {
        Some(c) if c != '\n' => TextRange::new(offset, offset + c.len_utf8()),
        _ => TextRange::empty(offset),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_chars_not_bytes() {
        let text = "ab\néé: x\n";
        let idx = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(idx.position(text, x), (1, 4));
        assert_eq!(
            idx.line_col(text, TextRange::new(x, x + 1)),
            LineCol {
                line: 2,
                column: 5,
                end_line: 2,
                end_column: 6
            }
        );
    }

    #[test]
    fn offsets_past_the_end_or_inside_a_char_are_clamped() {
        let text = "é";
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, 1), (0, 0));
        assert_eq!(idx.position(text, 99), (0, 1));
    }

    #[test]
    fn char_range_covers_one_char_but_not_a_newline() {
        assert_eq!(char_range_at("aé\n", 1), TextRange::new(1, 3));
        assert_eq!(char_range_at("a\n", 1), TextRange::empty(1));
        assert_eq!(char_range_at("a", 5), TextRange::empty(1));
    }
}

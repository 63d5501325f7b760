//! Byte ranges and line/column conversion, shared by every front end.
//!
//! Ranges are byte offsets into UTF-8 text; line and column numbers exist only at the edges
//! (diagnostic output, editor protocols), computed from a [`LineIndex`].

use serde::{Deserialize, Serialize};

/// Half-open byte range `[start, end)`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
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

/// A piece of its file: a byte range in 8 bytes. Its line and column come from the file's
/// [`Lines`] ([`FileFacts::locate`](crate::syntax::FileFacts::locate)) when a diagnostic or
/// an answer needs them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// Offsets past 4 GiB are clamped (no source file is).
    pub fn new(range: TextRange) -> Self {
        let clamp = |i: usize| i.min(u32::MAX as usize) as u32;
        Self {
            start: clamp(range.start),
            end: clamp(range.end),
        }
    }

    pub fn range(self) -> TextRange {
        TextRange::new(self.start as usize, self.end as usize)
    }
}

/// 1-based line and column positions of a range. Columns count Unicode scalar values, so a
/// position means the same thing whatever the editor's encoding; `end_column` is exclusive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
    /// Columns are byte counts: most source files are ASCII, and every span of a file asks.
    ascii: bool,
}

impl LineIndex {
    /// Lines end at `\n`, `\r\n` or a lone `\r`, as LSP (and clang's lexer) count them.
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        if bytes.contains(&b'\r') {
            line_starts.extend(bytes.iter().enumerate().filter_map(|(i, &b)| {
                let ends = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
                ends.then_some(i + 1)
            }));
        } else {
            // Only `\n` ends lines: the search for it is vectorised, the byte loop is not.
            line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        }
        Self {
            line_starts,
            len: text.len(),
            ascii: text.is_ascii(),
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
        let col = if self.ascii {
            offset - self.line_starts[line]
        } else {
            text[self.line_starts[line]..offset].chars().count()
        };
        (line as u32, col as u32)
    }

    /// The byte range of a [`LineCol`] (the inverse of [`LineIndex::line_col`]), clamped to
    /// the text.
    pub fn range_of(&self, text: &str, pos: LineCol) -> TextRange {
        let at = |line: u32, column: u32| {
            let line = line.saturating_sub(1);
            let chars = column.saturating_sub(1) as usize;
            let Some(&start) = self.line_starts.get(line as usize) else {
                return self.len;
            };
            text[start..]
                .char_indices()
                .nth(chars)
                .map_or(self.len, |(i, _)| start + i)
        };
        let start = at(pos.line, pos.column);
        TextRange::new(start, at(pos.end_line, pos.end_column).max(start))
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

    /// The 0-based line holding a byte offset (clamped to the text).
    pub fn line_of(&self, offset: usize) -> u32 {
        (self
            .line_starts
            .partition_point(|&s| s <= offset.min(self.len))
            - 1) as u32
    }

    /// Byte range of a 0-based line, its line break excluded; empty at the text's end past the
    /// last line.
    pub fn line_range(&self, text: &str, line: u32) -> TextRange {
        let Some(&start) = self.line_starts.get(line as usize) else {
            return TextRange::empty(self.len);
        };
        let mut end = self
            .line_starts
            .get(line as usize + 1)
            .map_or(self.len, |&e| e - 1);
        // In `\r\n` the `\r` is part of the line break too.
        if end > start
            && text.as_bytes().get(end) == Some(&b'\n')
            && text.as_bytes()[end - 1] == b'\r'
        {
            end -= 1;
        }
        TextRange::new(start, end)
    }

    /// The byte offset of a 0-based (line, character) position whose character counts code
    /// units of `enc`; clamped to the line and the text, as LSP asks of servers.
    pub fn offset_of(&self, text: &str, line: u32, character: u32, enc: Encoding) -> usize {
        let Some(&start) = self.line_starts.get(line as usize) else {
            return text.len();
        };
        let end = self
            .line_starts
            .get(line as usize + 1)
            .map_or(text.len(), |&e| e - 1);
        let mut units = 0u32;
        for (i, c) in text[start..end].char_indices() {
            if units >= character || c == '\r' {
                return start + i;
            }
            units += match enc {
                Encoding::Utf8 => c.len_utf8() as u32,
                Encoding::Utf16 => c.len_utf16() as u32,
            };
        }
        end
    }

    /// The 0-based (line, character) of a byte offset, characters in code units of `enc`.
    pub fn position_in(&self, text: &str, offset: usize, enc: Encoding) -> (u32, u32) {
        let mut offset = offset.min(self.len);
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let prefix = &text[self.line_starts[line]..offset];
        let character = match enc {
            Encoding::Utf8 => prefix.len(),
            Encoding::Utf16 => prefix.encode_utf16().count(),
        };
        (line as u32, character as u32)
    }
}

/// The unit of LSP's `character` (negotiated at initialization).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
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

/// Line and column positions of a text without the text: line starts and where multi-byte
/// characters are, so facts of a closed file can say where their spans are (a `LineCol` per
/// span was a seventh of the facts' memory).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lines {
    starts: Vec<u32>,
    /// Each multi-byte character: its offset and its bytes beyond the first.
    wide: Vec<(u32, u8)>,
    len: u32,
}

impl Lines {
    /// Lines end as [`LineIndex`] says. Offsets past 4 GiB are clamped (no source file is).
    pub fn new(text: &str) -> Self {
        let clamp = |i: usize| i.min(u32::MAX as usize) as u32;
        let index = LineIndex::new(text);
        let starts = index.line_starts.iter().map(|&s| clamp(s)).collect();
        let wide = if index.ascii {
            Vec::new()
        } else {
            text.char_indices()
                .filter(|(_, c)| c.len_utf8() > 1)
                .map(|(i, c)| (clamp(i), (c.len_utf8() - 1) as u8))
                .collect()
        };
        Self {
            starts,
            wide,
            len: clamp(text.len()),
        }
    }

    /// 0-based line and 0-based column in chars, as [`LineIndex::position`].
    pub fn position(&self, offset: usize) -> (u32, u32) {
        let (line, bytes, wide) = self.locate(offset);
        (
            line,
            bytes - wide.iter().map(|&(_, e)| e as u32).sum::<u32>(),
        )
    }

    /// Whether these are a text's lines (a default `Lines` knows none).
    pub fn is_known(&self) -> bool {
        !self.starts.is_empty()
    }

    /// 0-based line and column in `enc` units, as [`LineIndex::position_in`] gives them with
    /// the text: diagnostics of a closed file are placed without reading it again.
    pub fn position_in(&self, offset: usize, enc: Encoding) -> (u32, u32) {
        let (line, bytes, wide) = self.locate(offset);
        match enc {
            Encoding::Utf8 => (line, bytes),
            // A character of n bytes is one UTF-16 unit, two when it takes four bytes.
            Encoding::Utf16 => (
                line,
                bytes
                    - wide
                        .iter()
                        .map(|&(_, e)| e as u32 - u32::from(e == 3))
                        .sum::<u32>(),
            ),
        }
    }

    /// The line of `offset` (clamped, and moved back to the start of a multi-byte character
    /// it is inside), the bytes before it on its line, and the multi-byte characters among
    /// those bytes.
    fn locate(&self, offset: usize) -> (u32, u32, &[(u32, u8)]) {
        let mut offset = offset.min(self.len as usize) as u32;
        let at = self.wide.partition_point(|&(o, _)| o < offset);
        if let Some(&(o, extra)) = at.checked_sub(1).map(|i| &self.wide[i]) {
            if offset <= o + extra as u32 {
                offset = o;
            }
        }
        let line = self.starts.partition_point(|&s| s <= offset).max(1) - 1;
        let start = self.starts.get(line).copied().unwrap_or(0);
        let from = self.wide.partition_point(|&(o, _)| o < start);
        let to = self.wide.partition_point(|&(o, _)| o < offset);
        (line as u32, offset - start, &self.wide[from..to])
    }

    pub fn line_col(&self, range: TextRange) -> LineCol {
        let (l0, c0) = self.position(range.start);
        let (l1, c1) = self.position(range.end);
        LineCol {
            line: l0 + 1,
            column: c0 + 1,
            end_line: l1 + 1,
            end_column: c1 + 1,
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn range_of_inverts_line_col() {
        let text = "int a;\n  double \u{e9}t\u{e9} = 1.5;\nx";
        let index = LineIndex::new(text);
        let start = text.find("\u{e9}t").unwrap();
        for range in [
            TextRange::new(start, start + "\u{e9}t\u{e9}".len()),
            TextRange::new(2, text.find("1.5").unwrap()),
            TextRange::empty(text.len()),
        ] {
            let pos = index.line_col(text, range);
            assert_eq!(index.range_of(text, pos), range, "{pos:?}");
        }
    }

    #[test]
    fn lone_carriage_returns_end_lines_as_in_lsp() {
        // Found by the lsp_edits fuzz target: "2\r=" has two lines for an editor.
        let text = "2\r=\r\nx";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 3);
        for enc in [Encoding::Utf8, Encoding::Utf16] {
            assert_eq!(index.position_in(text, 2, enc), (1, 0));
            assert_eq!(index.offset_of(text, 1, 0, enc), 2);
            assert_eq!(
                index.offset_of(text, 1, 9, enc),
                3,
                "clamped before the \\r\\n"
            );
            assert_eq!(index.offset_of(text, 2, 1, enc), 6);
        }
    }

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
    fn lines_place_lsp_positions_as_the_text_does() {
        let text = "a\né😀x = 1\r\n\rtab\té€\n😀";
        let idx = LineIndex::new(text);
        let lines = Lines::new(text);
        for offset in 0..=text.len() + 2 {
            for enc in [Encoding::Utf8, Encoding::Utf16] {
                assert_eq!(
                    lines.position_in(offset, enc),
                    idx.position_in(text, offset, enc),
                    "offset {offset} {enc:?}"
                );
            }
        }
    }

    #[test]
    fn offsets_past_the_end_or_inside_a_char_are_clamped() {
        let text = "é";
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, 1), (0, 0));
        assert_eq!(idx.position(text, 99), (0, 1));
    }

    #[test]
    fn lsp_positions_in_utf8_and_utf16() {
        // 'é' is 2 bytes / 1 UTF-16 unit, '😀' 4 bytes / 2 units.
        let text = "a\né😀x = 1\n";
        let idx = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(idx.position_in(text, x, Encoding::Utf16), (1, 3));
        assert_eq!(idx.position_in(text, x, Encoding::Utf8), (1, 6));
        assert_eq!(idx.offset_of(text, 1, 3, Encoding::Utf16), x);
        assert_eq!(idx.offset_of(text, 1, 6, Encoding::Utf8), x);
        // Past the end of a line: its end; past the last line: the text's end.
        assert_eq!(idx.offset_of(text, 0, 99, Encoding::Utf16), 1);
        assert_eq!(idx.offset_of(text, 9, 0, Encoding::Utf16), text.len());
    }

    #[test]
    fn line_ranges_leave_out_every_kind_of_line_break() {
        let text = "ab\r\ncd\ref\n\ng";
        let idx = LineIndex::new(text);
        let lines: Vec<&str> = (0..6)
            .map(|l| {
                let r = idx.line_range(text, l);
                &text[r.start..r.end]
            })
            .collect();
        assert_eq!(lines, ["ab", "cd", "ef", "", "g", ""]);
        assert_eq!(idx.line_of(4), 1);
        assert_eq!(idx.line_of(99), 4);
    }

    #[test]
    fn char_range_covers_one_char_but_not_a_newline() {
        assert_eq!(char_range_at("aé\n", 1), TextRange::new(1, 3));
        assert_eq!(char_range_at("a\n", 1), TextRange::empty(1));
        assert_eq!(char_range_at("a", 5), TextRange::empty(1));
    }

    /// Without the text, the same positions as the text's own index, in ASCII and not, line
    /// breaks of every kind, offsets inside a character and past the end.
    #[test]
    fn lines_agree_with_the_line_index() {
        for text in [
            "",
            "int x;\nint y;\n",
            "a\r\nb\rc\n",
            "// é\ndouble ü = 1.0; // 😀 x\r\n  ßß\n",
            "😀😀\n\n€",
        ] {
            let index = LineIndex::new(text);
            let lines = Lines::new(text);
            for offset in 0..=text.len() + 2 {
                assert_eq!(
                    lines.position(offset),
                    index.position(text, offset),
                    "{text:?} at {offset}"
                );
            }
        }
    }
}

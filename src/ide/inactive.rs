//! Code the preprocessor skips, as whole lines: what editors grey out (semantic tokens, clangd's
//! `textDocument/inactiveRegions`).

use crate::text::{LineIndex, TextRange};

/// Lines `first..=last` (0-based) of skipped code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineSpan {
    pub first: u32,
    pub last: u32,
}

/// The lines the skipped `regions` cover in `text`, in order. The regions may come from an
/// older text (an edit not yet analysed): offsets are clamped to `text`, so every line exists.
/// A region that ends at the start of a line, or in the blanks before a directive, leaves that
/// line out; spans that come to overlap once clamped are merged.
pub fn line_spans(text: &str, index: &LineIndex, regions: &[TextRange]) -> Vec<LineSpan> {
    let mut spans: Vec<LineSpan> = Vec::new();
    for r in regions {
        let (start, end) = (r.start.min(text.len()), r.end.min(text.len()));
        if start >= end {
            continue;
        }
        let first = index.line_of(start);
        let mut last = index.line_of(end);
        let line_start = index.line_range(text, last).start;
        let blanks = text.as_bytes()[line_start..end]
            .iter()
            .all(|b| matches!(b, b' ' | b'\t'));
        if blanks {
            if last == first {
                continue;
            }
            last -= 1;
        }
        match spans.last_mut() {
            Some(prev) if first <= prev.last => prev.last = prev.last.max(last),
            _ => spans.push(LineSpan { first, last }),
        }
    }
    spans
}

/// Each non-empty line of the spans with its byte range (line break excluded): one editor
/// token per line, as clients without multi-line tokens need.
pub fn lines(text: &str, index: &LineIndex, spans: &[LineSpan]) -> Vec<(u32, TextRange)> {
    spans
        .iter()
        .flat_map(|s| s.first..=s.last)
        .map(|line| (line, index.line_range(text, line)))
        .filter(|(_, r)| r.end > r.start)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str, regions: &[TextRange]) -> Vec<(u32, u32)> {
        line_spans(text, &LineIndex::new(text), regions)
            .into_iter()
            .map(|s| (s.first, s.last))
            .collect()
    }

    #[test]
    fn regions_from_the_preprocessor_become_the_lines_between_directives() {
        let text = "#if 0\na\n\nb\n#else\nc\n#endif\n";
        let from = text.find("a\n").unwrap();
        let to = text.find("#else").unwrap();
        assert_eq!(spans(text, &[TextRange::new(from, to)]), [(1, 3)]);
        let index = LineIndex::new(text);
        let l = lines(
            text,
            &index,
            &line_spans(text, &index, &[TextRange::new(from, to)]),
        );
        let texts: Vec<(u32, &str)> = l.iter().map(|(n, r)| (*n, &text[r.start..r.end])).collect();
        assert_eq!(texts, [(1, "a"), (3, "b")], "the empty line has no token");
    }

    #[test]
    fn an_indented_directive_and_a_last_line_without_break() {
        let text = "#if 0\n x\n  #endif";
        let from = text.find(" x").unwrap();
        let to = text.find("#endif").unwrap();
        assert_eq!(spans(text, &[TextRange::new(from, to)]), [(1, 1)]);
        // Up to the end of a text without a final line break.
        let text = "#if 0\nx";
        assert_eq!(spans(text, &[TextRange::new(6, 7)]), [(1, 1)]);
        // Empty and out-of-range regions are nothing.
        assert_eq!(
            spans(text, &[TextRange::new(6, 6), TextRange::new(50, 60)]),
            []
        );
    }

    #[test]
    fn regions_of_an_older_text_are_clamped_to_the_current_one() {
        // The text was cut short since the regions were computed.
        let text = "#if 0\nab\n";
        let index = LineIndex::new(text);
        let s = line_spans(
            text,
            &index,
            &[TextRange::new(6, 40), TextRange::new(30, 50)],
        );
        assert_eq!(s, [LineSpan { first: 1, last: 1 }]);
        assert_eq!(lines(text, &index, &s), [(1, TextRange::new(6, 8))]);
        // Regions cut at a multi-byte character's middle still give whole lines.
        let text = "#if 0\né\n#endif\n";
        let index = LineIndex::new(text);
        assert_eq!(
            lines(
                text,
                &index,
                &line_spans(text, &index, &[TextRange::new(7, 8)])
            ),
            [(1, TextRange::new(6, 8))]
        );
    }

    #[test]
    fn the_preprocessors_regions_give_the_skipped_lines() {
        let text = "int a;\n#if 0\nint b;\n  #if 1\n  int c;\n  #endif\n#elif UNDEFINED\nint d;\n  #else\nint e;\n#endif\n#ifdef NOPE\nint f;\n#endif\n";
        let facts = crate::syntax::extract(text);
        let index = LineIndex::new(text);
        let s = line_spans(text, &index, &facts.inactive_regions());
        let s: Vec<(u32, u32)> = s.iter().map(|s| (s.first, s.last)).collect();
        // Nested directives inside a skipped group are skipped with it; `#else` is taken.
        assert_eq!(s, [(2, 7), (12, 12)]);
    }

    #[test]
    fn crlf_lines() {
        let text = "#if 0\r\na\r\n#endif\r\n";
        let from = text.find('a').unwrap();
        let to = text.find("#endif").unwrap();
        let index = LineIndex::new(text);
        let s = line_spans(text, &index, &[TextRange::new(from, to)]);
        assert_eq!(lines(text, &index, &s), [(1, TextRange::new(7, 8))]);
    }
}

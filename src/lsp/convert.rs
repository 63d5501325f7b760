//! Domain data to LSP types and back (positions in the negotiated encoding).

use async_lsp::lsp_types::{
    self as lsp, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Position, TextDocumentContentChangeEvent, Url,
};

use crate::diagnostics::{Diagnostic, Severity};
use crate::ide::inactive::LineSpan;
use crate::text::{Encoding, LineIndex, TextRange};

pub fn range(text: &str, index: &LineIndex, r: TextRange, enc: Encoding) -> lsp::Range {
    let (l0, c0) = index.position_in(text, r.start, enc);
    let (l1, c1) = index.position_in(text, r.end, enc);
    lsp::Range::new(Position::new(l0, c0), Position::new(l1, c1))
}

/// `range` with the positions a file's facts keep instead of its text.
pub fn range_in_lines(lines: &crate::text::Lines, r: TextRange, enc: Encoding) -> lsp::Range {
    let (l0, c0) = lines.position_in(r.start, enc);
    let (l1, c1) = lines.position_in(r.end, enc);
    lsp::Range::new(Position::new(l0, c0), Position::new(l1, c1))
}

/// Delta-encoded semantic tokens, one per `(line, byte range)` (in line order, each range
/// inside its line), all of one type and modifier set; lengths in `enc` units.
pub fn semantic_tokens(
    text: &str,
    index: &LineIndex,
    lines: &[(u32, TextRange)],
    token_type: u32,
    modifiers: u32,
    enc: Encoding,
) -> Vec<lsp::SemanticToken> {
    let mut prev = (0, 0);
    lines
        .iter()
        .map(|&(_, r)| {
            let (line, start) = index.position_in(text, r.start, enc);
            let (_, end) = index.position_in(text, r.end, enc);
            let delta_line = line - prev.0;
            let delta_start = if delta_line == 0 {
                start - prev.1
            } else {
                start
            };
            prev = (line, start);
            lsp::SemanticToken {
                delta_line,
                delta_start,
                length: end - start,
                token_type,
                token_modifiers_bitset: modifiers,
            }
        })
        .collect()
}

/// Whole lines, from the start of the first to the end of the last (line break excluded).
pub fn line_span(text: &str, index: &LineIndex, span: LineSpan, enc: Encoding) -> lsp::Range {
    let end = index.line_range(text, span.last).end;
    let (l1, c1) = index.position_in(text, end, enc);
    lsp::Range::new(Position::new(span.first, 0), Position::new(l1, c1))
}

/// A diagnostic, its chain as related information (one location per call and the use), so a
/// click in the editor walks the chain. `locate` converts a range of any file of the chain.
pub fn diagnostic(
    d: &Diagnostic,
    mut locate: impl FnMut(&str, TextRange) -> Option<lsp::Range>,
) -> Option<lsp::Diagnostic> {
    let related: Vec<DiagnosticRelatedInformation> = d
        .chain
        .iter()
        .filter_map(|step| {
            let uri = Url::from_file_path(&*step.file).ok()?;
            Some(DiagnosticRelatedInformation {
                location: Location::new(uri, locate(&step.file, step.range)?),
                message: step.message.clone(),
            })
        })
        .collect();
    Some(lsp::Diagnostic {
        range: locate(&d.file, d.range)?,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Note => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code.as_str().into())),
        source: Some("sycl-analyzer".into()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        ..lsp::Diagnostic::default()
    })
}

/// Applies one `didChange` content change (a range edit, or the whole text).
pub fn apply_change(text: &mut String, change: &TextDocumentContentChangeEvent, enc: Encoding) {
    match change.range {
        None => *text = change.text.clone(),
        Some(r) => {
            let index = LineIndex::new(text);
            let start = index.offset_of(text, r.start.line, r.start.character, enc);
            let end = index
                .offset_of(text, r.end.line, r.end.character, enc)
                .max(start);
            text.replace_range(start..end, &change.text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(l0: u32, c0: u32, l1: u32, c1: u32, t: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(lsp::Range::new(
                Position::new(l0, c0),
                Position::new(l1, c1),
            )),
            range_length: None,
            text: t.into(),
        }
    }

    #[test]
    fn tokens_and_line_spans_count_in_the_negotiated_unit() {
        let text = "#if 0\né😀 x\n\n  y\n#endif\n";
        let index = LineIndex::new(text);
        let lines = [
            (1, index.line_range(text, 1)),
            (3, index.line_range(text, 3)),
        ];
        let t = semantic_tokens(text, &index, &lines, 0, 1, Encoding::Utf16);
        let token = |dl, ds, len| lsp::SemanticToken {
            delta_line: dl,
            delta_start: ds,
            length: len,
            token_type: 0,
            token_modifiers_bitset: 1,
        };
        assert_eq!(t, [token(1, 0, 5), token(2, 0, 3)]);
        let t = semantic_tokens(text, &index, &lines, 0, 1, Encoding::Utf8);
        assert_eq!(t[0].length, 8);
        let span = LineSpan { first: 1, last: 3 };
        assert_eq!(
            line_span(text, &index, span, Encoding::Utf16),
            lsp::Range::new(Position::new(1, 0), Position::new(3, 3))
        );
        let span = LineSpan { first: 1, last: 1 };
        assert_eq!(
            line_span(text, &index, span, Encoding::Utf8).end,
            Position::new(1, 8)
        );
    }

    #[test]
    fn edits_after_non_ascii_in_both_encodings() {
        let mut t = String::from("é😀 double x;\n");
        // UTF-16: é=1, 😀=2 units, so "double" starts at 4.
        apply_change(&mut t, &edit(0, 4, 0, 10, "float"), Encoding::Utf16);
        assert_eq!(t, "é😀 float x;\n");
        // UTF-8: é=2, 😀=4 bytes, so "float" starts at 7.
        apply_change(&mut t, &edit(0, 7, 0, 12, "int"), Encoding::Utf8);
        assert_eq!(t, "é😀 int x;\n");
        apply_change(&mut t, &edit(1, 0, 1, 0, "y"), Encoding::Utf16);
        assert_eq!(t, "é😀 int x;\ny");
    }
}

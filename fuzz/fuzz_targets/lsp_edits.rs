//! A document kept by incremental `didChange` edits equals the same edits applied to the
//! whole text by a plain model of LSP positions, in both encodings.
#![no_main]
use arbitrary::Arbitrary;
use async_lsp::lsp_types::{Position, Range, TextDocumentContentChangeEvent};
use libfuzzer_sys::fuzz_target;
use sycl_analyzer::lsp::convert::apply_change;
use sycl_analyzer::text::{Encoding, LineIndex};

#[derive(Arbitrary, Debug)]
struct Edit {
    start: (u8, u8),
    end: (u8, u8),
    text: String,
    whole: bool,
}

#[derive(Arbitrary, Debug)]
struct Input {
    initial: String,
    utf16: bool,
    edits: Vec<Edit>,
}

/// The byte offset of an LSP position: lines end at "\n", "\r\n" or a lone "\r"; a character
/// past the end of its line is the end of the line; a line past the end is the end of the
/// text; a position inside a character moves past it.
fn model_offset(text: &str, line: u32, character: u32, utf16: bool) -> usize {
    // (start, end of content) of every line.
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\n' || c == '\r' {
            lines.push((start, i));
            if c == '\r' && chars.peek().map(|&(_, n)| n) == Some('\n') {
                chars.next();
                start = i + 2;
            } else {
                start = i + 1;
            }
        }
    }
    lines.push((start, text.len()));
    let Some(&(s, e)) = lines.get(line as usize) else {
        return text.len();
    };
    let mut units = 0;
    for (j, c) in text[s..e].char_indices() {
        if units >= character {
            return s + j;
        }
        units += if utf16 { c.len_utf16() } else { c.len_utf8() } as u32;
    }
    e
}

fuzz_target!(|input: Input| {
    let enc = if input.utf16 {
        Encoding::Utf16
    } else {
        Encoding::Utf8
    };
    let mut doc = input.initial.clone();
    let mut model = input.initial;
    for e in input.edits.iter().take(64) {
        let range = Range::new(
            Position::new(e.start.0.into(), e.start.1.into()),
            Position::new(e.end.0.into(), e.end.1.into()),
        );
        let change = TextDocumentContentChangeEvent {
            range: (!e.whole).then_some(range),
            range_length: None,
            text: e.text.clone(),
        };
        apply_change(&mut doc, &change, enc);
        if e.whole {
            model = e.text.clone();
        } else {
            let s = model_offset(&model, e.start.0.into(), e.start.1.into(), input.utf16);
            let t = model_offset(&model, e.end.0.into(), e.end.1.into(), input.utf16);
            model.replace_range(s..t.max(s), &e.text);
        }
        assert_eq!(doc, model, "after {e:?}");
    }
    // Positions computed for the final text lead back to their offsets.
    let index = LineIndex::new(&doc);
    for (offset, _) in doc.char_indices().chain(std::iter::once((doc.len(), ' '))) {
        // Between the two bytes of a "\r\n" is no position at all.
        if doc[..offset].ends_with('\r') && doc[offset..].starts_with('\n') {
            continue;
        }
        let (l, c) = index.position_in(&doc, offset, enc);
        assert_eq!(
            index.offset_of(&doc, l, c, enc),
            offset,
            "offset {offset} in {doc:?}"
        );
    }
});

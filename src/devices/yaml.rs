//! A YAML tree where every key and value carries its byte range.
//!
//! Built from `saphyr-parser` events rather than `saphyr`'s `MarkedYaml`: the marked loader
//! rejects a whole document on a duplicate key, while a device config must warn about a
//! duplicate target and let the last one win, which needs every key of a mapping, in order.
//! Scalars are typed by `saphyr`'s own YAML 1.2 core-schema resolution.

use std::borrow::Cow;
use std::collections::HashMap;

use saphyr::Scalar;
use saphyr_parser::{Event, Parser, ScalarStyle, Span};

use crate::text::TextRange;

/// Guards against alias expansion bombs ("billion laughs").
const MAX_NODES: usize = 1_000_000;
/// The tree is built recursively; deeper nesting than any config needs is refused before it
/// can exhaust the stack.
const MAX_DEPTH: usize = 128;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub range: TextRange,
    pub value: Value,
}

impl Node {
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// What a user would call this node's type, for "expected X, found Y" messages.
    pub fn kind_name(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

/// The documents of a YAML stream. An empty stream has none.
pub fn parse(text: &str) -> Result<Vec<Node>, SyntaxError> {
    let offsets = CharOffsets::new(text);
    let mut builder = Builder {
        offsets: &offsets,
        anchors: HashMap::new(),
        nodes: 0,
        depth: 0,
    };
    let mut parser = Parser::new_from_str(text);
    let mut docs = Vec::new();
    let mut events = std::iter::from_fn(|| parser.next_event());
    loop {
        let (event, span) = next(&mut events, &offsets)?;
        match event {
            Event::StreamStart | Event::DocumentEnd | Event::Nothing => {}
            Event::DocumentStart(_) => {
                let (event, span) = next(&mut events, &offsets)?;
                docs.push(builder.node(event, span, &mut events)?);
            }
            Event::StreamEnd => return Ok(docs),
            other => {
                return Err(SyntaxError {
                    offset: offsets.byte(span.start.index()),
                    message: format!("unexpected YAML event {other:?}"),
                })
            }
        }
    }
}

type EventResult<'a> = Result<(Event<'a>, Span), saphyr_parser::ScanError>;

fn next<'a>(
    events: &mut impl Iterator<Item = EventResult<'a>>,
    offsets: &CharOffsets,
) -> Result<(Event<'a>, Span), SyntaxError> {
    match events.next() {
        Some(Ok(ev)) => Ok(ev),
        Some(Err(e)) => Err(SyntaxError {
            offset: offsets.byte(e.marker().index()),
            message: e.info().to_string(),
        }),
        None => Err(SyntaxError {
            offset: offsets.len,
            message: "unexpected end of YAML stream".into(),
        }),
    }
}

struct Builder<'o> {
    offsets: &'o CharOffsets,
    anchors: HashMap<usize, Node>,
    nodes: usize,
    depth: usize,
}

impl Builder<'_> {
    fn node<'a>(
        &mut self,
        event: Event<'a>,
        span: Span,
        events: &mut impl Iterator<Item = EventResult<'a>>,
    ) -> Result<Node, SyntaxError> {
        if self.depth >= MAX_DEPTH {
            return Err(SyntaxError {
                offset: self.offsets.byte(span.start.index()),
                message: format!("nesting deeper than {MAX_DEPTH} levels"),
            });
        }
        self.depth += 1;
        let node = self.node_inner(event, span, events);
        self.depth -= 1;
        node
    }

    fn node_inner<'a>(
        &mut self,
        event: Event<'a>,
        span: Span,
        events: &mut impl Iterator<Item = EventResult<'a>>,
    ) -> Result<Node, SyntaxError> {
        let start = self.offsets.byte(span.start.index());
        let end = self.offsets.byte(span.end.index());
        // Block collections end where the next token starts, possibly lines later, so only a
        // flow collection (whose start event covers its `[` or `{`) owns its end event.
        let flow = end > start;
        let (node, anchor) = match event {
            Event::Scalar(text, style, anchor, tag) => {
                let value = scalar(text, style, tag.as_ref());
                self.count(1, start)?;
                (
                    Node {
                        range: TextRange::new(start, end),
                        value,
                    },
                    anchor,
                )
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                let is_map = matches!(event, Event::MappingStart(..));
                let (children, last) = self.children(events, flow, end)?;
                let value = if is_map {
                    // The parser guarantees a value event after every key event.
                    let mut it = children.into_iter();
                    Value::Map(std::iter::from_fn(|| Some((it.next()?, it.next()?))).collect())
                } else {
                    Value::Seq(children)
                };
                self.count(1, start)?;
                (
                    Node {
                        range: TextRange::new(start, last.max(start)),
                        value,
                    },
                    anchor,
                )
            }
            Event::Alias(id) => {
                let target = self.anchors.get(&id).cloned().ok_or_else(|| SyntaxError {
                    offset: start,
                    message: "alias to an unknown anchor".into(),
                })?;
                self.count(size(&target), start)?;
                // The alias stands where it is written, whatever it expands to.
                return Ok(Node {
                    range: TextRange::new(start, end),
                    value: target.value,
                });
            }
            other => {
                return Err(SyntaxError {
                    offset: start,
                    message: format!("unexpected YAML event {other:?}"),
                })
            }
        };
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        Ok(node)
    }

    /// The nodes of a collection up to its end event, and where the collection ends.
    fn children<'a>(
        &mut self,
        events: &mut impl Iterator<Item = EventResult<'a>>,
        flow: bool,
        mut last: usize,
    ) -> Result<(Vec<Node>, usize), SyntaxError> {
        let mut nodes = Vec::new();
        loop {
            let (ev, sp) = next(events, self.offsets)?;
            if matches!(ev, Event::SequenceEnd | Event::MappingEnd) {
                if flow {
                    last = last.max(self.offsets.byte(sp.end.index()));
                }
                return Ok((nodes, last));
            }
            let node = self.node(ev, sp, events)?;
            last = last.max(node.range.end);
            nodes.push(node);
        }
    }

    fn count(&mut self, n: usize, at: usize) -> Result<(), SyntaxError> {
        self.nodes += n;
        if self.nodes > MAX_NODES {
            return Err(SyntaxError {
                offset: at,
                message: format!("document has more than {MAX_NODES} nodes after alias expansion"),
            });
        }
        Ok(())
    }
}

fn size(node: &Node) -> usize {
    1 + match &node.value {
        Value::Seq(items) => items.iter().map(size).sum(),
        Value::Map(pairs) => pairs.iter().map(|(k, v)| size(k) + size(v)).sum(),
        _ => 0,
    }
}

fn scalar(
    text: Cow<'_, str>,
    style: ScalarStyle,
    tag: Option<&Cow<'_, saphyr_parser::Tag>>,
) -> Value {
    if style != ScalarStyle::Plain && tag.is_none() {
        return Value::Str(text.into_owned());
    }
    let fallback = text.clone().into_owned();
    match Scalar::parse_from_cow_and_metadata(text, style, tag) {
        Some(Scalar::Null) => Value::Null,
        Some(Scalar::Boolean(b)) => Value::Bool(b),
        Some(Scalar::Integer(i)) => Value::Int(i),
        Some(Scalar::FloatingPoint(f)) => Value::Float(f.into_inner()),
        Some(Scalar::String(s)) => Value::Str(s.into_owned()),
        None => Value::Str(fallback),
    }
}

/// saphyr reports positions in chars; ranges here are bytes.
struct CharOffsets {
    /// Byte offset of each char, or `None` when the text is ASCII and they coincide.
    table: Option<Vec<usize>>,
    len: usize,
}

impl CharOffsets {
    fn new(text: &str) -> Self {
        let table = (!text.is_ascii()).then(|| text.char_indices().map(|(b, _)| b).collect());
        Self {
            table,
            len: text.len(),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.table {
            None => char_index.min(self.len),
            Some(t) => t.get(char_index).copied().unwrap_or(self.len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Node {
        let mut docs = parse(text).unwrap();
        assert_eq!(docs.len(), 1);
        docs.remove(0)
    }

    #[test]
    fn keys_and_values_have_byte_ranges() {
        let text = "é: [fp16, \"x\", 3]\nb: true\n";
        let root = one(text);
        let Value::Map(pairs) = &root.value else {
            panic!()
        };
        assert_eq!(&text[pairs[0].0.range.start..pairs[0].0.range.end], "é");
        let Value::Seq(items) = &pairs[0].1.value else {
            panic!()
        };
        assert_eq!(&text[items[0].range.start..items[0].range.end], "fp16");
        assert_eq!(&text[items[1].range.start..items[1].range.end], "\"x\"");
        assert_eq!(items[2].value, Value::Int(3));
        assert_eq!(items[1].value, Value::Str("x".into()));
        assert_eq!(pairs[1].1.value, Value::Bool(true));
        assert_eq!(
            &text[pairs[0].1.range.start..pairs[0].1.range.end],
            "[fp16, \"x\", 3]"
        );
    }

    #[test]
    fn duplicate_keys_are_kept_in_order() {
        let root = one("a: 1\na: 2\n");
        let Value::Map(pairs) = root.value else {
            panic!()
        };
        assert_eq!(pairs.len(), 2);
        assert_eq!(pairs[1].1.value, Value::Int(2));
    }

    #[test]
    fn quoted_numbers_stay_strings() {
        let root = one("['5', 5, -3, 0x10, ~, 1.5]");
        let Value::Seq(items) = root.value else {
            panic!()
        };
        let values: Vec<_> = items.into_iter().map(|n| n.value).collect();
        assert_eq!(
            values,
            vec![
                Value::Str("5".into()),
                Value::Int(5),
                Value::Int(-3),
                Value::Int(16),
                Value::Null,
                Value::Float(1.5)
            ]
        );
    }

    #[test]
    fn syntax_errors_have_a_byte_offset() {
        let err = parse("a: [b\n").unwrap_err();
        assert_eq!(err.offset, 6);
        let err = parse("é: b\n  c: d\n").unwrap_err();
        assert_eq!(err.offset, "é: b\n  c".len());
    }

    #[test]
    fn aliases_expand_and_bombs_are_refused() {
        let root = one("a: &x [1, 2]\nb: *x\n");
        let Value::Map(pairs) = root.value else {
            panic!()
        };
        assert_eq!(pairs[1].1.value, pairs[0].1.value);
        let mut bomb = String::from("a: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..8 {
            let prev = format!("*a{}", i - 1);
            bomb.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")));
        }
        let err = parse(&bomb).unwrap_err();
        assert!(err.message.contains("alias expansion"), "{}", err.message);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        for depth in [200, 100_000] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            // The parser has a recursion limit of its own; either refusal will do.
            let err = parse(&text).unwrap_err();
            assert!(
                err.message.contains("nesting") || err.message.contains("recursion"),
                "{}",
                err.message
            );
            assert!(err.offset <= text.len());
        }
        let text = "a:\n".to_string()
            + &(1..150)
                .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
                .collect::<String>();
        assert!(parse(&text).is_err());
    }

    #[test]
    fn empty_stream_has_no_document() {
        assert!(parse("").unwrap().is_empty());
        assert!(parse("# only a comment\n").unwrap().is_empty());
    }
}

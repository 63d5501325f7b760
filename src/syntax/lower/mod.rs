//! Lowers function bodies into [`Body`] (see `ir`), and records what typing needs beyond the
//! call-graph facts: return types, template parameters, specialisation arguments, class
//! fields and bases, namespace-scope variables. A second walk over the same tree, after the
//! extractor: it finds the extractor's functions and classes by their start offsets.
//!
//! This file holds the entry point, the lowerer's state and the node helpers the walks share;
//! the walks themselves are split by job: `decls` (namespace and class scope), `types`
//! (declarators and template arguments as text), `functions` (signatures, function and lambda
//! bodies), `body` (the arena and lexical scopes of locals), `stmt` and `expr`.

mod body;
mod decls;
mod expr;
mod functions;
mod stmt;
mod types;

use std::collections::HashMap;
use std::sync::LazyLock;

use tree_sitter::Node;

use super::facts::FileFacts;
use super::ir::*;
use super::tree::NodeExt;
use super::tree::{Positions, Starts};
use crate::text::{Span, TextRange};

/// Nesting the lowering descends to: deeper expressions become `Unknown`.
const MAX_DEPTH: usize = 600;

pub fn attach(src: &str, pos: &Positions, starts: &Starts, root: Node, facts: &mut FileFacts) {
    let mut fns = HashMap::new();
    let mut lambdas = HashMap::new();
    for (i, (f, &at)) in facts.functions.iter().zip(&starts.functions).enumerate() {
        if f.name == "<host>" {
            continue;
        }
        let map = if f.is_lambda { &mut lambdas } else { &mut fns };
        map.entry(at).or_insert(i);
    }
    let classes = starts
        .classes
        .iter()
        .enumerate()
        .map(|(i, &at)| (at, i))
        .collect();
    let mut l = Lowerer {
        src,
        pos,
        fns,
        lambdas,
        classes,
        facts,
        tparams: Vec::new(),
        scope: Vec::new(),
        stack: Vec::new(),
        depth: 0,
    };
    l.walk(root);
}

struct BodyCx {
    body: Body,
    scopes: Vec<Vec<(String, LocalId)>>,
    func: Option<usize>,
    /// The function's start in the preprocessed text (what `Call::out` counts from).
    start: usize,
}

struct Lowerer<'a, 'f> {
    src: &'a str,
    pos: &'a Positions<'a>,
    fns: HashMap<usize, usize>,
    lambdas: HashMap<usize, usize>,
    classes: HashMap<usize, usize>,
    facts: &'f mut FileFacts,
    tparams: Vec<TParam>,
    scope: Vec<String>,
    stack: Vec<BodyCx>,
    depth: usize,
}

/// Field ids by name, looked up once: tree-sitter's own name lookup compares the name with
/// every field name of the grammar, which showed in profiles.
static FIELD_IDS: LazyLock<rustc_hash::FxHashMap<Box<str>, u16>> = LazyLock::new(|| {
    let lang: tree_sitter::Language = tree_sitter_cpp::LANGUAGE.into();
    (1..=lang.field_count() as u16)
        .filter_map(|i| lang.field_name_for_id(i).map(|n| (n.into(), i)))
        .collect()
});

fn field<'t>(n: Node<'t>, name: &str) -> Option<Node<'t>> {
    FIELD_IDS.get(name).and_then(|&id| n.child_by_field_id(id))
}

fn field_nodes<'t>(n: Node<'t>, name: &str) -> Vec<Node<'t>> {
    let Some(id) = FIELD_IDS
        .get(name)
        .and_then(|&id| std::num::NonZeroU16::new(id))
    else {
        return Vec::new();
    };
    let mut c = n.walk();
    n.children_by_field_id(id, &mut c).collect()
}

fn named_children<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|x| x.k() != "comment")
        .collect()
}

impl<'a> Lowerer<'a, '_> {
    fn text(&self, n: Node) -> &'a str {
        &self.src[n.byte_range()]
    }

    fn span(&self, n: Node) -> Span {
        self.pos.span(TextRange::new(n.start_byte(), n.end_byte()))
    }
}

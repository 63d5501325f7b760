//! Re-extracting only the top-level item an edit is in. An open document's last facts are kept
//! with its tree; when an edit lies inside one top-level item (a function, a template, a
//! variable's initializer, a namespace) and the preprocessing around it is the same, only that
//! item is extracted again (both walks over the tree were most of a large file's edit), its
//! facts replace the old ones, and everything after it moves by the edit's length. An edit
//! between items (blank lines, comments, spaces after a `}`) that leaves every item as it was
//! only moves what follows. Anything else (a directive, a macro use at the edit, an alias or
//! include, host code) is extracted whole, as before. `tests` holds it to a fresh extraction
//! edit after edit.

use tree_sitter::{InputEdit, Node, Tree};

use super::facts::{AspectRef, CallTarget, Class, FileFacts, Function, KernelRef};
use super::ir::Expr;
use super::pp::SourceMap;
use super::prepare::Prepared;
use super::tree::{Positions, Starts};
use super::{extract, lower};
use crate::text::Span;

thread_local! {
    static SPLICED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many extractions this thread spliced (for tests and measurements: the path must be
/// taken, not only safe; per thread, so tests running side by side do not count each other's).
pub fn spliced() -> usize {
    SPLICED.get()
}

/// What the last extraction of a document left for the next one.
pub struct Last {
    /// The facts of the extraction alone (no preprocessor record, no line index).
    pub facts: FileFacts,
    pub starts: Starts,
    pub map: SourceMap,
}

/// Where an edit falls among a tree's top-level items.
#[derive(Clone, Copy)]
enum Place<'t> {
    /// Strictly inside this item, which parsed without error.
    Item(Node<'t>),
    /// Between items, or inside a top-level comment: no item's text changes.
    Between,
}

/// Where `[from, to)` falls among the top-level items of `tree`; `None` when it touches the
/// inside of an item it is not strictly within, or the item did not parse cleanly.
fn place(tree: &Tree, from: usize, to: usize) -> Option<Place<'_>> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    for c in root.children(&mut cursor) {
        if c.start_byte() < from && to < c.end_byte() {
            return match c.kind() {
                "comment" => Some(Place::Between),
                k if k.starts_with("preproc") || c.has_error() => None,
                _ => Some(Place::Item(c)),
            };
        }
        if c.start_byte() < to && from < c.end_byte() {
            return None;
        }
    }
    Some(Place::Between)
}

/// Whether the top-level items of `new` are those of `old`, where an edit of `[from, old_to)`
/// by `delta` bytes fell between items: same kinds, same places moved past the edit.
fn same_items(old: &Tree, new: &Tree, from: usize, old_to: usize, delta: i64) -> bool {
    let (o, n) = (old.root_node(), new.root_node());
    if o.child_count() != n.child_count() {
        return false;
    }
    let moved = |b: usize| (b as i64 + delta) as usize;
    let (mut oc, mut nc) = (o.walk(), n.walk());
    let same = o.children(&mut oc).zip(n.children(&mut nc)).all(|(x, y)| {
        let (s, e) = (x.start_byte(), x.end_byte());
        let expected = if e <= from {
            (s, e)
        } else if s >= old_to {
            (moved(s), moved(e))
        } else if x.kind() == "comment" {
            (s, moved(e))
        } else {
            return false;
        };
        x.kind_id() == y.kind_id()
            && x.has_error() == y.has_error()
            && (y.start_byte(), y.end_byte()) == expected
    });
    same
}

/// The facts of one top-level item, extracted alone.
fn extract_one(prepared: &Prepared, pos: &Positions, d: Node) -> (FileFacts, Starts) {
    let (mut facts, starts) = extract::Extractor::run(prepared, pos, d);
    lower::attach(&prepared.text, pos, &starts, d, &mut facts);
    (facts, starts)
}

/// Whether an item's facts hold only what splicing moves or compares: functions, classes
/// (a local `union`) and variables, no aliases, includes or host code.
fn movable(f: &FileFacts) -> bool {
    f.aliases.is_empty() && f.includes.is_empty() && f.functions.iter().all(|x| x.name != "<host>")
}

/// The new facts of an edited document, if the edit allows splicing.
pub fn splice(
    last: &Last,
    (old_text, old_tree): (&str, &Tree),
    edit: &InputEdit,
    new_tree: &Tree,
    prepared: &Prepared,
    map: &SourceMap,
) -> Option<(FileFacts, Starts)> {
    // One start per function and class, as the extractor leaves them; else nothing is assumed.
    if last.starts.functions.len() != last.facts.functions.len()
        || last.starts.classes.len() != last.facts.classes.len()
    {
        return None;
    }
    let (a, b_old, b_new) = (edit.start_byte, edit.old_end_byte, edit.new_end_byte);
    let delta = b_new as i64 - b_old as i64;
    if !last.map.same_outside(map, a, b_old, b_new) {
        return None;
    }

    let old_pos = Positions { map: &last.map };
    let at = |b: usize| old_pos.span(crate::text::TextRange::new(b, b)).start;
    let item = match (place(old_tree, a, b_old)?, place(new_tree, a, b_new)?) {
        (Place::Item(old_d), Place::Item(new_d))
            if old_d.start_byte() == new_d.start_byte()
                && new_d.end_byte() as i64 == old_d.end_byte() as i64 + delta
                && old_d.kind_id() == new_d.kind_id() =>
        {
            Some((old_d, new_d))
        }
        (Place::Between, Place::Between) if same_items(old_tree, new_tree, a, b_old, delta) => None,
        _ => return None,
    };
    // The old text the edit replaced, in the preprocessed text and in the file.
    let (d_start, d_end) = item.map_or((a, b_old), |(d, _)| (d.start_byte(), d.end_byte()));
    let (file_start, file_end) = (at(d_start), at(d_end));
    // The item's functions and classes: one run of each, by where they start.
    let run = |starts: &[usize]| -> Option<(usize, usize)> {
        let first = starts
            .iter()
            .position(|&s| s >= d_start)
            .unwrap_or(starts.len());
        let n = starts[first..].iter().take_while(|&&s| s < d_end).count();
        starts[first + n..]
            .iter()
            .all(|&s| s >= d_end)
            .then_some((first, first + n))
    };
    let (f0, f1) = run(&last.starts.functions)?;
    let (c0, c1) = run(&last.starts.classes)?;
    let (one, one_starts, errors_before) = match item {
        None => {
            if f0 != f1 || c0 != c1 {
                return None;
            }
            (FileFacts::default(), Starts::default(), 0)
        }
        Some((old_d, new_d)) => {
            let pos = Positions { map };
            let (one, one_starts) = extract_one(prepared, &pos, new_d);
            if !movable(&one) {
                return None;
            }
            // A function in a file without errors: its share of the old facts is the run its
            // starts give (the first its own), with no error and no variable. Extracting the
            // old text again, as below, cost as much as the new one on a file that is mostly
            // one long function.
            let plain = old_d.kind() == "function_definition" && last.facts.syntax_errors == 0;
            if plain {
                let first = last.facts.functions.get(f0);
                if !one.globals.is_empty() || first.is_none_or(|f| f.span.start != file_start) {
                    return None;
                }
                (one, one_starts, 0)
            } else {
                // The old item's share of the old facts: what extracting it alone gave
                // (attributes aside, which only add to its own functions).
                let old_prepared = Prepared {
                    text: old_text.to_string(),
                    attrs: Vec::new(),
                    sycl_external: Vec::new(),
                    keyword_casts: Vec::new(),
                    test_cases: Vec::new(),
                };
                let (old_one, _) = extract_one(&old_prepared, &old_pos, old_d);
                // Variables carry no place: the item's must stay as they were for the file's
                // list to stay right.
                if !movable(&old_one)
                    || one.globals != old_one.globals
                    || old_one.functions.len() != f1 - f0
                    || old_one.classes.len() != c1 - c0
                    || old_one
                        .functions
                        .iter()
                        .zip(&last.facts.functions[f0..f1])
                        .any(|(x, y)| x.name != y.name || x.span != y.span)
                {
                    return None;
                }
                (one, one_starts, old_one.syntax_errors)
            }
        }
    };
    let (facts, starts) = replace(
        last,
        (f0, f1),
        (c0, c1),
        (one, one_starts, errors_before),
        (d_end, file_start, file_end, delta),
    )?;
    SPLICED.set(SPLICED.get() + 1);
    Some((facts, starts))
}

/// The last facts with functions `f0..f1` and classes `c0..c1` (the old item's) replaced by
/// `one`'s and everything after the old item (`d_end` in the preprocessed text, `file_end` in
/// the file) moved by `delta`; `None` if some other fact reaches into the item.
fn replace(
    last: &Last,
    (f0, f1): (usize, usize),
    (c0, c1): (usize, usize),
    (mut one, one_starts, errors_before): (FileFacts, Starts, usize),
    (d_end, file_start, file_end, delta): (usize, u32, u32, i64),
) -> Option<(FileFacts, Starts)> {
    // Everything else must lie wholly before or after the item, in the file too.
    let outside = |s: Span| s.end <= file_start || s.start >= file_end;
    let mut facts = last.facts.clone();
    let mut fine = true;
    for f in except(&mut facts.functions, f0..f1) {
        each_span(f, &mut |s| fine &= outside(*s));
    }
    for c in except(&mut facts.classes, c0..c1) {
        class_spans(c, &mut |s| fine &= outside(*s));
    }
    for al in &mut facts.aliases {
        al.uses_aspects
            .iter_mut()
            .for_each(|r| fine &= outside(*ref_span(r)));
    }
    if !fine || errors_before > facts.syntax_errors {
        return None;
    }
    let moved = |s: &mut Span| {
        if s.start >= file_end {
            s.start = (s.start as i64 + delta) as u32;
            s.end = (s.end as i64 + delta) as u32;
        }
    };
    let shift = one.functions.len() as i64 - (f1 - f0) as i64;
    // By position and by index, not by order: nothing outside the item is assumed to come
    // after it in both.
    for f in except(&mut facts.functions, f0..f1) {
        each_span(f, &mut |s| moved(s));
        each_index(f, &mut |i| {
            if *i >= f1 {
                *i = (*i as i64 + shift) as usize;
            }
        });
    }
    for c in except(&mut facts.classes, c0..c1) {
        class_spans(c, &mut |s| moved(s));
    }
    for al in &mut facts.aliases {
        al.uses_aspects.iter_mut().for_each(|r| moved(ref_span(r)));
    }
    for f in &mut one.functions {
        each_index(f, &mut |i| *i += f0);
    }
    facts.syntax_errors = facts.syntax_errors - errors_before + one.syntax_errors;
    facts.functions.splice(f0..f1, one.functions);
    facts.classes.splice(c0..c1, one.classes);
    let moved_start = |s: usize| {
        if s >= d_end {
            (s as i64 + delta) as usize
        } else {
            s
        }
    };
    let starts = Starts {
        functions: last.starts.functions[..f0]
            .iter()
            .copied()
            .chain(one_starts.functions)
            .chain(last.starts.functions[f1..].iter().map(|&s| moved_start(s)))
            .collect(),
        classes: last.starts.classes[..c0]
            .iter()
            .copied()
            .chain(one_starts.classes)
            .chain(last.starts.classes[c1..].iter().map(|&s| moved_start(s)))
            .collect(),
    };
    Some((facts, starts))
}

/// The items of `v` outside `skip`.
fn except<T>(v: &mut [T], skip: std::ops::Range<usize>) -> impl Iterator<Item = &mut T> {
    v.iter_mut()
        .enumerate()
        .filter(move |(i, _)| !skip.contains(i))
        .map(|(_, x)| x)
}

/// Every span of a class's facts.
fn class_spans(c: &mut Class, g: &mut dyn FnMut(&mut Span)) {
    g(&mut c.span);
    c.uses_aspects.iter_mut().for_each(|r| g(ref_span(r)));
    if let Some(p) = &mut c.kernel_properties {
        g(&mut p.span);
        p.aspects.iter_mut().for_each(|r| g(ref_span(r)));
    }
}

fn ref_span(r: &mut AspectRef) -> &mut Span {
    match r {
        AspectRef::Named { span, .. } | AspectRef::Unknown { span, .. } => span,
    }
}

/// Every span of a function's facts, its body's included.
fn each_span(f: &mut Function, g: &mut dyn FnMut(&mut Span)) {
    g(&mut f.name_span);
    g(&mut f.span);
    if let Some(d) = &mut f.device_has {
        g(&mut d.span);
        d.aspects.iter_mut().for_each(|r| g(ref_span(r)));
    }
    f.uses_aspects.iter_mut().for_each(|r| g(ref_span(r)));
    if let Some(b) = &mut f.reqd_sub_group_size {
        let (_, s) = &mut **b;
        g(s);
    }
    f.types.iter_mut().for_each(|t| g(&mut t.span));
    f.literals.iter_mut().for_each(|l| g(&mut l.span));
    for c in f.calls.iter_mut() {
        g(&mut c.span);
        c.guarded.iter_mut().for_each(|r| g(ref_span(r)));
        c.literal_args.iter_mut().for_each(|l| g(&mut l.span));
    }
    f.launches.iter_mut().for_each(|l| g(&mut l.span));
    f.arch_checks.iter_mut().for_each(&mut *g);
    if let Some(b) = &mut f.body {
        b.spans.iter_mut().for_each(&mut *g);
        b.locals.iter_mut().for_each(|l| g(&mut l.span));
    }
}

/// Every index into the file's functions that a function's facts hold.
fn each_index(f: &mut Function, g: &mut dyn FnMut(&mut usize)) {
    for c in f.calls.iter_mut() {
        if let CallTarget::Lambda(i) = &mut c.target {
            g(i);
        }
    }
    for l in f.launches.iter_mut() {
        if let KernelRef::Lambda(i) = &mut l.kernel {
            g(i);
        }
    }
    if let Some(b) = &mut f.body {
        let mut at = |x: &mut u32| {
            let mut i = *x as usize;
            g(&mut i);
            *x = i as u32;
        };
        if let Some(p) = &mut b.parent {
            at(p);
        }
        for e in b.exprs.iter_mut() {
            if let Expr::Lambda(i) = e {
                at(i);
            }
        }
    }
}

//! Re-extracting only the function an edit is in. An open document's last facts are kept with
//! its tree; when an edit lies inside one top-level function definition and the preprocessing
//! around it is the same, only that function is extracted again (both walks over the tree
//! were most of a large file's edit), its facts replace the old ones, and everything after it
//! moves by the edit's length. Anything else (a directive, a macro use at the edit, a class or
//! alias inside the function, host code) is extracted whole, as before. `tests` holds it to a
//! fresh extraction edit after edit.

use tree_sitter::{InputEdit, Node, Tree};

use super::facts::{AspectRef, CallTarget, Class, FileFacts, Function, KernelRef, Span};
use super::ir::Expr;
use super::pp::SourceMap;
use super::prepare::Prepared;
use super::{extract, lower, Positions, Starts};

/// How many extractions were spliced (for tests: the path must be taken, not only safe).
pub static SPLICED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// What the last extraction of a document left for the next one.
pub struct Last {
    /// The facts of the extraction alone (no preprocessor record, no line index).
    pub facts: FileFacts,
    pub starts: Starts,
    pub map: SourceMap,
}

/// The one top-level function definition of `tree` that holds `[from, to)` strictly inside.
fn enclosing_function(tree: &Tree, from: usize, to: usize) -> Option<Node<'_>> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let d = root
        .children(&mut cursor)
        .find(|c| c.start_byte() < from && to < c.end_byte())?;
    (d.kind() == "function_definition" && !d.has_error()).then_some(d)
}

/// The facts of one top-level function, extracted alone.
fn extract_one(prepared: &Prepared, pos: &Positions, d: Node) -> (FileFacts, Starts) {
    let (mut facts, starts) = extract::Extractor::run(prepared, pos, d);
    lower::attach(&prepared.text, pos, &starts, d, &mut facts);
    (facts, starts)
}

/// Whether a function's facts hold only what splicing moves: functions and classes (a local
/// `union`), no aliases, globals, includes or host code.
fn movable(f: &FileFacts) -> bool {
    f.aliases.is_empty()
        && f.globals.is_empty()
        && f.includes.is_empty()
        && f.functions.iter().all(|x| x.name != "<host>")
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
    let old_d = enclosing_function(old_tree, a, b_old)?;
    let new_d = enclosing_function(new_tree, a, b_new)?;
    if old_d.start_byte() != new_d.start_byte()
        || new_d.end_byte() as i64 != old_d.end_byte() as i64 + delta
        || !last.map.same_outside(map, a, b_old, b_new)
    {
        return None;
    }
    let (d_start, d_end) = (old_d.start_byte(), old_d.end_byte());
    // The function's functions and classes: one run of each, by where they start.
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
    let (range, end) = run(&last.starts.functions)?;
    let count = end - range;
    let (c0, c1) = run(&last.starts.classes)?;
    if count == 0 {
        return None;
    }
    let pos = Positions { map };
    let (mut one, one_starts) = extract_one(prepared, &pos, new_d);
    // The old function's share of the old facts: what extracting it alone gave (attributes
    // aside, which only add to its own functions).
    let old_prepared = Prepared {
        text: old_text.to_string(),
        attrs: Vec::new(),
        sycl_external: Vec::new(),
    };
    let old_pos = Positions { map: &last.map };
    let (old_one, _) = extract_one(&old_prepared, &old_pos, old_d);
    if !movable(&one)
        || !movable(&old_one)
        || old_one.functions.len() != count
        || old_one.classes.len() != c1 - c0
        || old_one
            .functions
            .iter()
            .zip(&last.facts.functions[range..range + count])
            .any(|(x, y)| x.name != y.name || x.span != y.span)
    {
        return None;
    }
    let file_start = old_pos
        .span(crate::text::TextRange::new(d_start, d_start))
        .start;
    let file_end = old_pos
        .span(crate::text::TextRange::new(d_end, d_end))
        .start;
    let (f0, f1) = (range, range + count);
    // Everything else must lie wholly before or after the function, in the file too.
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
    if !fine {
        return None;
    }
    let errors_before = old_one.syntax_errors;
    if errors_before > facts.syntax_errors {
        return None;
    }
    let moved = |s: &mut Span| {
        if s.start >= file_end {
            s.start = (s.start as i64 + delta) as u32;
            s.end = (s.end as i64 + delta) as u32;
        }
    };
    let shift = one.functions.len() as i64 - count as i64;
    // By position and by index, not by order: nothing outside the function is assumed to
    // come after it in both.
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
    let mut starts = Starts::default();
    let moved_start = |s: usize| {
        if s >= d_end {
            (s as i64 + delta) as usize
        } else {
            s
        }
    };
    starts.functions = last.starts.functions[..f0]
        .iter()
        .copied()
        .chain(one_starts.functions)
        .chain(last.starts.functions[f1..].iter().map(|&s| moved_start(s)))
        .collect();
    starts.classes = last.starts.classes[..c0]
        .iter()
        .copied()
        .chain(one_starts.classes)
        .chain(last.starts.classes[c1..].iter().map(|&s| moved_start(s)))
        .collect();
    SPLICED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
    if let Some((_, s)) = &mut f.reqd_sub_group_size {
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

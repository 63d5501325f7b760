//! Interface-changing edits without a rebuild: the skeleton is built again (cheap), and every
//! node whose collected body cannot have changed keeps it, its node ids renumbered; only the
//! rest is typed and collected again.
//!
//! A body's collection reads the facts of its own functions, the declarations of the files its
//! functions see (name lookup is by visibility), the bodies its typing read (`NodeInfo::reads`),
//! and the nodes its calls and launches bind to. A node keeps its body when none of these
//! changed. The few lookups that are not by visibility (alias tags, functor classes with
//! kernel properties) and the visibility itself (includes) are required unchanged, else the
//! caller rebuilds everything.

use rustc_hash::FxHashSet;
use std::sync::Arc;

use super::{Bodies, Collected, Collector, NodeId, Skeleton};
use crate::analysis::types::TypeIndex;
use crate::base::SourceFile;
use crate::semantic::{self, Ty};
use crate::syntax::FileFacts;

pub struct Relinked {
    pub skeleton: Skeleton,
    pub bodies: Bodies,
    /// Nodes (and instances) collected again.
    pub collected: usize,
}

/// The new skeleton and bodies after `changed` files got new facts, `iface` of them with a new
/// interface (`decls` already holds their declarations); `None` when this edit needs a full
/// rebuild.
pub fn relink(
    old_files: &[SourceFile],
    files: &[SourceFile],
    old_sk: &Skeleton,
    mut old: Bodies,
    changed: &[usize],
    iface: &[usize],
    decls: &semantic::Decls,
) -> Option<Relinked> {
    for &i in iface {
        let (o, n) = (&*old_files[i].facts, &*files[i].facts);
        if o.includes != n.includes || property_classes(o) != property_classes(n) {
            return None;
        }
    }
    let types = TypeIndex::new(files, decls);
    // Positions aside: a line added above an alias moves its spans, not what it means.
    let aliases_moved = iface.iter().any(|&i| {
        let (o, n) = (&old_files[i].facts.aliases, &files[i].facts.aliases);
        o.len() != n.len() || o.iter().zip(n).any(|(a, b)| !a.same_meaning(b))
    });
    let tags_before = iface.iter().any(|&i| {
        old_files[i]
            .facts
            .aliases
            .iter()
            .any(|a| !a.uses_aspects.is_empty())
    });
    if aliases_moved && (types.any_tags() || tags_before) {
        return None;
    }

    let sk = Skeleton::build_with(
        files,
        old_sk.visibility.clone(),
        Some((old_files, old_sk)),
        decls,
    );
    let in_iface: FxHashSet<u32> = iface.iter().map(|&i| i as u32).collect();
    let in_changed: FxHashSet<u32> = changed.iter().map(|&i| i as u32).collect();

    // Per changed file, where each old function is now: the next one with the same signature.
    let moved: rustc_hash::FxHashMap<u32, Vec<Option<usize>>> = iface
        .iter()
        .map(|&i| (i as u32, follow(&old_files[i].facts, &files[i].facts)))
        .collect();
    let now = |&(f, idx): &(u32, usize)| match moved.get(&f) {
        Some(m) => m[idx].map(|j| (f, j)),
        None => Some((f, idx)),
    };
    // Old node -> new node, for the nodes whose members are the same functions.
    let old_base = old.base_count;
    let mut map: Vec<Option<NodeId>> = vec![None; old.len()];
    let mut image = vec![false; sk.node_count()];
    for (t, members) in old_sk.members.iter().enumerate() {
        let Some(members) = members.iter().map(now).collect::<Option<Vec<_>>>() else {
            continue;
        };
        if let Some(t2) = members.first().and_then(|&(f, i)| sk.node_at(f, i)) {
            if sk.members[t2] == members {
                map[t] = Some(t2);
                image[t2] = true;
            }
        }
    }
    // Files with a member of a node that is gone, new or regrouped: a call from a file that
    // sees one of them may bind differently now (a declaration that lost its definition takes
    // other arguments), so those files' nodes are collected again.
    // The changed files themselves: what other files see of them changed.
    let mut touched: FxHashSet<u32> = in_iface.clone();
    for (t, members) in old_sk.members.iter().enumerate() {
        if map[t].is_none() {
            touched.extend(members.iter().map(|&(f, _)| f));
        }
    }
    for (t2, members) in sk.members.iter().enumerate() {
        if !image[t2] {
            touched.extend(members.iter().map(|&(f, _)| f));
        }
    }
    let blind: Vec<bool> = (0..files.len() as u32)
        .map(|f| {
            !in_changed.contains(&f)
                && !sk
                    .visibility
                    .visible_from(f)
                    .iter()
                    .any(|g| touched.contains(g))
        })
        .collect();

    // Instances whose pattern kept its node and whose arguments name nothing that moved.
    let new_base = sk.node_count();
    let mut kept: Vec<(NodeId, Arc<[Ty]>)> = Vec::new();
    for (k, (b, args)) in old.instances.iter().enumerate() {
        if let Some(b2) = map[*b] {
            if !args.iter().any(|t| mentions(t, &in_iface)) {
                map[old_base + k] = Some(new_base + kept.len());
                kept.push((b2, args.clone()));
            }
        }
    }

    let total = new_base + kept.len();
    let mut slots: Vec<Option<Collected>> = Vec::new();
    slots.resize_with(total, || None);
    for t in 0..old.len() {
        let Some(t2) = map[t] else { continue };
        let info = &old.info[t];
        let clean = old_sk.members[old.base(t)]
            .iter()
            .all(|&(f, _)| blind[f as usize])
            && !info.reads.iter().any(|f| in_changed.contains(f))
            && old.edges[t].iter().all(|e| map[e.to].is_some())
            && info.launches.iter().all(|&l| map[l].is_some())
            && info.functor_props.iter().all(|&(o, _)| map[o].is_some());
        if !clean {
            continue;
        }
        let mut edges = std::mem::take(&mut old.edges[t]);
        for e in &mut edges {
            e.to = map[e.to].expect("checked above");
        }
        let mut info = std::mem::take(&mut old.info[t]);
        for l in &mut info.launches {
            *l = map[*l].expect("checked above");
        }
        for (o, _) in &mut info.functor_props {
            *o = map[*o].expect("checked above");
        }
        slots[t2] = Some((std::mem::take(&mut old.uses[t]), edges, info));
    }
    drop(old);

    let mut seed = Bodies {
        instances: kept,
        base_count: new_base,
        ..Bodies::default()
    };
    let sem = semantic::Index::new(
        files.iter().map(|f| &*f.facts).collect(),
        sk.visibility.lists(),
        decls,
    );
    let collector = Collector::new(files, &sk, &types, &sem).with_instances(&mut seed);
    let mut bodies = Bodies {
        base_count: new_base,
        ..Bodies::default()
    };
    let mut collected = 0;
    for slot in slots {
        let n = bodies.len();
        bodies.push(slot.unwrap_or_else(|| {
            collected += 1;
            collector.collect(n)
        }));
    }
    // Instances the collection above made.
    while bodies.len() < new_base + collector.instance_count() {
        let n = bodies.len();
        collected += 1;
        bodies.push(collector.collect(n));
    }
    bodies.set_instances(collector);
    // An instance nothing binds any more would be checked though no code makes it.
    if !bodies.instances_all_referenced() {
        return None;
    }
    Some(Relinked {
        skeleton: sk,
        bodies,
        collected,
    })
}

/// For each function of `old`, its index in `new`: functions are matched in order by their
/// signature, so one added or removed moves the others' indices but not their identity.
fn follow(old: &FileFacts, new: &FileFacts) -> Vec<Option<usize>> {
    use std::hash::Hasher;
    let sig = |f: &crate::syntax::Function| {
        let mut h = rustc_hash::FxHasher::default();
        f.hash_signature(&mut h);
        h.finish()
    };
    let mut queues: rustc_hash::FxHashMap<u64, std::collections::VecDeque<usize>> =
        rustc_hash::FxHashMap::default();
    for (j, f) in new.functions.iter().enumerate() {
        queues.entry(sig(f)).or_default().push_back(j);
    }
    old.functions
        .iter()
        .map(|f| queues.get_mut(&sig(f)).and_then(|q| q.pop_front()))
        .collect()
}

/// Classes whose `get(properties_tag)` declares a functor kernel's aspects: looked up by name
/// across the workspace, so they must stay where they are.
fn property_classes(f: &FileFacts) -> Vec<(usize, &str)> {
    f.classes
        .iter()
        .enumerate()
        .filter(|(_, c)| c.kernel_properties.is_some())
        .map(|(i, c)| (i, c.name.as_str()))
        .collect()
}

/// Whether a type names a class or lambda declared in one of `files`.
fn mentions(ty: &Ty, files: &FxHashSet<u32>) -> bool {
    match ty {
        Ty::Ptr(t) | Ty::Ref(t) | Ty::Array(t) => mentions(t, files),
        Ty::Class(c) => {
            c.decl.is_some_and(|(f, _)| files.contains(&f))
                || c.args.iter().any(|t| mentions(t, files))
        }
        Ty::Closure(f, _, subst) => files.contains(f) || subst.iter().any(|t| mentions(t, files)),
        _ => false,
    }
}

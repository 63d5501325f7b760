//! The read-only view of the graph for the checks and the matrix: call chains to a use, guarded
//! aspects, and names and spans of nodes.

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;
use thin_vec::ThinVec;

use super::bodies::NodeInfo;
use super::derived::DeclSource;
use super::{Bodies, Derived, Edge, ImageRule, NodeId, Skeleton, Use};
use crate::base::SourceFile;
use crate::devices::{AspectId, AspectSet};
use crate::semantic::Ty;
use crate::syntax::{DeviceHas, Function, KernelRef, Located, Span, LIBRARY_LAUNCH};

/// A view of the graph for the checks.
pub struct Graph<'a> {
    files: &'a [SourceFile],
    sk: &'a Skeleton,
    bodies: &'a Bodies,
    edges: &'a [ThinVec<Edge>],
    uses: &'a [ThinVec<Use>],
    info: &'a [NodeInfo],
    d: &'a Derived,
    /// See `Settings::names_from`.
    names_from: Option<&'a std::path::Path>,
}

impl<'a> Graph<'a> {
    pub fn new(
        files: &'a [SourceFile],
        sk: &'a Skeleton,
        bodies: &'a Bodies,
        d: &'a Derived,
    ) -> Self {
        Graph {
            files,
            sk,
            bodies,
            edges: &bodies.edges,
            uses: &bodies.uses,
            info: &bodies.info,
            d,
            names_from: None,
        }
    }

    /// The same, naming the files of lambdas relative to `root` (`Settings::names_from`).
    pub fn naming_from(self, root: Option<&'a std::path::Path>) -> Self {
        Graph {
            names_from: root,
            ..self
        }
    }

    fn function(&self, node: NodeId) -> &'a Function {
        self.sk.function(self.files, self.bodies.base(node))
    }

    fn members_of(&self, node: NodeId) -> impl Iterator<Item = (u32, &'a Function)> + '_ {
        self.sk.members_of(self.files, self.bodies.base(node))
    }

    /// The shortest call chain from `from` to a use of `aspect`, ties broken by source order:
    /// the calls taken (caller, edge) and the use.
    /// Only uses that count in an image built under `rule` (the default: every use).
    pub fn chain_in(
        &self,
        from: NodeId,
        aspect: AspectId,
        rule: ImageRule,
    ) -> Option<(Vec<(NodeId, &Edge)>, &Use)> {
        // Maps, not vectors over every node: a chain touches a handful of nodes.
        let mut parent: HashMap<NodeId, (NodeId, usize)> = HashMap::default();
        let mut queue = VecDeque::from([from]);
        let used = self.d.used(self.bodies, rule.typed_pointers);
        while let Some(n) = queue.pop_front() {
            if let Some(u) = self.uses[n]
                .iter()
                .find(|u| u.aspect == aspect && rule.keeps(u))
            {
                let mut path = Vec::new();
                let mut cur = n;
                while let Some(&(p, e)) = parent.get(&cur) {
                    path.push((p, &self.edges[p][e]));
                    cur = p;
                }
                path.reverse();
                return Some((path, u));
            }
            for (i, e) in self.edges[n].iter().enumerate() {
                if e.to != from
                    && !parent.contains_key(&e.to)
                    && !e.mask.contains(aspect)
                    && used[e.to][rule.index()].contains(aspect)
                {
                    parent.insert(e.to, (n, i));
                    queue.push_back(e.to);
                }
            }
        }
        None
    }

    /// Aspects used in `node`'s reach only where a guard (`if_device_has<A>(f)`) lets them: the
    /// device checks them at run time, so they never fail a launch. `rule`: the release's
    /// unoptimised rule (`ImageRule::declared`).
    pub fn guarded(&self, node: NodeId, rule: ImageRule) -> AspectSet {
        let mut all = AspectSet::default();
        let mut seen: rustc_hash::FxHashSet<NodeId> = Default::default();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            for u in self.uses[n].iter().filter(|u| rule.keeps(u)) {
                all.insert(u.aspect);
            }
            stack.extend(self.edges[n].iter().map(|e| e.to));
        }
        let used = self.used_in(node, rule);
        all.iter().filter(|a| !used.contains(*a)).collect()
    }

    // ---- queries --------------------------------------------------------------------------

    pub fn function_count(&self) -> usize {
        self.sk.function_count
    }

    pub fn kernel_count(&self) -> usize {
        self.d.kernel.iter().filter(|&&k| k).count()
    }

    /// Nodes that declare aspects, in node order.
    pub fn decorated(&self) -> &'a [NodeId] {
        &self.d.decorated
    }

    /// Kernels and `SYCL_EXTERNAL` functions, in node order.
    pub fn entry_points(&self) -> &'a [NodeId] {
        &self.d.entry_points
    }

    /// Device code that calls `if_architecture_is`.
    pub fn arch_checking(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.info
            .iter()
            .enumerate()
            .filter(|(n, i)| i.arch_checks && self.d.device[*n])
            .map(|(n, _)| n)
    }

    /// A template instance (numbered after every function's own node).
    pub fn is_instance(&self, node: NodeId) -> bool {
        node >= self.bodies.base_count
    }

    /// Whether the device compile compiles `node`: the one rule every answer follows (the
    /// checks, the kernel × target matrix, the summaries; so `check`, `report`, the language
    /// server and the daemon). Code the compiler never sees is judged by none of them: a
    /// template's code exists only in its instances ([temp.inst]), an instance only where
    /// compiled code reaches it, and a file only when a translation unit includes it.
    /// `units_elsewhere`: as `Settings::units_elsewhere`.
    pub fn is_compiled(&self, node: NodeId, units_elsewhere: bool) -> bool {
        self.instantiated(node) && self.in_compiled_file(node, units_elsewhere)
    }

    /// A template's code exists only in its instances, and an instance only where device code
    /// reaches it; a non-template function counts where it is (a `device_has` one is checked
    /// on its own). A pattern some compiled code calls, launches or names (`run<32>` in a
    /// table of function pointers) is instantiated with arguments the analysis may not tell:
    /// its non-dependent code counts.
    fn instantiated(&self, node: NodeId) -> bool {
        if self.is_instance(node) {
            let reached = self
                .referenced_patterns()
                .get(node)
                .copied()
                .unwrap_or(false);
            return reached
                && (self.is_device(node) || self.d.decorated.binary_search(&node).is_err());
        }
        let templated = self.members_of(node).any(|(_, f)| !f.tparams.is_empty());
        !templated
            || self
                .referenced_patterns()
                .get(node)
                .copied()
                .unwrap_or(false)
    }

    /// Whether some declaration of `node` is in a file a compiler is given
    /// (`Visibility::compiled`): a kernel in a header no source includes is compiled by nobody.
    fn in_compiled_file(&self, node: NodeId, units_elsewhere: bool) -> bool {
        let vis = self.sk.visibility();
        self.members_of(node)
            .any(|(fi, _)| vis.compiled(fi, units_elsewhere))
    }

    /// Per node: for a template pattern or an instance, whether code which is compiled (a
    /// non-template function, or such a pattern or instance) calls, launches or names it. An
    /// instance only a template nobody instantiates, or a header nobody includes, names is
    /// never made ([temp.inst]/8).
    fn referenced_patterns(&self) -> &'a [bool] {
        self.d.referenced.get_or_init(|| self.walk_referenced())
    }

    fn walk_referenced(&self) -> Vec<bool> {
        let base = self.bodies.base_count;
        let templated = |n: NodeId| self.members_of(n).any(|(_, f)| !f.tparams.is_empty());
        let pattern: Vec<bool> = (0..base).map(templated).collect();
        let made_on_demand = |n: NodeId| n >= base || pattern[n];
        let mut seen = vec![false; self.edges.len()];
        // A function of a header no unit includes references nothing. (`units_elsewhere`
        // false: with it, a set of headers alone has nothing compiled, whatever is referenced.)
        let mut stack: Vec<NodeId> = (0..base)
            .filter(|&n| !pattern[n] && self.in_compiled_file(n, false))
            .collect();
        while let Some(n) = stack.pop() {
            let targets = self.edges[n]
                .iter()
                .map(|e| e.to)
                .chain(self.info[n].launches.iter().copied());
            for t in targets {
                if made_on_demand(t) && !seen[t] {
                    seen[t] = true;
                    stack.push(t);
                }
            }
        }
        seen
    }

    /// Per node: whether a function of a source file (not a header) is it or calls it,
    /// directly or through others. A header's function nobody reaches that way (a helper
    /// library's type-dispatch wrapper the program never calls) may be compiled, but never runs.
    pub fn reached_from_sources(&self) -> &'a [bool] {
        self.d.reached.get_or_init(|| self.walk_from_sources())
    }

    fn walk_from_sources(&self) -> Vec<bool> {
        let mut seen = vec![false; self.edges.len()];
        // Per file, not per node: a path's extension is read once.
        let source: Vec<bool> = self
            .files
            .iter()
            .map(|f| !crate::base::is_header(&f.path))
            .collect();
        let mut stack: Vec<NodeId> = (0..self.edges.len())
            .filter(|&n| self.members_of(n).any(|(fi, _)| source[fi as usize]))
            .collect();
        for &n in &stack {
            seen[n] = true;
        }
        while let Some(n) = stack.pop() {
            for t in self.edges[n].iter().map(|e| e.to) {
                if !seen[t] {
                    seen[t] = true;
                    stack.push(t);
                }
            }
        }
        seen
    }

    /// Reached from a kernel or `SYCL_EXTERNAL` function: compiled for the device.
    pub fn is_device(&self, node: NodeId) -> bool {
        self.d.device.get(node).copied().unwrap_or(false)
    }

    pub fn is_kernel(&self, node: NodeId) -> bool {
        self.d.kernel[node]
    }

    pub fn device_has(&self, node: NodeId) -> Option<&'a DeviceHas> {
        let facts = |fi: u32| &self.files[fi as usize].facts;
        match self.d.decl[node]? {
            DeclSource::Function(fi, idx) => facts(fi).functions[idx].device_has.as_deref(),
            DeclSource::Class(fi, ci) => facts(fi).classes[ci].kernel_properties.as_ref(),
            DeclSource::Typed(n) => self.info[n].props.as_deref(),
        }
    }

    /// The aspects `node`'s reach uses in an image built under `rule`.
    pub fn used_in(&self, node: NodeId, rule: ImageRule) -> AspectSet {
        self.d.used(self.bodies, rule.typed_pointers)[node][rule.index()]
    }

    /// Every node, instances included.
    pub fn nodes(&self) -> std::ops::Range<NodeId> {
        0..self.info.len()
    }

    /// The oneMKL / oneMath calls of `node` whose library kernels need an aspect, with the
    /// file of the body they are in.
    pub fn library_kernels(&self, node: NodeId) -> &'a [(u32, crate::semantic::LibraryKernel)] {
        &self.info[node].library
    }

    pub fn reqd_sub_group_size(&self, node: NodeId) -> Option<(i64, Span)> {
        self.members_of(node)
            .find_map(|(_, f)| f.reqd_sub_group_size.as_deref().copied())
    }

    pub fn arch_checks(&self, node: NodeId) -> impl Iterator<Item = &Span> + '_ {
        self.members_of(node)
            .flat_map(|(_, f)| f.arch_checks.iter())
    }

    pub fn path(&self, file: u32) -> &Arc<str> {
        &self.files[file as usize].path
    }

    /// A file as the names made here say it: relative to `names_from` when under it.
    fn shown(&self, file: u32) -> std::borrow::Cow<'_, str> {
        let path = self.path(file);
        match self
            .names_from
            .and_then(|root| std::path::Path::new(&**path).strip_prefix(root).ok())
        {
            Some(rest) if !rest.as_os_str().is_empty() => rest.to_string_lossy(),
            _ => std::borrow::Cow::Borrowed(&**path),
        }
    }

    /// The macro whose use in `file` holds the start of `range`: the code there came out of it.
    pub fn macro_at(&self, file: u32, range: crate::text::TextRange) -> Option<&str> {
        self.files[file as usize]
            .facts
            .preprocessor
            .expansions
            .iter()
            .find(|(r, _)| r.start <= range.start && range.start < r.end)
            .map(|(_, name)| name.as_str())
    }

    pub fn node_file(&self, node: NodeId) -> u32 {
        self.sk.members[self.bodies.base(node)][0].0
    }

    /// Where a finding about this function goes: its name, or a lambda's introducer. For a
    /// declaration carrying `device_has` whose definition is elsewhere, the definition.
    pub fn name_span(&self, node: NodeId) -> (u32, Located) {
        let file = self.node_file(node);
        (file, self.locate(file, self.function(node).name_span))
    }

    /// The file and byte offset of [`Graph::name_span`], without its line and column.
    pub fn name_start(&self, node: NodeId) -> (u32, u32) {
        (self.node_file(node), self.function(node).name_span.start)
    }

    /// A span of a file with its line and column.
    pub fn locate(&self, file: u32, span: Span) -> Located {
        self.files[file as usize].facts.locate(span)
    }

    pub fn display_name(&self, node: NodeId) -> String {
        let f = self.function(node);
        if f.is_lambda {
            let file = self.node_file(node);
            let pos = self.locate(file, f.name_span).pos;
            let at = match self.algorithm_launch(node, f) {
                Some(at) => at,
                None => format!("lambda at {}:{}:{}", self.shown(file), pos.line, pos.column),
            };
            match self.enclosing_instance(node, f) {
                // One location, several kernels: say which instantiation, as clang's "in
                // instantiation of" notes do.
                Some(inst) => format!("{at} in {inst}"),
                None => at,
            }
        } else if node >= self.bodies.base_count {
            let args = &self.bodies.instances[node - self.bodies.base_count].1;
            // A member template of a class: its class's parameters come first.
            let of_class = f.class.as_ref().and_then(|c| {
                let outer = &f.scope[..f.scope.len().saturating_sub(1)];
                self.files[self.node_file(node) as usize]
                    .facts
                    .classes
                    .iter()
                    .find(|k| k.name == *c && k.scope[..] == *outer)
                    .map(|k| k.tparams.len())
            });
            instance_name(f, args, of_class)
        } else {
            f.display_name()
        }
    }
}

impl Graph<'_> {
    /// A lambda a parallel algorithm launches is named by the call: `oneDPL std::for_each at
    /// a.cpp:7:3` (with `, callable K` when the call launches several).
    fn algorithm_launch(&self, node: NodeId, lambda: &Function) -> Option<String> {
        let (file, idx) = self.sk.members[self.bodies.base(node)][0];
        let funcs = &self.files[file as usize].facts.functions;
        let parent = funcs.get(lambda.body.as_ref()?.parent? as usize)?;
        let library = |l: &&crate::syntax::KernelLaunch| l.via.starts_with(LIBRARY_LAUNCH);
        let launch = parent
            .launches
            .iter()
            .filter(library)
            .find(|l| matches!(l.kernel, KernelRef::Lambda(i) if i == idx))?;
        let same_call: Vec<_> = parent
            .launches
            .iter()
            .filter(library)
            .filter(|l| l.span == launch.span)
            .collect();
        let pos = self.locate(file, launch.span).pos;
        let algorithm = &launch.via[LIBRARY_LAUNCH.len()..];
        let mut name = format!(
            "oneDPL {algorithm} at {}:{}:{}",
            self.shown(file),
            pos.line,
            pos.column
        );
        if same_call.len() > 1 {
            let k = same_call.iter().position(|l| std::ptr::eq(*l, launch))? + 1;
            name.push_str(&format!(", callable {k}"));
        }
        Some(name)
    }

    /// For a lambda in an instance of a template: the instance of the named function it is
    /// written in (its template parameters begin a lambda's own).
    fn enclosing_instance(&self, node: NodeId, lambda: &Function) -> Option<String> {
        let args = &self
            .bodies
            .instances
            .get(node.checked_sub(self.bodies.base_count)?)?
            .1;
        let funcs = &self.files[self.node_file(node) as usize].facts.functions;
        let mut f = lambda;
        while f.is_lambda {
            f = funcs.get(f.body.as_ref()?.parent? as usize)?;
        }
        let n = f.tparams.len();
        (n > 0 && args.len() >= n).then(|| instance_name(f, &args[..n], None))
    }
}

/// `scale<double>(sycl::queue&, double*, size_t)`, `Saxpy<double>::operator()(...) const`,
/// `K::operator()<sycl::item<1>>(sycl::item<1>) const`. `of_class`: how many of the template
/// parameters are the class's (unknown: all, for a member).
fn instance_name(f: &Function, args: &[Ty], of_class: Option<usize>) -> String {
    let list = |args: &[Ty]| {
        args.iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let subst = |text: &str| -> String {
        let mut out = text.to_string();
        for (p, a) in f.tparams.iter().zip(args) {
            if p.name.is_empty() {
                continue;
            }
            let mut res = String::new();
            let mut rest = out.as_str();
            while let Some(i) = rest.find(p.name.as_str()) {
                let before = rest[..i].chars().last();
                let after = rest[i + p.name.len()..].chars().next();
                let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                res.push_str(&rest[..i]);
                if ident(before) || ident(after) {
                    res.push_str(&p.name);
                } else {
                    res.push_str(&a.to_string());
                }
                rest = &rest[i + p.name.len()..];
            }
            res.push_str(rest);
            out = res;
        }
        out
    };
    let mut scope = f.scope.clone();
    let name = match (&f.class, scope.last_mut()) {
        (Some(c), Some(last)) if last == c => {
            let k = of_class.unwrap_or(args.len()).min(args.len());
            if k > 0 {
                last.push_str(&format!("<{}>", list(&args[..k])));
            }
            match k < args.len() {
                true => format!("{}<{}>", f.name, list(&args[k..])),
                false => f.name.to_string(),
            }
        }
        _ => format!("{}<{}>", f.name, list(args)),
    };
    scope.push(name);
    let params: Vec<String> = f.params.iter().map(|p| subst(p)).collect();
    format!(
        "{}({}){}",
        scope.join("::"),
        params.join(", "),
        if f.is_const { " const" } else { "" }
    )
}

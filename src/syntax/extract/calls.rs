//! Calls in the extractor's walk: device calls with their targets and guards, kernel
//! launches and what they launch, host code's calls.

use crate::syntax::Name;
use tree_sitter::Node;

use super::super::facts::*;
use super::super::tree::NodeExt;
use super::nodes::*;
use super::{Extractor, Local, GUARDED_CALLS, KERNEL_INVOCATIONS};

/// Kernel invocations that are free functions of `sycl::ext::oneapi::experimental`.
const FREE_LAUNCHES: [&str; 3] = ["nd_launch", "launch", "launch_grouped"];

/// The standard / oneDPL parallel algorithms: with a device execution policy first, oneDPL
/// compiles their callables into kernels. Recorded as launches whose `via` starts with
/// [`LIBRARY_LAUNCH`]; the typing decides from the policy's type whether they run on a device.
const ALGORITHMS: &[&str] = &[
    "adjacent_difference",
    "adjacent_find",
    "all_of",
    "any_of",
    "binary_search",
    "copy_if",
    "count_if",
    "equal",
    "exclusive_scan",
    "exclusive_scan_by_segment",
    "find_end",
    "find_first_of",
    "find_if",
    "find_if_not",
    "for_each",
    "for_each_n",
    "generate",
    "generate_n",
    "histogram",
    "includes",
    "inclusive_scan",
    "inclusive_scan_by_segment",
    "inplace_merge",
    "is_heap",
    "is_heap_until",
    "is_partitioned",
    "is_sorted",
    "is_sorted_until",
    "lexicographical_compare",
    "lower_bound",
    "max_element",
    "merge",
    "min_element",
    "minmax_element",
    "mismatch",
    "none_of",
    "nth_element",
    "partial_sort",
    "partial_sort_copy",
    "partition",
    "partition_copy",
    "reduce",
    "reduce_by_segment",
    "remove_copy_if",
    "remove_if",
    "replace_copy_if",
    "replace_if",
    "search",
    "search_n",
    "set_difference",
    "set_intersection",
    "set_symmetric_difference",
    "set_union",
    "sort",
    "sort_by_key",
    "stable_partition",
    "stable_sort",
    "stable_sort_by_key",
    "transform",
    "transform_exclusive_scan",
    "transform_inclusive_scan",
    "transform_reduce",
    "unique",
    "unique_copy",
    "upper_bound",
];

impl<'a> Extractor<'a> {
    pub(super) fn push_call(
        &mut self,
        cur: usize,
        target: CallTarget,
        args: usize,
        at: Node,
        guarded: Vec<AspectRef>,
        literal_args: Vec<DoubleLiteral>,
    ) {
        let span = self.span(at);
        let base = self
            .starts
            .functions
            .get(cur)
            .copied()
            .unwrap_or(usize::MAX);
        self.facts.functions[cur].calls.push(Call {
            target,
            args: args.min(u32::MAX as usize) as u32,
            out: at.start_byte().saturating_sub(base).min(u32::MAX as usize) as u32,
            span,
            guarded: guarded.into(),
            literal_args: literal_args.into(),
        });
    }

    pub(super) fn call(&mut self, n: Node<'a>, cur: Option<usize>) {
        let (Some(func), args) = (
            n.child_by_field_id(FIELDS.function.get()),
            n.child_by_field_id(FIELDS.arguments.get()),
        ) else {
            return self.visit_children(n, cur);
        };
        let Some(c) = cur else {
            // Host code: look only for kernels and nested lambdas.
            return self.host_call(func, args);
        };
        let arg_nodes = arguments(args);
        let (receiver, name, template_args) = callee_parts(self.src, func);
        let Some(name) = name else {
            // An indirect call or an immediately invoked lambda.
            if func.k() == "lambda_expression" {
                let idx = self.lambda(func);
                self.push_call(
                    c,
                    CallTarget::Lambda(idx),
                    arg_nodes.len(),
                    func,
                    Vec::new(),
                    Vec::new(),
                );
            } else {
                self.visit(func, cur);
            }
            return self.visit_args(&arg_nodes, cur);
        };
        if let Some(t) = template_args {
            self.mention_template_args(c, t, name.clone());
        }
        if name.starts_with("if_architecture_is") || name.starts_with("else_if_architecture_is") {
            let span = self.span(func);
            self.facts.functions[c].arch_checks.push(span);
        }
        if KERNEL_INVOCATIONS.contains(&name.as_str()) {
            if let Some(last) = arg_nodes.last() {
                if let Some(kernel) = self.kernel_ref(*last, cur) {
                    let span = self.span(func);
                    self.facts.functions[c].launches.push(KernelLaunch {
                        kernel,
                        via: name.as_str().into(),
                        span,
                    });
                    // The extension's free functions (`launch(q, cfg, k)`) share their names
                    // with users' own wrappers: those stay calls too.
                    if receiver.is_some() || !FREE_LAUNCHES.contains(&name.as_str()) {
                        if let Some(r) = receiver {
                            self.visit(r, cur);
                        }
                        return self.visit_args(&arg_nodes[..arg_nodes.len() - 1], cur);
                    }
                }
            }
        }
        let algorithm_kernels = self.algorithm_launches(c, func, &name, &arg_nodes);
        let guarded: Vec<AspectRef> = if GUARDED_CALLS.contains(&name.as_str()) {
            template_args
                .map(|t| {
                    let mut cursor = t.walk();
                    t.named_children(&mut cursor)
                        .map(|a| aspect_ref(self.text(a), self.span(a)))
                        .collect()
                })
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let is_guard = GUARDED_CALLS.contains(&name.as_str()) || name == "otherwise";
        let literal_args: Vec<DoubleLiteral> = arg_nodes
            .iter()
            .filter_map(|a| self.double_literal(unwrap_sign(*a)))
            .collect();
        let target = match receiver {
            Some(r) if r.k() == "this" => CallTarget::Member {
                name: name.as_str().into(),
                receiver_type: self.facts.functions[c].class.as_deref().map(Name::from),
            },
            Some(r) => {
                let receiver_type = (r.k() == "identifier")
                    .then(|| match self.local(self.text(r)) {
                        Some(Local::Type(t)) => Some(t.clone()),
                        _ => None,
                    })
                    .flatten();
                CallTarget::Member {
                    name: name.as_str().into(),
                    receiver_type: receiver_type.as_deref().map(Name::from),
                }
            }
            None => match self.local(&name).cloned() {
                Some(Local::Lambda(idx)) => CallTarget::Lambda(idx),
                Some(Local::Type(t)) => CallTarget::Member {
                    name: "operator()".into(),
                    receiver_type: Some(t.into()),
                },
                None => {
                    let (qualifier, _) = split_name(self.src, func);
                    CallTarget::Named {
                        name: name.as_str().into(),
                        qualifier: qualifier.iter().map(|q| Name::from(q.as_str())).collect(),
                    }
                }
            },
        };
        if !is_guard {
            self.push_call(c, target, arg_nodes.len(), func, Vec::new(), literal_args);
        }
        if let Some(r) = receiver {
            self.visit(r, cur);
        }
        for (k, a) in arg_nodes.iter().enumerate() {
            if algorithm_kernels.contains(&k) {
                // Launched above: a kernel, not a lambda of this function.
            } else if is_guard && a.k() == "lambda_expression" {
                let idx = self.lambda(*a);
                self.push_call(
                    c,
                    CallTarget::Lambda(idx),
                    0,
                    *a,
                    guarded.clone(),
                    Vec::new(),
                );
            } else if a.k() == "number_literal" {
                // Classified with the call (`literal_args`).
            } else {
                self.visit(*a, cur);
            }
        }
    }

    /// A parallel algorithm's callables (`std::for_each(policy, b, e, [](float &x) {...})`),
    /// recorded as launches of the call; the positions of the lambdas among them.
    fn algorithm_launches(
        &mut self,
        c: usize,
        func: Node<'a>,
        name: &str,
        args: &[Node<'a>],
    ) -> Vec<usize> {
        if args.len() < 3 || !ALGORITHMS.contains(&name) || func.k() == "field_expression" {
            return Vec::new();
        }
        let (qualifier, _) = split_name(self.src, func);
        let library = match qualifier.first().map(String::as_str) {
            None => true,
            Some(q) => matches!(q, "std" | "oneapi" | "dpl"),
        };
        if !library {
            return Vec::new();
        }
        let via: Name = if qualifier.is_empty() {
            format!("{LIBRARY_LAUNCH}{name}")
        } else {
            format!("{LIBRARY_LAUNCH}{}::{name}", qualifier.join("::"))
        }
        .into();
        let span = self.span(func);
        let mut out = Vec::new();
        for (k, a) in args.iter().enumerate().skip(1) {
            let callable = match a.k() {
                "lambda_expression" | "compound_literal_expression" => true,
                // A local lambda, or a local of a class type (a functor); not data.
                "identifier" => match self.local(self.text(*a)) {
                    Some(Local::Lambda(_)) => true,
                    Some(Local::Type(t)) => !t.contains(['*', '&', '[']) && !is_builtin_type(t),
                    _ => false,
                },
                _ => false,
            };
            if !callable {
                continue;
            }
            if let Some(kernel) = self.kernel_ref(*a, Some(c)) {
                self.facts.functions[c]
                    .launches
                    .push(KernelLaunch { kernel, via, span });
                // Visiting a lambda again would make it one of this function's lambdas.
                if a.k() == "lambda_expression" {
                    out.push(k);
                }
            }
        }
        out
    }

    pub(super) fn visit_args(&mut self, args: &[Node<'a>], cur: Option<usize>) {
        for a in args {
            self.visit(*a, cur);
        }
    }

    /// Calls in host code: only kernel launches matter, and lambdas that may contain them.
    pub(super) fn host_call(&mut self, func: Node<'a>, args: Option<Node<'a>>) {
        let (_, name, _) = callee_parts(self.src, func);
        let arg_nodes = arguments(args);
        if let (Some(name), Some(last)) = (name.as_deref(), arg_nodes.last()) {
            if KERNEL_INVOCATIONS.contains(&name) {
                if let Some(kernel) = self.kernel_ref(*last, None) {
                    let span = self.span(func);
                    // Host launches are recorded on a pseudo owner: the innermost function is
                    // unknown here, so they go to the file-level list via a synthetic function.
                    let host = self.host_function();
                    self.facts.functions[host].launches.push(KernelLaunch {
                        kernel,
                        via: name.into(),
                        span,
                    });
                    self.visit(func, None);
                    return self.visit_args(&arg_nodes[..arg_nodes.len() - 1], None);
                }
            }
        }
        self.visit(func, None);
        self.visit_args(&arg_nodes, None);
    }

    /// A function standing for "host code of this file", owner of launches found outside any
    /// function (global initializers). Created on first use.
    pub(super) fn host_function(&mut self) -> usize {
        self.host_in(&[])
    }

    /// The host code of this file in namespace `scope` (what it names is looked up there).
    pub(super) fn host_in(&mut self, scope: &[String]) -> usize {
        let host = |f: &Function| f.name == "<host>" && *f.scope == *scope;
        if let Some(i) = self.facts.functions.iter().position(host) {
            return i;
        }
        self.starts.functions.push(usize::MAX);
        self.facts.functions.push(Function {
            name: "<host>".into(),
            scope: scope.iter().cloned().collect(),
            ..Function::default()
        });
        self.facts.functions.len() - 1
    }

    pub(super) fn kernel_ref(&mut self, arg: Node<'a>, cur: Option<usize>) -> Option<KernelRef> {
        match arg.k() {
            "lambda_expression" => Some(KernelRef::Lambda(self.lambda(arg))),
            "identifier" => match self.local(self.text(arg)).cloned() {
                Some(Local::Lambda(idx)) => Some(KernelRef::Lambda(idx)),
                Some(Local::Type(t)) => Some(KernelRef::Functor(t.into())),
                // A variable whose type is left to deduction (`auto k = make_kernel(p);`, a
                // lambda a function returns): the typing of the body finds its closure.
                None if cur.is_some() => Some(KernelRef::Functor(self.text(arg).into())),
                None => None,
            },
            "compound_literal_expression" => arg
                .child_by_field_id(FIELDS.r#type.get())
                .map(|t| KernelRef::Functor(normalize(self.text(t)).into())),
            "call_expression" => {
                let f = arg.child_by_field_id(FIELDS.function.get())?;
                matches!(
                    f.k(),
                    "identifier" | "qualified_identifier" | "template_function"
                )
                .then(|| KernelRef::Functor(last_component(self.text(f)).into()))
            }
            _ => None,
        }
    }
}

/// `int`, `unsigned long`, `const double`, `size_t`: no class, so no functor.
fn is_builtin_type(t: &str) -> bool {
    t.split_whitespace().all(|w| {
        matches!(
            w.trim_start_matches("std::"),
            "const"
                | "volatile"
                | "int"
                | "float"
                | "double"
                | "char"
                | "short"
                | "long"
                | "unsigned"
                | "signed"
                | "bool"
                | "size_t"
                | "ptrdiff_t"
                | "auto"
        )
    })
}

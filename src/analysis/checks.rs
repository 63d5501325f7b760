//! The checks of one device compile and their messages: unknown aspect names,
//! `aspect-mismatch` (a `device_has` list missing what the function uses), the AOT-target
//! checks (aspects and sub-group sizes a target lacks) and `if_architecture_is` without AOT.

use std::collections::BTreeMap;

use super::graph::{Graph, ImageRule, NodeId};
use super::report::Settings;
use crate::base::SourceFile;
use crate::devices::{registry, AspectId, AspectSet, ResolvedTarget};
use crate::diagnostics::{suggest, with_did_you_mean, ChainStep, Code, Diagnostic, Severity};
use crate::syntax::{AspectRef, DeclForm, Located};

fn diagnostic(
    graph: &Graph,
    file: u32,
    at: Located,
    severity: Severity,
    code: Code,
    message: String,
) -> Diagnostic {
    Diagnostic::new(
        graph.path(file).clone(),
        at.range,
        at.pos,
        severity,
        code,
        message,
    )
}

/// Aspect names written in `device_has` / `uses_aspects` of a file that the registry does not
/// know.
pub(super) fn unknown_aspects(file: &SourceFile) -> Vec<Diagnostic> {
    let reg = registry();
    let mut out = Vec::new();
    for refs in file.facts.aspect_refs() {
        for r in refs {
            if let AspectRef::Named { name, span } = r {
                if reg.by_name(name).is_none() {
                    let suggestions = suggest(name, reg.names(), 3);
                    let at = file.facts.locate(*span);
                    let mut d = Diagnostic::new(
                        file.path.clone(),
                        at.range,
                        at.pos,
                        Severity::Error,
                        Code::UnknownAspect,
                        with_did_you_mean(format!("unknown aspect '{name}'"), &suggestions),
                    );
                    d.suggestions = suggestions;
                    out.push(d);
                }
            }
        }
    }
    out
}

/// `chain_steps` through the uses that count in an image built under `rule`.
pub(super) fn chain_steps_in(
    graph: &Graph,
    from: NodeId,
    aspect: AspectId,
    rule: ImageRule,
    deps: &mut Vec<NodeId>,
) -> Vec<ChainStep> {
    let Some((calls, found)) = graph.chain_in(from, aspect, rule) else {
        return Vec::new();
    };
    deps.extend(calls.iter().flat_map(|(caller, edge)| [*caller, edge.to]));
    let mut steps: Vec<ChainStep> = calls
        .into_iter()
        .map(|(caller, edge)| {
            let callee = graph.display_name(edge.to);
            let file = graph.node_file(caller);
            let at = graph.locate(file, edge.span);
            ChainStep {
                function: Some(callee.clone()),
                use_: None,
                file: graph.path(file).clone(),
                range: at.range,
                pos: at.pos,
                message: format!("propagated from call to function '{callee}'"),
            }
        })
        .collect();
    let at = graph.locate(found.file, found.span);
    steps.push(ChainStep {
        function: None,
        use_: Some(found.what.clone()),
        file: graph.path(found.file).clone(),
        range: at.range,
        pos: at.pos,
        message: use_message(
            &found.what,
            found.why.as_deref(),
            graph.macro_at(found.file, at.range),
        ),
    });
    steps
}

/// "uses 'Params' here": where the use stands when a macro or an included text made it, and
/// why a value of its type uses the aspect when the type's name does not say.
fn use_message(what: &str, why: Option<&str>, made_by: Option<&str>) -> String {
    let mut msg = format!("uses '{what}' here");
    match made_by {
        Some(m) if m.starts_with("#include") => msg.push_str(&format!(", in the text of {m}")),
        Some(m) => msg.push_str(&format!(", in the expansion of macro '{m}'")),
        None => {}
    }
    if let Some(why) = why {
        msg.push_str(": ");
        msg.push_str(why);
    }
    msg
}

/// `rule`: the release's unoptimised rule (`ImageRule::declared`), as DPC++ checks
/// `device_has` before optimising.
pub(super) fn check_mismatch(
    graph: &Graph,
    node: NodeId,
    rule: ImageRule,
    out: &mut Vec<Diagnostic>,
    deps: &mut Vec<NodeId>,
) {
    let reg = registry();
    {
        let Some(decl) = graph.device_has(node) else {
            return;
        };
        // An aspect the source cannot name could be any aspect: never warn from it.
        if decl
            .aspects
            .iter()
            .any(|a| matches!(a, AspectRef::Unknown { .. }))
        {
            return;
        }
        let declared: AspectSet = decl
            .aspects
            .iter()
            .filter_map(|a| match a {
                AspectRef::Named { name, .. } => reg.by_name(name),
                AspectRef::Unknown { .. } => None,
            })
            .collect();
        let missing: BTreeMap<&str, AspectId> = graph
            .used_in(node, rule)
            .iter()
            .filter(|a| !declared.contains(*a))
            .map(|a| (reg.name(a), a))
            .collect();
        let name = graph.display_name(node);
        let what = match decl.form {
            DeclForm::Attribute => "'sycl::device_has' attribute",
            DeclForm::Property => "'device_has' property",
        };
        for (aspect_name, aspect) in missing {
            let (file, span) = graph.name_span(node);
            let mut d = diagnostic(
                graph,
                file,
                span,
                Severity::Warning,
                Code::AspectMismatch,
                format!("function '{name}' uses aspect '{aspect_name}' not listed in its {what}"),
            );
            d.function = Some(name.clone());
            d.aspect = Some(aspect_name.to_string());
            d.chain = chain_steps_in(graph, node, aspect, rule, deps);
            out.push(d);
        }
    }
}

/// The targets' device-table entries.
type Entries<'t> = [(&'t ResolvedTarget, &'t crate::devices::TargetInfo)];

pub(super) fn check_target(
    graph: &Graph,
    node: NodeId,
    entries: &Entries,
    settings: &Settings,
    out: &mut Vec<Diagnostic>,
    deps: &mut Vec<NodeId>,
) {
    let reg = registry();
    {
        let name = graph.display_name(node);
        let kind = if graph.is_kernel(node) {
            "kernel"
        } else {
            "SYCL_EXTERNAL function"
        };
        let mut declared = AspectSet::EMPTY;
        let reads_device_has = settings.implementation.reads_device_has();
        if let Some(decl) = graph.device_has(node).filter(|_| reads_device_has) {
            for a in &decl.aspects {
                if let AspectRef::Named { name, .. } = a {
                    if let Some(id) = reg.by_name(name) {
                        declared.insert(id);
                    }
                }
            }
        }
        // Per aspect: the rule of the first image that lacks it (for the chain), the targets.
        // And whether some image's code uses it, else the attribute alone names it.
        let mut by_aspect: BTreeMap<&str, (AspectId, ImageRule, Vec<&str>, bool)> = BTreeMap::new();
        for (t, info) in entries {
            if info.may_support_other_aspects {
                continue;
            }
            let rule = settings.image_for(info);
            let used = graph.used_in(node, rule);
            for a in used
                .union(declared)
                .iter()
                .filter(|a| !info.aspects.contains(*a))
            {
                let e = by_aspect
                    .entry(reg.name(a))
                    .or_insert((a, rule, Vec::new(), false));
                e.2.push(t.canonical.as_str());
                e.3 |= used.contains(a);
            }
        }
        for (aspect_name, (aspect, rule, lacking, used)) in by_aspect {
            let (file, span) = graph.name_span(node);
            let mut d = diagnostic(
                graph,
                file,
                span,
                Severity::Warning,
                Code::TargetUnsupportedAspect,
                if reads_device_has {
                    target_unsupported_message(kind, &name, aspect_name, &lacking, !used)
                } else {
                    acpp_unsupported_message(kind, &name, aspect_name, &lacking)
                },
            );
            d.function = Some(name.clone());
            d.aspect = Some(aspect_name.to_string());
            d.targets = lacking.iter().map(|t| t.to_string()).collect();
            d.chain = chain_steps_in(graph, node, aspect, rule, deps);
            out.push(d);
        }
        if let Some((size, span)) = graph.reqd_sub_group_size(node) {
            for (t, info) in entries {
                if info.sub_group_sizes.is_empty()
                    || info.sub_group_sizes.iter().any(|&s| i64::from(s) == size)
                {
                    continue;
                }
                let sizes: Vec<String> = info.sub_group_sizes.iter().map(u32::to_string).collect();
                let file = graph.node_file(node);
                let mut d = diagnostic(
                    graph,
                    file,
                    graph.locate(file, span),
                    Severity::Warning,
                    Code::TargetUnsupportedSubGroupSize,
                    format!(
                        "{kind} '{name}' requires sub-group size {size}, which target '{}' does not \
                         support (its sizes: {})",
                        t.canonical,
                        sizes.join(", ")
                    ),
                );
                d.function = Some(name.clone());
                d.targets = vec![t.canonical.clone()];
                out.push(d);
            }
        }
    }
}

/// The message of a `target-unsupported-aspect` finding under AdaptiveCpp, which has no
/// optional kernel features: every kernel is compiled for every target of
/// `--acpp-targets`, none is left out of a device's code (`devices::acpp`).
fn acpp_unsupported_message(kind: &str, name: &str, aspect: &str, lacking: &[&str]) -> String {
    let targets: Vec<String> = lacking.iter().map(|t| format!("'{t}'")).collect();
    format!(
        "{kind} '{name}' uses aspect '{aspect}', which no device of target {} has: AdaptiveCpp \
         compiles it for that device all the same (it leaves no kernel out by aspect), and \
         running it there is not supported{}",
        targets.join(", "),
        placeholder_note(lacking)
    )
}

/// Why a target lacks every aspect when DPC++'s default table has only an empty placeholder
/// for it: the finding follows from the table, not from the devices, and a user entry fixes
/// it. Empty when no target of `lacking` is one.
pub(super) fn placeholder_note(lacking: &[impl AsRef<str>]) -> String {
    let empty: Vec<String> = lacking
        .iter()
        .map(AsRef::as_ref)
        .filter(|t| crate::devices::DeviceTable::is_placeholder(t))
        .map(|t| format!("'{t}'"))
        .collect();
    match empty.as_slice() {
        [] => String::new(),
        [one] => format!(
            "; DPC++'s default device table has only an empty placeholder for {one} (no aspect \
             at all), not what its devices have: a --config entry that lists their aspects \
             fixes this"
        ),
        many => format!(
            "; DPC++'s default device table has only empty placeholders for {} (no aspect at \
             all), not what their devices have: --config entries that list their aspects fix \
             this",
            many.join(", ")
        ),
    }
}

/// The message of a `target-unsupported-aspect` finding; `kind` is `kernel` or
/// `SYCL_EXTERNAL function`. The driver has `sycl-post-link` leave kernels out of an image by
/// aspect only for targets named `intel_gpu_*` (and the other device-table names) in
/// `-fsycl-targets` (intel/llvm PR #12727); a `spir64_gen` image for an ocloc `-device`
/// (`spir64_gen:DEVICE`) keeps every kernel, so ocloc compiles this one for that device.
/// `declared_only`: the `device_has` attribute names the aspect and no code uses it (the image
/// is filtered by what is declared all the same).
pub(super) fn target_unsupported_message(
    kind: &str,
    name: &str,
    aspect: &str,
    lacking: &[impl AsRef<str>],
    declared_only: bool,
) -> String {
    let quote = |ts: &[&str]| -> String {
        ts.iter()
            .map(|t| format!("'{t}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (unfiltered, filtered): (Vec<&str>, Vec<&str>) = lacking
        .iter()
        .map(AsRef::as_ref)
        .partition(|t| t.starts_with(crate::devices::DEVICE_BOUND_PREFIX));
    let all: Vec<&str> = filtered.iter().chain(&unfiltered).copied().collect();
    let verb = match declared_only {
        true => "declares aspect '{aspect}' in 'sycl::device_has' (its code does not use it)",
        false => "uses aspect '{aspect}'",
    }
    .replace("{aspect}", aspect);
    let mut msg = format!(
        "{kind} '{name}' {verb}, which no device of target {} has:",
        quote(&all)
    );
    if !filtered.is_empty() {
        msg.push_str(&format!(
            " the AOT image for {} will not contain this {kind}, and launching it there throws \
             errc::kernel_not_supported",
            if unfiltered.is_empty() {
                "it".to_string()
            } else {
                quote(&filtered)
            }
        ));
    }
    if !unfiltered.is_empty() {
        if !filtered.is_empty() {
            msg.push(';');
        }
        msg.push_str(&format!(
            " DPC++ leaves no kernel out of a spir64_gen image by aspect, so ocloc compiles this \
             {kind} for {} all the same, a device that lacks '{aspect}'",
            quote(&unfiltered)
        ));
    }
    msg.push_str(&placeholder_note(&all));
    msg
}

/// `if_architecture_is` in device code when a target is not AOT-compiled.
pub(super) fn check_arch(
    graph: &Graph,
    node: NodeId,
    plain: &ResolvedTarget,
    out: &mut Vec<Diagnostic>,
) {
    for span in graph.arch_checks(node) {
        let file = graph.node_file(node);
        out.push(diagnostic(
            graph,
            file,
            graph.locate(file, *span),
            Severity::Error,
            Code::IfArchitectureNotAot,
            format!(
                "The if_architecture_is function may only be used when AOT compiling with \
                 '-fsycl-targets=spir64_x86_64' or '-fsycl-targets=*_gpu_*' (target '{}' \
                 is not)",
                plain.canonical
            ),
        ));
    }
}

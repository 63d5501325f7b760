//! `library-kernel-unsupported-aspect`: a oneMKL / oneMath routine called on data whose
//! element type needs an aspect (`semantic::LibraryKernel`) that a configured target lacks.
//! The kernel is the library's, precompiled: DPC++ checks nothing about it, and the call throws
//! at run time on such a device. A host call, so any compiled function counts, not only
//! device code.

use super::graph::Graph;
use super::report::Settings;
use crate::devices::{registry, ResolvedTarget, TargetInfo};
use crate::diagnostics::{ChainStep, Code, Diagnostic, Severity};

/// The findings of every compiled function's library calls, for the targets' entries.
pub(super) fn check_library_kernels(
    graph: &Graph,
    entries: &[(&ResolvedTarget, &TargetInfo)],
    settings: &Settings,
    out: &mut Vec<Diagnostic>,
) {
    let reg = registry();
    for node in graph.nodes() {
        let calls = graph.library_kernels(node);
        if calls.is_empty() || !graph.is_compiled(node, settings.units_elsewhere) {
            continue;
        }
        // Only calls the program can make: a header's routine wrappers (dpct's helpers) hold
        // calls for every element type, of which a program calls a few.
        let reached = graph.reached_from_sources();
        if !reached.get(node).copied().unwrap_or(false) {
            continue;
        }
        for (file, k) in calls {
            // As `target-unsupported-aspect`: a target whose devices may have aspects the
            // table does not list (the implicit `spir64`) is never said to lack one.
            let lacking: Vec<&str> = entries
                .iter()
                .filter(|(_, info)| {
                    !info.may_support_other_aspects && !info.aspects.contains(k.aspect)
                })
                .map(|(t, _)| t.canonical.as_str())
                .collect();
            if lacking.is_empty() {
                continue;
            }
            let aspect = reg.name(k.aspect);
            let at = graph.locate(*file, k.span);
            let mut d = Diagnostic::new(
                graph.path(*file).clone(),
                at.range,
                at.pos,
                Severity::Warning,
                Code::LibraryKernelUnsupportedAspect,
                library_kernel_message(&k.routine, k.element, aspect, &lacking),
            );
            d.function = Some(k.routine.clone());
            d.aspect = Some(aspect.to_string());
            d.targets = lacking.iter().map(|t| t.to_string()).collect();
            let data = graph.locate(*file, k.data);
            d.chain = vec![ChainStep {
                function: None,
                use_: Some(k.element.to_string()),
                file: graph.path(*file).clone(),
                range: data.range,
                pos: data.pos,
                message: format!("'{}' data passed here", k.element),
            }];
            out.push(d);
        }
    }
}

/// The message of a `library-kernel-unsupported-aspect` finding; the findings of several
/// device compiles joined are worded again with the union of their targets.
pub(super) fn library_kernel_message(
    routine: &str,
    element: &str,
    aspect: &str,
    lacking: &[impl AsRef<str>],
) -> String {
    let library = if routine.starts_with("oneapi::math::") {
        "oneMath"
    } else {
        "oneMKL"
    };
    let targets: Vec<String> = lacking
        .iter()
        .map(|t| format!("'{}'", t.as_ref()))
        .collect();
    format!(
        "{library} routine '{routine}' on '{element}' data runs a precompiled library kernel that \
         uses aspect '{aspect}', which no device of target {} has: the call throws on such a \
         device (the device compile does not see library kernels){}",
        targets.join(", "),
        super::checks::placeholder_note(lacking)
    )
}

/// The message of a joined finding, from what the finding keeps: the routine (`function`),
/// the element type (its chain's use), the aspect and the targets.
pub(super) fn reworded(d: &Diagnostic) -> String {
    let element = d
        .chain
        .last()
        .and_then(|s| s.use_.as_deref())
        .unwrap_or_default();
    library_kernel_message(
        d.function.as_deref().unwrap_or_default(),
        element,
        d.aspect.as_deref().unwrap_or_default(),
        &d.targets,
    )
}

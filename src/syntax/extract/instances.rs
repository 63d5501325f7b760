//! What host code instantiates outside any function body: explicit instantiation definitions
//! and the typed test cases of frameworks whose macros are unknown (`prepare::frameworks`).

use crate::syntax::Name;
use tree_sitter::Node;

use super::super::facts::*;
use super::super::prepare::{Instances, TestCase};
use super::super::tree::NodeExt;
use super::nodes::*;
use super::Extractor;

impl Extractor<'_> {
    /// `template class S<double>;` / `template void f<double>(double*);`: a call from host
    /// code of everything it instantiates. (tree-sitter reads the class form with a MISSING
    /// declarator, which is no error of the source.)
    pub(super) fn instantiation(&mut self, n: Node) {
        let ty = n.child_by_field_id(FIELDS.r#type.get());
        let decl = n.child_by_field_id(FIELDS.declarator.get());
        let class_name = ty
            .filter(|t| {
                matches!(
                    t.k(),
                    "class_specifier" | "struct_specifier" | "union_specifier"
                )
            })
            .and_then(|t| t.child_by_field_id(FIELDS.name.get()));
        let target = if let Some(name) = class_name {
            CallTarget::Instantiate {
                what: normalize(self.text(name)).into(),
                params: None,
            }
        } else if let Some(fd) = decl.filter(|d| d.k() == "function_declarator") {
            let Some(name) = fd.child_by_field_id(FIELDS.declarator.get()) else {
                return;
            };
            let (params, _, _, _) = self.params(fd);
            CallTarget::Instantiate {
                what: normalize(self.text(name)).into(),
                params: Some(params.iter().map(|p| Name::from(p.as_str())).collect()),
            }
        } else {
            return;
        };
        let host = self.host_function();
        self.push_call(host, target, 0, n, Vec::new(), Vec::new());
    }

    /// The function `idx` is the test case `t`: a typed one is a template over its parameters
    /// (`TestType`), instantiated by the host code of its namespace once per type listed.
    /// Returns 1 when its body is a template's, else 0.
    pub(super) fn test_case(&mut self, idx: usize, t: &TestCase) -> usize {
        if t.tparams.is_empty() {
            return 0;
        }
        let f = &mut self.facts.functions[idx];
        f.is_template = true;
        f.tparams = t.tparams.iter().cloned().collect();
        let host = self.host_in(&self.scope.clone());
        let targets: Vec<(CallTarget, crate::text::TextRange)> = match &t.instances {
            Instances::Each(each) => each
                .iter()
                .map(|(args, at)| {
                    let what = format!("{}<{args}>", t.name);
                    let target = CallTarget::Instantiate {
                        what: what.as_str().into(),
                        params: Some(Box::new([])),
                    };
                    (target, *at)
                })
                .collect(),
            Instances::List(list, at) => vec![(
                CallTarget::InstantiateEach {
                    what: t.name.as_str().into(),
                    list: Name::from(list.as_str()),
                },
                *at,
            )],
        };
        for (target, at) in targets {
            let span = self.span_of(at);
            self.facts.functions[host].calls.push(Call {
                target,
                args: 0,
                out: 0,
                span,
                guarded: Box::new([]),
                literal_args: Box::new([]),
            });
        }
        1
    }
}

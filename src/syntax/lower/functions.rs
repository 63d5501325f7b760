//! Function and lambda bodies: each is lowered into its own [`Body`] with its signature
//! (return type, template parameters, specialisation arguments) and parameters.

use tree_sitter::Node;

use super::{field, named_children, BodyCx, Lowerer};
use crate::syntax::extract::normalize;
use crate::syntax::ir::*;
use crate::syntax::tree::NodeExt;
use crate::syntax::Name;

impl<'a> Lowerer<'a, '_> {
    /// Return type, template parameters and specialisation arguments of function `fi`.
    pub(super) fn signature(&mut self, fi: usize, n: Node, fd: Node) {
        let ret = self.return_type(n, fd);
        let spec = field(fd, "declarator").and_then(|d| self.template_args_of_name(d));
        let f = &mut self.facts.functions[fi];
        f.ret = ret.as_deref().map(Name::from);
        f.tparams = self.tparams.iter().cloned().collect();
        f.spec_args = spec.map(Box::new);
    }

    pub(super) fn function(&mut self, n: Node) {
        let Some(fd) = self.function_declarator(n) else {
            return;
        };
        let Some(fi) = self.fns.get(&n.start_byte()).copied() else {
            return;
        };
        // A typed test case's parameters (`TestType`), the only ones the extractor gives: in
        // scope for its body and the lambdas in it.
        let own = self.facts.functions[fi].tparams.to_vec();
        let outer = self.tparams.len();
        self.tparams.extend(own);
        self.lower_function(fi, n, fd);
        self.tparams.truncate(outer);
    }

    fn lower_function(&mut self, fi: usize, n: Node, fd: Node) {
        self.signature(fi, n, fd);
        let Some(body) = field(n, "body") else {
            return;
        };
        // A function inside a function (a local class's method) gets its own stack.
        let saved = std::mem::take(&mut self.stack);
        self.stack.push(BodyCx {
            body: Body::default(),
            scopes: vec![Vec::new()],
            func: Some(fi),
            start: n.start_byte(),
        });
        if let Some(params) = field(fd, "parameters") {
            self.params(params);
        }
        // Constructor initializers are evaluated in the body.
        for c in named_children(n) {
            if c.k() == "field_initializer_list" {
                for init in named_children(c) {
                    for a in named_children(init) {
                        if matches!(a.k(), "argument_list" | "initializer_list") {
                            for x in named_children(a) {
                                let e = self.expr(x);
                                self.push_stmt(Stmt::Expr(e));
                            }
                        }
                    }
                }
            }
        }
        self.stmt(body);
        let cx = self.stack.pop().expect("pushed above");
        self.stack = saved;
        self.facts.functions[fi].body = Some(Box::new(cx.body));
    }

    pub(super) fn params(&mut self, list: Node) {
        for p in named_children(list) {
            if !matches!(
                p.k(),
                "parameter_declaration"
                    | "optional_parameter_declaration"
                    | "variadic_parameter_declaration"
            ) {
                continue;
            }
            let Some(ty) = field(p, "type") else { continue };
            let decl = field(p, "declarator");
            let name = decl.and_then(|d| self.declared_name(d)).unwrap_or_default();
            let text = self.declared_type(ty, decl);
            if text == "void" && decl.is_none() {
                continue;
            }
            let is_auto = ty.k() == "placeholder_type_specifier";
            let id = self.add_local(name, LocalTy::Declared(text.into()), self.span(p), true);
            if is_auto {
                self.cx().body.auto_params.push(id);
            }
        }
    }

    /// Lowers a lambda's body; returns its function index.
    pub(super) fn lambda(&mut self, n: Node) -> Option<usize> {
        let fi = self.lambdas.get(&n.start_byte()).copied()?;
        let parent = self.stack.last().and_then(|c| c.func).map(|p| p as u32);
        self.stack.push(BodyCx {
            body: Body {
                parent,
                ..Body::default()
            },
            scopes: vec![Vec::new()],
            func: Some(fi),
            start: n.start_byte(),
        });
        if let Some(caps) = field(n, "captures") {
            for c in named_children(caps) {
                match c.k() {
                    "identifier" if self.stack.len() > 1 => {
                        let level = self.stack.len() - 1;
                        self.lookup(level, self.text(c));
                    }
                    "lambda_capture_initializer" => {
                        let name = field(c, "left").map_or(String::new(), |l| self.text(l).into());
                        if let Some(r) = field(c, "right") {
                            let e = self.expr(r);
                            self.add_local(
                                name,
                                LocalTy::Auto(Name::default(), e),
                                self.span(c),
                                false,
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
        if let Some(d) = field(n, "declarator") {
            if let Some(p) = field(d, "parameters") {
                self.params(p);
            }
            if let Some(tr) = named_children(d)
                .into_iter()
                .find(|c| c.k() == "trailing_return_type")
            {
                let t = normalize(self.text(tr).trim_start_matches("->"));
                self.facts.functions[fi].ret = Some(t.into());
            }
        }
        self.facts.functions[fi].tparams = self.tparams.iter().cloned().collect();
        if let Some(b) = field(n, "body") {
            self.stmt(b);
        }
        let cx = self.stack.pop().expect("pushed above");
        self.facts.functions[fi].body = Some(Box::new(cx.body));
        Some(fi)
    }
}

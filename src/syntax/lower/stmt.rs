//! Statements: control flow, `if constexpr` regions, local declarations (with the vexing
//! parse read as a constructed variable), and aliases declared in a body.

use tree_sitter::Node;

use super::{field, field_nodes, named_children, Lowerer, MAX_DEPTH};
use crate::syntax::extract::normalize;
use crate::syntax::ir::*;
use crate::syntax::tree::NodeExt;

impl<'a> Lowerer<'a, '_> {
    pub(super) fn stmt(&mut self, n: Node) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.stmt_node(n));
        self.depth -= 1;
    }

    pub(super) fn stmt_node(&mut self, n: Node) {
        match n.k() {
            "compound_statement" => self.scoped(|s| {
                for c in named_children(n) {
                    s.stmt(c);
                }
            }),
            "declaration" => self.local_decl(n),
            "alias_declaration" => {
                if let (Some(name), Some(ty)) = (field(n, "name"), field(n, "type")) {
                    let alias = (self.text(name).to_string(), normalize(self.text(ty)));
                    self.local_alias(alias);
                }
            }
            "type_definition" => {
                if let Some(ty) = field(n, "type") {
                    let target = normalize(self.text(ty));
                    let names: Vec<String> = field_nodes(n, "declarator")
                        .into_iter()
                        .filter(|d| d.k() == "type_identifier")
                        .map(|d| self.text(d).to_string())
                        .collect();
                    for name in names {
                        self.local_alias((name, target.clone()));
                    }
                }
            }
            "expression_statement" => {
                for c in named_children(n) {
                    let e = self.expr(c);
                    self.push_stmt(Stmt::Expr(e));
                }
            }
            "return_statement" => {
                if let Some(c) = named_children(n).into_iter().next() {
                    let e = self.expr(c);
                    self.push_stmt(Stmt::Return(e));
                }
            }
            "if_statement" => self.if_stmt(n),
            "for_range_loop" => self.scoped(|s| {
                let Some(right) = field(n, "right") else {
                    return;
                };
                let r = s.expr(right);
                s.push_stmt(Stmt::Expr(r));
                if let Some(ty) = field(n, "type") {
                    let decl = field(n, "declarator");
                    let name = decl.and_then(|d| s.declared_name(d)).unwrap_or_default();
                    let text = s.declared_type(ty, decl);
                    let lt = if ty.k() == "placeholder_type_specifier" {
                        LocalTy::RangeElem(text.into(), r)
                    } else {
                        LocalTy::Declared(text.into())
                    };
                    let id = s.add_local(name, lt, s.span(ty), false);
                    s.push_stmt(Stmt::Local(id));
                }
                if let Some(b) = field(n, "body") {
                    s.stmt(b);
                }
            }),
            "for_statement" | "while_statement" | "do_statement" | "switch_statement" => self
                .scoped(|s| {
                    for c in named_children(n) {
                        s.stmt(c);
                    }
                }),
            "condition_clause" | "else_clause" | "labeled_statement" | "case_statement"
            | "try_statement" | "catch_clause" | "ERROR" => {
                let skip = (n.k() == "case_statement")
                    .then(|| field(n, "value"))
                    .flatten();
                for c in named_children(n) {
                    if Some(c.id()) != skip.map(|s| s.id()) {
                        self.stmt(c);
                    }
                }
            }
            k if k.starts_with("preproc_") => {
                for c in named_children(n) {
                    if !matches!(
                        c.k(),
                        "identifier" | "preproc_arg" | "preproc_params" | "preproc_defined"
                    ) && field(n, "condition").map(|x| x.id()) != Some(c.id())
                    {
                        self.stmt(c);
                    }
                }
            }
            "break_statement"
            | "continue_statement"
            | "goto_statement"
            | "comment"
            | "static_assert_declaration"
            | "using_declaration"
            | "namespace_alias_definition"
            | "statement_identifier"
            | "parameter_list"
            | "attribute_declaration"
            | "template_declaration" => {}
            "class_specifier" | "struct_specifier" | "union_specifier" | "function_definition" => {
                self.walk(n)
            }
            _ => {
                let e = self.expr(n);
                self.push_stmt(Stmt::Expr(e));
            }
        }
    }

    pub(super) fn if_stmt(&mut self, n: Node) {
        let is_constexpr = {
            let mut c = n.walk();
            let x = n.children(&mut c).any(|c| c.k() == "constexpr");
            x
        };
        self.scoped(|s| {
            let cond = field(n, "condition");
            let mut cond_expr = None;
            if let Some(c) = cond {
                for part in named_children(c) {
                    match part.k() {
                        "declaration" => s.local_decl(part),
                        _ => {
                            let e = s.expr(part);
                            if is_constexpr {
                                cond_expr = Some(e);
                            } else {
                                s.push_stmt(Stmt::Expr(e));
                            }
                        }
                    }
                }
            }
            let at = match (is_constexpr, cond_expr) {
                (true, Some(cond)) => {
                    s.push_stmt(Stmt::IfConstexpr {
                        cond,
                        then_len: 0,
                        else_len: 0,
                    });
                    // Its branches' ranges, filled in below: nested ones come after it.
                    s.cx().body.branches.push([0; 4]);
                    Some((s.cx().body.stmts.len() - 1, s.cx().body.branches.len() - 1))
                }
                _ => None,
            };
            let before = s.cx().body.stmts.len();
            if let Some(t) = field(n, "consequence") {
                s.scoped(|s| s.stmt(t));
            }
            let mid = s.cx().body.stmts.len();
            if let Some(e) = field(n, "alternative") {
                s.scoped(|s| s.stmt(e));
            }
            let end = s.cx().body.stmts.len();
            if let Some((at, k)) = at {
                s.cx().body.stmts[at] = Stmt::IfConstexpr {
                    cond: cond_expr.expect("set with at"),
                    then_len: (mid - before) as u32,
                    else_len: (end - mid) as u32,
                };
                let base = s.cx().start;
                let rel = |x: Option<Node>| {
                    x.map_or([0, 0], |x| {
                        let r = |b: usize| b.saturating_sub(base).min(u32::MAX as usize) as u32;
                        [r(x.start_byte()), r(x.end_byte())]
                    })
                };
                let ([a, b], [c, d]) = (rel(field(n, "consequence")), rel(field(n, "alternative")));
                s.cx().body.branches[k] = [a, b, c, d];
            }
        });
    }

    pub(super) fn local_decl(&mut self, n: Node) {
        let Some(ty) = field(n, "type") else { return };
        if matches!(
            ty.k(),
            "class_specifier" | "struct_specifier" | "union_specifier"
        ) {
            self.walk(ty);
        }
        let decls = field_nodes(n, "declarator");
        // A constexpr initializer is folded at compile time: typed, but no code.
        let constexpr = named_children(n).iter().any(|c| {
            matches!(c.k(), "type_qualifier" | "storage_class_specifier")
                && self.text(*c) == "constexpr"
        }) || {
            let mut c = n.walk();
            let x = n.children(&mut c).any(|c| c.k() == "constexpr");
            x
        };
        let decltype_expr = (ty.k() == "decltype")
            .then(|| named_children(ty).into_iter().next())
            .flatten();
        for d in decls {
            let (mut inner, value) = if d.k() == "init_declarator" {
                (field(d, "declarator").unwrap_or(d), field(d, "value"))
            } else {
                (d, None)
            };
            let mut init = value.map(|v| {
                let e = self.expr(v);
                if !constexpr {
                    self.push_stmt(Stmt::Expr(e));
                }
                e
            });
            // The vexing parse: `sycl::buffer b(v);` in a body reads as a function declarator
            // whose "parameters" are locals; it declares a variable constructed from them.
            if let Some((name, args)) = self.constructed_local(inner) {
                let list = self.list(args);
                let e = self.push_expr(Expr::Unknown(list), inner);
                self.push_stmt(Stmt::Expr(e));
                init = Some(e);
                inner = name;
            }
            if inner.k() == "structured_binding_declarator" {
                if let Some(init) = init {
                    for (k, b) in named_children(inner).into_iter().enumerate() {
                        let name = self.text(b).to_string();
                        let id = self.add_local(
                            name,
                            LocalTy::Binding(init, k as u32),
                            self.span(b),
                            false,
                        );
                        self.push_stmt(Stmt::Local(id));
                    }
                }
                continue;
            }
            let Some(name) = self.declared_name(inner) else {
                continue;
            };
            let text = self.declared_type(ty, Some(inner));
            let lt = match (ty.k(), init, decltype_expr) {
                ("placeholder_type_specifier", Some(e), _) => LocalTy::Auto(text.into(), e),
                ("decltype", _, Some(x)) => {
                    let e = self.expr(x);
                    LocalTy::Decltype(e)
                }
                // [dcl.type.class.deduct]/2: no CTAD for an array (`i32 a[2] = {..}`).
                ("type_identifier" | "qualified_identifier" | "template_type", Some(e), _)
                    if !text.contains(['<', '*', '&', '[']) =>
                {
                    LocalTy::Deduced(text.into(), e)
                }
                _ => LocalTy::Declared(text.into()),
            };
            // A name that may be a class template (`T x = e;`, read for CTAD) may as well be
            // an alias of an arithmetic type (`using scalar = float;`): its initializer is
            // converted to it as a declared type's is, so a typedef never changes how the
            // conversion is judged.
            let declared = matches!(lt, LocalTy::Declared(_) | LocalTy::Deduced(..));
            let span = self.span(inner);
            let id = self.add_local(name, lt, span, false);
            if let (true, Some(e)) = (declared, init) {
                self.cx().body.inits.push((id, e));
            }
            self.push_stmt(Stmt::Local(id));
        }
    }

    /// A function declarator in a body whose parameters are all names of locals: the
    /// declared name and those locals as expressions.
    pub(super) fn constructed_local<'t>(&mut self, d: Node<'t>) -> Option<(Node<'t>, Vec<ExprId>)> {
        if d.k() != "function_declarator" || self.stack.is_empty() {
            return None;
        }
        let name = field(d, "declarator").filter(|n| n.k() == "identifier")?;
        let params = field(d, "parameters")?;
        let level = self.stack.len() - 1;
        if self.vexing_locals(params, level)? == 0 {
            return None;
        }
        Some((name, self.vexing_args(params, level)))
    }

    /// How many of the "parameters" of a vexing parse are locals, `None` unless each is an
    /// argument: a name (a local, a tag object: `sycl::write_only`), or a class constructed
    /// from such arguments (`sycl::range(n)`, `range<2>(n, m)`, read as a function type). One
    /// local among them makes it no declaration: a local names no type.
    fn vexing_locals(&mut self, params: Node, level: usize) -> Option<usize> {
        let mut locals = 0;
        for p in named_children(params) {
            if p.k() != "parameter_declaration" {
                return None;
            }
            let t = field(p, "type")?;
            match (t.k(), field(p, "declarator")) {
                ("type_identifier", None) => {
                    locals += usize::from(self.lookup(level, self.text(t)).is_some());
                }
                ("qualified_identifier", None) => {}
                ("type_identifier" | "qualified_identifier" | "template_type", Some(f))
                    if f.k() == "abstract_function_declarator"
                        && field(f, "declarator").is_none() =>
                {
                    locals += self.vexing_locals(field(f, "parameters")?, level)?;
                }
                _ => return None,
            }
        }
        Some(locals)
    }

    /// The arguments `vexing_locals` accepted, as expressions.
    fn vexing_args(&mut self, params: Node, level: usize) -> Vec<ExprId> {
        let mut out = Vec::new();
        for p in named_children(params) {
            let Some(t) = field(p, "type") else { continue };
            let e = match field(p, "declarator").and_then(|f| field(f, "parameters")) {
                Some(inner) => {
                    let args = self.vexing_args(inner, level);
                    let e = Expr::Cast {
                        ty: normalize(self.text(t)).into(),
                        args: self.list(args),
                    };
                    self.push_expr(e, p)
                }
                None => {
                    let e = match t.k() {
                        "type_identifier" => match self.lookup(level, self.text(t)) {
                            Some(id) => Expr::Local(id),
                            None => Expr::Name(self.text(t).into()),
                        },
                        _ => Expr::Name(normalize(self.text(t)).into()),
                    };
                    self.push_expr(e, t)
                }
            };
            out.push(e);
        }
        out
    }
}

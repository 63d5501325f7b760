//! Lowers function bodies into [`Body`] (see `ir`), and records what typing needs beyond the
//! call-graph facts: return types, template parameters, specialisation arguments, class
//! fields and bases, namespace-scope variables. A second walk over the same tree, after the
//! extractor: it finds the extractor's functions and classes by their start offsets.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::syntax::Name;
use tree_sitter::Node;

use super::tree::NodeExt;

use super::extract::{declarator_name, normalize};
use super::facts::FileFacts;
use super::ir::*;
use super::literal::number_literal;
use super::tree::{Positions, Starts};
use crate::text::{Span, TextRange};

/// Nesting the lowering descends to: deeper expressions become `Unknown`.
const MAX_DEPTH: usize = 600;

pub fn attach(src: &str, pos: &Positions, starts: &Starts, root: Node, facts: &mut FileFacts) {
    let mut fns = HashMap::new();
    let mut lambdas = HashMap::new();
    for (i, (f, &at)) in facts.functions.iter().zip(&starts.functions).enumerate() {
        if f.name == "<host>" {
            continue;
        }
        let map = if f.is_lambda { &mut lambdas } else { &mut fns };
        map.entry(at).or_insert(i);
    }
    let classes = starts
        .classes
        .iter()
        .enumerate()
        .map(|(i, &at)| (at, i))
        .collect();
    let mut l = Lowerer {
        src,
        pos,
        fns,
        lambdas,
        classes,
        facts,
        tparams: Vec::new(),
        scope: Vec::new(),
        stack: Vec::new(),
        depth: 0,
    };
    l.walk(root);
}

struct BodyCx {
    body: Body,
    scopes: Vec<Vec<(String, LocalId)>>,
    func: Option<usize>,
}

struct Lowerer<'a, 'f> {
    src: &'a str,
    pos: &'a Positions<'a>,
    fns: HashMap<usize, usize>,
    lambdas: HashMap<usize, usize>,
    classes: HashMap<usize, usize>,
    facts: &'f mut FileFacts,
    tparams: Vec<TParam>,
    scope: Vec<String>,
    stack: Vec<BodyCx>,
    depth: usize,
}

/// Field ids by name, looked up once: tree-sitter's own name lookup compares the name with
/// every field name of the grammar, which showed in profiles.
static FIELD_IDS: LazyLock<rustc_hash::FxHashMap<Box<str>, u16>> = LazyLock::new(|| {
    let lang: tree_sitter::Language = tree_sitter_cpp::LANGUAGE.into();
    (1..=lang.field_count() as u16)
        .filter_map(|i| lang.field_name_for_id(i).map(|n| (n.into(), i)))
        .collect()
});

fn field<'t>(n: Node<'t>, name: &str) -> Option<Node<'t>> {
    FIELD_IDS.get(name).and_then(|&id| n.child_by_field_id(id))
}

fn field_nodes<'t>(n: Node<'t>, name: &str) -> Vec<Node<'t>> {
    let Some(id) = FIELD_IDS
        .get(name)
        .and_then(|&id| std::num::NonZeroU16::new(id))
    else {
        return Vec::new();
    };
    let mut c = n.walk();
    n.children_by_field_id(id, &mut c).collect()
}

fn named_children<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|x| x.k() != "comment")
        .collect()
}

impl<'a> Lowerer<'a, '_> {
    fn text(&self, n: Node) -> &'a str {
        &self.src[n.byte_range()]
    }

    fn span(&self, n: Node) -> Span {
        self.pos.span(TextRange::new(n.start_byte(), n.end_byte()))
    }

    // ---- declarations ---------------------------------------------------------------------

    fn walk(&mut self, n: Node) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.walk_node(n));
        self.depth -= 1;
    }

    fn walk_node(&mut self, n: Node) {
        match n.k() {
            "template_declaration" => {
                let saved = self.tparams.len();
                if let Some(list) = field(n, "parameters") {
                    let params = self.template_params(list);
                    for a in named_children(n) {
                        if a.k() == "alias_declaration" {
                            self.alias_template(a, &params);
                        }
                    }
                    self.tparams.extend(params);
                }
                for c in named_children(n) {
                    if c.k() != "template_parameter_list" {
                        self.walk(c);
                    }
                }
                self.tparams.truncate(saved);
            }
            "namespace_definition" => {
                let depth = self.scope.len();
                if let Some(name) = field(n, "name") {
                    let parts: Vec<String> = self
                        .text(name)
                        .split("::")
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                        .collect();
                    self.scope.extend(parts);
                }
                if let Some(b) = field(n, "body") {
                    self.walk(b);
                }
                self.scope.truncate(depth);
            }
            "class_specifier" | "struct_specifier" | "union_specifier" => self.class(n),
            "function_definition" => self.function(n),
            "declaration" | "field_declaration" => self.declaration(n),
            "lambda_expression" => {
                self.lambda(n);
            }
            "comment" | "string_literal" | "raw_string_literal" => {}
            _ => {
                for c in named_children(n) {
                    self.walk(c);
                }
            }
        }
    }

    fn alias_template(&mut self, n: Node, params: &[TParam]) {
        let Some(name) = field(n, "name").map(|x| self.text(x)) else {
            return;
        };
        let scope = &self.scope;
        if let Some(a) = self
            .facts
            .aliases
            .iter_mut()
            .find(|a| a.name == name && a.scope == *scope && a.tparams.is_empty())
        {
            a.tparams = params.to_vec();
        }
    }

    /// `sizeof(T)` parses as an expression when `T` is a bare name: a name that is no local
    /// is taken as a type.
    fn sizeof(&mut self, n: Node) -> Expr {
        let mut c = n.walk();
        if n.children(&mut c).any(|k| k.kind() == "...") {
            let name = field(n, "value").map_or("", |v| self.text(v));
            return Expr::SizeOfPack(name.trim().into());
        }
        if let Some(t) = field(n, "type") {
            return Expr::SizeOf(Some(normalize(self.text(t)).into()));
        }
        let Some(mut v) = field(n, "value") else {
            return Expr::SizeOf(None);
        };
        while v.k() == "parenthesized_expression" && v.named_child_count() == 1 {
            match v.named_child(0) {
                Some(c) => v = c,
                None => break,
            }
        }
        let level = self.stack.len().saturating_sub(1);
        let is_type_name = match v.k() {
            "identifier" => self.stack.is_empty() || self.lookup(level, self.text(v)).is_none(),
            "qualified_identifier"
            | "template_type"
            | "primitive_type"
            | "sized_type_specifier" => true,
            _ => false,
        };
        if is_type_name || self.stack.is_empty() {
            return Expr::SizeOf(Some(normalize(self.text(v)).into()));
        }
        Expr::SizeOfExpr(self.expr(v))
    }

    fn template_params(&self, list: Node) -> Vec<TParam> {
        let mut out = Vec::new();
        for p in named_children(list) {
            let (name, is_type, default) = match p.k() {
                "type_parameter_declaration" | "variadic_type_parameter_declaration" => (
                    named_children(p)
                        .into_iter()
                        .find(|c| c.k() == "type_identifier")
                        .map(|c| self.text(c).to_string()),
                    true,
                    None,
                ),
                "optional_type_parameter_declaration" => (
                    field(p, "name").map(|c| self.text(c).to_string()),
                    true,
                    field(p, "default_type").map(|d| normalize(self.text(d))),
                ),
                "parameter_declaration"
                | "optional_parameter_declaration"
                | "variadic_parameter_declaration" => (
                    field(p, "declarator").and_then(|d| self.declared_name(d)),
                    false,
                    field(p, "default_value").map(|d| normalize(self.text(d))),
                ),
                _ => (None, true, None),
            };
            let pack = matches!(
                p.k(),
                "variadic_type_parameter_declaration" | "variadic_parameter_declaration"
            );
            let constraint = (!is_type)
                .then(|| field(p, "type"))
                .flatten()
                .map(|t| normalize(self.text(t)))
                .filter(|t| t.contains("enable_if") || t.contains("void_t"));
            out.push(TParam {
                name: name.unwrap_or_default(),
                is_type,
                default,
                pack,
                constraint,
            });
        }
        out
    }

    fn class(&mut self, n: Node) {
        let Some(body) = field(n, "body") else {
            return;
        };
        if let Some(&ci) = self.classes.get(&n.start_byte()) {
            let spec_args = field(n, "name").and_then(|name| self.template_args_of_name(name));
            let mut bases = Vec::new();
            for c in named_children(n) {
                if c.k() == "base_class_clause" {
                    for b in named_children(c) {
                        if matches!(
                            b.k(),
                            "type_identifier" | "qualified_identifier" | "template_type"
                        ) {
                            bases.push(normalize(self.text(b)));
                        }
                    }
                }
            }
            let mut fields = Vec::new();
            for m in named_children(body) {
                if m.k() != "field_declaration" || self.function_declarator(m).is_some() {
                    continue;
                }
                let Some(ty) = field(m, "type") else { continue };
                let is_static = named_children(m)
                    .iter()
                    .any(|c| c.k() == "storage_class_specifier" && self.text(*c) == "static");
                for d in field_nodes(m, "declarator") {
                    if let Some(name) = self.declared_name(d) {
                        fields.push(Field {
                            name,
                            ty: self.declared_type(ty, Some(d)),
                            is_static,
                        });
                    }
                }
            }
            let tparams = self.tparams.clone();
            let c = &mut self.facts.classes[ci];
            c.tparams = tparams;
            c.spec_args = spec_args;
            c.fields = fields;
            c.bases = bases;
        }
        let name = field(n, "name").map(|x| {
            let t = normalize(self.text(x));
            let base = t.split('<').next().unwrap_or(&t).to_string();
            base.rsplit("::").next().unwrap_or(&base).to_string()
        });
        self.scope.push(name.unwrap_or_default());
        for m in named_children(body) {
            self.walk(m);
        }
        self.scope.pop();
    }

    /// `<args>` of a `template_type` / `template_function` name (a specialisation's).
    fn template_args_of_name(&self, name: Node) -> Option<Vec<String>> {
        let mut last = name;
        while last.k() == "qualified_identifier" {
            last = field(last, "name")?;
        }
        if !matches!(last.k(), "template_type" | "template_function") {
            return None;
        }
        field(last, "arguments").map(|a| self.targ_texts(a))
    }

    fn targ_texts(&self, args: Node) -> Vec<String> {
        named_children(args)
            .into_iter()
            .map(|a| normalize(self.text(a)))
            .collect()
    }

    /// The `function_declarator` of a declaration, through pointer/reference declarators.
    fn function_declarator<'t>(&self, n: Node<'t>) -> Option<Node<'t>> {
        let mut d = field(n, "declarator")?;
        loop {
            match d.k() {
                "function_declarator" => {
                    let inner = field(d, "declarator")?;
                    return (inner.k() != "parenthesized_declarator").then_some(d);
                }
                "pointer_declarator" | "reference_declarator" | "attributed_declarator" => {
                    d = field(d, "declarator").or_else(|| {
                        d.named_child(d.named_child_count().saturating_sub(1) as u32)
                    })?;
                }
                _ => return None,
            }
        }
    }

    fn declaration(&mut self, n: Node) {
        if let Some(fd) = self.function_declarator(n) {
            if let Some(&fi) = self.fns.get(&n.start_byte()) {
                self.signature(fi, n, fd);
            }
            return;
        }
        if let Some(t) = field(n, "type") {
            if matches!(
                t.k(),
                "class_specifier" | "struct_specifier" | "union_specifier"
            ) {
                self.walk(t);
            }
        }
        if n.k() == "declaration" {
            if let Some(ty) = field(n, "type") {
                let decls = field_nodes(n, "declarator");
                let constant = named_children(n).into_iter().any(|c| {
                    matches!(c.k(), "type_qualifier" | "storage_class_specifier")
                        && matches!(self.text(c), "const" | "constexpr")
                });
                for d in decls {
                    if let Some(name) = self.declared_name(d) {
                        let t = self.declared_type(ty, Some(d));
                        let init = field(d, "value")
                            .filter(|_| constant)
                            .map(|v| normalize(self.text(v)))
                            .map(|v| {
                                let v = v.trim();
                                v.strip_prefix('{')
                                    .and_then(|v| v.strip_suffix('}'))
                                    .unwrap_or(v)
                                    .trim()
                                    .to_string()
                            })
                            .filter(|v| v.len() <= 200);
                        self.facts.globals.push(Global {
                            name,
                            scope: self.scope.clone(),
                            ty: t,
                            init,
                        });
                    }
                    if let Some(v) = field(d, "value") {
                        self.walk(v);
                    }
                }
            }
        }
    }

    /// Return type, template parameters and specialisation arguments of function `fi`.
    fn signature(&mut self, fi: usize, n: Node, fd: Node) {
        let ret = self.return_type(n, fd);
        let spec = field(fd, "declarator").and_then(|d| self.template_args_of_name(d));
        let f = &mut self.facts.functions[fi];
        f.ret = ret.as_deref().map(Name::from);
        f.tparams = self.tparams.iter().cloned().collect();
        f.spec_args = spec.map(Box::new);
    }

    fn return_type(&self, n: Node, fd: Node) -> Option<String> {
        if let Some(tr) = named_children(fd)
            .into_iter()
            .find(|c| c.k() == "trailing_return_type")
        {
            return Some(normalize(self.text(tr).trim_start_matches("->")));
        }
        let ty = field(n, "type")?;
        let mut mods = String::new();
        let mut d = field(n, "declarator");
        while let Some(x) = d {
            match x.k() {
                "pointer_declarator" => mods.push('*'),
                "reference_declarator" => mods.push('&'),
                _ => break,
            }
            d = field(x, "declarator")
                .or_else(|| x.named_child(x.named_child_count().saturating_sub(1) as u32));
        }
        let t = normalize(self.text(ty));
        (t != "void" || !mods.is_empty()).then(|| t + &mods)
    }

    fn function(&mut self, n: Node) {
        let Some(fd) = self.function_declarator(n) else {
            return;
        };
        let Some(fi) = self.fns.get(&n.start_byte()).copied() else {
            return;
        };
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

    fn params(&mut self, list: Node) {
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

    /// The identifier a declarator declares; none for a structured binding (its names are
    /// locals of their own).
    fn declared_name(&self, d: Node) -> Option<String> {
        declarator_name(d, false).map(|n| self.text(n).to_string())
    }

    /// The type a declarator gives its name: the written type plus `*`, `&`, `[N]`.
    fn declared_type(&self, ty: Node, decl: Option<Node>) -> String {
        let mut t = normalize(self.text(ty));
        let mut d = decl;
        while let Some(x) = d {
            match x.k() {
                "pointer_declarator" | "abstract_pointer_declarator" => t.push('*'),
                "reference_declarator" | "abstract_reference_declarator" => {
                    let rvalue = self.text(x).trim_start().starts_with("&&");
                    t.push_str(if rvalue { "&&" } else { "&" });
                }
                "array_declarator" | "abstract_array_declarator" => {
                    let size = field(x, "size").map_or("", |s| self.text(s));
                    t.push('[');
                    t.push_str(size.trim());
                    t.push(']');
                }
                "init_declarator" | "attributed_declarator" | "parenthesized_declarator" => {}
                _ => break,
            }
            d = field(x, "declarator").or_else(|| {
                named_children(x).into_iter().find(|c| {
                    c.k().ends_with("declarator")
                        || matches!(c.k(), "identifier" | "field_identifier")
                })
            });
        }
        t
    }

    // ---- bodies ---------------------------------------------------------------------------

    fn cx(&mut self) -> &mut BodyCx {
        self.stack.last_mut().expect("inside a body")
    }

    fn push_stmt(&mut self, s: Stmt) {
        self.cx().body.stmts.push(s);
    }

    fn add_local(&mut self, name: String, ty: LocalTy, span: Span, param: bool) -> LocalId {
        let cx = self.cx();
        let id = cx.body.locals.len() as LocalId;
        cx.body.locals.push(LocalVar {
            name: name.as_str().into(),
            ty,
            span,
            param,
        });
        if !name.is_empty() {
            cx.scopes
                .last_mut()
                .expect("a body has a scope")
                .push((name, id));
        }
        id
    }

    fn lookup(&mut self, level: usize, name: &str) -> Option<LocalId> {
        let cx = &self.stack[level];
        for scope in cx.scopes.iter().rev() {
            if let Some((_, id)) = scope.iter().rev().find(|(n, _)| n == name) {
                return Some(*id);
            }
        }
        // Only lambdas nest: a name of an enclosing body is a capture.
        if level == 0 {
            return None;
        }
        let outer = self.lookup(level - 1, name)?;
        let span = self.stack[level - 1].body.locals[outer as usize].span;
        let cx = &mut self.stack[level];
        let id = cx.body.locals.len() as LocalId;
        cx.body.locals.push(LocalVar {
            name: name.into(),
            ty: LocalTy::Outer(outer),
            span,
            param: false,
        });
        cx.scopes[0].push((name.to_string(), id));
        Some(id)
    }

    /// An operand list of the current body.
    fn list(&mut self, ids: impl IntoIterator<Item = ExprId>) -> List {
        self.cx().body.push_list(ids)
    }

    fn targ_list(&mut self, texts: Vec<String>) -> List {
        self.cx()
            .body
            .push_targs(texts.iter().map(|t| Name::from(t.as_str())))
    }

    fn push_expr(&mut self, e: Expr, n: Node) -> ExprId {
        let span = self.span(n);
        let cx = self.cx();
        cx.body.exprs.push(e);
        cx.body.spans.push(span);
        (cx.body.exprs.len() - 1) as ExprId
    }

    fn local_alias(&mut self, alias: (String, String)) {
        if let Some(b) = self.stack.last_mut() {
            b.body.aliases.push(alias);
        }
    }

    fn stmt(&mut self, n: Node) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.stmt_node(n));
        self.depth -= 1;
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.cx().scopes.push(Vec::new());
        f(self);
        self.cx().scopes.pop();
    }

    fn stmt_node(&mut self, n: Node) {
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

    fn if_stmt(&mut self, n: Node) {
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
                    Some(s.cx().body.stmts.len() - 1)
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
            if let Some(at) = at {
                s.cx().body.stmts[at] = Stmt::IfConstexpr {
                    cond: cond_expr.expect("set with at"),
                    then_len: (mid - before) as u32,
                    else_len: (end - mid) as u32,
                };
            }
        });
    }

    fn local_decl(&mut self, n: Node) {
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
                ("type_identifier" | "qualified_identifier" | "template_type", Some(e), _)
                    if !text.contains('<') && !text.contains('*') && !text.contains('&') =>
                {
                    LocalTy::Deduced(text.into(), e)
                }
                _ => LocalTy::Declared(text.into()),
            };
            let declared = matches!(lt, LocalTy::Declared(_));
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
    fn constructed_local<'t>(&mut self, d: Node<'t>) -> Option<(Node<'t>, Vec<ExprId>)> {
        if d.k() != "function_declarator" || self.stack.is_empty() {
            return None;
        }
        let name = field(d, "declarator").filter(|n| n.k() == "identifier")?;
        let params = named_children(field(d, "parameters")?);
        let level = self.stack.len() - 1;
        let mut args = Vec::new();
        let mut locals = 0;
        for p in &params {
            if p.k() != "parameter_declaration" || field(*p, "declarator").is_some() {
                return None;
            }
            let t = field(*p, "type")?;
            let e = match t.k() {
                "type_identifier" => {
                    locals += 1;
                    Expr::Local(self.lookup(level, self.text(t))?)
                }
                // `sycl::write_only`: a tag object, as an argument.
                "qualified_identifier" => Expr::Name(normalize(self.text(t)).into()),
                _ => return None,
            };
            args.push((e, t));
        }
        if locals == 0 {
            return None;
        }
        let args = args
            .into_iter()
            .map(|(e, t)| self.push_expr(e, t))
            .collect();
        Some((name, args))
    }

    // ---- expressions ----------------------------------------------------------------------

    fn expr(&mut self, n: Node) -> ExprId {
        if self.depth > MAX_DEPTH {
            return self.push_expr(Expr::Unknown(List::default()), n);
        }
        self.depth += 1;
        let e = stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.expr_node(n));
        self.depth -= 1;
        e
    }

    fn exprs(&mut self, nodes: Vec<Node>) -> Vec<ExprId> {
        nodes.into_iter().map(|c| self.expr(c)).collect()
    }

    fn args_of(&mut self, n: Option<Node>) -> Vec<ExprId> {
        match n {
            Some(a) if matches!(a.k(), "argument_list" | "initializer_list") => {
                self.exprs(named_children(a))
            }
            Some(a) => vec![self.expr(a)],
            None => Vec::new(),
        }
    }

    fn expr_node(&mut self, n: Node) -> ExprId {
        let e = match n.k() {
            "parenthesized_expression" => {
                return match named_children(n).into_iter().next() {
                    Some(inner) => self.expr(inner),
                    None => self.push_expr(Expr::Unknown(List::default()), n),
                };
            }
            "number_literal" => Expr::Lit(number_literal(self.text(n))),
            "true" => Expr::Lit(Lit::Bool(true)),
            "false" => Expr::Lit(Lit::Bool(false)),
            "null" | "nullptr" => Expr::Lit(Lit::Null),
            "string_literal" | "raw_string_literal" | "concatenated_string" => Expr::Lit(Lit::Str),
            "char_literal" => Expr::Lit(Lit::Char),
            "this" => Expr::This,
            "identifier" => {
                let name = self.text(n);
                let level = self.stack.len() - 1;
                match self.lookup(level, name) {
                    Some(id) => Expr::Local(id),
                    None => Expr::Name(name.into()),
                }
            }
            "qualified_identifier" | "template_function" => self.name_expr(n),
            "field_expression" => {
                let base = field(n, "argument").map(|a| self.expr(a));
                let arrow = field(n, "operator").is_some_and(|o| self.text(o) == "->");
                let fld = field(n, "field");
                let Some(base) = base else {
                    return self.push_expr(Expr::Unknown(List::default()), n);
                };
                let tm = fld.and_then(|f| {
                    if f.k() == "template_method" {
                        Some(f)
                    } else if f.k() == "dependent_name" {
                        named_children(f)
                            .into_iter()
                            .find(|c| c.k() == "template_method")
                    } else {
                        None
                    }
                });
                match tm {
                    Some(t) => Expr::MemberTemplate {
                        base,
                        arrow,
                        name: field(t, "name").map_or_else(Name::default, |x| self.text(x).into()),
                        targs: match field(t, "arguments") {
                            Some(a) => {
                                let texts = self.targ_texts(a);
                                self.targ_list(texts)
                            }
                            None => List::default(),
                        },
                    },
                    None => Expr::Member {
                        base,
                        arrow,
                        name: fld.map_or_else(Name::default, |f| normalize(self.text(f)).into()),
                    },
                }
            }
            "subscript_expression" => {
                let base = field(n, "argument").map(|a| self.expr(a));
                let idx = field(n, "indices")
                    .and_then(|i| named_children(i).into_iter().next())
                    .or_else(|| field(n, "index"))
                    .map(|i| self.expr(i));
                match (base, idx) {
                    (Some(base), Some(index)) => Expr::Index { base, index },
                    (b, i) => Expr::Unknown(self.list(b.into_iter().chain(i))),
                }
            }
            "call_expression" => self.call(n),
            "compound_literal_expression" => {
                let ty = field(n, "type").map_or(String::new(), |t| normalize(self.text(t)));
                let args = self.args_of(field(n, "value"));
                Expr::Cast {
                    ty: ty.into(),
                    args: self.list(args),
                }
            }
            "cast_expression" => {
                let ty = field(n, "type").map_or(String::new(), |t| normalize(self.text(t)));
                let args = self.args_of(field(n, "value"));
                Expr::Cast {
                    ty: ty.into(),
                    args: self.list(args),
                }
            }
            "unary_expression" | "pointer_expression" | "update_expression" => {
                let op = field(n, "operator").map_or("", |o| self.text(o));
                let Some(a) = field(n, "argument") else {
                    return self.push_expr(Expr::Unknown(List::default()), n);
                };
                let arg = self.expr(a);
                let op = match op {
                    "-" => UnOp::Neg,
                    "+" => UnOp::Plus,
                    "!" | "not" => UnOp::Not,
                    "~" | "compl" => UnOp::BitNot,
                    "*" => UnOp::Deref,
                    "&" => UnOp::Addr,
                    "++" => UnOp::Inc,
                    "--" => UnOp::Dec,
                    _ => {
                        let args = self.list([arg]);
                        return self.push_expr(Expr::Unknown(args), n);
                    }
                };
                Expr::Unary { op, arg }
            }
            "binary_expression" | "comma_expression" => {
                let op = if n.k() == "comma_expression" {
                    Some(BinOp::Comma)
                } else {
                    field(n, "operator").and_then(|o| BinOp::from_text(self.text(o)))
                };
                let lhs = field(n, "left").map(|x| self.expr(x));
                let rhs = field(n, "right").map(|x| self.expr(x));
                match (op, lhs, rhs) {
                    (Some(op), Some(lhs), Some(rhs)) => Expr::Binary { op, lhs, rhs },
                    (_, l, r) => Expr::Unknown(self.list(l.into_iter().chain(r))),
                }
            }
            "assignment_expression" => {
                let op = field(n, "operator").map_or("=", |o| self.text(o));
                let op = if op == "=" {
                    None
                } else {
                    BinOp::from_text(op.trim_end_matches('='))
                };
                let lhs = field(n, "left").map(|x| self.expr(x));
                let rhs = field(n, "right").map(|x| self.expr(x));
                match (lhs, rhs) {
                    (Some(lhs), Some(rhs)) => Expr::Assign { op, lhs, rhs },
                    (l, r) => Expr::Unknown(self.list(l.into_iter().chain(r))),
                }
            }
            "conditional_expression" => {
                let c = field(n, "condition").map(|x| self.expr(x));
                let t = field(n, "consequence").map(|x| self.expr(x));
                let e = field(n, "alternative").map(|x| self.expr(x));
                match (c, t, e) {
                    (Some(cond), Some(then), Some(els)) => Expr::Cond { cond, then, els },
                    (c, t, e) => Expr::Unknown(self.list(c.into_iter().chain(t).chain(e))),
                }
            }
            "lambda_expression" => match self.lambda(n) {
                Some(fi) => Expr::Lambda(fi as u32),
                None => Expr::Unknown(List::default()),
            },
            "new_expression" => {
                let ty = field(n, "type").map_or(String::new(), |t| normalize(self.text(t)));
                let args = self.args_of(field(n, "arguments"));
                Expr::New {
                    ty: ty.into(),
                    args: self.list(args),
                }
            }
            "initializer_list" => {
                let args = self.exprs(named_children(n));
                Expr::InitList(self.list(args))
            }
            "sizeof_expression" => self.sizeof(n),
            "parameter_pack_expansion" => match field(n, "pattern") {
                Some(p) => Expr::Expand(self.expr(p)),
                None => Expr::Unknown(List::default()),
            },
            // `(pack op ...)`, `(init op ... op pack)`: each operand expands if it names a
            // pack; the fold's value is its pattern's type.
            "fold_expression" => {
                let ops: Vec<ExprId> = [field(n, "left"), field(n, "right")]
                    .into_iter()
                    .flatten()
                    .map(|o| {
                        let e = self.expr(o);
                        self.push_expr(Expr::Expand(e), o)
                    })
                    .collect();
                Expr::Unknown(self.list(ops))
            }
            "alignof_expression" | "noexcept" | "decltype" | "requires_expression" => {
                Expr::SizeOf(None)
            }
            _ => {
                let kids = named_children(n);
                let args = self.exprs(kids);
                Expr::Unknown(self.list(args))
            }
        };
        self.push_expr(e, n)
    }

    fn name_expr(&mut self, n: Node) -> Expr {
        let mut last = n;
        while last.k() == "qualified_identifier" {
            match field(last, "name") {
                Some(x) => last = x,
                None => break,
            }
        }
        if last.k() == "template_function" {
            let targs = field(last, "arguments").map_or(Vec::new(), |a| self.targ_texts(a));
            let end = field(last, "name").map_or(last.end_byte(), |x| x.end_byte());
            let name = normalize(&self.src[n.start_byte()..end]);
            Expr::TemplateName {
                name: name.into(),
                targs: self.targ_list(targs),
            }
        } else {
            Expr::Name(normalize(self.text(n)).into())
        }
    }

    fn call(&mut self, n: Node) -> Expr {
        let args_node = field(n, "arguments");
        let Some(f) = field(n, "function") else {
            let args = self.args_of(args_node);
            return Expr::Unknown(self.list(args));
        };
        match f.k() {
            "primitive_type" | "sized_type_specifier" | "type_identifier" | "template_type" => {
                let ty = normalize(self.text(f));
                let args = self.args_of(args_node);
                return Expr::Cast {
                    ty: ty.into(),
                    args: self.list(args),
                };
            }
            "template_function" => {
                let name = field(f, "name").map_or("", |x| self.text(x));
                if matches!(
                    name,
                    "static_cast" | "reinterpret_cast" | "const_cast" | "dynamic_cast" | "bit_cast"
                ) {
                    let ty = field(f, "arguments")
                        .and_then(|a| named_children(a).into_iter().next())
                        .map_or(String::new(), |t| normalize(self.text(t)));
                    let args = self.args_of(args_node);
                    return Expr::Cast {
                        ty: ty.into(),
                        args: self.list(args),
                    };
                }
            }
            _ => {}
        }
        let callee = self.expr(f);
        let args = self.args_of(args_node);
        Expr::Call {
            callee,
            args: self.list(args),
        }
    }

    /// Lowers a lambda's body; returns its function index.
    fn lambda(&mut self, n: Node) -> Option<usize> {
        let fi = self.lambdas.get(&n.start_byte()).copied()?;
        let parent = self.stack.last().and_then(|c| c.func).map(|p| p as u32);
        self.stack.push(BodyCx {
            body: Body {
                parent,
                ..Body::default()
            },
            scopes: vec![Vec::new()],
            func: Some(fi),
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

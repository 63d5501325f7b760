//! Expressions: literals, names (locals or not), members, calls and casts, operators,
//! `sizeof` and folds; anything else becomes `Unknown` over its lowered children.

use tree_sitter::Node;

use super::{field, named_children, Lowerer, MAX_DEPTH};
use crate::syntax::extract::normalize;
use crate::syntax::ir::*;
use crate::syntax::literal::number_literal;
use crate::syntax::tree::NodeExt;
use crate::syntax::Name;

impl<'a> Lowerer<'a, '_> {
    /// `sizeof(T)` parses as an expression when `T` is a bare name: a name that is no local
    /// is taken as a type.
    pub(super) fn sizeof(&mut self, n: Node) -> Expr {
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

    pub(super) fn expr(&mut self, n: Node) -> ExprId {
        if self.depth > MAX_DEPTH {
            return self.push_expr(Expr::Unknown(List::default()), n);
        }
        self.depth += 1;
        let e = stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.expr_node(n));
        self.depth -= 1;
        e
    }

    pub(super) fn exprs(&mut self, nodes: Vec<Node>) -> Vec<ExprId> {
        nodes.into_iter().map(|c| self.expr(c)).collect()
    }

    pub(super) fn args_of(&mut self, n: Option<Node>) -> Vec<ExprId> {
        match n {
            Some(a) if matches!(a.k(), "argument_list" | "initializer_list") => {
                self.exprs(named_children(a))
            }
            Some(a) => vec![self.expr(a)],
            None => Vec::new(),
        }
    }

    pub(super) fn expr_node(&mut self, n: Node) -> ExprId {
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

    pub(super) fn name_expr(&mut self, n: Node) -> Expr {
        let mut last = n;
        while last.k() == "qualified_identifier" {
            match field(last, "name") {
                Some(x) => last = x,
                None => break,
            }
        }
        // `T::template f<int>`: the disambiguator ([temp.names]/4) is no part of the name.
        if last.k() == "dependent_name" {
            last = named_children(last).pop().unwrap_or(last);
        }
        if last.k() == "template_function" {
            let targs = field(last, "arguments").map_or(Vec::new(), |a| self.targ_texts(a));
            let end = field(last, "name").map_or(last.end_byte(), |x| x.end_byte());
            let name = normalize(&self.src[n.start_byte()..end]).replace("::template ", "::");
            Expr::TemplateName {
                name: name.into(),
                targs: self.targ_list(targs),
            }
        } else {
            Expr::Name(normalize(self.text(n)).into())
        }
    }

    pub(super) fn call(&mut self, n: Node) -> Expr {
        let args_node = field(n, "arguments");
        let Some(f) = field(n, "function") else {
            let args = self.args_of(args_node);
            return Expr::Unknown(self.list(args));
        };
        // `unsigned(x)` parses as a call of an identifier `unsigned` (see `keyword_cast` in
        // `prepare`): a functional cast, as `int(x)` is.
        let keyword = f.k() == "identifier"
            && matches!(self.text(f), "unsigned" | "signed" | "long" | "short");
        match f.k() {
            _ if keyword => {
                let args = self.args_of(args_node);
                return Expr::Cast {
                    ty: self.text(f).into(),
                    args: self.list(args),
                };
            }
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
}

//! The body under construction: its arena of statements, expressions and operand lists,
//! and its locals, resolved lexically by scope (a lambda's use of an enclosing body's local
//! becomes a capture).

use tree_sitter::Node;

use super::{BodyCx, Lowerer};
use crate::syntax::ir::*;
use crate::syntax::Name;
use crate::text::Span;

impl<'a> Lowerer<'a, '_> {
    pub(super) fn cx(&mut self) -> &mut BodyCx {
        self.stack.last_mut().expect("inside a body")
    }

    pub(super) fn push_stmt(&mut self, s: Stmt) {
        self.cx().body.stmts.push(s);
    }

    pub(super) fn add_local(
        &mut self,
        name: String,
        ty: LocalTy,
        span: Span,
        param: bool,
    ) -> LocalId {
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

    pub(super) fn lookup(&mut self, level: usize, name: &str) -> Option<LocalId> {
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
    pub(super) fn list(&mut self, ids: impl IntoIterator<Item = ExprId>) -> List {
        self.cx().body.push_list(ids)
    }

    pub(super) fn targ_list(&mut self, texts: Vec<String>) -> List {
        self.cx()
            .body
            .push_targs(texts.iter().map(|t| Name::from(t.as_str())))
    }

    pub(super) fn push_expr(&mut self, e: Expr, n: Node) -> ExprId {
        let span = self.span(n);
        let cx = self.cx();
        cx.body.exprs.push(e);
        cx.body.spans.push(span);
        (cx.body.exprs.len() - 1) as ExprId
    }

    /// An alias declared here: it sees what is lowered from now to the end of its block
    /// (`scoped` closes it).
    pub(super) fn local_alias(&mut self, (name, target): (String, String)) {
        if let Some(b) = self.stack.last_mut() {
            let (e, l) = (b.body.exprs.len() as u32, b.body.locals.len() as u32);
            b.body.aliases.push(BodyAlias {
                name,
                target,
                exprs: [e, u32::MAX],
                locals: [l, u32::MAX],
            });
        }
    }

    pub(super) fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        let first_alias = self.cx().body.aliases.len();
        self.cx().scopes.push(Vec::new());
        f(self);
        let cx = self.cx();
        cx.scopes.pop();
        // [basic.scope.block]: the aliases of the block end with it.
        let (e, l) = (cx.body.exprs.len() as u32, cx.body.locals.len() as u32);
        for a in &mut cx.body.aliases[first_alias..] {
            if a.exprs[1] == u32::MAX {
                a.exprs[1] = e;
                a.locals[1] = l;
            }
        }
    }
}

//! Namespace- and class-scope declarations: the walk over the tree that finds functions,
//! lambdas and classes, and records class fields and bases, namespace-scope variables and
//! the template parameters of alias templates.

use tree_sitter::Node;

use super::{field, field_nodes, named_children, Lowerer, MAX_DEPTH};
use crate::syntax::extract::normalize;
use crate::syntax::ir::*;
use crate::syntax::tree::NodeExt;

impl<'a> Lowerer<'a, '_> {
    pub(super) fn walk(&mut self, n: Node) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.walk_node(n));
        self.depth -= 1;
    }

    pub(super) fn walk_node(&mut self, n: Node) {
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

    pub(super) fn alias_template(&mut self, n: Node, params: &[TParam]) {
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

    pub(super) fn class(&mut self, n: Node) {
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
                if ty.k() == "enum_specifier" {
                    self.member_enumerators(ty, &mut fields);
                }
                let is_static = named_children(m)
                    .iter()
                    .any(|c| c.k() == "storage_class_specifier" && self.text(*c) == "static");
                let decls = field_nodes(m, "declarator");
                let init = field(m, "default_value")
                    .filter(|_| is_static && decls.len() == 1)
                    .and_then(|v| self.constant_init(v));
                for d in decls {
                    if let Some(name) = self.declared_name(d) {
                        fields.push(Field {
                            name,
                            ty: self.declared_type(ty, Some(d)),
                            is_static,
                            init: init.clone(),
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

    pub(super) fn declaration(&mut self, n: Node) {
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
                            .and_then(|v| self.constant_init(v));
                        self.facts.globals.push(Global {
                            name,
                            scope: self.scope.clone(),
                            ty: t,
                            init,
                            tparams: self.tparams.clone(),
                        });
                    }
                    if let Some(v) = field(d, "value") {
                        self.walk(v);
                    }
                }
            }
        }
    }

    /// [enum.enum]/2, [class.mem]: an unscoped enumeration's enumerators are constants of
    /// the enclosing class (`struct V { enum { fast = 1 }; };` gives `V::fast`), recorded as
    /// static members whose initializer is the value written or the previous one plus one.
    fn member_enumerators(&self, e: Node, fields: &mut Vec<Field>) {
        let text = self.text(e);
        let scoped = text.starts_with("enum class") || text.starts_with("enum struct");
        let Some(list) = field(e, "body").filter(|_| !scoped) else {
            return;
        };
        let mut next = "0".to_string();
        let first = fields.len();
        for x in named_children(list) {
            let Some(name) = field(x, "name").filter(|_| x.k() == "enumerator") else {
                continue;
            };
            let value = match field(x, "value") {
                Some(v) => match self.constant_init(v) {
                    Some(v) => earlier_enumerators(&v, &fields[first..]),
                    // Too long to keep: this one and the ones after it are unknown.
                    None => return,
                },
                None => next.clone(),
            };
            next = format!("({value}) + 1");
            fields.push(Field {
                name: self.text(name).to_string(),
                ty: "int".to_string(),
                is_static: true,
                init: Some(value),
            });
        }
    }

    /// A constant's initializer as text, braces taken off (`{4}`: `4`); a long one is none.
    fn constant_init(&self, v: Node) -> Option<String> {
        let v = normalize(self.text(v));
        let v = v.trim();
        let v = v
            .strip_prefix('{')
            .and_then(|v| v.strip_suffix('}'))
            .unwrap_or(v)
            .trim();
        (v.len() <= 200).then(|| v.to_string())
    }
}

/// An enumerator's value written with earlier ones (`c = b - 5`): their values in their place,
/// since the value is read later where the enumeration's own names are not in scope.
fn earlier_enumerators(value: &str, earlier: &[Field]) -> String {
    let mut out = String::with_capacity(value.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match earlier.iter().rev().find(|f| f.name == *word) {
            Some(Field { init: Some(v), .. }) => out.push_str(&format!("({v})")),
            _ => out.push_str(word),
        }
        word.clear();
    };
    for ch in value.chars() {
        if ch.is_alphanumeric() || ch == '_' {
            word.push(ch);
        } else {
            flush(&mut word, &mut out);
            out.push(ch);
        }
    }
    flush(&mut word, &mut out);
    out
}

//! Types as text: template parameter lists and arguments, declarators (what a declarator
//! declares and the type it gives), function declarators and return types.

use tree_sitter::Node;

use super::{field, named_children, Lowerer};
use crate::syntax::extract::{conversion_declarator, conversion_type, declarator_name, normalize};
use crate::syntax::ir::*;
use crate::syntax::tree::NodeExt;

impl<'a> Lowerer<'a, '_> {
    pub(super) fn template_params(&self, list: Node) -> Vec<TParam> {
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
                // `template <typename> class Action`: the parameter names a class template.
                "template_template_parameter_declaration" => (
                    named_children(p)
                        .into_iter()
                        .find(|c| c.k().ends_with("type_parameter_declaration"))
                        .and_then(|c| {
                            field(c, "name").or_else(|| {
                                named_children(c)
                                    .into_iter()
                                    .find(|x| x.k() == "type_identifier")
                            })
                        })
                        .map(|c| self.text(c).to_string()),
                    true,
                    None,
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

    /// `<args>` of a `template_type` / `template_function` name (a specialisation's).
    pub(super) fn template_args_of_name(&self, name: Node) -> Option<Vec<String>> {
        let mut last = name;
        while last.k() == "qualified_identifier" {
            last = field(last, "name")?;
        }
        if !matches!(last.k(), "template_type" | "template_function") {
            return None;
        }
        field(last, "arguments").map(|a| self.targ_texts(a))
    }

    pub(super) fn targ_texts(&self, args: Node) -> Vec<String> {
        named_children(args)
            .into_iter()
            .map(|a| normalize(self.text(a)))
            .collect()
    }

    /// The `function_declarator` of a declaration, through pointer/reference declarators; a
    /// conversion function's (`operator double() const`) parameter declarator.
    pub(super) fn function_declarator<'t>(&self, n: Node<'t>) -> Option<Node<'t>> {
        if let Some((_, fd)) = conversion_declarator(n) {
            return Some(fd);
        }
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

    pub(super) fn return_type(&self, n: Node, fd: Node) -> Option<String> {
        if let Some(tr) = named_children(fd)
            .into_iter()
            .find(|c| c.k() == "trailing_return_type")
        {
            return Some(normalize(self.text(tr).trim_start_matches("->")));
        }
        if let Some((mut oc, _)) = conversion_declarator(n) {
            while oc.k() == "qualified_identifier" {
                oc = field(oc, "name")?;
            }
            return conversion_type(self.src, oc);
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

    /// The identifier a declarator declares; none for a structured binding (its names are
    /// locals of their own).
    pub(super) fn declared_name(&self, d: Node) -> Option<String> {
        declarator_name(d, false).map(|n| self.text(n).to_string())
    }

    /// `void (*f)(queue &, double *)`, `void (*fs[])(...)`, `R (&g)(...)`: a pointer or
    /// reference to a function (or an array of pointers), written abstractly
    /// (`void(*)(queue&,double*)`, `void(*[])(...)`): the parameter types a function template
    /// named as its value is deduced from ([temp.deduct.funcaddr]). `None` for a function's
    /// own declarator.
    fn function_pointer_type(&self, ret: &str, fd: Node) -> Option<String> {
        let mut inner = field(fd, "declarator").filter(|d| d.k() == "parenthesized_declarator")?;
        let mut shape = String::new();
        loop {
            let next = named_children(inner)
                .into_iter()
                .find(|c| c.k().ends_with("declarator"));
            match inner.k() {
                "pointer_declarator" => shape.push('*'),
                "reference_declarator" => shape.push('&'),
                "array_declarator" => shape.push_str("[]"),
                _ => {}
            }
            match next
                .or_else(|| field(inner, "declarator").filter(|d| d.k().ends_with("declarator")))
            {
                Some(n) => inner = n,
                None => break,
            }
        }
        if !shape.starts_with(['*', '&']) {
            return None;
        }
        let params = normalize(self.text(field(fd, "parameters")?));
        Some(format!("{ret}({shape}){params}"))
    }

    /// The type a declarator gives its name: the written type plus `*`, `&`, `[N]`.
    pub(super) fn declared_type(&self, ty: Node, decl: Option<Node>) -> String {
        let mut t = normalize(self.text(ty));
        let mut d = decl;
        // The outermost declarator holds the last bound written (`m[2][6]` nests `m[2]` in
        // `[6]`): a run of bounds is kept in the written order, outermost array first.
        let mut bounds_at: Option<usize> = None;
        while let Some(x) = d {
            if !matches!(x.k(), "array_declarator" | "abstract_array_declarator") {
                bounds_at = None;
            }
            match x.k() {
                "pointer_declarator" | "abstract_pointer_declarator" => t.push('*'),
                "reference_declarator" | "abstract_reference_declarator" => {
                    let rvalue = self.text(x).trim_start().starts_with("&&");
                    t.push_str(if rvalue { "&&" } else { "&" });
                }
                "array_declarator" | "abstract_array_declarator" => {
                    let size = field(x, "size").map_or("", |s| self.text(s));
                    let at = *bounds_at.get_or_insert(t.len());
                    t.insert_str(at, &format!("[{}]", size.trim()));
                }
                "init_declarator" | "attributed_declarator" | "parenthesized_declarator" => {}
                "function_declarator" => return self.function_pointer_type(&t, x).unwrap_or(t),
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
}

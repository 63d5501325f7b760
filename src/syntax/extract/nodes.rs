//! Helpers over tree-sitter nodes and source text for the extractor: names, declarators,
//! literals and their context, argument lists.

use std::num::NonZeroU16 as FieldId;
use std::sync::LazyLock;

use tree_sitter::Node;

use super::super::facts::AspectRef;
use super::super::tree::NodeExt;
use crate::text::Span;

/// tree-sitter-cpp field ids, looked up once: `child_by_field_name` compares the name with
/// every field name of the grammar on each call, which showed in profiles.
pub(super) struct Fields {
    pub(super) argument: FieldId,
    pub(super) arguments: FieldId,
    pub(super) body: FieldId,
    pub(super) captures: FieldId,
    pub(super) condition: FieldId,
    pub(super) consequence: FieldId,
    pub(super) declarator: FieldId,
    pub(super) default_value: FieldId,
    pub(super) field: FieldId,
    pub(super) function: FieldId,
    pub(super) left: FieldId,
    pub(super) name: FieldId,
    pub(super) operator: FieldId,
    pub(super) parameters: FieldId,
    pub(super) path: FieldId,
    pub(super) right: FieldId,
    pub(super) scope: FieldId,
    pub(super) r#type: FieldId,
    pub(super) value: FieldId,
}

pub(super) static FIELDS: LazyLock<Fields> = LazyLock::new(|| {
    let lang: tree_sitter::Language = tree_sitter_cpp::LANGUAGE.into();
    let id = |n: &str| {
        lang.field_id_for_name(n)
            .expect("tree-sitter-cpp has this field")
    };
    Fields {
        argument: id("argument"),
        arguments: id("arguments"),
        body: id("body"),
        captures: id("captures"),
        condition: id("condition"),
        consequence: id("consequence"),
        declarator: id("declarator"),
        default_value: id("default_value"),
        field: id("field"),
        function: id("function"),
        left: id("left"),
        name: id("name"),
        operator: id("operator"),
        parameters: id("parameters"),
        path: id("path"),
        right: id("right"),
        scope: id("scope"),
        r#type: id("type"),
        value: id("value"),
    }
});

/// The argument expressions of an `argument_list`.
pub(super) fn arguments(args: Option<Node>) -> Vec<Node> {
    args.map(|a| {
        let mut cursor = a.walk();
        a.named_children(&mut cursor)
            .filter(|x| x.k() != "comment")
            .collect()
    })
    .unwrap_or_default()
}

pub(super) fn parse_int(t: &str) -> Option<i64> {
    let t = t.trim().trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()
    } else {
        t.parse().ok()
    }
}

/// An aspect from its spelling: the enumerator after `aspect::`, or a bare enumerator name.
pub fn aspect_ref(text: &str, span: Span) -> AspectRef {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let compact = compact.trim_start_matches("::");
    let parts: Vec<&str> = compact.split("::").collect();
    let plain = parts
        .iter()
        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    let name = parts.last().copied().unwrap_or("");
    // `X::fp16` is taken as an enumerator whatever X is (`sycl::aspect`, an alias of it); a bare
    // name only when it is an aspect's, since a template parameter is bare too.
    let known = crate::devices::registry().by_name(name).is_some();
    if plain && (parts.len() >= 2 || known) {
        AspectRef::Named {
            name: name.to_string(),
            span,
        }
    } else {
        AspectRef::Unknown {
            text: text.to_string(),
            span,
        }
    }
}

pub(super) fn unwrap_sign(n: Node) -> Node {
    let mut n = n;
    while matches!(n.k(), "unary_expression" | "parenthesized_expression") {
        match n.named_child(n.named_child_count().saturating_sub(1) as u32) {
            Some(inner) => n = inner,
            None => break,
        }
    }
    n
}

/// The nodes above `n`, outermost first, in one walk down from `root` (each `Node::parent` call
/// is such a walk: they were a twentieth of an edit's extraction on a file of literals).
pub(super) fn ancestors<'t>(root: Node<'t>, n: Node<'t>) -> Vec<Node<'t>> {
    let mut chain = Vec::new();
    let mut cur = root;
    while cur.id() != n.id() {
        chain.push(cur);
        match cur.child_with_descendant(n) {
            Some(c) => cur = c,
            None => break,
        }
    }
    chain
}

/// Whether the double literal at `n` (below `above`, its ancestors) makes the surrounding
/// expression compute in double (`x * 2.0`, `x < 1e-3`, `x += 0.5`) rather than being
/// converted at compile time.
pub(super) fn literal_computes_in_double(n: Node, src: &str, above: &[Node]) -> bool {
    let mut child = n;
    let mut k = above.len();
    while k > 0
        && matches!(
            above[k - 1].k(),
            "parenthesized_expression" | "unary_expression"
        )
    {
        child = above[k - 1];
        k -= 1;
    }
    let Some(&p) = above[..k].last() else {
        return false;
    };
    let computes = match p.k() {
        "binary_expression" => {
            let op = p
                .child_by_field_id(FIELDS.operator.get())
                .map_or("", |o| &src[o.byte_range()]);
            let arithmetic = matches!(
                op,
                "+" | "-" | "*" | "/" | "<" | ">" | "<=" | ">=" | "==" | "!="
            );
            let other =
                if p.child_by_field_id(FIELDS.left.get()).map(|l| l.id()) == Some(child.id()) {
                    p.child_by_field_id(FIELDS.right.get())
                } else {
                    p.child_by_field_id(FIELDS.left.get())
                };
            arithmetic && other.is_some_and(|o| unwrap_sign(o).k() != "number_literal")
        }
        "assignment_expression" => {
            let op = p
                .child_by_field_id(FIELDS.operator.get())
                .map_or("=", |o| &src[o.byte_range()]);
            op != "=" && p.child_by_field_id(FIELDS.right.get()).map(|r| r.id()) == Some(child.id())
        }
        _ => false,
    };
    computes && !in_constant_context(&above[..k], src)
}

/// Whether the last of `chain` (and the rest its ancestors) is in a constant context.
pub(super) fn in_constant_context(chain: &[Node], src: &str) -> bool {
    for &c in chain.iter().rev() {
        match c.k() {
            "template_argument_list"
            | "array_declarator"
            | "static_assert_declaration"
            | "case_statement"
            | "enumerator"
            | "bitfield_clause" => return true,
            "declaration" | "field_declaration" => return has_child_text(c, src, "constexpr"),
            "compound_statement" | "function_definition" | "lambda_expression" => return false,
            _ => {}
        }
    }
    false
}

pub(super) fn has_child_text(n: Node, src: &str, text: &str) -> bool {
    let mut cursor = n.walk();
    let found = n.children(&mut cursor).any(|c| {
        &src[c.byte_range()] == text
            || (c.k() == "type_qualifier" || c.k() == "storage_class_specifier")
                && &src[c.byte_range()] == text
    });
    found
}

/// The `function_declarator` inside a (possibly pointer/reference/attributed) declarator.
pub(super) fn find_function_declarator(n: Node) -> Option<Node> {
    let mut d = n.child_by_field_id(FIELDS.declarator.get())?;
    loop {
        match d.k() {
            "function_declarator" => {
                // `int (*fp)(int)` declares a pointer, not a function.
                let inner = d.child_by_field_id(FIELDS.declarator.get())?;
                return (inner.k() != "parenthesized_declarator").then_some(d);
            }
            "pointer_declarator" | "reference_declarator" | "attributed_declarator" => {
                d = d
                    .child_by_field_id(FIELDS.declarator.get())
                    .or_else(|| d.named_child(d.named_child_count().saturating_sub(1) as u32))?;
            }
            _ => return None,
        }
    }
}

/// A conversion function's declarator ([class.conv.fct]): `operator double() const` in its
/// class, `S::operator double() const` out of it. The name node (the `operator_cast`, or the
/// qualified name ending in one) and the function declarator holding its (empty) parameters,
/// under any `*` / `&` of the conversion type.
pub fn conversion_declarator(n: Node) -> Option<(Node, Node)> {
    let name = n.child_by_field_id(FIELDS.declarator.get())?;
    let mut oc = name;
    while oc.k() == "qualified_identifier" {
        oc = oc.child_by_field_id(FIELDS.name.get())?;
    }
    if oc.k() != "operator_cast" {
        return None;
    }
    let mut fd = oc.child_by_field_id(FIELDS.declarator.get())?;
    loop {
        match fd.k() {
            "abstract_function_declarator" => return Some((name, fd)),
            "abstract_pointer_declarator" | "abstract_reference_declarator" => {
                fd = fd
                    .child_by_field_id(FIELDS.declarator.get())
                    .or_else(|| fd.named_child(fd.named_child_count().saturating_sub(1) as u32))?;
            }
            _ => return None,
        }
    }
}

/// The conversion function a class member declares or defines, if it is one.
pub(super) fn member_conversion(src: &str, m: Node) -> Option<super::super::facts::Conversion> {
    let (name, _) = conversion_declarator(m)?;
    let name = split_name(src, name).1;
    let mut c = m.walk();
    let explicit = m
        .children(&mut c)
        .any(|c| c.k() == "explicit_function_specifier");
    (!name.is_empty()).then_some(super::super::facts::Conversion { name, explicit })
}

/// The type a conversion function converts to, as written between `operator` and its
/// parameters (`const float&`), normalised.
pub fn conversion_type(src: &str, oc: Node) -> Option<String> {
    let mut fd = oc.child_by_field_id(FIELDS.declarator.get())?;
    while fd.k() != "abstract_function_declarator" {
        fd = fd
            .child_by_field_id(FIELDS.declarator.get())
            .or_else(|| fd.named_child(fd.named_child_count().saturating_sub(1) as u32))?;
    }
    let start = oc.child(0)?.end_byte();
    let t = normalize(src.get(start..fd.start_byte())?);
    (!t.is_empty()).then_some(t)
}

pub(super) fn is_indirect(d: Node) -> bool {
    matches!(
        d.k(),
        "pointer_declarator"
            | "reference_declarator"
            | "abstract_pointer_declarator"
            | "abstract_reference_declarator"
    ) || (d.k() == "init_declarator"
        && d.child_by_field_id(FIELDS.declarator.get())
            .is_some_and(is_indirect))
}

pub(super) fn is_builtin(t: Node) -> bool {
    matches!(t.k(), "primitive_type" | "sized_type_specifier")
}

pub(super) fn is_class_like(t: Node) -> bool {
    matches!(
        t.k(),
        "type_identifier" | "qualified_identifier" | "template_type"
    )
}

pub(super) fn is_double_type(t: &str) -> bool {
    t == "double" || t == "long double"
}

/// The identifier a declarator declares.
pub(super) fn declared_name(d: Node, src: &str) -> Option<String> {
    declared_name_range(d).map(|(start, end)| src[start..end].to_string())
}

/// `(qualifier components, name)` of a declarator or callee name node.
pub(super) fn split_name(src: &str, n: Node) -> (Vec<String>, String) {
    match n.k() {
        "qualified_identifier" => {
            let mut qualifier = Vec::new();
            let mut cur = n;
            loop {
                if let Some(scope) = cur.child_by_field_id(FIELDS.scope.get()) {
                    let s = match scope.k() {
                        "template_type" => scope
                            .child_by_field_id(FIELDS.name.get())
                            .map_or(String::new(), |x| src[x.byte_range()].to_string()),
                        _ => src[scope.byte_range()].to_string(),
                    };
                    if !s.is_empty() {
                        qualifier.push(s);
                    }
                }
                match cur.child_by_field_id(FIELDS.name.get()) {
                    Some(next) if next.k() == "qualified_identifier" => cur = next,
                    Some(next) => return (qualifier, split_name(src, next).1),
                    None => return (qualifier, String::new()),
                }
            }
        }
        "dependent_name" => split_name(src, disambiguated(n)),
        "template_function" | "template_method" | "template_type" => n
            .child_by_field_id(FIELDS.name.get())
            .map_or((Vec::new(), String::new()), |x| split_name(src, x)),
        "operator_name" => (
            Vec::new(),
            normalize(&src[n.byte_range()]).replace("operator ", "operator"),
        ),
        // `operator double`: the space kept (no operator symbol is spelled so).
        "operator_cast" => (
            Vec::new(),
            conversion_type(src, n).map_or(String::new(), |t| format!("operator {t}")),
        ),
        "destructor_name" | "identifier" | "field_identifier" | "type_identifier" => {
            (Vec::new(), normalize(&src[n.byte_range()]))
        }
        _ => (Vec::new(), String::new()),
    }
}

/// The name a `template` disambiguator prefixes ([temp.names]/4: `x.template get<0>`,
/// `T::template f<int>`), which tree-sitter-cpp wraps in a `dependent_name`; other nodes as
/// they are.
pub(super) fn disambiguated(n: Node) -> Node {
    if n.k() != "dependent_name" {
        return n;
    }
    let mut c = n.walk();
    let name = n
        .named_children(&mut c)
        .filter(|x| x.k() != "comment")
        .last();
    name.unwrap_or(n)
}

/// `(receiver, name, template arguments)` of a call's function expression.
pub(super) fn callee_parts<'t>(
    src: &str,
    f: Node<'t>,
) -> (Option<Node<'t>>, Option<String>, Option<Node<'t>>) {
    match f.k() {
        "field_expression" => {
            let receiver = f.child_by_field_id(FIELDS.argument.get());
            let field = f.child_by_field_id(FIELDS.field.get()).map(disambiguated);
            let (name, targs) = match field {
                Some(x) if x.k() == "template_method" => (
                    x.child_by_field_id(FIELDS.name.get())
                        .map(|n| src[n.byte_range()].to_string()),
                    x.child_by_field_id(FIELDS.arguments.get()),
                ),
                Some(x) => (Some(split_name(src, x).1).filter(|s| !s.is_empty()), None),
                None => (None, None),
            };
            (receiver, name, targs)
        }
        "identifier" => (None, Some(src[f.byte_range()].to_string()), None),
        "template_function" => (
            None,
            Some(split_name(src, f).1).filter(|s| !s.is_empty()),
            f.child_by_field_id(FIELDS.arguments.get()),
        ),
        "qualified_identifier" => {
            let mut last = f;
            while last.k() == "qualified_identifier" {
                match last.child_by_field_id(FIELDS.name.get()) {
                    Some(n) => last = n,
                    None => break,
                }
            }
            let last = disambiguated(last);
            let targs = (last.k() == "template_function")
                .then(|| last.child_by_field_id(FIELDS.arguments.get()))
                .flatten();
            (
                None,
                Some(split_name(src, f).1).filter(|s| !s.is_empty()),
                targs,
            )
        }
        _ => (None, None, None),
    }
}

/// The text of a type node without cv-qualifiers, whitespace-normalised; for a template type,
/// the whole `name<args>`.
pub(super) fn type_name(src: &str, t: Node) -> String {
    normalize(&src[t.byte_range()])
}

pub(super) fn param_type_text(src: &str, p: Node) -> String {
    let end = p
        .child_by_field_id(FIELDS.default_value.get())
        .map_or(p.end_byte(), |d| d.start_byte());
    let mut text = src[p.start_byte()..end].to_string();
    if p.child_by_field_id(FIELDS.default_value.get()).is_some() {
        text = text.trim_end().trim_end_matches('=').to_string();
    }
    if let Some(name) = p
        .child_by_field_id(FIELDS.declarator.get())
        .and_then(|d| declared_name_range(d))
    {
        let (a, b) = (name.0 - p.start_byte(), name.1 - p.start_byte());
        if b <= text.len() {
            text.replace_range(a..b, "");
        }
    }
    // Parameters keep their cv-qualifiers: they are part of the name DPC++ prints.
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    t.replace(" &", "&").replace(" *", "*")
}

/// The byte range of the identifier a declarator declares.
pub(super) fn declared_name_range(d: Node) -> Option<(usize, usize)> {
    declarator_name(d, true).map(|n| (n.start_byte(), n.end_byte()))
}

/// The identifier a declarator declares, through pointer, reference, array and initializer
/// declarators; of a structured binding (`auto [a, b] = ...`) its first name, or none when
/// `!through_bindings`.
pub fn declarator_name(d: Node, through_bindings: bool) -> Option<Node> {
    let mut d = d;
    loop {
        match d.k() {
            "identifier" | "field_identifier" => return Some(d),
            "structured_binding_declarator" if !through_bindings => return None,
            _ => {
                d = d.child_by_field_id(FIELDS.declarator.get()).or_else(|| {
                    let mut c = d.walk();
                    let x = d.named_children(&mut c).find(|ch| {
                        matches!(
                            ch.k(),
                            "identifier"
                                | "field_identifier"
                                | "pointer_declarator"
                                | "reference_declarator"
                                | "array_declarator"
                                | "init_declarator"
                                // `Args &&...args`: the pack's name is inside `...`.
                                | "variadic_declarator"
                        )
                    });
                    x
                })?;
            }
        }
    }
}

/// Collapses whitespace, drops `const`/`volatile`/`typename`/`struct`/`class` keywords.
pub fn normalize(text: &str) -> String {
    thread_local! {
        /// Built here, then copied out at its final length: one allocation per call.
        static OUT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    OUT.with_borrow_mut(|out| {
        out.clear();
        normalize_into(text, out);
        out.trim_start_matches("::").to_string()
    })
}

fn normalize_into(text: &str, out: &mut String) {
    for word in text.split_whitespace() {
        if matches!(
            word,
            "const" | "volatile" | "typename" | "struct" | "class" | "constexpr"
        ) {
            continue;
        }
        if !out.is_empty() {
            let prev = out.chars().last().unwrap_or(' ');
            let next = word.chars().next().unwrap_or(' ');
            let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
            if ident(prev) && ident(next) {
                out.push(' ');
            }
        }
        out.push_str(word);
    }
}

pub(super) fn last_component(text: &str) -> String {
    let t = normalize(text);
    let base = t.split('<').next().unwrap_or(&t);
    base.rsplit("::").next().unwrap_or(base).to_string()
}

/// A class, struct or union specifier with a body: a definition, not a mention.
pub(super) fn defines_class(n: Node) -> bool {
    matches!(
        n.k(),
        "class_specifier" | "struct_specifier" | "union_specifier"
    ) && n.child_by_field_id(FIELDS.body.get()).is_some()
}

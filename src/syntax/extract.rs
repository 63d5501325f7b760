//! Walks a tree-sitter-cpp tree and records [`FileFacts`]. Every construct it does not know is
//! walked into, ERROR nodes included, so a broken region costs only what is inside it.

use std::collections::HashMap;

use std::num::NonZeroU16 as FieldId;

use crate::syntax::Name;
use tree_sitter::Node;

use super::tree::NodeExt;

mod calls;
mod instances;
mod nodes;
use super::literal::is_double_literal;
use nodes::*;
pub use nodes::{aspect_ref, conversion_declarator, conversion_type, declarator_name, normalize};

use super::facts::*;
use super::prepare::{properties_in, AttrKind, Prepared, TestCase};
use super::tree::{Positions, Starts};
use crate::text::{Span, TextRange};

/// Calls whose last argument is a kernel.
const KERNEL_INVOCATIONS: [&str; 6] = [
    "parallel_for",
    "single_task",
    "parallel_for_work_group",
    "nd_launch",
    "launch",
    "launch_grouped",
];

/// Member and free calls whose callable argument runs only on devices with the given aspects.
const GUARDED_CALLS: [&str; 2] = ["if_device_has", "else_if_device_has"];

#[derive(Clone, Copy, Debug)]
enum Owner {
    Function(usize),
    Class(usize),
    Alias(usize),
}

#[derive(Clone, Debug)]
enum Local {
    Type(String),
    Lambda(usize),
}

pub struct Extractor<'a> {
    src: &'a str,
    pos: &'a Positions<'a>,
    /// Start offsets (in the parsed text) of the nodes of `facts.functions` and
    /// `facts.classes`, for the lowering to find them again.
    starts: Starts,
    facts: FileFacts,
    /// Where attributes and `SYCL_EXTERNAL` may stand for each declaration: from the end of
    /// what precedes it to the start of its body.
    heads: Vec<(TextRange, Owner)>,
    scope: Vec<String>,
    /// Classes of `scope`, innermost last.
    classes: Vec<String>,
    locals: Vec<HashMap<String, Local>>,
    template_depth: usize,
    /// The template whose arguments are being mentioned.
    template_of: Option<String>,
    depth: usize,
    /// For the ancestors of a node: `Node::parent` walks down from the root each time.
    root: Node<'a>,
    /// Cursors free for `visit_children` (one per level in use).
    cursors: Vec<tree_sitter::TreeCursor<'a>>,
    tests: &'a [TestCase],
}

/// Syntax-tree depth the extractor descends to (real code stays far below: a 1000-term sum is
/// about 1000 deep).
const MAX_DEPTH: usize = 1500;

impl<'a> Extractor<'a> {
    pub fn run(
        prepared: &'a Prepared,
        pos: &'a Positions<'a>,
        root: Node<'a>,
    ) -> (FileFacts, Starts) {
        let mut ex = Extractor {
            src: &prepared.text,
            pos,
            starts: Starts::default(),
            facts: FileFacts::default(),
            heads: Vec::new(),
            scope: Vec::new(),
            classes: Vec::new(),
            locals: Vec::new(),
            template_depth: 0,
            template_of: None,
            // An item extracted alone (an edit's) is as deep as in its file.
            depth: usize::from(root.kind() != "translation_unit"),
            root,
            cursors: Vec::new(),
            tests: &prepared.test_cases,
        };
        ex.visit(root, None);
        ex.attach(prepared);
        (ex.facts, ex.starts)
    }

    fn text(&self, n: Node) -> &'a str {
        &self.src[n.byte_range()]
    }

    pub fn span_of(&self, range: TextRange) -> Span {
        self.pos.span(range)
    }

    fn span(&self, n: Node) -> Span {
        self.span_of(TextRange::new(n.start_byte(), n.end_byte()))
    }

    /// Visits the children with a cursor over the tree (it borrows the tree, not `self`), so no
    /// vector is allocated per node: the walk touches every node of every file.
    fn visit_children(&mut self, n: Node<'a>, cur: Option<usize>) {
        let mut cursor = self.cursor(n);
        if cursor.goto_first_child() {
            loop {
                let c = cursor.node();
                self.visit_or_leaf(c, cur);
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        self.cursors.push(cursor);
    }

    /// A cursor at `n`, from the pool: a new one allocates its stack, and the walk makes one
    /// per node with children.
    fn cursor(&mut self, n: Node<'a>) -> tree_sitter::TreeCursor<'a> {
        match self.cursors.pop() {
            Some(mut c) => {
                c.reset(n);
                c
            }
            None => n.walk(),
        }
    }

    /// Most nodes are tokens: of their kinds only a number literal says anything, so they skip
    /// the stack check, the kind match and a cursor (a third of the walk's instructions).
    fn visit_or_leaf(&mut self, n: Node<'a>, cur: Option<usize>) {
        if n.child_count() != 0 {
            return self.visit(n, cur);
        }
        if n.is_error() || n.is_missing() {
            self.facts.syntax_errors += 1;
        }
        if n.k() == "number_literal" {
            self.number_literal(n, cur);
        }
    }

    /// Bounds the recursion: a pathological nesting (10 000 parentheses) is cut off below this
    /// depth.
    fn visit(&mut self, n: Node<'a>, cur: Option<usize>) {
        if self.depth >= MAX_DEPTH {
            self.facts.syntax_errors += 1;
            return;
        }
        self.depth += 1;
        // Deep but legitimate trees (a 1000-term sum) get more stack on the heap when the
        // thread's own runs low, whatever thread extraction runs on.
        stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, || self.visit_node(n, cur));
        self.depth -= 1;
    }

    fn visit_node(&mut self, n: Node<'a>, cur: Option<usize>) {
        if n.is_error() || n.is_missing() {
            self.facts.syntax_errors += 1;
        }
        match n.k() {
            "comment" | "string_literal" | "raw_string_literal" | "char_literal" => {}
            "namespace_definition" => {
                let name = n
                    .child_by_field_id(FIELDS.name.get())
                    .map(|x| self.text(x).to_string());
                let parts: Vec<String> = name
                    .iter()
                    .flat_map(|s| s.split("::"))
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect();
                let depth = self.scope.len();
                self.scope.extend(parts);
                if let Some(body) = n.child_by_field_id(FIELDS.body.get()) {
                    self.visit_children(body, cur);
                }
                self.scope.truncate(depth);
            }
            "class_specifier" | "struct_specifier" | "union_specifier" => self.class(n, cur),
            "template_declaration" => {
                self.template_depth += 1;
                self.visit_children(n, cur);
                self.template_depth -= 1;
            }
            "function_definition" => {
                if !self.function(n) {
                    self.visit_children(n, cur);
                }
            }
            "template_instantiation" => self.instantiation(n),
            "declaration" | "field_declaration" => self.declaration(n, cur),
            "alias_declaration" => self.alias(n),
            "type_definition" => self.typedef(n),
            "lambda_expression" => {
                let idx = self.lambda(n);
                if let Some(c) = cur {
                    self.push_call(c, CallTarget::Lambda(idx), 0, n, Vec::new(), Vec::new());
                }
            }
            "call_expression" => self.call(n, cur),
            "new_expression" | "compound_literal_expression" => {
                if let (Some(c), Some(t)) = (cur, n.child_by_field_id(FIELDS.r#type.get())) {
                    self.mention(c, t);
                    let args = n
                        .child_by_field_id(FIELDS.arguments.get())
                        .or_else(|| n.child_by_field_id(FIELDS.value.get()))
                        .map_or(0, |a| a.named_child_count());
                    let type_name = normalize(self.text(t));
                    self.push_call(
                        c,
                        CallTarget::Construct {
                            type_name: type_name.into(),
                        },
                        args,
                        t,
                        Vec::new(),
                        Vec::new(),
                    );
                }
                self.visit_children_except(n, cur, FIELDS.r#type);
            }
            "type_descriptor" => {
                if let Some(c) = cur {
                    self.type_descriptor(c, n);
                }
            }
            "cast_expression" => {
                if let (Some(c), Some(t)) = (cur, n.child_by_field_id(FIELDS.r#type.get())) {
                    self.type_descriptor(c, t);
                }
                self.visit_children_except(n, cur, FIELDS.r#type);
            }
            // Constant contexts: no code is emitted for them.
            "sizeof_expression"
            | "alignof_expression"
            | "static_assert_declaration"
            | "decltype"
            | "template_parameter_list"
            | "enumerator_list" => {}
            "preproc_include" => {
                if let Some(p) = n.child_by_field_id(FIELDS.path.get()) {
                    let path = self.text(p).trim_matches(|c| matches!(c, '"' | '<' | '>'));
                    self.facts.includes.push(path.to_string());
                }
            }
            "if_statement" => self.if_statement(n, cur),
            // `is_same_v<T, double>` in an expression: its arguments are types.
            "template_function" | "template_method" => {
                if let (Some(c), Some(args)) = (cur, n.child_by_field_id(FIELDS.arguments.get())) {
                    let name = split_name(self.src, n).1;
                    self.mention_template_args(c, args, name);
                }
            }
            "number_literal" => self.number_literal(n, cur),
            _ => self.visit_children(n, cur),
        }
    }

    fn number_literal(&mut self, n: Node<'a>, cur: Option<usize>) {
        if let Some(c) = cur {
            if let Some(lit) = self.double_literal(n) {
                if literal_computes_in_double(n, self.src, &ancestors(self.root, n)) {
                    self.facts.functions[c].literals.push(lit);
                }
            }
        }
    }

    fn visit_children_except(&mut self, n: Node<'a>, cur: Option<usize>, field: FieldId) {
        let skip = n.child_by_field_id(field.get()).map(|x| x.id());
        let mut cursor = self.cursor(n);
        if cursor.goto_first_child() {
            loop {
                let c = cursor.node();
                if Some(c.id()) != skip {
                    self.visit_or_leaf(c, cur);
                }
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        self.cursors.push(cursor);
    }

    fn head_start(&self, n: Node) -> usize {
        let mut prev = n.prev_sibling();
        while let Some(p) = prev {
            // A MISSING token is placed where recovery needed it, often right before this node.
            if p.k() != "comment" && !p.is_missing() {
                return p.end_byte();
            }
            prev = p.prev_sibling();
        }
        // The file's root starts at its first token: what `prepare` blanked before the first
        // declaration (`SYCL_EXTERNAL`, `[[sycl::device_has(...)]]`) is the file's start.
        n.parent()
            .filter(|p| p.parent().is_some())
            .map_or(0, |p| p.start_byte())
    }

    // ---- declarations -------------------------------------------------------------------

    fn class(&mut self, n: Node<'a>, cur: Option<usize>) {
        self.class_named(n, cur, None);
    }

    /// A class; `typedef_name` names an anonymous one (`typedef struct { double re; } cplx;`).
    fn class_named(&mut self, n: Node<'a>, cur: Option<usize>, typedef_name: Option<String>) {
        let Some(body) = n.child_by_field_id(FIELDS.body.get()) else {
            if let (Some(c), Some(name)) = (cur, n.child_by_field_id(FIELDS.name.get())) {
                self.mention(c, name);
            }
            return;
        };
        let name = n
            .child_by_field_id(FIELDS.name.get())
            .map(|x| last_component(self.text(x)))
            .or(typedef_name)
            .unwrap_or_else(|| "<anonymous>".to_string());
        let idx = self.facts.classes.len();
        self.starts.classes.push(n.start_byte());
        self.facts.classes.push(Class {
            name: name.clone(),
            scope: self.scope.clone(),
            uses_aspects: Vec::new(),
            members_by_value: Vec::new(),
            kernel_properties: None,
            span: self.span(n),
            tparams: Vec::new(),
            spec_args: None,
            fields: Vec::new(),
            bases: Vec::new(),
            conversions: Vec::new(),
            member_aliases: None,
        });
        self.heads.push((
            TextRange::new(self.head_start(n).min(n.start_byte()), body.start_byte()),
            Owner::Class(idx),
        ));
        let mut cursor = n.walk();
        for c in n.named_children(&mut cursor) {
            if c.k() == "base_class_clause" {
                let mut cc = c.walk();
                for b in c.named_children(&mut cc) {
                    if matches!(
                        b.k(),
                        "type_identifier" | "qualified_identifier" | "template_type"
                    ) {
                        let t = normalize(self.text(b));
                        self.facts.classes[idx].members_by_value.push(t);
                    }
                }
            }
        }
        self.scope.push(name.clone());
        self.classes.push(name);
        let first_alias = self.facts.aliases.len();
        let mut cursor = body.walk();
        let members: Vec<Node> = body.named_children(&mut cursor).collect();
        for m in members {
            if let Some(conv) = member_conversion(self.src, m) {
                self.facts.classes[idx].conversions.push(conv);
            }
            if m.k() == "field_declaration" && find_function_declarator(m).is_none() {
                self.field(idx, m, cur);
            } else {
                self.visit(m, None);
            }
        }
        self.classes.pop();
        self.scope.pop();
        let (first, end) = (first_alias as u32, self.facts.aliases.len() as u32);
        if end > first {
            self.facts.classes[idx].member_aliases = Some((first, end));
        }
    }

    fn field(&mut self, class: usize, m: Node<'a>, cur: Option<usize>) {
        let Some(ty) = m.child_by_field_id(FIELDS.r#type.get()) else {
            return;
        };
        if matches!(
            ty.k(),
            "class_specifier" | "struct_specifier" | "union_specifier"
        ) {
            self.visit(ty, cur);
        }
        let type_text = type_name(self.src, ty);
        let mut cursor = m.walk();
        let by_value = m
            .children_by_field_id(FIELDS.declarator, &mut cursor)
            .any(|d| !is_indirect(d));
        if by_value {
            self.facts.classes[class].members_by_value.push(type_text);
        }
    }

    fn alias(&mut self, n: Node<'a>) {
        let (Some(name), Some(ty)) = (
            n.child_by_field_id(FIELDS.name.get()),
            n.child_by_field_id(FIELDS.r#type.get()),
        ) else {
            return;
        };
        let inner = ty.child_by_field_id(FIELDS.r#type.get());
        // `using t = struct U { ... };` defines the class too.
        if let Some(spec) = inner.filter(|t| defines_class(*t)) {
            let alias = self.text(name).to_string();
            self.class_named(spec, None, Some(alias.clone()));
            if spec.child_by_field_id(FIELDS.name.get()).is_none() {
                return;
            }
        }
        let target = inner
            .map(|t| type_name(self.src, t))
            .unwrap_or_else(|| normalize(self.text(ty)));
        let idx = self.facts.aliases.len();
        self.facts.aliases.push(Alias {
            name: self.text(name).to_string(),
            scope: self.scope.clone(),
            target,
            uses_aspects: Vec::new(),
            tparams: Vec::new(),
        });
        self.heads.push((
            TextRange::new(self.head_start(n).min(n.start_byte()), n.end_byte()),
            Owner::Alias(idx),
        ));
    }

    fn typedef(&mut self, n: Node<'a>) {
        let Some(ty) = n.child_by_field_id(FIELDS.r#type.get()) else {
            return;
        };
        let target = type_name(self.src, ty);
        let mut cursor = n.walk();
        let declarators: Vec<Node> = n
            .children_by_field_id(FIELDS.declarator, &mut cursor)
            .collect();
        // `typedef struct [tag] { ... } name;` defines the class too: an anonymous one is
        // known by the typedef's name (C-style code: MILC's `dcomplex`).
        let mut anonymous = None;
        if defines_class(ty) {
            let first = declarators
                .iter()
                .find(|d| d.k() == "type_identifier")
                .map(|d| self.text(*d).to_string());
            if ty.child_by_field_id(FIELDS.name.get()).is_none() {
                anonymous = first.clone();
            }
            self.class_named(ty, None, first);
        }
        for d in declarators {
            if d.k() != "type_identifier" || anonymous.as_deref() == Some(self.text(d)) {
                continue;
            }
            let idx = self.facts.aliases.len();
            self.facts.aliases.push(Alias {
                name: self.text(d).to_string(),
                scope: self.scope.clone(),
                target: target.clone(),
                uses_aspects: Vec::new(),
                tparams: Vec::new(),
            });
            self.heads.push((
                TextRange::new(self.head_start(n).min(n.start_byte()), n.end_byte()),
                Owner::Alias(idx),
            ));
        }
    }

    /// A declaration: a function prototype, or variables (locals inside a function).
    fn declaration(&mut self, n: Node<'a>, cur: Option<usize>) {
        if (find_function_declarator(n).is_some() || conversion_declarator(n).is_some())
            && self.function(n)
        {
            return;
        }
        let ty = n.child_by_field_id(FIELDS.r#type.get());
        if let Some(t) = ty {
            if matches!(
                t.k(),
                "class_specifier" | "struct_specifier" | "union_specifier" | "enum_specifier"
            ) {
                self.visit(t, cur);
            }
        }
        let Some(c) = cur else {
            // Globals: their initializers are host code unless used from a kernel; only a
            // lambda they call runs (dynamic initialization, [basic.start.dynamic]).
            return self.invoked_lambdas(n);
        };
        let type_text = ty.map(|t| type_name(self.src, t));
        let is_double = type_text.as_deref().is_some_and(is_double_type);
        let constexpr = has_child_text(n, self.src, "constexpr");
        let mut cursor = n.walk();
        let declarators: Vec<Node> = n
            .children_by_field_id(FIELDS.declarator, &mut cursor)
            .collect();
        let mut mentioned = false;
        for d in declarators {
            let (inner, value) = if d.k() == "init_declarator" {
                (
                    d.child_by_field_id(FIELDS.declarator.get()),
                    d.child_by_field_id(FIELDS.value.get()),
                )
            } else {
                (Some(d), None)
            };
            let var = inner.and_then(|i| declared_name(i, self.src));
            let indirect = inner.is_some_and(is_indirect);
            if let (Some(t), false) = (ty, mentioned) {
                // A pointer or reference to a user type is opaque to the device compiler; to
                // a builtin type it nearly always means arithmetic on it.
                if !indirect || matches!(t.k(), "primitive_type" | "sized_type_specifier") {
                    self.mention(c, t);
                    mentioned = true;
                }
            }
            if let (Some(t), Some(v)) = (ty, var.clone()) {
                let lambda = value.filter(|v| v.k() == "lambda_expression");
                match lambda {
                    Some(l) => {
                        let idx = self.lambda(l);
                        self.bind(v, Local::Lambda(idx));
                        // In a template the lambda's instance, and the kernels it launches,
                        // exist once the enclosing instance does, called or not.
                        let (to, none) = (CallTarget::Lambda(idx), Vec::new());
                        self.push_call(c, to, DEFINITION_ONLY as usize, l, none, Vec::new());
                        continue;
                    }
                    None => {
                        let tn = normalize(self.text(t));
                        if tn != "auto" {
                            self.bind(v, Local::Type(tn.clone()));
                        }
                        if !indirect && is_class_like(t) {
                            let args = value
                                .filter(|v| matches!(v.k(), "argument_list" | "initializer_list"))
                                .map_or(0, |a| a.named_child_count());
                            self.push_call(
                                c,
                                CallTarget::Construct {
                                    type_name: tn.into(),
                                },
                                args,
                                t,
                                Vec::new(),
                                Vec::new(),
                            );
                        }
                    }
                }
            }
            if let Some(v) = value {
                if constexpr {
                    continue;
                }
                // `float f = 2.0;` converts at compile time; only a double variable computes
                // in double, and its type is already the use.
                if v.k() == "number_literal" && !is_double {
                    continue;
                }
                self.visit(v, cur);
            }
        }
    }

    /// The lambdas a namespace-scope variable's initializer calls (Catch2's registrars,
    /// `static int r = [] { register<T>(); return 0; }();`): functions of their own, typed
    /// like any body, so the templates they name are instantiated. A lambda that is only
    /// stored is not visited: it runs where it is called, which this file-level pass misses.
    fn invoked_lambdas(&mut self, n: Node<'a>) {
        if n.k() != "declaration" {
            return;
        }
        let kids = |x: Node<'a>| -> Vec<Node<'a>> {
            let mut cursor = x.walk();
            x.named_children(&mut cursor).collect()
        };
        let mut stack = kids(n);
        while let Some(x) = stack.pop() {
            match x.k() {
                "call_expression" => {
                    let func = x.child_by_field_id(FIELDS.function.get());
                    if let Some(l) = func.filter(|f| f.k() == "lambda_expression") {
                        self.lambda(l);
                    }
                    stack.extend(kids(x).into_iter().filter(|c| Some(*c) != func));
                }
                "lambda_expression" | "comment" | "string_literal" | "raw_string_literal" => {}
                _ => stack.extend(kids(x)),
            }
        }
    }

    fn bind(&mut self, name: String, local: Local) {
        if let Some(scope) = self.locals.last_mut() {
            scope.insert(name, local);
        }
    }

    fn local(&self, name: &str) -> Option<&Local> {
        self.locals.last().and_then(|s| s.get(name))
    }

    /// A function definition or prototype. Returns false when `n` declares no function.
    fn function(&mut self, n: Node<'a>) -> bool {
        let Some((fd, name_node)) = find_function_declarator(n)
            .and_then(|fd| Some((fd, fd.child_by_field_id(FIELDS.declarator.get())?)))
            .or_else(|| conversion_declarator(n).map(|(name, fd)| (fd, name)))
        else {
            return false;
        };
        let (qualifier, name) = split_name(self.src, name_node);
        let test = self.tests.iter().find(|t| t.at == n.start_byte());
        let name = test.map_or(name, |t| t.name.clone());
        if name.is_empty() {
            return false;
        }
        let body = n.child_by_field_id(FIELDS.body.get());
        let mut scope = self.scope.clone();
        scope.extend(qualifier.iter().cloned());
        let class = if qualifier.is_empty() {
            self.classes.last().cloned()
        } else {
            qualifier.last().cloned()
        };
        let (params, defaulted, variadic, pack) = self.params(fd);
        let is_const = {
            let mut c = fd.walk();
            let x = fd
                .children(&mut c)
                .any(|ch| ch.k() == "type_qualifier" && self.text(ch) == "const");
            x
        };
        let idx = self.facts.functions.len();
        self.starts.functions.push(n.start_byte());
        self.facts.functions.push(Function {
            name: name.into(),
            scope: scope.into(),
            class: class.as_deref().map(Name::from),
            params: params.iter().map(|p| Name::from(p.as_str())).collect(),
            defaulted_params: defaulted as u32,
            variadic,
            pack,
            is_const,
            is_definition: body.is_some(),
            is_template: self.template_depth > 0,
            name_span: self.span(name_node),
            span: self.span(n),
            ..Function::default()
        });
        let head_end = body.map_or(n.end_byte(), |b| b.start_byte());
        self.heads.push((
            TextRange::new(self.head_start(n).min(n.start_byte()), head_end),
            Owner::Function(idx),
        ));
        let ret = n.child_by_field_id(FIELDS.r#type.get()).or_else(|| {
            // A conversion function's return type is its conversion type.
            let mut oc = name_node;
            while oc.k() == "qualified_identifier" {
                oc = oc.child_by_field_id(FIELDS.name.get())?;
            }
            oc.child_by_field_id(FIELDS.r#type.get())
        });
        if let Some(ret) = ret {
            if !is_indirect(n.child_by_field_id(FIELDS.declarator.get()).unwrap_or(fd))
                || is_builtin(ret)
            {
                self.mention(idx, ret);
            }
        }
        // Parameters are locals of the body: their types name the receivers of member calls.
        self.locals.push(HashMap::new());
        self.param_mentions(idx, fd);
        // A functor's `get(properties_tag)` declares its kernel's properties.
        if self.facts.functions[idx].name == "get"
            && self.facts.functions[idx]
                .params
                .iter()
                .any(|p| p.contains("properties_tag"))
        {
            if let (Some(b), Some(class_name)) = (body, self.classes.last().cloned()) {
                let found = properties_in(self.src, b.start_byte(), b.end_byte());
                let span = found
                    .first()
                    .map(|a| a.range)
                    .unwrap_or(TextRange::new(b.start_byte(), b.start_byte()));
                let span = self.span_of(span);
                let aspects: Vec<AspectRef> = found
                    .iter()
                    .flat_map(|a| a.args.iter())
                    .map(|(t, r)| aspect_ref(t, self.span_of(*r)))
                    .collect();
                if let Some(class) = self
                    .facts
                    .classes
                    .iter_mut()
                    .rev()
                    .find(|c| c.name == class_name)
                {
                    if !found.is_empty() {
                        class.kernel_properties = Some(DeviceHas {
                            aspects,
                            form: DeclForm::Property,
                            span,
                        });
                    }
                }
            }
            self.locals.pop();
            return true;
        }
        let typed = test.map_or(0, |t| self.test_case(idx, t));
        self.template_depth += typed;
        if let Some(b) = body {
            self.visit(b, Some(idx));
        }
        self.template_depth -= typed;
        self.locals.pop();
        true
    }

    /// Parameter types, how many have defaults, whether it is variadic and whether the last
    /// type is a parameter pack's pattern.
    fn params(&self, fd: Node) -> (Vec<String>, usize, bool, bool) {
        let mut params = Vec::new();
        let mut defaulted = 0;
        let mut variadic = false;
        let mut pack = false;
        let Some(list) = fd.child_by_field_id(FIELDS.parameters.get()) else {
            return (params, 0, false, false);
        };
        let mut cursor = list.walk();
        for p in list.children(&mut cursor) {
            match p.k() {
                "parameter_declaration" | "optional_parameter_declaration" => {
                    if p.k() == "optional_parameter_declaration" {
                        defaulted += 1;
                    }
                    let text = param_type_text(self.src, p);
                    if text == "void" && params.is_empty() {
                        continue;
                    }
                    params.push(text);
                }
                "variadic_parameter_declaration" => {
                    variadic = true;
                    let text = param_type_text(self.src, p).replace("...", "");
                    if !pack && !text.trim().is_empty() {
                        pack = true;
                        params.push(text.trim().to_string());
                    }
                }
                "..." => variadic = true,
                _ => {}
            }
        }
        (params, defaulted, variadic, pack)
    }

    fn param_mentions(&mut self, idx: usize, fd: Node) {
        let Some(list) = fd.child_by_field_id(FIELDS.parameters.get()) else {
            return;
        };
        let mut cursor = list.walk();
        let params: Vec<Node> = list.named_children(&mut cursor).collect();
        for p in params {
            let Some(t) = p.child_by_field_id(FIELDS.r#type.get()) else {
                continue;
            };
            self.mention_typed(idx, p);
            if let Some(name) = p
                .child_by_field_id(FIELDS.declarator.get())
                .and_then(|d| declared_name(d, self.src))
            {
                let tn = normalize(self.text(t));
                if tn != "auto" {
                    if let Some(scope) = self.locals.last_mut() {
                        scope.insert(name, Local::Type(tn));
                    }
                }
            }
        }
    }

    fn lambda(&mut self, n: Node<'a>) -> usize {
        let captures = n.child_by_field_id(FIELDS.captures.get()).unwrap_or(n);
        let fd = n.child_by_field_id(FIELDS.declarator.get());
        let (params, defaulted, variadic, pack) =
            fd.map_or((Vec::new(), 0, false, false), |d| self.params(d));
        let body = n.child_by_field_id(FIELDS.body.get());
        let idx = self.facts.functions.len();
        self.starts.functions.push(n.start_byte());
        self.facts.functions.push(Function {
            name: "<lambda>".into(),
            scope: self.scope.iter().cloned().collect(),
            class: None,
            params: params.iter().map(|p| Name::from(p.as_str())).collect(),
            defaulted_params: defaulted as u32,
            variadic,
            pack,
            is_const: true,
            is_definition: true,
            is_lambda: true,
            is_template: self.template_depth > 0,
            name_span: self.span(captures),
            span: self.span(n),
            ..Function::default()
        });
        self.heads.push((
            TextRange::new(
                n.start_byte(),
                body.map_or(n.end_byte(), |b| b.start_byte()),
            ),
            Owner::Function(idx),
        ));
        // Captured locals keep their types inside the lambda.
        let outer = self.locals.last().cloned().unwrap_or_default();
        self.locals.push(outer);
        if let Some(d) = fd {
            self.param_mentions(idx, d);
        }
        if let Some(b) = body {
            self.visit(b, Some(idx));
        }
        self.locals.pop();
        idx
    }

    // ---- expressions --------------------------------------------------------------------

    fn if_statement(&mut self, n: Node<'a>, cur: Option<usize>) {
        let is_constexpr = has_child_text(n, self.src, "constexpr");
        let cond = n.child_by_field_id(FIELDS.condition.get());
        let always_false = is_constexpr
            && cond.is_some_and(|c| {
                let t: String = self
                    .text(c)
                    .chars()
                    .filter(|ch| !ch.is_whitespace() && *ch != '(' && *ch != ')')
                    .collect();
                t == "false" || t == "0"
            });
        let mut cursor = n.walk();
        let children: Vec<Node> = n.children(&mut cursor).collect();
        let consequence = n
            .child_by_field_id(FIELDS.consequence.get())
            .map(|x| x.id());
        for c in children {
            if always_false && Some(c.id()) == consequence {
                continue;
            }
            self.visit(c, cur);
        }
    }

    fn double_literal(&self, n: Node) -> Option<DoubleLiteral> {
        (n.k() == "number_literal" && is_double_literal(self.text(n))).then(|| DoubleLiteral {
            text: self.text(n).into(),
            span: self.span(n),
        })
    }

    /// Records a type named at `t` (and the types in its template arguments).
    fn mention(&mut self, cur: usize, t: Node) {
        match t.k() {
            "qualified_identifier"
                if t.child_by_field_id(FIELDS.name.get())
                    .is_some_and(|n| n.k() == "template_type") =>
            {
                let name = t
                    .child_by_field_id(FIELDS.name.get())
                    .expect("checked above");
                self.template_mention(cur, t, name);
            }
            "primitive_type"
            | "sized_type_specifier"
            | "type_identifier"
            | "qualified_identifier" => {
                let text = normalize(self.text(t));
                if !matches!(
                    text.as_str(),
                    "void" | "auto" | "int" | "bool" | "char" | "float"
                ) {
                    let span = self.span(t);
                    let template_of = self.template_of.clone();
                    self.facts.functions[cur].types.push(TypeMention {
                        text: text.into(),
                        first_arg: None,
                        template_of: template_of.as_deref().map(Name::from),
                        span,
                    });
                }
            }
            "template_type" => self.template_mention(cur, t, t),
            "class_specifier" | "struct_specifier" | "union_specifier" => {
                if let Some(name) = t.child_by_field_id(FIELDS.name.get()) {
                    self.mention(cur, name);
                }
            }
            _ => {}
        }
    }

    /// The types among the arguments of the template `of`.
    fn mention_template_args(&mut self, cur: usize, args: Node, of: String) {
        let saved = self.template_of.replace(of);
        let mut cursor = args.walk();
        let items: Vec<Node> = args.named_children(&mut cursor).collect();
        for item in items {
            if item.k() == "type_descriptor" {
                self.type_descriptor(cur, item);
            }
        }
        self.template_of = saved;
    }

    /// `T`, `T*`, `const T&` in a cast or a template argument: through a pointer or reference
    /// only a builtin type counts, as for declarations.
    fn type_descriptor(&mut self, cur: usize, d: Node) {
        self.mention_typed(cur, d);
    }

    /// The `type` of a node with an optional `declarator` (a parameter, a type descriptor):
    /// through a pointer or reference only a builtin type counts.
    fn mention_typed(&mut self, cur: usize, n: Node) {
        let Some(t) = n.child_by_field_id(FIELDS.r#type.get()) else {
            return;
        };
        let indirect = n
            .child_by_field_id(FIELDS.declarator.get())
            .is_some_and(is_indirect);
        if !indirect || is_builtin(t) {
            self.mention(cur, t);
        }
    }

    /// `ns::tmpl<A, B>` at `whole`, whose `template_type` node is `tt`.
    fn template_mention(&mut self, cur: usize, whole: Node, tt: Node) {
        let args = tt.child_by_field_id(FIELDS.arguments.get());
        let first_arg = args.and_then(|a| {
            let mut cursor = a.walk();
            let first = a.named_children(&mut cursor).next();
            first.map(|f| {
                let inner = f.child_by_field_id(FIELDS.r#type.get()).unwrap_or(f);
                type_name(self.src, inner)
            })
        });
        let text = normalize(
            &self.text(whole)[..tt
                .child_by_field_id(FIELDS.name.get())
                .map_or(whole.end_byte(), |n| n.end_byte())
                - whole.start_byte()],
        );
        let span = self.span(whole);
        let template_of = self.template_of.clone();
        self.facts.functions[cur].types.push(TypeMention {
            text: text.as_str().into(),
            first_arg: first_arg.as_deref().map(Name::from),
            template_of: template_of.as_deref().map(Name::from),
            span,
        });
        if let Some(a) = args {
            let name = text.rsplit("::").next().unwrap_or(&text).to_string();
            self.mention_template_args(cur, a, name);
        }
    }

    // ---- attributes ---------------------------------------------------------------------

    /// Gives each attribute and `SYCL_EXTERNAL` to the innermost declaration whose head holds it.
    fn attach(&mut self, prepared: &Prepared) {
        let owner_at = |heads: &[(TextRange, Owner)], at: usize| -> Option<Owner> {
            heads
                .iter()
                .filter(|(r, _)| r.start <= at && at < r.end)
                .min_by_key(|(r, _)| r.end - r.start)
                .map(|(_, o)| *o)
        };
        for &at in &prepared.sycl_external {
            if let Some(Owner::Function(f)) = owner_at(&self.heads, at) {
                self.facts.functions[f].sycl_external = true;
            }
        }
        for attr in &prepared.attrs {
            let Some(owner) = owner_at(&self.heads, attr.range.start) else {
                continue;
            };
            let refs = || -> Vec<AspectRef> {
                attr.args
                    .iter()
                    .map(|(t, r)| aspect_ref(t, self.span_of(*r)))
                    .collect()
            };
            match (attr.kind, owner) {
                (AttrKind::DeviceHas | AttrKind::DeviceHasProperty, Owner::Function(f)) => {
                    let form = if attr.kind == AttrKind::DeviceHas {
                        DeclForm::Attribute
                    } else {
                        DeclForm::Property
                    };
                    let aspects = refs();
                    let span = self.span_of(attr.range);
                    let slot = &mut self.facts.functions[f].device_has;
                    match slot {
                        Some(existing) => existing.aspects.extend(aspects),
                        None => {
                            *slot = Some(Box::new(DeviceHas {
                                aspects,
                                form,
                                span,
                            }))
                        }
                    }
                }
                (AttrKind::UsesAspects, Owner::Function(f)) => {
                    let r = refs();
                    self.facts.functions[f].uses_aspects.extend(r);
                }
                (AttrKind::UsesAspects, Owner::Class(c)) => {
                    let r = refs();
                    self.facts.classes[c].uses_aspects.extend(r);
                }
                (AttrKind::UsesAspects, Owner::Alias(a)) => {
                    let r = refs();
                    self.facts.aliases[a].uses_aspects.extend(r);
                }
                (AttrKind::ReqdSubGroupSize, Owner::Function(f)) => {
                    if let Some(n) = attr.args.first().and_then(|(t, _)| parse_int(t)) {
                        let span = self.span_of(attr.range);
                        self.facts.functions[f].reqd_sub_group_size = Some(Box::new((n, span)));
                    }
                }
                _ => {}
            }
        }
    }
}

//! Plain per-file facts extracted from C++ source. No syntax tree survives extraction, so
//! closed files cost only these records (and they can be cached).

use crate::syntax::Name;
use serde::{Deserialize, Serialize};
use thin_vec::ThinVec;

use super::ir::{Body, Field, Global, TParam};
use crate::text::{LineCol, Lines, Span, TextRange};

/// A span with its resolved 1-based position: what leaves the analysis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Located {
    pub range: TextRange,
    pub pos: LineCol,
}

/// An aspect as written in an attribute or property.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AspectRef {
    /// `sycl::aspect::fp16`, `aspect::fp16`, `fp16`: the name after the last `::`.
    Named { name: String, span: Span },
    /// A template parameter, a constexpr call, anything not spelled as an enumerator.
    Unknown { text: String, span: Span },
}

impl AspectRef {
    /// What is written, without where: the aspect's name, or the unknown text.
    pub fn text(&self) -> (bool, &str) {
        match self {
            AspectRef::Named { name, .. } => (true, name),
            AspectRef::Unknown { text, .. } => (false, text),
        }
    }
}

/// Which spelling declared the aspects a function may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeclForm {
    /// `[[sycl::device_has(...)]]` or the old `[[sycl::requires(...)]]`.
    Attribute,
    /// `properties{device_has<...>}` or `SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((device_has<...>))`.
    Property,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceHas {
    pub aspects: Vec<AspectRef>,
    pub form: DeclForm,
    pub span: Span,
}

/// A type named inside a function (or in its signature).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeMention {
    /// As written, whitespace-normalised, without cv-qualifiers: `double`, `sycl::half`,
    /// `long double`, `my_real`, `ns::Struct1`.
    pub text: Name,
    /// For `atomic_ref<T, ...>`-like templates: the first template argument, normalised.
    pub first_arg: Option<Name>,
    /// When the type is a template argument: the template's name (`is_same_v`, `f`), so that
    /// compile-time-only uses (type traits) can be told apart.
    pub template_of: Option<Name>,
    pub span: Span,
}

/// An unsuffixed floating literal (`2.0`, `1e-3`) in an expression that computes in double.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoubleLiteral {
    pub text: Name,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CallTarget {
    /// `f(...)`, `ns::f(...)`, `S::f(...)`: the name and the qualifier components written.
    Named { name: Name, qualifier: Box<[Name]> },
    /// `obj.f(...)`, `p->f(...)`, `this->f(...)`; `receiver_type` when the object's declared type
    /// is known locally.
    Member {
        name: Name,
        receiver_type: Option<Name>,
    },
    /// Construction of a class: `S s;`, `S{}`, `S(...)`, `new S`.
    Construct { type_name: Name },
    /// A lambda of this file, by index into `FileFacts::functions`.
    Lambda(usize),
    /// An explicit instantiation definition ([temp.explicit]), recorded on the file's host
    /// pseudo-function: `template class S<double>;` (`params` is `None`: every member of the
    /// class is instantiated) or `template void f<double>(double*);` (the parameter types
    /// pick the overload).
    Instantiate {
        what: Name,
        params: Option<Box<[Name]>>,
    },
    /// A typed test case's body (`TEMPLATE_LIST_TEST_CASE`, gtest's `TYPED_TEST`) instantiated
    /// once per template argument of the class `list` names (`std::tuple<int, double>`,
    /// `::testing::Types<...>`, an alias of one): `what<E>()` for each `E`.
    InstantiateEach { what: Name, list: Name },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    pub target: CallTarget,
    /// The number of arguments; [`DEFINITION_ONLY`] for a lambda bound to a local, which the
    /// enclosing function instantiates (its launches are compiled) without calling it.
    pub args: u32,
    /// Where the call starts in the preprocessed text, counted from its function's start:
    /// calls that share a position (a macro's expansion, a header spliced into a body) are
    /// told apart by it, and an edit that moves the function leaves it as it was.
    #[serde(default)]
    pub out: u32,
    pub span: Span,
    /// Aspects whose use beyond this call does not count (`if_device_has<A...>(f)`).
    pub guarded: Box<[AspectRef]>,
    /// Literal arguments by position, for calls of math functions that then run in double.
    pub literal_args: Box<[DoubleLiteral]>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum KernelRef {
    Lambda(usize),
    /// A functor given by its type name (`MyKernel{...}` or a local variable of that type).
    Functor(Name),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelLaunch {
    pub kernel: KernelRef,
    /// `parallel_for`, `single_task`, ...; a parallel algorithm's call as written after
    /// [`LIBRARY_LAUNCH`] (`dpl:std::for_each`): a kernel only with a device policy.
    pub via: Name,
    pub span: Span,
}

/// `Call::args` of a lambda's definition: an instance, no call (no aspect flows back).
pub const DEFINITION_ONLY: u32 = u32::MAX;

/// The prefix of a library algorithm's launch (`KernelLaunch::via`).
pub const LIBRARY_LAUNCH: &str = "dpl:";

/// A new field holding a `Span` or an index into the file's functions must be visited by
/// `splice::each_span` / `splice::each_index`, which move them when an edit is spliced.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Function {
    /// Unqualified name: `func1`, `operator()`, `S` for a constructor, `<lambda>`.
    pub name: Name,
    /// Enclosing namespaces and classes, outermost first, plus any qualifier written in the
    /// declarator (`S::f` defined out of class).
    pub scope: ThinVec<String>,
    /// The class this function is a member of, if any (last class of `scope`).
    pub class: Option<Name>,
    /// Parameter types as written (`int`, `const float&`).
    pub params: ThinVec<Name>,
    /// Parameters with a default value (so calls may pass fewer arguments).
    pub defaulted_params: u32,
    pub variadic: bool,
    /// The last of `params` is a function parameter pack's pattern (`Ts&&... xs`: `Ts&&`).
    #[serde(default)]
    pub pack: bool,
    /// `const` after the parameter list.
    pub is_const: bool,
    pub is_definition: bool,
    pub is_lambda: bool,
    pub is_template: bool,
    pub sycl_external: bool,
    /// Where the warning goes: the name, or a lambda's introducer `[...]`.
    pub name_span: Span,
    /// The whole definition or declaration.
    pub span: Span,
    /// Boxed, as the next and `spec_args`: few functions have one, and inline they were a
    /// third of every function's record (224 -> 160 bytes).
    pub device_has: Option<Box<DeviceHas>>,
    pub uses_aspects: ThinVec<AspectRef>,
    pub reqd_sub_group_size: Option<Box<(i64, Span)>>,
    pub types: ThinVec<TypeMention>,
    pub literals: ThinVec<DoubleLiteral>,
    pub calls: ThinVec<Call>,
    pub launches: ThinVec<KernelLaunch>,
    /// `if_architecture_is...` calls.
    pub arch_checks: ThinVec<Span>,
    /// Return type as written with declarator modifiers; `None` for `void`, constructors and
    /// lambdas without a trailing return type.
    pub ret: Option<Name>,
    /// Template parameters in scope (enclosing class templates first, then its own).
    pub tparams: ThinVec<TParam>,
    /// Template arguments of an explicit specialisation (`template <> void f<half>(...)`).
    pub spec_args: Option<Box<Vec<String>>>,
    /// The lowered body of a definition.
    pub body: Option<Box<Body>>,
}

impl Function {
    /// `ns::S::f`.
    pub fn qualified_name(&self) -> String {
        let mut parts = self.scope.clone();
        parts.push(self.name.to_string());
        parts.join("::")
    }

    /// What other files' analysis reads of this function besides its body.
    pub fn hash_signature(&self, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        (&self.name, &self.scope, &self.class, &self.params).hash(h);
        self.defaulted_params.hash(h);
        (&self.ret, &self.tparams, &self.spec_args).hash(h);
        (
            self.variadic,
            self.pack,
            self.is_const,
            self.is_definition,
            self.is_lambda,
            self.is_template,
        )
            .hash(h);
    }

    /// The name DPC++ prints: `ns::func1(int)`, `S::operator()() const`. Lambdas are named by
    /// their caller, which knows the file.
    pub fn display_name(&self) -> String {
        format!(
            "{}({}){}",
            self.qualified_name(),
            self.params
                .iter()
                .enumerate()
                .map(|(i, p)| if self.pack && i + 1 == self.params.len() {
                    format!("{p}...")
                } else {
                    p.to_string()
                })
                .collect::<Vec<_>>()
                .join(", "),
            if self.is_const { " const" } else { "" }
        )
    }

    pub fn accepts_args(&self, n: usize) -> bool {
        let max = self.params.len() - usize::from(self.pack && !self.params.is_empty());
        let min = max - (self.defaulted_params as usize).min(max);
        n >= min && (n <= max || self.variadic)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Class {
    pub name: String,
    pub scope: Vec<String>,
    pub uses_aspects: Vec<AspectRef>,
    /// Types held by value: fields (not through a pointer or reference) and bases.
    pub members_by_value: Vec<String>,
    /// `properties{device_has<...>}` returned by `get(properties_tag)`: the kernel's declared
    /// aspects.
    pub kernel_properties: Option<DeviceHas>,
    pub span: Span,
    pub tparams: Vec<TParam>,
    /// Template arguments of a specialisation (`struct S<double>`).
    pub spec_args: Option<Vec<String>>,
    pub fields: Vec<Field>,
    pub bases: Vec<String>,
    /// The conversion functions its body declares, which a conversion of its values to
    /// another type calls ([class.conv.fct]).
    #[serde(default)]
    pub conversions: Vec<Conversion>,
    /// The aliases its body declares (nested classes' too), as a range of the file's
    /// `aliases`; `None` when it declares none. A primary template and its specialisations
    /// declare members of one name in one scope: this says whose a member alias is.
    #[serde(default)]
    pub member_aliases: Option<(u32, u32)>,
}

/// A conversion function of a class: its name (`operator double`, as `Function::name`) and
/// whether it is `explicit` (only a cast or a direct-initialisation calls it then).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Conversion {
    pub name: String,
    pub explicit: bool,
}

impl Class {
    pub fn qualified_name(&self) -> String {
        let mut parts = self.scope.clone();
        parts.push(self.name.clone());
        parts.join("::")
    }
}

/// `using name = type;` or `typedef type name;`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alias {
    pub name: String,
    pub scope: Vec<String>,
    pub target: String,
    pub uses_aspects: Vec<AspectRef>,
    /// An alias template's own parameters (`template <class T> using v4 = sycl::vec<T, 4>`).
    #[serde(default)]
    pub tparams: Vec<TParam>,
}

impl Alias {
    /// Equal but for where its aspects are written.
    pub fn same_meaning(&self, other: &Alias) -> bool {
        (&self.name, &self.scope, &self.target, &self.tparams)
            == (&other.name, &other.scope, &other.target, &other.tparams)
            && self.uses_aspects.len() == other.uses_aspects.len()
            && self
                .uses_aspects
                .iter()
                .zip(&other.uses_aspects)
                .all(|(a, b)| a.text() == b.text())
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    /// Where the lines of the file's text are, for the positions of its spans.
    #[serde(default)]
    pub lines: Lines,
    pub functions: Vec<Function>,
    pub classes: Vec<Class>,
    pub aliases: Vec<Alias>,
    /// `#include` paths as written, without quotes or angle brackets.
    pub includes: Vec<String>,
    /// Nodes the parser could not read (ERROR or MISSING); their neighbours are still read.
    pub syntax_errors: usize,
    /// Variables at namespace scope.
    pub globals: Vec<Global>,
    #[serde(default)]
    pub preprocessor: PpFacts,
}

/// What the preprocessor made of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PpFacts {
    /// Code the compiler skips (`#if` groups not taken), directive lines excluded.
    pub inactive: Vec<TextRange>,
    /// Macros used in compiled code: the use (name and arguments) and the macro's name.
    pub expansions: Vec<(TextRange, String)>,
    /// What the compiler would report about directives.
    pub errors: Vec<(TextRange, String)>,
    /// Workspace headers whose macros the file saw (and, for a header, the files that include
    /// it up to its translation unit).
    pub deps: Vec<String>,
    /// Fingerprint of everything the preprocessing read besides the file: the predefined and
    /// command-line macros and the texts of `deps`. Facts are reused only when it matches.
    pub env_key: u64,
    /// `deps` compiled inside a function of this file (their whole text counts).
    pub spliced: Vec<String>,
    /// `pp::directive_fingerprint` of the file's own text.
    pub directives: u64,
    /// The preprocessing read a macro that differs between the targets' device compiles
    /// (`__SYCL_TARGET_*__`, `__NVPTX__`...).
    pub target_dependent: bool,
    /// When the file compiles differently for some targets: the targets these facts are
    /// those of, and the facts of the others (`variants`). Empty: the same for every target.
    /// A header that compiles differently in some of the translation units including it has
    /// variants for those units; these facts are its first source includer's.
    pub targets: Vec<String>,
    pub variants: Vec<TargetVariant>,
}

/// A file's facts in the device compiles of some targets (none: every target), for some
/// translation units (none: those no other variant names).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetVariant {
    pub targets: Vec<String>,
    /// The source files (paths as the workspace's) that include this file where the macros it
    /// reads differ from its first source includer's.
    pub units: Vec<String>,
    pub facts: std::sync::Arc<FileFacts>,
}

/// The ranges covered by both sorted, disjoint lists.
fn intersect(a: &[TextRange], b: &[TextRange]) -> Vec<TextRange> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        let start = a[i].start.max(b[j].start);
        let end = a[i].end.min(b[j].end);
        if start < end {
            out.push(TextRange::new(start, end));
        }
        if a[i].end < b[j].end {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

impl FileFacts {
    /// A span of this file with its line and column.
    pub fn locate(&self, span: Span) -> Located {
        Located {
            range: span.range(),
            pos: self.lines.line_col(span.range()),
        }
    }

    /// Code the compiler skips, as byte ranges of the file's text: skipped in the device
    /// compile of every target (a group only some targets compile is active code).
    pub fn inactive_regions(&self) -> Vec<TextRange> {
        let mut out = self.preprocessor.inactive.clone();
        for v in &self.preprocessor.variants {
            out = intersect(&out, &v.facts.preprocessor.inactive);
        }
        out
    }

    /// Gives back the spare capacity the extractor's pushes left: a workspace keeps the facts of
    /// every file, and the spare capacity was over a quarter of them on oneAPI-samples.
    pub fn shrink_to_fit(&mut self) {
        for f in &mut self.functions {
            f.scope.shrink_to_fit();
            f.params.shrink_to_fit();
            f.uses_aspects.shrink_to_fit();
            f.types.shrink_to_fit();
            f.literals.shrink_to_fit();
            f.calls.shrink_to_fit();
            f.launches.shrink_to_fit();
            f.arch_checks.shrink_to_fit();
            if let Some(b) = &mut f.body {
                b.exprs.shrink_to_fit();
                b.spans.shrink_to_fit();
                b.locals.shrink_to_fit();
                b.stmts.shrink_to_fit();
            }
        }
        for c in &mut self.classes {
            c.fields.shrink_to_fit();
            c.scope.shrink_to_fit();
            c.uses_aspects.shrink_to_fit();
            c.members_by_value.shrink_to_fit();
        }
        self.functions.shrink_to_fit();
        self.classes.shrink_to_fit();
        self.aliases.shrink_to_fit();
        self.includes.shrink_to_fit();
    }

    /// Every aspect list written in the file: `device_has`, `uses_aspects`, kernel properties.
    pub fn aspect_refs(&self) -> impl Iterator<Item = &[AspectRef]> {
        let functions = self.functions.iter().flat_map(|f| {
            f.device_has
                .iter()
                .map(|d| d.aspects.as_slice())
                .chain(std::iter::once(f.uses_aspects.as_slice()))
        });
        let classes = self.classes.iter().flat_map(|c| {
            c.kernel_properties
                .iter()
                .map(|d| d.aspects.as_slice())
                .chain(std::iter::once(c.uses_aspects.as_slice()))
        });
        functions
            .chain(classes)
            .chain(self.aliases.iter().map(|a| a.uses_aspects.as_slice()))
    }

    /// A fingerprint of what other files' analysis depends on: includes, function signatures
    /// (in order), classes and aliases; not bodies, not positions. An edit that keeps it lets
    /// the analysis re-read only this file's function bodies.
    pub fn interface_hash(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        fn aspect_names(refs: &[AspectRef], h: &mut impl Hasher) {
            for r in refs {
                r.text().hash(h);
            }
            refs.len().hash(h);
        }
        let mut h = std::hash::DefaultHasher::new();
        self.includes.hash(&mut h);
        self.functions.len().hash(&mut h);
        for f in &self.functions {
            f.hash_signature(&mut h);
        }
        self.classes.len().hash(&mut h);
        for c in &self.classes {
            (&c.name, &c.scope, &c.members_by_value).hash(&mut h);
            (&c.tparams, &c.spec_args, &c.fields, &c.bases).hash(&mut h);
            c.conversions.hash(&mut h);
            c.member_aliases.hash(&mut h);
            aspect_names(&c.uses_aspects, &mut h);
            c.kernel_properties.is_some().hash(&mut h);
        }
        self.globals.hash(&mut h);
        self.aliases.len().hash(&mut h);
        for a in &self.aliases {
            (&a.name, &a.scope, &a.target, &a.tparams).hash(&mut h);
            aspect_names(&a.uses_aspects, &mut h);
        }
        h.finish()
    }
    /// What says how this file relates to others, without bodies or positions: includes,
    /// function signatures with their launches, classes with kernel properties, aliases that
    /// declare aspects, the preprocessing's targets and variants (outlined too) and its
    /// `env_key`. `analysis::parts` reads no more; `check` keeps this beside the packed facts.
    pub fn outline(&self) -> FileFacts {
        let functions = self
            .functions
            .iter()
            .map(|f| Function {
                name: f.name,
                scope: f.scope.clone(),
                class: f.class,
                params: f.params.clone(),
                is_const: f.is_const,
                is_definition: f.is_definition,
                is_lambda: f.is_lambda,
                launches: f.launches.clone(),
                ..Function::default()
            })
            .collect();
        let classes = self
            .classes
            .iter()
            .map(|c| Class {
                name: c.name.clone(),
                kernel_properties: c.kernel_properties.clone(),
                ..Class::default()
            })
            .collect();
        let aliases = self
            .aliases
            .iter()
            .filter(|a| !a.uses_aspects.is_empty())
            .cloned()
            .collect();
        let pp = &self.preprocessor;
        FileFacts {
            functions,
            classes,
            aliases,
            includes: self.includes.clone(),
            preprocessor: PpFacts {
                env_key: pp.env_key,
                targets: pp.targets.clone(),
                variants: pp
                    .variants
                    .iter()
                    .map(|v| TargetVariant {
                        targets: v.targets.clone(),
                        units: v.units.clone(),
                        facts: std::sync::Arc::new(v.facts.outline()),
                    })
                    .collect(),
                ..PpFacts::default()
            },
            ..FileFacts::default()
        }
    }
}

/// A file's facts encoded (postcard): 2.5–3× smaller than decoded. `check` holds a large
/// workspace this way and decodes one independent part of it at a time. The bytes may be a
/// range of a larger buffer shared with others (the persisted index, read whole).
#[derive(Clone)]
pub struct PackedFacts {
    // A `Vec` behind the `Arc`: a buffer read from disk is shared without being copied.
    buf: std::sync::Arc<Vec<u8>>,
    range: std::ops::Range<usize>,
}

impl PackedFacts {
    pub fn pack(facts: &FileFacts) -> Self {
        // Encoding plain data into memory cannot fail.
        let mut bytes = postcard::to_allocvec(facts).expect("facts encode");
        bytes.shrink_to_fit();
        PackedFacts {
            range: 0..bytes.len(),
            buf: std::sync::Arc::new(bytes),
        }
    }

    /// `buf[range]`, as read from disk: not known to decode.
    pub fn in_buffer(buf: std::sync::Arc<Vec<u8>>, range: std::ops::Range<usize>) -> Self {
        PackedFacts { buf, range }
    }

    /// The facts, or `None` when the bytes are not facts of this build.
    pub fn try_unpack(&self) -> Option<FileFacts> {
        postcard::from_bytes(self.bytes()).ok()
    }

    /// The facts of bytes `pack` made or `try_unpack` read.
    pub fn unpack(&self) -> FileFacts {
        self.try_unpack().expect("packed facts decode")
    }

    /// The encoding, as the persisted index stores a file's facts.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[self.range.clone()]
    }

    /// Decodes each of `packed` when asked for it by index, once, letting go of its bytes:
    /// when one part is the whole workspace, the packed and decoded facts are not both held.
    pub fn unpack_once(
        packed: Vec<PackedFacts>,
    ) -> impl Fn(usize) -> std::sync::Arc<FileFacts> + Sync {
        let slots: Vec<std::sync::Mutex<Option<PackedFacts>>> = packed
            .into_iter()
            .map(|p| std::sync::Mutex::new(Some(p)))
            .collect();
        move |i| {
            let packed = slots[i]
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .expect("each file's facts are asked for once");
            std::sync::Arc::new(packed.unpack())
        }
    }
}

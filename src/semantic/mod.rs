//! The semantic layer: types every expression of a lowered body (`syntax::ir`) under a
//! template substitution, applies DPC++'s rule for used aspects to the values it computes, and
//! resolves calls, launches and kernels by those types (overloads, specialisations, template
//! argument deduction). Pure: facts in, typed facts out; no IO, no graph.
//!
//! A template body is typed once per instantiation the call graph reaches (`Instance`); its
//! parameters stay `Ty::Param` in the generic pattern, where nothing dependent counts.

pub mod features;
mod infer;
pub mod names;
pub mod ty;

use std::cell::RefCell;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use crate::devices::AspectId;
use crate::syntax::{FileFacts, Function, Span};
pub use infer::{kernel_properties, specialisation_for, specialises, type_function};
pub use ty::Ty;

/// The aspects named in a list, unknown names left out.
pub fn known_aspects(refs: &[crate::syntax::AspectRef]) -> crate::devices::AspectSet {
    refs.iter()
        .filter_map(|r| match r {
            crate::syntax::AspectRef::Named { name, .. } => {
                crate::devices::registry().by_name(name)
            }
            crate::syntax::AspectRef::Unknown { .. } => None,
        })
        .collect()
}

/// A function under a substitution of its template parameters (`Function::tparams`, in order;
/// empty for a non-template).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instance {
    pub file: u32,
    pub func: u32,
    pub subst: Arc<[Ty]>,
}

impl Instance {
    pub fn plain(file: u32, func: u32) -> Self {
        Self {
            file,
            func,
            subst: Arc::from(Vec::new()),
        }
    }

    /// Bound to concrete types (so worth a node of its own).
    pub fn is_concrete(&self) -> bool {
        !self.subst.is_empty() && self.subst.iter().all(Ty::is_concrete)
    }
}

/// A value of a type that uses an aspect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SemUse {
    pub aspect: AspectId,
    pub what: String,
    /// Why a value of `what` uses the aspect when its name does not say (what its class
    /// holds): "it holds field 'scale' of type 'double'".
    pub why: Option<String>,
    pub span: Span,
    pub fate: Fate,
}

/// What becomes of a use in an optimised device image (`infer::narrowing`): `device_has` checks
/// count every use; an image's aspects are recomputed after optimisation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fate {
    /// A double operation LLVM narrows to float at -O2.
    pub narrowed: bool,
    /// Double work that `-fsycl-fp64-conv-emu` emulates (no arithmetic).
    pub conversion: bool,
    /// A pointer whose pointee uses the aspect (`double *p` passed on): DPC++ 2023 and
    /// older, whose device IR had typed pointers, counted it (`ImageRule::typed_pointers`).
    pub pointee: bool,
}

impl Fate {
    pub const KEPT: Fate = Fate {
        narrowed: false,
        conversion: false,
        pointee: false,
    };
    pub const CONVERSION: Fate = Fate {
        narrowed: false,
        conversion: true,
        pointee: false,
    };
    pub const POINTEE: Fate = Fate {
        narrowed: false,
        conversion: false,
        pointee: true,
    };
}

/// What typing one function found.
#[derive(Clone, Debug, Default)]
pub struct Typed {
    pub uses: Vec<SemUse>,
    /// Per call of `Function::calls` (same order): the functions it binds to, when typing
    /// could decide (else `None`: resolve by name); empty for a call in a discarded branch.
    pub calls: Vec<Option<Vec<Instance>>>,
    /// Per launch of `Function::launches`: the kernels it starts, when typing could decide.
    pub launches: Vec<Option<Vec<Instance>>>,
    /// Calls no call expression writes: the operator functions operator expressions on
    /// workspace classes call ([over.match.oper]), at the operator expression.
    pub implicit: Vec<(crate::syntax::Span, Vec<Instance>)>,
    /// Function templates named as values, not called (`f = star1;`, `&run<32>`): the
    /// instances naming them instantiates, at the name (`infer::addresses`).
    pub named: Vec<(crate::syntax::Span, Vec<Instance>)>,
    /// The files whose function bodies this typing read (its own, and those of the functions
    /// whose `auto` or lambda return type it deduced), sorted: when one of them is edited, the
    /// result may differ.
    pub reads: Vec<u32>,
    /// Calls of oneMKL / oneMath routines that run a library kernel needing an aspect.
    pub library: Vec<LibraryKernel>,
}

/// A call of a oneMKL / oneMath routine on data whose element type needs an aspect: the
/// library runs its own precompiled kernel, which no device compile sees
/// (`infer::library_kernels`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LibraryKernel {
    /// As written, without a leading `::`: `oneapi::mkl::blas::column_major::gemm`.
    pub routine: String,
    /// `double`, `std::complex<double>`, `sycl::half`.
    pub element: &'static str,
    pub aspect: AspectId,
    /// The routine's name at the call.
    pub span: Span,
    /// The argument the element type was read from.
    pub data: Span,
}

/// Declarations by name: (file, index in the file's list), sorted.
pub(crate) type ByName = HashMap<Box<str>, Vec<(u32, u32)>>;

/// The workspace's declarations by name: classes, aliases, namespace globals and functions
/// (not lambdas). Only interfaces decide it, so the analysis keeps it across body edits and
/// updates the files whose interface changed (building it was most of a body edit's time).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decls {
    classes: ByName,
    aliases: ByName,
    globals: ByName,
    functions: ByName,
}

impl Decls {
    pub fn new<'f>(files: impl IntoIterator<Item = &'f FileFacts>) -> Self {
        let mut d = Decls::default();
        for (fi, f) in files.into_iter().enumerate() {
            d.add(fi as u32, f);
        }
        d
    }

    /// Aliases named `name` (the last component), as (file, index).
    pub fn aliases_named(&self, name: &str) -> &[(u32, u32)] {
        self.aliases.get(name).map_or(&[], Vec::as_slice)
    }

    /// Functions (not lambdas) named `name`, as (file, index).
    pub fn functions_named(&self, name: &str) -> &[(u32, u32)] {
        self.functions.get(name).map_or(&[], Vec::as_slice)
    }

    /// Classes named `name` (the last component), as (file, index).
    pub fn classes_named(&self, name: &str) -> &[(u32, u32)] {
        self.classes.get(name).map_or(&[], Vec::as_slice)
    }

    /// File `file`'s declarations were `old` and are `new`.
    pub fn replace(&mut self, file: u32, old: &FileFacts, new: &FileFacts) {
        self.each(old, |map, name, _| {
            if let Some(list) = map.get_mut(name) {
                list.retain(|d| d.0 != file);
                if list.is_empty() {
                    map.remove(name);
                }
            }
        });
        self.add(file, new);
    }

    /// Adds a file's declarations, each list kept sorted (lookups search it by file).
    fn add(&mut self, file: u32, f: &FileFacts) {
        self.each(f, |map, name, i| {
            let at = (file, i);
            match map.get_mut(name) {
                Some(list) => {
                    let pos = list.partition_point(|&d| d < at);
                    list.insert(pos, at);
                }
                None => {
                    map.insert(name.into(), vec![at]);
                }
            }
        });
    }

    fn each(&mut self, f: &FileFacts, mut visit: impl FnMut(&mut ByName, &str, u32)) {
        for (i, c) in f.classes.iter().enumerate() {
            visit(&mut self.classes, &c.name, i as u32);
        }
        for (i, a) in f.aliases.iter().enumerate() {
            visit(&mut self.aliases, &a.name, i as u32);
        }
        for (i, g) in f.globals.iter().enumerate() {
            visit(&mut self.globals, &g.name, i as u32);
        }
        for (i, func) in f.functions.iter().enumerate() {
            if !func.is_lambda && func.name != "<host>" {
                visit(&mut self.functions, &func.name, i as u32);
            }
        }
    }
}

/// The workspace's declarations by name, and which files see which.
pub struct Index<'a> {
    pub(crate) files: Vec<&'a FileFacts>,
    decls: &'a Decls,
    classes: &'a ByName,
    aliases: &'a ByName,
    globals: &'a ByName,
    functions: &'a ByName,
    /// Per file, the files it sees (itself included), sorted.
    sees: &'a [Vec<u32>],
    /// Memo of name lookups by (path, template arguments, the declarations of the name that are
    /// visible): the result depends on nothing else, so a name is resolved once per set of
    /// visible declarations, not once per mention (SYCL-CTS names the same aliases millions of
    /// times from thousands of files).
    pub(crate) names: RefCell<HashMap<NameKey, Ty>>,
    /// Memo of deduced return types (`auto`, `decltype(...)`, lambdas) per instance, with the
    /// files whose bodies deciding it read.
    pub(crate) returns: RefCell<HashMap<Instance, Deduced>>,
    /// The files whose bodies the typing in progress has read.
    reads: RefCell<Vec<u32>>,
    /// Memo of the aspects a class type holds by value.
    pub(crate) class_aspects: RefCell<HashMap<Arc<ty::ClassTy>, crate::devices::AspectSet>>,
}

/// A deduced return type and the files whose bodies decided it.
pub(crate) type Deduced = (Ty, Box<[u32]>);

pub(crate) type NameKey = (Box<str>, Vec<Ty>, Vec<(u32, u32)>);

impl<'a> Index<'a> {
    pub fn new(files: Vec<&'a FileFacts>, sees: &'a [Vec<u32>], decls: &'a Decls) -> Self {
        Index {
            names: RefCell::default(),
            returns: RefCell::default(),
            reads: RefCell::default(),
            class_aspects: RefCell::default(),
            files,
            decls,
            classes: &decls.classes,
            aliases: &decls.aliases,
            globals: &decls.globals,
            functions: &decls.functions,
            sees,
        }
    }

    pub fn decls(&self) -> &'a Decls {
        self.decls
    }

    /// Notes that the typing in progress depends on a body in `file`.
    pub(crate) fn read(&self, file: u32) {
        self.reads.borrow_mut().push(file);
    }

    /// Runs `f`, returning with its result the files whose bodies it read; they count as read
    /// by the enclosing typing too.
    pub(crate) fn reading<R>(&self, f: impl FnOnce() -> R) -> (R, Vec<u32>) {
        let outer = std::mem::take(&mut *self.reads.borrow_mut());
        let r = f();
        let mut reads = std::mem::replace(&mut *self.reads.borrow_mut(), outer);
        reads.sort_unstable();
        reads.dedup();
        self.reads.borrow_mut().extend_from_slice(&reads);
        (r, reads)
    }

    pub fn function(&self, file: u32, func: u32) -> &'a Function {
        &self.files[file as usize].functions[func as usize]
    }

    /// The files each file sees (itself included), sorted: the lists this index was made with.
    pub(crate) fn sees(&self) -> &'a [Vec<u32>] {
        self.sees
    }

    /// The functions (not lambdas) named `name` declared in the files `from` sees, as (file,
    /// index), in file order: the candidates of a call by name.
    pub(crate) fn visible_functions(
        &self,
        from: u32,
        name: &str,
    ) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.visible(self.functions, from, name)
    }

    /// The declarations of `name` in the files `from` sees, in file order. Both lists are sorted
    /// by file: the shorter one is walked, the other searched (a name declared in every file
    /// of a workspace is seen from few of them).
    fn visible<'s>(
        &'s self,
        map: &'s ByName,
        from: u32,
        name: &str,
    ) -> impl Iterator<Item = (u32, u32)> + 's {
        let decls: &'s [(u32, u32)] = map.get(name).map_or(&[], Vec::as_slice);
        let seen: &'s [u32] = self.sees.get(from as usize).map_or(&[], Vec::as_slice);
        let by_decl = (decls.len() <= seen.len()).then(|| {
            decls
                .iter()
                .copied()
                .filter(move |(f, _)| seen.binary_search(f).is_ok())
        });
        let by_file = by_decl.is_none().then(|| {
            seen.iter().flat_map(move |&f| {
                let at = decls.partition_point(|d| d.0 < f);
                decls[at..].iter().copied().take_while(move |d| d.0 == f)
            })
        });
        by_decl
            .into_iter()
            .flatten()
            .chain(by_file.into_iter().flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::Decls;
    use crate::syntax::extract;

    /// Replacing one file's declarations gives what building from scratch gives: same lists,
    /// in file order, names gone when their last declaration is.
    #[test]
    fn replacing_a_file_equals_building_anew() {
        let a = extract("struct S {}; void f(); using T = int; int g;");
        let b = extract("void f(); void f(int); struct S {};");
        let c = extract("struct S {}; void f() {} void h() { auto l = [] {}; }");
        let c2 = extract("struct U {}; int g; void f(double);");
        let mut d = Decls::new([&a, &b, &c]);
        d.replace(2, &c, &c2);
        assert_eq!(d, Decls::new([&a, &b, &c2]));
        d.replace(0, &a, &c2);
        assert_eq!(d, Decls::new([&c2, &b, &c2]));
        assert!(d.aliases.is_empty());
        assert_eq!(d.functions["f"], [(0, 0), (1, 0), (1, 1), (2, 0)]);
    }
}

#[cfg(test)]
mod typing_tests;

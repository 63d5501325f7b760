//! The macro table: definitions (`Macro`, where each came from) and the macros in effect
//! (`Macros`), a shared base under a file's own `#define`s and `#undef`s.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::lex::{self, Kind};
use super::memo;

/// Where a macro was defined, for hover and for diagnostics that name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Predefined by the compiler for this compile (`why` says for what: a target, the SYCL
    /// headers, the platform).
    Predefined(Arc<str>),
    /// `-D` on the command line.
    CommandLine,
    File {
        path: Arc<str>,
        line: u32,
    },
}

/// A macro in the device compiles of `targets` (none named: every compile).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroAt {
    pub targets: Vec<String>,
    /// `None`: not defined there.
    pub definition: Option<MacroDef>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroDef {
    /// `NAME` or `NAME(a, b)`.
    pub signature: String,
    pub replacement: String,
    pub origin: Origin,
}

/// A replacement-list token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MTok {
    pub kind: Kind,
    pub text: Arc<str>,
    pub space: bool,
}

impl MTok {
    pub fn is(&self, p: &str) -> bool {
        self.kind == Kind::Punct && &*self.text == p
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Macro {
    /// `None` for an object-like macro.
    pub params: Option<Vec<Arc<str>>>,
    /// The last parameter takes the remaining arguments (`...` or `args...`).
    pub variadic: bool,
    pub body: Vec<MTok>,
    pub origin: Origin,
}

impl Macro {
    /// The replacement list as text (`double`, `(a) * (b)`).
    pub fn replacement(&self) -> String {
        let mut s = String::new();
        for (k, t) in self.body.iter().enumerate() {
            if k > 0 && t.space {
                s.push(' ');
            }
            s.push_str(&t.text);
        }
        s
    }

    /// `NAME(a, b)` or `NAME`.
    pub fn signature(&self, name: &str) -> String {
        match &self.params {
            None => name.to_string(),
            Some(p) => {
                let mut list: Vec<String> = p.iter().map(|x| x.to_string()).collect();
                if self.variadic {
                    if let Some(last) = list.last_mut() {
                        *last = if last == "__VA_ARGS__" {
                            "...".into()
                        } else {
                            format!("{last}...")
                        };
                    }
                }
                format!("{name}({})", list.join(", "))
            }
        }
    }
}

/// Macros by name.
pub type MacroTable = FxHashMap<Arc<str>, Arc<Macro>>;

/// The macros in effect: a shared base (predefined and command-line macros, the same for many
/// files) under the file's own definitions.
#[derive(Clone, Debug, Default)]
pub struct Macros {
    base: Arc<MacroTable>,
    /// `None`: `#undef`ined here.
    local: FxHashMap<Arc<str>, Option<Arc<Macro>>>,
    /// Base names whose definition differs between the compiles a text is preprocessed for.
    watched: Option<Arc<FxHashSet<Arc<str>>>>,
    /// A watched name was looked up in the base (defined or not): the text may compile
    /// differently in another compile.
    read_watched: std::cell::Cell<bool>,
    /// Every watched name is reserved (`__X`, DPC++'s per-target macros): lookups of other
    /// names skip the hash. AdaptiveCpp's passes differ in `ACPP_LIBKERNEL_*` too.
    watched_reserved: bool,
    /// Header readings under way, innermost last: each records what it reads and writes.
    recording: std::cell::RefCell<Vec<memo::Recording>>,
}

impl Macros {
    pub fn new(base: Arc<MacroTable>) -> Self {
        Macros {
            base,
            local: FxHashMap::default(),
            watched: None,
            read_watched: std::cell::Cell::new(false),
            watched_reserved: true,
            recording: Default::default(),
        }
    }

    /// Records from now on whether one of `names` is looked up in the base table.
    pub fn watch(&mut self, names: Arc<FxHashSet<Arc<str>>>) {
        self.watched_reserved = names.iter().all(|n| n.starts_with("__"));
        self.watched = Some(names);
    }

    /// Whether a watched name was looked up in the base table.
    pub fn read_watched(&self) -> bool {
        self.read_watched.get()
    }

    /// Macros from `NAME` / `NAME=value` pairs (the `-D` form), later ones replacing earlier
    /// ones, a `None` value meaning `-U`.
    pub fn table(defs: &[(String, Option<String>, Origin)]) -> MacroTable {
        let mut t = FxHashMap::default();
        for (spec, value, origin) in defs {
            match value {
                None => {
                    t.remove(spec.as_str());
                }
                Some(v) => {
                    if let Some((name, m)) = parse_define(&format!("{spec} {v}"), origin.clone()) {
                        t.insert(name, Arc::new(m));
                    }
                }
            }
        }
        t
    }

    fn lookup(&self, name: &str) -> (Option<&Arc<Macro>>, bool) {
        match self.local.get(name) {
            Some(m) => (m.as_ref(), false),
            None => match self.base.get(name) {
                Some(m) => (Some(m), true),
                // After `<sycl/sycl.hpp>`: a trait macro the driver did not define is 0
                // (device_aspect_macros.hpp), read as from the base: it depends on the driver.
                None if is_trait_macro(name)
                    && matches!(self.local.get(SYCL_HEADERS), Some(Some(_))) =>
                {
                    (Some(&*TRAIT_DEFAULT), true)
                }
                None => (None, true),
            },
        }
    }

    pub fn get(&self, name: &str) -> Option<&Macro> {
        let (found, from_base) = self.lookup(name);
        // Watched names are mostly reserved ones (`__NVPTX__`): most lookups skip the hash.
        let watched = from_base
            && (name.starts_with("__") || !self.watched_reserved)
            && self.watched.as_ref().is_some_and(|w| w.contains(name));
        if watched {
            self.read_watched.set(true);
        }
        if let Ok(mut frames) = self.recording.try_borrow_mut() {
            for f in frames.iter_mut() {
                f.read(name, || found.cloned());
                f.watched |= watched;
            }
        }
        found.map(|m| &**m)
    }

    /// The value of a macro, recording nothing.
    pub fn peek(&self, name: &str) -> memo::Value {
        self.lookup(name).0.cloned()
    }

    pub fn is_defined(&self, name: &str) -> bool {
        self.get(name).is_some() || matches!(name, "__LINE__" | "__FILE__" | "__COUNTER__")
    }

    pub fn define(&mut self, name: Arc<str>, m: Macro) {
        self.set(name, Some(Arc::new(m)));
    }

    pub fn undef(&mut self, name: &str) {
        self.set(Arc::from(name), None);
    }

    /// Defines (`Some`) or undefines a macro.
    pub fn set(&mut self, name: Arc<str>, value: memo::Value) {
        for f in self.recording.get_mut().iter_mut() {
            f.write(&name, value.clone());
        }
        self.local.insert(name, value);
    }

    /// Records from now on the names looked up before this text defines them, with their
    /// values: what a header read of the macros in force where it is included.
    pub fn record_reads(&mut self) {
        self.begin_recording();
    }

    /// What was looked up since `record_reads` (the names and the values they had then).
    pub fn recorded_reads(&mut self) -> Vec<(Arc<str>, memo::Value)> {
        self.end_recording().reads
    }

    pub(super) fn begin_recording(&mut self) {
        self.recording.get_mut().push(memo::Recording::default());
    }

    pub(super) fn end_recording(&mut self) -> memo::Recording {
        self.recording.get_mut().pop().unwrap_or_default()
    }

    pub(super) fn frames(&mut self) -> &mut Vec<memo::Recording> {
        self.recording.get_mut()
    }

    /// Applies a remembered reading: what it read counts as read here, then its definitions.
    pub(super) fn replay(&mut self, r: &memo::Recording) {
        for f in self.recording.get_mut().iter_mut() {
            for (n, v) in &r.reads {
                f.read(n, || v.clone());
            }
            for (p, state) in &r.once_reads {
                f.once_read(p, *state);
            }
            f.watched |= r.watched;
        }
        if r.watched {
            self.read_watched.set(true);
        }
        for (n, v) in &r.writes {
            self.set(n.clone(), v.clone());
        }
    }

    /// The definitions made since the base: a fingerprint of what a file saw from its
    /// includes, for caching.
    pub fn local_hash(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut entries: Vec<(&Arc<str>, Option<String>)> = self
            .local
            .iter()
            .map(|(k, v)| {
                let text = v
                    .as_ref()
                    .map(|m| format!("{}={}", m.signature(k), m.replacement()));
                (k, text)
            })
            .collect();
        entries.sort();
        let mut h = std::hash::DefaultHasher::new();
        entries.hash(&mut h);
        h.finish()
    }
}

/// Defined (empty) once `<sycl/sycl.hpp>` was included: the trait macros' defaults apply.
pub const SYCL_HEADERS: &str = "__sycl_analyzer_sycl_headers_included__";

/// `0`, what the SYCL headers define an undefined trait macro to.
static TRAIT_DEFAULT: std::sync::LazyLock<Arc<Macro>> = std::sync::LazyLock::new(|| {
    let origin = Origin::Predefined(Arc::from(
        "the SYCL headers (device_aspect_macros.hpp: 0 unless the driver defined it)",
    ));
    Arc::new(parse_define("X 0", origin).expect("a valid definition").1)
});

/// `__SYCL_ALL_DEVICES_HAVE_<aspect>__` / `__SYCL_ANY_DEVICE_HAS_<aspect>__` (not the
/// `ANY_ASPECT` one, which only the driver defines).
fn is_trait_macro(name: &str) -> bool {
    let aspect = name
        .strip_prefix("__SYCL_ALL_DEVICES_HAVE_")
        .or_else(|| name.strip_prefix("__SYCL_ANY_DEVICE_HAS_"))
        .and_then(|r| r.strip_suffix("__"));
    aspect.is_some_and(|a| a != "ANY_ASPECT" && crate::devices::registry().by_name(a).is_some())
}

/// `NAME body`, `NAME(a, b) body`, `NAME(...) body` as after `#define`.
pub fn parse_define(text: &str, origin: Origin) -> Option<(Arc<str>, Macro)> {
    let toks = lex::lex(text, 0, text.len());
    let name = toks.first().filter(|t| t.kind == Kind::Ident)?;
    let mut at = 1;
    let mut params = None;
    let mut variadic = false;
    if toks
        .get(1)
        .is_some_and(|t| t.text(text) == "(" && !t.space_before)
    {
        let mut list = Vec::new();
        at = 2;
        loop {
            let t = toks.get(at)?;
            at += 1;
            match (t.kind, t.text(text)) {
                (_, ")") => break,
                (_, ",") => {}
                (_, "...") => {
                    variadic = true;
                    list.push(Arc::from("__VA_ARGS__"));
                }
                (Kind::Ident, p) => {
                    if toks.get(at).is_some_and(|n| n.text(text) == "...") {
                        variadic = true;
                        at += 1;
                    }
                    list.push(Arc::from(p));
                }
                _ => return None,
            }
        }
        params = Some(list);
    }
    let body = toks[at..]
        .iter()
        .enumerate()
        .map(|(k, t)| MTok {
            kind: t.kind,
            text: Arc::from(t.text(text)),
            space: k > 0 && t.space_before,
        })
        .collect();
    Some((
        Arc::from(name.text(text)),
        Macro {
            params,
            variadic,
            body,
            origin,
        },
    ))
}

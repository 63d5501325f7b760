//! The table of C++ constructs that use optional features (embedded `config/features.yaml`).

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::devices::yaml::{self, Node, Value};
use crate::devices::{registry, AspectId, AspectSet};

const EMBEDDED: &str = include_str!("../../config/features.yaml");

#[derive(Debug)]
pub struct Features {
    types: Vec<(String, AspectId)>,
    atomic_templates: Vec<String>,
    atomic_sizes: Vec<(AspectId, Vec<String>)>,
    functions: HashMap<String, AspectId>,
    math: Vec<String>,
    compile_time: Vec<String>,
    element: Vec<String>,
    by_value: Vec<String>,
}

pub fn features() -> &'static Features {
    static F: LazyLock<Features> = LazyLock::new(|| {
        Features::from_yaml(EMBEDDED).expect("embedded config/features.yaml is valid")
    });
    &F
}

/// `pattern` names `text` when equal, or when `text` ends with `::pattern`.
pub fn names(text: &str, pattern: &str) -> bool {
    text == pattern
        || text
            .strip_suffix(pattern)
            .is_some_and(|head| head.ends_with("::"))
}

fn strings(n: &Node) -> Result<Vec<String>, String> {
    match &n.value {
        Value::Seq(items) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| "expected strings".to_string())
            })
            .collect(),
        _ => Err("expected a list".into()),
    }
}

fn aspect(n: &Node) -> Result<AspectId, String> {
    let name = n.as_str().ok_or("expected an aspect name")?;
    registry()
        .by_name(name)
        .ok_or(format!("unknown aspect {name}"))
}

fn field<'a>(n: &'a Node, key: &str) -> Option<&'a Node> {
    match &n.value {
        Value::Map(pairs) => pairs
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v),
        _ => None,
    }
}

impl Features {
    fn from_yaml(text: &str) -> Result<Self, String> {
        let root = yaml::parse(text)
            .map_err(|e| e.message)?
            .into_iter()
            .next()
            .ok_or("empty")?;
        let mut f = Features {
            types: Vec::new(),
            atomic_templates: Vec::new(),
            atomic_sizes: Vec::new(),
            functions: HashMap::new(),
            math: Vec::new(),
            compile_time: Vec::new(),
            element: Vec::new(),
            by_value: Vec::new(),
        };
        if let Some(Value::Map(pairs)) = field(&root, "types").map(|n| &n.value) {
            for (k, v) in pairs {
                f.types
                    .push((k.as_str().ok_or("type name")?.to_string(), aspect(v)?));
            }
        }
        if let Some(a) = field(&root, "atomic_ref") {
            f.atomic_templates = strings(field(a, "templates").ok_or("templates")?)?;
            if let Some(Value::Seq(rows)) = field(a, "by_size").map(|n| &n.value) {
                for row in rows {
                    let asp = aspect(field(row, "aspect").ok_or("aspect")?)?;
                    f.atomic_sizes
                        .push((asp, strings(field(row, "types").ok_or("types")?)?));
                }
            }
        }
        if let Some(Value::Map(pairs)) = field(&root, "functions").map(|n| &n.value) {
            for (k, v) in pairs {
                f.functions
                    .insert(k.as_str().ok_or("function name")?.to_string(), aspect(v)?);
            }
        }
        if let Some(m) = field(&root, "math_functions") {
            f.math = strings(m)?;
        }
        if let Some(m) = field(&root, "compile_time_templates") {
            f.compile_time = strings(m)?;
        }
        if let Some(m) = field(&root, "element_templates") {
            f.element = strings(m)?;
        }
        if let Some(m) = field(&root, "by_value_templates") {
            f.by_value = strings(m)?;
        }
        Ok(f)
    }

    /// Every aspect code can use without naming it: through a type, an atomic's size or a
    /// SYCL function declared with `__uses_aspects__`.
    pub fn implied_aspects(&self) -> AspectSet {
        let mut set = AspectSet::EMPTY;
        let ids = self.types.iter().map(|(_, a)| *a);
        let ids = ids.chain(self.atomic_sizes.iter().map(|(a, _)| *a));
        for id in ids.chain(self.functions.values().copied()) {
            set.insert(id);
        }
        set
    }

    /// The aspect a builtin or SYCL type uses by itself.
    pub fn type_aspect(&self, text: &str) -> Option<AspectId> {
        self.types
            .iter()
            .find(|(pattern, _)| names(text, pattern))
            .map(|(_, a)| *a)
    }

    pub fn is_atomic_template(&self, base: &str) -> bool {
        self.atomic_templates.iter().any(|t| names(base, t))
    }

    /// The aspect of `atomic_ref<T>` for a `T` already resolved through aliases.
    pub fn atomic_aspect(&self, arg: &str) -> Option<AspectId> {
        self.atomic_sizes
            .iter()
            .find(|(_, types)| types.iter().any(|t| arg == t || names(arg, t)))
            .map(|(a, _)| *a)
    }

    pub fn function_aspect(&self, name: &str) -> Option<AspectId> {
        self.functions.get(name).copied()
    }

    pub fn is_math(&self, name: &str) -> bool {
        self.math.iter().any(|m| m == name)
    }

    /// A library template whose subscript, dereference and iteration give its first argument.
    pub fn is_element_template(&self, last: &str) -> bool {
        self.element.iter().any(|m| m == last)
    }

    /// A library template that holds its first argument by value.
    pub fn is_by_value_template(&self, last: &str) -> bool {
        self.by_value.iter().any(|m| m == last)
    }

    /// A template whose type arguments emit no code (type traits).
    pub fn is_compile_time(&self, template: &str) -> bool {
        self.compile_time.iter().any(|m| m == template)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implied_aspects_are_those_the_table_names() {
        let names = registry().sorted_names(features().implied_aspects());
        assert_eq!(
            names,
            [
                "atomic64",
                "ext_intel_esimd",
                "ext_oneapi_atomic16",
                "ext_oneapi_chunk",
                "ext_oneapi_fragment",
                "ext_oneapi_private_alloca",
                "ext_oneapi_tangle",
                "fp16",
                "fp64"
            ]
        );
    }

    #[test]
    fn table_lookups() {
        let f = features();
        let r = registry();
        assert_eq!(f.type_aspect("sycl::half").map(|a| r.name(a)), Some("fp16"));
        assert_eq!(
            f.type_aspect("long double").map(|a| r.name(a)),
            Some("fp64")
        );
        assert_eq!(f.type_aspect("mydouble"), None);
        assert_eq!(
            f.type_aspect("sycl::ext::intel::esimd::simd")
                .map(|a| r.name(a)),
            Some("ext_intel_esimd")
        );
        assert!(f.is_atomic_template("sycl::atomic_ref"));
        assert_eq!(
            f.atomic_aspect("unsigned long long").map(|a| r.name(a)),
            Some("atomic64")
        );
        assert_eq!(
            f.atomic_aspect("std::uint64_t").map(|a| r.name(a)),
            Some("atomic64")
        );
        assert_eq!(
            f.atomic_aspect("sycl::half").map(|a| r.name(a)),
            Some("ext_oneapi_atomic16")
        );
        assert_eq!(f.atomic_aspect("int"), None);
        assert!(f.is_math("sqrt"));
        assert!(f.is_compile_time("is_same_v"));
        assert!(!f.is_compile_time("vec"));
    }

    #[test]
    fn names_matches_whole_components() {
        assert!(names("sycl::half", "half"));
        assert!(names("half", "half"));
        assert!(!names("myhalf", "half"));
    }
}

//! The names DPC++'s driver knows for `-fsycl-targets` (embedded `config/targets.yaml`):
//! canonical device names and their aliases, generic triples. A leaf of `devices`: the device
//! config reads these names to resolve its entries' aliases, and `targets` to resolve a list.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use super::yaml::{self, Node, Value};

const EMBEDDED: &str = include_str!("../../config/targets.yaml");

/// Prefixes of device-specific names; their `__SYCL_TARGET_*__` macro is the upper-cased name.
pub const DEVICE_PREFIXES: [&str; 4] = ["intel_gpu_", "nvidia_gpu_", "amd_gpu_", "intel_cpu_"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    IntelGpu,
    NvidiaGpu,
    AmdGpu,
    /// A triple-like target such as `spir64` or `nvptx64-nvidia-cuda`.
    Generic,
    /// Valid only because the device table (built-in or user) has an entry for it.
    Configured,
}

#[derive(Debug)]
pub(super) struct Generic {
    pub(super) entry: Option<String>,
    pub(super) macro_name: Option<String>,
    pub(super) triples: Vec<String>,
    /// The device the driver binds when no architecture is given (`nvptx64-nvidia-cuda`).
    pub(super) default: Option<String>,
    /// The tool that compiles its device code at build time; none for SPIR-V, which is
    /// compiled when the program runs.
    pub(super) aot: Option<String>,
}

#[derive(Debug)]
pub struct DriverNames {
    /// Canonical Intel GPU names with their aliases, in table order.
    intel: Vec<(String, Vec<String>)>,
    alias_of: HashMap<String, String>,
    device: HashMap<String, TargetKind>,
    /// Every canonical device-specific name, in table order.
    ordered: Vec<String>,
    generic: Vec<(String, Generic)>,
}

pub fn driver_names() -> &'static DriverNames {
    static NAMES: LazyLock<DriverNames> = LazyLock::new(|| {
        DriverNames::from_yaml(EMBEDDED).expect("embedded config/targets.yaml is valid")
    });
    &NAMES
}

fn str_list(node: &Node) -> Result<Vec<String>, String> {
    match &node.value {
        Value::Seq(items) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or("expected a string".to_string())
            })
            .collect(),
        _ => Err("expected a list of strings".into()),
    }
}

impl DriverNames {
    fn from_yaml(text: &str) -> Result<Self, String> {
        let docs = yaml::parse(text).map_err(|e| e.message)?;
        let Some(Value::Map(sections)) = docs.first().map(|d| &d.value) else {
            return Err("targets.yaml must be a mapping".into());
        };
        let mut names = DriverNames {
            intel: Vec::new(),
            alias_of: HashMap::new(),
            device: HashMap::new(),
            ordered: Vec::new(),
            generic: Vec::new(),
        };
        for (key, value) in sections {
            match key.as_str() {
                Some("intel_gpu") => {
                    let Value::Map(rows) = &value.value else {
                        return Err("intel_gpu must map names to aliases".into());
                    };
                    for (name, aliases) in rows {
                        let name = name.as_str().ok_or("intel_gpu name")?.to_string();
                        let aliases = str_list(aliases)?;
                        for alias in &aliases {
                            names.alias_of.insert(alias.clone(), name.clone());
                        }
                        names.device.insert(name.clone(), TargetKind::IntelGpu);
                        names.ordered.push(name.clone());
                        names.intel.push((name, aliases));
                    }
                }
                Some(family @ ("nvidia_gpu" | "amd_gpu")) => {
                    let kind = if family == "nvidia_gpu" {
                        TargetKind::NvidiaGpu
                    } else {
                        TargetKind::AmdGpu
                    };
                    for name in str_list(value)? {
                        names.device.insert(name.clone(), kind);
                        names.ordered.push(name);
                    }
                }
                Some("generic") => {
                    let Value::Map(rows) = &value.value else {
                        return Err("generic must be a mapping".into());
                    };
                    for (name, fields) in rows {
                        let Value::Map(fields) = &fields.value else {
                            return Err("generic entries are mappings".into());
                        };
                        let field = |f: &str| fields.iter().find(|(k, _)| k.as_str() == Some(f));
                        names.generic.push((
                            name.as_str().ok_or("generic name")?.to_string(),
                            Generic {
                                entry: field("entry").and_then(|(_, v)| v.as_str().map(Into::into)),
                                macro_name: field("macro")
                                    .and_then(|(_, v)| v.as_str().map(Into::into)),
                                triples: match field("triples") {
                                    Some((_, v)) => str_list(v)?,
                                    None => Vec::new(),
                                },
                                default: field("default")
                                    .and_then(|(_, v)| v.as_str().map(Into::into)),
                                aot: field("aot").and_then(|(_, v)| v.as_str().map(Into::into)),
                            },
                        ));
                    }
                }
                other => return Err(format!("unknown section {other:?} in targets.yaml")),
            }
        }
        let aliases: HashSet<&String> = names.alias_of.keys().collect();
        if names.device.keys().any(|n| aliases.contains(n)) {
            return Err("a name is both canonical and an alias".into());
        }
        Ok(names)
    }

    pub fn canonical_of_alias(&self, alias: &str) -> Option<&str> {
        self.alias_of.get(alias).map(String::as_str)
    }

    /// Aliases of a canonical Intel GPU name.
    pub fn aliases(&self, canonical: &str) -> &[String] {
        self.intel
            .iter()
            .find(|(n, _)| n == canonical)
            .map(|(_, a)| a.as_slice())
            .unwrap_or(&[])
    }

    /// Every spelling the driver accepts by itself (device table entries aside).
    pub fn all_spellings(&self) -> impl Iterator<Item = &str> {
        self.device
            .keys()
            .chain(self.alias_of.keys())
            .map(String::as_str)
            .chain(self.generic.iter().map(|(n, _)| n.as_str()))
    }

    /// Every canonical name the driver accepts by itself, device-specific ones first, in the
    /// order of `targets.yaml`.
    pub fn canonical_names(&self) -> impl Iterator<Item = &str> {
        self.ordered
            .iter()
            .map(String::as_str)
            .chain(self.generic.iter().map(|(n, _)| n.as_str()))
    }

    /// The full triples a generic target is also spelled as (`spir64_gen-unknown-unknown`).
    pub fn triples_of(&self, generic: &str) -> Vec<String> {
        self.generic(generic)
            .map(|g| g.triples.iter().map(|t| format!("{generic}-{t}")).collect())
            .unwrap_or_default()
    }

    pub fn intel_gpu_names(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.intel.iter().map(|(n, a)| (n.as_str(), a.as_slice()))
    }

    pub fn kind_of(&self, canonical: &str) -> Option<TargetKind> {
        self.device.get(canonical).copied()
    }

    pub(super) fn generic(&self, name: &str) -> Option<&Generic> {
        self.generic.iter().find(|(n, _)| n == name).map(|(_, g)| g)
    }

    /// `spir64_gen-unknown-unknown` → `spir64_gen`.
    pub(super) fn generic_of_triple<'a>(&'a self, triple: &str) -> Option<&'a str> {
        self.generic.iter().find_map(|(name, g)| {
            let rest = triple.strip_prefix(name.as_str())?.strip_prefix('-')?;
            g.triples.iter().any(|t| t == rest).then_some(name.as_str())
        })
    }

    /// The generic target of any triple whose architecture is a generic target's (`nvptx64`,
    /// `nvptx64-unknown-unknown` → `nvptx64-nvidia-cuda`; `spir64-nvidia-cuda` → `spir64`).
    /// DPC++'s driver reads `-fsycl-targets=` values as triples (`Driver::MakeSYCLDeviceTriple`,
    /// a bare `nvptx64` is `llvm::Triple("nvptx64")`) and accepts every NVPTX and AMDGCN triple
    /// and every SPIR one whatever its vendor and OS (`isValidSYCLTriple`, clang/lib/Driver/
    /// Driver.cpp). Case-sensitive, as LLVM's triple parser is.
    pub(super) fn generic_of_arch<'a>(&'a self, triple: &str) -> Option<&'a str> {
        let arch = triple.split('-').next().unwrap_or(triple);
        self.generic
            .iter()
            .find_map(|(name, _)| (name.split('-').next() == Some(arch)).then_some(name.as_str()))
    }
}

/// The `__SYCL_TARGET_*__` macro of a device-specific name (`intel_gpu_pvc_vg` →
/// `__SYCL_TARGET_INTEL_GPU_PVC_VG__`, `nvidia_gpu_sm_90a` → `..._SM_90A__`).
pub fn device_macro(canonical: &str) -> Option<String> {
    DEVICE_PREFIXES
        .iter()
        .any(|p| canonical.starts_with(p))
        .then(|| format!("__SYCL_TARGET_{}__", canonical.to_ascii_uppercase()))
}

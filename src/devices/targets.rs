//! `-fsycl-targets` names as the DPC++ driver reads them (embedded `config/targets.yaml`):
//! canonical device names and their aliases, generic triples, and names that only the device
//! table (built-in or user) knows.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use super::table::DeviceTable;
use super::yaml::{self, Node, Value};
use crate::text::TextRange;

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
struct Generic {
    entry: Option<String>,
    macro_name: Option<String>,
    triples: Vec<String>,
}

#[derive(Debug)]
pub struct DriverNames {
    /// Canonical Intel GPU names with their aliases, in table order.
    intel: Vec<(String, Vec<String>)>,
    alias_of: HashMap<String, String>,
    device: HashMap<String, TargetKind>,
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
                        names.device.insert(name, kind);
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

    pub fn intel_gpu_names(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.intel.iter().map(|(n, a)| (n.as_str(), a.as_slice()))
    }

    pub fn kind_of(&self, canonical: &str) -> Option<TargetKind> {
        self.device.get(canonical).copied()
    }

    fn generic(&self, name: &str) -> Option<&Generic> {
        self.generic.iter().find(|(n, _)| n == name).map(|(_, g)| g)
    }

    /// `spir64_gen-unknown-unknown` → `spir64_gen`.
    fn generic_of_triple<'a>(&'a self, triple: &str) -> Option<&'a str> {
        self.generic.iter().find_map(|(name, g)| {
            let rest = triple.strip_prefix(name.as_str())?.strip_prefix('-')?;
            g.triples.iter().any(|t| t == rest).then_some(name.as_str())
        })
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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedTarget {
    pub input: String,
    pub canonical: String,
    pub kind: TargetKind,
    pub macro_name: Option<String>,
    /// The device-table entry this target reads, if the table has it.
    pub entry: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidTarget {
    pub input: String,
    /// Where the name stands in the list it came from.
    pub range: TextRange,
    pub message: String,
    pub suggestions: Vec<String>,
}

/// Resolves one `-fsycl-targets` name. Case-sensitive, like the driver.
pub fn resolve(input: &str, table: &DeviceTable) -> Result<ResolvedTarget, InvalidTarget> {
    resolve_unsuggested(input, table).map_err(|mut e| {
        e.suggestions = suggestions_for(input, table);
        e
    })
}

fn suggestions_for(input: &str, table: &DeviceTable) -> Vec<String> {
    let candidates = driver_names()
        .all_spellings()
        .chain(table.iter().map(|(n, _)| n));
    crate::diagnostics::suggest(input, candidates, 3)
}

/// Like [`resolve`], without looking for suggestions (the costly part of an invalid name).
fn resolve_unsuggested(input: &str, table: &DeviceTable) -> Result<ResolvedTarget, InvalidTarget> {
    let names = driver_names();
    let with_entry = |canonical: &str, kind, macro_name, entry: Option<&str>| ResolvedTarget {
        input: input.to_string(),
        canonical: canonical.to_string(),
        kind,
        macro_name,
        entry: entry.filter(|e| table.get(e).is_some()).map(str::to_string),
    };
    let canonical = names.canonical_of_alias(input).unwrap_or(input);
    if let Some(kind) = names.kind_of(canonical) {
        return Ok(with_entry(
            canonical,
            kind,
            device_macro(canonical),
            Some(canonical),
        ));
    }
    let generic_name = names
        .generic(input)
        .map(|_| input)
        .or_else(|| names.generic_of_triple(input));
    if let Some(name) = generic_name {
        let g = names.generic(name).expect("generic name exists");
        // A bare triple has no entry upstream, but a user may give it one under its own name.
        return Ok(with_entry(
            name,
            TargetKind::Generic,
            g.macro_name.clone(),
            g.entry.as_deref().or(Some(name)),
        ));
    }
    if table.get(input).is_some() {
        return Ok(with_entry(
            input,
            TargetKind::Configured,
            device_macro(input),
            Some(input),
        ));
    }
    Err(InvalidTarget {
        input: input.to_string(),
        range: TextRange::new(0, input.len()),
        message: format!("SYCL target is invalid: '{input}'"),
        suggestions: Vec::new(),
    })
}

/// A parsed `-fsycl-targets` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetList {
    /// Valid targets in input order, each canonical target once.
    pub targets: Vec<ResolvedTarget>,
    pub invalid: Vec<InvalidTarget>,
    /// True when the list was empty and the driver's implicit `spir64` stands in.
    pub implicit: bool,
}

impl TargetList {
    /// The invalid names as diagnostics located in `list`, reported as file `file`.
    pub fn invalid_diagnostics(
        &self,
        file: std::sync::Arc<str>,
        list: &str,
    ) -> Vec<crate::diagnostics::Diagnostic> {
        use crate::diagnostics::{with_did_you_mean, Code, DiagnosticSink, Severity};
        let mut sink = DiagnosticSink::new(file, list);
        for e in self.invalid.iter().take(SHOWN_INVALID) {
            sink.push(
                e.range,
                Severity::Error,
                Code::InvalidTarget,
                with_did_you_mean(e.message.clone(), &e.suggestions),
                e.suggestions.clone(),
            );
        }
        if let Some(first_unshown) = self.invalid.get(SHOWN_INVALID) {
            let more = self.invalid.len() - SHOWN_INVALID;
            sink.push(
                first_unshown.range,
                Severity::Error,
                Code::InvalidTarget,
                format!("{more} more invalid SYCL targets not listed"),
                Vec::new(),
            );
        }
        sink.finish()
    }
}

/// A list of thousands of bad names (a 16 MiB request holds a million) must not cost minutes of
/// suggestion search nor an answer many times its size: only the first names get suggestions,
/// only the first are listed one by one.
const SUGGESTED_INVALID: usize = 16;
const SHOWN_INVALID: usize = 100;

/// The implicit JIT target of a compile without `-fsycl-targets`.
pub const DEFAULT_TARGET: &str = "spir64";

/// Parses a comma-separated list. An empty list means the implicit `spir64`, as for a compile
/// without `-fsycl-targets`.
pub fn parse_target_list(list: &str, table: &DeviceTable) -> TargetList {
    if list.is_empty() {
        let spir = resolve(DEFAULT_TARGET, table).expect("spir64 is always valid");
        return TargetList {
            targets: vec![spir],
            invalid: Vec::new(),
            implicit: true,
        };
    }
    let mut targets: Vec<ResolvedTarget> = Vec::new();
    let mut invalid = Vec::new();
    let mut offset = 0;
    for part in list.split(',') {
        let range = TextRange::new(offset, offset + part.len());
        offset += part.len() + 1;
        match resolve_unsuggested(part, table) {
            Ok(t) if targets.iter().any(|s| s.canonical == t.canonical) => {}
            Ok(t) => targets.push(t),
            Err(mut e) => {
                e.range = range;
                if invalid.len() < SUGGESTED_INVALID {
                    e.suggestions = suggestions_for(part, table);
                }
                invalid.push(e);
            }
        }
    }
    TargetList {
        targets,
        invalid,
        implicit: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin() -> &'static DeviceTable {
        DeviceTable::builtin()
    }

    #[test]
    fn aliases_resolve_to_canonical_names_and_macros() {
        let t = resolve("intel_gpu_rpl_s", builtin()).unwrap();
        assert_eq!(t.canonical, "intel_gpu_adl_s");
        assert_eq!(
            t.macro_name.as_deref(),
            Some("__SYCL_TARGET_INTEL_GPU_ADL_S__")
        );
        assert_eq!(t.entry.as_deref(), Some("intel_gpu_adl_s"));
        let t = resolve("intel_gpu_arl_s", builtin()).unwrap();
        assert_eq!(
            t.macro_name.as_deref(),
            Some("__SYCL_TARGET_INTEL_GPU_MTL_U__")
        );
    }

    #[test]
    fn nvidia_and_amd_macros() {
        let t = resolve("nvidia_gpu_sm_90a", builtin()).unwrap();
        assert_eq!(
            t.macro_name.as_deref(),
            Some("__SYCL_TARGET_NVIDIA_GPU_SM_90A__")
        );
        let t = resolve("amd_gpu_gfx90a", builtin()).unwrap();
        assert_eq!(
            t.macro_name.as_deref(),
            Some("__SYCL_TARGET_AMD_GPU_GFX90A__")
        );
        assert_eq!(t.kind, TargetKind::AmdGpu);
    }

    #[test]
    fn generic_targets_and_triples() {
        let t = resolve("spir64_x86_64", builtin()).unwrap();
        assert_eq!(
            t.macro_name.as_deref(),
            Some("__SYCL_TARGET_INTEL_X86_64__")
        );
        assert_eq!(t.entry.as_deref(), Some("spir64_x86_64"));
        let t = resolve("spir64_gen-unknown-unknown", builtin()).unwrap();
        assert_eq!(t.canonical, "spir64_gen");
        assert_eq!(t.macro_name, None);
        let t = resolve("nvptx64-nvidia-cuda", builtin()).unwrap();
        assert_eq!((t.macro_name, t.entry), (None, None));
        assert!(resolve("spir64-nvidia-cuda", builtin()).is_err());
    }

    #[test]
    fn a_user_entry_gives_a_bare_triple_its_aspects() {
        let cfg = crate::devices::config::load(
            std::sync::Arc::from("u.yaml"),
            "nvptx64-nvidia-cuda:\n  aspects: [fp64]\n",
        );
        let table = DeviceTable::with_overlays([&cfg]);
        let t = resolve("nvptx64-nvidia-cuda", &table).unwrap();
        assert_eq!(t.entry.as_deref(), Some("nvptx64-nvidia-cuda"));
    }

    #[test]
    fn thousands_of_invalid_names_cost_little_and_answer_briefly() {
        let list: Vec<String> = (0..5000).map(|i| format!("intel_gpu_pvx{i}")).collect();
        let list = list.join(",");
        let parsed = parse_target_list(&list, builtin());
        assert_eq!(parsed.invalid.len(), 5000);
        assert_eq!(parsed.invalid[0].suggestions[0], "intel_gpu_pvc");
        assert!(parsed.invalid[SUGGESTED_INVALID..]
            .iter()
            .all(|e| e.suggestions.is_empty()));
        let diags = parsed.invalid_diagnostics("targets".into(), &list);
        assert_eq!(diags.len(), SHOWN_INVALID + 1);
        let last = diags.last().unwrap();
        assert_eq!(last.message, "4900 more invalid SYCL targets not listed");
        assert_eq!(&list[last.range.start..last.range.end], "intel_gpu_pvx100");
    }

    #[test]
    fn invalid_names_use_the_driver_wording_and_suggest() {
        let e = resolve("intel_gpu_pvcc", builtin()).unwrap_err();
        assert_eq!(e.message, "SYCL target is invalid: 'intel_gpu_pvcc'");
        assert_eq!(e.suggestions[0], "intel_gpu_pvc");
        assert!(e.suggestions.len() <= 3);
        let e = resolve("INTEL_GPU_PVC", builtin()).unwrap_err();
        assert_eq!(e.suggestions[0], "intel_gpu_pvc");
        let e = resolve("nvidia_gpu_sm80", builtin()).unwrap_err();
        assert_eq!(e.suggestions[0], "nvidia_gpu_sm_80");
    }

    #[test]
    fn lists_dedupe_by_canonical_name_and_locate_errors() {
        let l = parse_target_list("intel_gpu_pvc,intel_gpu_12_60_7,bad,spir64", builtin());
        let canon: Vec<_> = l.targets.iter().map(|t| t.canonical.as_str()).collect();
        assert_eq!(canon, ["intel_gpu_pvc", "spir64"]);
        assert_eq!(l.invalid.len(), 1);
        assert_eq!(l.invalid[0].range, TextRange::new(32, 35));
        let l = parse_target_list("", builtin());
        assert!(l.implicit);
        assert_eq!(l.targets[0].canonical, "spir64");
        let l = parse_target_list("spir64,", builtin());
        assert_eq!(l.invalid[0].input, "");
    }

    #[test]
    fn table_entries_are_valid_targets() {
        let t = resolve("intel_cpu_spr", builtin()).unwrap();
        assert_eq!(t.kind, TargetKind::Configured);
        assert_eq!(
            t.macro_name.as_deref(),
            Some("__SYCL_TARGET_INTEL_CPU_SPR__")
        );
        let t = resolve("x86_64", builtin()).unwrap();
        assert_eq!(t.macro_name, None);
    }

    #[test]
    fn names_are_case_sensitive() {
        assert!(resolve("Intel_gpu_pvc", builtin()).is_err());
        assert!(resolve("SPIR64", builtin()).is_err());
    }
}

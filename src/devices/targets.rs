//! `-fsycl-targets` lists resolved: the driver's names (`names`), and names that only the
//! device table (built-in or user) knows.

use super::names::{device_macro, driver_names, TargetKind};
use super::table::DeviceTable;
use crate::text::TextRange;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedTarget {
    pub input: String,
    pub canonical: String,
    pub kind: TargetKind,
    pub macro_name: Option<String>,
    /// The device-table entry this target reads, if the table has it.
    pub entry: Option<String>,
    /// The entry the driver reads for the aspect-trait macros, if the table has it: `entry`,
    /// but for a device that ocloc's `-device` names (`spir64_gen:dg1`), which the driver
    /// never reads: it looks the plain `spir64_gen` toolchain up by its triple.
    pub traits_entry: Option<String>,
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

/// Names close to `input`; none when a config file had an entry of that name that it
/// dropped (the message says so: the user meant that entry, not a name like it).
fn suggestions_for(input: &str, table: &DeviceTable) -> Vec<String> {
    if table.dropped(input).is_some() {
        return Vec::new();
    }
    let candidates = driver_names()
        .all_spellings()
        .chain(table.iter().map(|(n, _)| n));
    crate::diagnostics::suggest(input, candidates, 3)
}

/// The prefix of a device bound by ocloc's `-device` to the generic `spir64_gen` target
/// (`spir64_gen:acm_g10`): sycl-analyzer's spelling of `-fsycl-targets=spir64_gen
/// -Xsycl-target-backend "-device acm_g10"`, which the driver compiles as the plain
/// `spir64_gen` toolchain handing `-device` to ocloc.
pub const DEVICE_BOUND_PREFIX: &str = "spir64_gen:";

/// Names ocloc takes for devices the driver itself passes to it under another name
/// (`SYCLToolChain::AddImpliedTargetArgs`, clang/lib/Driver/ToolChains/SYCL.cpp @ intel/llvm
/// 002199f: `intel_gpu_pvc_vg` is `-device pvc_xt_c0_vg`, `intel_gpu_mtl_h` is `-device mtl_p`,
/// `intel_gpu_arl_h` is `-device xe_lpgplus_b0`; `mtl_s` is an alias already).
const OCLOC_NAMES: [(&str, &str); 3] = [
    ("pvc_xt_c0_vg", "intel_gpu_pvc_vg"),
    ("mtl_p", "intel_gpu_mtl_h"),
    ("xe_lpgplus_b0", "intel_gpu_arl_h"),
];

/// A device name as ocloc compares it: lower case, a `_core` suffix dropped, without `_`
/// (compute-runtime `ProductConfigHelper::adjustDeviceName`) nor `-` (acronyms are matched
/// `isEqualWithoutSeparator('-')`, `findAcronymWithoutDash`): `acm-g10`, `ACM_G10` and `acmg10`
/// are one device.
fn ocloc_key(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let cut = lower.find("_core").map_or(lower.as_str(), |i| &lower[..i]);
    cut.chars().filter(|c| *c != '_' && *c != '-').collect()
}

/// The Intel GPU of the driver's tables an ocloc `-device` name stands for, as its canonical
/// `intel_gpu_*` name, or `None` when it names none of them: a release or family name
/// (`xe-hpg`, `gen12lp`), a PCI device id (`0x56a0`), a range (`dg1:pvc`), a device the tables
/// do not have. DPC++'s driver never reads the name (it passes `-device` to ocloc as given, and
/// the `spir64_gen` compile gets no `__SYCL_TARGET_*__` macro: `sycl-oneapi-gpu-intelgpu.cpp`
/// CHECK_TOOLS_MIX); sycl-analyzer binds the device to check kernels against it. The name
/// matches, the way ocloc compares names, a canonical name or alias without its `intel_gpu_`
/// prefix (`acm-g10`, `dg2_g10`, `tgl`, `dg2`), a name the driver gives ocloc (`mtl_p`), or an
/// IP version that is an alias (`12.55.8`).
pub fn ocloc_device(name: &str) -> Option<&'static str> {
    let names = driver_names();
    let dotted: Vec<&str> = name.split('.').collect();
    if dotted.len() == 3
        && dotted
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        let alias = format!("intel_gpu_{}", dotted.join("_"));
        return names.canonical_of_alias(&alias);
    }
    let key = ocloc_key(name);
    if key.is_empty() || key.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let suffix = |n: &str| ocloc_key(n.strip_prefix("intel_gpu_").unwrap_or(n));
    names
        .intel_gpu_names()
        .find_map(|(canonical, aliases)| {
            (suffix(canonical) == key || aliases.iter().any(|a| suffix(a) == key))
                .then_some(canonical)
        })
        .or_else(|| {
            OCLOC_NAMES
                .iter()
                .find(|(n, _)| ocloc_key(n) == key)
                .and_then(|(_, c)| names.kind_of(c).map(|_| *c))
        })
}

/// Like [`resolve`], without looking for suggestions (the costly part of an invalid name).
pub(super) fn resolve_unsuggested(
    input: &str,
    table: &DeviceTable,
) -> Result<ResolvedTarget, InvalidTarget> {
    let names = driver_names();
    let known = |e: Option<&str>| e.filter(|e| table.get(e).is_some()).map(str::to_string);
    let with_entry = |canonical: &str, kind, macro_name, entry: Option<&str>| ResolvedTarget {
        input: input.to_string(),
        canonical: canonical.to_string(),
        kind,
        macro_name,
        entry: known(entry),
        traits_entry: known(entry),
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
    let generic = |name: &str| {
        let g = names.generic(name).expect("generic name exists");
        match &g.default {
            // The driver binds its default architecture (the bound arch gives the macro, the
            // entry and the trait macros); a user entry under the triple's own name wins.
            Some(device) => {
                let entry = if table.get(name).is_some() {
                    name
                } else {
                    device
                };
                with_entry(name, TargetKind::Generic, device_macro(device), Some(entry))
            }
            // A bare triple has no entry upstream, but a user may give it one under its own
            // name.
            None => with_entry(
                name,
                TargetKind::Generic,
                g.macro_name.clone(),
                g.entry.as_deref().or(Some(name)),
            ),
        }
    };
    if let Some(name) = names
        .generic(input)
        .map(|_| input)
        .or_else(|| names.generic_of_triple(input))
    {
        return Ok(generic(name));
    }
    if let Some((gen, device)) = input.split_once(':') {
        let bound = resolve_unsuggested(gen, table)
            .ok()
            .filter(|g| g.canonical == "spir64_gen")
            .and_then(|g| Some((g, ocloc_device(device)?)));
        if let Some((g, device)) = bound {
            let short = device.strip_prefix("intel_gpu_").unwrap_or(device);
            return Ok(ResolvedTarget {
                input: input.to_string(),
                canonical: format!("{DEVICE_BOUND_PREFIX}{short}"),
                kind: TargetKind::Generic,
                macro_name: None,
                entry: known(Some(device)),
                traits_entry: g.traits_entry,
            });
        }
    }
    if table.get(input).is_some() {
        return Ok(with_entry(
            input,
            TargetKind::Configured,
            device_macro(input),
            Some(input),
        ));
    }
    if let Some(name) = names.generic_of_arch(input) {
        return Ok(generic(name));
    }
    let mut message = format!("SYCL target is invalid: '{input}'");
    if let Some(d) = table.dropped(input) {
        message.push_str(&format!(
            ": the entry '{input}' of {}:{} was dropped for its errors (reported on that file)",
            d.file, d.line
        ));
    }
    Err(InvalidTarget {
        input: input.to_string(),
        range: TextRange::new(0, input.len()),
        message,
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
    fn a_name_whose_entry_was_dropped_says_so_instead_of_suggesting() {
        let cfg = crate::devices::config::load(
            std::sync::Arc::from("dev.yaml"),
            "intel_gpu_aml_x:\n  aspects: [fp46]\n",
        );
        let table = DeviceTable::with_overlays([&cfg]);
        let e = resolve("intel_gpu_aml_x", &table).unwrap_err();
        assert_eq!(
            e.message,
            "SYCL target is invalid: 'intel_gpu_aml_x': the entry 'intel_gpu_aml_x' of \
             dev.yaml:1 was dropped for its errors (reported on that file)"
        );
        assert!(e.suggestions.is_empty());
        let e = resolve("intel_gpu_aml_y", &table).unwrap_err();
        assert!(!e.suggestions.is_empty());
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
        // Any triple of a generic target's architecture, as the driver's isValidSYCLTriple
        // accepts it (Driver.cpp); a bare `nvptx64` too (Driver::MakeSYCLDeviceTriple).
        for (input, canonical) in [
            ("nvptx64", "nvptx64-nvidia-cuda"),
            ("nvptx64-unknown-unknown", "nvptx64-nvidia-cuda"),
            ("amdgcn", "amdgcn-amd-amdhsa"),
            ("spir64-nvidia-cuda", "spir64"),
        ] {
            let t = resolve(input, builtin()).unwrap();
            assert_eq!(t.canonical, canonical, "{input}");
            assert_eq!(t.input, input);
        }
        assert!(resolve("nvptx", builtin()).is_err());
        assert!(resolve("x86_64-unknown-linux-gnu", builtin()).is_err());
    }

    /// A bare `nvptx64-nvidia-cuda` is compiled for the driver's default architecture: the
    /// device compile is bound to it (`sycl-offload-nvptx.cpp`: `(device-sycl, sm_75)`), so
    /// its `__SYCL_TARGET_*__` macro (Clang.cpp `addTargetMacros`, from the bound arch) and its
    /// entry (`populateSYCLDeviceTraitsMacrosArgs`) are sm_75's.
    #[test]
    fn a_bare_nvptx64_triple_binds_the_default_architecture() {
        for input in ["nvptx64-nvidia-cuda", "nvptx64"] {
            let t = resolve(input, builtin()).unwrap();
            assert_eq!(t.canonical, "nvptx64-nvidia-cuda");
            assert_eq!(
                t.macro_name.as_deref(),
                Some("__SYCL_TARGET_NVIDIA_GPU_SM_75__")
            );
            assert_eq!(t.entry.as_deref(), Some("nvidia_gpu_sm_75"));
            assert_eq!(t.traits_entry.as_deref(), Some("nvidia_gpu_sm_75"));
        }
        // Not the architecture given to the backend: that is another target.
        let l = parse_target_list("nvptx64-nvidia-cuda,nvidia_gpu_sm_80", builtin());
        assert_eq!(l.targets.len(), 2);
    }

    /// `spir64_gen:DEVICE`: the spir64_gen compile handing `-device DEVICE` to ocloc. The
    /// device's entry is checked, but the driver gives that compile no `__SYCL_TARGET_*__`
    /// macro (`sycl-oneapi-gpu-intelgpu.cpp` CHECK_TOOLS_MIX) and reads the `spir64_gen`
    /// entry for the trait macros.
    #[test]
    fn a_device_bound_by_ocloc_name() {
        for input in [
            "spir64_gen:acm-g10",
            "spir64_gen:acm_g10",
            "spir64_gen:dg2_g10",
            "spir64_gen:12.55.8",
            "spir64_gen-unknown-unknown:ACM-G10",
        ] {
            let t = resolve(input, builtin()).unwrap();
            assert_eq!(t.canonical, "spir64_gen:acm_g10", "{input}");
            assert_eq!(t.macro_name, None);
            assert_eq!(t.entry.as_deref(), Some("intel_gpu_acm_g10"));
            assert_eq!(t.traits_entry.as_deref(), Some("spir64_gen"));
        }
        let l = parse_target_list("spir64_gen:dg1,spir64_gen:12.10.0,intel_gpu_dg1", builtin());
        let canon: Vec<_> = l.targets.iter().map(|t| t.canonical.as_str()).collect();
        assert_eq!(canon, ["spir64_gen:dg1", "intel_gpu_dg1"]);
        for bad in [
            "spir64_gen:xe-hpg",
            "spir64:dg1",
            "intel_gpu_dg1:dg1",
            "spir64_gen:",
        ] {
            let e = resolve(bad, builtin()).unwrap_err();
            assert_eq!(e.message, format!("SYCL target is invalid: '{bad}'"));
        }
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

//! Every target `-fsycl-targets` takes, as `targets` lists them (intel/llvm#1191: "is there a
//! way to list all supported targets?"): the device table's entries, then the driver's names
//! that have none, each with its spellings, how its device code is compiled and the
//! device-config entry it reads.
//!
//! A driver name without an entry is valid, and DPC++ treats it as it treats any target missing
//! from DeviceConfigFile.td: `sycl-post-link` keeps every kernel in its image
//! (`isTargetCompatibleWithModule`, llvm/lib/SYCLPostLink/Utils.cpp @ intel/llvm 5f6a047ffb1a:
//! "unrecognized targets have no filtering applied to them"). For the trait macros it
//! guarantees no aspect and its devices may have any (the design's rule, `macros`; DPC++'s
//! driver leaves it out of the count instead, protocol.md says where that differs).

use super::aspects::AspectSet;
use super::config::{auto_detect_aot, TargetInfo};
use super::names::{driver_names, TargetKind};
use super::table::DeviceTable;
use super::targets::resolve;

/// How the driver compiles a target's device code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compile {
    /// SPIR-V, compiled for the device when the program runs.
    Jit,
    /// Compiled at build time by `toolchain`; `options` are those the driver gives it, if it
    /// gives any of its own (`spir64_gen` takes the device from `-Xsycl-target-backend`).
    Aot {
        toolchain: String,
        options: Option<String>,
    },
    /// A name only a device-config entry makes valid, whose entry names no toolchain.
    Unknown,
}

impl Compile {
    pub fn is_aot(&self) -> Option<bool> {
        match self {
            Compile::Jit => Some(false),
            Compile::Aot { .. } => Some(true),
            Compile::Unknown => None,
        }
    }

    /// `ocloc -device pvc`, `JIT`, `-`.
    pub fn describe(&self) -> String {
        match self {
            Compile::Jit => "JIT".into(),
            Compile::Aot {
                toolchain,
                options: Some(o),
            } => format!("{toolchain} {o}"),
            Compile::Aot { toolchain, .. } => toolchain.clone(),
            Compile::Unknown => "-".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// The canonical name.
    pub name: String,
    pub kind: TargetKind,
    /// The canonical name, its aliases, then the full triples a generic target is spelled as.
    pub spellings: Vec<String>,
    pub macro_name: Option<String>,
    /// The device-config entry the target reads, if the table has it (`nvptx64-nvidia-cuda`
    /// reads its default device's, `nvidia_gpu_sm_75`).
    pub entry: Option<String>,
    /// The driver knows the name by itself; else only a device-config entry makes it valid.
    pub in_driver: bool,
    pub compile: Compile,
}

impl Listed {
    pub fn info<'t>(&self, table: &'t DeviceTable) -> Option<&'t TargetInfo> {
        self.entry.as_deref().and_then(|e| table.get(e))
    }

    /// Of `notable`, the aspects the target does not guarantee: all of them without an entry.
    /// For a target whose devices may have other aspects, a device may still have one.
    pub fn lacks(&self, table: &DeviceTable, notable: AspectSet) -> AspectSet {
        notable.difference(self.info(table).map_or(AspectSet::EMPTY, |i| i.aspects))
    }
}

/// The table's targets in table order, then the driver's names that have no entry of their
/// own, in `targets.yaml`'s order.
pub fn catalogue(table: &DeviceTable) -> Vec<Listed> {
    let names = driver_names();
    let table_names = table.iter().map(|(n, _)| n);
    let driver_only = names.canonical_names().filter(|n| table.get(n).is_none());
    table_names
        .chain(driver_only)
        .filter_map(|name| listed(name, table))
        .collect()
}

fn listed(name: &str, table: &DeviceTable) -> Option<Listed> {
    let names = driver_names();
    let resolved = resolve(name, table).ok()?;
    let in_driver = resolved.kind != TargetKind::Configured;
    let mut spellings = vec![name.to_string()];
    spellings.extend(names.aliases(name).iter().cloned());
    spellings.extend(names.triples_of(name));
    let info = resolved.entry.as_deref().and_then(|e| table.get(e));
    let compile = compile(name, resolved.kind, info, table);
    Some(Listed {
        name: name.to_string(),
        kind: resolved.kind,
        spellings,
        macro_name: resolved.macro_name,
        entry: resolved.entry,
        in_driver,
        compile,
    })
}

/// An entry's own toolchain wins; else what the driver runs for the name's family.
fn compile(
    name: &str,
    kind: TargetKind,
    info: Option<&TargetInfo>,
    table: &DeviceTable,
) -> Compile {
    if let Some(toolchain) = info.and_then(|i| i.aot_toolchain.clone()) {
        let options = info.and_then(|i| i.aot_toolchain_options.clone());
        return Compile::Aot { toolchain, options };
    }
    let arch = |prefix: &str| name.strip_prefix(prefix).unwrap_or(name).to_string();
    match kind {
        // The driver hands ocloc `-device <arch>` whether or not the table has an entry.
        TargetKind::IntelGpu => {
            let (toolchain, options) = auto_detect_aot(name);
            Compile::Aot {
                toolchain: toolchain.unwrap_or_else(|| "ocloc".into()),
                options,
            }
        }
        TargetKind::NvidiaGpu => Compile::Aot {
            toolchain: "ptxas".into(),
            options: Some(format!("--gpu-name {}", arch("nvidia_gpu_"))),
        },
        TargetKind::AmdGpu => Compile::Aot {
            toolchain: "amdgcn".into(),
            options: Some(format!("--offload-arch={}", arch("amd_gpu_"))),
        },
        TargetKind::Generic => {
            let generic = driver_names().generic(name);
            match (
                generic.and_then(|g| g.default.as_deref()),
                generic.and_then(|g| g.aot.clone()),
            ) {
                (Some(device), _) => listed(device, table).map_or(Compile::Unknown, |d| d.compile),
                (None, Some(toolchain)) => Compile::Aot {
                    toolchain,
                    options: None,
                },
                (None, None) => Compile::Jit,
            }
        }
        TargetKind::Configured => Compile::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::aspects::registry;
    use crate::devices::config;
    use std::sync::Arc;

    fn find<'a>(list: &'a [Listed], name: &str) -> &'a Listed {
        list.iter().find(|l| l.name == name).unwrap()
    }

    #[test]
    fn lists_every_table_entry_then_the_driver_names_without_one() {
        let table = DeviceTable::builtin();
        let list = catalogue(table);
        let names: Vec<&str> = list.iter().map(|l| l.name.as_str()).collect();
        let table_names: Vec<&str> = table.iter().map(|(n, _)| n).collect();
        assert_eq!(&names[..table.len()], &table_names[..]);
        assert_eq!(
            &names[table.len()..],
            ["spirv64", "nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa"]
        );
        // Every spelling the driver takes by itself is listed once.
        let mut spelled: Vec<&str> = list
            .iter()
            .flat_map(|l| l.spellings.iter().map(String::as_str))
            .filter(|s| !s.contains("-unknown-"))
            .filter(|s| driver_names().all_spellings().any(|d| d == *s))
            .collect();
        let total = spelled.len();
        spelled.sort();
        spelled.dedup();
        assert_eq!(spelled.len(), total);
        assert_eq!(total, driver_names().all_spellings().count());
    }

    #[test]
    fn spellings_compile_and_entries() {
        let list = catalogue(DeviceTable::builtin());
        let mtl = find(&list, "intel_gpu_mtl_u");
        assert_eq!(
            mtl.spellings,
            [
                "intel_gpu_mtl_u",
                "intel_gpu_mtl_s",
                "intel_gpu_arl_u",
                "intel_gpu_arl_s",
                "intel_gpu_12_70_4"
            ]
        );
        assert_eq!(mtl.compile.describe(), "ocloc -device mtl_u");
        let gen = find(&list, "spir64_gen");
        assert_eq!(gen.spellings, ["spir64_gen", "spir64_gen-unknown-unknown"]);
        assert_eq!(gen.compile.describe(), "ocloc");
        assert_eq!(find(&list, "spir64").compile, Compile::Jit);
        assert_eq!(find(&list, "spirv64").compile, Compile::Jit);
        assert_eq!(
            find(&list, "spir64_x86_64").compile.describe(),
            "opencl-aot"
        );
        assert_eq!(
            find(&list, "nvidia_gpu_sm_90a").compile.describe(),
            "ptxas --gpu-name sm_90a"
        );
        let cuda = find(&list, "nvptx64-nvidia-cuda");
        assert_eq!(cuda.entry.as_deref(), Some("nvidia_gpu_sm_75"));
        assert_eq!(cuda.compile.describe(), "ptxas --gpu-name sm_75");
        assert_eq!(
            find(&list, "amd_gpu_gfx90a").compile.describe(),
            "amdgcn --offload-arch=gfx90a"
        );
        let spr = find(&list, "intel_cpu_spr");
        assert!(!spr.in_driver);
        assert_eq!(spr.compile.is_aot(), None);
        let amd = find(&list, "amdgcn-amd-amdhsa");
        assert!(amd.in_driver);
        assert_eq!(amd.entry, None);
    }

    #[test]
    fn lacks_is_the_notable_aspects_the_entry_does_not_list() {
        let reg = registry();
        let mut notable = AspectSet::EMPTY;
        for a in ["fp16", "fp64", "atomic64"] {
            notable.insert(reg.by_name(a).unwrap());
        }
        let table = DeviceTable::builtin();
        let list = catalogue(table);
        let lacks = |n: &str| reg.sorted_names(find(&list, n).lacks(table, notable));
        assert!(lacks("intel_gpu_pvc").is_empty());
        assert_eq!(lacks("intel_gpu_dg1"), ["fp64"]);
        // No entry: nothing is guaranteed.
        assert_eq!(lacks("spirv64"), ["atomic64", "fp16", "fp64"]);
    }

    /// A driver name the table has no entry for (the names of a newer DPC++ than its device
    /// table) is valid, compiled as the driver compiles it, and listed after the table.
    #[test]
    fn a_driver_name_without_an_entry_is_listed_as_the_driver_compiles_it() {
        let cfg = config::load(Arc::from("u.yaml"), "my_accel:\n  aspects: [accelerator]\n");
        let mut table = DeviceTable::with_overlays([&cfg]);
        table.remove("intel_gpu_cri");
        let list = catalogue(&table);
        let tail: Vec<&str> = list[list.len() - 4..]
            .iter()
            .map(|l| l.name.as_str())
            .collect();
        assert_eq!(
            tail,
            [
                "intel_gpu_cri",
                "spirv64",
                "nvptx64-nvidia-cuda",
                "amdgcn-amd-amdhsa"
            ]
        );
        let cri = find(&list, "intel_gpu_cri");
        assert_eq!(cri.entry, None);
        assert!(cri.in_driver);
        assert_eq!(cri.compile.describe(), "ocloc -device cri");
        assert_eq!(cri.spellings, ["intel_gpu_cri", "intel_gpu_35_11_0"]);
        let mine = find(&list, "my_accel");
        assert!(!mine.in_driver);
        assert_eq!(mine.kind, TargetKind::Configured);
    }
}

//! The embedded data checked against the DPC++ reference files (tests/reference, copied from
//! the project's shared/reference): aspects, the default device table, target names, and the
//! worked examples of targets.md §3a and §5.

use std::collections::BTreeSet;
use std::path::Path;

use sycl_analyzer::devices::yaml::{self, Node, Value};
use sycl_analyzer::devices::{
    parse_target_list, predefined_macros, registry, resolve, trait_sets, DeviceTable,
};

fn reference(name: &str) -> String {
    let vendored = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference")
        .join(name);
    let text = std::fs::read_to_string(&vendored).unwrap();
    // When the shared reference sits beside the checkout, the vendored copy must not drift.
    let shared = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/reference")
        .join(name);
    if let Ok(upstream) = std::fs::read_to_string(shared) {
        assert_eq!(
            text, upstream,
            "tests/reference/{name} differs from shared/reference"
        );
    }
    text
}

fn field<'a>(node: &'a Node, name: &str) -> Option<&'a Node> {
    match &node.value {
        Value::Map(pairs) => pairs
            .iter()
            .find(|(k, _)| k.as_str() == Some(name))
            .map(|(_, v)| v),
        _ => None,
    }
}

fn seq(node: &Node) -> &[Node] {
    match &node.value {
        Value::Seq(items) => items,
        other => panic!("expected a list, found {other:?}"),
    }
}

fn int(node: &Node) -> i64 {
    match node.value {
        Value::Int(i) => i,
        ref other => panic!("expected an integer, found {other:?}"),
    }
}

fn names(nodes: &[Node]) -> BTreeSet<String> {
    nodes
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn aspect_registry_matches_reference() {
    let text = reference("aspects.yaml");
    let root = yaml::parse(&text).unwrap().remove(0);
    let reg = registry();
    let mut seen = 0;
    for (section, deprecated) in [("aspects", false), ("deprecated_aspects", true)] {
        for a in seq(field(&root, section).unwrap()) {
            let name = field(a, "name").unwrap().as_str().unwrap();
            let id = reg
                .by_name(name)
                .unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(reg.get(id).value, int(field(a, "value").unwrap()), "{name}");
            assert_eq!(reg.get(id).deprecated.is_some(), deprecated, "{name}");
            seen += 1;
        }
    }
    assert_eq!(seen, reg.len());
    let counts = field(&root, "counts").unwrap();
    assert_eq!(
        reg.current().len() as i64,
        int(field(counts, "non_deprecated").unwrap())
    );
    assert_eq!(
        (reg.len() - reg.current().len()) as i64,
        int(field(counts, "deprecated").unwrap())
    );
}

#[test]
fn default_table_matches_reference_target_by_target() {
    let text = reference("device-config.yaml");
    let root = yaml::parse(&text).unwrap().remove(0);
    let targets = seq(field(&root, "targets").unwrap());
    let table = DeviceTable::builtin();
    assert_eq!(targets.len(), 101);
    assert_eq!(table.len(), targets.len());
    let reg = registry();
    for t in targets {
        let name = field(t, "name").unwrap().as_str().unwrap();
        let info = table.get(name).unwrap_or_else(|| panic!("{name} missing"));
        let expected = names(seq(field(t, "aspects").unwrap()));
        let actual: BTreeSet<String> = info
            .aspects
            .iter()
            .map(|id| reg.name(id).to_string())
            .collect();
        assert_eq!(actual, expected, "aspects of {name}");
        assert_eq!(
            Some(info.may_support_other_aspects),
            match field(t, "may_support_other_aspects").unwrap().value {
                Value::Bool(b) => Some(b),
                _ => None,
            },
            "flag of {name}"
        );
        let sg: Vec<i64> = seq(field(t, "sub_group_sizes").unwrap())
            .iter()
            .map(int)
            .collect();
        let actual_sg: Vec<i64> = info.sub_group_sizes.iter().map(|&s| s as i64).collect();
        assert_eq!(actual_sg, sg, "sub-group sizes of {name}");
    }
}

/// Rows of the §1a table: (canonical, aliases, macro).
fn intel_rows(md: &str) -> Vec<(String, Vec<String>, String)> {
    let section = md.split("### 1a.").nth(1).unwrap();
    let section = section.split("Older-version").next().unwrap();
    section
        .lines()
        .filter(|l| l.starts_with("| `intel_gpu_"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let ticks = |c: &str| -> Vec<String> {
                c.split('`')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_string)
                    .collect()
            };
            (
                ticks(cells[1]).remove(0),
                ticks(cells[2]),
                ticks(cells[4]).remove(0),
            )
        })
        .collect()
}

#[test]
fn every_intel_spelling_resolves_to_its_reference_macro() {
    let md = reference("targets.md");
    let rows = intel_rows(&md);
    assert_eq!(rows.len(), 39);
    assert_eq!(rows.iter().map(|r| r.1.len()).sum::<usize>(), 49);
    let table = DeviceTable::builtin();
    for (canonical, aliases, macro_name) in rows {
        for input in std::iter::once(&canonical).chain(&aliases) {
            let t = resolve(input, table).unwrap();
            assert_eq!(t.canonical, canonical, "{input}");
            assert_eq!(
                t.macro_name.as_deref(),
                Some(macro_name.as_str()),
                "{input}"
            );
            assert!(t.entry.is_some(), "{input} has a device-table entry");
            let info = table.get(&canonical).unwrap();
            let device = canonical.strip_prefix("intel_gpu_").unwrap();
            assert_eq!(
                info.aot_toolchain_options.as_deref(),
                Some(format!("-device {device}").as_str())
            );
        }
    }
}

#[test]
fn nvidia_and_amd_names_of_the_reference_are_valid() {
    let md = reference("targets.md");
    let section = md.split("### 1b.").nth(1).unwrap();
    let sms = section
        .split("`nvidia_gpu_<sm>` for sm in: ")
        .nth(1)
        .unwrap()
        .split('.')
        .next()
        .unwrap();
    let sms: Vec<&str> = sms.split(',').map(str::trim).collect();
    assert_eq!(sms.len(), 15);
    let gfx = section
        .split("`amd_gpu_<gfx>` for gfx in: ")
        .nth(1)
        .unwrap()
        .split(". Bound")
        .next()
        .unwrap();
    let gfx: Vec<String> = gfx
        .split(',')
        .map(|s| {
            let s = s.trim();
            if s.starts_with("gfx") {
                s.to_string()
            } else {
                format!("gfx{s}")
            }
        })
        .collect();
    assert_eq!(gfx.len(), 41);
    let table = DeviceTable::builtin();
    for sm in sms {
        let name = format!("nvidia_gpu_{sm}");
        let t = resolve(&name, table).unwrap();
        let expected = format!("__SYCL_TARGET_NVIDIA_GPU_{}__", sm.to_ascii_uppercase());
        assert_eq!(t.macro_name.as_deref(), Some(expected.as_str()));
        assert!(t.entry.is_some(), "{name}");
    }
    for g in gfx {
        let name = format!("amd_gpu_{g}");
        let t = resolve(&name, table).unwrap();
        let expected = format!("__SYCL_TARGET_AMD_GPU_{}__", g.to_ascii_uppercase());
        assert_eq!(t.macro_name.as_deref(), Some(expected.as_str()));
        assert!(t.entry.is_some(), "{name}");
    }
}

struct Expect {
    list: &'static str,
    any_aspect: bool,
    any: Option<&'static [&'static str]>,
    all: &'static [&'static str],
}

const PVC: &[&str] = &[
    "atomic64",
    "ext_intel_esimd",
    "ext_oneapi_chunk",
    "ext_oneapi_fragment",
    "ext_oneapi_tangle",
    "fp16",
    "fp64",
];

/// targets.md §3a, under the seed's semantics (the two rows where the driver differs are
/// marked; protocol.md explains them).
#[test]
fn worked_examples_of_section_3a() {
    let cases = [
        Expect {
            list: "",
            any_aspect: true,
            any: Some(&[]),
            all: &[],
        },
        Expect {
            list: "spir64,spir64_gen",
            any_aspect: true,
            any: Some(&[]),
            all: &[],
        },
        Expect {
            list: "spir64_gen",
            any_aspect: true,
            any: Some(&[]),
            all: &[],
        },
        Expect {
            list: "intel_gpu_pvc",
            any_aspect: false,
            any: Some(PVC),
            all: PVC,
        },
        Expect {
            list: "spir64,intel_gpu_pvc",
            any_aspect: true,
            any: Some(&[]),
            all: &[],
        },
        Expect {
            list: "amd_gpu_gfx1200",
            any_aspect: false,
            any: Some(&[]),
            all: &[],
        },
        Expect {
            list: "intel_gpu_pvc,amd_gpu_gfx906",
            any_aspect: false,
            any: None,
            all: &["fp16", "fp64"],
        },
    ];
    let table = DeviceTable::builtin();
    let reg = registry();
    for c in cases {
        let l = parse_target_list(c.list, table);
        assert!(l.invalid.is_empty(), "{}", c.list);
        let macros: Vec<String> = predefined_macros(&l.targets, table)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        let block = |prefix: &str| -> Vec<String> {
            macros
                .iter()
                .filter_map(|m| {
                    m.strip_prefix(prefix)?
                        .strip_suffix("__")
                        .map(str::to_string)
                })
                .filter(|m| m != "ANY_ASPECT")
                .collect()
        };
        assert_eq!(
            macros.contains(&"__SYCL_ANY_DEVICE_HAS_ANY_ASPECT__".to_string()),
            c.any_aspect,
            "{}",
            c.list
        );
        if let Some(any) = c.any {
            assert_eq!(block("__SYCL_ANY_DEVICE_HAS_"), any, "{}", c.list);
        }
        assert_eq!(block("__SYCL_ALL_DEVICES_HAVE_"), c.all, "{}", c.list);
        let sets = trait_sets(&l.targets, table);
        for (id, a) in reg.iter() {
            assert_eq!(sets.all_devices_have(id), c.all.contains(&a.name.as_str()));
        }
    }

    // A bare nvptx64-nvidia-cuda is compiled for the driver's default architecture, sm_75
    // (sm_50 before intel/llvm PR #20824; sycl-offload-nvptx.cpp), and has its macros
    // (sycl-device-traits-macros-nvptx.cpp, CHECK-SYCL-NVPTX-NVIDIA-CUDA-DEFAULT-TRIPLE).
    let of = |list: &str| predefined_macros(&parse_target_list(list, table).targets, table);
    assert_eq!(of("nvptx64-nvidia-cuda"), of("nvidia_gpu_sm_75"));

    // pvc + gfx906: ANY is the union of both lists (7 + 16, two shared).
    let l = parse_target_list("intel_gpu_pvc,amd_gpu_gfx906", table);
    let sets = trait_sets(&l.targets, table);
    let gfx906 = table.get("amd_gpu_gfx906").unwrap().aspects;
    assert_eq!(gfx906.len(), 16);
    assert_eq!(sets.any.len(), 7 + 16 - 2);
    let fp64 = reg.by_name("fp64").unwrap();
    let esimd = reg.by_name("ext_intel_esimd").unwrap();
    assert!(sets.any_device_has(esimd) && !sets.all_devices_have(esimd));
    assert!(sets.all_devices_have(fp64));
}

#[test]
fn every_cuda_target_gives_any_aspect_and_its_unique_list_as_all() {
    let table = DeviceTable::builtin();
    let reg = registry();
    for (name, info) in table.iter().filter(|(n, _)| n.starts_with("nvidia_gpu_")) {
        let l = parse_target_list(name, table);
        let sets = trait_sets(&l.targets, table);
        assert!(sets.any_aspect, "{name}");
        assert_eq!(sets.all, info.aspects, "{name}");
        // Set semantics: the aspect the upstream list names twice is still guaranteed.
        let twice = reg
            .by_name("ext_oneapi_bindless_images_sample_2d_usm")
            .unwrap();
        assert!(sets.all_devices_have(twice), "{name}");
    }
}

#[test]
fn cpu_aot_target_guarantees_the_26_cpu_aspects() {
    let table = DeviceTable::builtin();
    let l = parse_target_list("spir64_x86_64", table);
    let sets = trait_sets(&l.targets, table);
    assert!(sets.any_aspect);
    assert_eq!(sets.all.len(), 26);
    let macros = predefined_macros(&l.targets, table);
    assert_eq!(macros[0].0, "__SYCL_TARGET_INTEL_X86_64__");
}

/// targets.md §5 "Concrete expected sets".
#[test]
fn concrete_sets_of_section_5() {
    let table = DeviceTable::builtin();
    for (input, macro_name, ocloc) in [
        (
            "intel_gpu_9_0_9",
            "__SYCL_TARGET_INTEL_GPU_SKL__",
            Some("-device skl"),
        ),
        (
            "intel_gpu_pvc_vg",
            "__SYCL_TARGET_INTEL_GPU_PVC_VG__",
            Some("-device pvc_vg"),
        ),
        (
            "intel_gpu_arl_s",
            "__SYCL_TARGET_INTEL_GPU_MTL_U__",
            Some("-device mtl_u"),
        ),
        (
            "nvidia_gpu_sm_90a",
            "__SYCL_TARGET_NVIDIA_GPU_SM_90A__",
            None,
        ),
        ("amd_gpu_gfx90a", "__SYCL_TARGET_AMD_GPU_GFX90A__", None),
        ("spir64_x86_64", "__SYCL_TARGET_INTEL_X86_64__", None),
    ] {
        let t = resolve(input, table).unwrap();
        assert_eq!(t.macro_name.as_deref(), Some(macro_name), "{input}");
        let info = table.get(t.entry.as_deref().unwrap()).unwrap();
        assert_eq!(info.aot_toolchain_options.as_deref(), ocloc, "{input}");
    }
    for input in [
        "spir64",
        "spir64_gen",
        "spir64_gen:dg1",
        "amdgcn-amd-amdhsa",
    ] {
        assert_eq!(resolve(input, table).unwrap().macro_name, None, "{input}");
    }
    assert_eq!(
        resolve("nvptx64-nvidia-cuda", table)
            .unwrap()
            .macro_name
            .as_deref(),
        Some("__SYCL_TARGET_NVIDIA_GPU_SM_75__")
    );
    let e = resolve("intel_gpu_bad", table).unwrap_err();
    assert_eq!(e.message, "SYCL target is invalid: 'intel_gpu_bad'");
}

/// `--version` and sources.yaml name the very files the reference was written from: the
/// aspect and device-table sources of aspects.yaml's `source:` block, the name table of
/// targets.md's source list.
#[test]
fn embedded_sources_are_those_of_the_reference() {
    use sycl_analyzer::devices::provenance;
    let text = reference("aspects.yaml");
    let root = &yaml::parse(&text).unwrap()[0];
    let source = field(root, "source").unwrap();
    let embedded = |data: &str| {
        provenance::embedded()
            .iter()
            .find(|s| s.data == data)
            .unwrap_or_else(|| panic!("sources.yaml has no {data}"))
    };
    for (data, key) in [
        ("aspects", "aspects_def"),
        ("aspects_deprecated", "aspects_deprecated_def"),
    ] {
        let r = field(source, key).unwrap();
        let s = embedded(data);
        for (name, value) in [("repo", &s.repo), ("commit", &s.commit), ("path", &s.path)] {
            assert_eq!(
                field(r, name).unwrap().as_str(),
                Some(value.as_str()),
                "{data} {name}"
            );
        }
    }
    // The device table names the intel/llvm commit whose DeviceConfigFile.td holds the targets
    // of the reference's fork copy (the fork adds only two aspect declarations); the tests
    // above hold the embedded table equal to the reference's.
    let table = embedded("device_table");
    let r = field(source, "device_config_td").unwrap();
    assert_eq!(table.repo, "intel/llvm");
    assert_eq!(table.commit, "250ca20b58e27e44c9a8f77a2f45f12398c3768e");
    assert_eq!(
        field(r, "path").unwrap().as_str(),
        Some(table.path.as_str())
    );
    let md = reference("targets.md");
    let row = md.lines().find(|l| l.starts_with("| newest name")).unwrap();
    let names = embedded("target_names");
    assert!(
        row.contains(&format!("{} @ `{}`", names.repo, names.commit)) && row.contains(&names.path),
        "{row}"
    );
}

/// `targets` lists each Intel GPU of §1a with its reference aliases, in order, as one row whose
/// device code ocloc compiles for its bound arch.
#[test]
fn the_listing_spells_every_reference_intel_name() {
    use sycl_analyzer::devices::catalogue::{catalogue, Compile};
    let rows = intel_rows(&reference("targets.md"));
    let table = DeviceTable::builtin();
    let list = catalogue(table);
    let intel: Vec<_> = list
        .iter()
        .filter(|l| l.kind == sycl_analyzer::devices::TargetKind::IntelGpu)
        .collect();
    assert_eq!(intel.len(), rows.len());
    for (canonical, aliases, macro_name) in rows {
        let l = intel.iter().find(|l| l.name == canonical).unwrap();
        let spelled: Vec<&String> = std::iter::once(&canonical).chain(&aliases).collect();
        assert_eq!(
            l.spellings.iter().collect::<Vec<_>>(),
            spelled,
            "{canonical}"
        );
        assert_eq!(l.macro_name.as_deref(), Some(macro_name.as_str()));
        assert!(l.in_driver && l.entry.as_deref() == Some(canonical.as_str()));
        let arch = canonical.strip_prefix("intel_gpu_").unwrap();
        assert_eq!(
            l.compile,
            Compile::Aot {
                toolchain: "ocloc".into(),
                options: Some(format!("-device {arch}"))
            }
        );
    }
}

//! AdaptiveCpp (formerly hipSYCL, Open SYCL): its targets specification
//! (`--acpp-targets="omp;cuda:sm_80;hip:gfx90a;generic"`) read as `acpp` reads it, the devices
//! it names, the compilation passes it makes and the macros each pass sees. Pure: the caller
//! hands in the arguments and, when it has one, the `ACPP_TARGETS` environment value.
//!
//! Every rule here is a fact of AdaptiveCpp's sources at [`SOURCE_COMMIT`] (`acpp` is
//! `bin/acpp`, a Python driver; the pass macros come from `include/hipSYCL/sycl/libkernel/`);
//! [`SOURCES`] lists them, and protocol.md repeats them.
//!
//! * The specification is `flow[:arch,arch...]` items separated by `;`; flow and archs are
//!   trimmed and lower-cased, quotes dropped (`acpp_config._parse_targets`). An empty item or
//!   an unknown flow is an error (`Unknown backend`); `cuda*` needs archs (`No CUDA targets
//!   specified`; `hip` too per `doc/using-hipsycl.md`), `omp*` and `generic` take none.
//! * `--hipsycl-*` / `--opensycl-*` options and `HIPSYCL_*` / `OPENSYCL_*` variables are the
//!   same as their `--acpp-*` / `ACPP_*` spellings (`_upgrade_legacy_arg`,
//!   `_upgrade_legacy_environ_var`); the command line wins over the environment.
//! * Some flows exclude each other (each backend's `get_host_pass_requirements` conflicts).
//! * Passes: `cuda`/`hip` compile with clang's CUDA/HIP language (`-x cuda`, `-x hip`), one
//!   host pass plus one device pass per arch; `omp` kernels are host code of the host pass;
//!   `generic` (SSCP) outlines kernels in the host pass itself, a unified host-device pass;
//!   `cuda-nvcxx` is one unified nvc++ pass. `__SYCL_DEVICE_ONLY__` is defined only in a
//!   device pass that is not unified, `__SYCL_SINGLE_SOURCE__` only in a unified one
//!   (`libkernel/backend.hpp`).
//! * Aspects: AdaptiveCpp has no `[[sycl::device_has]]` (no occurrence in its headers or
//!   compiler) and defines no `__SYCL_ANY_DEVICE_HAS_*` / `__SYCL_TARGET_*` macros; its
//!   `any_device_has<A>` is true for every aspect but `image`, `all_devices_have<A>` false
//!   for every aspect but `usm_device_allocations` and `usm_atomic_host_allocations`, whatever
//!   the targets (`include/hipSYCL/sycl/aspect.hpp`).

use super::predefined::{DeviceCompiles, Predefined, TargetClass, FROM_COMPILER, FROM_LIBC};
use super::table::DeviceTable;
use crate::diagnostics::suggest;

/// The AdaptiveCpp commit the rules were read from.
pub const SOURCE_COMMIT: &str = "49544a4828da7383ae481a3fc5c5e480c8a4f142";

/// Where each rule comes from: `AdaptiveCpp/AdaptiveCpp@SOURCE_COMMIT:path`.
pub const SOURCES: &[(&str, &str)] = &[
    (
        "bin/acpp",
        "target specification syntax (_parse_targets), legacy --hipsycl-/HIPSYCL_ spellings, flows and their -D flags, conflicts, required/forbidden archs",
    ),
    (
        "doc/using-hipsycl.md",
        "flows, abbreviations, which flows need or refuse archs, ACPP_TARGETS for acpp/env/CMake",
    ),
    ("doc/macros.md", "the documented macros and their meaning"),
    (
        "include/hipSYCL/sycl/libkernel/backend.hpp",
        "__SYCL_DEVICE_ONLY__ / SYCL_DEVICE_ONLY in non-unified device passes, __SYCL_SINGLE_SOURCE__ in unified ones",
    ),
    (
        "include/hipSYCL/sycl/libkernel/sscp/sscp_backend.hpp",
        "generic (SSCP) is a unified host-device pass, off in SMCP device passes",
    ),
    (
        "include/hipSYCL/sycl/libkernel/cuda/cuda_backend.hpp",
        "CUDA device pass from __CUDA_ARCH__; nvc++ is unified",
    ),
    (
        "include/hipSYCL/sycl/libkernel/hip/hip_backend.hpp",
        "HIP device pass from __HIP_DEVICE_COMPILE__",
    ),
    (
        "include/hipSYCL/sycl/libkernel/host/host_backend.hpp",
        "the host pass is a device pass for the host",
    ),
    (
        "include/hipSYCL/sycl/sycl.hpp",
        "SYCL_LANGUAGE_VERSION 202003, SYCL_IMPLEMENTATION_ACPP",
    ),
    (
        "include/hipSYCL/sycl/aspect.hpp",
        "any_device_has / all_devices_have fixed values",
    ),
    (
        "cmake/adaptivecpp-config.cmake.in",
        "ACPP_TARGETS (CMake variable or environment) becomes --acpp-targets=\"...\" on the acpp launch rule",
    ),
];

/// Which part of a compile a macro comes from (shown on hover).
const FROM_DRIVER: &str = "acpp (AdaptiveCpp's driver)";
const FROM_HEADERS: &str = "the AdaptiveCpp headers";

/// The SYCL implementation a project compiles with: which rules the checks follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Implementation {
    /// DPC++: `device_has` is checked, AOT images leave out kernels a target cannot run.
    #[default]
    Dpcpp,
    /// AdaptiveCpp: no `device_has` (the attribute is not read), every kernel is compiled for
    /// every target.
    AdaptiveCpp,
}

impl Implementation {
    /// Whether the compiler reads `[[sycl::device_has()]]` and the `device_has` property.
    pub fn reads_device_has(self) -> bool {
        self == Implementation::Dpcpp
    }
}

/// A compilation flow of `acpp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flow {
    /// `omp`, `omp.library-only`, `omp.accelerated`: kernels run on the host CPU.
    Omp,
    /// `cuda`, `cuda.integrated-multipass`, `cuda.explicit-multipass` (clang `-x cuda`).
    Cuda,
    /// `cuda-nvcxx`: one nvc++ pass for host and device.
    CudaNvcxx,
    /// `hip`, `hip.integrated-multipass`, `hip.explicit-multipass` (clang `-x hip`).
    Hip,
    /// `generic` (alias `sscp`): LLVM SSCP, JIT-compiled at run time for any device.
    Generic,
}

/// The flow names `acpp` accepts (`compiler.__init__`), with the flow each is.
const FLOWS: &[(&str, Flow)] = &[
    ("omp", Flow::Omp),
    ("omp.library-only", Flow::Omp),
    ("omp.accelerated", Flow::Omp),
    ("cuda", Flow::Cuda),
    ("cuda.integrated-multipass", Flow::Cuda),
    ("cuda.explicit-multipass", Flow::Cuda),
    ("cuda-nvcxx", Flow::CudaNvcxx),
    ("hip", Flow::Hip),
    ("hip.integrated-multipass", Flow::Hip),
    ("hip.explicit-multipass", Flow::Hip),
    ("generic", Flow::Generic),
    ("sscp", Flow::Generic),
];

/// Flow pairs `acpp` refuses together (`get_host_pass_requirements()['conflicts']`). The
/// abbreviations `cuda` + `hip` are no conflict: `acpp` then switches to explicit multipass.
const CONFLICTS: &[(&str, &str)] = &[
    ("cuda.integrated-multipass", "hip.integrated-multipass"),
    ("cuda.integrated-multipass", "cuda-nvcxx"),
    ("hip.integrated-multipass", "cuda-nvcxx"),
    ("omp.library-only", "omp.accelerated"),
    ("omp.accelerated", "cuda-nvcxx"),
    ("generic", "cuda-nvcxx"),
    ("sscp", "cuda-nvcxx"),
];

/// One device a specification names, as the device table knows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AcppTarget {
    /// As AdaptiveCpp spells it: `cuda:sm_80`, `hip:gfx90a`, `omp`, `generic`.
    pub spec: String,
    pub flow: Flow,
    /// The device-table target whose aspects the findings read: `nvidia_gpu_sm_80`,
    /// `amd_gpu_gfx90a`, `x86_64` (the host CPU) for `omp`, `spir64` (no concrete device,
    /// JIT for any) for `generic`.
    pub table_target: String,
}

/// A targets specification read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AcppTargets {
    /// The specification as given (after the legacy spellings were upgraded).
    pub spec: String,
    /// The flow names as written (lower-cased), in order, each once.
    pub flows: Vec<String>,
    pub targets: Vec<AcppTarget>,
}

/// A specification `acpp` would refuse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcppError {
    pub message: String,
    pub suggestions: Vec<String>,
}

impl AcppTargets {
    fn has(&self, flow: Flow) -> bool {
        self.targets.iter().any(|t| t.flow == flow)
    }

    /// The device-table names of the targets, each once, in order.
    pub fn table_targets(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in &self.targets {
            if !out.contains(&t.table_target) {
                out.push(t.table_target.clone());
            }
        }
        out
    }
}

/// The device-table target of an arch of a flow, or why there is none.
fn device(
    flow: Flow,
    flow_name: &str,
    arch: &str,
    table: &DeviceTable,
) -> Result<String, AcppError> {
    let (prefix, arch_for_table) = match flow {
        Flow::Cuda => ("nvidia_gpu_", arch.to_string()),
        // nvc++ names compute capabilities `ccXY` (`doc/using-hipsycl.md`).
        Flow::CudaNvcxx => (
            "nvidia_gpu_",
            arch.strip_prefix("cc")
                .map_or_else(|| arch.to_string(), |cc| format!("sm_{cc}")),
        ),
        Flow::Hip => ("amd_gpu_", arch.to_string()),
        Flow::Omp | Flow::Generic => unreachable!("flows without archs"),
    };
    let name = format!("{prefix}{arch_for_table}");
    if table.get(&name).is_some() {
        return Ok(name);
    }
    let known: Vec<String> = table
        .iter()
        .filter_map(|(n, _)| n.strip_prefix(prefix))
        .map(|a| match flow {
            Flow::CudaNvcxx => a.replacen("sm_", "cc", 1),
            _ => a.to_string(),
        })
        .collect();
    let what = match flow {
        Flow::Hip => "AMD GPU architecture",
        Flow::CudaNvcxx => "CUDA compute capability",
        _ => "CUDA GPU architecture",
    };
    Err(AcppError {
        message: if arch.is_empty() {
            format!("empty architecture in AdaptiveCpp target '{flow_name}:'")
        } else {
            format!("unknown {what} '{arch}' for AdaptiveCpp flow '{flow_name}'")
        },
        suggestions: suggest(arch, known.iter().map(String::as_str), 3),
    })
}

/// Reads a targets specification as `acpp_config._parse_targets` and the backends do.
pub fn parse_spec(spec: &str, table: &DeviceTable) -> Result<AcppTargets, Vec<AcppError>> {
    let cleaned = spec.replace(['\'', '"'], "");
    let mut out = AcppTargets {
        spec: cleaned.clone(),
        ..AcppTargets::default()
    };
    let mut errors = Vec::new();
    let mut archs: Vec<(String, Vec<String>)> = Vec::new();
    for item in cleaned.split(';') {
        let (flow, list) = match item.split_once(':') {
            Some((f, l)) => (f, Some(l)),
            None => (item, None),
        };
        let flow = flow.trim().to_lowercase();
        let entry = match archs.iter_mut().find(|(f, _)| *f == flow) {
            Some(e) => e,
            None => {
                archs.push((flow.clone(), Vec::new()));
                archs.last_mut().expect("just pushed")
            }
        };
        for a in list.into_iter().flat_map(|l| l.split(',')) {
            let a = a.trim().to_lowercase();
            if !entry.1.contains(&a) {
                entry.1.push(a);
            }
        }
    }
    for (name, list) in &archs {
        let Some(&(_, flow)) = FLOWS.iter().find(|(n, _)| n == name) else {
            let message = if name.is_empty() {
                "empty AdaptiveCpp target: an empty item between ';' separators or an empty list \
                 (Unknown backend: '')"
                    .to_string()
            } else {
                format!("unknown AdaptiveCpp compilation flow '{name}' (Unknown backend)")
            };
            errors.push(AcppError {
                message,
                suggestions: if name.is_empty() {
                    Vec::new()
                } else {
                    suggest(name, FLOWS.iter().map(|(n, _)| *n), 3)
                },
            });
            continue;
        };
        out.flows.push(name.clone());
        match flow {
            Flow::Omp | Flow::Generic => {
                if !list.is_empty() {
                    errors.push(AcppError {
                        message: format!(
                            "AdaptiveCpp flow '{name}' takes no architecture (given: {})",
                            list.join(",")
                        ),
                        suggestions: Vec::new(),
                    });
                    continue;
                }
                out.targets.push(AcppTarget {
                    spec: name.clone(),
                    flow,
                    table_target: if flow == Flow::Omp {
                        "x86_64"
                    } else {
                        "spir64"
                    }
                    .into(),
                });
            }
            Flow::Cuda | Flow::Hip if list.is_empty() => errors.push(AcppError {
                message: format!(
                    "AdaptiveCpp flow '{name}' needs architectures ('{name}:{}')",
                    if flow == Flow::Cuda {
                        "sm_XY"
                    } else {
                        "gfxXYZ"
                    }
                ),
                suggestions: Vec::new(),
            }),
            // nvc++ without a compute capability compiles for its default: any NVIDIA GPU.
            Flow::CudaNvcxx if list.is_empty() => out.targets.push(AcppTarget {
                spec: name.clone(),
                flow,
                table_target: "nvptx64-nvidia-cuda".into(),
            }),
            Flow::Cuda | Flow::Hip | Flow::CudaNvcxx => {
                for a in list {
                    match device(flow, name, a, table) {
                        Ok(t) => out.targets.push(AcppTarget {
                            spec: format!("{name}:{a}"),
                            flow,
                            table_target: t,
                        }),
                        Err(e) => errors.push(e),
                    }
                }
            }
        }
    }
    for (a, b) in CONFLICTS {
        if out.flows.iter().any(|f| f == a) && out.flows.iter().any(|f| f == b) {
            errors.push(AcppError {
                message: format!("AdaptiveCpp flows '{a}' and '{b}' are incompatible"),
                suggestions: Vec::new(),
            });
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The targets specification a command names, if it names one: `--acpp-targets=` (or a legacy
/// `--hipsycl-targets=` / `--opensycl-targets=`; the first given wins, as `acpp` takes the
/// first matching argument), else `env` (the `ACPP_TARGETS` value the caller read, or its
/// legacy `HIPSYCL_TARGETS` / `OPENSYCL_TARGETS` spelling) when the compiler is `acpp`, else
/// the deprecated `--acpp-platform=` with `--acpp-gpu-arch=` (`acpp_config.targets`).
pub fn spec_of(args: &[String], env: Option<&str>) -> Option<String> {
    let option = |name: &str| {
        args.iter().find_map(|a| {
            ["--acpp-", "--hipsycl-", "--opensycl-"]
                .iter()
                .find_map(|p| a.strip_prefix(p)?.strip_prefix(name)?.strip_prefix('='))
        })
    };
    if let Some(v) = option("targets") {
        return Some(v.to_string());
    }
    if !is_acpp(args) {
        return None;
    }
    if let Some(v) = env {
        return Some(v.to_string());
    }
    let platform = option("platform")?;
    let arch = option("gpu-arch").unwrap_or("");
    // An unknown platform leaves the specification empty, which `acpp` then refuses.
    Some(match platform {
        "rocm" | "amd" | "hip" => format!("hip:{arch}"),
        "nvidia" | "cuda" => format!("cuda:{arch}"),
        "host" | "cpu" | "hipcpu" | "omp" => "omp".to_string(),
        _ => String::new(),
    })
}

/// The `ACPP_TARGETS` value of an environment, or its legacy `HIPSYCL_TARGETS` /
/// `OPENSYCL_TARGETS` spelling (`_upgrade_legacy_environ_var`); `var` reads one variable.
pub fn env_spec(var: impl Fn(&str) -> Option<String>) -> Option<String> {
    ["ACPP_TARGETS", "HIPSYCL_TARGETS", "OPENSYCL_TARGETS"]
        .iter()
        .find_map(|n| var(n))
}

/// Whether a command runs AdaptiveCpp's driver (`acpp`, the older `syclcc`/`syclcc-clang`, or
/// CMake's `syclcc-launcher` rule), or passes it an `--acpp-*` option.
pub fn is_acpp(args: &[String]) -> bool {
    let program = |a: &String| {
        let base = a.rsplit(['/', '\\']).next().unwrap_or(a);
        matches!(
            base,
            "acpp" | "syclcc" | "syclcc-clang" | "syclcc-launcher" | "acpp.exe"
        )
    };
    args.iter().take(3).any(program)
        || args.iter().any(|a| {
            ["--acpp-", "--hipsycl-", "--opensycl-", "--launcher-syclcc="]
                .iter()
                .any(|p| a.starts_with(p))
        })
}

/// The macros of the passes of a specification. `common` holds what every pass sees; each class
/// is one pass and the targets whose kernels it compiles: the host pass (`omp`, `generic` and
/// `cuda-nvcxx` targets), one CUDA device pass per `sm_XY`, one HIP device pass per `gfxXYZ`.
/// A host pass that compiles no target's kernels is no class.
pub fn device_compiles(spec: &AcppTargets) -> DeviceCompiles {
    let mut common: Vec<Predefined> = Vec::new();
    let mut push = |n: &str, v: &str, why: &str| common.push((n.into(), v.into(), why.into()));
    for (n, v) in super::predefined::COMPILER {
        push(n, v, FROM_COMPILER);
    }
    for (n, v) in super::predefined::LIBC {
        push(n, v, FROM_LIBC);
    }
    let flag = format!("--acpp-targets={}", spec.spec);
    for n in ["__ACPP__", "__ADAPTIVECPP__", "__HIPSYCL__", "__OPENSYCL__"] {
        push(n, "1", FROM_DRIVER);
    }
    let cuda = spec.has(Flow::Cuda);
    let hip = spec.has(Flow::Hip);
    let nvcxx = spec.has(Flow::CudaNvcxx);
    let generic = spec.has(Flow::Generic);
    if spec.has(Flow::Omp) {
        push("__ACPP_ENABLE_OMPHOST_TARGET__", "1", &flag);
        if spec.flows.iter().any(|f| f == "omp.accelerated") {
            push("__ACPP_USE_ACCELERATED_CPU__", "1", &flag);
        }
    }
    if cuda || nvcxx {
        push("__ACPP_ENABLE_CUDA_TARGET__", "1", &flag);
    }
    if hip {
        push("__ACPP_ENABLE_HIP_TARGET__", "1", &flag);
    }
    if generic {
        push("__ACPP_ENABLE_LLVM_SSCP_TARGET__", "1", &flag);
    }
    if cuda || hip {
        push("__ACPP_CLANG__", "1", &flag);
    }
    // clang's language macros of `-x cuda` / `-x hip` (`InitPreprocessor.cpp`; `__CUDACC__`
    // from the CUDA runtime wrapper header clang includes), in the host and device passes.
    if cuda {
        push("__CUDA__", "1", "clang -x cuda");
        push(
            "__CUDACC__",
            "1",
            "clang -x cuda (__clang_cuda_runtime_wrapper.h)",
        );
    }
    if hip {
        push("__HIP__", "1", "clang -x hip");
        push("__HIPCC__", "1", "clang -x hip");
    }
    if nvcxx {
        push("__NVCOMPILER", "1", "nvc++");
        push("__CUDACC__", "1", "nvc++");
    }
    for (n, v) in [
        ("SYCL_LANGUAGE_VERSION", "202003"),
        ("CL_SYCL_LANGUAGE_VERSION", "202003"),
        ("SYCL_IMPLEMENTATION_ACPP", ""),
        ("SYCL_IMPLEMENTATION_HIPSYCL", ""),
        ("SYCL_FEATURE_SET_FULL", ""),
        // Kept as the word, which `syntax::prepare` reads, as for DPC++.
        ("SYCL_EXTERNAL", "SYCL_EXTERNAL"),
        ("ACPP_LIBKERNEL_COMPILER_SUPPORTS_HOST", "1"),
        (
            "ACPP_LIBKERNEL_COMPILER_SUPPORTS_CUDA",
            if cuda || nvcxx { "1" } else { "0" },
        ),
        (
            "ACPP_LIBKERNEL_COMPILER_SUPPORTS_HIP",
            if hip { "1" } else { "0" },
        ),
    ] {
        push(n, v, FROM_HEADERS);
    }

    let mut classes = Vec::new();
    // The host pass: a device pass for `omp` (host_backend.hpp), unified with the device for
    // SSCP and nvc++. One pass, two views of its `__acpp_if_target_*` branches: `omp` kernels
    // run as host code, SSCP and nvc++ kernels as device code (the run-time branch
    // `if (__acpp_sscp_is_host)` of backend.hpp taken as each target takes it), so each view is
    // its own class.
    let unified = generic || nvcxx;
    let host_pass = |view: View| -> Vec<Predefined> {
        let from = match view {
            View::Host => "the host pass",
            View::Device => "the host pass, as its device code (SSCP, nvc++) sees it",
        };
        let mut m: Vec<Predefined> = Vec::new();
        let mut def = |n: &str, v: &str| m.push((n.into(), v.into(), from.into()));
        def("ACPP_LIBKERNEL_IS_DEVICE_PASS_HOST", "1");
        def("HIPSYCL_PLATFORM_CPU", "");
        def(
            "ACPP_LIBKERNEL_IS_DEVICE_PASS_CUDA",
            if nvcxx { "1" } else { "0" },
        );
        def("ACPP_LIBKERNEL_IS_DEVICE_PASS_HIP", "0");
        def(
            "ACPP_LIBKERNEL_IS_DEVICE_PASS_SSCP",
            if generic { "1" } else { "0" },
        );
        def(
            "ACPP_LIBKERNEL_COMPILER_SUPPORTS_SSCP",
            if generic { "1" } else { "0" },
        );
        def(
            "ACPP_LIBKERNEL_IS_DEVICE_PASS",
            if unified { "1" } else { "0" },
        );
        def(
            "ACPP_LIBKERNEL_IS_UNIFIED_HOST_DEVICE_PASS",
            if unified { "1" } else { "0" },
        );
        if unified {
            def("__SYCL_SINGLE_SOURCE__", "1");
        }
        let on = |yes: bool| if yes { "__VA_ARGS__" } else { "" };
        let device = view == View::Device;
        def("__acpp_if_target_host(...)", on(!device));
        def("__acpp_if_target_device(...)", on(device));
        def("__acpp_if_target_cuda(...)", on(device && nvcxx));
        def("__acpp_if_target_hip(...)", "");
        def("__acpp_if_target_hiplike(...)", on(device && nvcxx));
        def("__acpp_if_target_sscp(...)", on(device && generic));
        m
    };
    let of = |flows: &[Flow]| -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for t in spec.targets.iter().filter(|t| flows.contains(&t.flow)) {
            if !v.contains(&t.table_target) {
                v.push(t.table_target.clone());
            }
        }
        v
    };
    for (view, targets) in [
        (View::Host, of(&[Flow::Omp])),
        (View::Device, of(&[Flow::Generic, Flow::CudaNvcxx])),
    ] {
        if !targets.is_empty() {
            classes.push(TargetClass {
                targets,
                macros: host_pass(view),
            });
        }
    }
    for t in spec
        .targets
        .iter()
        .filter(|t| matches!(t.flow, Flow::Cuda | Flow::Hip))
    {
        if classes.iter().any(|c| c.targets.contains(&t.table_target)) {
            continue;
        }
        let from = format!("the {} device pass", t.spec);
        let mut m: Vec<Predefined> = Vec::new();
        let mut def = |n: &str, v: &str| m.push((n.into(), v.into(), from.clone()));
        let arch = t.spec.split_once(':').map_or("", |(_, a)| a);
        if t.flow == Flow::Cuda {
            // clang: `__CUDA_ARCH__` is the compute capability times ten (sm_80 → 800).
            let cc = arch.strip_prefix("sm_").unwrap_or(arch);
            let digits: String = cc.chars().take_while(char::is_ascii_digit).collect();
            def("__CUDA_ARCH__", &format!("{digits}0"));
            def("__NVPTX__", "1");
            def("ACPP_LIBKERNEL_IS_DEVICE_PASS_CUDA", "1");
            def("ACPP_LIBKERNEL_IS_DEVICE_PASS_HIP", "0");
        } else {
            def("__HIP_DEVICE_COMPILE__", "1");
            def("__AMDGCN__", "1");
            def("__AMDGPU__", "1");
            def("ACPP_LIBKERNEL_IS_DEVICE_PASS_CUDA", "0");
            def("ACPP_LIBKERNEL_IS_DEVICE_PASS_HIP", "1");
        }
        def("ACPP_LIBKERNEL_IS_DEVICE_PASS_HOST", "0");
        def("ACPP_LIBKERNEL_IS_DEVICE_PASS_SSCP", "0");
        def("ACPP_LIBKERNEL_COMPILER_SUPPORTS_SSCP", "0");
        def("ACPP_LIBKERNEL_IS_DEVICE_PASS", "1");
        def("ACPP_LIBKERNEL_IS_UNIFIED_HOST_DEVICE_PASS", "0");
        def("SYCL_DEVICE_ONLY", "");
        def("__SYCL_DEVICE_ONLY__", "1");
        let cuda_pass = t.flow == Flow::Cuda;
        def("__acpp_if_target_host(...)", "");
        def("__acpp_if_target_device(...)", "__VA_ARGS__");
        def(
            "__acpp_if_target_cuda(...)",
            if cuda_pass { "__VA_ARGS__" } else { "" },
        );
        def(
            "__acpp_if_target_hip(...)",
            if cuda_pass { "" } else { "__VA_ARGS__" },
        );
        def("__acpp_if_target_hiplike(...)", "__VA_ARGS__");
        def("__acpp_if_target_sscp(...)", "");
        classes.push(TargetClass {
            targets: vec![t.table_target.clone()],
            macros: m,
        });
    }
    DeviceCompiles { common, classes }
}

/// Which branch of the host pass's `__acpp_if_target_*` a target's kernels take.
#[derive(Clone, Copy, PartialEq, Eq)]
enum View {
    Host,
    Device,
}

/// AdaptiveCpp's `sycl::any_device_has_v<aspect::A>`: true but for `image`, whatever the
/// targets (`aspect.hpp`).
pub fn any_device_has(aspect: &str) -> bool {
    aspect != "image"
}

/// AdaptiveCpp's `sycl::all_devices_have_v<aspect::A>`: "all backends must support at least
/// explicit USM by design" (`aspect.hpp`).
pub fn all_devices_have(aspect: &str) -> bool {
    matches!(
        aspect,
        "usm_device_allocations" | "usm_atomic_host_allocations"
    )
}

/// AdaptiveCpp's trait values as sets: fixed, whatever the targets (`aspect.hpp`). Aspects its
/// enum lacks are no aspect there: a program naming one does not compile, so their value
/// here answers nothing real.
pub fn trait_sets() -> super::macros::TraitSets {
    let reg = super::aspects::registry();
    let mut any = super::aspects::AspectSet::EMPTY;
    let mut all = super::aspects::AspectSet::EMPTY;
    for (id, info) in reg.iter() {
        if any_device_has(&info.name) {
            any.insert(id);
        }
        if all_devices_have(&info.name) {
            all.insert(id);
        }
    }
    super::macros::TraitSets {
        all,
        any,
        any_aspect: false,
    }
}

/// What an AdaptiveCpp macro means (`doc/macros.md`, the libkernel headers), for hover.
pub fn macro_meaning(word: &str) -> Option<&'static str> {
    Some(match word {
        "__ACPP__" | "__ADAPTIVECPP__" => "defined when compiling with AdaptiveCpp (`acpp`)",
        "__HIPSYCL__" | "__OPENSYCL__" => {
            "AdaptiveCpp's former names, still defined by `acpp` with `__ACPP__`"
        }
        "__ACPP_ENABLE_CUDA_TARGET__" => {
            "defined by AdaptiveCpp in host and device passes when a `cuda` flow is targeted"
        }
        "__ACPP_ENABLE_HIP_TARGET__" => {
            "defined by AdaptiveCpp in host and device passes when a `hip` flow is targeted"
        }
        "__ACPP_ENABLE_OMPHOST_TARGET__" => {
            "defined by AdaptiveCpp when the OpenMP host flow (`omp`) is targeted"
        }
        "__ACPP_ENABLE_LLVM_SSCP_TARGET__" => {
            "defined by AdaptiveCpp when the generic SSCP flow (`generic`, JIT for any device) is targeted"
        }
        "__ACPP_CLANG__" => "defined by `acpp` when compiling with its clang plugin (`cuda`, `hip`)",
        "__SYCL_SINGLE_SOURCE__" => {
            "defined by AdaptiveCpp in a unified host-device pass (`generic`, `cuda-nvcxx`): kernels and host code are one compile"
        }
        "SYCL_DEVICE_ONLY" => {
            "defined by AdaptiveCpp in a device pass that is not a unified host-device pass"
        }
        "ACPP_LIBKERNEL_IS_DEVICE_PASS" => {
            "1 when the AdaptiveCpp pass targets at least one device backend"
        }
        "ACPP_LIBKERNEL_IS_UNIFIED_HOST_DEVICE_PASS" => {
            "1 when the AdaptiveCpp pass compiles host and device at once"
        }
        "ACPP_LIBKERNEL_IS_DEVICE_PASS_HOST" => "1 when the AdaptiveCpp pass targets the host",
        "ACPP_LIBKERNEL_IS_DEVICE_PASS_CUDA" => "1 when the AdaptiveCpp pass targets CUDA",
        "ACPP_LIBKERNEL_IS_DEVICE_PASS_HIP" => "1 when the AdaptiveCpp pass targets HIP",
        "ACPP_LIBKERNEL_IS_DEVICE_PASS_SSCP" => {
            "1 when the AdaptiveCpp pass targets the generic SSCP compiler"
        }
        "ACPP_LIBKERNEL_COMPILER_SUPPORTS_CUDA" => {
            "1 when the compiler of this AdaptiveCpp compile supports CUDA language extensions"
        }
        "ACPP_LIBKERNEL_COMPILER_SUPPORTS_HIP" => {
            "1 when the compiler of this AdaptiveCpp compile supports HIP language extensions"
        }
        "ACPP_LIBKERNEL_COMPILER_SUPPORTS_HOST" => "always 1 under AdaptiveCpp",
        "__acpp_if_target_host" => {
            "AdaptiveCpp: its arguments are code only where the pass runs them on the host"
        }
        "__acpp_if_target_device" => {
            "AdaptiveCpp: its arguments are code only where the pass compiles them for a device"
        }
        "__acpp_if_target_cuda" => "AdaptiveCpp: its arguments are code only for CUDA devices",
        "__acpp_if_target_hip" => "AdaptiveCpp: its arguments are code only for HIP devices",
        "__acpp_if_target_hiplike" => {
            "AdaptiveCpp: its arguments are code only for CUDA and HIP devices"
        }
        "__acpp_if_target_sscp" => {
            "AdaptiveCpp: its arguments are code only for the generic SSCP device code"
        }
        "ACPP_LIBKERNEL_COMPILER_SUPPORTS_SSCP" => {
            "1 when AdaptiveCpp's generic SSCP compiler is enabled in this pass"
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<AcppTargets, Vec<AcppError>> {
        parse_spec(s, DeviceTable::builtin())
    }

    fn get<'a>(m: &'a [Predefined], name: &str) -> Option<&'a str> {
        m.iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, _)| v.as_str())
    }

    #[test]
    fn the_documented_example_names_its_devices() {
        let t = parse("omp;cuda:sm_80;hip:gfx90a;generic").unwrap();
        assert_eq!(
            t.targets
                .iter()
                .map(|t| t.spec.as_str())
                .collect::<Vec<_>>(),
            ["omp", "cuda:sm_80", "hip:gfx90a", "generic"]
        );
        assert_eq!(
            t.table_targets(),
            ["x86_64", "nvidia_gpu_sm_80", "amd_gpu_gfx90a", "spir64"]
        );
        // Quotes, spaces and case as acpp reads them; repeated archs once.
        let t = parse("'CUDA: sm_70 ,sm_80,sm_70 ; omp'").unwrap();
        assert_eq!(
            t.table_targets(),
            ["nvidia_gpu_sm_70", "nvidia_gpu_sm_80", "x86_64"]
        );
        assert_eq!(
            parse("cuda-nvcxx:cc80").unwrap().table_targets(),
            ["nvidia_gpu_sm_80"]
        );
    }

    #[test]
    fn bad_specifications_are_refused_with_did_you_mean() {
        let e = parse("cuda:sm_999").unwrap_err();
        assert!(e[0].message.contains("'sm_999'"), "{e:?}");
        let e = parse("cdua:sm_80").unwrap_err();
        assert_eq!(
            e[0].message,
            "unknown AdaptiveCpp compilation flow 'cdua' (Unknown backend)"
        );
        assert!(e[0].suggestions.contains(&"cuda".to_string()), "{e:?}");
        let e = parse("hip:gfx90").unwrap_err();
        assert!(
            !e[0].suggestions.is_empty() && e[0].suggestions.iter().all(|s| s.starts_with("gfx90")),
            "{e:?}"
        );
        for bad in ["", "omp;", ";omp", "omp;;cuda:sm_80"] {
            let e = parse(bad).unwrap_err();
            assert!(
                e[0].message.starts_with("empty AdaptiveCpp target"),
                "{bad}: {e:?}"
            );
        }
        // A comma between flows makes one unknown flow, as in acpp.
        let e = parse("omp,cuda:sm_80").unwrap_err();
        assert!(e[0].message.contains("'omp,cuda'"), "{e:?}");
        assert!(parse("cuda:sm_80:sm_90").is_err());
        assert!(parse("cuda:").unwrap_err()[0]
            .message
            .contains("empty architecture"));
        assert!(parse("cuda").unwrap_err()[0]
            .message
            .contains("needs architectures"));
        assert!(parse("omp:x86").unwrap_err()[0]
            .message
            .contains("takes no architecture"));
        assert!(parse("generic:sm_80").is_err());
        let e =
            parse("cuda.integrated-multipass:sm_80;hip.integrated-multipass:gfx90a").unwrap_err();
        assert!(e[0].message.contains("incompatible"), "{e:?}");
        assert!(
            parse("cuda:sm_80;hip:gfx90a").is_ok(),
            "acpp switches to explicit multipass"
        );
    }

    #[test]
    fn each_pass_sees_its_own_macros() {
        let t = parse("omp;cuda:sm_80;hip:gfx90a;generic").unwrap();
        let c = device_compiles(&t);
        for n in [
            "__ACPP__",
            "__ADAPTIVECPP__",
            "__ACPP_ENABLE_OMPHOST_TARGET__",
            "__ACPP_ENABLE_CUDA_TARGET__",
            "__ACPP_ENABLE_HIP_TARGET__",
            "__ACPP_ENABLE_LLVM_SSCP_TARGET__",
        ] {
            assert_eq!(get(&c.common, n), Some("1"), "{n}");
        }
        assert_eq!(get(&c.common, "SYCL_LANGUAGE_VERSION"), Some("202003"));
        assert_eq!(get(&c.common, "__HIP__"), Some("1"));
        assert_eq!(get(&c.common, "__CUDA__"), Some("1"));
        assert_eq!(get(&c.common, "__SYCL_DEVICE_ONLY__"), None);
        assert!(c.common.iter().all(
            |m| !m.0.starts_with("__SYCL_ANY_DEVICE_HAS") && !m.0.starts_with("__SYCL_TARGET_")
        ));
        assert_eq!(
            c.classes.len(),
            4,
            "the host pass as omp and as generic see it, sm_80, gfx90a: {c:#?}"
        );
        let host = &c.classes[0];
        assert_eq!(host.targets, ["x86_64"]);
        assert_eq!(get(&host.macros, "__SYCL_SINGLE_SOURCE__"), Some("1"));
        assert_eq!(get(&host.macros, "__SYCL_DEVICE_ONLY__"), None);
        assert_eq!(
            get(&host.macros, "__acpp_if_target_host(...)"),
            Some("__VA_ARGS__")
        );
        assert_eq!(get(&host.macros, "__acpp_if_target_device(...)"), Some(""));
        let sscp = &c.classes[1];
        assert_eq!(sscp.targets, ["spir64"]);
        assert_eq!(get(&sscp.macros, "__SYCL_SINGLE_SOURCE__"), Some("1"));
        assert_eq!(get(&sscp.macros, "__acpp_if_target_host(...)"), Some(""));
        assert_eq!(
            get(&sscp.macros, "__acpp_if_target_sscp(...)"),
            Some("__VA_ARGS__")
        );
        let sm80 = &c.classes[2];
        assert_eq!(sm80.targets, ["nvidia_gpu_sm_80"]);
        assert_eq!(get(&sm80.macros, "__CUDA_ARCH__"), Some("800"));
        assert_eq!(get(&sm80.macros, "__SYCL_DEVICE_ONLY__"), Some("1"));
        assert_eq!(get(&sm80.macros, "__SYCL_SINGLE_SOURCE__"), None);
        assert_eq!(
            get(&sm80.macros, "ACPP_LIBKERNEL_IS_DEVICE_PASS_SSCP"),
            Some("0")
        );
        assert_eq!(
            get(&sm80.macros, "__acpp_if_target_cuda(...)"),
            Some("__VA_ARGS__")
        );
        assert_eq!(get(&sm80.macros, "__acpp_if_target_hip(...)"), Some(""));
        let gfx = &c.classes[3];
        assert_eq!(get(&gfx.macros, "__HIP_DEVICE_COMPILE__"), Some("1"));
        assert_eq!(
            get(&gfx.macros, "__acpp_if_target_hiplike(...)"),
            Some("__VA_ARGS__")
        );
        assert_eq!(get(&gfx.macros, "__SYCL_DEVICE_ONLY__"), Some("1"));
        // omp alone: kernels are host code, no unified pass, no device-only macro.
        let c = device_compiles(&parse("omp").unwrap());
        assert_eq!(c.classes.len(), 1);
        assert_eq!(get(&c.classes[0].macros, "__SYCL_SINGLE_SOURCE__"), None);
        assert_eq!(
            get(&c.classes[0].macros, "ACPP_LIBKERNEL_IS_DEVICE_PASS"),
            Some("0")
        );
        assert_eq!(get(&c.common, "__ACPP_ENABLE_LLVM_SSCP_TARGET__"), None);
        // cuda alone: the host pass compiles no target's kernels.
        let c = device_compiles(&parse("cuda:sm_70,sm_80").unwrap());
        assert_eq!(c.classes.len(), 2);
        assert_eq!(get(&c.classes[0].macros, "__CUDA_ARCH__"), Some("700"));
    }

    #[test]
    fn the_spec_comes_from_the_flag_the_legacy_flag_or_the_environment() {
        let args = |s: &str| -> Vec<String> { s.split(' ').map(String::from).collect() };
        assert_eq!(
            spec_of(&args("acpp --acpp-targets=omp -c a.cpp"), Some("generic")).as_deref(),
            Some("omp"),
            "the command line wins"
        );
        assert_eq!(
            spec_of(&args("syclcc --hipsycl-targets=cuda:sm_70 a.cpp"), None).as_deref(),
            Some("cuda:sm_70")
        );
        assert_eq!(
            spec_of(&args("/opt/acpp/bin/acpp -c a.cpp"), Some("hip:gfx90a")).as_deref(),
            Some("hip:gfx90a")
        );
        assert_eq!(spec_of(&args("clang++ -fsycl a.cpp"), Some("omp")), None);
        // The deprecated platform and GPU arch, after the environment.
        let legacy = args("syclcc --hipsycl-platform=rocm --hipsycl-gpu-arch=gfx906 a.cpp");
        assert_eq!(spec_of(&legacy, None).as_deref(), Some("hip:gfx906"));
        assert_eq!(spec_of(&legacy, Some("omp")).as_deref(), Some("omp"));
        assert_eq!(
            spec_of(&args("acpp --acpp-platform=cpu a.cpp"), None).as_deref(),
            Some("omp")
        );
        assert_eq!(
            spec_of(&args("acpp --acpp-platform=cuda a.cpp"), None).as_deref(),
            Some("cuda:")
        );
        assert!(!is_acpp(&args(
            "clang++ -fsycl -fsycl-targets=spir64 a.cpp"
        )));
    }

    #[test]
    fn traits_are_fixed() {
        assert!(any_device_has("fp64") && !any_device_has("image"));
        assert!(all_devices_have("usm_device_allocations") && !all_devices_have("fp64"));
        let reg = crate::devices::registry();
        let sets = trait_sets();
        let id = |n: &str| reg.by_name(n).unwrap();
        assert!(sets.any_device_has(id("fp64")) && !sets.any_device_has(id("image")));
        assert!(sets.all_devices_have(id("usm_atomic_host_allocations")));
        assert!(!sets.all_devices_have(id("gpu")));
    }
}

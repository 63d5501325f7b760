//! The macros a DPC++ device compile starts from: those of clang for Linux x86-64 in C++17
//! mode, of the SYCL headers (`SYCL_LANGUAGE_VERSION`, the `SYCL_EXT_*` feature-test macros of
//! `feature_test.hpp`), of the C library headers device code reads constants from, and of the
//! targets (`__SYCL_TARGET_*__`, the aspect-trait macros, the device triple's own).

use super::macros::predefined_macros;
use super::names::TargetKind;
use super::table::DeviceTable;
use super::targets::ResolvedTarget;

/// Which part of the compile a predefined macro comes from (shown on hover).
pub const FROM_COMPILER: &str = "clang (Linux x86-64, C++17)";
pub const FROM_SYCL: &str = "the DPC++ compiler and SYCL headers";
pub const FROM_LIBC: &str = "the C library headers";

pub(super) const COMPILER: &[(&str, &str)] = &[
    ("__cplusplus", "201703L"),
    ("__clang__", "1"),
    ("__clang_major__", "20"),
    ("__clang_minor__", "0"),
    ("__clang_patchlevel__", "0"),
    ("__GNUC__", "4"),
    ("__GNUC_MINOR__", "2"),
    ("__GNUC_PATCHLEVEL__", "1"),
    ("__GNUG__", "4"),
    ("__STDC__", "1"),
    ("__STDC_HOSTED__", "1"),
    ("__linux__", "1"),
    ("__linux", "1"),
    ("__unix__", "1"),
    ("__unix", "1"),
    ("__gnu_linux__", "1"),
    ("__ELF__", "1"),
    ("__x86_64__", "1"),
    ("__x86_64", "1"),
    ("__amd64__", "1"),
    ("__amd64", "1"),
    ("__LP64__", "1"),
    ("_LP64", "1"),
    ("__CHAR_BIT__", "8"),
    ("__SIZEOF_SHORT__", "2"),
    ("__SIZEOF_INT__", "4"),
    ("__SIZEOF_LONG__", "8"),
    ("__SIZEOF_LONG_LONG__", "8"),
    ("__SIZEOF_POINTER__", "8"),
    ("__SIZEOF_SIZE_T__", "8"),
    ("__SIZEOF_FLOAT__", "4"),
    ("__SIZEOF_DOUBLE__", "8"),
    ("__SIZEOF_LONG_DOUBLE__", "16"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__ORDER_BIG_ENDIAN__", "4321"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
    ("__INT_MAX__", "2147483647"),
    ("__LONG_MAX__", "9223372036854775807L"),
    ("__cpp_exceptions", "199711L"),
    ("__cpp_rtti", "199711L"),
    ("__cpp_constexpr", "201603L"),
    ("__cpp_if_constexpr", "201606L"),
    ("__cpp_lambdas", "200907L"),
    ("__cpp_variadic_templates", "200704L"),
    ("__cpp_fold_expressions", "201603L"),
    ("__cpp_inline_variables", "201606L"),
    ("__cpp_structured_bindings", "201606L"),
];

/// `SYCL_EXT_*` and `SYCL_KHR_*` of `sycl/feature_test.hpp` (intel/llvm), with the SYCL
/// implementation macros.
const SYCL: &[(&str, &str)] = &[
    ("SYCL_LANGUAGE_VERSION", "202012L"),
    ("__SYCL_DEVICE_ONLY__", "1"),
    // clang's `InitPreprocessor.cpp` defines it for every device compile, as
    // `__attribute__((sycl_device))`; kept as the word, which `syntax::prepare` reads.
    ("SYCL_EXTERNAL", "SYCL_EXTERNAL"),
    // clang defines it while unnamed kernel lambdas are on, SYCL 2020's default
    // (`-fsycl-unnamed-lambda`; `clang/test/Frontend/sycl-unnamed-lambdas-default.cpp`).
    ("__SYCL_UNNAMED_LAMBDA__", "1"),
    ("SYCL_IMPLEMENTATION_ONEAPI", "1"),
    ("SYCL_IMPLEMENTATION_INTEL", "1"),
    ("SYCL_FEATURE_SET_FULL", "1"),
    ("SYCL_BACKEND_OPENCL", "1"),
    ("SYCL_EXT_INTEL_DEVICE_INFO", "7"),
    ("SYCL_EXT_ONEAPI_DEVICE_ARCHITECTURE", "1"),
    ("SYCL_EXT_ONEAPI_SUB_GROUP_MASK", "2"),
    ("SYCL_EXT_ONEAPI_LOCAL_MEMORY", "1"),
    ("SYCL_EXT_ONEAPI_MATRIX", "1"),
    ("SYCL_EXT_ONEAPI_ASSERT", "1"),
    ("SYCL_EXT_ONEAPI_COMPLEX_ALGORITHMS", "1"),
    ("SYCL_EXT_ONEAPI_DISCARD_QUEUE_EVENTS", "1"),
    ("SYCL_EXT_ONEAPI_QUEUE_PRIORITY", "1"),
    ("SYCL_EXT_ONEAPI_ENQUEUE_BARRIER", "1"),
    ("SYCL_EXT_ONEAPI_FREE_FUNCTION_QUERIES", "1"),
    ("SYCL_EXT_ONEAPI_BINDLESS_IMAGES", "6"),
    ("SYCL_EXT_ONEAPI_ASYNC_MEMORY_ALLOC", "1"),
    ("SYCL_EXT_ONEAPI_GROUP_ALGORITHMS", "1"),
    ("SYCL_EXT_ONEAPI_GROUP_SORT", "2"),
    ("SYCL_EXT_ONEAPI_KERNEL_COMPILER", "1"),
    ("SYCL_EXT_ONEAPI_KERNEL_COMPILER_OPENCL", "1"),
    ("SYCL_EXT_ONEAPI_KERNEL_COMPILER_SPIRV", "1"),
    ("SYCL_EXT_ONEAPI_MAX_WORK_GROUP_QUERY", "1"),
    ("SYCL_EXT_ONEAPI_ND_RANGE_REDUCTIONS", "1"),
    ("SYCL_EXT_ONEAPI_DEFAULT_CONTEXT", "1"),
    ("SYCL_EXT_ONEAPI_USE_PINNED_HOST_MEMORY_PROPERTY", "1"),
    ("SYCL_EXT_ONEAPI_ROOT_GROUP", "1"),
    ("SYCL_EXT_ONEAPI_SRGB", "1"),
    ("SYCL_EXT_ONEAPI_SUB_GROUP", "1"),
    ("SYCL_EXT_ONEAPI_PROPERTIES", "1"),
    ("SYCL_EXT_ONEAPI_NATIVE_MATH", "1"),
    ("SYCL_EXT_ONEAPI_BFLOAT16_MATH_FUNCTIONS", "1"),
    ("SYCL_EXT_ONEAPI_COMPOSITE_DEVICE", "1"),
    ("SYCL_EXT_INTEL_DATAFLOW_PIPES", "1"),
    ("SYCL_EXT_INTEL_FPGA_DEVICE_SELECTOR", "3"),
    ("SYCL_EXT_INTEL_FPGA_KERNEL_INTERFACE_PROPERTIES", "1"),
    ("SYCL_EXT_INTEL_FPGA_LSU", "1"),
    ("SYCL_EXT_INTEL_FPGA_REG", "1"),
    ("SYCL_EXT_INTEL_KERNEL_ARGS_RESTRICT", "1"),
    ("SYCL_EXT_INTEL_MEM_CHANNEL_PROPERTY", "1"),
    ("SYCL_EXT_INTEL_USM_ADDRESS_SPACES", "3"),
    ("SYCL_EXT_INTEL_RUNTIME_BUFFER_LOCATION", "1"),
    ("SYCL_EXT_INTEL_QUEUE_INDEX", "1"),
    ("SYCL_EXT_INTEL_FPGA_MEM", "1"),
    ("SYCL_EXT_INTEL_FPGA_DATAPATH", "1"),
    ("SYCL_EXT_ONEAPI_AUTO_LOCAL_RANGE", "1"),
    ("SYCL_EXT_ONEAPI_BACKEND_LEVEL_ZERO", "5"),
    ("SYCL_EXT_ONEAPI_USM_DEVICE_READ_ONLY", "1"),
    ("SYCL_EXT_ONEAPI_KERNEL_PROPERTIES", "1"),
    ("SYCL_EXT_ONEAPI_QUEUE_EMPTY", "1"),
    ("SYCL_EXT_ONEAPI_USER_DEFINED_REDUCTIONS", "1"),
    ("SYCL_EXT_ONEAPI_WEAK_OBJECT", "1"),
    ("SYCL_EXT_ONEAPI_MEMCPY2D", "1"),
    ("SYCL_EXT_ONEAPI_KERNEL_ARG_PROPERTIES", "1"),
    ("SYCL_EXT_ONEAPI_ANNOTATED_ARG", "1"),
    ("SYCL_EXT_ONEAPI_ANNOTATED_PTR", "1"),
    ("SYCL_EXT_ONEAPI_COPY_OPTIMIZE", "1"),
    ("SYCL_EXT_ONEAPI_VIRTUAL_MEM", "1"),
    ("SYCL_EXT_ONEAPI_USM_MALLOC_PROPERTIES", "1"),
    ("SYCL_EXT_INTEL_CACHE_CONFIG", "1"),
    ("SYCL_EXT_ONEAPI_GRAPH", "1"),
    ("SYCL_EXT_CODEPLAY_MAX_REGISTERS_PER_WORK_GROUP_QUERY", "1"),
    ("SYCL_EXT_ONEAPI_DEVICE_GLOBAL", "1"),
    ("SYCL_EXT_INTEL_QUEUE_IMMEDIATE_COMMAND_LIST", "1"),
    ("SYCL_EXT_ONEAPI_PREFETCH", "1"),
    ("SYCL_EXT_INTEL_CACHE_CONTROLS", "1"),
    ("SYCL_EXT_INTEL_FP_CONTROL", "1"),
    ("SYCL_EXT_ONEAPI_NON_UNIFORM_GROUPS", "1"),
    ("SYCL_EXT_ONEAPI_IN_ORDER_QUEUE_EVENTS", "1"),
    ("SYCL_EXT_INTEL_MATRIX", "1"),
    ("SYCL_EXT_INTEL_FPGA_TASK_SEQUENCE", "1"),
    ("SYCL_EXT_ONEAPI_PRIVATE_ALLOCA", "1"),
    ("SYCL_EXT_ONEAPI_FORWARD_PROGRESS", "1"),
    ("SYCL_EXT_ONEAPI_FREE_FUNCTION_KERNELS", "1"),
    ("SYCL_EXT_ONEAPI_PROD", "1"),
    ("SYCL_EXT_ONEAPI_ENQUEUE_FUNCTIONS", "1"),
    ("SYCL_EXT_ONEAPI_RAW_KERNEL_ARG", "1"),
    ("SYCL_EXT_ONEAPI_PROFILING_TAG", "1"),
    ("SYCL_EXT_ONEAPI_ENQUEUE_NATIVE_COMMAND", "2"),
    ("SYCL_EXT_ONEAPI_GET_KERNEL_INFO", "1"),
    ("SYCL_EXT_ONEAPI_WORK_GROUP_MEMORY", "1"),
    ("SYCL_EXT_ONEAPI_WORK_GROUP_SCRATCH_MEMORY", "1"),
    ("SYCL_EXT_ONEAPI_WORK_GROUP_STATIC", "1"),
    ("SYCL_EXT_ONEAPI_NUM_COMPUTE_UNITS", "1"),
    ("SYCL_EXT_ONEAPI_DEVICE_IMAGE_BACKEND_CONTENT", "1"),
    ("SYCL_EXT_ONEAPI_CURRENT_DEVICE", "1"),
    ("SYCL_KHR_FREE_FUNCTION_COMMANDS", "1"),
    ("SYCL_KHR_QUEUE_EMPTY_QUERY", "1"),
    ("SYCL_EXT_ONEAPI_MEMORY_EXPORT", "1"),
    ("SYCL_EXT_ONEAPI_ATOMIC16", "0"),
    ("SYCL_KHR_DEFAULT_CONTEXT", "1"),
    ("SYCL_EXT_INTEL_EVENT_MODE", "1"),
];

/// Constants of `<cmath>`, `<cfloat>` and `<climits>` that kernels use: `M_PI` is a double,
/// and a `float` times it computes in double, as the compiler sees it.
pub(super) const LIBC: &[(&str, &str)] = &[
    ("M_E", "2.7182818284590452354"),
    ("M_LOG2E", "1.4426950408889634074"),
    ("M_LOG10E", "0.43429448190325182765"),
    ("M_LN2", "0.69314718055994530942"),
    ("M_LN10", "2.30258509299404568402"),
    ("M_PI", "3.14159265358979323846"),
    ("M_PI_2", "1.57079632679489661923"),
    ("M_PI_4", "0.78539816339744830962"),
    ("M_1_PI", "0.31830988618379067154"),
    ("M_2_PI", "0.63661977236758134308"),
    ("M_2_SQRTPI", "1.12837916709551257390"),
    ("M_SQRT2", "1.41421356237309504880"),
    ("M_SQRT1_2", "0.70710678118654752440"),
    ("FLT_MAX", "3.40282347e+38F"),
    ("FLT_MIN", "1.17549435e-38F"),
    ("FLT_EPSILON", "1.19209290e-7F"),
    ("DBL_MAX", "1.7976931348623157e+308"),
    ("DBL_MIN", "2.2250738585072014e-308"),
    ("DBL_EPSILON", "2.2204460492503131e-16"),
    ("CHAR_BIT", "8"),
    ("INT_MAX", "2147483647"),
    ("INT_MIN", "(-2147483647 - 1)"),
    ("UINT_MAX", "4294967295U"),
    ("LONG_MAX", "9223372036854775807L"),
    ("LONG_MIN", "(-9223372036854775807L - 1L)"),
    ("ULONG_MAX", "18446744073709551615UL"),
    ("LLONG_MAX", "9223372036854775807LL"),
    ("SHRT_MAX", "32767"),
];

/// A macro a compile predefines: name, value and where it comes from.
pub type Predefined = (String, String, String);

/// The device compiles of a target list. DPC++ compiles device code once per target: the
/// aspect-trait macros are those of the whole list in every compile, while
/// `__SYCL_TARGET_*__` and the triple's macros (`__NVPTX__`, `__SPIR__`...) are defined only
/// in that target's own compile.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DeviceCompiles {
    /// The macros of every device compile.
    pub common: Vec<Predefined>,
    /// Targets whose device compiles define the same macros, with those macros: one entry
    /// per distinct compile, in the order of the target list.
    pub classes: Vec<TargetClass>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TargetClass {
    /// Canonical target names.
    pub targets: Vec<String>,
    pub macros: Vec<Predefined>,
}

impl DeviceCompiles {
    /// Every macro of every compile at once (the first definition of a name wins).
    pub fn merged(&self) -> Vec<Predefined> {
        let mut out = self.common.clone();
        for c in &self.classes {
            for m in &c.macros {
                if !out.iter().any(|(n, _, _)| *n == m.0) {
                    out.push(m.clone());
                }
            }
        }
        out
    }
}

/// The macros of the device compiles for `targets`.
pub fn device_compiles(targets: &[ResolvedTarget], table: &DeviceTable) -> DeviceCompiles {
    let mut common: Vec<Predefined> = Vec::new();
    let mut push = |list: &[(&str, &str)], why: &str| {
        common.extend(
            list.iter()
                .map(|(n, v)| (n.to_string(), v.to_string(), why.to_string())),
        );
    };
    push(COMPILER, FROM_COMPILER);
    push(SYCL, FROM_SYCL);
    push(LIBC, FROM_LIBC);
    let names: Vec<&str> = targets.iter().map(|t| t.canonical.as_str()).collect();
    let why = format!("-fsycl-targets={}", names.join(","));
    let own: Vec<&str> = targets
        .iter()
        .filter_map(|t| t.macro_name.as_deref())
        .collect();
    for (n, v) in predefined_macros(targets, table) {
        if !own.contains(&n.as_str()) {
            common.push((n, v, why.clone()));
        }
    }
    let mut classes: Vec<TargetClass> = Vec::new();
    for t in targets {
        let from = format!("the {} device compile", t.canonical);
        let mut macros: Vec<Predefined> = Vec::new();
        if let Some(m) = &t.macro_name {
            macros.push((m.clone(), "1".into(), from.clone()));
        }
        for m in triple_macros(t) {
            macros.push((m.to_string(), "1".into(), from.clone()));
        }
        let same = |c: &TargetClass| {
            c.macros.len() == macros.len()
                && c.macros
                    .iter()
                    .zip(&macros)
                    .all(|(a, b)| a.0 == b.0 && a.1 == b.1)
        };
        match classes.iter_mut().find(|c| same(c)) {
            Some(c) => {
                if !c.targets.contains(&t.canonical) {
                    c.targets.push(t.canonical.clone());
                }
            }
            None => classes.push(TargetClass {
                targets: vec![t.canonical.clone()],
                macros,
            }),
        }
    }
    DeviceCompiles { common, classes }
}

/// The macros clang defines for a target's device triple.
fn triple_macros(t: &ResolvedTarget) -> &'static [&'static str] {
    let c = t.canonical.as_str();
    match t.kind {
        TargetKind::NvidiaGpu => &["__NVPTX__"],
        TargetKind::AmdGpu => &["__AMDGCN__", "__AMDGPU__"],
        TargetKind::IntelGpu => &["__SPIR__", "__SPIR64__"],
        _ if c.starts_with("nvptx") => &["__NVPTX__"],
        _ if c.starts_with("amdgcn") => &["__AMDGCN__", "__AMDGPU__"],
        _ => &["__SPIR__", "__SPIR64__"],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::parse_target_list;

    #[test]
    fn a_device_compile_defines_the_sycl_and_target_macros() {
        let table = DeviceTable::builtin();
        let targets = parse_target_list("intel_gpu_pvc,nvidia_gpu_sm_80", table).targets;
        let compiles = device_compiles(&targets, table);
        let m = compiles.merged();
        let get = |name: &str| {
            m.iter()
                .find(|(n, _, _)| n == name)
                .map(|(_, v, _)| v.as_str())
        };
        assert_eq!(get("SYCL_LANGUAGE_VERSION"), Some("202012L"));
        assert_eq!(get("__SYCL_DEVICE_ONLY__"), Some("1"));
        assert_eq!(get("__SYCL_TARGET_INTEL_GPU_PVC__"), Some("1"));
        assert_eq!(get("__SYCL_TARGET_NVIDIA_GPU_SM_80__"), Some("1"));
        assert_eq!(get("__NVPTX__"), Some("1"));
        assert_eq!(get("__SPIR__"), Some("1"));
        assert_eq!(get("__cplusplus"), Some("201703L"));
        assert_eq!(get("__SYCL_ALL_DEVICES_HAVE_fp64__"), Some("1"));
        let names: std::collections::HashSet<&str> = m.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names.len(), m.len(), "each macro once");
        // Each target's own macros are defined only in its compile.
        assert_eq!(compiles.classes.len(), 2);
        let own = |i: usize| -> Vec<&str> {
            compiles.classes[i]
                .macros
                .iter()
                .map(|m| m.0.as_str())
                .collect()
        };
        assert_eq!(
            own(0),
            ["__SYCL_TARGET_INTEL_GPU_PVC__", "__SPIR__", "__SPIR64__"]
        );
        assert_eq!(own(1), ["__SYCL_TARGET_NVIDIA_GPU_SM_80__", "__NVPTX__"]);
        assert!(compiles
            .common
            .iter()
            .all(|m| !m.0.starts_with("__SYCL_TARGET_")));
    }

    #[test]
    fn targets_whose_compiles_define_the_same_macros_share_one() {
        let table = DeviceTable::builtin();
        let targets = parse_target_list("spir64,spir64_gen", table).targets;
        let compiles = device_compiles(&targets, table);
        assert_eq!(compiles.classes.len(), 1, "{compiles:?}");
        assert_eq!(compiles.classes[0].targets, ["spir64", "spir64_gen"]);
    }
}

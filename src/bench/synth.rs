//! A deterministic synthetic SYCL workspace: many files, kernels, helper call chains several
//! levels deep across files, `device_has` decorations, `double` / `sycl::half` / `atomic_ref`
//! uses, templates, namespaces, and some broken code.

use std::fmt::Write as _;
use std::path::Path;

/// xorshift64*: tiny, deterministic, good enough to vary generated code.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

const ASPECTS: [&str; 4] = ["fp16", "fp64", "atomic64", "gpu"];

/// One source file of about 200 lines.
fn source_file(i: usize, files: usize, rng: &mut Rng) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "// synthetic file {i}\n#include \"common.hpp\"");
    let next = (i + 1) % files;
    let _ = writeln!(s, "namespace ns{next} {{ float chain0(float x); }}");
    let _ = writeln!(s, "namespace ns{i} {{");
    // A helper chain: chain0 -> chain1 -> ... -> chain5, the last one using something optional.
    for k in 0..6 {
        let _ = writeln!(s, "float chain{k}(float x) {{");
        for line in 0..6 {
            let prev = if line == 0 {
                "0.0f".to_string()
            } else {
                format!("v{}", line - 1)
            };
            let _ = writeln!(s, "  float v{line} = x * {}.5f + {prev};", line + k);
        }
        match (k, rng.below(5)) {
            (5, 0) => {
                let _ = writeln!(s, "  double d = x;\n  return (float)(d * 2);");
            }
            (5, 1) => {
                let _ = writeln!(s, "  sycl::half h = x;\n  return (float)h;");
            }
            (5, 2) => {
                let _ = writeln!(s, "  return x * 0.5;");
            }
            (5, _) => {
                let _ = writeln!(s, "  return x + 1.0f;");
            }
            (_, _) => {
                let _ = writeln!(s, "  return chain{}(x + 1.0f);", k + 1);
            }
        }
        let _ = writeln!(s, "}}");
    }
    // Templates, structs, aliases.
    let _ = writeln!(
        s,
        "template <typename T> T scale(T a, T b) {{ return a * b; }}\nstruct Acc{i} {{\n  real_t total;\n  void add(float v) {{ total += v; }}\n}};"
    );
    // Kernels: some decorated, some calling into the next file's chain.
    let _ = writeln!(
        s,
        "void run(sycl::queue &q, float *p, unsigned long long *c) {{"
    );
    for k in 0..4 {
        let decorated = rng.below(3) == 0;
        let attr = if decorated {
            format!(
                " [[sycl::device_has(sycl::aspect::{})]]",
                ASPECTS[rng.below(4) as usize]
            )
        } else {
            String::new()
        };
        let body = match rng.below(4) {
            0 => "p[i] = chain0(p[i]);".to_string(),
            1 => format!("p[i] = ns{next}::chain0(p[i]);"),
            2 => "sycl::atomic_ref<unsigned long long, sycl::memory_order::relaxed, sycl::memory_scope::device> a(*c); a++;".to_string(),
            _ => "p[i] = scale(p[i], 2.0f);".to_string(),
        };
        let _ = writeln!(
            s,
            "  q.parallel_for(sycl::range<1>{{{}}}, [=](sycl::id<1> i){attr} {{\n    {body}\n  }});",
            64 * (k + 1)
        );
    }
    let _ = writeln!(s, "}}");
    // Filler: host code, so files have realistic size.
    for k in 0..12 {
        let _ = writeln!(s, "int host_util{k}(int a, int b) {{\n  int r = 0;\n  for (int j = 0; j < a; ++j) {{\n    r += j * b + {k};\n  }}\n  return r;\n}}");
    }
    // Some half-typed code.
    if rng.below(20) == 0 {
        let _ = writeln!(
            s,
            "void unfinished(int a) {{\n  int b = a +\n  call(b, ;\n}}"
        );
    }
    let _ = writeln!(s, "}} // namespace ns{i}");
    s
}

const COMMON: &str = "#pragma once\n#include <sycl/sycl.hpp>\nusing real_t = double;\nstruct [[__sycl_detail__::__uses_aspects__(sycl::aspect::fp16)]] Tagged { int v; };\n";

/// Writes about `lines` lines of synthetic SYCL into `dir`; returns the number of files.
pub fn generate(dir: &Path, lines: usize, seed: u64) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("common.hpp"), COMMON)?;
    let mut rng = Rng::new(seed);
    let sample = source_file(0, 2, &mut Rng::new(seed));
    let per_file = sample.lines().count().max(1);
    let files = (lines / per_file).max(1);
    for i in 0..files {
        let sub = dir.join(format!("part{}", i / 100));
        std::fs::create_dir_all(&sub)?;
        let text = source_file(i, files, &mut rng)
            .replace("#include \"common.hpp\"", "#include \"../common.hpp\"");
        std::fs::write(sub.join(format!("file{i}.cpp")), text)?;
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_parses_mostly() {
        let a = source_file(3, 10, &mut Rng::new(7));
        let b = source_file(3, 10, &mut Rng::new(7));
        assert_eq!(a, b);
        assert!(a.lines().count() > 100);
        let facts = crate::syntax::extract(&a);
        assert!(facts.functions.iter().any(|f| f.name == "chain5"));
        assert!(facts.functions.iter().filter(|f| f.is_lambda).count() >= 4);
    }
}

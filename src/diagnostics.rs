//! Problems found in user input, with stable codes and exact positions.
//!
//! Domain data only: the CLI renders these as compiler-style text, JSON or SARIF, the daemon
//! as JSON, and the language server converts them to LSP types (`lsp::convert`).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::text::{LineCol, LineIndex, TextRange};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

macro_rules! codes {
    ($($variant:ident => $text:literal, $severity:ident, $meaning:literal, $help:literal;)*) => {
        /// Stable diagnostic codes: tools match on the string, so never rename one.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code { $($variant,)* }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $text,)* }
            }

            /// The severity findings of this code have.
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }

            /// What a finding means, in Markdown (protocol.md's table of codes is this text).
            pub fn meaning(self) -> &'static str {
                match self { $(Code::$variant => $meaning,)* }
            }

            /// How to act on a finding, in Markdown (code scanning shows it beside each result).
            pub fn help(self) -> &'static str {
                match self { $(Code::$variant => $help,)* }
            }
        }
    };
}

codes! {
    YamlSyntax => "yaml-syntax", Error,
        "the file is not YAML; it contributes nothing (a running server keeps its previous entries)",
        "Fix the YAML syntax at the reported position.";
    InvalidUtf8 => "invalid-utf8", Error,
        "the file is not UTF-8 text; reported at the first invalid byte",
        "Save the file as UTF-8.";
    EmptyConfig => "empty-config", Warning,
        "the file has no entries",
        "Add target entries (`name: {aspects: [...]}`) or stop passing the file.";
    MultipleDocuments => "multiple-documents", Warning,
        "only the first YAML document is read",
        "Merge the documents into one: DPC++ reads only the first.";
    WrongType => "wrong-type", Error,
        "a value of the wrong type (the entry is dropped)",
        "Give the field the type the device-config format expects (see `sycl-analyzer schema`).";
    UnknownKey => "unknown-key", Warning,
        "a field the format does not have, with did-you-mean (ignored)",
        "Rename the field to one of the format's keys, or remove it.";
    DuplicateKey => "duplicate-key", Warning,
        "a field given twice in one entry; the last one wins",
        "Remove one of the two fields.";
    MissingKey => "missing-key", Error,
        "an entry without `aspects` (the entry is dropped)",
        "Add `aspects: [...]` to the entry (an empty list is allowed).";
    UnknownAspect => "unknown-aspect", Error,
        "an aspect name or number the registry does not know, with did-you-mean (the entry is dropped)",
        "Use an aspect name from `sycl-analyzer aspects`; the message suggests the closest ones.";
    DeprecatedAspect => "deprecated-aspect", Warning,
        "a deprecated aspect (`host`, `int64_base_atomics`, ...)",
        "Replace the aspect by the one the message names.";
    DuplicateAspect => "duplicate-aspect", Warning,
        "an aspect listed twice in one entry",
        "Remove the second occurrence.";
    DuplicateTarget => "duplicate-target", Warning,
        "a target defined twice in one file; the last definition wins",
        "Keep one definition of the target.";
    InvalidSubGroupSize => "invalid-sub-group-size", Error,
        "a sub-group size that is zero or negative (the entry is dropped)",
        "Give positive sub-group sizes.";
    AliasTargetName => "alias-target-name", Warning,
        "an entry written under an alias (`intel_gpu_12_60_7`); it applies to the canonical name",
        "Write the entry under the canonical target name the message gives.";
    InvalidTarget => "invalid-target", Error,
        "`SYCL target is invalid: 'X'`, the driver's wording, with did-you-mean; when a device-config file dropped an entry named X for its errors, instead of names like it: `...: the entry 'X' of FILE:LINE was dropped for its errors (reported on that file)`",
        "Use a target name from `sycl-analyzer targets`; the message suggests the closest ones, \
         or names the device-config entry of that name that was dropped: fix its errors.";
    EmptyTargets => "empty-targets", Error,
        "an empty target list (`--targets \"\"`, an empty `-fsycl-targets=`): the DPC++ driver refuses it, so the run stops (exit 2) instead of answering for the implicit `spir64`",
        "Name the targets (`--targets intel_gpu_pvc`), or leave the option out for the implicit `spir64` (an unset CI variable expands to the empty list).";
    InvalidCompileDatabase => "invalid-compile-database", Error,
        "a `compile_commands.json` that is not a JSON array of objects, or an entry without `directory`, `file` or `command`/`arguments`, as clangd refuses it (the run stops: exit 2)",
        "Fix the entry the message names (its index and position are given); CMake writes complete entries with `-DCMAKE_EXPORT_COMPILE_COMMANDS=ON`.";
    NoSource => "no-source", Error,
        "the paths hold no C++ source the analysis can read (none, or only binary, unreadable or oversized files): nothing was checked, so the run stops (exit 2)",
        "Pass the directory or files of the project's sources; a file skipped is named in a `file-skipped` note.";
    RunFailed => "run-failed", Error,
        "the run could not read an input or write an output (exit 2)",
        "Act on the message: a path that does not exist, a file that cannot be read, an option that does not apply.";
    AspectMismatch => "aspect-mismatch", Warning,
        "a function or kernel decorated with `device_has` uses an aspect it does not list (with `function`, `aspect`, `chain`)",
        "The call chain leads to the use. Add the aspect to the `[[sycl::device_has(...)]]` list, or \
         change the use (a `float` literal `0.5f` instead of `0.5`, a 32-bit atomic). DPC++ warns \
         the same at compile time, and the kernel cannot run on a device without the aspect.";
    TargetUnsupportedAspect => "target-unsupported-aspect", Warning,
        "a kernel or `SYCL_EXTERNAL` function uses or declares an aspect that no device of a configured target has; a target whose entry in the default table is one of DPC++'s empty placeholders (no aspect at all: `amd_gpu_gfx1200`, `amd_gpu_gfx1201`) is said to be one, with the `--config` entry that fixes it",
        "The AOT image for that target will not contain the kernel; launching it there throws \
         `errc::kernel_not_supported`. Drop the target, guard the use with `if_architecture_is` or \
         a `__SYCL_ANY_DEVICE_HAS_*__` macro, or stop using the aspect. For a target the message \
         says is an empty placeholder, give its devices' aspects in a `--config` entry (and to \
         DPC++ with `-fsycl-device-config-file=`).";
    LibraryKernelUnsupportedAspect => "library-kernel-unsupported-aspect", Warning,
        "a oneMKL / oneMath routine called on `double`, `std::complex<double>` or `sycl::half` data runs a precompiled library kernel that needs an aspect (`fp64`, `fp16`) no device of a configured target has (with `function`: the routine, `aspect`, `chain`: the data argument)",
        "The library's kernel is not compiled with the program, so DPC++ cannot warn; the call \
         throws at run time on such a device. Use `float` / `std::complex<float>` data there, \
         check `device.has(aspect)` before the call, or drop the target.";
    TargetUnsupportedSubGroupSize => "target-unsupported-sub-group-size", Warning,
        "`reqd_sub_group_size(N)` with N not among a configured target's sub-group sizes",
        "Use a sub-group size every configured target supports (`sycl-analyzer targets` lists them).";
    IfArchitectureNotAot => "if-architecture-not-aot", Error,
        "`if_architecture_is` while a configured target has no `__SYCL_TARGET_*__` macro",
        "`if_architecture_is` needs AOT targets: name specific devices in `-fsycl-targets`.";
    FileSkipped => "file-skipped", Note,
        "a source file not analysed: binary, over 8 MB, unreadable",
        "Exclude the file (`.gitignore`) or make it a readable C++ source under 8 MB.";
    InstantiationLimit => "instantiation-limit", Note,
        "a template reached from device code has more instances than the analysis makes (256 per template, 20 000 per independent part): the rest are analysed as the generic pattern",
        "Findings that depend on the template arguments of the instances past the limit may be missing; split the code into smaller programs, or report the case.";
    UnboundDevice => "unbound-device", Note,
        "an ocloc `-device` name in `compile_commands.json` that names no device of the device table (a release or family name, a PCI id, a range): the generic `spir64_gen` target is checked for it",
        "Name the device as the driver's tables do (`acm_g10`, `acm-g10`, `12.55.8`; `sycl-analyzer targets` lists them), or pass `--targets spir64_gen:DEVICE` for the device the build is for.";
    SyclLsMalformed => "sycl-ls-malformed", Error,
        "`config from-sycl-ls`: input that is not a whole `sycl-ls --verbose` transcript (output without `--verbose`, a line out of place, a count that is not a number, fewer platforms or devices than announced: cut short); nothing is written",
        "Run `sycl-ls --verbose` again and pass its whole standard output (`sycl-ls --verbose > ls.txt`).";
    SyclLsDevicesDiffer => "sycl-ls-devices-differ", Warning,
        "`config from-sycl-ls`: devices that are one target (the same GPU through two backends) report different aspects or sub-group sizes; the entry holds what all of them report",
        "Keep the entry as written (what every backend supports), or convert the transcript of one backend only (`ONEAPI_DEVICE_SELECTOR=level_zero:* sycl-ls --verbose`).";
    SyclLsTargetName => "sycl-ls-target-name", Note,
        "`config from-sycl-ls`: a device whose `Architecture:` is no target of the driver's tables (`unknown`, `x86_64`, missing, or a device the tables lack): the name its entry is written under",
        "Pass that name to `--targets`, or rename the entry (and use the new name).";
    MergeExistingTarget => "merge-existing-target", Warning,
        "`config from-sycl-ls --merge`: the merged file already defines the device's target; its entry is kept and the device's left out",
        "Remove or rename the file's entry first if the device's should replace it.";
}

impl Code {
    /// A problem in what the run was given (a device-config file, a target list, the compile
    /// database, a file it could not read), not a finding in the sources: machine outputs keep
    /// them apart (JSON `problems`, SARIF notifications), and an error among them means the
    /// run could not answer.
    pub fn is_input_problem(self) -> bool {
        !matches!(
            self,
            Code::AspectMismatch
                | Code::TargetUnsupportedAspect
                | Code::LibraryKernelUnsupportedAspect
                | Code::TargetUnsupportedSubGroupSize
                | Code::IfArchitectureNotAot
                | Code::InstantiationLimit
        )
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown diagnostic code '{s}'")))
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Deserialized (from a daemon's answer) without its `range`: [`Diagnostic::locate`] finds it
/// again in the file's text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Diagnostic {
    pub file: Arc<str>,
    #[serde(skip)]
    pub range: TextRange,
    #[serde(flatten)]
    pub pos: LineCol,
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
    /// The function a source-analysis finding is about (`ns::func1(int)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aspect: Option<String>,
    /// The call chain from `function` down to the use, one step per call, the use last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<ChainStep>,
    /// The targets a finding holds for (canonical names): those an AOT finding is about, or
    /// the device compiles a finding is made in when not in all of them. Empty: all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<String>,
}

/// One step of a call chain: a call (`function` is the callee) or the final use.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChainStep {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(rename = "use", skip_serializing_if = "Option::is_none")]
    pub use_: Option<String>,
    pub file: Arc<str>,
    #[serde(skip)]
    pub range: TextRange,
    #[serde(flatten)]
    pub pos: LineCol,
    /// `propagated from call to function 'f(int)'` or `uses 'double' here`.
    pub message: String,
}

impl Diagnostic {
    /// Sets the byte ranges of a deserialized finding and of its chain steps from their line
    /// and column in the texts of their files (`text_of`; a file it has not is left as is).
    pub fn locate(&mut self, text_of: &mut dyn FnMut(&str) -> Option<Arc<str>>) {
        let mut at = |file: &str, pos: LineCol, range: &mut TextRange| {
            if let Some(text) = text_of(file) {
                *range = LineIndex::new(&text).range_of(&text, pos);
            }
        };
        at(&self.file, self.pos, &mut self.range);
        for step in &mut self.chain {
            at(&step.file, step.pos, &mut step.range);
        }
    }

    pub fn new(
        file: Arc<str>,
        range: TextRange,
        pos: LineCol,
        severity: Severity,
        code: Code,
        message: String,
    ) -> Self {
        Diagnostic {
            file,
            range,
            pos,
            severity,
            code,
            message,
            suggestions: Vec::new(),
            function: None,
            aspect: None,
            chain: Vec::new(),
            targets: Vec::new(),
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Collects diagnostics for one text, resolving positions as they are pushed.
pub struct DiagnosticSink<'a> {
    file: Arc<str>,
    text: &'a str,
    index: LineIndex,
    out: Vec<Diagnostic>,
}

impl<'a> DiagnosticSink<'a> {
    pub fn new(file: Arc<str>, text: &'a str) -> Self {
        Self {
            file,
            text,
            index: LineIndex::new(text),
            out: Vec::new(),
        }
    }

    pub fn push(
        &mut self,
        range: TextRange,
        severity: Severity,
        code: Code,
        message: impl Into<String>,
        suggestions: Vec<String>,
    ) {
        self.out.push(Diagnostic {
            file: self.file.clone(),
            range,
            pos: self.index.line_col(self.text, range),
            severity,
            code,
            message: message.into(),
            suggestions,
            function: None,
            aspect: None,
            chain: Vec::new(),
            targets: Vec::new(),
        });
    }

    pub fn error(&mut self, range: TextRange, code: Code, message: impl Into<String>) {
        self.push(range, Severity::Error, code, message, Vec::new());
    }

    pub fn warning(&mut self, range: TextRange, code: Code, message: impl Into<String>) {
        self.push(range, Severity::Warning, code, message, Vec::new());
    }

    /// 1-based line of a byte offset of this sink's text.
    pub fn line_of(&self, offset: usize) -> u32 {
        self.index.position(self.text, offset).0 + 1
    }

    pub fn error_count(&self) -> usize {
        self.out.iter().filter(|d| d.is_error()).count()
    }

    pub fn finish(self) -> Vec<Diagnostic> {
        self.out
    }
}

/// Appends " (did you mean 'a' or 'b'?)" when there are suggestions.
pub fn with_did_you_mean(message: String, suggestions: &[String]) -> String {
    match suggestions {
        [] => message,
        [one] => format!("{message}; did you mean '{one}'?"),
        many => {
            let quoted: Vec<String> = many.iter().map(|s| format!("'{s}'")).collect();
            format!("{message}; did you mean one of {}?", quoted.join(", "))
        }
    }
}

/// Up to `max` candidates close to `input`, best first. Case is ignored when measuring, so
/// `INTEL_GPU_PVC` suggests `intel_gpu_pvc`.
pub fn suggest<'c>(
    input: &str,
    candidates: impl IntoIterator<Item = &'c str>,
    max: usize,
) -> Vec<String> {
    use rapidfuzz::distance::osa;
    let needle = input.to_ascii_lowercase();
    let len = needle.chars().count();
    let limit = (len / 3).clamp(1, 4);
    // Optimal string alignment (an adjacent swap counts one) is the typo distance; the
    // bit-parallel comparator with a cutoff keeps a list of thousands of bad names cheap.
    let comparator = osa::BatchComparator::new(needle.chars());
    let args = osa::Args::default().score_cutoff(limit);
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter(|c| *c != input)
        // The distance is at least the difference in length: most candidates are out cheaply.
        .filter(|c| c.chars().count().abs_diff(len) <= limit)
        .filter_map(|c| {
            let d = comparator.distance_with_args(c.to_ascii_lowercase().chars(), &args)?;
            Some((d, c))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(max)
        .map(|(_, c)| c.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for c in Code::ALL {
            assert!(seen.insert(c.as_str()), "duplicate code {}", c.as_str());
            assert!(c
                .as_str()
                .chars()
                .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-'));
        }
    }

    #[test]
    fn suggestions_are_ranked_and_limited() {
        let cands = ["fp16", "fp64", "gpu", "cpu", "atomic64"];
        assert_eq!(suggest("fp61", cands, 3), vec!["fp16", "fp64"]);
        assert_eq!(suggest("FP16", cands, 3), vec!["fp16"]);
        assert!(suggest("completely_unrelated", cands, 3).is_empty());
        assert_eq!(suggest("gpu", cands, 1), vec!["cpu"]);
    }

    #[test]
    fn did_you_mean_wording() {
        assert_eq!(with_did_you_mean("x".into(), &[]), "x");
        assert_eq!(
            with_did_you_mean("x".into(), &["a".into()]),
            "x; did you mean 'a'?"
        );
        assert_eq!(
            with_did_you_mean("x".into(), &["a".into(), "b".into()]),
            "x; did you mean one of 'a', 'b'?"
        );
    }
}

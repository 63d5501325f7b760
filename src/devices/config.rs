//! The device-config YAML format (seed 004, DPC++'s `-fsycl-device-config-file=`):
//!
//! ```yaml
//! intel_gpu_skl:
//!   aspects: [fp16, fp64, 27]        # names, or numbers of the newest numbering
//!   may_support_other_aspects: false
//!   sub-group-sizes: [8, 16, 32]
//!   aot-toolchain: ocloc             # optional; auto-detected for intel_gpu_*
//!   aot-toolchain-options: -device skl
//! ```
//!
//! Loading never fails: it returns the entries it could read plus diagnostics. An entry with an
//! error is left out; a file that is not YAML at all has no entries (`None`), so the caller can
//! keep what it had before.

use std::sync::Arc;

use indexmap::IndexMap;

use super::aspects::{registry, AspectSet};
use super::names::driver_names;
use super::yaml::{self, Node, Value};
use crate::diagnostics::{suggest, with_did_you_mean, Code, Diagnostic, DiagnosticSink, Severity};
use crate::text::{char_range_at, TextRange};

pub const KEY_ASPECTS: &str = "aspects";
pub const KEY_MAY_SUPPORT: &str = "may_support_other_aspects";
pub const KEY_SUB_GROUP_SIZES: &str = "sub-group-sizes";
pub const KEY_AOT_TOOLCHAIN: &str = "aot-toolchain";
pub const KEY_AOT_OPTIONS: &str = "aot-toolchain-options";
pub const KEYS: [&str; 5] = [
    KEY_ASPECTS,
    KEY_MAY_SUPPORT,
    KEY_SUB_GROUP_SIZES,
    KEY_AOT_TOOLCHAIN,
    KEY_AOT_OPTIONS,
];

/// What is known about one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetInfo {
    pub aspects: AspectSet,
    pub may_support_other_aspects: bool,
    pub sub_group_sizes: Vec<u32>,
    pub aot_toolchain: Option<String>,
    pub aot_toolchain_options: Option<String>,
    /// The file the entry came from ([`BUILTIN_FILE`] for the embedded table).
    pub source: Arc<str>,
}

pub const BUILTIN_FILE: &str = "<builtin>";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetEntry {
    pub name: String,
    pub name_range: TextRange,
    pub info: TargetInfo,
}

/// The result of loading one config text.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigFile {
    pub file: Arc<str>,
    /// Valid entries in file order, the last of duplicates kept; `None` when the text is not a
    /// usable YAML document.
    pub entries: Option<Vec<TargetEntry>>,
    pub diagnostics: Vec<Diagnostic>,
    /// The entries left out for their errors.
    pub dropped: Vec<DroppedEntry>,
}

/// An entry left out for its errors. A target of its name is then unknown to the table, and
/// saying that the entry was dropped tells more than suggesting other names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedEntry {
    pub name: String,
    pub file: Arc<str>,
    /// 1-based, the line of the entry's name.
    pub line: u32,
}

impl ConfigFile {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Loads a config file's raw bytes; invalid UTF-8 is reported at the first bad byte.
pub fn load_bytes(file: Arc<str>, bytes: &[u8]) -> ConfigFile {
    match std::str::from_utf8(bytes) {
        Ok(text) => load(file, text),
        Err(e) => {
            let lossy = String::from_utf8_lossy(bytes);
            let at = e.valid_up_to();
            let mut sink = DiagnosticSink::new(file.clone(), &lossy);
            // Positions come from the lossy text, whose prefix up to the bad byte is the
            // file's; the range itself is kept in the file's bytes.
            sink.error(
                char_range_at(&lossy, at),
                Code::InvalidUtf8,
                format!("file is not UTF-8 text (invalid byte 0x{:02x})", bytes[at]),
            );
            let mut diagnostics = sink.finish();
            diagnostics[0].range =
                TextRange::new(at, at + e.error_len().unwrap_or(bytes.len() - at));
            ConfigFile {
                file,
                entries: None,
                diagnostics,
                dropped: Vec::new(),
            }
        }
    }
}

/// Loads a config text. Pure: no IO, the file name only labels diagnostics and entries.
pub fn load(file: Arc<str>, text: &str) -> ConfigFile {
    let mut sink = DiagnosticSink::new(file.clone(), text);
    let mut dropped = Vec::new();
    let entries = load_into(&file, text, &mut sink, &mut dropped);
    ConfigFile {
        file,
        entries,
        diagnostics: sink.finish(),
        dropped,
    }
}

fn load_into(
    file: &Arc<str>,
    text: &str,
    sink: &mut DiagnosticSink,
    dropped: &mut Vec<DroppedEntry>,
) -> Option<Vec<TargetEntry>> {
    let docs = match yaml::parse(text) {
        Ok(docs) => docs,
        Err(e) => {
            sink.error(
                char_range_at(text, e.offset),
                Code::YamlSyntax,
                format!("invalid YAML: {}", e.message),
            );
            return None;
        }
    };
    if let Some(second) = docs.get(1) {
        sink.warning(
            TextRange::empty(second.range.start),
            Code::MultipleDocuments,
            "only the first YAML document of a device config is read",
        );
    }
    let root = match docs.into_iter().next() {
        None
        | Some(Node {
            value: Value::Null, ..
        }) => {
            sink.warning(
                TextRange::empty(0),
                Code::EmptyConfig,
                "device config is empty: it defines no target",
            );
            return Some(Vec::new());
        }
        Some(root) => root,
    };
    let Value::Map(pairs) = root.value else {
        sink.error(
            root.range,
            Code::WrongType,
            format!(
                "a device config is a mapping from target names to entries, found {}",
                root.kind_name()
            ),
        );
        return None;
    };

    let mut entries: IndexMap<String, TargetEntry> = IndexMap::new();
    let mut seen: IndexMap<String, TextRange> = IndexMap::new();
    for (key, value) in &pairs {
        let Some(raw_name) = key.as_str().filter(|s| !s.is_empty()) else {
            sink.error(
                key.range,
                Code::WrongType,
                format!(
                    "a target name must be a non-empty string, found {}",
                    key.kind_name()
                ),
            );
            continue;
        };
        let name = canonical_entry_name(raw_name, key.range, sink);
        if let Some(first) = seen.insert(name.clone(), key.range) {
            let first_line = sink.line_of(first.start);
            sink.warning(
                key.range,
                Code::DuplicateTarget,
                format!(
                    "target '{name}' is defined more than once in this file (first on line \
                     {first_line}); the last definition wins"
                ),
            );
        }
        match read_entry(&name, key, value, file, sink) {
            Some(info) => {
                entries.shift_remove(&name);
                entries.insert(
                    name.clone(),
                    TargetEntry {
                        name,
                        name_range: key.range,
                        info,
                    },
                );
            }
            None => dropped.push(DroppedEntry {
                line: sink.line_of(key.range.start),
                name,
                file: file.clone(),
            }),
        }
    }
    Some(entries.into_values().collect())
}

/// The driver looks entries up by canonical name, so an entry under an alias would never be
/// used; it is applied to the canonical name, with a warning.
fn canonical_entry_name(raw: &str, range: TextRange, sink: &mut DiagnosticSink) -> String {
    match driver_names().canonical_of_alias(raw) {
        Some(canonical) => {
            sink.warning(
                range,
                Code::AliasTargetName,
                format!(
                    "'{raw}' is an alias of '{canonical}'; the entry applies to '{canonical}' \
                     (write the canonical name)"
                ),
            );
            canonical.to_string()
        }
        None => raw.to_string(),
    }
}

fn read_entry(
    name: &str,
    key: &Node,
    value: &Node,
    file: &Arc<str>,
    sink: &mut DiagnosticSink,
) -> Option<TargetInfo> {
    let Value::Map(fields) = &value.value else {
        let range = if value.value == Value::Null {
            key.range
        } else {
            value.range
        };
        sink.error(
            range,
            Code::WrongType,
            format!(
                "the entry of target '{name}' must be a mapping with at least 'aspects', found {}",
                value.kind_name()
            ),
        );
        return None;
    };
    let errors_before = sink.error_count();
    let mut aspects = None;
    let mut may_support = false;
    let mut sub_group_sizes = Vec::new();
    let mut aot_toolchain = None;
    let mut aot_options = None;
    let mut seen_keys: Vec<&str> = Vec::new();
    for (k, v) in fields {
        let Some(field) = k.as_str() else {
            sink.error(
                k.range,
                Code::WrongType,
                format!("a field name must be a string, found {}", k.kind_name()),
            );
            continue;
        };
        if seen_keys.contains(&field) {
            sink.warning(
                k.range,
                Code::DuplicateKey,
                format!("field '{field}' is given twice; the last one wins"),
            );
        }
        seen_keys.push(field);
        match field {
            KEY_ASPECTS => aspects = read_aspects(v, sink),
            KEY_MAY_SUPPORT => match v.value {
                Value::Bool(b) => may_support = b,
                // TableGen writes this flag as a bit.
                Value::Int(i @ (0 | 1)) => may_support = i == 1,
                _ => expected(sink, v, field, "true or false"),
            },
            KEY_SUB_GROUP_SIZES => sub_group_sizes = read_sub_group_sizes(v, sink),
            KEY_AOT_TOOLCHAIN => aot_toolchain = read_string(v, field, sink),
            KEY_AOT_OPTIONS => aot_options = read_string(v, field, sink),
            other => {
                let suggestions = suggest(other, KEYS, 1);
                let message = with_did_you_mean(
                    format!("unknown field '{other}' in the entry of target '{name}' (ignored)"),
                    &suggestions,
                );
                sink.push(
                    k.range,
                    Severity::Warning,
                    Code::UnknownKey,
                    message,
                    suggestions,
                );
            }
        }
    }
    if !seen_keys.contains(&KEY_ASPECTS) {
        sink.error(
            key.range,
            Code::MissingKey,
            format!("the entry of target '{name}' has no 'aspects' list"),
        );
    }
    if sink.error_count() > errors_before {
        return None;
    }
    let (auto_toolchain, auto_options) = auto_detect_aot(name);
    Some(TargetInfo {
        aspects: aspects.unwrap_or_default(),
        may_support_other_aspects: may_support,
        sub_group_sizes,
        aot_toolchain: aot_toolchain.or(auto_toolchain),
        aot_toolchain_options: aot_options.or(auto_options),
        source: file.clone(),
    })
}

/// Seed 004: `intel_gpu_<suffix>` compiles with ocloc `-device <suffix>`.
pub fn auto_detect_aot(name: &str) -> (Option<String>, Option<String>) {
    match name.strip_prefix("intel_gpu_") {
        Some(suffix) if !suffix.is_empty() => {
            (Some("ocloc".into()), Some(format!("-device {suffix}")))
        }
        _ => (None, None),
    }
}

fn expected(sink: &mut DiagnosticSink, v: &Node, field: &str, what: &str) {
    sink.error(
        v.range,
        Code::WrongType,
        format!("'{field}' must be {what}, found {}", v.kind_name()),
    );
}

fn read_string(v: &Node, field: &str, sink: &mut DiagnosticSink) -> Option<String> {
    match &v.value {
        Value::Str(s) if !s.is_empty() => Some(s.clone()),
        // An empty value means "not given", as in the upstream table.
        Value::Str(_) | Value::Null => None,
        _ => {
            expected(sink, v, field, "a string");
            None
        }
    }
}

fn read_aspects(v: &Node, sink: &mut DiagnosticSink) -> Option<AspectSet> {
    let Value::Seq(items) = &v.value else {
        expected(sink, v, KEY_ASPECTS, "a list of aspect names");
        return None;
    };
    let reg = registry();
    let mut set = AspectSet::EMPTY;
    for item in items {
        let id = match &item.value {
            Value::Str(name) => reg.by_name(name).ok_or_else(|| {
                let suggestions = suggest(name, reg.names(), 3);
                (format!("unknown aspect '{name}'"), suggestions)
            }),
            Value::Int(n) => reg
                .by_value(*n)
                .ok_or_else(|| (format!("no aspect has the number {n}"), Vec::new())),
            _ => {
                expected(sink, item, "an aspect", "a name or a number");
                continue;
            }
        };
        match id {
            Ok(id) => {
                let info = reg.get(id);
                if let Some(why) = &info.deprecated {
                    sink.warning(
                        item.range,
                        Code::DeprecatedAspect,
                        format!("aspect '{}' is deprecated: {why}", info.name),
                    );
                }
                if !set.insert(id) {
                    sink.warning(
                        item.range,
                        Code::DuplicateAspect,
                        format!("aspect '{}' is listed twice", info.name),
                    );
                }
            }
            Err((message, suggestions)) => {
                let message = with_did_you_mean(message, &suggestions);
                sink.push(
                    item.range,
                    Severity::Error,
                    Code::UnknownAspect,
                    message,
                    suggestions,
                );
            }
        }
    }
    Some(set)
}

fn read_sub_group_sizes(v: &Node, sink: &mut DiagnosticSink) -> Vec<u32> {
    let Value::Seq(items) = &v.value else {
        expected(sink, v, KEY_SUB_GROUP_SIZES, "a list of positive integers");
        return Vec::new();
    };
    let mut sizes = Vec::new();
    for item in items {
        match item.value {
            Value::Int(n) if n > 0 && n <= u32::MAX as i64 => sizes.push(n as u32),
            Value::Int(n) => sink.error(
                item.range,
                Code::InvalidSubGroupSize,
                format!("sub-group size must be a positive integer, found {n}"),
            ),
            _ => expected(sink, item, "a sub-group size", "a positive integer"),
        }
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::LineCol;

    fn load_test(text: &str) -> ConfigFile {
        load(Arc::from("test.yaml"), text)
    }

    /// (code, line, column, end_line, end_column) of every diagnostic.
    fn positions(cfg: &ConfigFile) -> Vec<(&'static str, u32, u32, u32, u32)> {
        cfg.diagnostics
            .iter()
            .map(|d| {
                let LineCol {
                    line,
                    column,
                    end_line,
                    end_column,
                } = d.pos;
                (d.code.as_str(), line, column, end_line, end_column)
            })
            .collect()
    }

    #[test]
    fn reads_a_full_entry() {
        let cfg = load_test(
            "intel_gpu_foo:\n  aspects: [fp16, 6, atomic64]\n  may_support_other_aspects: true\n  sub-group-sizes: [8, 16]\n",
        );
        assert!(cfg.diagnostics.is_empty(), "{:?}", cfg.diagnostics);
        let entries = cfg.entries.unwrap();
        let e = &entries[0];
        assert_eq!(e.name, "intel_gpu_foo");
        assert_eq!(
            registry().sorted_names(e.info.aspects),
            ["atomic64", "fp16", "fp64"]
        );
        assert!(e.info.may_support_other_aspects);
        assert_eq!(e.info.sub_group_sizes, [8, 16]);
        assert_eq!(e.info.aot_toolchain.as_deref(), Some("ocloc"));
        assert_eq!(e.info.aot_toolchain_options.as_deref(), Some("-device foo"));
    }

    #[test]
    fn user_aot_values_win_over_auto_detection() {
        let cfg =
            load_test("intel_gpu_x:\n  aspects: []\n  aot-toolchain-options: -device 0x56c0\n");
        let e = &cfg.entries.unwrap()[0];
        assert_eq!(e.info.aot_toolchain.as_deref(), Some("ocloc"));
        assert_eq!(
            e.info.aot_toolchain_options.as_deref(),
            Some("-device 0x56c0")
        );
        let cfg = load_test("my_fpga:\n  aspects: []\n");
        assert_eq!(cfg.entries.unwrap()[0].info.aot_toolchain, None);
    }

    #[test]
    fn syntax_error_position_and_no_entries() {
        let cfg = load_test("a:\n  aspects: [fp16\n");
        assert_eq!(cfg.entries, None);
        assert_eq!(positions(&cfg), [("yaml-syntax", 3, 1, 3, 1)]);
        assert!(cfg.has_errors());
    }

    #[test]
    fn unknown_aspect_spans_the_value_and_drops_only_that_entry() {
        let cfg = load_test("good:\n  aspects: [fp16]\nbad:\n  aspects: [fp61, gpu]\n");
        assert_eq!(positions(&cfg), [("unknown-aspect", 4, 13, 4, 17)]);
        assert_eq!(cfg.diagnostics[0].suggestions, ["fp16", "fp64"]);
        assert!(cfg.diagnostics[0].message.contains("did you mean"));
        let names: Vec<_> = cfg.entries.unwrap().into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["good"]);
    }

    #[test]
    fn a_dropped_entry_is_named_with_its_line() {
        let cfg = load_test("good:\n  aspects: [fp16]\nbad:\n  aspects: [fp61]\n");
        let dropped: Vec<_> = cfg.dropped.iter().map(|d| (&*d.name, d.line)).collect();
        assert_eq!(dropped, [("bad", 3)]);
        assert_eq!(&*cfg.dropped[0].file, "test.yaml");
    }

    #[test]
    fn unknown_aspect_number() {
        let cfg = load_test("t:\n  aspects: [100]\n");
        assert_eq!(positions(&cfg), [("unknown-aspect", 2, 13, 2, 16)]);
    }

    #[test]
    fn unknown_key_is_a_warning_with_suggestion() {
        let cfg = load_test("t:\n  aspects: []\n  sub_group_sizes: [8]\n");
        assert_eq!(positions(&cfg), [("unknown-key", 3, 3, 3, 18)]);
        assert_eq!(cfg.diagnostics[0].severity, Severity::Warning);
        assert_eq!(cfg.diagnostics[0].suggestions, ["sub-group-sizes"]);
        assert_eq!(cfg.entries.unwrap().len(), 1);
    }

    #[test]
    fn wrong_types_are_errors_at_the_value() {
        let cfg = load_test(
            "t:\n  aspects: fp16\nu:\n  aspects: []\n  may_support_other_aspects: maybe\nv:\n  aspects: []\n  sub-group-sizes: [8, x]\nw: 5\n",
        );
        assert_eq!(
            positions(&cfg),
            [
                ("wrong-type", 2, 12, 2, 16),
                ("wrong-type", 5, 30, 5, 35),
                ("wrong-type", 8, 24, 8, 25),
                ("wrong-type", 9, 4, 9, 5),
            ]
        );
        assert_eq!(cfg.entries.unwrap().len(), 0);
    }

    #[test]
    fn zero_and_negative_sub_group_sizes() {
        let cfg = load_test("t:\n  aspects: []\n  sub-group-sizes: [0, -8, 16]\n");
        assert_eq!(
            positions(&cfg),
            [
                ("invalid-sub-group-size", 3, 21, 3, 22),
                ("invalid-sub-group-size", 3, 24, 3, 26)
            ]
        );
        assert!(cfg.entries.unwrap().is_empty());
    }

    #[test]
    fn duplicate_target_warns_and_last_wins() {
        let cfg = load_test("t:\n  aspects: [fp16]\nt:\n  aspects: [fp64]\n");
        assert_eq!(positions(&cfg), [("duplicate-target", 3, 1, 3, 2)]);
        assert!(cfg.diagnostics[0].message.contains("line 1"));
        let entries = cfg.entries.unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(registry().sorted_names(entries[0].info.aspects), ["fp64"]);
    }

    #[test]
    fn missing_aspects_and_null_entry() {
        let cfg = load_test("t:\n  sub-group-sizes: [8]\nu:\n");
        assert_eq!(
            positions(&cfg),
            [("missing-key", 1, 1, 1, 2), ("wrong-type", 3, 1, 3, 2)]
        );
    }

    #[test]
    fn empty_file_and_comment_only_file() {
        for text in ["", "# nothing\n", "---\n"] {
            let cfg = load_test(text);
            assert_eq!(positions(&cfg), [("empty-config", 1, 1, 1, 1)], "{text:?}");
            assert_eq!(cfg.entries, Some(Vec::new()));
            assert!(!cfg.has_errors());
        }
    }

    #[test]
    fn top_level_list_is_refused() {
        let cfg = load_test("- a\n- b\n");
        assert_eq!(cfg.entries, None);
        assert_eq!(positions(&cfg), [("wrong-type", 1, 1, 2, 4)]);
    }

    #[test]
    fn binary_garbage_reports_the_first_bad_byte() {
        let cfg = load_bytes(Arc::from("bin.yaml"), b"ok: 1\nx\xff\xfe\x00");
        assert_eq!(cfg.entries, None);
        assert_eq!(positions(&cfg), [("invalid-utf8", 2, 2, 2, 3)]);
        let cfg = load_bytes(Arc::from("nul.yaml"), b"\x00\x01\x02garbage");
        assert_eq!(cfg.entries, None);
        assert_eq!(cfg.diagnostics[0].code, Code::YamlSyntax);
    }

    #[test]
    fn deprecated_and_duplicate_aspects_warn() {
        let cfg = load_test("t:\n  aspects: [host, fp16, fp16]\n");
        assert_eq!(
            positions(&cfg),
            [
                ("deprecated-aspect", 2, 13, 2, 17),
                ("duplicate-aspect", 2, 25, 2, 29)
            ]
        );
        assert_eq!(cfg.entries.unwrap().len(), 1);
    }

    #[test]
    fn alias_key_applies_to_canonical_name() {
        let cfg = load_test("intel_gpu_12_60_7:\n  aspects: [fp16]\n");
        assert_eq!(positions(&cfg), [("alias-target-name", 1, 1, 1, 18)]);
        assert_eq!(cfg.entries.unwrap()[0].name, "intel_gpu_pvc");
    }

    #[test]
    fn columns_count_characters_after_non_ascii() {
        let cfg = load_test("gpu_é:\n  aspects: [fp16]\n  ünknown: 1\n");
        assert_eq!(positions(&cfg), [("unknown-key", 3, 3, 3, 10)]);
    }

    #[test]
    fn a_field_given_twice_warns_and_the_last_wins() {
        let cfg = load_test("t:\n  aspects: [fp16]\n  aspects: [fp64]\n");
        assert_eq!(positions(&cfg), [("duplicate-key", 3, 3, 3, 10)]);
        let e = &cfg.entries.unwrap()[0];
        assert_eq!(registry().sorted_names(e.info.aspects), ["fp64"]);
    }

    #[test]
    fn multiple_documents_read_the_first() {
        let cfg = load_test("t:\n  aspects: []\n---\nu:\n  aspects: []\n");
        assert_eq!(positions(&cfg), [("multiple-documents", 4, 1, 4, 1)]);
        assert_eq!(cfg.entries.unwrap().len(), 1);
    }
}

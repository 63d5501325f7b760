//! `sycl-ls --verbose` transcripts read into device-config entries (`config from-sycl-ls`).
//! Pure: text in, devices, entries, YAML text and diagnostics out.
//!
//! The format is the one `sycl/tools/sycl-ls/sycl-ls.cpp` prints (intel/llvm, read at
//! codeplaysoftware/intel-llvm-mirror@7866c505608eb74ab6ebaa758e819a8f4f73c30c, the layout of
//! intel/llvm's sycl branch since the `Architecture:` line came in; intel/llvm@f9e63b05 is an
//! older one, without `UUID`... nor `Architecture:`):
//!
//! ```text
//! [level_zero:gpu][level_zero:0] Intel(R) oneAPI Unified Runtime over Level-Zero, Intel(R) ... [1.6.31294+21]
//!                                                  (one such line per device, then, with --verbose:)
//! Platforms: 2
//! Platform [#1]:
//!     Version  : 1.6
//!     Name     : Intel(R) oneAPI Unified Runtime over Level-Zero
//!     Vendor   : Intel(R) Corporation
//!     Devices  : 1
//!         Device [#0]:                        (left out when a device filter is set)
//!         Type              : gpu
//!         Version           : 12.60.7
//!         Name              : Intel(R) Data Center GPU Max 1100
//!         Vendor            : Intel(R) Corporation
//!         Driver            : 1.6.31294+21
//!         UUID              : ...             (only with ext_intel_device_info_uuid)
//!         DeviceID          : 3034            (or UNKNOWN)
//!         Num SubDevices    : 0
//!         Num SubSubDevices : 0
//!         Aspects           : gpu fp16 fp64 ...        (the aspects.def names `device::has`)
//!         info::device::sub_group_sizes: 16 32
//!         Architecture: intel_gpu_pvc                  (device_architecture.def name, or unknown)
//! default_selector()      : gpu, ...          (the selectors' choices, not read)
//! ```
//!
//! Older releases print fewer fields (`Type       :`, no `UUID`... nor `Architecture:`); the
//! fields are read by name, whatever their padding, and a field this reader does not know is
//! skipped. The device's target is its `Architecture:` when that is a device the driver's tables
//! or the device table know (`intel_gpu_pvc`, `nvidia_gpu_sm_80`, `intel_cpu_spr`); else a name
//! made from the device's name (`x86_64` names every x86 CPU, `unknown` none).

use std::sync::Arc;

use indexmap::IndexMap;

use super::aspects::{registry, AspectSet};
use super::names::DEVICE_PREFIXES;
use super::table::DeviceTable;
use super::targets::resolve;
use crate::diagnostics::{suggest, with_did_you_mean, Code, Diagnostic, DiagnosticSink, Severity};
use crate::text::TextRange;

/// One device of a transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// Its first line (`Device [#N]:`, else `Type :`).
    pub range: TextRange,
    pub line: u32,
    pub platform: String,
    /// `level_zero`, `opencl`, `cuda`, `hip`...: from the concise listing above the verbose one,
    /// when it lists as many devices.
    pub backend: Option<String>,
    pub device_type: Option<String>,
    pub name: String,
    pub driver: Option<String>,
    pub architecture: Option<String>,
    /// The aspects the registry knows; the others are `unknown-aspect` errors.
    pub aspects: AspectSet,
    pub unknown_aspects: Vec<String>,
    pub sub_group_sizes: Vec<u32>,
}

/// How an entry got its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Naming {
    /// The device's architecture, a target the tables know.
    Architecture,
    /// The device's architecture, a device-specific name the tables do not know: the entry
    /// defines it.
    NewArchitecture,
    /// Made from the device's name (the architecture is missing, `unknown` or generic).
    DeviceName,
}

/// One device-config entry: a target and the devices that are it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub naming: Naming,
    /// What every one of its devices reports.
    pub aspects: AspectSet,
    pub sub_group_sizes: Vec<u32>,
    /// Indices into [`Conversion::devices`], in transcript order.
    pub devices: Vec<usize>,
    /// Aspects some of its devices report and others not (left out), in registry order.
    pub differing: Vec<String>,
}

/// A transcript read.
#[derive(Clone, Debug)]
pub struct Conversion {
    pub devices: Vec<Device>,
    pub entries: Vec<Entry>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Conversion {
    /// The transcript could not be read (not verbose output, out of place, cut short): it has
    /// no entries.
    pub fn is_malformed(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.code == Code::SyclLsMalformed)
    }
}

/// Reads a `sycl-ls --verbose` transcript. `file` labels the diagnostics.
pub fn read(file: Arc<str>, text: &str) -> Conversion {
    let mut sink = DiagnosticSink::new(file, text);
    let devices = match parse(text, &mut sink) {
        Ok(devices) => devices,
        Err(Malformed { range, message }) => {
            sink.error(range, Code::SyclLsMalformed, message);
            return Conversion {
                devices: Vec::new(),
                entries: Vec::new(),
                diagnostics: sink.finish(),
            };
        }
    };
    let entries = group(&devices, &mut sink);
    let mut diagnostics = sink.finish();
    diagnostics.sort_by_key(|d| d.range.start);
    Conversion {
        devices,
        entries,
        diagnostics,
    }
}

struct Malformed {
    range: TextRange,
    message: String,
}

fn malformed(range: TextRange, message: impl Into<String>) -> Malformed {
    Malformed {
        range,
        message: message.into(),
    }
}

const AGAIN: &str = "pass the whole output of `sycl-ls --verbose`";

/// One line without its line end, with its byte offset and 1-based number.
#[derive(Clone, Copy)]
struct Line<'a> {
    start: usize,
    number: u32,
    text: &'a str,
}

impl Line<'_> {
    /// The line without its indentation and trailing blanks.
    fn range(&self) -> TextRange {
        let lead = self.text.len() - self.text.trim_start().len();
        let start = self.start + lead;
        TextRange::new(start, start.max(self.start + self.text.trim_end().len()))
    }
}

fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let body = raw.strip_suffix('\n').unwrap_or(raw);
        let body = body.strip_suffix('\r').unwrap_or(body);
        out.push(Line {
            start,
            number: i as u32 + 1,
            text: body,
        });
        start += raw.len();
    }
    out
}

/// `Key   : value` (`info::device::sub_group_sizes: ...` too) as the key, the value and the
/// value's offset in the text.
fn field(line: Line<'_>) -> Option<(&str, &str, usize)> {
    const SIZES: &str = "info::device::sub_group_sizes:";
    let trimmed = line.text.trim_start();
    let lead = line.text.len() - trimmed.len();
    let (key, rest, rest_at) = if let Some(rest) = trimmed.strip_prefix(SIZES) {
        ("info::device::sub_group_sizes", rest, lead + SIZES.len())
    } else {
        let colon = trimmed.find(':')?;
        (
            trimmed[..colon].trim_end(),
            &trimmed[colon + 1..],
            lead + colon + 1,
        )
    };
    if key.is_empty() {
        return None;
    }
    let value = rest.trim();
    let value_at = line.start + rest_at + (rest.len() - rest.trim_start().len());
    Some((key, value, value_at))
}

/// The number of `Platform [#N]:` / `Device [#N]:`.
fn header<'a>(line: Line<'a>, what: &str) -> Option<&'a str> {
    line.text
        .trim()
        .strip_prefix(what)?
        .strip_prefix(" [#")?
        .strip_suffix("]:")
}

/// Whitespace-separated words of `value` (which starts at byte `at`) with their ranges.
fn words(value: &str, at: usize) -> impl Iterator<Item = (&str, TextRange)> {
    value.split_ascii_whitespace().map(move |w| {
        let offset = w.as_ptr() as usize - value.as_ptr() as usize;
        (w, TextRange::new(at + offset, at + offset + w.len()))
    })
}

/// A device being read.
#[derive(Default)]
struct Partial {
    range: TextRange,
    line: u32,
    device_type: Option<String>,
    name: Option<String>,
    driver: Option<String>,
    architecture: Option<String>,
    aspects: Option<(AspectSet, Vec<String>)>,
    sub_group_sizes: Option<Vec<u32>>,
}

struct Platform {
    range: TextRange,
    number: u32,
    name: String,
    /// `Devices  : N` and its range, once read.
    announced: Option<(usize, TextRange)>,
    devices: Vec<Partial>,
}

/// Why the verbose listing stopped.
#[derive(PartialEq, Eq)]
enum End {
    /// The selectors' lines that follow the listing.
    Selectors,
    /// The end of the text.
    Eof,
}

fn parse(text: &str, sink: &mut DiagnosticSink) -> Result<Vec<Device>, Malformed> {
    let lines = lines(text);
    // The concise listing, one line per device: `[backend:type][backend:N] ...`.
    let mut concise: Vec<String> = Vec::new();
    let mut first_concise: Option<TextRange> = None;
    let mut announced: Option<(usize, TextRange)> = None;
    let mut platforms: Vec<Platform> = Vec::new();
    let mut end = End::Eof;
    let mut last = TextRange::empty(text.len());
    for &line in &lines {
        let trimmed = line.text.trim();
        if trimmed.is_empty() {
            continue;
        }
        last = line.range();
        let Some((count, _)) = announced else {
            if let Some(n) = trimmed.strip_prefix("Platforms:") {
                let n = n.trim().parse::<usize>().map_err(|_| {
                    malformed(
                        line.range(),
                        format!("'{trimmed}': the number of platforms is not a number"),
                    )
                })?;
                announced = Some((n, line.range()));
            } else if let Some(backend) = concise_backend(trimmed) {
                first_concise.get_or_insert(line.range());
                concise.push(backend.to_string());
            }
            // Anything else before the verbose listing (the device filters' notes on standard
            // error, the adapters' loader log) is not read.
            continue;
        };
        if let Some(number) = header(line, "Platform") {
            if platforms.len() == count {
                return Err(malformed(
                    line.range(),
                    format!(
                        "a platform more than the {count} that 'Platforms: {count}' (line {}) announces",
                        sink.line_of(announced.map_or(0, |(_, r)| r.start))
                    ),
                ));
            }
            if let Some(p) = platforms.last() {
                check_device_count(p, None, sink)?;
            }
            platforms.push(Platform {
                range: line.range(),
                number: number.parse().unwrap_or(platforms.len() as u32 + 1),
                name: String::new(),
                announced: None,
                devices: Vec::new(),
            });
            continue;
        }
        if header(line, "Device").is_some() {
            let Some(p) = platforms.last_mut().filter(|p| p.announced.is_some()) else {
                return Err(malformed(
                    line.range(),
                    "a device header outside a platform's device list (after its 'Devices  : N' line)",
                ));
            };
            open_device(p, line, sink)?;
            continue;
        }
        let Some((key, value, value_at)) = field(line) else {
            return Err(malformed(
                line.range(),
                format!(
                    "unexpected line in the verbose listing: '{trimmed}' is no 'Key : value' field \
                     nor a 'Platform [#N]:' or 'Device [#N]:' header"
                ),
            ));
        };
        if key.contains("selector(") {
            end = End::Selectors;
            break;
        }
        let Some(p) = platforms.last_mut() else {
            return Err(malformed(
                line.range(),
                format!("'{trimmed}' before the first 'Platform [#1]:' header"),
            ));
        };
        if p.announced.is_none() {
            match key {
                "Name" => p.name = value.to_string(),
                "Devices" => {
                    let n = value.parse::<usize>().map_err(|_| {
                        malformed(
                            line.range(),
                            format!("'{trimmed}': the number of devices is not a number"),
                        )
                    })?;
                    p.announced = Some((n, line.range()));
                }
                // Version, Vendor, and fields of later releases.
                _ => {}
            }
            continue;
        }
        if key == "Type" && p.devices.last().is_none_or(|d| d.device_type.is_some()) {
            // Without `Device [#N]:` headers (a device filter is set) a device starts here.
            open_device(p, line, sink)?;
        }
        let Some(d) = p.devices.last_mut() else {
            return Err(malformed(
                line.range(),
                format!("'{trimmed}' before the first device's 'Type' line"),
            ));
        };
        match key {
            "Type" => d.device_type = Some(value.to_string()),
            "Name" => d.name = Some(value.to_string()),
            "Driver" => d.driver = Some(value.to_string()),
            "Architecture" => d.architecture = Some(value.to_string()),
            "Aspects" => d.aspects = Some(read_aspects(value, value_at, sink)),
            "info::device::sub_group_sizes" => {
                let mut sizes = Vec::new();
                for (word, range) in words(value, value_at) {
                    match word.parse::<u32>() {
                        Ok(n) if n > 0 => sizes.push(n),
                        _ => {
                            return Err(malformed(
                                range,
                                format!("sub-group size '{word}' is not a positive integer"),
                            ))
                        }
                    }
                }
                d.sub_group_sizes = Some(sizes);
            }
            // Version, Vendor, UUID, DeviceID, Num SubDevices..., and fields of later releases.
            _ => {}
        }
    }

    let Some((count, announced_at)) = announced else {
        return Err(match first_concise {
            Some(range) => malformed(
                range,
                "this is the output of `sycl-ls` without `--verbose`, which lists no aspects: \
                 run `sycl-ls --verbose`",
            ),
            None if text.trim().is_empty() => malformed(
                TextRange::empty(0),
                "the input is empty: pass the output of `sycl-ls --verbose`",
            ),
            None => malformed(
                lines.first().map_or(TextRange::empty(0), |l| l.range()),
                "no 'Platforms: N' line: this is not the output of `sycl-ls --verbose`",
            ),
        });
    };
    // Cut short: the text ended inside the listing. The errors then point at its last line.
    let cut = (end == End::Eof).then_some(last);
    let with_architecture = platforms
        .iter()
        .flat_map(|p| &p.devices)
        .any(|d| d.architecture.is_some());
    let short = |message: String| format!("the transcript is cut short: {message}; {AGAIN}");
    if let (Some(at), Some(p)) = (cut, platforms.last()) {
        if let Some(what) = p
            .devices
            .last()
            .and_then(|d| missing_line(d, with_architecture))
        {
            let d = p.devices.last().expect("found");
            return Err(malformed(
                at,
                short(format!(
                    "the device of line {} (platform [#{}]) has no '{what}' line",
                    d.line, p.number
                )),
            ));
        }
    }
    if let Some(p) = platforms.last() {
        check_device_count(p, cut, sink)?;
    }
    if platforms.len() < count {
        let message = format!(
            "'Platforms: {count}' (line {}) announces {count} platforms, {} listed",
            sink.line_of(announced_at.start),
            platforms.len()
        );
        return Err(match cut {
            Some(at) => malformed(at, short(message)),
            None => malformed(last, message),
        });
    }

    let total = platforms.iter().map(|p| p.devices.len()).sum::<usize>();
    let backends = (concise.len() == total).then_some(concise);
    let mut devices = Vec::new();
    for p in &platforms {
        for d in &p.devices {
            if let Some(what) = missing_line(d, with_architecture) {
                return Err(malformed(
                    d.range,
                    format!(
                        "the device of line {} (platform [#{}]) has no '{what}' line",
                        d.line, p.number
                    ),
                ));
            }
            let (aspects, unknown_aspects) = d.aspects.clone().unwrap_or_default();
            devices.push(Device {
                range: d.range,
                line: d.line,
                platform: p.name.clone(),
                backend: backends.as_ref().map(|b| b[devices.len()].clone()),
                device_type: d.device_type.clone(),
                name: d.name.clone().unwrap_or_default(),
                driver: d.driver.clone(),
                architecture: d.architecture.clone(),
                aspects,
                unknown_aspects,
                sub_group_sizes: d.sub_group_sizes.clone().unwrap_or_default(),
            });
        }
    }
    Ok(devices)
}

/// The first line a device lacks, of those every device of its release has.
fn missing_line(d: &Partial, with_architecture: bool) -> Option<&'static str> {
    [
        (d.name.is_none(), "Name"),
        (d.aspects.is_none(), "Aspects"),
        (
            d.sub_group_sizes.is_none(),
            "info::device::sub_group_sizes:",
        ),
        (
            with_architecture && d.architecture.is_none(),
            "Architecture:",
        ),
    ]
    .into_iter()
    .find_map(|(missing, what)| missing.then_some(what))
}

/// The backend of a concise line, `[level_zero:gpu][level_zero:0] ...` → `level_zero`.
fn concise_backend(line: &str) -> Option<&str> {
    let inner = line.strip_prefix('[')?;
    let close = inner.find(']')?;
    let (backend, kind) = inner[..close].split_once(':')?;
    let plain = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    (plain(backend) && plain(kind)).then_some(backend)
}

fn open_device(p: &mut Platform, line: Line<'_>, sink: &DiagnosticSink) -> Result<(), Malformed> {
    let (count, at) = p.announced.expect("in the device list");
    if p.devices.len() == count {
        return Err(malformed(
            line.range(),
            format!(
                "a device more than the {count} that platform [#{}] announces ('Devices  : {count}', line {})",
                p.number,
                sink.line_of(at.start)
            ),
        ));
    }
    p.devices.push(Partial {
        range: line.range(),
        line: line.number,
        ..Partial::default()
    });
    Ok(())
}

fn check_device_count(
    p: &Platform,
    cut: Option<TextRange>,
    sink: &DiagnosticSink,
) -> Result<(), Malformed> {
    let Some((count, at)) = p.announced else {
        let message = format!(
            "platform [#{}] (line {}) has no 'Devices  : N' line",
            p.number,
            sink.line_of(p.range.start)
        );
        return Err(match cut {
            Some(eof) => malformed(
                eof,
                format!("the transcript is cut short: {message}; {AGAIN}"),
            ),
            None => malformed(p.range, message),
        });
    };
    if p.devices.len() < count {
        let message = format!(
            "platform [#{}] announces {count} devices ('Devices  : {count}', line {}), {} listed",
            p.number,
            sink.line_of(at.start),
            p.devices.len()
        );
        return Err(match cut {
            Some(eof) => malformed(
                eof,
                format!("the transcript is cut short: {message}; {AGAIN}"),
            ),
            None => malformed(at, message),
        });
    }
    Ok(())
}

/// Aspects DPC++ renamed at its last ABI break (the non-uniform groups' new names), as a
/// `sycl-ls` of an older release still prints them; `None`: gone without a successor.
/// (Pre-break `aspects.def`: ballot 54, fixed-size 55, opportunistic 56, tangle 57; newest:
/// fragment 50, chunk 51, tangle 52.)
const RENAMED: [(&str, Option<&str>); 4] = [
    ("ext_oneapi_ballot_group", Some("ext_oneapi_fragment")),
    ("ext_oneapi_fixed_size_group", Some("ext_oneapi_chunk")),
    ("ext_oneapi_tangle_group", Some("ext_oneapi_tangle")),
    ("ext_oneapi_opportunistic_group", None),
];

fn read_aspects(value: &str, at: usize, sink: &mut DiagnosticSink) -> (AspectSet, Vec<String>) {
    let reg = registry();
    let mut set = AspectSet::EMPTY;
    let mut unknown = Vec::new();
    for (word, range) in words(value, at) {
        let renamed = RENAMED.iter().find(|(old, _)| *old == word);
        match reg.by_name(word) {
            Some(id) => {
                set.insert(id);
            }
            None if renamed.is_some() => {
                let message = match renamed.and_then(|(_, new)| *new) {
                    Some(new) => {
                        if let Some(id) = reg.by_name(new) {
                            set.insert(id);
                        }
                        format!(
                            "'{word}' is what DPC++ releases before its last ABI break call '{new}': \
                             written as '{new}'"
                        )
                    }
                    None => format!(
                        "'{word}' of DPC++ releases before its last ABI break has no successor in \
                         the current aspects: left out of the device's entry"
                    ),
                };
                sink.push(
                    range,
                    Severity::Note,
                    Code::DeprecatedAspect,
                    message,
                    Vec::new(),
                );
            }
            None => {
                let suggestions = suggest(word, reg.names(), 3);
                sink.push(
                    range,
                    Severity::Error,
                    Code::UnknownAspect,
                    with_did_you_mean(
                        format!(
                            "unknown aspect '{word}': sycl-analyzer does not know it, it is left out \
                             of the device's entry"
                        ),
                        &suggestions,
                    ),
                    suggestions,
                );
                unknown.push(word.to_string());
            }
        }
    }
    (set, unknown)
}

/// The target a device is, and how the name was found.
fn target_name(d: &Device) -> (String, Naming) {
    let table = DeviceTable::builtin();
    let specific = |name: &str| DEVICE_PREFIXES.iter().any(|p| name.starts_with(p));
    if let Some(arch) = d.architecture.as_deref() {
        if let Ok(t) = resolve(arch, table) {
            if specific(&t.canonical) {
                return (t.canonical, Naming::Architecture);
            }
        }
        let plain = arch
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if specific(arch) && plain && DEVICE_PREFIXES.iter().all(|p| arch != *p) {
            return (arch.to_string(), Naming::NewArchitecture);
        }
    }
    let mut name = sanitize(&d.name);
    // A name the driver or the table already has would stand for that target.
    if resolve(&name, table).is_ok() {
        name.push_str("_device");
    }
    (name, Naming::DeviceName)
}

/// `Intel(R) Core(TM) i9-13900K` → `intel_core_i9_13900k`: lower case, marks dropped, runs of
/// other characters one `_`.
pub fn sanitize(device_name: &str) -> String {
    let mut lower = device_name.to_ascii_lowercase();
    for mark in ["(r)", "(tm)", "(c)"] {
        lower = lower.replace(mark, " ");
    }
    let mut out = String::new();
    for c in lower.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() {
        out.push_str("device");
    } else if out.starts_with(|c: char| c.is_ascii_digit())
        || ["true", "false", "null"].contains(&out.as_str())
    {
        // A YAML key that would read as a number or a boolean.
        out.insert_str(0, "device_");
    }
    out
}

/// Names of a set in registry order (the order `sycl-ls` prints them in).
fn names_in_order(set: AspectSet) -> Vec<&'static str> {
    let reg = registry();
    set.iter().map(|id| reg.name(id)).collect()
}

fn describe(d: &Device) -> String {
    match &d.backend {
        Some(b) => format!("'{}' ({b}, line {})", d.name, d.line),
        None => format!("'{}' (line {})", d.name, d.line),
    }
}

/// One entry per target; identical devices are one entry, differing ones keep what all have.
fn group(devices: &[Device], sink: &mut DiagnosticSink) -> Vec<Entry> {
    let reg = registry();
    let mut entries: IndexMap<String, Entry> = IndexMap::new();
    for (i, d) in devices.iter().enumerate() {
        let (name, naming) = target_name(d);
        if let Some(e) = entries.get_mut(&name) {
            let first = &devices[e.devices[0]];
            e.devices.push(i);
            if e.aspects == d.aspects && e.sub_group_sizes == d.sub_group_sizes {
                continue;
            }
            let aspects = e.aspects.intersection(d.aspects);
            let left_out = e.aspects.union(d.aspects).difference(aspects);
            let sizes: Vec<u32> = e
                .sub_group_sizes
                .iter()
                .copied()
                .filter(|s| d.sub_group_sizes.contains(s))
                .collect();
            let mut what = Vec::new();
            if !left_out.is_empty() {
                what.push(format!("aspects {}", names_in_order(left_out).join(", ")));
            }
            if sizes != e.sub_group_sizes || sizes != d.sub_group_sizes {
                what.push(format!(
                    "sub-group sizes {:?} and {:?}",
                    e.sub_group_sizes, d.sub_group_sizes
                ));
            }
            sink.warning(
                d.range,
                Code::SyclLsDevicesDiffer,
                format!(
                    "device {} and device {} are both target '{name}' but differ ({}): the entry \
                     holds what both report",
                    describe(first),
                    describe(d),
                    what.join("; ")
                ),
            );
            for id in left_out.iter() {
                let n = reg.name(id).to_string();
                if !e.differing.contains(&n) {
                    e.differing.push(n);
                }
            }
            e.aspects = aspects;
            e.sub_group_sizes = sizes;
            continue;
        }
        match &naming {
            Naming::Architecture => {}
            Naming::NewArchitecture => sink.push(
                d.range,
                Severity::Note,
                Code::SyclLsTargetName,
                format!(
                    "architecture '{name}' of device {} is no target of the driver's tables: the \
                     entry defines it (--targets {name})",
                    describe(d)
                ),
                Vec::new(),
            ),
            Naming::DeviceName => {
                let why = match d.architecture.as_deref() {
                    None => "has no 'Architecture:' line".to_string(),
                    Some("unknown") => "has architecture 'unknown'".to_string(),
                    Some(arch) => {
                        format!("has architecture '{arch}', which names no particular device")
                    }
                };
                sink.push(
                    d.range,
                    Severity::Note,
                    Code::SyclLsTargetName,
                    format!(
                        "device {} {why}: its entry is named '{name}' after the device \
                         (--targets {name})",
                        describe(d)
                    ),
                    Vec::new(),
                );
            }
        }
        entries.insert(
            name.clone(),
            Entry {
                name,
                naming,
                aspects: d.aspects,
                sub_group_sizes: d.sub_group_sizes.clone(),
                devices: vec![i],
                differing: Vec::new(),
            },
        );
    }
    let mut out: Vec<Entry> = entries.into_values().collect();
    for e in &mut out {
        // Registry order, as the aspects are listed.
        e.differing.sort_by_key(|n| reg.by_name(n));
    }
    out
}

/// The entries as device-config YAML, each under comments naming its devices. `header` is the
/// comment block written first (without `# `), one line per item.
pub fn render(conversion: &Conversion, entries: &[&Entry], header: &[String]) -> String {
    let mut out = String::new();
    for line in header {
        out.push_str(&format!("# {line}\n").replace("# \n", "#\n"));
    }
    for e in entries {
        out.push('\n');
        let mut unknown: Vec<&str> = Vec::new();
        for &i in &e.devices {
            let d = &conversion.devices[i];
            let mut about = vec![d.name.clone()];
            if let Some(b) = &d.backend {
                about.push(b.clone());
            }
            if let Some(driver) = &d.driver {
                about.push(format!("driver {driver}"));
            }
            out.push_str(&format!("# {} (line {})\n", about.join(", "), d.line));
            for u in &d.unknown_aspects {
                if !unknown.contains(&u.as_str()) {
                    unknown.push(u);
                }
            }
        }
        if !unknown.is_empty() {
            out.push_str(&format!(
                "# left out, unknown to sycl-analyzer: {}\n",
                unknown.join(", ")
            ));
        }
        if !e.differing.is_empty() {
            out.push_str(&format!(
                "# left out, not reported by every device: {}\n",
                e.differing.join(", ")
            ));
        }
        let sizes: Vec<String> = e.sub_group_sizes.iter().map(u32::to_string).collect();
        out.push_str(&format!(
            "{}:\n  aspects: [{}]\n  may_support_other_aspects: false\n  sub-group-sizes: [{}]\n",
            e.name,
            names_in_order(e.aspects).join(", "),
            sizes.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PVC: &str = "\
[level_zero:gpu][level_zero:0] Intel(R) oneAPI Unified Runtime over Level-Zero, Intel(R) Data Center GPU Max 1100 12.60.7 [1.6.31294+21]

Platforms: 1
Platform [#1]:
    Version  : 1.6
    Name     : Intel(R) oneAPI Unified Runtime over Level-Zero
    Vendor   : Intel(R) Corporation
    Devices  : 1
        Device [#0]:
        Type              : gpu
        Version           : 12.60.7
        Name              : Intel(R) Data Center GPU Max 1100
        Vendor            : Intel(R) Corporation
        Driver            : 1.6.31294+21
        DeviceID          : 3034
        Num SubDevices    : 0
        Num SubSubDevices : 0
        Aspects           : gpu fp16 fp64 atomic64 ext_intel_esimd
        info::device::sub_group_sizes: 16 32
        Architecture: intel_gpu_pvc
default_selector()      : gpu, Intel(R) oneAPI Unified Runtime over Level-Zero, Intel(R) Data Center GPU Max 1100 12.60.7 [1.6.31294+21]
";

    fn read_test(text: &str) -> Conversion {
        read(Arc::from("ls.txt"), text)
    }

    fn codes(c: &Conversion) -> Vec<(&'static str, u32, u32)> {
        c.diagnostics
            .iter()
            .map(|d| (d.code.as_str(), d.pos.line, d.pos.column))
            .collect()
    }

    #[test]
    fn reads_a_level_zero_gpu() {
        let c = read_test(PVC);
        assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
        let d = &c.devices[0];
        assert_eq!(d.name, "Intel(R) Data Center GPU Max 1100");
        assert_eq!(d.backend.as_deref(), Some("level_zero"));
        assert_eq!(d.line, 9);
        assert_eq!(d.sub_group_sizes, [16, 32]);
        assert_eq!(c.entries.len(), 1);
        assert_eq!(c.entries[0].name, "intel_gpu_pvc");
        assert_eq!(c.entries[0].naming, Naming::Architecture);
        assert_eq!(
            names_in_order(c.entries[0].aspects),
            ["gpu", "fp16", "fp64", "atomic64", "ext_intel_esimd"]
        );
    }

    #[test]
    fn without_device_headers_a_device_starts_at_its_type() {
        const SECOND: &str = "\
        Type              : gpu
        Name              : Intel(R) Data Center GPU Max 1100
        Aspects           : gpu fp16 fp64 atomic64 ext_intel_esimd
        info::device::sub_group_sizes: 16 32
        Architecture: intel_gpu_pvc
default_selector()";
        let text = PVC
            .replace("        Device [#0]:\n", "")
            .replace("Devices  : 1", "Devices  : 2")
            .replace("default_selector()", SECOND);
        let c = read_test(&text);
        assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
        assert_eq!(c.devices.len(), 2);
        assert_eq!(c.devices[0].line, 9);
        // One concise line for two devices: no backend is guessed.
        assert_eq!(c.devices[0].backend, None);
        assert_eq!(c.entries.len(), 1);
        assert_eq!(c.entries[0].devices, [0, 1]);
    }

    #[test]
    fn unknown_aspects_are_errors_at_the_word_and_left_out() {
        let c = read_test(&PVC.replace(
            "atomic64 ext_intel_esimd",
            "atomic64 ext_oneapi_ballots_group ext_intel_esimd",
        ));
        assert_eq!(codes(&c), [("unknown-aspect", 18, 52)]);
        assert!(!c.is_malformed());
        assert_eq!(c.devices[0].unknown_aspects, ["ext_oneapi_ballots_group"]);
        assert_eq!(c.entries[0].aspects.len(), 5);
    }

    /// An older DPC++'s `sycl-ls` prints the non-uniform groups' former names: each is read as
    /// its new name (a note says so), the one without a successor is left out with a note.
    #[test]
    fn aspects_renamed_at_the_abi_break_are_read_by_their_new_names() {
        let c = read_test(&PVC.replace(
            "atomic64 ext_intel_esimd",
            "atomic64 ext_oneapi_ballot_group ext_oneapi_opportunistic_group ext_intel_esimd",
        ));
        assert!(!c.is_malformed());
        let notes: Vec<_> = c
            .diagnostics
            .iter()
            .map(|d| (d.code.as_str(), d.severity))
            .collect();
        assert_eq!(
            notes,
            [
                ("deprecated-aspect", Severity::Note),
                ("deprecated-aspect", Severity::Note)
            ]
        );
        assert!(c.diagnostics[0]
            .message
            .contains("written as 'ext_oneapi_fragment'"));
        assert!(c.devices[0].unknown_aspects.is_empty());
        assert_eq!(c.entries[0].aspects.len(), 6);
        let fragment = registry().by_name("ext_oneapi_fragment").unwrap();
        assert!(c.entries[0].aspects.contains(fragment));
    }

    #[test]
    fn cut_transcripts_name_the_device() {
        let cut = &PVC[..PVC.find("        info::device").unwrap()];
        let c = read_test(cut);
        assert!(c.is_malformed());
        assert!(c.entries.is_empty());
        let m = &c.diagnostics[0].message;
        assert!(m.contains("cut short") && m.contains("line 9"), "{m}");
        // Cut before a platform's devices.
        let cut = &PVC[..PVC.find("        Device [#0]").unwrap()];
        let m = &read_test(cut).diagnostics[0].message;
        assert!(m.contains("cut short") && m.contains("1 devices"), "{m}");
        // Cut before the last platform.
        let two = PVC.replace("Platforms: 1", "Platforms: 2");
        let c = read_test(&two[..two.find("default_selector").unwrap()]);
        assert!(c.diagnostics[0].message.contains("2 platforms, 1 listed"));
        // Cut before the architecture line of a release that prints it (the other devices
        // have it); with one device, the release might be one that does not.
        let node = include_str!("../../tests/fixtures/sycl-ls/pvc-level-zero.txt");
        let c = read_test(&node[..node.rfind("        Architecture").unwrap()]);
        let m = &c.diagnostics[0].message;
        assert!(
            m.contains("line 42") && m.contains("'Architecture:'"),
            "{m}"
        );
        let cut = &PVC[..PVC.find("        Architecture").unwrap()];
        assert!(!read_test(cut).is_malformed());
    }

    #[test]
    fn not_verbose_empty_and_garbage_inputs() {
        let concise = PVC.lines().next().unwrap();
        let c = read_test(concise);
        assert_eq!(codes(&c), [("sycl-ls-malformed", 1, 1)]);
        assert!(c.diagnostics[0].message.contains("without `--verbose`"));
        assert!(read_test("").diagnostics[0].message.contains("empty"));
        assert!(read_test("hello\nworld\n").diagnostics[0]
            .message
            .contains("no 'Platforms: N' line"));
        let c = read_test(&PVC.replace(
            "        Vendor            : Intel(R) Corporation\n",
            "        garbage\n",
        ));
        assert_eq!(codes(&c), [("sycl-ls-malformed", 13, 9)]);
        let c = read_test(&PVC.replace("16 32", "16 x"));
        assert_eq!(codes(&c), [("sycl-ls-malformed", 19, 43)]);
        let c = read_test(&PVC.replace("Platforms: 1", "Platforms: one"));
        assert_eq!(codes(&c), [("sycl-ls-malformed", 3, 1)]);
    }

    #[test]
    fn more_devices_than_announced() {
        let c = read_test(&PVC.replace("Devices  : 1", "Devices  : 0"));
        assert_eq!(codes(&c), [("sycl-ls-malformed", 9, 9)]);
    }

    #[test]
    fn names_from_architectures_and_device_names() {
        let dev = |arch: Option<&str>, name: &str| Device {
            range: TextRange::empty(0),
            line: 1,
            platform: String::new(),
            backend: None,
            device_type: None,
            name: name.into(),
            driver: None,
            architecture: arch.map(Into::into),
            aspects: AspectSet::EMPTY,
            unknown_aspects: Vec::new(),
            sub_group_sizes: Vec::new(),
        };
        let cases = [
            (
                Some("nvidia_gpu_sm_80"),
                "NVIDIA A100-PCIE-40GB",
                "nvidia_gpu_sm_80",
                Naming::Architecture,
            ),
            (
                Some("intel_gpu_dg2_g10"),
                "Intel(R) Arc(TM) A770 Graphics",
                "intel_gpu_acm_g10",
                Naming::Architecture,
            ),
            (
                Some("intel_cpu_spr"),
                "Intel(R) Xeon(R) Platinum 8480+",
                "intel_cpu_spr",
                Naming::Architecture,
            ),
            (
                Some("intel_gpu_xe9"),
                "Intel(R) Graphics [0x1234]",
                "intel_gpu_xe9",
                Naming::NewArchitecture,
            ),
            (
                Some("x86_64"),
                "Intel(R) Core(TM) i9-13900K",
                "intel_core_i9_13900k",
                Naming::DeviceName,
            ),
            (
                Some("unknown"),
                "AMD Instinct MI300X",
                "amd_instinct_mi300x",
                Naming::DeviceName,
            ),
            (
                None,
                "12th Gen Intel(R) Core(TM) i7-12700H",
                "device_12th_gen_intel_core_i7_12700h",
                Naming::DeviceName,
            ),
            (
                Some("x86_64"),
                "spir64",
                "spir64_device",
                Naming::DeviceName,
            ),
        ];
        for (arch, name, target, naming) in cases {
            assert_eq!(
                target_name(&dev(arch, name)),
                (target.to_string(), naming),
                "{name}"
            );
        }
    }

    #[test]
    fn differing_devices_of_one_target_keep_what_all_report() {
        const OPENCL: &str = "\
Platform [#2]:
    Version  : OpenCL 3.0
    Name     : Intel(R) OpenCL Graphics
    Vendor   : Intel(R) Corporation
    Devices  : 1
        Device [#0]:
        Type              : gpu
        Name              : Intel(R) Data Center GPU Max 1100
        Aspects           : gpu fp16 fp64 atomic64
        info::device::sub_group_sizes: 16 32
        Architecture: intel_gpu_pvc
default_selector()";
        let opencl = PVC
            .replace("Platforms: 1", "Platforms: 2")
            .replace("default_selector()", OPENCL);
        let c = read_test(&opencl);
        assert_eq!(codes(&c), [("sycl-ls-devices-differ", 26, 9)]);
        assert_eq!(c.entries.len(), 1);
        assert_eq!(c.entries[0].differing, ["ext_intel_esimd"]);
        assert_eq!(c.entries[0].aspects.len(), 4);
        let yaml = render(&c, &c.entries.iter().collect::<Vec<_>>(), &[]);
        assert!(yaml.contains("# left out, not reported by every device: ext_intel_esimd\n"));
    }

    #[test]
    fn rendered_yaml_loads_back_without_problems() {
        let c = read_test(PVC);
        let yaml = render(
            &c,
            &c.entries.iter().collect::<Vec<_>>(),
            &["header".into(), String::new()],
        );
        let start = "# header\n#\n\n\
                     # Intel(R) Data Center GPU Max 1100, level_zero, driver 1.6.31294+21 (line 9)\n\
                     intel_gpu_pvc:\n";
        assert!(yaml.starts_with(start), "{yaml}");
        let cfg = super::super::config::load(Arc::from("g.yaml"), &yaml);
        assert!(cfg.diagnostics.is_empty(), "{:?}", cfg.diagnostics);
        let e = &cfg.entries.unwrap()[0];
        assert_eq!(e.info.aspects, c.entries[0].aspects);
        assert_eq!(e.info.sub_group_sizes, [16, 32]);
        assert!(!e.info.may_support_other_aspects);
    }

    #[test]
    fn windows_line_ends() {
        let c = read_test(&PVC.replace('\n', "\r\n"));
        assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
        assert_eq!(c.devices[0].sub_group_sizes, [16, 32]);
    }
}

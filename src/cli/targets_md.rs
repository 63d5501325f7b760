//! `targets --format markdown`: every target `-fsycl-targets` takes, as a page a person reads
//! or pastes into an issue (intel/llvm#1191 asks for a list of all supported targets).

use std::fmt::Write as _;

use crate::devices::catalogue::Listed;
use crate::devices::config::BUILTIN_FILE;
use crate::devices::{provenance, registry, AspectSet, DeviceTable, TargetKind};

const SECTIONS: [(TargetKind, &str); 5] = [
    (TargetKind::IntelGpu, "Intel GPUs"),
    (TargetKind::NvidiaGpu, "NVIDIA GPUs"),
    (TargetKind::AmdGpu, "AMD GPUs"),
    (TargetKind::Generic, "Generic targets (triples)"),
    (
        TargetKind::Configured,
        "Valid through a device-config entry only",
    ),
];

fn code_list(names: impl IntoIterator<Item = impl AsRef<str>>) -> String {
    let items: Vec<String> = names
        .into_iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect();
    if items.is_empty() {
        "-".into()
    } else {
        items.join(", ")
    }
}

fn row(t: &Listed, table: &DeviceTable, notable: AspectSet) -> String {
    let reg = registry();
    let info = t.info(table);
    let entry = match (&t.entry, info) {
        (Some(e), Some(i)) if *e == t.name && &*i.source == BUILTIN_FILE => "yes".into(),
        (Some(e), Some(i)) if *e == t.name => format!("yes (`{}`)", i.source),
        (Some(e), _) => format!("`{e}`"),
        (None, _) => "**none**: driver only".into(),
    };
    let lacks = reg.sorted_names(t.lacks(table, notable));
    let other = if info.is_none_or(|i| i.may_support_other_aspects) {
        "may"
    } else {
        "no"
    };
    let sg = info
        .map(|i| {
            let sizes: Vec<String> = i.sub_group_sizes.iter().map(u32::to_string).collect();
            sizes.join(", ")
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "-".into());
    format!(
        "| `{}` | {} | {} | {} | {} | {other} | {sg} |\n",
        t.name,
        code_list(&t.spellings[1..]),
        t.compile.describe(),
        entry,
        if lacks.is_empty() {
            "-".to_string()
        } else {
            lacks.join(", ")
        },
    )
}

pub fn targets_markdown(list: &[Listed], table: &DeviceTable, notable: AspectSet) -> String {
    let reg = registry();
    let mut out = String::from("# `-fsycl-targets` targets\n\n");
    let sources: Vec<String> = provenance::embedded()
        .iter()
        .map(|s| {
            let file = s.path.rsplit('/').next().unwrap_or(&s.path);
            format!(
                "{} from DPC++ {} ({file})",
                s.data.replace('_', " "),
                s.short()
            )
        })
        .collect();
    let _ = writeln!(out, "Embedded data: {}.\n", sources.join("; "));
    let spellings: usize = list.iter().map(|t| t.spellings.len()).sum();
    let driver_only: Vec<&str> = list
        .iter()
        .filter(|t| t.entry.is_none())
        .map(|t| t.name.as_str())
        .collect();
    let _ = writeln!(
        out,
        "{} targets, {spellings} spellings; names are case-sensitive. The spellings of a row are \
         one target: one `__SYCL_TARGET_*__` macro, one device-config entry. A generic target \
         also takes any triple of its architecture (`nvptx64` is `nvptx64-nvidia-cuda`).\n",
        list.len()
    );
    let _ = writeln!(
        out,
        "* **Compiled**: the tool that compiles the device code when the program is built (AOT), \
         with the options the driver gives it; `JIT`: SPIR-V, compiled for the device when the \
         program runs.\n\
         * **Entry**: the device-config entry (DeviceConfigFile.td, or a `--config` file) the \
         target reads. **none**: only the driver knows the name; DPC++ keeps every kernel in its \
         image (sycl-post-link filters by aspect only for targets with an entry); it guarantees \
         no aspect, and its devices may have any.\n\
         * **Lacks**: of the aspects code uses without naming them ({}), those the entry does \
         not list. With **Others** `no`, a kernel using one is left out of the target's image; \
         with `may`, a device may have it but nothing guarantees it. The other aspects are named by \
         the code that needs them.\n",
        reg.sorted_names(notable).join(", ")
    );
    if !driver_only.is_empty() {
        let _ = writeln!(
            out,
            "Driver only (no device-config entry): {}.\n",
            code_list(&driver_only)
        );
    }
    for (kind, title) in SECTIONS {
        let rows: Vec<&Listed> = list.iter().filter(|t| t.kind == kind).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "## {title}\n");
        out.push_str(
            "| Target | Also spelled | Compiled | Entry | Lacks | Others | Sub-groups |\n\
             |---|---|---|---|---|---|---|\n",
        );
        for t in rows {
            out.push_str(&row(t, table, notable));
        }
        out.push('\n');
    }
    out.pop();
    out
}

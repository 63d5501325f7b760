//! The JSON shapes of every answer, shared by the CLI, the daemon and the language server.
//! They are an interface (protocol.md): fields may be added, never renamed or removed.

use serde_json::{json, Map, Value};

use crate::devices::catalogue::{catalogue, Compile, Listed};
use crate::devices::{
    registry, AspectId, AspectSet, DeviceTable, InvalidTarget, ResolvedTarget, TargetList,
    TraitSets,
};
use crate::diagnostics::Diagnostic;

pub fn diagnostics_json(diagnostics: &[Diagnostic]) -> Value {
    json!({ "diagnostics": diagnostics })
}

fn aspect_names(set: AspectSet) -> Vec<&'static str> {
    let reg = registry();
    set.iter().map(|id| reg.name(id)).collect()
}

/// The aspects `targets` says a target lacks: those code uses without naming them (a `double`,
/// a `sycl::half`, a 64-bit atomic, ...), which a kernel can need without its author knowing;
/// the other aspects are named by whoever uses them.
pub fn notable_aspects() -> AspectSet {
    crate::semantic::features::features().implied_aspects()
}

/// One target of `targets --format json`. The fields up to `source` describe the device-config
/// entry the target reads (none: no aspect guaranteed, any possible).
fn target_json(t: &Listed, table: &DeviceTable, notable: AspectSet) -> Value {
    let info = t.info(table);
    json!({
        "name": t.name,
        "kind": t.kind,
        "macro": t.macro_name,
        "aliases": crate::devices::names::driver_names().aliases(&t.name),
        "aspects": aspect_names(info.map_or(AspectSet::EMPTY, |i| i.aspects)),
        "may_support_other_aspects": info.is_none_or(|i| i.may_support_other_aspects),
        "sub_group_sizes": info.map_or(&[][..], |i| &i.sub_group_sizes[..]),
        "aot_toolchain": info.and_then(|i| i.aot_toolchain.clone()),
        "aot_toolchain_options": info.and_then(|i| i.aot_toolchain_options.clone()),
        "source": info.map(|i| &*i.source),
        "spellings": t.spellings,
        "entry": t.entry,
        "in_driver": t.in_driver,
        "aot": t.compile.is_aot(),
        "compiled_by": match &t.compile {
            Compile::Aot { .. } => Some(t.compile.describe()),
            _ => None,
        },
        "lacks": aspect_names(t.lacks(table, notable)),
    })
}

pub fn targets_json(table: &DeviceTable) -> Value {
    listed_json(&catalogue(table), table, notable_aspects())
}

pub fn listed_json(list: &[Listed], table: &DeviceTable, notable: AspectSet) -> Value {
    Value::Array(
        list.iter()
            .map(|t| target_json(t, table, notable))
            .collect(),
    )
}

pub fn aspects_json() -> Value {
    Value::Array(
        registry()
            .iter()
            .map(|(_, a)| {
                let mut v = json!({ "name": a.name, "value": a.value, "deprecated": a.deprecated.is_some() });
                if let Some(m) = &a.deprecated {
                    v["message"] = json!(m);
                }
                if let Some(d) = &a.description {
                    v["description"] = json!(d);
                }
                v
            })
            .collect(),
    )
}

pub fn resolved_json(r: &ResolvedTarget, table: &DeviceTable) -> Value {
    let info = r.entry.as_deref().and_then(|e| table.get(e));
    json!({
        "input": r.input,
        "valid": true,
        "canonical": r.canonical,
        "kind": r.kind,
        "macro": r.macro_name,
        "has_entry": info.is_some(),
        "aot_toolchain": info.and_then(|i| i.aot_toolchain.clone()),
        "aot_toolchain_options": info.and_then(|i| i.aot_toolchain_options.clone()),
    })
}

pub fn query_target_json(
    results: &[Result<ResolvedTarget, InvalidTarget>],
    table: &DeviceTable,
) -> Value {
    Value::Array(
        results
            .iter()
            .map(|r| match r {
                Ok(t) => resolved_json(t, table),
                Err(e) => json!({
                    "input": e.input,
                    "valid": false,
                    "error": e.message,
                    "suggestions": e.suggestions,
                }),
            })
            .collect(),
    )
}

pub fn canonical_names(list: &TargetList) -> Vec<&str> {
    list.targets.iter().map(|t| t.canonical.as_str()).collect()
}

pub fn macros_json(list: &TargetList, macros: &[(String, String)]) -> Value {
    let map: Map<String, Value> = macros
        .iter()
        .map(|(n, v)| (n.clone(), Value::String(v.clone())))
        .collect();
    json!({ "targets": canonical_names(list), "macros": map })
}

/// The AdaptiveCpp macros of every pass of `compiles`, without clang's and the C library's
/// (which `query macros` never lists, for DPC++ either).
pub fn acpp_common_macros(
    compiles: &crate::devices::predefined::DeviceCompiles,
) -> Vec<(String, String)> {
    use crate::devices::predefined::{FROM_COMPILER, FROM_LIBC};
    compiles
        .common
        .iter()
        // `SYCL_EXTERNAL` stands as its own word for `syntax::prepare`, no real definition.
        .filter(|(n, _, why)| why != FROM_COMPILER && why != FROM_LIBC && n != "SYCL_EXTERNAL")
        .map(|(n, v, _)| (n.clone(), v.clone()))
        .collect()
}

/// `query macros --flags "acpp --acpp-targets=..."`: the devices of the specification, the
/// macros of every pass, and each pass with the targets whose kernels it compiles.
pub fn acpp_macros_json(
    spec: &crate::devices::acpp::AcppTargets,
    compiles: &crate::devices::predefined::DeviceCompiles,
) -> Value {
    let map = |m: &mut dyn Iterator<Item = (String, String)>| -> Map<String, Value> {
        m.map(|(n, v)| (n, Value::String(v))).collect()
    };
    let targets: Vec<Value> = spec
        .targets
        .iter()
        .map(|t| json!({ "acpp": t.spec, "target": t.table_target }))
        .collect();
    let passes: Vec<Value> = compiles
        .classes
        .iter()
        .map(|c| {
            let pass = c.macros.first().map_or("", |m| m.2.as_str());
            json!({
                "pass": pass.strip_prefix("the ").unwrap_or(pass),
                "targets": c.targets,
                "macros": map(&mut c.macros.iter().map(|(n, v, _)| (n.clone(), v.clone()))),
            })
        })
        .collect();
    json!({
        "implementation": "AdaptiveCpp",
        "acpp_targets": spec.spec,
        "targets": targets,
        "macros": map(&mut acpp_common_macros(compiles).into_iter()),
        "passes": passes,
    })
}

pub fn traits_json(list: &TargetList, sets: &TraitSets, aspects: &[AspectId]) -> Value {
    let reg = registry();
    let mut any = Map::new();
    let mut all = Map::new();
    for &id in aspects {
        any.insert(reg.name(id).to_string(), json!(sets.any_device_has(id)));
        all.insert(reg.name(id).to_string(), json!(sets.all_devices_have(id)));
    }
    json!({ "targets": canonical_names(list), "any_device_has": any, "all_devices_have": all })
}

/// The JSON Schema of the device-config YAML (`config/device-config.schema.json`), generated
/// from the aspect registry and the device table so it cannot drift from them.
pub fn device_config_schema() -> Value {
    let reg = registry();
    let names: Vec<&str> = reg.iter().map(|(_, a)| a.name.as_str()).collect();
    let descriptions: Vec<String> = reg
        .iter()
        .map(|(_, a)| {
            let mut d = format!(
                "{} (sycl::aspect = {})",
                a.description.as_deref().unwrap_or(""),
                a.value
            );
            if let Some(why) = &a.deprecated {
                d.push_str(&format!(" Deprecated: {why}"));
            }
            d
        })
        .collect();
    let table = DeviceTable::builtin();
    let targets: Map<String, Value> = table
        .iter()
        .map(|(n, _)| (n.to_string(), json!({ "$ref": "#/definitions/entry" })))
        .collect();
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "sycl-analyzer device config (DPC++ -fsycl-device-config-file)",
        "description": "Top-level keys are -fsycl-targets names; each entry adds a target or replaces the built-in one whole.",
        "type": "object",
        "properties": targets,
        "additionalProperties": { "$ref": "#/definitions/entry" },
        "definitions": {
            "aspect": {
                "description": "An aspect name (or its number in the newest DPC++ numbering).",
                "anyOf": [
                    { "type": "string", "enum": names, "enumDescriptions": descriptions },
                    { "type": "integer" }
                ]
            },
            "entry": {
                "type": "object",
                "required": ["aspects"],
                "additionalProperties": false,
                "properties": {
                    "aspects": {
                        "description": "Aspects every device of the target has.",
                        "type": "array",
                        "items": { "$ref": "#/definitions/aspect" }
                    },
                    "may_support_other_aspects": {
                        "description": "Whether some device of the target may have aspects not listed.",
                        "type": ["boolean", "integer"],
                        "enum": [true, false, 0, 1],
                        "default": false
                    },
                    "sub-group-sizes": {
                        "description": "Supported sub-group sizes.",
                        "type": "array",
                        "items": { "type": "integer", "minimum": 1 }
                    },
                    "aot-toolchain": {
                        "description": "AOT compiler (ocloc for intel_gpu_* by default).",
                        "type": "string"
                    },
                    "aot-toolchain-options": {
                        "description": "Options for the AOT compiler (-device <suffix> for intel_gpu_<suffix> by default).",
                        "type": "string"
                    }
                }
            }
        }
    })
}

/// `sycl/kernelMatrix`'s answer: the JSON of [`matrix_json`], or `{"markdown": TEXT}` when the
/// params ask for `"format": "markdown"` (what editors show).
pub fn matrix_answer(m: &crate::analysis::matrix::Matrix, params: &Value) -> Value {
    match params.get("format").and_then(Value::as_str) {
        Some("markdown") => json!({ "markdown": matrix_markdown(m) }),
        _ => matrix_json(m),
    }
}

/// The kernel × target matrix (`sycl-analyzer report --format json`, `sycl/kernelMatrix`).
pub fn matrix_json(m: &crate::analysis::matrix::Matrix) -> Value {
    use crate::analysis::matrix::Reason;
    let reg = crate::devices::registry();
    let kernels: Vec<Value> = m
        .rows
        .iter()
        .map(|r| {
            let mut cells = Map::new();
            for c in &r.cells {
                let reasons: Vec<Value> = c
                    .reasons
                    .iter()
                    .map(|why| match why {
                        Reason::Aspect { aspect, chain } => {
                            json!({ "aspect": aspect, "chain": chain })
                        }
                        Reason::SubGroupSize {
                            required,
                            supported,
                        } => json!({ "sub_group_size": required, "supported": supported }),
                    })
                    .collect();
                let mut cell = json!({ "status": c.status });
                if !reasons.is_empty() {
                    cell["reasons"] = Value::Array(reasons);
                }
                cells.insert(c.target.clone(), cell);
            }
            let mut k = json!({
                "name": r.name,
                "kind": if r.kernel { "kernel" } else { "sycl_external" },
                "file": &*r.file,
                "line": r.name_span.pos.line,
                "column": r.name_span.pos.column,
                "used": reg.sorted_names(r.used),
                "targets": cells,
            });
            if let Some(d) = &r.declared {
                k["declared"] = json!(d);
            }
            if !r.guarded.is_empty() {
                k["guarded"] = json!(reg.sorted_names(r.guarded));
            }
            k
        })
        .collect();
    let mut summary = Map::new();
    for (i, t) in m.targets.iter().enumerate() {
        let s = m.summary(i);
        summary.insert(
            t.clone(),
            json!({
                "kernels": s.kernels,
                "compatible": s.compatible,
                "not_in_image": s.not_in_image,
                "may_fail": s.may_fail,
                "not_compiled": s.not_compiled,
                "aspects": s.aspects,
            }),
        );
    }
    json!({ "targets": m.targets, "kernels": kernels, "summary": summary })
}

fn cell_text(c: &crate::analysis::matrix::Cell) -> String {
    use crate::analysis::matrix::Status;
    match c.status {
        Status::Compatible => "✅".into(),
        Status::NotInImage => format!("❌ {}", c.why()),
        Status::MayFail => format!("⚠️ {}", c.why()),
        Status::NotCompiled => "—".into(),
    }
}

/// A table (kernels × targets) with a summary line per target, for a pull-request comment.
pub fn matrix_markdown(m: &crate::analysis::matrix::Matrix) -> String {
    use std::fmt::Write;
    let mut out = String::from("## Kernels × targets\n\n");
    for (i, t) in m.targets.iter().enumerate() {
        let _ = writeln!(out, "- **{t}**: {}", m.summary(i).line());
    }
    out.push_str("\n| kernel | where |");
    for t in &m.targets {
        let _ = write!(out, " {t} |");
    }
    out.push_str("\n|---|---|");
    for _ in &m.targets {
        out.push_str("---|");
    }
    out.push('\n');
    for r in &m.rows {
        let guarded = if r.guarded.is_empty() {
            String::new()
        } else {
            format!(
                " (guarded: {})",
                crate::devices::registry()
                    .sorted_names(r.guarded)
                    .join(", ")
            )
        };
        let _ = write!(
            out,
            "| `{}`{guarded} | `{}:{}` |",
            r.name.replace('|', "\\|"),
            r.file,
            r.name_span.pos.line
        );
        for c in &r.cells {
            let _ = write!(out, " {} |", cell_text(c));
        }
        out.push('\n');
    }
    out.push_str(
        "\n✅ in the image · ❌ not in the AOT image (launching it throws \
         `errc::kernel_not_supported`) · ⚠️ JIT: devices without the aspect throw at run time · \
         — not compiled for that target\n",
    );
    out
}

//! `sycl-analyzer report`: which kernel runs on which target, and why not, for a team to read
//! (Markdown, for pull requests) or a tool (JSON).

use std::fmt::Write;

use super::check::{self, CheckArgs};
use super::output::Reporter;
use super::EXIT_OK;
use crate::analysis::matrix::{Matrix, Reason, Status};
use crate::analysis::{Analysis, Settings};
use crate::devices::DeviceTable;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Markdown,
    Json,
}

pub fn run(
    args: CheckArgs,
    format: ReportFormat,
    configs_given: bool,
    table: &DeviceTable,
    reporter: &mut Reporter,
) -> Result<i32, String> {
    let ws = match check::load(&args, configs_given, table, reporter)? {
        Ok(ws) => ws,
        Err(code) => return Ok(code),
    };
    let table = ws.table.as_ref().unwrap_or(table);
    let Some(targets) = ws.targets else {
        return Err(
            "report needs targets: --targets LIST, or a compile_commands.json that names them"
                .into(),
        );
    };
    let settings = Settings {
        table,
        targets: Some(&targets),
    };
    let matrix = Analysis::new(ws.loaded.files).matrix(&settings);
    match format {
        ReportFormat::Json => super::output::print_json(&crate::proto::matrix_json(&matrix)),
        ReportFormat::Markdown => print!("{}", markdown(&matrix)),
    }
    Ok(EXIT_OK)
}

fn cell_text(status: Status, reasons: &[Reason]) -> String {
    let why: Vec<String> = reasons
        .iter()
        .map(|r| match r {
            Reason::Aspect { aspect, chain } if chain.is_empty() => format!("{aspect} (declared)"),
            Reason::Aspect { aspect, .. } => aspect.clone(),
            Reason::SubGroupSize { required, .. } => format!("sub-group {required}"),
        })
        .collect();
    match status {
        Status::Compatible => "✅".into(),
        Status::NotInImage => format!("❌ {}", why.join(", ")),
        Status::MayFail => format!("⚠️ {}", why.join(", ")),
        Status::NotCompiled => "—".into(),
    }
}

/// A table (kernels × targets) with a summary line per target, for a pull-request comment.
pub fn markdown(m: &Matrix) -> String {
    let mut out = String::from("## Kernels × targets\n\n");
    for (i, t) in m.targets.iter().enumerate() {
        let n = |s: Status| m.rows.iter().filter(|r| r.cells[i].status == s).count();
        let mut aspects: std::collections::BTreeMap<&str, usize> = Default::default();
        for r in &m.rows {
            for why in &r.cells[i].reasons {
                if let Reason::Aspect { aspect, .. } = why {
                    *aspects.entry(aspect).or_default() += 1;
                }
            }
        }
        let uses: Vec<String> = aspects
            .iter()
            .map(|(a, k)| format!("{k} use {a}"))
            .collect();
        let _ = write!(
            out,
            "- **{t}**: {} of {} kernels run",
            n(Status::Compatible),
            m.rows.len()
        );
        if n(Status::NotInImage) > 0 {
            let _ = write!(out, "; {} not in its image", n(Status::NotInImage));
        }
        if n(Status::MayFail) > 0 {
            let _ = write!(out, "; {} may fail on some devices", n(Status::MayFail));
        }
        if !uses.is_empty() {
            let _ = write!(out, " ({})", uses.join(", "));
        }
        out.push('\n');
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
        let _ = write!(
            out,
            "| `{}` | `{}:{}` |",
            r.name.replace('|', "\\|"),
            r.file,
            r.name_span.pos.line
        );
        for c in &r.cells {
            let _ = write!(out, " {} |", cell_text(c.status, &c.reasons));
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

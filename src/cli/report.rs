//! `sycl-analyzer report`: which kernel runs on which target, and why not, for a team to read
//! (Markdown, for pull requests) or a tool (JSON).

use std::collections::HashSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use super::check::{self, CheckArgs};
use super::output::Reporter;
use super::EXIT_OK;
use crate::analysis::matrix::{Cell, Matrix, Reason, Status};
use crate::devices::DeviceTable;
use crate::workspace::absolute;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Markdown,
    Json,
    Html,
}

pub fn run(
    mut args: CheckArgs,
    format: ReportFormat,
    output: Option<&Path>,
    configs_given: bool,
    table: &DeviceTable,
    reporter: &mut Reporter,
) -> Result<i32, String> {
    // `-o FILE` is where the user said, whatever directory the report is made from.
    let output = output.map(crate::workspace::absolute);
    let output = output.as_deref();
    check::enter_project_root(&mut args)?;
    let mut problems = Vec::new();
    // Packed, as `check` loads: the matrix is made a batch of parts at a time, as its findings.
    let mut ws = match check::load(&args, configs_given, true, table, &mut problems, reporter) {
        Ok(ws) => ws,
        Err(check::Refusal(refused)) => {
            problems.extend(refused);
            return Ok(check::refuse(args.format, &problems, reporter));
        }
    };
    reporter.report(&problems);
    let Some(targets) = ws.config.targets.clone() else {
        return Err(
            "report needs targets: --targets LIST, or a compile_commands.json that names them"
                .into(),
        );
    };
    // `report FILE...` analyses the files' project, and shows the kernels of the files.
    let named: Option<HashSet<PathBuf>> =
        check::named_files(&args).map(|(_, files)| files.iter().map(|f| absolute(f)).collect());
    let matrix = ws.host().analysis().matrix_of(&targets, &|file| {
        named
            .as_ref()
            .is_none_or(|n| n.contains(&absolute(Path::new(file))))
    });
    let text = match format {
        ReportFormat::Json => {
            let mut t = serde_json::to_string_pretty(&crate::proto::matrix_json(&matrix))
                .map_err(|e| e.to_string())?;
            t.push('\n');
            t
        }
        ReportFormat::Markdown => crate::proto::matrix_markdown(&matrix),
        ReportFormat::Html => {
            // `.` says nothing on a page: its directory's name does.
            let names: Vec<String> = args
                .paths
                .iter()
                .map(|p| match p.to_str() {
                    Some(".") | Some("") => std::env::current_dir()
                        .ok()
                        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                        .unwrap_or_else(|| ".".into()),
                    _ => p.display().to_string(),
                })
                .collect();
            // Links relative to where the page is, so they work once it is shared or kept
            // as a CI artifact with the sources beside it.
            let page_dir = match output {
                Some(f) => absolute(f.parent().unwrap_or(Path::new("."))),
                None => absolute(Path::new(".")),
            };
            html(
                &matrix,
                &format!("Kernels × targets: {}", names.join(", ")),
                &page_dir,
            )
        }
    };
    match output {
        None => print!("{text}"),
        Some(f) => {
            std::fs::write(f, text).map_err(|e| format!("cannot write '{}': {e}", f.display()))?
        }
    }
    Ok(EXIT_OK)
}

/// Words, not emoji: a page must read the same without an emoji font.
fn html_cell_text(c: &Cell) -> String {
    match c.status {
        Status::Compatible => "runs".into(),
        Status::NotInImage => format!("not in image: {}", c.why()),
        Status::MayFail => format!("may fail: {}", c.why()),
        Status::NotCompiled => "not compiled".into(),
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Compatible => "compatible",
        Status::NotInImage => "not_in_image",
        Status::MayFail => "may_fail",
        Status::NotCompiled => "not_compiled",
    }
}

/// A self-contained page (no network, no external asset): readable without JavaScript; with
/// it, columns sort on a click and a filter box hides rows (`#filter=TEXT` in the address sets
/// it). Each cell's reasons and chains are in a `<details>`; locations link to the source.
pub fn html(m: &Matrix, title: &str, page_dir: &Path) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\n{}\n</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(title),
        STYLE,
        escape(title)
    );
    out.push_str("<ul id=\"summary\">\n");
    for (i, t) in m.targets.iter().enumerate() {
        let _ = writeln!(
            out,
            "<li><b>{}</b>: {}</li>",
            escape(t),
            escape(&m.summary(i).line())
        );
    }
    out.push_str("</ul>\n<p><label>Filter <input id=\"filter\" type=\"search\" placeholder=\"kernel, file, target or aspect\"></label> <span id=\"shown\"></span></p>\n");
    out.push_str("<table id=\"matrix\">\n<thead><tr><th>kernel</th><th>where</th>");
    for t in &m.targets {
        let _ = write!(out, "<th>{}</th>", escape(t));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in &m.rows {
        let place = format!("{}:{}", r.file, r.name_span.pos.line);
        let guarded = if r.guarded.is_empty() {
            String::new()
        } else {
            format!(
                "<br><small>guarded by <code>if_device_has</code>: {}</small>",
                escape(
                    &crate::devices::registry()
                        .sorted_names(r.guarded)
                        .join(", ")
                )
            )
        };
        let _ = write!(
            out,
            "<tr><td class=\"name\">{}{guarded}</td><td><a href=\"{}\">{}</a></td>",
            escape(&r.name),
            escape(&link(page_dir, &r.file, r.name_span.pos.line)),
            escape(&place)
        );
        for c in &r.cells {
            let _ = write!(
                out,
                "<td class=\"{}\" data-target=\"{}\">{}",
                status_word(c.status),
                escape(&c.target),
                escape(&html_cell_text(c))
            );
            if !c.reasons.is_empty() {
                out.push_str("<details><summary>why</summary><ul>");
                for why in &c.reasons {
                    match why {
                        Reason::Aspect { aspect, chain } if chain.is_empty() => {
                            let _ = write!(
                                out,
                                "<li>declares <code>{}</code> in <code>device_has</code></li>",
                                escape(aspect)
                            );
                        }
                        Reason::Aspect { aspect, chain } => {
                            let _ = write!(out, "<li>uses <code>{}</code>:<ol>", escape(aspect));
                            for step in chain {
                                let _ = write!(
                                    out,
                                    "<li><a href=\"{}\">{}:{}</a> {}</li>",
                                    escape(&link(page_dir, &step.file, step.pos.line)),
                                    escape(&step.file),
                                    step.pos.line,
                                    escape(&step.message)
                                );
                            }
                            out.push_str("</ol></li>");
                        }
                        Reason::SubGroupSize {
                            required,
                            supported,
                        } => {
                            let sizes: Vec<String> = supported.iter().map(u32::to_string).collect();
                            let _ = write!(
                                out,
                                "<li>requires sub-group size {required}; the target has {}</li>",
                                sizes.join(", ")
                            );
                        }
                    }
                }
                out.push_str("</ul></details>");
            }
            out.push_str("</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n<p class=\"legend\"><span class=\"compatible\">runs</span>: in the image · <span class=\"not_in_image\">not in image</span>: the AOT image leaves it out (launching it throws <code>errc::kernel_not_supported</code>) · <span class=\"may_fail\">may fail</span>: JIT, devices without the aspect throw at run time · <span class=\"not_compiled\">not compiled</span>: that target's device compile does not compile it</p>\n");
    let _ = write!(out, "<script>\n{SCRIPT}\n</script>\n</body>\n</html>\n");
    out
}

/// A link to a source line: a `file:` URL of the absolute path (editors and browsers open it).
/// A link from a page in `page_dir` to a line of `file`: a relative URL (`../src/k.cpp#L17`).
fn link(page_dir: &Path, file: &str, line: u32) -> String {
    use percent_encoding::utf8_percent_encode;
    let relative = relative_path(page_dir, &absolute(Path::new(file)));
    let segments: Vec<String> = relative
        .components()
        .map(|c| {
            utf8_percent_encode(&c.as_os_str().to_string_lossy(), check::URI_SEGMENT).to_string()
        })
        .collect();
    format!("{}#L{line}", segments.join("/"))
}

/// `to` relative to the directory `from` (both absolute): `..` up to their common ancestor.
fn relative_path(from: &Path, to: &Path) -> PathBuf {
    let (from, to): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for c in &to[common..] {
        out.push(c.as_os_str());
    }
    out
}

const STYLE: &str = "body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #1b1b1b; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; text-align: left; }
th { background: #f0f0f0; cursor: pointer; position: sticky; top: 0; }
td.name { font-family: ui-monospace, monospace; }
td.compatible { background: #e6f4ea; }
td.not_in_image { background: #fce8e6; }
td.may_fail { background: #fef7e0; }
td.not_compiled { background: #f1f3f4; color: #666; }
.legend span { padding: 0 0.3em; }
span.compatible { background: #e6f4ea; }
span.not_in_image { background: #fce8e6; }
span.may_fail { background: #fef7e0; }
span.not_compiled { background: #f1f3f4; }
details summary { cursor: pointer; color: #444; }
.legend { color: #555; }";

const SCRIPT: &str = r#"(function () {
  var table = document.getElementById('matrix');
  var body = table.tBodies[0];
  var input = document.getElementById('filter');
  var shown = document.getElementById('shown');
  function apply() {
    var q = input.value.toLowerCase();
    var n = 0;
    Array.prototype.forEach.call(body.rows, function (row) {
      var hit = !q || row.textContent.toLowerCase().indexOf(q) >= 0;
      row.style.display = hit ? '' : 'none';
      if (hit) n++;
    });
    shown.textContent = n + ' of ' + body.rows.length + ' shown';
  }
  input.addEventListener('input', apply);
  var m = /[#&]filter=([^&]*)/.exec(location.hash);
  if (m) input.value = decodeURIComponent(m[1]);
  apply();
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    th.addEventListener('click', function () {
      var rows = Array.prototype.slice.call(body.rows);
      var dir = th.dataset.dir === 'asc' ? -1 : 1;
      th.dataset.dir = dir === 1 ? 'asc' : 'desc';
      rows.sort(function (a, b) {
        return dir * a.cells[col].textContent.localeCompare(b.cells[col].textContent);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
})();"#;

//! `query ... --connect`: the same questions, answered by a running daemon.

use std::path::Path;

use serde_json::{json, Value};

use super::output;
use super::{MacroOutput, Query, TextFormat, EXIT_INVALID, EXIT_OK};
use crate::devices::{render_macros, MacroFormat};
use crate::server::{client, codes};

pub fn query(socket: &Path, query: &Query) -> Result<i32, String> {
    let (method, params) = match query {
        Query::Target { names, format } => {
            require_json(*format == TextFormat::Json)?;
            let names: Vec<&str> = names.iter().flat_map(|n| n.split(',')).collect();
            ("sycl/targetInfo", json!({ "names": names }))
        }
        Query::Macros { targets, .. } => ("sycl/predefinedMacros", json!({ "targets": targets })),
        Query::Traits {
            targets,
            aspects,
            format,
        } => {
            require_json(*format == TextFormat::Json)?;
            let mut p = json!({ "targets": targets });
            if !aspects.is_empty() {
                p["aspects"] = json!(aspects);
            }
            ("sycl/aspectTraits", p)
        }
    };
    match client::call(socket, method, params) {
        Ok(result) => {
            match query {
                Query::Macros { format, .. } if *format != MacroOutput::Json => {
                    let f = match format {
                        MacroOutput::Flags => MacroFormat::Flags,
                        MacroOutput::Header => MacroFormat::Header,
                        _ => MacroFormat::Cmake,
                    };
                    output::out(&render_macros(
                        &macro_pairs(&result),
                        &target_names(&result),
                        f,
                    ));
                }
                _ => output::print_json(&result),
            }
            let invalid = result
                .as_array()
                .is_some_and(|a| a.iter().any(|t| t["valid"] == false));
            Ok(if invalid { EXIT_INVALID } else { EXIT_OK })
        }
        Err(Ok(e)) if e.code == codes::INVALID_INPUT => {
            if let Some(d) = &e.data {
                output::print_json(d);
            }
            eprintln!("error: {}", e.message);
            Ok(EXIT_INVALID)
        }
        Err(Ok(e)) => Err(format!(
            "the daemon answered error {}: {}",
            e.code, e.message
        )),
        Err(Err(transport)) => Err(transport),
    }
}

fn require_json(json: bool) -> Result<(), String> {
    if json {
        Ok(())
    } else {
        Err("--connect answers in JSON only for this query (use --format json)".into())
    }
}

fn macro_pairs(result: &Value) -> Vec<(String, String)> {
    result["macros"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("1").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn target_names(result: &Value) -> Vec<&str> {
    result["targets"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

//! Logs of the daemon, the language server and the CLI, through `tracing`: on standard error (a
//! language server's is the editor's log; stdout is the protocol's) or in `--log-file`; the
//! level from `SYCL_ANALYZER_LOG` in `tracing-subscriber`'s env-filter syntax
//! (`debug`, `sycl_analyzer::lsp=trace,warn`). Shared by the front ends: `cli` installs the
//! subscriber, `bench` shows the measured server's log when the variable is set.

use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

/// The variable naming the log filter.
pub const ENV: &str = "SYCL_ANALYZER_LOG";

/// Installs the subscriber; `default` is the filter when `SYCL_ANALYZER_LOG` is unset. A filter
/// that does not parse is reported and the default used.
pub fn init(log_file: Option<&Path>, default: &str) -> Result<(), String> {
    let (filter, bad) = match std::env::var(ENV) {
        Ok(spec) => match EnvFilter::try_new(&spec) {
            Ok(f) => (f, None),
            Err(e) => (EnvFilter::new(default), Some(format!("{ENV}={spec}: {e}"))),
        },
        Err(_) => (EnvFilter::new(default), None),
    };
    use tracing_subscriber::fmt::writer::BoxMakeWriter;
    use tracing_subscriber::prelude::*;
    let writer = match log_file {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open the log file '{}': {e}", path.display()))?;
            BoxMakeWriter::new(Mutex::new(file))
        }
        None => BoxMakeWriter::new(std::io::stderr),
    };
    let fmt = tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .with_target(true)
        .with_writer(writer);
    // A second init (tests running the CLI in one process) keeps the first subscriber.
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(fmt)
        .with(crate::lsp::log::Forward)
        .try_init();
    if let Some(bad) = bad {
        tracing::warn!("{bad}; using '{default}'");
    }
    Ok(())
}

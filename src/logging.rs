//! Logs of the daemon, the language server and the CLI, through `tracing`: on standard error (a
//! language server's is the editor's log; stdout is the protocol's) or in `--log-file`; the
//! level from `SYCL_ANALYZER_LOG` in `tracing-subscriber`'s env-filter syntax
//! (`debug`, `sycl_analyzer::lsp=trace,warn`). Shared by the front ends: `cli` installs the
//! subscriber, `bench` shows the measured server's log when the variable is set.

use std::path::Path;
use std::sync::Mutex;

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

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
        .with(Forward)
        .try_init();
    if let Some(bad) = bad {
        tracing::warn!("{bad}; using '{default}'");
    }
    Ok(())
}

/// Sets (or, with `None`, clears) the sink events are forwarded to.
pub fn set_sink(sink: Option<Sink>) {
    if let Ok(mut s) = SINK.lock() {
        *s = sink;
    }
}

/// Where forwarded events go: a server's (the language server sends them to the editor).
pub type Sink = Box<dyn Fn(Level, String) + Send + Sync>;

/// The running server's sink; none outside `lsp` mode.
static SINK: Mutex<Option<Sink>> = Mutex::new(None);

thread_local! {
    /// Sending a message can itself log (the LSP library uses `tracing`): not forwarded.
    static SENDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The layer `init` installs; it does nothing until a server sets its sink.
pub struct Forward;

impl<S: Subscriber> Layer<S> for Forward {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target().starts_with("async_lsp") || SENDING.with(|s| s.get()) {
            return;
        }
        let Ok(sink) = SINK.lock() else { return };
        let Some(sink) = sink.as_ref() else { return };
        let mut text = Text(String::new());
        event.record(&mut text);
        SENDING.with(|s| s.set(true));
        sink(*event.metadata().level(), text.0);
        SENDING.with(|s| s.set(false));
    }
}

struct Text(String);

impl Visit for Text {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0.insert_str(0, &format!("{value:?}"));
        } else {
            self.0.push_str(&format!(" {}={value:?}", field.name()));
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.insert_str(0, value);
        } else {
            self.0.push_str(&format!(" {}={value}", field.name()));
        }
    }
}
